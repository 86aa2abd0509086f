"""Piece counts on the board at chosen plies, and how many of them the opponent knows.

:func:`material_rows` reads a :class:`~strat_tools.engine.information.knowledge.Knowledge` (the
per-ply boards and knowledge bits of one replayed game) at the plies asked for and gives one
``int8`` row of :data:`MATERIAL_WIDTH` counts each: for red then blue, the pieces of each of the
eleven kinds of :data:`MATERIAL_KINDS` on the board (bomb, spy, scout, ..., marshal: the flag is
left out), then for red then blue the pieces of each kind whose rank the *opponent* knows
(:data:`~strat_tools.engine.information.knowledge.KNOWN`: shown in a battle, or proved by a move).
:func:`flags_standing` says at which plies both flags are still on the board.

:func:`view_material` is the same row as one side saw it: its own pieces as they are, the
opponent's identified pieces as they are, and the opponent's unidentified pieces spread over
the kinds that side has not identified yet (``Knowledge.unseen``), in proportion: never by
their true identity, so two unseen pieces swapped change nothing in it. In free setup, where
the rules show no army (``Knowledge.army_shown`` false), they are spread as
:data:`FREE_SETUP_MIX` (a classic army's mix), the same whatever the opponent set up.

>>> from strat_tools.core.pieces import letter_code
>>> from strat_tools.core.records import GameRecord
>>> from strat_tools.engine.replays.replay import replay
>>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8 + "Y"
>>> setup = tuple(letter_code(c) for c in field)
>>> record = GameRecord("doc.xml", variant="classicfree", setup=setup, sources=[9], targets=[39])
>>> rows = material_rows(replay(record).knowledge(), [0, 1])
>>> rows.shape, rows[1, :11].tolist()  # red: the flag (not counted) and a scout
((2, 44), [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])
>>> int(rows[0, 22 + 2]), int(rows[1, 22 + 2])  # red's scout moved 3 squares: blue knows it
(0, 1)
>>> float(view_material(replay(record).knowledge(), 1, Side.RED)[11 + 2])  # free setup: 2 x 8/40
0.4
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side
from strat_tools.core.pieces import ARMIES, PieceKind
from strat_tools.engine.information.knowledge import KNOWN

if TYPE_CHECKING:
    from strat_tools.engine.information.knowledge import Knowledge

__all__ = [
    "FREE_SETUP_MIX",
    "MATERIAL_KINDS",
    "MATERIAL_WIDTH",
    "flags_standing",
    "material_rows",
    "view_material",
    "view_materials",
]

MATERIAL_KINDS: Final[tuple[PieceKind, ...]] = tuple(
    k for k in PieceKind if k is not PieceKind.FLAG
)
"""The eleven kinds counted, in :class:`~strat_tools.core.pieces.PieceKind` order: bomb,
spy, scout, miner, sergeant, lieutenant, captain, major, colonel, general, marshal."""
MATERIAL_WIDTH: Final = 4 * len(MATERIAL_KINDS)
"""A row: red's counts, blue's counts, red's known to blue, blue's known to red (11 each)."""

FREE_SETUP_MIX: Final[tuple[int, ...]] = ARMIES["classic"]
"""How a side's view spreads the opponent's unidentified pieces in free setup, where no army
was shown: in a classic army's proportions (per kind value), a fixed prior that no piece of
the opponent's actual setup can change."""

_KIND_INDEX: Final = [int(k) for k in MATERIAL_KINDS]
_N: Final = len(MATERIAL_KINDS)
# Board code -> column of the count row (red 0..10, blue 11..21); -1 for empty, lake, flags.
_COLUMN: Final = np.full(27, -1, dtype=np.int64)
for _code in range(1, 25):
    _kind = (_code - 1) % 12
    if _kind != PieceKind.FLAG:
        _COLUMN[_code] = _kind + (_N if _code > 12 else 0)


def material_rows(know: Knowledge, plies: Sequence[int] | npt.ArrayLike) -> npt.NDArray[np.int8]:
    """``(len(plies), 44)`` counts after each ply of ``plies`` (0: the setup), as in the
    module docstring."""
    at = np.asarray(plies, dtype=np.int64)
    boards = know.boards[at].astype(np.int64)
    known = (know.flags[at] & KNOWN) != 0
    column = _COLUMN[boards]
    rows = np.repeat(np.arange(len(at), dtype=np.int64)[:, None], 100, axis=1)
    keep = column >= 0
    width = 2 * _N
    totals = np.bincount((rows * width + column)[keep], minlength=len(at) * width)
    seen = keep & known
    shown = np.bincount((rows * width + column)[seen], minlength=len(at) * width)
    out = np.concatenate([totals.reshape(-1, width), shown.reshape(-1, width)], axis=1)
    return np.asarray(out, dtype=np.int8)


def flags_standing(know: Knowledge) -> npt.NDArray[np.bool_]:
    """Per ply (0: the setup), whether both flags are on the board."""
    red = (know.boards == PieceKind.FLAG + 1).any(axis=1)
    blue = (know.boards == PieceKind.FLAG + 13).any(axis=1)
    return np.asarray(red & blue)


def view_material(know: Knowledge, ply: int, side: Side | int) -> npt.NDArray[np.float64]:
    """The row of :func:`material_rows` after ``ply`` as ``side`` knew it (floats): the
    opponent's unidentified pieces counted by what is left unidentified, in proportion."""
    return np.asarray(view_materials(know, side, [ply])[0])


def view_materials(
    know: Knowledge, side: Side | int, plies: Sequence[int] | npt.ArrayLike | None = None
) -> npt.NDArray[np.float64]:
    """:func:`view_material` after each of ``plies`` (None: every ply, 0 the setup)."""
    at = np.arange(know.plies + 1) if plies is None else np.asarray(plies, dtype=np.int64)
    rows = material_rows(know, at).astype(np.float64)
    viewer = Side(int(side))
    theirs = slice(_N, 2 * _N) if viewer == Side.RED else slice(0, _N)
    their_known = slice(3 * _N, 4 * _N) if viewer == Side.RED else slice(2 * _N, 3 * _N)
    known = rows[:, their_known]
    # The pieces of theirs on the board that side cannot name: the counted ones less the
    # identified, and the flag while it stands (never identified, never counted).
    flag = PieceKind.FLAG + (13 if viewer == Side.RED else 1)
    standing = (know.boards[at] == flag).any(axis=1)
    unnamed = rows[:, theirs].sum(axis=1) - known.sum(axis=1) + standing
    if know.army_shown:
        unseen = know.unseen[at, viewer - 1].astype(np.float64)
    else:  # free setup showed no army: a fixed mix, the same whatever the opponent set up
        unseen = np.broadcast_to(np.asarray(FREE_SETUP_MIX, dtype=np.float64), (len(at), 12))
    pool = unseen.sum(axis=1, keepdims=True)
    share = np.divide(unseen[:, _KIND_INDEX], pool, out=np.zeros((len(at), _N)), where=pool > 0)
    rows[:, theirs] = known + share * unnamed[:, None]
    return rows
