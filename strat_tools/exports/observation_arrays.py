"""Observation rows as NumPy arrays: the fields a batch can hold (:data:`FIELDS`) and
:func:`batch_arrays`, which makes them from any slice of an observations table.

The inputs a model of the mover reads are truth-free by construction (``board_view``,
``planes``, ``legal_ids`` ... are made from the truth-free columns only); the fields that
carry what the mover could not know are labels and say so (:data:`LABEL_FIELDS`).

Split from :mod:`strat_tools.exports.observation_batches` (which streams an export's
shards in batches) as its own concern: what a row becomes, not how rows are read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from strat_tools.core.errors import OptionError
from strat_tools.engine.encodings.actions import ACTION_COUNT, action_heads
from strat_tools.engine.information.mover_rows import LAST_MOVES, latest_ids, padded_ids
from strat_tools.engine.information.planes import hidden_truth, to_planes
from strat_tools.exports.observations import boards_of

__all__ = [
    "BOARD_FIELDS",
    "COLUMNS",
    "DEFAULT_FIELDS",
    "FIELDS",
    "LABEL_FIELDS",
    "batch_arrays",
    "board_arrays",
    "legal_ids",
]

FIELDS: Final[dict[str, str]] = {
    "board_view": "uint8 [n, 100]: the truth-free observation board, mover's view (an "
    "opponent piece the mover has not identified keeps only moved / not moved)",
    "planes": "bool [n, 32, 10, 10]: planes.to_planes of board_view (C order)",
    "legal_ids": "int16 [n, L]: the ids of the legal moves, ascending, padded with -1 (L: "
    "the batch's largest count, or legal_width)",
    "legal_count": "int64 [n]: how many legal moves (the unpadded length of legal_ids)",
    "legal_mask": "bool [n, 10000]: True at the id of every legal move (dense: 10,000 bytes "
    "a row; legal_ids holds the same in about 50)",
    "side": "int64 [n]: the side to move, 0 red, 1 blue",
    "ply": "int64 [n]: 1 = the first move (the row is the position before it)",
    "captured": "uint8 [n, 24]: mover's pieces removed by kind, then the opponent's",
    "unseen": "uint8 [n, 12]: opponent pieces of each kind the mover has not identified",
    "own_repetition": "int64 [n]: the mover's two-squares counter",
    "opponent_repetition": "int64 [n]: the opponent's two-squares counter",
    "plies_since_battle": "int64 [n]: plies since the last battle",
    "last_moves": "int64 [n, last_moves]: earlier plies' ids, mover's view, oldest first, "
    "-1 before the first ply (left-padded, so the last column is the latest ply)",
    "game_id": "str [n]: the game each row comes from",
    "action": "int64 [n]: label: our id of the move played (0..9999)",
    "action_head": "int64 [n]: label: the head index of the move played (actions."
    "action_heads: from square, direction, distance in the mover's view; -1 for a turn)",
    "value": "float32 [n]: label: 1 the mover won, -1 lost, 0 draw, NaN unknown",
    "board": "uint8 [n, 100]: label: the observation board with the hidden truth",
    "hidden": "bool [n, 100]: label: squares of opponent pieces the mover cannot identify",
    "kinds": "int64 [n, 100]: label: true kind of every piece (0 bomb .. 11 flag), -1 empty "
    "or lake",
}
"""Every field a batch can hold, with its dtype, shape and meaning (one definition, for
the docs and the error that names an unknown field)."""

LABEL_FIELDS: Final = ("action", "action_head", "value", "board", "hidden", "kinds")
"""The fields that carry what the mover could not know (the move played, the result, the
hidden truth): targets and the belief task's labels, never a model's input."""

DEFAULT_FIELDS: Final = ("board_view", "action", "legal_ids", "legal_count")
"""What a policy network needs: the truth-free board, the label, the legal moves' ids."""

COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "board_view": ("board_view",),
    "planes": ("board_view",),
    "board": ("board",),
    "hidden": ("board",),
    "kinds": ("board",),
    "action": ("action",),
    "action_head": ("action",),
    "legal_ids": ("legal_actions",),
    "legal_count": ("legal_actions",),
    "legal_mask": ("legal_actions",),
    "value": ("value",),
    "side": ("side",),
    "ply": ("ply",),
    "captured": ("captured",),
    "unseen": ("unseen",),
    "own_repetition": ("own_repetition",),
    "opponent_repetition": ("opponent_repetition",),
    "plies_since_battle": ("plies_since_battle",),
    "last_moves": ("last_moves",),
    "game_id": ("game_id",),
}
"""The Parquet columns each field is made from (only those are read)."""


def _fixed_bytes(table: pa.Table, name: str, width: int) -> npt.NDArray[np.uint8]:
    column = table.column(name).combine_chunks()
    if not len(column):
        return np.zeros((0, width), np.uint8)
    data = np.frombuffer(column.buffers()[1], dtype=np.uint8)
    start = column.offset * width
    return data[start : start + len(column) * width].reshape(len(column), width).copy()


