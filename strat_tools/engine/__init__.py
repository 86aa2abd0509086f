"""The rules engine's parts: :class:`Position` (legality, battles, repetition, rescue) and
the board diagrams (``st.engine``: the names below, each imported from where it lives). A
game is replayed by :mod:`strat_tools.engine.replay`.

This package knows no XML; it imports only ``board``, ``pieces``, ``records`` and ``rules``.
"""

from __future__ import annotations

from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.core.errors import IllegalMove
from strat_tools.engine.position import Position

__all__ = ["IllegalMove", "Position", "parse_board", "render_board"]
