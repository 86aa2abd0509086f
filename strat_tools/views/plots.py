"""Setup placement maps: where the pieces stand in the setups (heatmaps) and where two
groups' setups differ (difference maps), as matplotlib Figures.

Every function takes DataFrames shaped like the ``setups`` table or the setup context (or
placement frames already counted) and returns a :class:`matplotlib.figure.Figure` built
without pyplot, so nothing here touches a display or global state; notebooks can restyle
the figure, :func:`~strat_tools.views.figure_files.save_figure` writes it atomically.

The 4x10 setup area is drawn in the **owner's view**, as the ``setups`` table stores it
(:mod:`strat_tools.views.setup_area`): the owner's back row (``row`` 1) at the bottom, the
front row (``row`` 4) at the top with the lakes drawn just beyond it, ``col`` 1 (the owner's
left) at the left. Columns are labelled ``A``..``K`` and rows ``1``..``4`` as red sees its
own half; for blue, owner-view ``A1`` is the board's ``K10`` (the board turned 180 degrees,
not mirrored). Red and blue setups therefore pool into one picture.

Entry points: :func:`setup_heatmap` (one piece, ``'all'`` pieces, ``by='won'`` winners
minus losers, or one panel per group) and :func:`difference_heatmap` (any two groups). The
other figures have modules of their own: charts of games, win rates and neighbours in
:mod:`strat_tools.views.charts`, whole-board figures (traffic maps, any 100 values, a
position) in :mod:`strat_tools.views.board_plots`, single setups in
:mod:`strat_tools.views.setup_boards`.

This module draws only: placement shares come from :mod:`strat_tools.stats`; it reads no
game file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from strat_tools.core.choices import PANEL_SCALES
from strat_tools.core.errors import InputError, OptionError, choice
from strat_tools.core.pieces import Numbering, PieceKind
from strat_tools.core.text import count_of
from strat_tools.stats.differences import SIGNIFICANCE_LEVEL, TEST_NAME, square_differences
from strat_tools.stats.frames import Data, setup_context
from strat_tools.stats.setups import piece_placement, piece_placements
from strat_tools.views.setup_area import (
    PIECE_ORDER,
    draw_setup_area,
    percent_label,
    piece_title,
    placement_grid,
    setups_counted,
    signed_label,
)

Variants = str | Sequence[str] | None


def _setup_rows(data: Data, side: str | None = None) -> pd.DataFrame:
    """The setup rows (with game context when ``data`` is a GameSet), one side if asked."""
    frame = data if isinstance(data, pd.DataFrame) else setup_context(data.games, data.setups)
    if side not in (None, "both"):
        frame = frame[frame["side"] == side]
    return frame


def _placement(
    frame: pd.DataFrame, piece: str, variant: Variants = None, by: str | None = None
) -> pd.DataFrame:
    """Placement of one piece over the 40 setup cells, from :mod:`strat_tools.stats`.

    Raises ``ValueError`` when no setup is left to count (an empty picture says nothing).
    """
    return _checked(piece_placement(frame, piece=piece, by=by, variant=variant), variant)


def _checked(placement: pd.DataFrame, variant: Variants) -> pd.DataFrame:
    """``placement``, or ``ValueError`` when it counts no setup."""
    if setups_counted(placement) == 0:
        wanted = "any variant" if variant is None else f"variant {variant}"
        raise OptionError(
            f"no setups to draw for {wanted} (classicfree and invalid games are left out)"
        )
    return placement


def placement_heatmap(
    placement: pd.DataFrame,
    piece: str = "flag",
    *,
    title: str | None = None,
    cmap: str = "YlOrRd",
    numbering: Numbering = "modern",
) -> Figure:
    """Draw a placement frame (``row, col, count, setups, share`` for the 40 cells).

    Each cell is annotated with its share in percent (one decimal): the percentage of setups
    that have ``piece`` on that square. The colour scale runs from 0 to the largest share.
    """
    grid = placement_grid(placement) * 100
    n = setups_counted(placement)
    colours = colormaps[cmap]
    norm = Normalize(vmin=0.0, vmax=max(float(grid.max()), 1e-9))
    labels = [[percent_label(grid[r, c] / 100) for c in range(10)] for r in range(4)]
    fig = Figure(figsize=(8.4, 4.4), layout="constrained")
    ax = fig.add_subplot()
    draw_setup_area(ax, grid, colours, norm, labels)
    ax.set_xlabel("column, from the owner's left (owner's view: A..K as red sees its own half)")
    ax.set_ylabel("row from the owner's back row")
    heading = f"{piece_title(piece, numbering)} placement, n = {n:,} setups"
    ax.set_title(heading if title is None else f"{heading}\n{title}")
    bar = fig.colorbar(ax.images[0], ax=ax, shrink=0.8, pad=0.02)
    bar.set_label(f"% of setups with a {PieceKind.from_label(piece).label} here")
    return fig


PanelScale = Literal["shared", "per-panel"]
MIN_PANEL_SETUPS: Final = 50
"""Panels counting fewer setups are drawn as "too few (n = K)": at 50 setups one setup is
already 2 percentage points of a square, so a smaller panel shows mostly noise."""


@dataclass(frozen=True)
class PanelOptions:
    """How a panel grid is drawn: its colour scale and the fewest setups a panel shows;
    checked where they enter (:meth:`of`).

    >>> PanelOptions.of("per-panel", 20)
    PanelOptions(scale='per-panel', min_setups=20)
    >>> PanelOptions.of("own", 20)
    Traceback (most recent call last):
    ...
    strat_tools.core.errors.OptionError: unknown panel scale 'own'; choose from shared, per-panel
    """

    scale: PanelScale
    min_setups: int

    @classmethod
    def of(cls, scale: object, min_setups: object) -> PanelOptions:
        """The options, or :class:`OptionError` naming what is wrong."""
        checked: PanelScale = choice("panel scale", scale, PANEL_SCALES)  # type: ignore[assignment]
        if isinstance(min_setups, bool) or not isinstance(min_setups, int) or min_setups < 0:
            raise OptionError(
                f"the fewest setups of a panel must be a count >= 0, not {min_setups!r}"
            )
        return cls(checked, min_setups)


PlacementRequest = tuple[str, tuple[str, ...]]
"""A placement frame a setup heatmap draws: (piece, grouping columns)."""


def setup_heatmap_requests(
    piece: str = "flag", *, side: str | None = None, by: str | None = None
) -> list[PlacementRequest]:
    """The placement frames :func:`setup_heatmap` draws for these options, when given them
    counted already (:data:`Placements`).

    A side other than ``both`` is one more grouping (``side``), picked out when drawing; so
    the same frames can be counted from a GameSet or batch by batch
    (:func:`strat_tools.stats.compute_many_streaming`).
    """
    if piece != "all":
        PieceKind.from_label(piece)  # a misspelt piece is an error, not an empty picture
    elif by is not None:
        raise OptionError("piece 'all' already draws twelve panels; group 'by' one piece at a time")
    keys = _placement_keys(side, by)
    return [(p, keys) for p in (PIECE_ORDER if piece == "all" else (piece,))]


def _placement_keys(side: str | None, by: str | None) -> tuple[str, ...]:
    keys = (by,) if by else ()
    return (*keys, "side") if side in ("red", "blue") and by != "side" else keys


Placements = Mapping[PlacementRequest, pd.DataFrame]
"""Placement frames already counted, one per :func:`setup_heatmap_requests` entry."""


def setup_heatmap(
    data: Data | Placements,
    piece: str = "flag",
    *,
    variant: Variants = None,
    side: str | None = None,
    by: str | None = None,
    title: str | None = None,
    cmap: str = "YlOrRd",
    numbering: Numbering = "modern",
    scale: PanelScale = "shared",
    min_setups: int = MIN_PANEL_SETUPS,
) -> Figure:
    """Heatmap of where ``piece`` stands in the setups: the one entry point for all kinds.

    ``data`` is a GameSet, the ``setups`` table or the setup context; ``variant`` and
    ``side`` ('red', 'blue', 'both') filter it. ``piece='all'`` draws twelve panels (a
    grid); ``by='won'`` draws winners minus losers; any other ``by`` (``period``,
    ``variant``, ``year``, ``side``, ``result``) one panel per group. A panel grid uses one
    colour ``scale`` (``'shared'``) or one per panel (``'per-panel'``, :data:`PANEL_SCALES`);
    a panel of fewer than ``min_setups`` setups is drawn as "too few (n = K)". Example::

        fig = setup_heatmap(games, "flag", variant="classic", title="Gravon 2013-2014")
        save_figure(fig, "flag.png")  # strat_tools.views.figure_files

    ``data`` may also be the placement frames already counted (:data:`Placements`: one per
    :func:`setup_heatmap_requests` entry, as :func:`strat_tools.stats.piece_placement`
    gives them, e.g. batch by batch with :func:`strat_tools.stats.compute_many_streaming`):
    they are drawn as they are, and ``variant`` only names the filter in messages.
    """
    requests = setup_heatmap_requests(piece, side=side, by=by)
    panel = PanelOptions.of(scale, min_setups)  # checked before anything is counted
    if isinstance(data, Mapping):
        placements = data
    else:
        keys = requests[0][1]  # every request of one picture groups alike
        rows = _setup_rows(data)
        counted = piece_placements(rows, [p for p, _ in requests], list(keys), variant)
        placements = {(p, keys): counted[p] for p, _ in requests}

    def placement(p: str, won: bool | None = None) -> pd.DataFrame:
        frame = placements[(p, _placement_keys(side, by))]
        if side in ("red", "blue"):
            frame = frame[frame["side"] == side]
            if by != "side":
                frame = frame.drop(columns="side")
        if won is not None:
            frame = frame[frame["won"].astype("boolean").eq(won).fillna(False).to_numpy(bool)]
            frame = frame.drop(columns="won")
        return _checked(frame, variant)

    if by == "won":
        return _difference_figure(
            placement(piece, won=True),
            placement(piece, won=False),
            piece,
            labels=("winners", "losers"),
            title=title,
            cmap="PRGn",
            numbering=numbering,
        )
    if piece == "all":
        return _all_pieces_figure(
            {p: placement(p) for p in PIECE_ORDER},
            title=title,
            cmap=cmap,
            numbering=numbering,
            panel=panel,
        )
    if by is not None:
        return _grouped_figure(
            placement(piece), piece, by, title=title, cmap=cmap, numbering=numbering, panel=panel
        )
    return placement_heatmap(placement(piece), piece, cmap=cmap, title=title, numbering=numbering)


def _small_multiples(
    panels: dict[str, pd.DataFrame],
    cmap: str,
    panel: PanelOptions,
    columns: int = 3,
    *,
    panel_n: bool = True,
) -> tuple[Figure, np.ndarray]:
    """Draw one 4x10 panel per placement frame (integer percent), on one 0..max scale or
    one per panel; a panel of fewer than ``panel.min_setups`` setups says so instead."""
    counts = {name: setups_counted(frame) for name, frame in panels.items()}
    shown = {
        name: placement_grid(frame) * 100
        for name, frame in panels.items()
        if counts[name] >= panel.min_setups
    }
    top = max([float(g.max()) for g in shown.values()] + [1e-9])
    colours = colormaps[cmap]
    rows = -(-len(panels) // columns)
    fig = Figure(figsize=(4.3 * columns + 0.9, 2.15 * rows + 1.0), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, columns, squeeze=False))
    for ax, name in zip(axes.flat, panels, strict=False):
        heading = f"{name}, n = {counts[name]:,}" if panel_n else name
        ax.set_title(heading, fontsize="medium")
        if name not in shown:
            _too_few(ax, counts[name], colours)
            continue
        grid = shown[name]
        own = max(float(grid.max()), 1e-9)
        norm = Normalize(vmin=0.0, vmax=top if panel.scale == "shared" else own)
        labels = [[f"{grid[r, c]:.0f}" for c in range(10)] for r in range(4)]
        draw_setup_area(ax, grid, colours, norm, labels)
        if panel.scale == "per-panel":
            fig.colorbar(ax.images[0], ax=ax, shrink=0.8, pad=0.01).set_label("% (this panel)")
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    drawn = [ax for ax in axes.flat[: len(panels)] if ax.images]
    if panel.scale == "shared" and drawn:
        bar = fig.colorbar(drawn[0].images[0], ax=axes, shrink=0.6, pad=0.01)
        bar.set_label("% of setups (shared scale)")
    return fig, axes


def _too_few(ax: Axes, n: int, colours: Colormap) -> None:
    """An empty setup area marked "too few (n = K)": no colours that would only be noise."""
    empty = np.full((4, 10), np.nan)
    draw_setup_area(ax, empty, colours, Normalize(0.0, 1.0), [[""] * 10 for _ in range(4)])
    ax.images[0].remove()  # nothing to colour: the panel is a note, not a map
    ax.add_patch(
        Rectangle((0.5, 0.5), 10, 4, facecolor="#eeeeee", edgecolor="#999999", gid="too-few")
    )
    ax.text(
        5.5,
        2.5,
        f"too few (n = {n:,})",
        ha="center",
        va="center",
        color="#555555",
        fontsize="large",
        gid="too-few-label",
    )


def _panel_note(panel: PanelOptions, panels: dict[str, pd.DataFrame]) -> str:
    """What the grid's scale is and which panels were left blank, for its title."""
    few = sum(setups_counted(frame) < panel.min_setups for frame in panels.values())
    scale = "one colour scale per panel" if panel.scale == "per-panel" else "one shared scale"
    blank = (
        f"; {count_of(few, 'panel')} with fewer than {panel.min_setups:,} setups left blank"
        if few
        else ""
    )
    return scale + blank


