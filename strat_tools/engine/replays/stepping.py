"""Step through a game yourself, as python-chess users do: :func:`positions` yields the
:class:`~strat_tools.engine.position.position.Position` after 0, 1, ... every ply of a record
(docs/position.md), :func:`board_at` gives the one after a ply and :func:`show` draws it as
text.

Each position knows the game's rule set (the one its replay used: the two-squares limit of
its period, the scout clause, the options), so :meth:`Position.legal_moves` lists exactly
the moves the observation export lists for that ply, :meth:`Position.push` plays one (an
:class:`~strat_tools.core.errors.IllegalMove` naming the rule otherwise) and :meth:`Position.pop`
takes moves back, through every ply before it::

    import strat_tools as st
    record = st.read_game("game.xml")
    for pos in st.positions(record):
        print(pos.plies, list(pos.legal_moves), pos.outcome())

:meth:`Replay.position <strat_tools.engine.replays.replay.Replay.position>` gives one of them: the
``n``-th element of ``positions(r)`` is ``Replay.position(n)`` is ``board_at(r, n)``.

This module replays a record and takes its positions (the walk itself, on a replay already
made, is :mod:`strat_tools.engine.replays.steps`, which the replay imports for
:meth:`Replay.position <strat_tools.engine.replays.replay.Replay.position>`: so it cannot live
here, above the replay). It knows no XML (the readers do); the rules are the engine's.
"""

from __future__ import annotations

from collections.abc import Iterator

from strat_tools.core.board import Side
from strat_tools.core.diagrams import BoardNumbering, render_board
from strat_tools.core.move import MoveError
from strat_tools.core.pieces import piece_name
from strat_tools.core.records import GameRecord, RecordError
from strat_tools.core.rules import OUTCOME_FLAG, OUTCOME_LABELS, RuleSet
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import Replay, move_text, replay
from strat_tools.engine.replays.steps import walk

__all__ = ["board_at", "positions", "show"]


def positions(record: GameRecord, rules: RuleSet | str | None = None) -> Iterator[Position]:
    """The position after each ply of ``record`` (position 0 first: the setup, red to move;
    the last: after the last replayed move), each its own copy, with every earlier move on
    its move stack. A position's ``outcome()`` is the board's; the record's ending (a
    resignation, a clock) is the replay's, :meth:`Replay.outcome
    <strat_tools.engine.replays.replay.Replay.outcome>`.

    Replays the record first (``rules`` as :func:`~strat_tools.engine.replays.replay.replay` takes
    them; ``None`` picks the game's own) and stops before the first illegal move. A record
    without a setup raises :class:`~strat_tools.core.records.RecordError`.

    >>> from strat_tools.formats.readers import read_game
    >>> record = read_game("tests/fixtures/gravon/classic-2014.4-17.xml")
    >>> first = next(positions(record))
    >>> first.plies, len(first.legal_moves), str(first.legal_moves[0])
    (0, 6, 'A4-A5')
    """
    result = replay(record, rules)
    yield from walk(result)


def board_at(
    record: GameRecord, ply: int | None = None, rules: RuleSet | str | None = None
) -> Position:
    """The position after ``ply`` plies (all of them if None; the one ply convention of
    :mod:`strat_tools.engine.replays.steps`): :func:`replay` under ``rules`` (so with the rule
    set's two-squares fallback, as ``show`` and ``positions`` take it), then
    :meth:`Replay.position`, with the moves before it on its move stack.

    Stops early at an illegal move; raises :class:`~strat_tools.core.records.RecordError` (a
    ``ValueError``) when the record has no setup.
    """
    if record.setup is None:
        raise RecordError(f"{record.game_id}: the record has no setup to show")
    if ply is not None and (isinstance(ply, bool) or not isinstance(ply, int)):
        raise MoveError(f"a ply is an int, got {ply!r}")
    result = replay(record, rules)
    upto = result.plies_replayed if ply is None else max(0, min(ply, result.plies_replayed))
    return result.position(upto)


def show(
    game: GameRecord | Replay,
    ply: int | None = None,
    *,
    numbering: BoardNumbering = "modern",
    rules: RuleSet | str | None = None,
) -> str:
    """The board after ``ply`` as text with the last move (and any battle) marked; ``game``
    a record (replayed under ``rules``) or a replay already made (not replayed again)."""
    from strat_tools.engine.information.knowledge import board_after

    result = game if isinstance(game, Replay) else replay(game, rules)
    record = result.record
    upto = result.plies_replayed if ply is None else max(0, min(ply, result.plies_replayed))
    last = None
    caption = [f"{record.game_id}  ply {upto}/{record.plies}  rules {result.rules.name}"]
    if upto:
        i = upto - 1
        last = (record.sources[i], record.targets[i])
        mover, defender, outcome = result.movers[i], result.defenders[i], result.outcomes[i]
        text = f"last move {move_text(*last)}: {piece_name(mover)}"
        if defender:
            verdict = {3: "both removed", 4: "the flag is captured"}.get(
                outcome, f"{OUTCOME_LABELS[outcome]} wins"
            )
            text += f" attacks {piece_name(defender)}: {verdict}"
        caption.append(text)
    board = render_board(
        board_after(result, upto),
        numbering=numbering,
        last_move=last,
        battle=bool(upto and result.defenders[upto - 1]),
    )
    taken = upto and result.outcomes[upto - 1] == OUTCOME_FLAG
    to_move = Side.RED if upto % 2 == 0 else Side.BLUE  # red moves first
    caption.append(
        f"{to_move.other.label} captured the flag" if taken else f"{to_move.label} to move"
    )
    return "\n".join([caption[0], board, *caption[1:]])
