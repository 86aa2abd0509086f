"""The truth-free rows of the side to move: one definition for the observation export and
for one :class:`~strat_tools.engine.position.position.Position`.

:func:`mover_rows` makes, for a run of consecutive positions of a game (a whole game, a
window of it, or the one position a game loop stands on), the columns a model of the mover
reads (docs/observations.md): the observation board (with the hidden truth: its board view
drops it), the captured and unseen counts, both two-squares counters, the plies since the
last battle, the last plies' ids and the legal moves' ids. The export
(:func:`strat_tools.exports.observation_rows.game_columns`) calls it on a replayed game's
knowledge; :func:`strat_tools.engine.information.cursor.position_rows` on one position's,
so ``pos.move_probabilities()`` reads exactly the row ``bench predict`` reads for that ply.

:func:`row_batch` turns rows into the NumPy batch a
:class:`~strat_tools.engine.information.move_policy.MovePolicy` reads, in the benchmark's
layout (:func:`padded_ids` and :func:`latest_ids` are the one definition of the padded
lists, which the export's batches use too).

>>> padded_ids(np.array([0, 2, 3]), np.array([3, 7, 5]), -1).tolist()
[[3, 7], [5, -1]]
>>> latest_ids(np.array([0, 1, 4]), np.array([9, 1, 2, 3]), 2).tolist()
[[-1, 9], [2, 3]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.engine.information.knowledge import Knowledge
from strat_tools.engine.information.mover_view import view_keys
from strat_tools.engine.information.planes import board_views, encode_boards, to_planes

__all__ = [
    "LAST_MOVES",
    "ROW_FIELDS",
    "MoverRows",
    "latest_ids",
    "mover_rows",
    "padded_ids",
    "row_batch",
]

LAST_MOVES: Final = 8
"""Default number of earlier plies kept in ``last_moves``."""
ROW_FIELDS: Final = (
    "board_view",
    "planes",
    "legal_ids",
    "legal_count",
    "legal_mask",
    "side",
    "ply",
    "captured",
    "unseen",
    "own_repetition",
    "opponent_repetition",
    "plies_since_battle",
    "last_moves",
)
"""The truth-free batch fields :func:`row_batch` makes (the export's batch fields less the
labels and the game's id)."""
_ACTION_COUNT: Final = 10_000


@dataclass(frozen=True, slots=True)
class MoverRows:
    """The truth-free columns of consecutive positions of a game, one row each, the first
    one the position before ply ``start + 1`` (``boards`` holds the hidden truth: the export's
    ``board`` label; :func:`row_batch` gives only its board view)."""

    start: int
    boards: npt.NDArray[np.uint8]
    captured: npt.NDArray[np.uint8]
    unseen: npt.NDArray[np.uint8]
    own_repetition: npt.NDArray[np.int64]
    opponent_repetition: npt.NDArray[np.int64]
    plies_since_battle: npt.NDArray[np.int32]
    last_moves: tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]
    """``(offsets, ids)`` of each row's ``last_moves`` list (oldest first)."""
    legal: tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]
    """``(offsets, ids)`` of each row's legal move ids, ascending."""

    @property
    def sides(self) -> npt.NDArray[np.uint8]:
        """The side to move of each row (1 red, 2 blue)."""
        n = len(self.boards)
        return ((np.arange(self.start, self.start + n) % 2) + 1).astype(np.uint8)


def mover_rows(
    know: Knowledge,
    legal: tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]],
    keys: npt.ArrayLike,
    chains: npt.ArrayLike,
    battles: npt.ArrayLike,
    *,
    start: int = 0,
    last_battle: int = -1,
    last_moves: int = LAST_MOVES,
) -> MoverRows:
    """The rows of the positions before plies ``start + 1 .. start + n`` (``n`` the rows of
    ``legal``; ``know``'s first ``n`` rows are those positions), from the plies played
    before them:

    - ``keys``: ``source * 100 + target`` (Gravon squares) of the plies from index
      ``max(start - last_moves, 0)`` on (0-based; at least up to the one before the last row);
    - ``chains``: the mover's two-squares count after each ply from index
      ``max(start - 2, 0)`` on (the replay's ``chains``);
    - ``battles``: the indices (from ``start`` on) of the plies that were battles;
    - ``last_battle``: the index of the last battle before ``start`` (-1 if none).
    """
    n = len(legal[0]) - 1
    sides = ((np.arange(start, start + n) % 2) + 1).astype(np.uint8)
    blue = sides == 2
    # The mover's own losses as they are; the opponent's only as the mover saw them go
    # (a piece taken unseen under silent defense is in no kind).
    captured = know.captured[:n].copy()
    rows = np.arange(n)
    opponent = 2 - sides  # index of the opponent's half
    captured[rows, opponent] -= know.captured_unseen[:n][rows, opponent]
    captured[blue] = captured[blue, ::-1]
    first = max(start - last_moves, 0)
    earlier = np.asarray(keys, np.int64)
    own_rep, opp_rep = _counters(np.asarray(chains, np.int64), start, start + n)
    if n and max(int(own_rep.max()), int(opp_rep.max())) > 127:
        raise OverflowError("a two-squares counter past 127 does not fit the int8 column")
    return MoverRows(
        start=start,
        boards=encode_boards(know.boards[:n], know.flags[:n], sides),
        captured=captured.reshape(n, 24),
        unseen=np.ascontiguousarray(know.unseen[np.arange(n), sides - 1]),
        own_repetition=own_rep,
        opponent_repetition=opp_rep,
        plies_since_battle=_plies_since(
            np.asarray(battles, np.int64), start, start + n, last_battle
        ),
        last_moves=_last_moves(earlier, last_moves, start, start - first, n),
        legal=legal,
    )