def _all_pieces_figure(
    placements: dict[str, pd.DataFrame],
    *,
    title: str | None,
    cmap: str,
    numbering: Numbering,
    panel: PanelOptions,
) -> Figure:
    panels = {piece_title(piece, numbering): frame for piece, frame in placements.items()}
    fig, _ = _small_multiples(panels, cmap, panel, panel_n=False)
    n = setups_counted(next(iter(panels.values())))
    heading = (
        f"Where each piece stands, n = {count_of(n, 'setup')} (owner's view, back row at "
        f"the bottom; {_panel_note(panel, panels)})"
    )
    fig.suptitle(heading if title is None else f"{heading}\n{title}")
    return fig


def _grouped_figure(
    placement: pd.DataFrame,
    piece: str,
    by: str,
    *,
    title: str | None,
    cmap: str,
    numbering: Numbering,
    panel: PanelOptions,
) -> Figure:
    panels = {
        str(key): group
        for key, group in placement.groupby(by, sort=True, observed=True, dropna=False)
    }
    if not panels:
        raise InputError(f"no setups to group by {by!r}")
    fig, _ = _small_multiples(panels, cmap, panel, columns=min(3, len(panels)))
    total = sum(setups_counted(frame) for frame in panels.values())
    heading = (
        f"{piece_title(piece, numbering)} placement by {by}, n = {count_of(total, 'setup')} "
        f"({_panel_note(panel, panels)})"
    )
    fig.suptitle(heading if title is None else f"{heading}\n{title}")
    return fig


