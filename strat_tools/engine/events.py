"""Key events of replayed games: battles, first capture, big losses, rescues, the end.

One definition, built for many games at once: an :class:`EventBatch` takes replayed games
(:meth:`EventBatch.add`) and finds every event of all of them in one vectorised pass over
their per-ply movers, defenders and outcomes (:meth:`EventBatch.codes`: integer columns and
one sentence per row, for the export's table); :func:`game_events` is a batch of one game
as plain labels, for the viewer and the tests. The kinds are declared once, in
:data:`EVENT_KINDS`; the CLI's ``events`` command, the viewer's "next event" and the docs
take them from there.

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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.board import Side, square_name
from strat_tools.pieces import CODE_KIND, CODE_SIDE, KIND_LABELS, PieceKind, piece_name
from strat_tools.records import GameRecord, Severity, Termination
from strat_tools.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_LABELS,
)

if TYPE_CHECKING:
    from strat_tools.replay import Replay

__all__ = ["EVENT_COLUMNS", "EVENT_KINDS", "EventBatch", "EventCodes", "game_events"]

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
"""Every event kind and what it means; a ply's rows come in the order of :data:`_ORDER`."""

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

KIND_NAMES: Final = tuple(EVENT_KINDS)
"""Event kinds by code (the ``kind`` column of :class:`EventCodes`)."""
TERMINATIONS: Final = tuple(Termination)
"""Terminations by code (the ``termination`` column of :class:`EventCodes`)."""

_KIND: Final = {name: code for code, name in enumerate(KIND_NAMES)}
_TERMINATION: Final = {termination: code for code, termination in enumerate(TERMINATIONS)}
_TERMINATION_LABELS: Final = tuple(t.label for t in TERMINATIONS)
_ORDER: Final = (
    "battle",
    "first_capture",
    "spy_takes_marshal",
    "mover_lost",
    "defender_lost",
    "flag_captured",
    "rescue",
)
"""The order of the rows of one ply (a lost piece is ``*_lost`` or ``bomb_removed``)."""
_RANK: Final = {name: rank for rank, name in enumerate(_ORDER)}

_VERDICTS: Final = {
    OUTCOME_ATTACKER: ("takes", ""),
    OUTCOME_DEFENDER: ("attacks", " and loses"),
    OUTCOME_BOTH: ("attacks", ": both removed"),
    OUTCOME_FLAG: ("takes", ""),
}
"""A battle's sentence by outcome: ``'{attacker} {verb} {defender}{ending}'``."""
_VERB: Final = tuple(f" {_VERDICTS.get(code, ('attacks', ''))[0]} " for code in range(5))
_ENDING: Final = tuple(_VERDICTS.get(code, ("", ""))[1] for code in range(5))

# Labels by board code (0..25) and square (0..99), looked up once, and the same codes as
# arrays for the vectorised pass over a batch's moves.
_PIECE_NAMES: Final = tuple(piece_name(code) for code in range(26))
_KIND_LABELS: Final = tuple(PieceKind(kind).label if kind >= 0 else "" for kind in CODE_KIND[:26])
_SIDE_LABELS: Final = tuple(Side(side).label if side in (1, 2) else "" for side in CODE_SIDE[:26])
_SQUARES: Final = tuple(square_name(square) for square in range(100))
_PIECE_ON: Final = tuple(tuple(f"{name} {square}" for square in _SQUARES) for name in _PIECE_NAMES)
"""``'red spy E5'`` by board code and square."""
_CODE_KIND: Final = np.array(CODE_KIND[:26], dtype=np.int8)
_CODE_SIDE: Final = np.array(CODE_SIDE[:26], dtype=np.int8)

_I8 = npt.NDArray[np.int8]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]
_Ints = npt.NDArray[np.integer[Any]]


_CODE_FIELDS: Final = (
    "kind",
    "side",
    "piece",
    "from_square",
    "to_square",
    "other",
    "outcome",
    "termination",
)
"""The int8 columns of :class:`EventCodes`."""


