"""Setups as bit boards: pattern matching over many setups with a few machine words each.

A *plane* of a set of bytes is, for every setup, one 64-bit word whose bit ``s`` is set when
square ``s`` (setup-code order, :mod:`strat_tools.setups.identity`) holds one of those bytes:
40 bits, one per square. A plane costs one compare over the setups' bytes and a
``packbits``; once the planes a pattern needs exist, matching is a handful of shifts, ANDs
and compares on one word per setup, whatever the number of squares or offsets:

- a whole-setup pattern holds when, for each distinct square mask ``m``, the plane of ``m``
  covers every square that carries ``m`` (``plane & need == need``);
- a smaller pattern (``--anywhere``) placed with its back-left cell on square ``s`` puts
  its cell ``(i, j)`` (row ``i`` written from the front) on ``s + (height - 1 - i) * 10 +
  j``, so shifting each cell's plane right by that offset and ANDing the words leaves bit
  ``s`` set exactly where the pattern fits with that placement; masking the placements
  whose rows would wrap past column 10 and testing the word for zero answers "anywhere".

A mask is built from the fewer of its allowed and its banned bytes (``[!FB]`` is "not F
and not B": two planes, not twelve), planes are shared between the masks of one call (a
pattern and its mirror image use the same ones), and with more than four distinct bytes
needed, the four bit slices of the bytes are packed instead and each byte's plane is three
word ANDs. The setups are taken in chunks that stay in the processor's cache, so the bytes
are read from memory once however many planes are needed.

This module knows bytes and bit masks only: what a pattern means is
:mod:`strat_tools.setups.patterns`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.setups.identity import OTHER as TOP
from strat_tools.setups.identity import SQUARES

Grid = tuple[tuple[int, ...], ...]
"""An anywhere pattern's square masks, row by row as written (front-most row first)."""

ALL: Final = (1 << (TOP + 1)) - 1
"""The mask of a wildcard: every byte 0..13 allowed (no mask allows a byte past 13)."""

CHUNK: Final = 1 << 13
"""Setups per chunk: their bytes (320 kB), the scratch and the planes stay in cache."""

_FULL: Final = np.uint64((1 << SQUARES) - 1)
_SLICES: Final = 4
"""Bit slices of a byte 0..15: past this many distinct bytes, slicing is cheaper."""

Words = npt.NDArray[np.uint64]


def _bytes_of(mask: int) -> tuple[int, ...]:
    return tuple(c for c in range(TOP + 1) if mask >> c & 1)


def _banned_of(mask: int) -> tuple[int, ...]:
    return tuple(c for c in range(TOP + 1) if not mask >> c & 1)


def _by_complement(mask: int) -> bool:
    """Whether ``mask``'s plane is cheaper as "none of the banned bytes"."""
    return len(_banned_of(mask)) < len(_bytes_of(mask))