def difference_heatmap(
    group_a: Data,
    group_b: Data,
    piece: str = "flag",
    *,
    labels: tuple[str, str] = ("group A", "group B"),
    variant: Variants = None,
    title: str | None = None,
    cmap: str = "PRGn",
    numbering: Numbering = "modern",
) -> Figure:
    """Share in ``group_a`` minus share in ``group_b`` per cell, in percentage points.

    The diverging scale is centred at 0 and symmetric (``-m..+m``, ``m`` the largest absolute
    difference), so equal colours mean equal gaps on both sides. Green and purple, not red
    and blue, so that no one reads the colours as the two players. Squares whose difference
    is significant (:func:`strat_tools.stats.differences.square_differences`: a
    two-proportion z-test per square, Holm-corrected over the 40 squares, 5% family-wise)
    are outlined in black and their value starred; the figure's bottom line
    (``fig.get_supxlabel()``) names the test, the level, the sample sizes and how many
    squares are marked.
    """
    place_a = _placement(_setup_rows(group_a), piece, variant)
    place_b = _placement(_setup_rows(group_b), piece, variant)
    return _difference_figure(
        place_a, place_b, piece, labels=labels, title=title, cmap=cmap, numbering=numbering
    )


def significance_note(tests: pd.DataFrame, labels: tuple[str, str], n_a: int, n_b: int) -> str:
    """The sentence under a difference map: how many squares are marked, by which test, at
    which level, on how many setups (``tests`` from
    :func:`~strat_tools.stats.differences.square_differences`)."""
    marked = int(tests["significant"].sum())
    test = TEST_NAME.format(m=len(tests))
    found = (
        f"Outlined and starred: {marked:,} of {len(tests):,} squares "
        f"{'differs' if marked == 1 else 'differ'} significantly"
        if marked
        else f"No square of {len(tests):,} differs significantly"
    )
    return (
        f"{found}\n({test}, family-wise level {SIGNIFICANCE_LEVEL:.0%});\n"
        f"n = {count_of(n_a, 'setup')} of {labels[0]}, {count_of(n_b, 'setup')} of {labels[1]}"
    )


