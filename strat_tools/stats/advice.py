"""The rulebooks' setup advice put to the test: one call per view for the CLI, the report
and notebooks.

The tips themselves (:class:`~strat_tools.stats.tips.Tip`,
:func:`~strat_tools.stats.tips.setup_features`)
are :mod:`strat_tools.stats.tips`, the grid of setups :mod:`strat_tools.setups.grid`; their
adoption, win rates (Wilson and clustered 95% intervals) and head-to-head
:mod:`strat_tools.stats.tip_rates`; neighbours and placement entropy
:mod:`strat_tools.stats.arrangement`.
Here: the :data:`VIEWS` of :func:`advice_table` (in memory) and
:func:`advice_table_of_paths` (counted batch by batch where the games are read: the same
table), and :func:`advice_section_data` for the report. The names of those modules are
imported from them.

The input is the setups table joined with game context (``stats.setup_context``). This module
does not read files itself, replay games or draw anything; it does not claim that a tip
*causes* wins (see docs/advice.md for what the comparison can and cannot show).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Final

import pandas as pd

from strat_tools.core.choices import ADVICE_VIEWS
from strat_tools.core.errors import OptionError
from strat_tools.core.pieces import ARMIES
from strat_tools.core.records import (
    ALL_VARIANTS,
    DEFAULT_VARIANT,
    VARIANTS,
    variant_not_covered,
)
from strat_tools.io.sources import Paths
from strat_tools.run.batch_work import Select
from strat_tools.run.driver import reduce_batches
from strat_tools.run.options import RunArg
from strat_tools.setups.grid import setup_grid
from strat_tools.stats.arrangement import (
    adjacency_from_counts,
    adjacency_matrix,
    adjacency_table,
    entropy_from_cells,
    ordered_adjacency,
    ordered_cells,
    placement_cells,
    placement_entropy,
)
from strat_tools.stats.frames import Data, TableSet, setup_frame
from strat_tools.stats.stream import sum_counts
from strat_tools.stats.tip_rates import (
    tip_adoption,
    tip_count_keys,
    tip_counts,
    tip_summary,
    tip_summary_from_counts,
)
from strat_tools.stats.tips import features_from_grid, grid_of, setup_features, tip_catalogue
from strat_tools.tables.dataset import empty_gameset

__all__ = [
    "VIEWS",
    "advice_counts",
    "advice_counts_of_views",
    "advice_section_data",
    "advice_table",
    "advice_table_of_paths",
    "advice_tables_of_paths",
    "finish_advice",
]

VIEWS: Final = ADVICE_VIEWS
"""What :func:`advice_table` can show (:data:`strat_tools.core.choices.ADVICE_VIEWS`)."""

_VIEW_KEYS: Final = {
    "adjacency": ("variant", "piece_a", "piece_b"),
    "entropy": ("variant", "piece", "row", "col"),
    "periods": tuple(tip_count_keys(["variant", "period"])),
    "tips": tuple(tip_count_keys(["variant"])),
}
"""The key columns of each view's counts (the rest add up)."""


def _check_view(view: str, variant: str | None) -> None:
    if view not in VIEWS:
        raise OptionError(f"unknown advice view {view!r}; choose from {', '.join(VIEWS)}")
    if variant is not None and variant not in ARMIES:  # the tips need a fixed army
        if variant in VARIANTS:
            raise OptionError(variant_not_covered(variant, ARMIES, "advice"))
        raise OptionError(f"unknown variant {variant!r}; choose from {', '.join(ARMIES)}")


def advice_counts(
    data: TableSet, view: str, variant: str | None, exclude_invalid: bool = True
) -> pd.DataFrame:
    """One batch's counts for an advice view: tip counts (per setup cluster), neighbour
    counts or placement cells, which add up across batches (top-level: shipped to the
    workers)."""
    if view == "adjacency":
        table = adjacency_table(grid_of(data, variant, exclude_invalid))
        return table[["variant", "piece_a", "piece_b", "setups", "observed"]]
    if view == "entropy":
        scope = ALL_VARIANTS if variant is None else variant
        return placement_cells(setup_frame(data, None, scope, exclude_invalid=exclude_invalid))
    features = setup_features(data, variant, exclude_invalid=exclude_invalid)
    return tip_counts(features, ["variant", "period"] if view == "periods" else ["variant"])


