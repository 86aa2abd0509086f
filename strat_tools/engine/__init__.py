"""The rules engine's parts: :class:`Position` (legality, battles, repetition, rescue) and
the board diagrams (``st.engine``: the names below, each imported from where it lives). A
game is replayed by :mod:`strat_tools.engine.replays.replay`.

This floor knows no XML and no files; it imports only the ground floor, ``strat_tools.core``
(the board, pieces, records and rule sets), as ``tests/test_structure.py``'s FLOORS says.
"""

from __future__ import annotations

from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.core.errors import IllegalMove
from strat_tools.engine.position.position import Position

__all__ = ["IllegalMove", "Position", "parse_board", "render_board"]
