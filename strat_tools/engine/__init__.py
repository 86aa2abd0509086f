"""The rules engine's parts: :class:`Position` (legality, battles, repetition, rescue) and
the board renderer. The public entry points are re-exported by ``strat_tools.engine.replay``.

This package knows no XML; it imports only ``board``, ``pieces``, ``records`` and ``rules``.
"""

from __future__ import annotations

from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.engine.position import IllegalMove, Position

__all__ = ["IllegalMove", "Position", "parse_board", "render_board"]
