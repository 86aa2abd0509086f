"""The mover's view: squares, action ids and boards as the side to move sees them.

Red sees the board as Gravon writes it; blue sees it turned by 180 degrees (``99 - square``,
the same turn as a setup "in its owner's view", and one that keeps the lakes where they
are). **Our action id** of a move is ``view(source) * 100 + view(target)``: for blue that is
simply ``9999 - (source * 100 + target)`` with Gravon squares. This module is the one
definition of that turn for whole columns of moves (:func:`view_keys`) and for whole
boards (:func:`view_boards`), with :func:`~strat_tools.core.board.view_square` for one
square; the action ids (``actions.py``), the batch move generator (``engine/moves/``), the
observation boards (``planes.py``) and the observation export all go through it.

This module knows only squares and arrays.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

TURNED_KEY: Final = 9999
"""``source * 100 + target`` turned by 180 degrees is ``TURNED_KEY - key``."""


def view_keys(keys: npt.ArrayLike, blue: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Moves ``source * 100 + target`` (Gravon squares, any shape) as our action ids, where
    ``blue`` (broadcast) says which were blue's; its own inverse, like
    :func:`~strat_tools.core.board.view_square`.

    >>> view_keys([3141, 6858], [False, True]).tolist()  # red B4-B5, blue I7-I6
    [3141, 3141]
    """
    found: npt.NDArray[np.int64] = np.where(
        np.asarray(blue, np.bool_), TURNED_KEY - np.asarray(keys, np.int64), keys
    ).astype(np.int64, copy=False)
    return found


def view_boards(
    tables: npt.NDArray[np.uint8],
    boards: npt.NDArray[np.uint8],
    sides: npt.NDArray[np.uint8],
    out: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.uint8]:
    """``tables[side - 1][boards]`` per row, each row in its side's view (blue's turned).

    ``tables`` is ``[2, 256]`` (a value per side to move and board byte), ``boards``
    ``[n, 100]`` (Gravon squares), ``sides`` ``[n]`` (1 red, 2 blue); written into ``out``
    (``[n, 100]``, may be a view) when given. Rows whose sides alternate (a game's plies)
    are looked up by slices, without a copy of either half.

    >>> tables = np.stack([np.arange(256), np.arange(256) + 1]).astype(np.uint8)
    >>> view_boards(tables, np.arange(200, dtype=np.uint8).reshape(2, 100) % 100,
    ...             np.array([1, 2], np.uint8))[:, [0, 99]].tolist()
    [[0, 99], [100, 1]]
    """
    if tables.shape != (2, 256) or tables.dtype != np.uint8:
        raise ValueError(f"view_boards takes [2, 256] uint8 tables, got {tables.shape}")
    n = len(boards)
    if out is None:
        out = np.empty((n, 100), np.uint8)
    if n == 0:
        return out
    first = int(sides[0])
    if n == 1:  # one position (the stepping API): no alternation to look for
        out[:] = _lookup(tables[first - 1], boards, turned=first == 2)
        return out
    if np.asarray(sides, np.uint8).tobytes() == bytes((first, 3 - first)) * (n // 2) + bytes(
        (first,) * (n % 2)
    ):  # the sides alternate: compared as bytes, a tenth of NumPy's compare's cost
        return view_plies(tables, boards, first, out)
    blue = sides == 2
    out[~blue] = _lookup(tables[0], boards[~blue], turned=False)
    out[blue] = _lookup(tables[1], boards[blue], turned=True)
    return out


def view_plies(
    tables: npt.NDArray[np.uint8],
    boards: npt.NDArray[np.uint8],
    first: int = 1,
    out: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.uint8]:
    """:func:`view_boards` of a game's consecutive positions, whose sides to move alternate
    from ``first`` (1 red, 2 blue): each side's rows looked up by a slice, without a copy of
    either half (no sides to read: a whole game's rows at once).

    >>> tables = np.stack([np.arange(256), np.arange(256) + 1]).astype(np.uint8)
    >>> view_plies(tables, np.arange(300, dtype=np.uint8).reshape(3, 100) % 100)[:, 0].tolist()
    [0, 100, 0]
    """
    if out is None:
        out = np.empty((len(boards), 100), np.uint8)
    for start, side in ((0, first), (1, 3 - first)):
        if start < len(boards):
            out[start::2] = _lookup(tables[side - 1], boards[start::2], turned=side == 2)
    return out


def _lookup(
    table: npt.NDArray[np.uint8], boards: npt.NDArray[np.uint8], *, turned: bool
) -> npt.NDArray[np.uint8]:
    """``table[boards]``, each row turned when ``turned``: by ``bytes.translate``, a
    byte-to-byte map several times faster than NumPy's gather with byte indices (``tobytes``
    copies any strides in C order; a row is turned four bytes at a time)."""
    rows = np.asarray(boards, np.uint8).reshape(-1, 100)
    if turned and rows.strides[1] != 1:
        rows = np.ascontiguousarray(rows)  # (words need each row's bytes side by side)
    # Turned: each row's 25 words in reverse order, each word's bytes swapped.
    data = rows.view(np.uint32)[:, ::-1].byteswap().tobytes() if turned else rows.tobytes()
    return np.frombuffer(data.translate(table.tobytes()), np.uint8).reshape(-1, 100)
