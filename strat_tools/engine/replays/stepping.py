"""Step through a game yourself, as python-chess users do: :func:`positions` yields the
:class:`~strat_tools.engine.position.position.Position` after 0, 1, ... every ply of a record
(docs/position.md).

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

This module replays a record and walks its positions (the walk itself, on a replay already
made, is :mod:`strat_tools.engine.replays.steps`, which the replay imports for
:meth:`Replay.position <strat_tools.engine.replays.replay.Replay.position>`: so it cannot live
here, above the replay). It knows no XML (the readers do); the rules are the engine's.
"""

from __future__ import annotations

from collections.abc import Iterator

from strat_tools.core.records import GameRecord
from strat_tools.core.rules import RuleSet
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.steps import walk

__all__ = ["positions"]


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
