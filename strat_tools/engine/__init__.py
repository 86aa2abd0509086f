"""The rules engine's parts: :class:`Position` (legality, battles, repetition, rescue) and
the board renderer. The public entry points are re-exported by ``strat_tools.engine.replay``.

This package knows no XML; it imports only ``board``, ``pieces``, ``records`` and ``rules``.
"""

from __future__ import annotations

from strat_tools.engine.position import IllegalMove, Position
from strat_tools.engine.render import parse_board, render_board

__all__ = ["IllegalMove", "Position", "parse_board", "render_board"]
