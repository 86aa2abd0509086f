"""The move generator's tables: board geometry and run codes, in the mover's view.

The board is the same in both sides' views (a turn by 180 degrees keeps the lakes), so one
set of tables serves both. :data:`STEPS` orders the four directions so that a source's
targets ascend: down, left, right, up. A **run code** ``Ld + 10 Ll + 100 Lr + 1000 Lu``
says how many squares a piece reaches in each (0..9); :data:`RUN_COUNT` and
:data:`RUN_OFFSETS` turn it into its moves' targets, ascending, which is how
:mod:`strat_tools.engine.moves` lists moves in id order without a sort. This module is
NumPy over squares only: no pieces, no rules.
"""

from __future__ import annotations

import functools
from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import LAKES, NEIGHBOURS

__all__ = [
    "CORNERS",
    "DIAGONAL",
    "EDGE_BITS",
    "NEAR",
    "NIBBLE_CODE",
    "ONE_IDS",
    "PAD",
    "RAY_LENGTH",
    "RUN_COUNT",
    "RUN_IDS",
    "RUN_OFFSETS",
    "RUN_WIDTH",
    "STEPS",
    "offsets_of",
]

PAD: Final = 100
"""The square index the tables hold for "no square" (off the board, or a lake)."""

STEPS: Final = (-10, -1, 1, 10)
"""One-square steps in the order that makes each source's targets ascend."""


def _geometry() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Neighbours ``[100, 4]``, diagonals ``[100, 4]`` and the two corners of each diagonal
    ``[100, 4, 2]`` (``PAD``: none)."""
    near = np.full((100, 4), PAD, np.intp)
    for source in range(100):
        for target in NEIGHBOURS[source]:
            near[source, STEPS.index(target - source)] = target
    diagonal = np.full((100, 4), PAD, np.intp)
    corners = np.full((100, 4, 2), PAD, np.intp)
    for source in range(100):
        row, col = divmod(source, 10)
        for index, (dr, dc) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
            r, c = row + dr, col + dc
            if 0 <= r < 10 and 0 <= c < 10 and r * 10 + c not in LAKES:
                diagonal[source, index] = r * 10 + c
                corners[source, index] = (row * 10 + c, r * 10 + col)
    return near, diagonal, corners


NEAR, DIAGONAL, CORNERS = _geometry()
"""Geometry tables (the board is the same in both sides' views, so they serve both)."""
EDGE_BITS: Final = np.array(
    [sum(1 << d for d in range(4) if row[d] != PAD) for row in NEAR], np.uint8
)
"""Per square: the step bits (:data:`STEPS` order) of the neighbours on the board."""


def _run_tables() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8]]:
    """Per run code ``Ld + 10 Ll + 100 Lr + 1000 Lu`` (how many squares a piece reaches
    down, left, right and up, each 0..9, in :data:`STEPS` order): the number of moves,
    and ``[10000, 36]`` their targets' offsets from the source, ascending."""
    codes = np.arange(10_000)
    lengths = [codes // 10**d % 10 for d in range(4)]
    offsets = np.zeros((10_000, 36), np.int8)
    before = np.zeros(10_000, np.int64)
    for length, step in zip(lengths, STEPS, strict=True):
        for i in range(9):
            has = i < length
            # Ascending targets: the farthest first on a downward ray, the nearest first upward.
            value = step * (length - i) if step < 0 else np.full(10_000, step * (i + 1))
            offsets[codes[has], (before + i)[has]] = value[has]
        before += length
    return before.astype(np.uint8), offsets


RUN_COUNT, RUN_OFFSETS = _run_tables()
"""The moves of a run code (:func:`_run_tables`) and their target offsets."""
RUN_WIDTH: Final = 18
"""Most moves one piece has: nine along its file and nine along its rank (a ray's squares
on the board ahead plus those behind are at most nine)."""
RUN_IDS: Final = RUN_OFFSETS[:, :RUN_WIDTH].astype(np.int16)
""":data:`RUN_OFFSETS` as id offsets (``int16``, to add to ``source * 101``), the first
:data:`RUN_WIDTH` of each run code (a real piece's run never has more)."""
NIBBLE_CODE: Final = np.array(
    [sum(10**d for d in range(4) if bits >> d & 1) for bits in range(16)], np.uint16
)
"""Run code of a one-square piece from its four "may step there" bits (:data:`STEPS` order)."""


def _one_ids() -> npt.NDArray[np.int16]:
    """Per ``(square * 16 + step bits) * 4``: the ids of a one-square piece's moves from
    that square (``square * 100 + target``), ascending, then 0 to fill the four."""
    ids = np.zeros((100, 16, 4), np.int16)
    for square in range(100):
        for bits in range(16):
            found = [square * 101 + step for d, step in enumerate(STEPS) if bits >> d & 1]
            ids[square, bits, : len(found)] = found
    return ids.reshape(-1)


ONE_IDS: Final = _one_ids()
"""The ids of every one-square piece's moves, a run of four per square and step bits
(the first :data:`STEP_COUNT` of them are the moves)."""


def _ray_tables() -> npt.NDArray[np.int16]:
    """Per ``square * 4 + direction`` (:data:`STEPS` order): how many squares the ray
    has on the board before its edge or a lake."""
    length = np.zeros(400, np.int16)
    for square in range(100):
        for direction in range(4):
            at = square
            while NEAR[at, direction] != PAD:
                at = int(NEAR[at, direction])
                length[square * 4 + direction] += 1
    return length


RAY_LENGTH: Final = _ray_tables()


@functools.cache
def offsets_of(code: int) -> tuple[int, ...]:
    """The target offsets of run code ``code`` (:data:`RUN_OFFSETS`), as ints."""
    return tuple(RUN_OFFSETS[code, : RUN_COUNT[code]].tolist())
