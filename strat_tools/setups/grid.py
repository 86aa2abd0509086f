"""Setups as a grid: one row per setup ``(game_id, side)``, 40 cells of piece kinds in the
owner's view (row 1 = that side's back row, col 1 = that player's left), with the cells'
neighbours on the board (edges and lakes marked) and whether the army fits the variant.

The shape every advice computation works on (:mod:`strat_tools.stats.tips`,
:mod:`strat_tools.stats.advice`), built once per batch with numpy. Counts nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.core.board import LAKES, Side, from_owner_view
from strat_tools.core.pieces import ARMIES, KIND_LABELS, PieceKind
from strat_tools.setups.identity import canonical, hashes

IntArray = npt.NDArray[np.int64]
"""An int64 numpy array (grids, counts, cells)."""
BoolArray = npt.NDArray[np.bool_]
"""A boolean numpy array: one value per setup."""


ROWS: Final = 4
COLS: Final = 10
CELLS: Final = ROWS * COLS
"""A setup area is 4 rows of 10 squares, indexed ``(row - 1) * 10 + (col - 1)`` in the owner's
view: cell 0 is the back-left corner, cells 30..39 the front row."""

EMPTY_CELL: Final = -1
"""Grid value of an empty cell (barrage, duell and ultimate lightning leave some)."""
STRONG_MIN: Final = int(PieceKind.MAJOR)
"""'High-ranked' / 'strong' pieces: major (7) and above."""
WEAK_MAX: Final = int(PieceKind.LIEUTENANT)
"""'Low-ranked' / 'weak' movable pieces: spy (1) to lieutenant (5)."""

# Neighbour codes beside real cell indices 0..39.
EDGE: Final = -1
LAKE_CELL: Final = -2
OPEN: Final = -3


def _neighbour_table() -> IntArray:
    """For each of the 40 cells its 4 orthogonal neighbours: a cell, or edge / lake / open.

    The square in front of the front row lies in the middle rows: a lake there (owner's cols
    3, 4, 7, 8) seals that side, an empty middle square leaves it open to the enemy.
    """
    table = np.empty((CELLS, 4), dtype=np.int64)
    for cell in range(CELLS):
        row, col = divmod(cell, COLS)
        for i, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
            r, c = row + dr, col + dc
            if not 0 <= c < COLS or r < 0:
                table[cell, i] = EDGE
            elif r == ROWS:
                ahead = from_owner_view(ROWS + 1, c + 1, Side.RED)
                table[cell, i] = LAKE_CELL if ahead in LAKES else OPEN
            else:
                table[cell, i] = r * COLS + c
    return table


NEIGHBOUR_CELLS: Final = _neighbour_table()
"""``(40, 4)``: each cell's neighbours, a cell index or -1 edge / -2 lake / -3 open square."""
ADJACENT: Final = np.zeros((CELLS, CELLS), dtype=np.bool_)
"""``ADJACENT[a, b]``: cells a and b are orthogonal neighbours within the setup area."""
for _cell in range(CELLS):
    for _nb in NEIGHBOUR_CELLS[_cell]:
        if _nb >= 0:
            ADJACENT[_cell, _nb] = True
EDGES: Final = np.argwhere(np.triu(ADJACENT))
"""The 66 unordered neighbour pairs of the 4x10 setup area (36 side by side, 30 front-back)."""

LABEL_KIND: Final = {label: kind for kind, label in enumerate(KIND_LABELS)}


