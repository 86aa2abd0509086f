"""Key events of a replayed game: battles, first capture, big losses, rescues, the end.

:func:`game_events` reads a :class:`~strat_tools.replay.Replay` (its per-ply movers,
defenders and outcomes) and returns one column list per field of :data:`EVENT_COLUMNS`, one
row per event in ply order. The kinds are declared once, in :data:`EVENT_KINDS`; the CLI's
``events`` command, the viewer's "next event" and the docs take them from there.

Every game gets an ``end`` row, also one that was not replayed (no setup, unreadable) or
whose replay stopped at an illegal move: its ``detail`` says why. This module reads no
files and checks no moves (the replay did).

>>> from strat_tools.pieces import letter_code
>>> from strat_tools.records import GameRecord, Result
>>> from strat_tools.replay import replay
>>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 39 + "Y"
>>> setup = tuple(letter_code(c) for c in field)
>>> record = GameRecord("doc.xml", variant="classicfree", setup=setup, sources=[9],
...                     targets=[99], result=Result(1, 1))
>>> events = game_events(replay(record))
>>> events["kind"], events["detail"][0]
(['battle', 'first_capture', 'flag_captured', 'end'], 'red scout K1 takes blue flag K10')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from strat_tools.board import Side, square_name
from strat_tools.pieces import CODE_KIND, CODE_SIDE, PieceKind, piece_name
from strat_tools.records import GameRecord, Severity
from strat_tools.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_LABELS,
)

if TYPE_CHECKING:
    from strat_tools.replay import Replay

__all__ = ["EVENT_COLUMNS", "EVENT_KINDS", "game_events"]

EVENT_KINDS: Final[dict[str, str]] = {
    "battle": "a piece attacked another: both squares, both ranks and the outcome",
    "first_capture": "the first piece of the game removed from the board",
    "marshal_lost": "a side lost its marshal",
    "general_lost": "a side lost its general",
    "spy_takes_marshal": "a spy attacked the marshal and took it",
    "bomb_removed": "a bomb was taken off the board",
    "rescue": "a piece reached the enemy back row and brought back a captured piece",
    "flag_captured": "a flag was captured",
    "end": "the game's end and its reason (or why the replay stopped)",
}
"""Every event kind and what it means, in the order a game's rows are written per ply."""

EVENT_COLUMNS: Final = (
    "ply",
    "kind",
    "side",
    "piece",
    "from_square",
    "to_square",
    "other",
    "outcome",
    "termination",
    "detail",
)
"""The columns of an events table (the ``events`` command adds ``game_id``): ``ply`` the
ply of the event (the last ply for ``end``); ``side`` the side that moved (for
``marshal_lost`` / ``general_lost`` the side that lost it, for ``end`` the winner, empty
for a draw or an open game); ``piece`` the moving piece's kind; ``from_square`` /
``to_square`` the move's squares; ``other`` the attacked (or rescued) piece's kind;
``outcome`` a battle's outcome (attacker, defender, both, flag); ``termination`` how the
game ended (``end`` rows only, the recorded result's name); ``detail`` one readable
sentence. The names and values are those of the export's tables
(:mod:`strat_tools.schemas`)."""

UNREADABLE: Final = "unreadable: "
"""How the ``detail`` of the ``end`` row of a game that could not be read starts."""

_VERDICTS: Final = {
    OUTCOME_ATTACKER: "{a} takes {d}",
    OUTCOME_DEFENDER: "{a} attacks {d} and loses",
    OUTCOME_BOTH: "{a} attacks {d}: both removed",
    OUTCOME_FLAG: "{a} takes {d}",
}


# Labels by board code (0..25) and square (0..99), looked up once: an export writes the
# events of every game, and building them from enums per event tripled their cost.
_PIECE_NAMES: Final = tuple(piece_name(code) for code in range(26))
_KIND_LABELS: Final = tuple(PieceKind(kind).label if kind >= 0 else "" for kind in CODE_KIND[:26])
_SIDE_LABELS: Final = tuple(Side(side).label if side in (1, 2) else "" for side in CODE_SIDE[:26])
_SQUARES: Final = tuple(square_name(square) for square in range(100))


def _columns() -> dict[str, list[Any]]:
    return {name: [] for name in EVENT_COLUMNS}


def _add(columns: dict[str, list[Any]], **row: Any) -> None:
    for name in EVENT_COLUMNS:
        columns[name].append(row.get(name))


def game_events(result: Replay | None, record: GameRecord | None = None) -> dict[str, list[Any]]:
    """The events of one game as columns (see :data:`EVENT_COLUMNS`), in ply order.

    ``result`` None (a record that could not be replayed) gives only the ``end`` row, for
    which ``record`` must be given.
    """
    columns = _columns()
    if result is None:
        if record is None:
            raise ValueError("game_events needs a replay or a record")
        _end(columns, record, None)
        return columns
    record = result.record
    first_capture = True
    for index in range(result.plies_replayed):
        defender = result.defenders[index]
        ply = index + 1
        if defender:
            _battle(columns, result, index)
            if first_capture and result.outcomes[index]:
                first_capture = False
                _add(
                    columns,
                    **_base(result, index),
                    kind="first_capture",
                    other=_kind(defender),
                    outcome=columns["outcome"][-1],
                    detail=_said(columns),
                )
            _losses(columns, result, index)
        code = result.rescued.get(ply)
        if code is not None:
            rescue = record.rescues.get(ply)
            where = square_name(rescue.square) if rescue and rescue.square is not None else ""
            base = _base(result, index)
            _add(
                columns,
                **base,
                kind="rescue",
                other=_kind(code),
                detail=f"{piece_name(result.movers[index])} reaches {base['to_square']} and "
                f"brings back the {_kind(code)} on {where}",
            )
    _end(columns, record, result)
    return columns