def _difference_figure(
    place_a: pd.DataFrame,
    place_b: pd.DataFrame,
    piece: str,
    *,
    labels: tuple[str, str],
    title: str | None,
    cmap: str,
    numbering: Numbering,
) -> Figure:
    diff = (placement_grid(place_a) - placement_grid(place_b)) * 100
    tests = square_differences(place_a, place_b)
    marked = (
        placement_grid(tests.assign(significant=tests["significant"].astype(float)), "significant")
        > 0
    )
    extent = max(float(np.abs(diff).max()), 1e-9)
    norm = Normalize(vmin=-extent, vmax=extent)
    texts = [
        [signed_label(diff[r, c]) + ("*" if marked[r, c] else "") for c in range(10)]
        for r in range(4)
    ]
    fig = Figure(figsize=(8.4, 5.0), layout="constrained")
    ax = fig.add_subplot()
    draw_setup_area(ax, diff, colormaps[cmap], norm, texts)
    for r, c in zip(*np.nonzero(marked), strict=True):  # black and white: seen on any colour
        ax.add_patch(
            Rectangle(
                (c + 0.56, r + 0.56),
                0.88,
                0.88,
                facecolor="none",
                edgecolor="black",
                linewidth=3.2,
                gid="significant",
            )
        )
        ax.add_patch(
            Rectangle(
                (c + 0.62, r + 0.62), 0.76, 0.76, facecolor="none", edgecolor="white", linewidth=1.4
            )
        )
    n_a, n_b = setups_counted(place_a), setups_counted(place_b)
    heading = (
        f"{piece_title(piece, numbering)}: {labels[0]} (n = {n_a:,}) "
        f"minus {labels[1]} (n = {n_b:,}) setups"
    )
    fig.supxlabel(significance_note(tests, labels, n_a, n_b), fontsize="small")
    ax.set_title(heading if title is None else f"{heading}\n{title}")
    ax.set_xlabel("column, from the owner's left (owner's view)")
    ax.set_ylabel("row from the owner's back row")
    bar = fig.colorbar(ax.images[0], ax=ax, shrink=0.8, pad=0.02)
    bar.set_label(f"percentage points (+: more often among {labels[0]})")
    return fig
