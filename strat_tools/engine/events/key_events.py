"""Key events of replayed games: battles, first capture, big losses, rescues, the end.

One definition, built for many games at once: an :class:`EventBatch` takes replayed games
(:meth:`EventBatch.add`) and finds every event of all of them in one vectorised pass over
their per-ply movers, defenders and outcomes (:meth:`EventBatch.codes`: integer columns and
one sentence per row, for the export's table); :func:`game_events` is a batch of one game
as plain labels, for the viewer and the tests. The kinds are declared once, in
:data:`~strat_tools.engine.events.event_kinds.EVENT_KINDS` (its own module, light enough for the
command line's help); the CLI's ``events`` command, the viewer's "next event" and the docs
take them from there.

Every game gets an ``end`` row, also one that was not replayed (no setup, unreadable) or
whose replay stopped at an illegal move: its ``detail`` says why. This module reads no
files and checks no moves (the replay did).

>>> from strat_tools.core.pieces import letter_code
>>> from strat_tools.core.records import GameRecord, Result
>>> from strat_tools.engine.replays.replay import replay
>>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 39 + "Y"
>>> setup = tuple(letter_code(c) for c in field)
>>> record = GameRecord("doc.xml", variant="classicfree", setup=setup, sources=[9],
...                     targets=[99], result=Result(1, 1))
>>> events = game_events(replay(record))
>>> events["kind"], events["detail"][0]
(['battle', 'first_capture', 'flag_captured', 'end'], 'red scout K1 takes blue flag K10')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side, square_name
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, KIND_LABELS, PieceKind
from strat_tools.core.records import GameRecord, Severity, Termination
from strat_tools.core.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_LABELS,
)
from strat_tools.engine.events import event_words
from strat_tools.engine.events.event_kinds import EVENT_KINDS
from strat_tools.engine.events.event_words import VOCABULARY, sentences

if TYPE_CHECKING:
    from strat_tools.engine.replays.replay import Replay

__all__ = [
    "EVENT_COLUMNS",
    "EventBatch",
    "EventCodes",
    "end_row",
    "find_events",
    "game_events",
    "rescue_rows",
]

EVENT_COLUMNS: Final = (
    "ply",
    "kind",
    "mover",
    "mover_piece",
    "from_square",
    "to_square",
    "defender_piece",
    "outcome",
    "loser",
    "rescued_piece",
    "winner",
    "termination",
    "detail",
)
"""The columns of an events table (the ``events`` command adds ``game_id``); each says whose
it is, so no row can be misread: ``ply`` the ply of the event (the last ply for ``end``);
``mover`` the side that moved and ``mover_piece`` its piece; ``from_square`` /
``to_square`` the move's squares; ``defender_piece`` the piece it attacked; ``outcome`` the
battle's outcome (attacker, defender, both, flag; also on the rows a battle caused);
``loser`` the side that lost the piece the event is about (``marshal_lost``,
``general_lost``, ``bomb_removed``, ``spy_takes_marshal``: the marshal's side,
``flag_captured``: the flag's); ``rescued_piece``
the piece a ``rescue`` brought back; ``winner`` the winner (``end`` rows; empty for a draw
or an open game); ``termination`` how the game ended (``end`` rows, the recorded result's
name); ``detail`` one readable sentence. A column that does not apply to a row is empty
(null). The names and values are those of the export's tables
(:mod:`strat_tools.tables.schemas`)."""

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

_SQUARES: Final = tuple(square_name(square) for square in range(100))
_SIDES: Final = ("red", "blue")
_CODE_KIND: Final = np.array(CODE_KIND[:26], dtype=np.int8)
_CODE_SIDE: Final = np.array(CODE_SIDE[:26], dtype=np.int8)

_I8 = npt.NDArray[np.int8]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]
_Ints = npt.NDArray[np.integer[Any]]

_CODE_FIELDS: Final = EVENT_COLUMNS[1:-1]
"""The int8 columns of :class:`EventCodes` (all but ``ply`` and ``detail``)."""


@dataclass(frozen=True, slots=True)
class EventCodes:
    """The events of a batch as integer columns, one row per event: games in the order they
    were given, each game's rows in ply order and its ``end`` row last. -1 is none (null)
    in every code column."""

    game: _I64
    """Index of the game in the batch."""
    ply: _I32
    kind: _I8
    """Index in :data:`KIND_NAMES`."""
    mover: _I8
    """The side that moved: 0 red, 1 blue."""
    mover_piece: _I8
    """The moving piece's :class:`~strat_tools.core.pieces.PieceKind`."""
    from_square: _I8
    to_square: _I8
    defender_piece: _I8
    """The attacked piece's kind."""
    outcome: _I8
    """A battle's outcome code (1 attacker .. 4 flag, as in :mod:`strat_tools.core.rules`)."""
    loser: _I8
    """The side that lost the piece the event is about (0 red, 1 blue)."""
    rescued_piece: _I8
    """The kind of the piece a rescue brought back."""
    winner: _I8
    """The game's winner (``end`` rows): 0 red, 1 blue."""
    termination: _I8
    """Index in :data:`TERMINATIONS` (``end`` rows only)."""
    detail: _I32
    """Each row's sentence as ``[n, WIDTH]`` fragment indices into ``words()``
    (:mod:`strat_tools.engine.events.event_words`)."""
    texts: tuple[str, ...]
    """The batch's own sentences (its end rows'), indexed after the vocabulary."""

    def __len__(self) -> int:
        return len(self.ply)

    def words(self) -> tuple[str, ...]:
        """What :attr:`detail` indexes: the vocabulary, then :attr:`texts`."""
        return VOCABULARY + self.texts

    def labels(self) -> dict[str, list[Any]]:
        """The columns of :data:`EVENT_COLUMNS` as plain Python labels (None for -1)."""

        def named(codes: _I8, names: tuple[str | None, ...]) -> list[Any]:
            return [names[c] if c >= 0 else None for c in codes.tolist()]

        return {
            "ply": self.ply.tolist(),
            "kind": named(self.kind, KIND_NAMES),
            "mover": named(self.mover, _SIDES),
            "mover_piece": named(self.mover_piece, KIND_LABELS),
            "from_square": named(self.from_square, _SQUARES),
            "to_square": named(self.to_square, _SQUARES),
            "defender_piece": named(self.defender_piece, KIND_LABELS),
            "outcome": named(self.outcome, OUTCOME_LABELS),
            "loser": named(self.loser, _SIDES),
            "rescued_piece": named(self.rescued_piece, KIND_LABELS),
            "winner": named(self.winner, _SIDES),
            "termination": named(self.termination, _TERMINATION_LABELS),
            "detail": sentences(self.words(), self.detail),
        }


Rescue = tuple[int, int, int]
"""A rescue for :func:`find_events`: (row of the plies, rescued board code, the square it
comes back on or -1)."""
End = tuple[int, int, int, str]
"""A game's end row for :func:`find_events`: (ply, winner 0 red / 1 blue / -1,
termination code, sentence)."""


def rescue_rows(result: Replay, first_row: int) -> list[Rescue]:
    """The rescues of one replayed game whose first ply is row ``first_row`` of a batch."""
    found = []
    for ply, code in result.rescued.items():
        if 1 <= ply <= result.plies_replayed:
            rescue = result.record.rescues.get(ply)
            square = rescue.square if rescue is not None else None
            found.append((first_row + ply - 1, code, -1 if square is None else square))
    return found


def find_events(
    plies: _Ints,
    columns: tuple[_Ints, _Ints, _Ints, _Ints, _Ints],
    rescues: Sequence[Rescue],
    ends: Sequence[End],
) -> EventCodes:
    """Every event of a batch of games in one vectorised pass.

    ``plies``: each game's number of rows, whose plies follow one another in ``columns``
    (movers, defenders, outcomes, sources, targets as board and outcome codes; rows past a
    game's last replayed ply have defender 0, so give no event). ``rescues`` and ``ends``
    (one per game) from :func:`rescue_rows` and :func:`end_row`.
    """
    plies = np.asarray(plies, dtype=np.int64)
    starts = np.cumsum(plies) - plies
    battles = np.flatnonzero(columns[1])
    at = np.asarray([r[0] for r in rescues], dtype=np.int64)
    rescued = np.asarray([r[1] for r in rescues], dtype=np.int64)
    back = _Plies(at, starts, columns)
    parts = [
        *_battle_parts(_Plies(battles, starts, columns)),
        back.part(
            "rescue",
            np.arange(len(at)),
            _KIND["rescue"],
            event_words.rescue(
                back.mover,
                back.target,
                rescued,
                np.asarray([r[2] for r in rescues], dtype=np.int64),
            ),
            rescued=_CODE_KIND[rescued],
        ),
        _end_part(starts + plies, ends),
    ]
    # By ply row, then rank within the ply; a game's end row after its last ply and
    # before the next game's first (keys 2 * row, and 2 * the next game's start - 1).
    order = np.lexsort(
        (np.concatenate([p["rank"] for p in parts]), np.concatenate([p["key"] for p in parts]))
    )

    def column(name: str) -> _Ints:
        joined: _Ints = np.concatenate([p[name] for p in parts])[order]
        return joined

    return EventCodes(
        game=column("game").astype(np.int64),
        ply=column("ply").astype(np.int32),
        **{name: column(name).astype(np.int8) for name in _CODE_FIELDS},
        detail=np.concatenate([p["detail"] for p in parts])[order],
        texts=tuple(e[3] for e in ends),
    )


class _Plies:
    """Some plies of a batch (its battles, or its rescues) as arrays."""

    def __init__(self, rows: _I64, starts: _I64, columns: tuple[_Ints, ...]) -> None:
        self.rows = rows
        """Rows of the batch's plies (all games' plies one after the other)."""
        # The game whose plies start last at or before the row (games without plies share
        # the next one's start and come before it).
        self.game: _I64 = np.searchsorted(starts, rows, side="right") - 1
        self.ply = rows - starts[self.game] + 1
        self.mover, self.defender, self.outcome, self.source, self.target = (
            np.asarray(column)[rows].astype(np.int64) for column in columns
        )

    def part(
        self,
        rank: str,
        where: _I64,
        kind: int | _Ints,
        detail: _I32,
        *,
        defender: int | _Ints = -1,
        outcome: int | _Ints = -1,
        loser: _Ints | None = None,
        rescued: int | _Ints = -1,
    ) -> dict[str, Any]:
        """Event rows of ``kind`` at the plies ``where`` (indices into these plies), with
        their sentences; ``loser`` (sides) empty unless given."""
        mover = self.mover[where]
        n = len(where)
        return {
            "key": 2 * self.rows[where],
            "rank": np.full(n, _RANK[rank]),
            "game": self.game[where],
            "ply": self.ply[where],
            "kind": np.broadcast_to(kind, n),
            "mover": _CODE_SIDE[mover] - 1,
            "mover_piece": _CODE_KIND[mover],
            "from_square": self.source[where],
            "to_square": self.target[where],
            "defender_piece": np.broadcast_to(defender, n),
            "outcome": np.broadcast_to(outcome, n),
            "loser": np.full(n, -1) if loser is None else loser,
            "rescued_piece": np.broadcast_to(rescued, n),
            "winner": np.full(n, -1),
            "termination": np.full(n, -1),
            "detail": detail,
        }


def _end_part(ends_at: _I64, ends: Sequence[End]) -> dict[str, Any]:
    """The end rows; ``ends_at`` is the row after each game's last."""
    n = len(ends)
    none = np.full(n, -1)
    return {
        "key": 2 * ends_at - 1,
        "rank": np.zeros(n, dtype=np.int64),
        "game": np.arange(n),
        "ply": np.asarray([e[0] for e in ends], dtype=np.int64),
        "kind": np.full(n, _KIND["end"]),
        "mover": none,
        "mover_piece": none,
        "from_square": none,
        "to_square": none,
        "defender_piece": none,
        "outcome": none,
        "loser": none,
        "rescued_piece": none,
        "winner": np.asarray([e[1] for e in ends], dtype=np.int64),
        "termination": np.asarray([e[2] for e in ends], dtype=np.int64),
        "detail": event_words.text_rows(0, n),
    }


class EventBatch:
    """The events of games replayed one by one, found in one pass (:meth:`codes`)."""

    def __init__(self) -> None:
        self._plies: list[int] = []
        self._columns: tuple[list[int], ...] = ([], [], [], [], [])
        self._rescues: list[Rescue] = []
        self._ends: list[End] = []

    def __len__(self) -> int:
        return len(self._ends)

    def add(self, result: Replay | None, record: GameRecord, end: str | None = None) -> None:
        """Take one game (``result`` None: not replayed, only its ``end`` row); ``end``
        replaces the end row's sentence."""
        done = result.plies_replayed if result is not None else 0
        if result is not None and done:
            self._rescues += rescue_rows(result, len(self._columns[0]))
            for column, values in zip(
                self._columns,
                (
                    result.movers,
                    result.defenders,
                    result.outcomes,
                    result.record.sources,
                    result.record.targets,
                ),
                strict=True,
            ):
                column += values if len(values) == done else values[:done]
        self._plies.append(done)
        ply, side, termination, detail = end_row(record, result)
        self._ends.append((ply, side, termination, detail if end is None else end))

    def codes(self) -> EventCodes:
        """Every event of every game added, as integer columns and sentences."""
        movers, defenders, outcomes, sources, targets = (
            np.asarray(values, dtype=np.int64) for values in self._columns
        )
        columns = (movers, defenders, outcomes, sources, targets)
        return find_events(np.asarray(self._plies), columns, self._rescues, self._ends)


def _battle_parts(plies: _Plies) -> list[dict[str, Any]]:
    """Battles and what they cause: first capture, spy on marshal, losses, flags."""
    mover, defender, outcome, target = plies.mover, plies.defender, plies.outcome, plies.target
    said = event_words.battle(mover, defender, outcome, plies.source, target)
    other = _CODE_KIND[defender]
    owner = _CODE_SIDE[defender] - 1
    result = np.where(outcome > 0, outcome, -1)
    every = np.arange(len(mover))
    parts = [plies.part("battle", every, _KIND["battle"], said, defender=other, outcome=result)]
    captures = np.flatnonzero(outcome)
    first = captures[np.unique(plies.game[captures], return_index=True)[1]]
    parts.append(
        plies.part(
            "first_capture",
            first,
            _KIND["first_capture"],
            said[first],
            defender=other[first],
            outcome=result[first],
        )
    )
    spy = np.flatnonzero(
        (_CODE_KIND[mover] == PieceKind.SPY)
        & (other == PieceKind.MARSHAL)
        & (outcome == OUTCOME_ATTACKER)
    )
    parts.append(
        plies.part(
            "spy_takes_marshal",
            spy,
            _KIND["spy_takes_marshal"],
            event_words.spy_takes_marshal(mover[spy], target[spy]),
            defender=int(PieceKind.MARSHAL),
            outcome=result[spy],
            loser=owner[spy],
        )
    )
    for rank, lost, outcomes in (
        ("mover_lost", mover, (OUTCOME_DEFENDER, OUTCOME_BOTH)),
        ("defender_lost", defender, (OUTCOME_ATTACKER, OUTCOME_BOTH)),
    ):
        kind = _CODE_KIND[lost]
        taken = np.isin(outcome, outcomes)
        big = np.flatnonzero(taken & np.isin(kind, (PieceKind.MARSHAL, PieceKind.GENERAL)))
        event = np.where(
            kind[big] == PieceKind.MARSHAL, _KIND["marshal_lost"], _KIND["general_lost"]
        )
        parts.append(
            plies.part(
                rank,
                big,
                event,
                event_words.lost(lost[big], target[big]),
                defender=other[big],
                outcome=result[big],
                loser=_CODE_SIDE[lost[big]] - 1,
            )
        )
        bombs = np.flatnonzero(taken & (kind == PieceKind.BOMB))
        parts.append(
            plies.part(
                rank,
                bombs,
                _KIND["bomb_removed"],
                event_words.bomb_removed(lost[bombs], mover[bombs], target[bombs]),
                defender=int(PieceKind.BOMB),
                outcome=result[bombs],
                loser=owner[bombs],
            )
        )
    flags = np.flatnonzero(outcome == OUTCOME_FLAG)
    parts.append(
        plies.part(
            "flag_captured",
            flags,
            _KIND["flag_captured"],
            event_words.flag_captured(mover[flags], target[flags]),
            defender=int(PieceKind.FLAG),
            outcome=result[flags],
            loser=owner[flags],
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


def end_row(record: GameRecord, result: Replay | None) -> End:
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
    return _ending(record.result.termination.label, record.result.winner)


@lru_cache(maxsize=256)
def _ending(termination: str, winner: int | None) -> str:
    """The sentence of a termination and a winner code (few pairs: worked out once each)."""
    text = _ENDINGS[termination]
    if winner in (1, 2):
        win = Side(winner)
        return text.format(winner=win.label, loser=win.other.label)
    if "{" in text:
        return text.format(winner="nobody", loser="a player") + (" (draw)" if winner == 3 else "")
    return text