def _list_parts(
    table: pa.Table, name: str
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """A list column as (row of each value, position within its row, the values)."""
    column = table.column(name).combine_chunks()
    offsets = column.offsets.to_numpy().astype(np.int64)
    values = column.values.to_numpy(zero_copy_only=False).astype(np.int64)
    values = values[offsets[0] : offsets[-1]]
    counts = np.diff(offsets)
    rows = np.repeat(np.arange(len(column), dtype=np.int64), counts)
    within = np.arange(len(values), dtype=np.int64) - (offsets[:-1] - offsets[0])[rows]
    return rows, within, values


def legal_ids(
    table: pa.Table, width: int | None = None
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int64]]:
    """``(ids, counts)``: each row's legal move ids as an int16 ``[n, L]`` array padded with
    -1 (``L`` is ``width``, or the largest count of these rows), and each row's count. A row
    with more legal moves than ``width`` is an :class:`~strat_tools.core.errors.OptionError`
    (never cut silently).

    >>> table = pa.table({"legal_actions": pa.array([[3, 7], [5]], pa.list_(pa.int16()))})
    >>> ids, counts = legal_ids(table)
    >>> ids.tolist(), counts.tolist()
    ([[3, 7], [5, -1]], [2, 1])
    """
    column = table.column("legal_actions").combine_chunks()
    offsets = column.offsets.to_numpy().astype(np.int64)
    counts = np.diff(offsets)
    most = int(counts.max()) if len(counts) else 0
    if width is None:
        width = most
    elif most > width:
        raise OptionError(f"a row has {most} legal moves, more than legal_width {width}")
    values = column.values.to_numpy(zero_copy_only=False)
    return padded_ids(offsets, values, width), counts


def _legal_mask(table: pa.Table) -> npt.NDArray[np.bool_]:
    rows, _within, values = _list_parts(table, "legal_actions")
    mask = np.zeros((table.num_rows, ACTION_COUNT), dtype=np.bool_)
    mask[rows, values] = True
    return mask


def _last_moves(table: pa.Table, width: int) -> npt.NDArray[np.int64]:
    column = table.column("last_moves").combine_chunks()
    values = column.values.to_numpy(zero_copy_only=False)
    return latest_ids(column.offsets.to_numpy(), values, width)


def _integers(table: pa.Table, name: str) -> npt.NDArray[np.int64]:
    return np.asarray(table.column(name).to_numpy(), dtype=np.int64)


def _boards(table: pa.Table, name: str) -> npt.NDArray[np.uint8]:
    return boards_of(table, name).copy() if table.num_rows else np.zeros((0, 100), np.uint8)


BOARD_FIELDS: Final = {
    "board_view": "board_view",
    "planes": "board_view",
    "board": "board",
    "hidden": "board",
    "kinds": "board",
}
"""The fields made from a board column, and that column (:func:`board_arrays`)."""


def board_arrays(
    view: npt.NDArray[np.uint8] | None,
    truth: npt.NDArray[np.uint8] | None,
    fields: Sequence[str],
) -> dict[str, npt.NDArray[Any]]:
    """The board fields among ``fields`` (:data:`BOARD_FIELDS`) of rows whose
    ``board_view`` and ``board`` columns are ``view`` and ``truth`` (``[n, 100]`` uint8, each
    ``None`` when no field asked needs it): the boards as given, the planes of the view, the
    hidden-truth mask and kinds of the truth."""
    out: dict[str, npt.NDArray[Any]] = {}
    hidden = kinds = None
    if truth is not None and {"hidden", "kinds"} & set(fields):
        hidden, kinds = hidden_truth(truth)
    for name in fields:
        if name == "board_view":
            assert view is not None
            out[name] = view
        elif name == "planes":
            assert view is not None
            out[name] = to_planes(view, contiguous=True)
        elif name == "board":
            assert truth is not None
            out[name] = truth
        elif name == "hidden":
            assert hidden is not None
            out[name] = hidden
        elif name == "kinds":
            assert kinds is not None
            out[name] = kinds.astype(np.int64)
    return out


def batch_arrays(
    table: pa.Table,
    fields: Sequence[str] = DEFAULT_FIELDS,
    last_moves: int = LAST_MOVES,
    legal_width: int | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """The ``fields`` of the rows of an observations table (any slice of an export, with
    at least the columns :data:`COLUMNS` names for them) as NumPy arrays, as
    :func:`~strat_tools.exports.observation_batches.observation_batches` yields them;
    ``legal_width`` fixes the width of ``legal_ids`` (:func:`legal_ids`).

    >>> from strat_tools.exports.observation_rows import OBSERVATIONS_SCHEMA
    >>> arrays = batch_arrays(OBSERVATIONS_SCHEMA.empty_table(), ("board_view", "action"))
    >>> arrays["board_view"].shape, arrays["action"].dtype
    ((0, 100), dtype('int64'))
    """
    out: dict[str, npt.NDArray[Any]] = {}
    wanted = set(fields)
    view = _boards(table, "board_view") if {"board_view", "planes"} & wanted else None
    truth = _boards(table, "board") if {"board", "hidden", "kinds"} & wanted else None
    boards = board_arrays(view, truth, [name for name in fields if name in BOARD_FIELDS])
    ids = legal_ids(table, legal_width) if {"legal_ids", "legal_count"} & wanted else None
    for name in fields:
        if name in boards:
            out[name] = boards[name]
        elif name in ("legal_ids", "legal_count"):
            assert ids is not None
            out[name] = ids[0] if name == "legal_ids" else ids[1]
        elif name == "legal_mask":
            out[name] = _legal_mask(table)
        elif name == "action_head":
            out[name] = action_heads(_integers(table, "action")).astype(np.int64)
        elif name == "last_moves":
            out[name] = _last_moves(table, last_moves)
        elif name in ("captured", "unseen"):
            out[name] = _fixed_bytes(table, name, 24 if name == "captured" else 12)
        elif name == "value":
            values = table.column("value").to_numpy(zero_copy_only=False)
            out[name] = np.asarray(values, dtype=np.float32)
        elif name == "side":
            side = table.column("side").combine_chunks()
            labels = np.asarray(side.dictionary.to_pylist())
            out[name] = (labels[side.indices.to_numpy()] == "blue").astype(np.int64)
        elif name == "game_id":
            out[name] = np.asarray(table.column("game_id").to_pylist(), dtype=np.str_)
        else:
            out[name] = _integers(table, name)
    return out