def _said(columns: dict[str, list[Any]]) -> str:
    """The sentence of the battle row just written."""
    return str(columns["detail"][-1])


def _base(result: Replay, index: int) -> dict[str, Any]:
    source, target = result.record.sources[index], result.record.targets[index]
    mover = result.movers[index]
    return {
        "ply": index + 1,
        "side": _SIDE_LABELS[mover],
        "piece": _KIND_LABELS[mover],
        "from_square": _SQUARES[source],
        "to_square": _SQUARES[target],
    }


def _kind(code: int) -> str:
    return _KIND_LABELS[code]


def _battle(columns: dict[str, list[Any]], result: Replay, index: int) -> None:
    mover, defender = result.movers[index], result.defenders[index]
    outcome = result.outcomes[index]
    base = _base(result, index)
    detail = _VERDICTS.get(outcome, "{a} attacks {d}").format(
        a=f"{_PIECE_NAMES[mover]} {base['from_square']}",
        d=f"{_PIECE_NAMES[defender]} {base['to_square']}",
    )
    _add(
        columns,
        **base,
        kind="battle",
        other=_kind(defender),
        outcome=OUTCOME_LABELS[outcome],
        detail=detail,
    )


def _losses(columns: dict[str, list[Any]], result: Replay, index: int) -> None:
    """The rows a battle adds beyond itself: big pieces lost, spy on marshal, bombs, flag."""
    mover, defender = result.movers[index], result.defenders[index]
    outcome = result.outcomes[index]
    base = _base(result, index)
    lost = []
    if outcome in (OUTCOME_DEFENDER, OUTCOME_BOTH):
        lost.append(mover)
    if outcome in (OUTCOME_ATTACKER, OUTCOME_BOTH):
        lost.append(defender)
    mover_kind, defender_kind = CODE_KIND[mover], CODE_KIND[defender]
    if (
        mover_kind == PieceKind.SPY
        and defender_kind == PieceKind.MARSHAL
        and outcome == OUTCOME_ATTACKER
    ):
        _add(
            columns,
            **base,
            kind="spy_takes_marshal",
            other="marshal",
            detail=f"{piece_name(mover)} takes the marshal on {base['to_square']}",
        )
    for code in lost:
        kind = CODE_KIND[code]
        if kind in (PieceKind.MARSHAL, PieceKind.GENERAL):
            owner = Side(CODE_SIDE[code]).label
            label = PieceKind(kind).label
            _add(
                columns,
                **{**base, "side": owner},
                kind=f"{label}_lost",
                other=label,
                detail=f"{owner} loses its {label} on {base['to_square']}",
            )
        elif kind == PieceKind.BOMB:
            _add(
                columns,
                **base,
                kind="bomb_removed",
                other="bomb",
                detail=f"{piece_name(code)} on {base['to_square']} removed by the {base['piece']}",
            )
    if outcome == OUTCOME_FLAG:
        _add(
            columns,
            **base,
            kind="flag_captured",
            other="flag",
            detail=f"{base['side']} captures the flag on {base['to_square']}",
        )


def _end(columns: dict[str, list[Any]], record: GameRecord, result: Replay | None) -> None:
    """The ``end`` row: the recorded result, or why the game could not be replayed."""
    ply = record.plies if result is None else result.plies_replayed
    winner = record.result.winner if record.result is not None else None
    side = Side(winner).label if winner in (1, 2) else None
    if not record.readable:
        reasons = [d.message for d in record.diagnostics if d.severity is Severity.ERROR]
        detail = UNREADABLE + ("; ".join(reasons) or "not a game record")
    elif result is None or record.setup is None:
        detail = "not replayed: the record has no setup"
    elif result.stopped_at is not None:
        first = next((d for d in result.diagnostics if d.severity is Severity.ERROR), None)
        why = first.message if first is not None else "an illegal move"
        detail = f"replay stopped at ply {result.stopped_at}: {why}"
    else:
        detail = _result_sentence(record)
    _add(columns, ply=ply, kind="end", side=side, termination=_termination(record), detail=detail)


def _termination(record: GameRecord) -> str | None:
    return record.result.termination.label if record.result is not None else None


_ENDINGS: Final = {
    "no_moves": "{loser} cannot move: {winner} wins",
    "flag_captured": "{winner} captured the flag",
    "both_no_moves": "neither side can move: a draw",
    "resigned": "{loser} resigned or left: {winner} wins",
    "draw_agreed": "a draw was agreed",
    "both_missing": "both players went missing",
    "clock": "{loser}'s clock ran out: {winner} wins",
    "game_clock": "the game clock ran out",
    "clock_while_missing": "{loser}'s clock ran out while missing: {winner} wins",
    "opponent_missing": "{loser} went missing: {winner} wins",
    "unknown": "an unknown result type",
}


def _result_sentence(record: GameRecord) -> str:
    """How the game ended, in words (``'blue captured the flag'``)."""
    if record.result is None:
        return "no result recorded"
    winner = record.result.winner
    text = _ENDINGS[record.result.termination.label]
    if winner in (1, 2):
        win = Side(winner)
        return text.format(winner=win.label, loser=win.other.label)
    if "{" in text:
        return text.format(winner="nobody", loser="a player") + (" (draw)" if winner == 3 else "")
    return text