@dataclass(frozen=True, slots=True)
class EventCodes:
    """The events of a batch as integer columns, one row per event: games in the order they
    were added, each game's rows in ply order and its ``end`` row last. -1 is none (null)
    in every code column."""

    game: _I64
    """Index of the game in the batch (the order of :meth:`EventBatch.add`)."""
    ply: _I32
    kind: _I8
    """Index in :data:`KIND_NAMES`."""
    side: _I8
    """0 red, 1 blue."""
    piece: _I8
    """The moving piece's :class:`~strat_tools.pieces.PieceKind`."""
    from_square: _I8
    to_square: _I8
    other: _I8
    """The attacked, lost or rescued piece's kind."""
    outcome: _I8
    """A battle's outcome code (1 attacker .. 4 flag, as in :mod:`strat_tools.rules`)."""
    termination: _I8
    """Index in :data:`TERMINATIONS` (``end`` rows only)."""
    detail: list[str]
    """One sentence per row."""

    def __len__(self) -> int:
        return len(self.ply)

    def labels(self) -> dict[str, list[Any]]:
        """The columns of :data:`EVENT_COLUMNS` as plain Python labels (None for -1)."""

        def named(codes: _I8, names: tuple[str | None, ...]) -> list[Any]:
            return [names[c] if c >= 0 else None for c in codes.tolist()]

        return {
            "ply": self.ply.tolist(),
            "kind": named(self.kind, KIND_NAMES),
            "side": named(self.side, ("red", "blue")),
            "piece": named(self.piece, KIND_LABELS),
            "from_square": named(self.from_square, _SQUARES),
            "to_square": named(self.to_square, _SQUARES),
            "other": named(self.other, KIND_LABELS),
            "outcome": named(self.outcome, OUTCOME_LABELS),
            "termination": named(self.termination, _TERMINATION_LABELS),
            "detail": list(self.detail),
        }


class _Plies:
    """Some replayed plies of a batch (its battles, or its rescues) as arrays."""

    def __init__(self, rows: _I64, starts: _I64, columns: tuple[_I64, ...]) -> None:
        self.rows = rows
        """Rows of the batch's plies (all games' replayed plies one after the other)."""
        # The game whose plies start last at or before the row (games without plies share
        # the next one's start and come before it).
        self.game: _I64 = np.searchsorted(starts, rows, side="right") - 1
        self.ply = rows - starts[self.game] + 1
        self.mover, self.defender, self.outcome, self.source, self.target = (
            column[rows] for column in columns
        )

    def part(
        self,
        rank: str,
        where: _I64,
        kind: int | _Ints,
        detail: list[str],
        *,
        other: int | _Ints = -1,
        side: _Ints | None = None,
        outcome: int | _Ints = -1,
    ) -> dict[str, Any]:
        """Event rows of ``kind`` at the plies ``where`` (indices into these plies); the
        side is the mover's unless given."""
        mover = self.mover[where]
        n = len(where)
        return {
            "key": 2 * self.rows[where],
            "rank": np.full(n, _RANK[rank]),
            "game": self.game[where],
            "ply": self.ply[where],
            "kind": np.broadcast_to(kind, n),
            "side": _CODE_SIDE[mover] - 1 if side is None else side,
            "piece": _CODE_KIND[mover],
            "from_square": self.source[where],
            "to_square": self.target[where],
            "other": np.broadcast_to(other, n),
            "outcome": np.broadcast_to(outcome, n),
            "termination": np.full(n, -1),
            "detail": detail,
        }