class _Planes:
    """The planes of one chunk of setups at a time, each computed once, when first asked
    for (:meth:`load` moves to the next chunk). Every array is allocated once per call and
    written with ``out=``: fresh arrays per chunk would cost more than the work."""

    def __init__(self, sliced: bool) -> None:
        self.sliced_wanted = sliced
        self.rows = 0
        self.data = np.zeros((0, SQUARES), dtype=np.uint8)
        self.bools = np.empty((CHUNK, SQUARES), dtype=bool)
        self.bytes = np.empty((CHUNK, SQUARES), dtype=np.uint8)
        self.packed = np.zeros(CHUNK * 5 + 8, dtype=np.uint8)
        # Row r's 5 packed bytes start at byte 5r: read 8 from there (unaligned), keep 40.
        self.unaligned = np.ndarray((CHUNK,), dtype=np.uint64, buffer=self.packed, strides=(5,))
        self.computed = 0
        """Byte planes computed for the current chunk."""
        self.store: dict[object, Words] = {}
        self.ready: set[object] = set()

    def load(self, data: npt.NDArray[np.uint8]) -> None:
        """Start on the next chunk of setups."""
        self.data = data
        self.rows = len(data)
        top = int(data.max(initial=0))
        # A byte past 13 is allowed by no mask: a complement is exact only without one.
        self.small = top <= TOP
        self.sliced = self.sliced_wanted and top <= 15
        self.ready.clear()
        self.computed = 0

    def words(self, key: object) -> Words:
        """The scratch words kept under ``key``, for this chunk's rows."""
        if key not in self.store:
            self.store[key] = np.empty(CHUNK, dtype=np.uint64)
        return self.store[key][: self.rows]

    def pack(self, truth: npt.NDArray[np.bool_] | npt.NDArray[np.uint8], key: object) -> Words:
        """``[rows, 40]`` truth values (nonzero: set) as one 40-bit word per row."""
        self.packed[: self.rows * 5] = np.packbits(truth.reshape(-1), bitorder="little")
        word = self.words(key)
        np.bitwise_and(self.unaligned[: self.rows], _FULL, out=word)
        return word

    def code(self, byte: int) -> Words:
        """Where the setups hold ``byte``."""
        key = ("code", byte)
        if key in self.ready:
            return self.words(key)
        self.ready.add(key)
        self.computed += 1
        if not self.sliced:
            truth = np.equal(self.data, byte, out=self.bools[: self.rows])
            return self.pack(truth, key)
        if ("slice", 0) not in self.ready:
            for k in range(_SLICES):
                self.ready.add(("slice", k))
                bit = np.bitwise_and(self.data, np.uint8(1 << k), out=self.bytes[: self.rows])
                plane = self.pack(bit, ("slice", k))
                np.bitwise_xor(plane, _FULL, out=self.words(("clear", k)))
        word = self.words(key)
        for k in range(_SLICES):
            plane = self.words(("slice" if byte >> k & 1 else "clear", k))
            if k == 0:
                word[:] = plane
            else:
                word &= plane
        return word

    def mask(self, mask: int) -> Words:
        """Where the setups hold a byte ``mask`` allows."""
        key = ("mask", mask)
        if key in self.ready:
            return self.words(key)
        complement = self.small and _by_complement(mask)
        chosen = _banned_of(mask) if complement else _bytes_of(mask)
        if len(chosen) == 1 and not complement:
            return self.code(chosen[0])
        word = self.words(key)
        word.fill(0)
        for byte in chosen:
            word |= self.code(byte)
        if complement:
            word ^= _FULL
        self.ready.add(key)
        return word


def _chunks(codes: npt.ArrayLike) -> tuple[npt.NDArray[np.uint8], list[slice]]:
    data = np.ascontiguousarray(codes, dtype=np.uint8).reshape(-1, SQUARES)
    return data, [slice(s, s + CHUNK) for s in range(0, len(data), CHUNK)]


def match_setups(
    masks: Sequence[Sequence[int]], codes: npt.ArrayLike
) -> list[npt.NDArray[np.bool_]]:
    """For each whole-setup pattern of ``masks`` (40 masks each, setup-code order), which
    setups (rows of ``codes``) hold an allowed byte on every square.

    >>> codes = np.zeros((2, 40), dtype=np.uint8)
    >>> codes[0, 0] = 12
    >>> flag_first = [1 << 12] + [ALL] * 39
    >>> [found.tolist() for found in match_setups([flag_first, [ALL] * 40], codes)]
    [[True, False], [True, True]]
    """
    needs: list[list[tuple[int, np.uint64]]] = []
    for pattern in masks:
        squares_of: dict[int, int] = {}
        for square, mask in enumerate(pattern):
            if mask != ALL:
                squares_of[mask] = squares_of.get(mask, 0) | 1 << square
        # The masks of the most squares first: they reject the most setups soonest.
        ordered = sorted(squares_of.items(), key=lambda item: -item[1].bit_count())
        needs.append([(mask, np.uint64(squares)) for mask, squares in ordered])
    data, chunks = _chunks(codes)
    if sum(len(need) for need in needs) <= _FEW_SQUARES and all(
        squares.bit_count() == 1 for need in needs for _, squares in need
    ):
        return [_by_columns(need, data) for need in needs]
    results = [np.ones(len(data), dtype=bool) for _ in masks]
    # Byte planes one by one, so that a chunk whose setups all fail early costs one or two;
    # when a chunk needed more than slicing costs, slice the next ones.
    planes = _Planes(False)
    same = np.empty(CHUNK, dtype=bool)
    for chunk in chunks:
        planes.sliced_wanted = planes.computed > _SLICES
        planes.load(data[chunk])
        scratch = planes.words("scratch")
        for need, found in zip(needs, results, strict=True):
            kept = found[chunk]
            for mask, bits in need:
                np.bitwise_and(planes.mask(mask), bits, out=scratch)
                np.equal(scratch, bits, out=same[: planes.rows])
                kept &= same[: planes.rows]
                if not kept.any():  # nothing left in this chunk: skip the other planes
                    break
    return results


