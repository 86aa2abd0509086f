"""Whole-board figures (matplotlib): any 100 values per square, a position, traffic maps.

The 10x10 board as red sees it (row 1 at the bottom, columns A..K without J), the lakes
drawn; :func:`board_heatmap` colours any 100 values, :func:`position_figure` draws pieces on
their squares, :func:`traffic_figure` draws a :class:`~strat_tools.stats.traffic.Traffic`
count (scout paths, move targets, battles). Draws only: the counts come from
:mod:`strat_tools.stats.traffic`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from strat_tools.core.board import COLUMNS, LAKES
from strat_tools.core.pieces import (
    CODE_KIND,
    CODE_SIDE,
    LAKE,
    Numbering,
    PieceKind,
    check_numbering,
    rank_label,
)
from strat_tools.stats.traffic import Traffic, TrafficMeasure, TrafficView, traffic_counts
from strat_tools.views.setup_area import (
    BLUE_COLOUR,
    LAKE_COLOUR,
    RED_COLOUR,
    piece_title,
    text_colours,
)


def _board_axes(ax: Axes) -> None:
    """Ticks, limits, lakes and home-row colours of a 10x10 board drawn as red sees it."""
    ax.set_xlim(-0.5, 9.5)
    ax.set_ylim(-0.5, 9.5)
    ax.set_xticks(range(10), list(COLUMNS))
    ax.set_yticks(range(10), [str(r) for r in range(1, 11)])
    ax.tick_params(length=0)
    ax.set_aspect("equal")
    for row, tick in enumerate(ax.get_yticklabels(), start=1):
        if row <= 4 or row >= 7:
            tick.set_color(RED_COLOUR if row <= 4 else BLUE_COLOUR)
            tick.set_fontweight("bold")
    ax.set_ylabel("row (red sets up on 1-4, blue on 7-10)")
    for lake in sorted(LAKES):
        row, col = divmod(lake, 10)
        ax.add_patch(
            Rectangle(
                (col - 0.5, row - 0.5),
                1,
                1,
                facecolor=LAKE_COLOUR,
                edgecolor="none",
                gid="lake",
                zorder=3,
            )
        )
    for x in (2.5, 6.5):
        ax.text(x, 4.5, "lake", ha="center", va="center", color="white", zorder=4)


def board_heatmap(
    values: Sequence[float] | np.ndarray,
    *,
    title: str = "",
    label: str = "count",
    cmap: str = "YlOrBr",
    annotate: bool = True,
    decimals: int = 0,
) -> Figure:
    """A 10x10 board coloured by one value per square (index = Gravon square, 0 = A1).

    Lakes are drawn over their squares (their values are ignored); the row numbers of red's
    home rows 1-4 are written in red, blue's 7-10 in blue. The colour scale runs from 0 to the
    largest value on a non-lake square.
    """
    grid = np.asarray(values, dtype=float).reshape(10, 10).copy()
    for lake in LAKES:
        grid.flat[lake] = np.nan
    top = float(np.nanmax(grid)) if np.isfinite(grid).any() else 0.0
    norm = Normalize(vmin=0.0, vmax=max(top, 1e-9))
    colours = colormaps[cmap]
    fig = Figure(figsize=(7.6, 6.6), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(grid, cmap=colours, norm=norm, origin="lower", extent=(-0.5, 9.5, -0.5, 9.5))
    if annotate:
        on_cells = text_colours(colours, norm, grid).ravel()
        for square in range(100):
            if square in LAKES:
                continue
            value = float(grid.flat[square])
            ax.text(
                square % 10,
                square // 10,
                _compact(value, decimals),
                ha="center",
                va="center",
                fontsize="x-small",
                color=str(on_cells[square]),
                gid="cell-label",
                in_layout=False,  # inside the axes: keeps constrained layout fast
            )
    _board_axes(ax)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, shrink=0.85, pad=0.02).set_label(label)
    return fig


def _compact(value: float, decimals: int) -> str:
    """Short cell text: ``'532'``, ``'9.8k'``, ``'123k'``, so every cell fits its square."""
    if abs(value) >= 100_000:
        return f"{value / 1000:.0f}k"
    if abs(value) >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:.{decimals}f}"


def position_figure(
    board: Sequence[int],
    *,
    title: str = "",
    numbering: Numbering = "modern",
    last_move: tuple[int, int] | None = None,
) -> Figure:
    """Draw a position (100 board codes): red and blue pieces with their rank labels.

    ``last_move`` (source, target squares) is drawn as a gold arrow.
    """
    fig = Figure(figsize=(6.4, 6.6), layout="constrained")
    ax = fig.add_subplot()
    ax.add_patch(Rectangle((-0.5, -0.5), 10, 10, facecolor="#e9dfc4", edgecolor="none"))
    for line in np.arange(-0.5, 10, 1.0):
        ax.axhline(line, color="#b8ab88", lw=0.5)
        ax.axvline(line, color="#b8ab88", lw=0.5)
    for square, code in enumerate(board):
        if code != 0 and code != LAKE and square not in LAKES:
            _draw_piece(ax, square, code, numbering)
    if last_move is not None:
        (r0, c0), (r1, c1) = divmod(last_move[0], 10), divmod(last_move[1], 10)
        arrow = {"arrowstyle": "->", "color": "gold", "lw": 2.5}
        ax.annotate("", (c1, r1), (c0, r0), arrowprops=arrow)
    _board_axes(ax)
    ax.set_title(title)
    return fig


def _draw_piece(ax: Axes, square: int, code: int, numbering: Numbering) -> None:
    """One piece: a square in its side's colour with its rank label."""
    row, col = divmod(square, 10)
    colour = RED_COLOUR if CODE_SIDE[code] == 1 else BLUE_COLOUR
    box = Rectangle((col - 0.42, row - 0.42), 0.84, 0.84, facecolor=colour, edgecolor="white")
    box.set_gid("piece")
    ax.add_patch(box)
    label = rank_label(PieceKind(CODE_KIND[code]), check_numbering(numbering))
    ax.text(
        col,
        row,
        label,
        ha="center",
        va="center",
        color="white",
        fontweight="bold",
        gid="piece-label",
    )


