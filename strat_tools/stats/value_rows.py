"""The rows the piece-value and win models learn from, read from games in the workers.

Every decided, valid game of the chosen variant gives one row every :data:`STEP` plies (after 5, 10,
15, ... plies) while both flags stand: the ply and the 44 counts of
:func:`strat_tools.engine.information.material.material_rows` (each side's pieces of each kind on
the board, and how many of them the opponent knows). A worker returns its games' rows as compact
``int8``/``int16`` arrays (:class:`ValueRows`, about 50 bytes a row), never Python objects per row,
and :func:`read_value_rows` joins them in input order. The models choose their rows from these (the
headline piece values: every 10th ply; the win model: every 5th).

What is left out is counted (:attr:`ValueRows.left_out`): games of another variant, games
with no winner (drawn, or no result), and games that are invalid or could not be replayed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.errors import NothingReadable
from strat_tools.core.records import DEFAULT_VARIANT, GameRecord, Status
from strat_tools.core.rules import resolve_rules
from strat_tools.engine.information.material import (
    MATERIAL_KINDS,
    MATERIAL_WIDTH,
    flags_standing,
    material_rows,
)
from strat_tools.engine.replays.replay import replay_safely
from strat_tools.run.batch_work import failure_of
from strat_tools.run.driver import map_records
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg

if TYPE_CHECKING:
    from strat_tools.run.batch_work import Select
    from strat_tools.tables.game_ids import GameIds

__all__ = [
    "STEP",
    "MoverView",
    "ValueRows",
    "ValueRowsWork",
    "counts_view",
    "mover_view",
    "quiet_rows",
    "read_value_rows",
]

STEP: Final = 5
"""Rows are taken after every 5th ply (the headline model keeps every 10th)."""

LEFT_OUT: Final = ("other variant", "no winner", "invalid")
"""Why a game read gives no rows."""


@dataclass(slots=True)
class ValueRows:
    """Rows of many games: per row its counts, ply and game; per game its winner and month."""

    counts: npt.NDArray[np.int8] = field(
        default_factory=lambda: np.zeros((0, MATERIAL_WIDTH), dtype=np.int8)
    )
    ply: npt.NDArray[np.int16] = field(default_factory=lambda: np.zeros(0, dtype=np.int16))
    game: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    """Per row: its game's index into the per-game arrays."""
    winner: npt.NDArray[np.int8] = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    """Per game: 1 red won, 2 blue won."""
    month: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    """Per game: ``year * 100 + month`` (0: not known)."""
    left_out: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEFT_OUT, 0))

    @property
    def games(self) -> int:
        """How many games gave rows (or would have: a game over before ply 5 gives none)."""
        return len(self.winner)

    def subset(self, keep: npt.NDArray[np.bool_]) -> ValueRows:
        """The rows ``keep`` selects (the per-game arrays unchanged)."""
        counts, ply, game = self.counts[keep], self.ply[keep], self.game[keep]
        return ValueRows(counts, ply, game, self.winner, self.month, dict(self.left_out))

    @classmethod
    def join(cls, parts: Iterable[ValueRows]) -> ValueRows:
        """The parts one after the other (game indices shifted)."""
        held = list(parts)
        if not held:
            return cls()
        offsets = np.cumsum([0, *(p.games for p in held[:-1])])
        left = dict.fromkeys(LEFT_OUT, 0)
        for part in held:
            for key, n in part.left_out.items():
                left[key] += n
        return cls(
            np.concatenate([p.counts for p in held]),
            np.concatenate([p.ply for p in held]),
            np.concatenate([p.game + o for p, o in zip(held, offsets, strict=True)]).astype(
                np.int32
            ),
            np.concatenate([p.winner for p in held]),
            np.concatenate([p.month for p in held]),
            left,
        )


@dataclass(frozen=True, slots=True)
class ValueRowsWork:
    """The rows of a batch of records (a :class:`~strat_tools.run.batch_work.RecordWork`)."""

    variant: str | None = DEFAULT_VARIANT
    """Only games of this variant (None: every variant)."""
    rules: str | None = "auto"
    code: str = "internal.values"
    check: bool = True

    def __call__(self, records: Iterable[GameRecord]) -> ValueRows:
        parts: list[ValueRows] = []
        left = dict.fromkeys(LEFT_OUT, 0)
        for record in records:
            reason = self.add_game(parts, record)
            if reason is not None:
                left[reason] += 1
        out = ValueRows.join(parts)
        out.left_out = left
        return out

    def add_game(self, parts: list[ValueRows], record: GameRecord) -> str | None:
        """Append ``record``'s rows to ``parts``; or the reason it gives none."""
        if self.variant is not None and record.variant != self.variant:
            return "other variant"
        winner = record.result.winner if record.result is not None else None
        if winner not in (1, 2):
            return "no winner"
        if failure_of(record, self.code) is not None or not record.readable:
            return "invalid"
        result = replay_safely(record, resolve_rules(self.rules, record))
        if result is None or result.status != Status.VALID or result.stopped_at is not None:
            return "invalid"
        know = result.knowledge()
        plies = np.arange(STEP, know.plies + 1, STEP)
        plies = plies[flags_standing(know)[plies]]
        month = (record.year or 0) * 100 + (record.month or 0) if record.year else 0
        parts.append(
            ValueRows(
                material_rows(know, plies),
                plies.astype(np.int16),
                np.zeros(len(plies), dtype=np.int32),
                np.array([winner], dtype=np.int8),
                np.array([month], dtype=np.int32),
            )
        )
        return None

    def combine(self, parts: list[ValueRows]) -> ValueRows:
        return ValueRows.join(parts)

    def renumber(self, ids: GameIds, rows: ValueRows) -> ValueRows:
        return rows  # games are numbered by position, not by name


