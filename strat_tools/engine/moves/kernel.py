"""The move generator compiled: one loop over squares, for many positions at once.

:mod:`strat_tools.engine.moves` turns a batch of positions into their movers' class bytes
(:class:`~strat_tools.engine.moves.scan.MoveClasses`, one byte a square in the mover's view)
and then either runs NumPy's stages (:mod:`strat_tools.engine.moves.scan`) or, where `numba`_
is installed (the ``fast`` extra) and the batch is large, this module's one compiled loop:
per position, per square holding a piece of the mover that moves, its targets in id order
(down the ray farthest first, left farthest first, right and up nearest first, which is
ascending, as :data:`~strat_tools.engine.moves.tables.STEPS` orders them), written straight
into one array of ids with row offsets. It reads the same class bytes and the same ray
lengths (:data:`~strat_tools.engine.moves.tables.RAY_LENGTH`) as the NumPy stages, so the
two give the same ids; tests/test_moves_kernel.py checks that on every ply of the archive.

It covers the rule sets whose far pieces all reach nine squares and whose captains never
turn a corner (classic, barrage, duel, every Gravon period); the others (ultimate
lightning) stay with the NumPy stages, as do small batches, where compiling and calling
would cost more than the work. The two-squares bans
(:mod:`~strat_tools.engine.moves.bans`) are removed afterwards.

numba is an accelerator, never a requirement: :func:`compiled_ids` is the one way the
library calls the compiled loop, and any failure of it (numba's import refused, by a NumPy
too new for it or anything else; a compile error; a damaged cache index, an ``EOFError`` or
a pickle error on loading; an error of the first call) is caught there, said once in a
:class:`RuntimeWarning`, and answered by ``None``: the caller runs the NumPy stages, which
give the same ids, and the process never tries numba again (:func:`available` is false
from then on). So a broken numba costs speed, never a game.

.. _numba: https://numba.pydata.org
"""

from __future__ import annotations

import functools
import importlib.util
import warnings
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.engine.moves.tables import RAY_LENGTH

__all__ = ["MOST_MOVES", "available", "compiled_ids", "kernel_ids"]

MOST_MOVES: Final = 400
"""At most this many moves in one position: a target square is entered by at most four
pieces (the nearest one in each direction), so 100 squares take at most 400 moves."""


_FAILED: list[str] = []
"""Why the compiled loop failed in this process, once it has (then it is never tried again)."""


def available() -> bool:
    """Whether numba is installed (the ``fast`` extra), without importing it, and has not
    failed in this process (:func:`compiled_ids`)."""
    return not _FAILED and importlib.util.find_spec("numba") is not None