def traffic_heatmap(
    moves: pd.DataFrame,
    *,
    piece: str | None = "scout",
    measure: TrafficMeasure = "path",
    view: TrafficView = "board",
    title: str | None = None,
    numbering: Numbering = "modern",
) -> Figure:
    """Whole-board heatmap of :func:`square_traffic`, titled with what and how many.

    A single piece is named with its rank in ``numbering`` (``'Scout (2)'``, classic
    ``'Scout (9)'``), as :func:`setup_heatmap` names it.
    """
    traffic = traffic_counts(moves, piece=piece, measure=measure, view=view)
    return traffic_figure(
        traffic, piece=piece, measure=measure, view=view, title=title, numbering=numbering
    )


def traffic_figure(
    traffic: Traffic,
    *,
    piece: str | None = "scout",
    measure: TrafficMeasure = "path",
    view: TrafficView = "board",
    title: str | None = None,
    numbering: Numbering = "modern",
) -> Figure:
    """:func:`traffic_heatmap` drawn from counts already made (:func:`traffic_counts`)."""
    who = "all pieces" if piece is None else piece_title(piece, numbering)
    what = {
        "path": f"Squares entered by {who}",
        "target": f"Squares {who} moved to",
        "battle": "Where battles happen" + ("" if piece is None else f", {who} attacking"),
    }[measure]
    games, moves = traffic.games, traffic.moves
    unit = ("attack" if measure == "battle" else "move") + ("s" if moves != 1 else "")
    heading = f"{what}: {moves:,} {unit} in {games:,} game{'s' if games != 1 else ''}"
    if view == "owner":
        heading += "\neach mover's own view: blue's moves turned 180°, own side at the bottom"
    label = {"path": "times entered", "target": "moves ending here", "battle": "battles"}
    fig = board_heatmap(
        traffic.counts,
        title=heading if title is None else f"{heading}\n{title}",
        label=label[measure],
    )
    if view == "owner":  # rows are the mover's, not red's and blue's
        fig.axes[0].set_ylabel("row from the mover's back row (own setup on 1-4)")
        for tick in fig.axes[0].get_yticklabels():
            tick.set_color("black")
    return fig
