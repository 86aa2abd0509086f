"""Charts of games, win rates, neighbours and the win model (not board or setup pictures):
the share of games per length, win rates with their intervals, the kind-by-kind neighbour
ratios and the win model's reliability, as matplotlib Figures built without pyplot.

Draws only: the numbers come from :mod:`strat_tools.stats`; setup placement maps are
:mod:`strat_tools.views.plots`'s, whole-board figures :mod:`strat_tools.views.board_plots`'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from strat_tools.core.pieces import Numbering
from strat_tools.views.setup_area import LAKE_COLOUR, piece_title, text_colours

__all__ = [
    "ADJACENCY_LIMIT",
    "adjacency_figure",
    "game_length_histogram",
    "reliability_figure",
    "win_rate_chart",
]


def game_length_histogram(games: pd.DataFrame, *, bin_width: int = 50) -> Figure:
    """Share of games per length bin (plies), one step line per variant; invalid games out.

    Each variant is normalised to its own number of games, so small variants stay visible;
    the legend names each variant's n and median. The x axis stops at the 99th percentile.
    """
    frame = games.loc[games["status"].astype(str) != "invalid", ["variant", "plies"]]
    plies = frame["plies"].to_numpy(dtype=float)
    top = float(np.percentile(plies, 99)) if len(plies) else float(bin_width)
    edges = np.arange(0, top + bin_width, bin_width)
    fig = Figure(figsize=(8.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    for variant, group in frame.groupby(frame["variant"].astype(str), sort=True):
        values = group["plies"].to_numpy(dtype=float)
        counts, _ = np.histogram(values, bins=edges)
        share = counts / len(values) * 100
        label = f"{variant} (n = {len(values):,}, median {np.median(values):.0f})"
        ax.stairs(share, edges, label=label, linewidth=1.8)
    ax.set_xlabel(f"game length in plies (bins of {bin_width}; one ply = one player's move)")
    ax.set_ylabel("% of that variant's games")
    ax.set_title(f"Game lengths, n = {len(frame):,} games (invalid games left out)")
    ax.set_xlim(0, edges[-1])
    ax.legend(fontsize="small")
    return fig


def win_rate_chart(rates: pd.DataFrame, *, title: str = "") -> Figure:
    """Win rates as points with their 95% intervals, one line per row, 50% marked.

    ``rates`` has columns ``label``, ``win_rate``, ``ci_low``, ``ci_high`` and ``setups``
    (as :func:`strat_tools.stats.win_rate` gives them, with a label added); each line is
    labelled with its n, so a wide interval explains itself.
    """
    fig = Figure(figsize=(8.4, 0.42 * len(rates) + 1.3), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(rates))[::-1]
    rate = rates["win_rate"].to_numpy(dtype=float) * 100
    low = rate - rates["ci_low"].to_numpy(dtype=float) * 100
    high = rates["ci_high"].to_numpy(dtype=float) * 100 - rate
    ax.errorbar(rate, y, xerr=[low, high], fmt="o", color="#333", ecolor="#888", capsize=3)
    ax.axvline(50, color=LAKE_COLOUR, lw=1.5, zorder=0)
    labels = [
        f"{label}  (n = {n:,})" for label, n in zip(rates["label"], rates["setups"], strict=True)
    ]
    ax.set_yticks(y, labels)
    ax.set_xlabel("win rate, % (bars: Wilson 95% interval; line: 50%)")
    ax.set_title(title)
    return fig


ADJACENCY_LIMIT = 4.0
"""The colour scale of :func:`adjacency_figure` runs from 1/4 to 4 times chance; beyond
that the colour saturates (the cell text still gives the ratio)."""


def adjacency_figure(
    matrix: pd.DataFrame, *, title: str, numbering: Numbering = "modern"
) -> Figure:
    """A kind-by-kind heatmap of neighbour ratios (observed / expected), centred at 1.

    ``matrix`` is :func:`strat_tools.stats.advice.adjacency_matrix`: piece labels on both axes,
    NaN where chance gives no pair (a single spy has no spy beside it). The scale is
    logarithmic and symmetric (half as often looks as strong as twice as often): red above
    chance, blue below; grey cells have no expectation. Each cell is annotated with its
    ratio; axes name each piece with its rank in ``numbering``.
    """
    labels = [str(label) for label in matrix.index]
    ratios = matrix.to_numpy(dtype=float)
    norm = LogNorm(vmin=1 / ADJACENCY_LIMIT, vmax=ADJACENCY_LIMIT)
    cmap = colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")
    shown = np.clip(ratios, 1 / ADJACENCY_LIMIT, ADJACENCY_LIMIT)  # 0 would be off a log scale
    fig = Figure(figsize=(8.6, 7.4), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, norm=norm)
    on_cells = text_colours(cmap, norm, shown)
    for (row, col), ratio in np.ndenumerate(ratios):
        text = "–" if np.isnan(ratio) else f"{ratio:.2f}"
        colour = "black" if np.isnan(ratio) else str(on_cells[row, col])
        ax.text(
            col,
            row,
            text,
            ha="center",
            va="center",
            fontsize="x-small",
            color=colour,
            gid="cell-label",
            in_layout=False,
        )
    names = [piece_title(label, numbering) for label in labels]
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.tick_params(length=0)
    ax.set_title(title)
    ticks = [0.25, 0.5, 1.0, 2.0, 4.0]
    bar = fig.colorbar(image, ax=ax, shrink=0.85, pad=0.02, ticks=ticks)
    bar.ax.minorticks_off()  # a log axis labels 3×10⁰ and the like otherwise
    bar.ax.set_yticks(ticks, ["¼", "½", "1", "2", "4"])
    bar.set_label("observed / expected neighbour pairs (log scale; 1 = chance)")
    return fig


def reliability_figure(reliability: pd.DataFrame, scores: pd.DataFrame) -> Figure:
    """The win model's reliability: per probability bin the mean predicted chance against
    the observed share of wins with its 95% interval clustered by game (rows per bin
    written beside each point), the diagonal for a
    perfect model, and the Brier scores of the model and its two baselines in the title."""
    fig = Figure(figsize=(5.2, 5.0), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="#999", lw=0.8, ls="--", label="perfectly calibrated")
    shown = reliability[reliability["rows"] > 0]
    ax.plot(shown["predicted"], shown["observed"], "o-", color="#b22", label="win model")
    if "observed_low" in shown:  # 95% intervals clustered by game
        low = (shown["observed"] - shown["observed_low"]).fillna(0).clip(lower=0)
        high = (shown["observed_high"] - shown["observed"]).fillna(0).clip(lower=0)
        ax.errorbar(
            shown["predicted"], shown["observed"], yerr=[low, high], fmt="none", ecolor="#b22"
        )
    columns = (shown[c].tolist() for c in ("rows", "predicted", "observed"))
    for rows, x, y in zip(*columns, strict=True):
        ax.annotate(
            f"{int(rows):,}",
            (float(x), float(y)),
            textcoords="offset points",
            xytext=(4, -10),
            fontsize=7,
            color="#555",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted chance that the side to move wins (bin mean)")
    ax.set_ylabel("observed share of wins")
    brier = ", ".join(f"{r.model} {r.brier:.4f}" for r in scores.itertuples())
    first = scores.iloc[0]
    ax.set_title(
        f"Reliability on {int(first.games):,} games, {int(first.rows):,} rows\nBrier: {brier}",
        fontsize=9,
    )
    ax.legend(loc="upper left", fontsize=8)
    return fig