def compiled_ids(
    boards: npt.NDArray[np.uint8],
    sides: npt.NDArray[np.uint8],
    bits: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]] | None:
    """:func:`kernel_ids` through the compiled loop, or ``None`` when numba fails in any
    way (its import, the compile, its cache, the call): then one :class:`RuntimeWarning`
    says why, and :func:`available` is false for the rest of the process, so the caller
    takes the NumPy stages now and from then on.

    >>> _FAILED.append("numba refused in this example")
    >>> board, side, bits = np.zeros((1, 100), np.uint8), np.ones(1, np.uint8), np.zeros((2, 256))
    >>> compiled_ids(board, side, bits.astype(np.uint8))
    >>> available()
    False
    >>> _FAILED.clear()
    """
    if _FAILED:
        return None
    try:
        return kernel_ids(boards, sides, bits)
    except Exception as exc:  # an accelerator that fails falls back: never a lost game
        why = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        _FAILED.append(why)
        warnings.warn(
            f"numba's compiled move generator failed ({why.splitlines()[0][:300]}); "
            "using the NumPy stages instead (the same moves, slower)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None


def _scan(
    boards: npt.NDArray[np.uint8],
    sides: npt.NDArray[np.uint8],
    bits: npt.NDArray[np.uint8],
    rays: npt.NDArray[np.int16],
    offsets: npt.NDArray[np.int32],
    ids: npt.NDArray[np.int16],
) -> None:  # pragma: no cover - compiled by numba; the same function runs in Python in tests
    """Fill ``offsets`` (``n + 1``) and ``ids`` with the moves of the ``[n, 100]`` board
    codes ``boards`` (Gravon squares), side ``sides`` to move, through the class table
    ``bits`` (``[2, 256]``, :class:`~strat_tools.engine.moves.scan.MoveClasses`: 15 an own
    piece that moves, 16 it reaches farther, 128 the mover may enter, 144 empty)."""
    cell = np.empty(100, np.int64)  # the row's classes in the mover's view (wide: no wrap)
    movers = np.empty(101, np.int64)  # the squares of the mover's pieces that move, in order
    k = 0
    for row in range(boards.shape[0]):
        offsets[row] = k
        table = bits[sides[row] - 1]
        board = boards[row]
        m = 0  # written always, kept by the count: no branch to mispredict
        if sides[row] == 2:  # blue sees the board turned by 180 degrees
            for s in range(100):
                c = table[board[99 - s]]
                cell[s] = c
                movers[m] = s
                m += (c & 15) != 0
        else:
            for s in range(100):
                c = table[board[s]]
                cell[s] = c
                movers[m] = s
                m += (c & 15) != 0
        for index in range(m):
            s = movers[index]
            c = cell[s]
            base = s * 101  # the id of "s to s": a target's id is base + its offset
            if c & 16:  # far: walk each ray while the squares are empty
                for direction in range(4):
                    step = (-10, -1, 1, 10)[direction]
                    limit = rays[s * 4 + direction]
                    length = 0
                    while length < limit:
                        seen = cell[s + step * (length + 1)]
                        if seen > 128:  # empty: go on
                            length += 1
                            continue
                        length += seen >> 7  # an opponent's piece: strike it, stop
                        break
                    if step < 0:  # ascending: the farthest first
                        for i in range(length, 0, -1):
                            ids[k] = base + step * i
                            k += 1
                    else:
                        for i in range(1, length + 1):
                            ids[k] = base + step * i
                            k += 1
            else:  # written unconditionally, kept by the count: no branch to mispredict
                col = s % 10
                ids[k] = base - 10
                k += (s >= 10) & (cell[max(s - 10, 0)] >> 7)
                ids[k] = base - 1
                k += (col > 0) & (cell[max(s - 1, 0)] >> 7)
                ids[k] = base + 1
                k += (col < 9) & (cell[min(s + 1, 99)] >> 7)
                ids[k] = base + 10
                k += (s < 90) & (cell[min(s + 10, 99)] >> 7)
    offsets[boards.shape[0]] = k


@functools.cache
def _compiled() -> Callable[..., Any]:
    """:func:`_scan` compiled by numba (cached on disk where it may write, so a new process
    loads it in a fraction of the compile's second)."""
    import numba

    try:  # kept on disk beside the module, or in the user's cache folder
        compiled: Callable[..., Any] = numba.njit(cache=True, nogil=True)(_scan)
    except RuntimeError:  # neither is writable: compile in each process instead
        compiled = numba.njit(cache=False, nogil=True)(_scan)
    return compiled


def kernel_ids(
    boards: npt.NDArray[np.uint8],
    sides: npt.NDArray[np.uint8],
    bits: npt.NDArray[np.uint8],
    *,
    compiled: bool = True,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """``(offsets, ids)`` of the ``[n, 100]`` board codes ``boards`` (Gravon squares) with
    side ``sides`` to move, through a rule set's class table ``bits``
    (:attr:`~strat_tools.engine.moves.scan.MoveClasses.bits`): the layout of
    :func:`~strat_tools.engine.moves.legal_ids`. ``compiled=False`` runs the same loop in
    Python (slow: the tests check the compiled loop against it).

    >>> from strat_tools.core.board import LAKES
    >>> from strat_tools.core.pieces import LAKE
    >>> from strat_tools.core.rules import get_rules
    >>> from strat_tools.engine.moves.scan import move_classes
    >>> board = np.zeros((1, 100), np.uint8)
    >>> board[0, list(LAKES)] = LAKE
    >>> board[0, 31] = 5  # a red lieutenant on B4
    >>> bits = move_classes(get_rules("classic")).bits
    >>> offsets, ids = kernel_ids(board, np.ones(1, np.uint8), bits, compiled=False)
    >>> offsets.tolist(), ids.tolist()
    ([0, 4], [3121, 3130, 3132, 3141])
    """
    board = np.ascontiguousarray(boards, np.uint8).reshape(-1, 100)
    side = np.ascontiguousarray(sides, np.uint8).reshape(-1)
    n = len(board)
    offsets = np.empty(n + 1, np.int32)
    ids = np.empty(n * MOST_MOVES + 4, np.int16)  # untouched pages cost nothing
    scan = _compiled() if compiled else _scan
    scan(board, side, bits, RAY_LENGTH, offsets, ids)
    return offsets, ids[: int(offsets[-1])].copy()
