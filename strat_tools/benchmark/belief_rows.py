"""The rows of the belief task: one per ply and opponent piece the mover has not identified.

A split's belief rows come from its observation rows (the same splits, views and manifest as
the move task): for each ply, every square of the mover's ``board_view`` holding an
unidentified opponent piece, in ascending square order (the mover's view, as
``board_view``: byte ``v`` is ``view_square(sq, side)``). Each carries its ``moved`` bit
and the kinds it may be (:func:`~strat_tools.engine.information.beliefs.kinds_allowed`, from the
truth-free ``unseen``); the **label**, its true kind (0 bomb .. 11 flag), comes from the
hidden-truth ``board`` label column only, never from an input column.

>>> BELIEF_COLUMNS
['game_id', 'ply', 'board_view', 'board', 'unseen']
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from strat_tools.benchmark.bench_folder import iter_split_batches
from strat_tools.benchmark.submission import game_codes
from strat_tools.core.errors import InputError
from strat_tools.engine.information.beliefs import kinds_allowed, unidentified
from strat_tools.engine.information.history import RowHistory
from strat_tools.engine.information.planes import hidden_truth
from strat_tools.exports.observation_arrays import batch_arrays
from strat_tools.exports.observation_files import ObservationExport

__all__ = [
    "BELIEF_COLUMNS",
    "CHUNK_ROWS",
    "HISTORY_COLUMNS",
    "BeliefRows",
    "belief_rows",
    "history_arrays",
    "iter_belief_chunks",
    "iter_belief_rows",
]

BELIEF_COLUMNS: Final = ["game_id", "ply", "board_view", "board", "unseen"]
"""The only observation columns the belief task reads (``board`` for the label only)."""
HISTORY_COLUMNS: Final = ["side", "last_moves"]
"""The truth-free columns the pieces' histories are made from (with ``ply`` and
``board_view``): the side to move and the ply before each row's."""
CHUNK_ROWS: Final = 8192
"""Plies a chunk (a chunk's beliefs are ``[rows, 100, 12]`` floats)."""


@dataclass(frozen=True)
class BeliefRows:
    """A split's belief rows, one per unidentified piece (in the split's ply order, then by
    square): its game (an index into the manifest's games), ply, square (mover's view),
    whether it moved, the kinds allowed ``[m, 12]`` and its true kind (the label)."""

    codes: npt.NDArray[np.int64]
    ply: npt.NDArray[np.int64]
    square: npt.NDArray[np.int16]
    moved: npt.NDArray[np.bool_]
    allowed: npt.NDArray[np.bool_]
    truth: npt.NDArray[np.int8]


def iter_belief_chunks(
    export: ObservationExport,
    chunk_rows: int = CHUNK_ROWS,
    *,
    labels: bool = False,
    history: bool = False,
) -> Iterator[tuple[pa.Table, dict[str, npt.NDArray[np.generic]]]]:
    """The split's plies a chunk at a time: ``game_id``/``ply`` (a table) and the arrays
    ``board_view`` and ``unseen`` (and, with ``labels``, ``kinds``: the true kind of every
    square, from the ``board`` label; with ``history``, the pieces' histories,
    :data:`~strat_tools.engine.information.history.HISTORY_FIELDS`, from each game's
    earlier rows: the ``last_moves`` and board views both players saw, through
    :class:`~strat_tools.engine.information.history.RowHistory`)."""
    columns = BELIEF_COLUMNS if labels else [c for c in BELIEF_COLUMNS if c != "board"]
    if history:
        columns = [*columns, *HISTORY_COLUMNS]
    walker = RowHistory()
    for part in iter_split_batches(export, columns, dictionary=("game_id",), batch_rows=chunk_rows):
        arrays = batch_arrays(part, ["board_view", "unseen"])
        if history:
            arrays.update(history_arrays(walker, part, arrays["board_view"]))
        if labels:
            board = batch_arrays(part, ["board"])["board"]
            mask, kinds = hidden_truth(board)
            if not np.array_equal(mask, unidentified(arrays["board_view"])[0]):
                raise InputError("the board label and board_view disagree on a piece")
            arrays["kinds"] = kinds
        yield part.select(["game_id", "ply"]), arrays


def history_arrays(
    walker: RowHistory,
    part: pa.Table,
    board_view: npt.NDArray[np.uint8],
    wanted: npt.NDArray[np.bool_] | None = None,
) -> dict[str, npt.NDArray[np.uint8]]:
    """The pieces' histories of a slice of a split's rows (:data:`HISTORY_COLUMNS` read),
    the walker carried from the slice before it; ``wanted`` only those rows'."""
    more = batch_arrays(part, ["side", "ply", "last_moves"], last_moves=1)
    return walker.rows(board_view, more["side"] + 1, more["ply"], more["last_moves"][:, -1], wanted)


def iter_belief_rows(
    export: ObservationExport, games: pa.Array, split: str, chunk_rows: int = CHUNK_ROWS
) -> Iterator[BeliefRows]:
    """The belief rows of a split (``games``: the manifest's game ids of the split), the
    pieces of ``chunk_rows`` plies at a time, in the split's order: memory holds a chunk,
    whatever the size of the split."""
    for ids, arrays in iter_belief_chunks(export, chunk_rows, labels=True):
        view, unseen = arrays["board_view"], arrays["unseen"]
        hidden, moved = unidentified(view)
        row, square = np.nonzero(hidden)
        codes = game_codes(ids.column("game_id"), games)
        if (codes < 0).any():
            first = ids.column("game_id")[int(np.flatnonzero(codes < 0)[0])]
            raise InputError(f"split {split!r} has rows of game {first} the manifest does not list")
        truth = arrays["kinds"][row, square].astype(np.int8)
        allowed = kinds_allowed(unseen[row], moved[row, square])
        if not allowed[np.arange(len(row)), truth].all():
            raise InputError(f"split {split!r}: a piece's true kind is not among those left")
        yield BeliefRows(
            codes[row],
            ids.column("ply").to_numpy().astype(np.int64)[row],
            square.astype(np.int16),
            moved[row, square],
            allowed,
            truth,
        )


def belief_rows(export: ObservationExport, games: pa.Array, split: str) -> BeliefRows:
    """Every belief row of a split (:func:`iter_belief_rows` as one)."""
    parts = list(iter_belief_rows(export, games, split))
    if not parts:
        raise InputError(f"split {split!r} holds no observation rows")
    return BeliefRows(
        *(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(BeliefRows))
    )
