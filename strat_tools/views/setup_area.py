"""The pieces every setup picture is drawn with: the 4x10 setup area, its colours and labels.

:func:`draw_setup_area` colours and annotates one 4x10 setup area in the owner's view (back
row at the bottom, the lakes drawn beyond the front row), as :mod:`strat_tools.views.plots` (setup
heatmaps, difference maps, panel grids) and every other setup figure draw it;
:func:`placement_grid` turns a placement frame into the 4x10 array it draws;
:func:`piece_title`, :func:`percent_label` and :func:`signed_label` write the titles and cell
texts the same way everywhere. Draws on an Axes it is given; makes no figure and counts
nothing.

>>> percent_label(0.1234), signed_label(-0.5), signed_label(0.0)
('12.3', '−0.5', '0.0')
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, Normalize
from matplotlib.patches import Rectangle

from strat_tools.core.board import COLUMNS
from strat_tools.core.pieces import Numbering, PieceKind, check_numbering, rank_label

PIECE_ORDER: tuple[str, ...] = (
    "flag",
    "bomb",
    "spy",
    "scout",
    "miner",
    "sergeant",
    "lieutenant",
    "captain",
    "major",
    "colonel",
    "general",
    "marshal",
)
"""The twelve piece labels in the order small multiples are drawn: flag, bomb, then by rank."""

LAKE_COLOUR = "#7fb3d5"
RED_COLOUR = "#c0392b"
BLUE_COLOUR = "#2e59a8"


def placement_grid(placement: pd.DataFrame, column: str = "share") -> np.ndarray:
    """A 4x10 array [row-1, col-1] of one placement column."""
    grid = np.zeros((4, 10))
    rows = placement["row"].to_numpy(dtype=int) - 1
    cols = placement["col"].to_numpy(dtype=int) - 1
    grid[rows, cols] = placement[column].to_numpy(dtype=float)
    return grid


def setups_counted(placement: pd.DataFrame) -> int:
    """The number of setups a placement frame counts (its ``setups`` column)."""
    return int(placement["setups"].max()) if len(placement) else 0


def text_colours(cmap: Colormap, norm: Normalize, values: np.ndarray) -> np.ndarray:
    """Black or white for each of ``values``, whichever reads better on its cell colour: the
    colours of a whole grid in one call of the colour map (a call a cell cost a figure of
    twelve panels about a third of a second)."""
    rgba = np.asarray(cmap(norm(np.asarray(values, dtype=float))))
    luminance = 0.299 * rgba[..., 0] + 0.587 * rgba[..., 1] + 0.114 * rgba[..., 2]
    return np.where(luminance > 0.55, "black", "white")


def piece_title(piece: str, numbering: Numbering = "modern") -> str:
    """``'Marshal (10)'``, ``'Flag (F)'``: the name plus its rank in the chosen numbering."""
    kind = PieceKind.from_label(piece)
    label = rank_label(kind, check_numbering(numbering))
    return f"{kind.label.capitalize()} ({label})"


def piece_label(piece: str, numbering: Numbering = "modern") -> str:
    """A piece name with its rank: ``piece_label('marshal', 'classic') == 'marshal (1)'``.

    Text that names no piece (a placeholder such as ``'–'``) comes back unchanged.
    """
    try:
        kind = PieceKind.from_label(piece)
    except ValueError:
        return piece
    return f"{kind.label} ({rank_label(kind, numbering)})"


def percent_label(share: float, decimals: int = 1) -> str:
    """A share as the cell annotation writes it: ``percent_label(0.1234) == '12.3'``."""
    return f"{share * 100:.{decimals}f}"


def draw_setup_area(
    ax: Axes, grid: np.ndarray, cmap: Colormap, norm: Normalize, labels: list[list[str]]
) -> None:
    """Colour and annotate a 4x10 grid in the owner's view, lakes beyond the front row."""
    ax.imshow(grid, cmap=cmap, norm=norm, origin="lower", extent=(0.5, 10.5, 0.5, 4.5))
    colours = text_colours(cmap, norm, grid)
    for r in range(4):
        for c in range(10):
            ax.text(
                c + 1,
                r + 1,
                labels[r][c],
                ha="center",
                va="center",
                fontsize="small",
                color=str(colours[r, c]),
                gid="cell-label",
                in_layout=False,  # inside the axes: keeps constrained layout fast
            )
    for left in (3, 7):  # the lakes stand in front of columns C-D and G-H
        ax.add_patch(
            Rectangle(
                (left - 0.5, 4.6),
                2,
                0.5,
                facecolor=LAKE_COLOUR,
                edgecolor="none",
                gid="lake",
                clip_on=False,
            )
        )
        ax.text(
            left + 0.5, 4.85, "lake", ha="center", va="center", fontsize="x-small", color="white"
        )
    ax.set_xlim(0.5, 10.5)
    ax.set_ylim(0.5, 5.1)
    ax.set_xticks(range(1, 11), list(COLUMNS))
    ax.set_yticks(range(1, 5), ["1", "2", "3", "4"])
    ax.tick_params(length=0)
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_aspect("equal")


def signed_label(points: float) -> str:
    """A difference as the cell annotation writes it: ``'+1.2'``, ``'\u22120.5'``, ``'0.0'``."""
    text = f"{points:+.1f}"
    if text in ("+0.0", "-0.0"):
        return "0.0"
    return text.replace("-", "\u2212")
