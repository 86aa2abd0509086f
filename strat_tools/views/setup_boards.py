"""Pictures of whole setups: the most played setups as 4x10 boards, one panel each.

Each panel draws one setup in its owner's view, as :mod:`strat_tools.views.plots` draws every
setup area: the back row (row 1) at the bottom, the front row at the top with the lakes'
columns marked above it, column 1 (the owner's left) at the left; bombs and the flag
shaded. The panel's title says how often it was played and how it did, with both
intervals (:mod:`strat_tools.stats.intervals`); when no setup in the table was played more
than once, the figure's title says so. Takes the table of
:func:`strat_tools.stats.repeats.common_setups`; computes nothing.
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from strat_tools.core.text import count_of
from strat_tools.setups.identity import BOARD_SYMBOLS, setup_from_letters

_SHADE: Final = {1: "#8c8c8c", 12: "#e8b64c"}
"""Fill of bomb (byte 1) and flag (byte 12) squares; the rest stay white."""
LAKE_COLUMNS: Final = (2, 3, 6, 7)
"""0-based columns of the lakes just beyond the front row."""


def _percent(value: Any) -> str:
    return (
        "n/a"
        if value is None or (isinstance(value, float) and math.isnan(value))
        else (f"{100 * float(value):.0f}")
    )


def _panel_title(row: pd.Series) -> str:
    rate = (
        f"win {_percent(row['win_rate'])}% [{_percent(row['ci_low'])}, {_percent(row['ci_high'])}]"
        f", clustered [{_percent(row['cluster_ci_low'])}, {_percent(row['cluster_ci_high'])}]"
    )
    return (
        f"#{row['rank']} {row['fingerprint']}: played {count_of(int(row['count']), 'time')}, "
        f"{row['wins']}-{row['draws']}-{row['losses']}\n{rate}"
    )


def _draw_board(ax: Any, code: np.ndarray[Any, Any]) -> None:
    grid = code.reshape(4, 10)
    for row in range(4):
        for col in range(10):
            value = int(grid[row, col])
            ax.add_patch(_square(col, row, _SHADE.get(value, "white")))
            label = "" if value == 0 else BOARD_SYMBOLS[value - 1] if value <= 12 else "#"
            ax.text(col + 0.5, row + 0.5, label, ha="center", va="center", fontsize=9)
    for col in LAKE_COLUMNS:
        ax.add_patch(_square(col, 4, "#9ecae1", height=0.35))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 4.4)
    ax.set_aspect("equal")
    ax.set_xticks(np.arange(10) + 0.5, list("ABCDEFGHIK"), fontsize=7)
    ax.set_yticks(np.arange(4) + 0.5, ["1", "2", "3", "4"], fontsize=7)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)


def _square(col: int, row: int, colour: str, height: float = 1.0) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((col, row), 1, height, facecolor=colour, edgecolor="#555555", linewidth=0.6)


def common_setups_figure(table: pd.DataFrame, *, title: str = "", columns: int = 2) -> Figure:
    """The setups of ``table`` (rows of :func:`~strat_tools.stats.repeats.common_setups`)
    as boards, most played first, ``columns`` panels a row."""
    count = max(1, len(table))
    rows = math.ceil(count / columns)
    fig = Figure(figsize=(5.2 * columns, 2.9 * rows + 0.6), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False)
    for ax, (_, row) in zip(axes.ravel(), table.iterrows(), strict=False):
        _draw_board(ax, setup_from_letters(str(row["setup"]).replace("_", "A")))
        ax.set_title(_panel_title(row), fontsize=8)
    for ax in axes.ravel()[len(table) :]:
        ax.set_visible(False)
    if not len(table):
        axes[0, 0].set_visible(True)
        axes[0, 0].text(0.5, 0.5, "no setups", ha="center", va="center")
        axes[0, 0].set_axis_off()
    heading = (
        title or "Most played setups (owner's view: back row at the bottom; lakes beyond row 4)"
    )
    if len(table) and int(table["count"].max()) < 2:  # a "most played" list of singletons
        heading += "\nno setup here was played more than once: each of these was played once"
    fig.suptitle(heading, fontsize=10)
    return fig
