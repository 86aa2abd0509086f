"""A heatmap of game records in one call: where a piece stands in the setups, or (with
``moves``) where pieces travel and fight on the board, counted batch by batch where the
records are read (flat memory at any size) and drawn.

:func:`heatmap_of_paths` is ``strat-tools heatmap`` as one library call: the command only
parses its options, shows the progress and saves the figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from strat_tools.core.errors import UsageError
from strat_tools.core.records import DEFAULT_VARIANT
from strat_tools.core.text import count_of
from strat_tools.run.options import Run, RunArg
from strat_tools.stats.stream import compute_many_streaming
from strat_tools.stats.traffic import TrafficMeasure, TrafficView, traffic_of_paths
from strat_tools.views import board_plots, plots

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["heatmap_of_paths"]


def heatmap_of_paths(
    paths: Sequence[str],
    piece: str = "flag",
    *,
    variant: str = DEFAULT_VARIANT,
    side: str = "both",
    by: str | None = None,
    moves: TrafficMeasure | None = None,
    view: TrafficView = "board",
    numbering: Any = "modern",
    scale: Any = "shared",
    min_setups: int | None = None,
    title: str | None = None,
    select: Any = None,
    run: RunArg = None,
) -> Figure:
    """The heatmap of ``piece`` (a kind, or ``'all'`` for the twelve as small multiples) in
    the games under ``paths``: by default where it stands in ``variant``'s setups (``side``:
    red's, blue's or both, owner's view; ``by``: one panel per group, ``won`` marking the
    squares where winners and losers differ more than chance; ``scale`` and ``min_setups``
    shape those panels); with ``moves`` (``path``, ``target`` or ``battle``) the 10x10
    board with where pieces travel, end or fight, as the board (``view='board'``) or each
    mover's own view. ``title`` is a line added to the figure's title, which also says how
    many games were synthetic. ``select`` and ``run`` as everywhere (the driver's).

    A ``moves`` map cannot be split ``by`` a group nor shaped by ``scale``/``min_setups``:
    :class:`~strat_tools.core.errors.UsageError`, before anything is read.
    """
    if moves is not None and by is not None:
        raise UsageError(
            "--by groups setup maps only; a --moves map cannot be split by it", option="by"
        )
    if moves is not None and (scale != "shared" or min_setups is not None):
        raise UsageError(
            "--scale and --min-setups shape panel grids of setups; a --moves map has none",
            option="scale",
        )
    given, tally = Run.of(run).counting()
    shown = variant if side == "both" else f"{variant}, {side} side only"
    heading = f"{shown}, {title}" if title else shown
    kind = None if piece == "all" else piece
    if moves is None:
        requests = plots.setup_heatmap_requests(piece, side=side, by=by)
        tables = compute_many_streaming(
            [
                ("placement", {"piece": p, "by": list(keys), "variant": variant})
                for p, keys in requests
            ],
            list(paths),
            select=select,
            run=given,
        )
    else:
        counts = traffic_of_paths(
            list(paths),
            variant=variant,
            side=side,
            piece=kind,
            measure=moves,
            view=view,
            select=select,
            run=given,
        )
    if tally.synthetic:  # the figure says so too, not only the terminal
        heading = f"{heading}\n{count_of(tally.synthetic, 'synthetic game')}"
    if moves is None:
        return plots.setup_heatmap(
            dict(zip(requests, tables, strict=True)),
            piece,
            variant=variant,
            side=side,
            by=by,
            numbering=numbering,
            title=heading,
            scale=scale,
            min_setups=plots.MIN_PANEL_SETUPS if min_setups is None else min_setups,
        )
    return board_plots.traffic_figure(
        counts, piece=kind, measure=moves, view=view, title=heading, numbering=numbering
    )
