"""The viewer page's change coding: a table of per-position rows sent as, per position from
the second, only the cells that changed from the row before.

>>> rows = np.array([[0, 0, 0], [0, 5, 0], [0, 5, 0], [1, 5, 0]], np.uint8)
>>> changes(rows)
[[1, 5], [], [0, 1]]
>>> changes(rows, rows * 2)
[[1, 5, 10], [], [0, 1, 2]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["changes"]


def changes(
    rows: npt.NDArray[np.integer[Any]], *extra: npt.NDArray[np.integer[Any]]
) -> list[list[int]]:
    """Per row from the second: the flat ``[index, value, ...]`` of cells that changed from
    the row before (with ``extra`` tables of the same shape: ``[index, value, extra_value,
    ...]`` where any of them changed). Values fit in 16 bits. One vectorised pass; only
    the final cut into rows is a Python loop over slices."""
    columns = [table.reshape(table.shape[0], -1).astype(np.int16) for table in (rows, *extra)]
    changed = np.zeros((columns[0].shape[0] - 1, columns[0].shape[1]), np.bool_)
    for table in columns:
        changed |= np.diff(table, axis=0) != 0
    plies, cells = np.nonzero(changed)
    values = [table[plies + 1, cells] for table in columns]
    items = np.column_stack([cells, *values]).ravel().tolist()
    width = 1 + len(columns)
    ends = np.cumsum(np.bincount(plies, minlength=changed.shape[0]) * width).tolist()
    starts = [0, *ends][: len(ends)]
    return [items[start:end] for start, end in zip(starts, ends, strict=True)]
