"""The two-squares rule's scout clause: recounting a scout's chain that stops sharing squares.

Under the scout clause a scout counts as standing on every square it passes over, so its
chain goes on while its moves start where the last one ended, reverse on one line and all
share two squares (docs/rules-findings.md). When a move no longer shares two squares with
the chain's first moves, the chain is the longest run of the latest moves that still share
them: :func:`scout_chain` counts it from the chain's squares, which
:class:`~strat_tools.engine.position.position.Position` keeps per side. The engine's hot loop and
:class:`Position` both count through it, so they agree. This module knows only squares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

CHAIN_KEPT: Final = 128
"""How many squares of a scout's chain ``Chain.path`` (``engine/rules/rule_state.py``) keeps (the
newest): a chain that breaks is recounted over at most this many (only a run without a limit
gets that long)."""


def scout_chain(path: Sequence[int], target: int, unit: int) -> tuple[int, int, int]:
    """(count, lo, hi) of the longest scout-clause chain ending at the move
    ``path[-1] -> target``: the most recent moves of ``path`` (the chain's squares, oldest
    first, each move from one square to the next, all reversing on one line) that share at
    least two squares with it and with each other, and the span ``lo..hi`` they share.
    ``unit`` is the line's step (1 along a row, 10 along a column).

    The count is of the latest moves only, so a chain that stops sharing two squares with
    its first moves goes on from the ones it still shares them with (it does not restart at
    the last two moves):

    >>> from strat_tools.core.board import parse_square as sq
    >>> path = [sq(s) for s in ("I9", "E9", "H9", "B9", "H9", "C9", "D9")]
    >>> count, lo, hi = scout_chain(path, sq("C9"), 1)
    >>> count, lo == sq("C9"), hi == sq("D9")
    (5, True, True)
    """
    source = path[-1]
    lo, hi = (source, target) if source < target else (target, source)
    count = 1
    for index in range(len(path) - 1, 0, -1):
        first, second = path[index - 1], path[index]
        low, high = (first, second) if first < second else (second, first)
        low, high = max(lo, low), min(hi, high)
        if high - low < unit:
            break
        lo, hi, count = low, high, count + 1
    return count, lo, hi
