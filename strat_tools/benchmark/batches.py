"""A split's rows as the batches a :class:`~strat_tools.benchmark.policy.MovePolicy` reads.

:func:`split_batches` reads only the columns asked for (and ``game_id``, ``ply``,
``legal_actions``), a shard at a time, and cuts each shard into batches of NumPy arrays:
``legal_ids`` (int16 ``[n, L]``, padded with -1), ``legal_count`` and each truth-free
column a policy names (:data:`~strat_tools.benchmark.policy.TRUTH_FREE_COLUMNS`); a
policy naming any other column is refused. ``labels=True`` adds ``played`` (each row's
played move's index among its legal ids), for fitting on train only: the predictor never
asks for it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from strat_tools.benchmark.bench_folder import BenchFolder, iter_split_rows, split_column_names
from strat_tools.benchmark.policy import TRUTH_FREE_COLUMNS, last_moves_array, padded_lists
from strat_tools.core.errors import InputError, UsageError
from strat_tools.engine.planes import hidden_truth

__all__ = ["BATCH_ROWS", "LAST_MOVES_WIDTH", "check_columns", "split_batches"]

BATCH_ROWS: Final = 65_536
"""Rows a batch, at most."""
LAST_MOVES_WIDTH: Final = 8
"""The width of ``last_moves`` in a batch (the export's default)."""
KIND_BITS: Final = 15


def check_columns(columns: Sequence[str], who: str) -> None:
    """Refuse (usage error) a column that is not truth-free."""
    wrong = [c for c in columns if c not in TRUTH_FREE_COLUMNS]
    if wrong:
        raise UsageError(
            f"{who} asks for {', '.join(map(repr, wrong))}: a policy reads only the "
            f"truth-free columns ({', '.join(TRUTH_FREE_COLUMNS)})",
            option="policy",
        )


def _board_view(boards: pa.ChunkedArray) -> npt.NDArray[np.uint8]:
    """The truth-free board of an export that has no ``board_view`` column: the kind bits
    of every opponent piece the mover has not identified cleared."""
    raw = np.frombuffer(boards.combine_chunks().buffers()[1], dtype=np.uint8)
    board = raw[: len(boards) * 100].reshape(len(boards), 100).copy()
    mask, _kinds = hidden_truth(board)
    board[mask] &= np.uint8(0xFF & ~KIND_BITS)
    return board


def _array(table: pa.Table, name: str) -> npt.NDArray[Any]:
    """One truth-free column as a batch holds it."""
    column = table.column(name)
    if name == "board_view":
        if pa.types.is_fixed_size_binary(column.type):
            raw = np.frombuffer(column.combine_chunks().buffers()[1], dtype=np.uint8)
            return raw[: len(column) * 100].reshape(len(column), 100)
        return _board_view(column)
    if name == "last_moves":
        lists = column.combine_chunks()
        return last_moves_array(lists.offsets.to_numpy(), lists.values.to_numpy(), LAST_MOVES_WIDTH)
    if name in ("captured", "unseen"):
        width = column.type.byte_width
        raw = np.frombuffer(column.combine_chunks().buffers()[1], dtype=np.uint8)
        return raw[: len(column) * width].reshape(len(column), width)
    if name == "side":
        blue: npt.NDArray[Any] = column.cast(pa.string()).to_numpy(zero_copy_only=False) == "blue"
        return blue.astype(np.int64)
    values: npt.NDArray[Any] = column.to_numpy()
    return values.astype(np.int64)


def _source_columns(table_columns: Sequence[str], columns: Sequence[str]) -> list[str]:
    """The stored columns to read for ``columns``: ``board`` for ``board_view`` in an
    export that has none (its truth is cleared before a policy sees it)."""
    return [c if c != "board_view" or c in table_columns else "board" for c in columns]


def split_batches(
    folder: BenchFolder,
    split: str,
    columns: Sequence[str],
    *,
    batch_rows: int = BATCH_ROWS,
    labels: bool = False,
) -> Iterator[tuple[pa.Table, dict[str, Any]]]:
    """Each batch of ``split``: its ``game_id`` and ``ply`` (a table) and the arrays."""
    check_columns(columns, "the policy")
    wanted = ["game_id", "ply", "legal_actions", *(["action"] if labels else [])]
    read = _source_columns(split_column_names(folder, split), columns)
    for shard in iter_split_rows(folder, split, wanted + [c for c in read if c not in wanted]):
        if "board" in shard.column_names and "board_view" in columns:
            shard = shard.rename_columns(
                ["board_view" if c == "board" else c for c in shard.column_names]
            )
        for start in range(0, shard.num_rows, batch_rows):
            part = shard.slice(start, batch_rows)
            lists = part.column("legal_actions").combine_chunks()
            ids, counts = padded_lists(lists.offsets.to_numpy(), lists.values.to_numpy())
            batch: dict[str, Any] = {"legal_ids": ids, "legal_count": counts}
            batch.update({name: _array(part, name) for name in columns})
            if labels:
                hit = ids == part.column("action").to_numpy()[:, None]
                if not (hit.sum(axis=1) == 1).all():
                    raise InputError(
                        f"split {split!r}: a move played is not once among its legal moves"
                    )
                batch["played"] = hit.argmax(axis=1)
            yield part.select(["game_id", "ply"]), batch