# ---------------------------------------------------------------------------------------
# Setups as a grid
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupGrid:
    """All setups as an ``(n, 40)`` int array of kind values (-1 empty) plus one row of context.

    ``meta`` has one row per setup (game_id, side and whatever context columns the input had);
    only setups whose pieces match their variant's fixed army are kept; ``dropped`` counts the
    others (classicfree, malformed setups).
    """

    kinds: IntArray
    meta: pd.DataFrame
    dropped: int

    def count(self, kind: PieceKind, cells: slice = slice(None)) -> IntArray:
        """Pieces of ``kind`` per setup within ``cells`` (a slice of the 40 cells)."""
        return np.asarray((self.kinds[:, cells] == kind).sum(axis=1), dtype=np.int64)

    def where(self, kind: PieceKind) -> IntArray:
        """The cell of the first piece of ``kind`` in each setup (for one-of kinds)."""
        return np.asarray((self.kinds == kind).argmax(axis=1), dtype=np.int64)

    def mirror_ids(self) -> npt.NDArray[np.uint64]:
        """Each setup's mirror fingerprint (:func:`strat_tools.setups.identity.mirror_fingerprints`)
        as its 64-bit integer, ``int(mirror_fingerprint, 16)``: equal for a setup and its
        left-right mirror, 8 bytes a setup (the cluster key of the clustered intervals)."""
        return hashes(canonical((self.kinds + 1).astype(np.uint8)))


def setup_grid(context: pd.DataFrame) -> SetupGrid:
    """Pivot a long setups/context frame (one row per piece) to one grid row per setup.

    Needs columns game_id, side, row, col, piece, variant; keeps the others (first value per
    setup) as context. Setups of variants without a fixed army, or whose pieces do not match
    that army, are dropped and counted.
    """
    fixed = context["variant"].isin(list(ARMIES)).to_numpy(np.bool_)
    other = context.loc[~fixed, ["game_id", "side"]].astype(str).drop_duplicates()
    frame = context.loc[fixed]
    game_codes = pd.factorize(frame["game_id"])[0].astype(np.int64)
    blue = lookup_codes(frame["side"], {"blue": 1}, 0)
    setup_ids = pd.factorize(game_codes * 2 + blue)[0].astype(np.int64)
    n = int(setup_ids.max()) + 1 if len(setup_ids) else 0
    kinds = np.full((n, CELLS), EMPTY_CELL, dtype=np.int64)
    cell = (frame["row"].to_numpy(np.int64) - 1) * COLS + frame["col"].to_numpy(np.int64) - 1
    kind = lookup_codes(frame["piece"], LABEL_KIND, -1)
    ok_row = (cell >= 0) & (cell < CELLS) & (kind >= 0)
    kinds[setup_ids[ok_row], cell[ok_row]] = kind[ok_row]
    _, first = np.unique(setup_ids, return_index=True)
    meta = frame.iloc[first].drop(columns=["row", "col", "piece", "square"], errors="ignore")
    meta = meta.reset_index(drop=True)
    bad_rows = np.bincount(setup_ids, weights=~ok_row, minlength=n)
    rows_per_setup = np.bincount(setup_ids, minlength=n)
    variants = meta["variant"].astype(str).to_numpy()
    valid = _army_matches(kinds, variants, rows_per_setup) & (bad_rows == 0)
    dropped = int((~valid).sum()) + len(other)
    return SetupGrid(kinds[valid], meta[valid].reset_index(drop=True), dropped)


def lookup_codes(column: pd.Series, table: dict[str, int], default: int) -> IntArray:
    """Map a label column to ints, through the categories when it is categorical (fast)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        values = np.array(
            [table.get(str(c), default) for c in column.cat.categories] + [default],
            dtype=np.int64,
        )
        return values[np.asarray(column.cat.codes, dtype=np.int64)]
    mapped = column.astype(object).map(table).fillna(default)
    return np.asarray(mapped, dtype=np.int64)


def _army_matches(kinds: IntArray, variants: npt.NDArray[np.object_], rows: IntArray) -> BoolArray:
    """Whether each setup holds exactly its variant's army, one piece per cell."""
    counts = np.stack([(kinds == k).sum(axis=1) for k in range(len(KIND_LABELS))], axis=1)
    ok = np.zeros(len(kinds), dtype=np.bool_)
    for variant, army in ARMIES.items():
        mine = variants == variant
        ok[mine] = (counts[mine] == np.array(army)).all(axis=1) & (rows[mine] == sum(army))
    return ok