_FEW_SQUARES: Final = 3
"""Up to this many constrained squares, reading their columns beats building planes."""


def _by_columns(need: Sequence[tuple[int, np.uint64]], data: npt.NDArray[np.uint8]) -> Any:
    """Rows whose byte on each needed square (one square per mask) its mask allows, column
    by column; once few rows are left, only those are looked at."""
    found = np.ones(len(data), dtype=bool)
    rows: npt.NDArray[np.intp] | None = None
    for mask, bits in need:
        square = int(bits).bit_length() - 1
        allowed = np.array([c <= TOP and bool(mask >> c & 1) for c in range(256)])
        if rows is None:
            found &= allowed[data[:, square]]
            if np.count_nonzero(found) * 8 < len(found):
                rows = np.flatnonzero(found)
        else:
            rows = rows[allowed[data[rows, square]]]
    if rows is not None:
        found = np.zeros(len(data), dtype=bool)
        found[rows] = True
    return found


def _placements(height: int, width: int) -> np.uint64:
    """The squares a ``height`` x ``width`` pattern's back-left cell can stand on."""
    return np.uint64(
        sum(1 << (r * 10 + c) for r in range(4 - height + 1) for c in range(10 - width + 1))
    )


def match_anywhere(grids: Sequence[Grid], codes: npt.ArrayLike) -> list[npt.NDArray[np.bool_]]:
    """For each grid (an anywhere pattern's masks, front-most row first), which setups hold
    it at some offset.

    >>> codes = np.zeros((2, 40), dtype=np.uint8)
    >>> codes[0, 12:14] = (2, 10)  # row 2: a spy, the general right of it
    >>> [found.tolist() for found in match_anywhere([((1 << 2, 1 << 10),), ((ALL,),)], codes)]
    [[True, False], [True, True]]
    """
    cells = []
    for grid in grids:
        height, width = len(grid), len(grid[0])
        placed = [
            (mask, np.uint64((height - 1 - i) * 10 + j))
            for i, row in enumerate(grid)
            for j, mask in enumerate(row)
            if mask != ALL
        ]
        # The narrowest masks first: they leave the fewest placements standing soonest.
        placed.sort(key=lambda cell: cell[0].bit_count())
        cells.append((placed, _placements(height, width)))
    data, chunks = _chunks(codes)
    results = [np.ones(len(data), dtype=bool) for _ in grids]
    planes = _Planes(False)  # sliced once a chunk needed more planes than slicing costs
    for chunk in chunks:
        planes.sliced_wanted = planes.computed > _SLICES
        planes.load(data[chunk])
        fits, shifted = planes.words("fits"), planes.words("shifted")
        for (placed, starts), found in zip(cells, results, strict=True):
            if not placed:
                continue
            fits.fill(starts)
            for done, (mask, at) in enumerate(placed, start=1):
                np.right_shift(planes.mask(mask), at, out=shifted)
                fits &= shifted
                if done < len(placed) and not fits.any():  # no placement left: skip the rest
                    break
            np.not_equal(fits, 0, out=found[chunk])
    return results