def read_value_rows(
    paths: InputsArg,
    *,
    variant: str | None = DEFAULT_VARIANT,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
) -> ValueRows:
    """The rows of every game under ``paths`` (read and replayed in the workers) that
    ``select`` (a :class:`~strat_tools.run.filters.GameFilter` or any per-game
    predicate) keeps. :class:`~strat_tools.core.errors.NothingReadable` when not one
    input could be read."""
    inputs = Inputs.of(paths)
    counted, seen = Run.of(run).counting()
    work = ValueRowsWork(variant, rules)
    rows = ValueRows.join(map_records(work, inputs, select=select, run=counted))
    if not seen.readable and not seen.dropped:  # every input unreadable, or none
        raise NothingReadable(inputs.given, seen.reasons)
    return rows


def quiet_rows(rows: ValueRows) -> npt.NDArray[np.bool_]:
    """Per row: whether it is quiet, its pieces on the board (the first 22 counts) the same
    :data:`STEP` plies before and after (pieces only leave the board, so nothing was taken
    in between). A row with no row of its game 5 plies before or after (the game's first
    row, or its last: the game ended or a flag fell within 5 plies) is not quiet.

    >>> counts = np.zeros((4, MATERIAL_WIDTH), dtype=np.int8)
    >>> counts[3, 0] = -1  # a piece taken between the third row and the fourth
    >>> rows = ValueRows(counts, np.array([5, 10, 15, 20], dtype=np.int16),
    ...                  np.zeros(4, dtype=np.int32), np.array([1], dtype=np.int8),
    ...                  np.zeros(1, dtype=np.int32))
    >>> quiet_rows(rows).tolist()
    [False, True, False, False]
    """
    n = len(rows.ply)
    board = rows.counts[:, : 2 * len(MATERIAL_KINDS)]
    same = np.zeros(max(n - 1, 0), dtype=bool)  # row i and row i + 1 alike and 5 plies apart
    if n > 1:
        same = (
            (rows.game[1:] == rows.game[:-1])
            & (rows.ply[1:].astype(np.int64) - rows.ply[:-1] == STEP)
            & (board[1:] == board[:-1]).all(axis=1)
        )
    before = np.concatenate([[False], same])
    after = np.concatenate([same, [False]])
    return np.asarray(before & after) if n else np.zeros(0, dtype=bool)


@dataclass(frozen=True, slots=True)
class MoverView:
    """Rows seen from the side to move: its counts, the opponent's, what each knows of the
    other, and whether it went on to win (``y``)."""

    own: npt.NDArray[np.float64]
    opp: npt.NDArray[np.float64]
    own_known: npt.NDArray[np.float64]
    """The mover's pieces of each kind the opponent knows."""
    opp_known: npt.NDArray[np.float64]
    """The opponent's pieces of each kind the mover knows."""
    red: npt.NDArray[np.bool_]
    """Whether the side to move is red (after an even number of plies)."""
    y: npt.NDArray[np.float64]


def mover_view(rows: ValueRows) -> MoverView:
    """The rows from the side to move's chair: after an even ply red is to move."""
    red = (rows.ply % 2) == 0
    winner_red = rows.winner[rows.game] == 1
    return counts_view(rows.counts, rows.ply, (winner_red == red).astype(np.float64))


def counts_view(
    counts: npt.ArrayLike, ply: npt.ArrayLike, y: npt.ArrayLike | None = None
) -> MoverView:
    """Rows of 44 counts (``material_rows``, or a side's ``view_materials``) after ``ply``
    seen from the side to move; ``y`` the outcomes (None: zeros)."""
    n = len(MATERIAL_KINDS)
    c = np.asarray(counts)  # int8 rows stay int8 until each part is made (no 44-wide copy)
    red = (np.asarray(ply) % 2) == 0
    r = red[:, None]

    def part(when_red: slice, when_blue: slice) -> npt.NDArray[np.float64]:
        return np.where(r, c[:, when_red], c[:, when_blue]).astype(np.float64)

    own = part(slice(0, n), slice(n, 2 * n))
    opp = part(slice(n, 2 * n), slice(0, n))
    own_known = part(slice(2 * n, 3 * n), slice(3 * n, 4 * n))
    opp_known = part(slice(3 * n, 4 * n), slice(2 * n, 3 * n))
    outcome = np.zeros(len(red)) if y is None else np.asarray(y, dtype=np.float64)
    return MoverView(own, opp, own_known, opp_known, red, outcome)
