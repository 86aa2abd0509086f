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
        for start, side in ((0, first), (1, 3 - first)):
            out[start::2] = _lookup(tables[side - 1], boards[start::2], turned=side == 2)
        return out
    blue = sides == 2
    out[~blue] = _lookup(tables[0], boards[~blue], turned=False)
    out[blue] = _lookup(tables[1], boards[blue], turned=True)
    return out


def square_pair_tables(tables: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint16]:
    """``[2, 65536]`` tables of :func:`view_plies`: per side to move (index side - 1), the
    value of two neighbouring squares at once (a ``uint16`` of their bytes) as they come out
    in that side's view: red's in place, blue's swapped (its row is turned)."""
    if tables.shape != (2, 256) or tables.dtype != np.uint8:
        raise ValueError(f"square pair tables come from [2, 256] uint8 tables, got {tables.shape}")
    pair = np.arange(65536)
    low, high = tables[:, pair & 0xFF].astype(np.uint16), tables[:, pair >> 8].astype(np.uint16)
    red = low[0] | high[0] << 8  # little-endian words: the first square is the low byte
    blue = high[1] | low[1] << 8
    return np.ascontiguousarray(np.stack([red, blue]), dtype=np.uint16)


def view_plies(
    pair_tables: npt.NDArray[np.uint16], boards: npt.NDArray[np.uint8]
) -> npt.NDArray[np.uint8]:
    """:func:`view_boards` of a game's consecutive positions from its setup (red to move
    first, then the sides in turn: no sides to read), with the :func:`square_pair_tables`
    of its tables: two squares a lookup, straight into each side's rows of the result (a
    whole game's rows at once; ``boards`` may be any view whose rows are contiguous).

    >>> tables = np.stack([np.arange(256), np.arange(256) + 1]).astype(np.uint8)
    >>> rows = (np.arange(300) % 100).astype(np.uint8).reshape(3, 100)
    >>> view_plies(square_pair_tables(tables), rows)[:, [0, 99]].tolist()
    [[0, 99], [100, 1], [0, 99]]
    """
    pairs = boards.view(np.uint16)  # [n, 50]: needs each row's bytes side by side
    out = np.empty(pairs.shape, np.uint16)
    # ``wrap``: no bounds to check (a uint16 is in range), and ``out`` written unbuffered.
    np.take(pair_tables[0], pairs[0::2], out=out[0::2], mode="wrap")
    np.take(pair_tables[1], pairs[1::2, ::-1], out=out[1::2], mode="wrap")  # turned
    return out.view(np.uint8)


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