def _counters(
    chains: npt.NDArray[np.int64], start: int, stop: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Both sides' two-squares counters before each of the plies ``start`` to ``stop - 1``
    (from 0), ``chains`` the counts after the plies from ``max(start - 2, 0)`` on (a side's
    counter before ply ``i`` is its chain after ply ``i - 2``)."""
    low = max(start - 2, 0)
    rows = np.arange(start, stop)
    own = np.zeros(stop - start, np.int64)
    opponent = np.zeros(stop - start, np.int64)
    own[rows >= 2] = chains[rows[rows >= 2] - 2 - low]
    opponent[rows >= 1] = chains[rows[rows >= 1] - 1 - low]
    return own, opponent


def _plies_since(
    battles: npt.NDArray[np.int64], start: int, stop: int, before: int = -1
) -> npt.NDArray[np.int32]:
    """Per row (position before ply ``i + 1``, ``i`` from ``start`` to ``stop - 1``): plies
    since the last battle before it (``battles``: the battle plies' indices from ``start``
    on; ``before``: the last one before ``start``, -1 if none)."""
    last = np.full(stop - start, before, dtype=np.int64)
    inside = battles[battles + 1 < stop]
    last[inside + 1 - start] = inside
    last = np.maximum.accumulate(last)
    rows = np.arange(start, stop)
    return np.where(last < 0, rows, rows - last - 1).astype(np.int32)


def _last_moves(
    keys: npt.NDArray[np.int64], k: int, start: int, skip: int, n: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """Per row: the ids of up to ``k`` earlier plies, oldest first, in the mover's view
    (the rows are the positions before plies ``start + 1`` on; ``keys`` starts ``skip``
    plies before ``start``)."""
    plies = np.arange(skip, skip + n)
    counts = np.minimum(plies, k) if skip < k else np.full(n, k)  # skip < k: from ply 0
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    row = np.repeat(np.arange(n), counts)
    earlier = plies[row] - counts[row] + (np.arange(len(row)) - offsets[row])
    blue = (np.arange(n) + start) % 2 == 1
    return offsets, view_keys(keys[earlier], blue[row]).astype(np.int16)


def padded_ids(offsets: npt.ArrayLike, values: npt.ArrayLike, width: int) -> npt.NDArray[np.int16]:
    """Lists ``(offsets, values)`` as an int16 ``[n, width]`` array, each row's values
    first, padded with -1 (``width`` -1: the longest list's)."""
    starts = np.asarray(offsets, np.int64)
    counts = np.diff(starts)
    if width < 0:
        width = int(counts.max()) if len(counts) else 0
    out = np.full((len(counts), width), -1, dtype=np.int16)
    out[np.arange(width) < counts[:, None]] = np.asarray(values)[starts[0] : starts[-1]]
    return out


def latest_ids(offsets: npt.ArrayLike, values: npt.ArrayLike, width: int) -> npt.NDArray[np.int64]:
    """Lists ``(offsets, values)`` as an int64 ``[n, width]`` array, left-padded with -1 so
    that each row's last value is in the last column (a longer list keeps its latest)."""
    starts = np.asarray(offsets, np.int64)
    counts = np.diff(starts)
    flat = np.asarray(values, np.int64)[starts[0] : starts[-1]]
    rows = np.repeat(np.arange(len(counts)), counts)
    within = np.arange(len(flat)) - (starts[:-1] - starts[0])[rows]
    column = width - counts[rows] + within
    keep = column >= 0
    out = np.full((len(counts), width), -1, dtype=np.int64)
    out[rows[keep], column[keep]] = flat[keep]
    return out


def row_batch(
    rows: MoverRows, fields: Sequence[str] = ROW_FIELDS, last_moves: int = LAST_MOVES
) -> dict[str, npt.NDArray[Any]]:
    """The batch of ``rows`` a move policy reads: ``legal_ids`` and ``legal_count`` always,
    and each of ``fields`` (:data:`ROW_FIELDS`), as the export's batches lay them out
    (``strat_tools.exports.observation_arrays.batch_arrays``)."""
    wrong = [name for name in fields if name not in ROW_FIELDS]
    if wrong:
        raise ValueError(f"not a truth-free row field: {', '.join(map(repr, wrong))}")
    n = len(rows.boards)
    offsets, ids = rows.legal
    out: dict[str, npt.NDArray[Any]] = {
        "legal_ids": padded_ids(offsets, ids, -1),
        "legal_count": np.diff(np.asarray(offsets, np.int64)),
    }
    view = board_views(rows.boards)
    for name in fields:
        if name == "board_view":
            out[name] = view
        elif name == "planes":
            out[name] = to_planes(view, contiguous=True)
        elif name == "legal_mask":
            mask = np.zeros((n, _ACTION_COUNT), dtype=np.bool_)
            mask[np.repeat(np.arange(n), out["legal_count"]), ids.astype(np.int64)] = True
            out[name] = mask
        elif name == "side":
            out[name] = (rows.sides == 2).astype(np.int64)
        elif name == "ply":
            out[name] = np.arange(rows.start + 1, rows.start + n + 1, dtype=np.int64)
        elif name in ("captured", "unseen"):
            out[name] = np.asarray(getattr(rows, name), np.uint8)
        elif name == "last_moves":
            out[name] = latest_ids(*rows.last_moves, last_moves)
        elif name not in out:
            out[name] = np.asarray(getattr(rows, name), np.int64)
    return out