class EventBatch:
    """The events of many games, found in one vectorised pass (:meth:`codes`).

    :meth:`add` keeps a game's replayed per-ply codes and its end row; :meth:`codes` finds
    the battles, first captures, losses, flags and rescues of all of them at once.
    """

    def __init__(self) -> None:
        self._plies: list[int] = []
        self._movers: list[int] = []
        self._defenders: list[int] = []
        self._outcomes: list[int] = []
        self._sources: list[int] = []
        self._targets: list[int] = []
        self._rescues: list[tuple[int, int, str]] = []
        """(row of the batch's moves, rescued board code, square it comes back on)."""
        self._ends: list[tuple[int, int, int, str]] = []
        """Per game: (ply, side, termination, detail) of its end row."""

    def __len__(self) -> int:
        return len(self._ends)

    def add(self, result: Replay | None, record: GameRecord, end: str | None = None) -> None:
        """Take one game (``result`` None: not replayed, only its ``end`` row); ``end``
        replaces the end row's sentence."""
        done = result.plies_replayed if result is not None else 0
        if result is not None and done:
            first = len(self._movers)
            for column, values in (
                (self._movers, result.movers),
                (self._defenders, result.defenders),
                (self._outcomes, result.outcomes),
                (self._sources, result.record.sources),
                (self._targets, result.record.targets),
            ):
                column += values if len(values) == done else values[:done]
            for ply, code in result.rescued.items():
                if 1 <= ply <= done:
                    rescue = result.record.rescues.get(ply)
                    square = rescue.square if rescue is not None else None
                    where = square_name(square) if square is not None else ""
                    self._rescues.append((first + ply - 1, code, where))
        self._plies.append(done)
        ply, side, termination, detail = _end(record, result)
        self._ends.append((ply, side, termination, detail if end is None else end))

    def codes(self) -> EventCodes:
        """Every event of every game added, as integer columns and sentences."""
        plies = np.asarray(self._plies, dtype=np.int64)
        starts = np.cumsum(plies) - plies
        columns = tuple(
            _small_ints(values)
            for values in (
                self._movers, self._defenders, self._outcomes, self._sources, self._targets
            )
        )  # fmt: skip
        battles = np.flatnonzero(columns[1])
        rescues = np.asarray([r[0] for r in self._rescues], dtype=np.int64)
        parts = [
            *_battle_parts(_Plies(battles, starts, columns)),
            self._rescue_part(_Plies(rescues, starts, columns)),
            self._end_part(starts + plies),
        ]
        # By ply row, then rank within the ply; a game's end row after its last ply and
        # before the next game's first (keys 2 * row, and 2 * the next game's start - 1).
        order = np.lexsort(
            (np.concatenate([p["rank"] for p in parts]), np.concatenate([p["key"] for p in parts]))
        )

        def column(name: str) -> _Ints:
            joined: _Ints = np.concatenate([p[name] for p in parts])[order]
            return joined

        details = [text for p in parts for text in p["detail"]]
        return EventCodes(
            game=column("game").astype(np.int64),
            ply=column("ply").astype(np.int32),
            **{name: column(name).astype(np.int8) for name in _CODE_FIELDS},
            detail=[details[i] for i in order.tolist()],
        )

    def _rescue_part(self, plies: _Plies) -> dict[str, Any]:
        codes = [r[1] for r in self._rescues]
        detail = [
            f"{_PIECE_NAMES[mover]} reaches {_SQUARES[target]} and brings back the "
            f"{_KIND_LABELS[code]} on {where}"
            for mover, target, code, (_, _, where) in zip(
                plies.mover.tolist(), plies.target.tolist(), codes, self._rescues, strict=True
            )
        ]
        other = _CODE_KIND[np.asarray(codes, dtype=np.int64)]
        where = np.arange(len(codes))
        return plies.part("rescue", where, _KIND["rescue"], detail, other=other)

    def _end_part(self, ends: _I64) -> dict[str, Any]:
        """The end rows; ``ends`` is where each game's plies end."""
        n = len(self._ends)
        none = np.full(n, -1)
        return {
            "key": 2 * ends - 1,
            "rank": np.zeros(n, dtype=np.int64),
            "game": np.arange(n),
            "ply": np.asarray([e[0] for e in self._ends], dtype=np.int64),
            "kind": np.full(n, _KIND["end"]),
            "side": np.asarray([e[1] for e in self._ends], dtype=np.int64),
            "piece": none,
            "from_square": none,
            "to_square": none,
            "other": none,
            "outcome": none,
            "termination": np.asarray([e[2] for e in self._ends], dtype=np.int64),
            "detail": [e[3] for e in self._ends],
        }


def _small_ints(values: list[int]) -> _I64:
    """A list of codes or squares as an array: ``bytes()`` reads 0..255 in C, several times
    faster than ``np.asarray`` on the list; anything else takes the slow way."""
    try:
        return np.frombuffer(bytes(values), dtype=np.uint8).astype(np.int64)
    except ValueError:
        return np.asarray(values, dtype=np.int64)