def finish_advice(counts: pd.DataFrame, view: str) -> pd.DataFrame:
    """An advice view's table from its counts (of one batch, or summed over many)."""
    if view == "adjacency":
        table = adjacency_from_counts(ordered_adjacency(counts))
        return table.sort_values(["variant", "ratio"], ascending=[True, False]).reset_index(
            drop=True
        )
    if view == "entropy":
        return entropy_from_cells(ordered_cells(counts))
    by = ["variant", "period"] if view == "periods" else ["variant"]
    return tip_summary_from_counts(counts, by).astype({key: str for key in by})


def advice_table(
    data: Data,
    view: str = "tips",
    variant: str | None = DEFAULT_VARIANT,
    *,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """One advice view as a flat table, for ``strat-tools advice`` (``variant=None``: all):
    the finish of the counts of every setup, as :func:`advice_table_of_paths` computes it
    batch by batch.

    >>> import strat_tools as st
    >>> games = st.read_games("tests/fixtures/gravon/classic-2014.4-17.xml", setups_only=True)
    >>> advice_table(games, "tips", "classic")[["tip", "setups", "followed"]].head(2)
                  tip  setups  followed
    0  flag_bombed_in       2         0
    1    corner_decoy       2         0
    """
    _check_view(view, variant)
    if view == "catalogue":
        return tip_catalogue()
    return finish_advice(advice_counts(data, view, variant, exclude_invalid), view)  # type: ignore[arg-type]


def advice_table_of_paths(
    paths: Paths,
    view: str = "tips",
    variant: str | None = DEFAULT_VARIANT,
    *,
    exclude_invalid: bool = True,
    select: Select | None = None,
    run: RunArg = None,
) -> pd.DataFrame:
    """:func:`advice_table` of the game records under ``paths``, counted batch by batch
    where they are read (tip, neighbour and placement counts add up), so memory does not
    grow with the number of setups."""
    return advice_tables_of_paths(
        paths, [view], variant, exclude_invalid=exclude_invalid, select=select, run=run
    )[view]


def advice_tables_of_paths(
    paths: Paths,
    views: Sequence[str],
    variant: str | None = DEFAULT_VARIANT,
    *,
    exclude_invalid: bool = True,
    select: Select | None = None,
    run: RunArg = None,
) -> dict[str, pd.DataFrame]:
    """Several advice views of the records under ``paths`` in one pass over them (view ->
    table): each view's counts summed batch by batch, then finished, exactly as
    :func:`advice_table_of_paths` computes one."""
    for view in views:
        _check_view(view, variant)
    counted = [view for view in dict.fromkeys(views) if view != "catalogue"]
    held: list[pd.DataFrame | None] = [None] * len(counted)
    if counted:
        work = partial(
            advice_counts_of_views, views=counted, variant=variant, exclude_invalid=exclude_invalid
        )
        for parts in reduce_batches(work, paths, setups_only=True, select=select, run=run):
            held = [
                sum_counts(table, part, _VIEW_KEYS[view])
                for table, part, view in zip(held, parts, counted, strict=True)
            ]
    tables = {"catalogue": tip_catalogue()} if "catalogue" in views else {}
    for view, table in zip(counted, held, strict=True):
        if table is None:
            table = advice_counts(empty_gameset(), view, variant, exclude_invalid)
        tables[view] = finish_advice(table, view)
    return {view: tables[view] for view in views}


def advice_counts_of_views(
    data: TableSet, views: Sequence[str], variant: str | None, exclude_invalid: bool = True
) -> list[pd.DataFrame]:
    """:func:`advice_counts` of one batch for each of ``views`` (top-level: shipped to the
    workers)."""
    return [advice_counts(data, view, variant, exclude_invalid) for view in views]


def advice_section_data(
    data: Data, variant: str = DEFAULT_VARIANT, *, exclude_invalid: bool = True
) -> dict[str, pd.DataFrame]:
    """Everything the report's advice section shows, computed once.

    Keys: ``catalogue`` (tip texts and definitions), ``summary`` (adoption and win rates per
    tip and variant), ``periods`` (adoption per variant and period), ``adjacency`` (long
    table, all variants), ``adjacency_matrix`` (ratios for ``variant``, kinds by kinds),
    ``entropy`` (all variants).
    """
    frame = setup_frame(data, None, ALL_VARIANTS, exclude_invalid=exclude_invalid)
    grid = setup_grid(frame)
    features = features_from_grid(grid)
    neighbours = adjacency_table(grid)
    return {
        "catalogue": tip_catalogue(),
        "summary": tip_summary(features, ["variant"]),
        "periods": tip_adoption(features, ["variant", "period"]),
        "adjacency": neighbours,
        "adjacency_matrix": adjacency_matrix(neighbours, variant),
        "entropy": placement_entropy(frame, exclude_invalid=False),
    }