def _battle_parts(plies: _Plies) -> list[dict[str, Any]]:
    """Battles and what they cause: first capture, spy on marshal, losses, flags."""
    mover, defender, outcome, target = plies.mover, plies.defender, plies.outcome, plies.target
    said = [
        f"{_PIECE_ON[m][s]}{_VERB[o]}{_PIECE_ON[d][t]}{_ENDING[o]}"
        for m, d, o, s, t in zip(
            mover.tolist(), defender.tolist(), outcome.tolist(), plies.source.tolist(),
            target.tolist(), strict=True,
        )
    ]  # fmt: skip
    other = _CODE_KIND[defender]
    result = np.where(outcome > 0, outcome, -1)
    every = np.arange(len(mover))
    parts = [plies.part("battle", every, _KIND["battle"], said, other=other, outcome=result)]

    def at(where: _I64) -> tuple[list[int], list[int]]:
        return mover[where].tolist(), target[where].tolist()

    captures = np.flatnonzero(outcome)
    first = captures[np.unique(plies.game[captures], return_index=True)[1]]
    parts.append(
        plies.part(
            "first_capture", first, _KIND["first_capture"], [said[i] for i in first.tolist()],
            other=other[first], outcome=result[first],
        )
    )  # fmt: skip
    spy = np.flatnonzero(
        (_CODE_KIND[mover] == PieceKind.SPY)
        & (other == PieceKind.MARSHAL)
        & (outcome == OUTCOME_ATTACKER)
    )
    m, t = at(spy)
    detail = [
        f"{_PIECE_NAMES[a]} takes the marshal on {_SQUARES[b]}" for a, b in zip(m, t, strict=True)
    ]
    parts.append(
        plies.part(
            "spy_takes_marshal", spy, _KIND["spy_takes_marshal"], detail,
            other=int(PieceKind.MARSHAL),
        )
    )  # fmt: skip
    for rank, lost, outcomes in (
        ("mover_lost", mover, (OUTCOME_DEFENDER, OUTCOME_BOTH)),
        ("defender_lost", defender, (OUTCOME_ATTACKER, OUTCOME_BOTH)),
    ):
        kind = _CODE_KIND[lost]
        taken = np.isin(outcome, outcomes)
        big = np.flatnonzero(taken & np.isin(kind, (PieceKind.MARSHAL, PieceKind.GENERAL)))
        detail = [
            f"{_SIDE_LABELS[c]} loses its {_KIND_LABELS[c]} on {_SQUARES[s]}"
            for c, s in zip(lost[big].tolist(), target[big].tolist(), strict=True)
        ]
        event = np.where(
            kind[big] == PieceKind.MARSHAL, _KIND["marshal_lost"], _KIND["general_lost"]
        )
        owner = _CODE_SIDE[lost[big]] - 1
        parts.append(plies.part(rank, big, event, detail, other=kind[big], side=owner))
        bombs = np.flatnonzero(taken & (kind == PieceKind.BOMB))
        m, t = at(bombs)
        detail = [
            f"{_PIECE_NAMES[c]} on {_SQUARES[s]} removed by the {_KIND_LABELS[a]}"
            for c, s, a in zip(lost[bombs].tolist(), t, m, strict=True)
        ]
        parts.append(
            plies.part(rank, bombs, _KIND["bomb_removed"], detail, other=int(PieceKind.BOMB))
        )
    flags = np.flatnonzero(outcome == OUTCOME_FLAG)
    m, t = at(flags)
    detail = [
        f"{_SIDE_LABELS[a]} captures the flag on {_SQUARES[b]}" for a, b in zip(m, t, strict=True)
    ]
    parts.append(
        plies.part(
            "flag_captured", flags, _KIND["flag_captured"], detail, other=int(PieceKind.FLAG)
        )
    )
    return parts


def game_events(result: Replay | None, record: GameRecord | None = None) -> dict[str, list[Any]]:
    """The events of one game as columns of labels (see :data:`EVENT_COLUMNS`), in ply
    order: an :class:`EventBatch` of one game.

    ``result`` None (a record that could not be replayed) gives only the ``end`` row, for
    which ``record`` must be given.
    """
    if result is None and record is None:
        raise ValueError("game_events needs a replay or a record")
    batch = EventBatch()
    batch.add(result, result.record if result is not None else record)  # type: ignore[arg-type]
    return batch.codes().labels()


def _end(record: GameRecord, result: Replay | None) -> tuple[int, int, int, str]:
    """The ``end`` row (ply, winner 0 red / 1 blue / -1, termination code, sentence): the
    recorded result, or why the game could not be replayed."""
    ply = record.plies if result is None else result.plies_replayed
    winner = record.result.winner if record.result is not None else None
    side = winner - 1 if winner in (1, 2) else -1
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
    termination = _TERMINATION[record.result.termination] if record.result is not None else -1
    return ply, side, termination, detail


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
