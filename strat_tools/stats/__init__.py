"""Setup and move statistics as pandas DataFrames: placement, bombs, scouts, endings, win rates.

Every function takes either a :class:`~strat_tools.tables.dataset.GameSet` (anything with
``.games``/``.setups``/``.moves`` frames) or the frame it needs, and returns a tidy
DataFrame. ``by`` groups the result by any of ``variant``, ``period``, ``year``, ``side``,
``result`` (``win``/``loss``/``draw``) or ``won``; counts come with the sample size, shares
with it, and win rates with Wilson 95% intervals (:func:`wilson`). Each statistic is
one :class:`Statistic` in the registry (:mod:`strat_tools.stats.registry`); every formula is
in :mod:`strat_tools.stats.formulas`.

Setups are in the owner's view (row 1 = that side's back row, col 1 = that player's left),
so red and blue setups pool. Variants never do: a statistic counts
:data:`~strat_tools.core.records.DEFAULT_VARIANT` (classic) unless told otherwise, several variants
are one group each (a ``variant`` column in every table), and pooling them takes
``pool_variants=True`` (:func:`~strat_tools.stats.frames.scope_variants` is the rule).
By default, setup statistics leave out ``classicfree`` (any army on any square) and every
statistic leaves out ``invalid`` games; both are parameters.

These functions read no files, replay nothing and draw nothing: they only count what the
tables (:mod:`strat_tools.tables.build`) hold. The one exception is :func:`compute_streaming`
(:mod:`strat_tools.stats.stream`): it reads game records batch by batch and sums the setup
statistics' counts, so their memory stays flat for any number of games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import pandas as pd

from strat_tools.core.choices import GROUPINGS
from strat_tools.core.pieces import parse_piece
from strat_tools.core.records import ALL_VARIANTS, DEFAULT_VARIANT, parse_variant
from strat_tools.stats.formulas import wilson
from strat_tools.stats.frames import (
    CONTEXT_COLUMNS,
    SETUP_COLS,
    SETUP_ROWS,
    By,
    Data,
    JoinedTables,
    TableSet,
    game_frame,
    move_context,
    move_frame,
    setup_context,
    setup_frame,
)
from strat_tools.stats.registry import STATISTICS as REGISTRY
from strat_tools.stats.registry import Options, Statistic, get_statistic, register
from strat_tools.stats.setups import (
    SETUP_FEATURES,
    bomb_placement,
    bombs_next_to_flag,
    flag_enclosure,
    flag_placement,
    flag_surroundings,
    piece_by_line,
    piece_placement,
    piece_placements,
    placement_counts,
    win_rate,
)

# isort: split
# The setup statistics register first: the registry (and --stat) lists them first.
from strat_tools.stats.play import (
    endings,
    first_scout_move,
    game_lengths,
    scout_attacks,
    scout_distances,
    scout_usage,
    scouts_surviving,
)

__all__ = [
    "ALL_VARIANTS",
    "CONTEXT_COLUMNS",
    "DEFAULT_VARIANT",
    "GAME_STATISTICS",
    "GROUPINGS",
    "MOVE_STATISTICS",
    "SETUP_COLS",
    "SETUP_FEATURES",
    "SETUP_ROWS",
    "SETUP_STATISTICS",
    "STATISTICS",
    "By",
    "Data",
    "JoinedTables",
    "Options",
    "Statistic",
    "TableSet",
    "bomb_placement",
    "bombs_next_to_flag",
    "compute",
    "compute_many_streaming",
    "compute_streaming",
    "endings",
    "first_scout_move",
    "flag_enclosure",
    "flag_placement",
    "flag_surroundings",
    "game_frame",
    "game_lengths",
    "get_statistic",
    "intervals",
    "move_context",
    "move_frame",
    "openings",
    "piece_by_line",
    "piece_placement",
    "piece_placements",
    "placement_counts",
    "register",
    "repeats",
    "scout_attacks",
    "scout_distances",
    "scout_usage",
    "scouts_surviving",
    "setup_context",
    "setup_frame",
    "wilson",
    "win_rate",
]

# --- one entry point by name (the CLI's --stat): the registry ---------------------------------

STATISTICS: Final = REGISTRY
"""Every statistic by name (:data:`strat_tools.stats.registry.STATISTICS`)."""
SETUP_STATISTICS: Final = tuple(name for name, s in STATISTICS.items() if s.needs == "setups")
"""Built-in statistics that need only setups (reading them never pays for a replay)."""
GAME_STATISTICS: Final = tuple(name for name, s in STATISTICS.items() if s.needs == "games")
MOVE_STATISTICS: Final = tuple(name for name, s in STATISTICS.items() if s.needs == "moves")


def compute(
    name: str,
    data: TableSet,
    *,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    piece: str = "flag",
    feature: str = "flag_back_row",
    include_classicfree: bool = False,
    pool_variants: bool = False,
) -> pd.DataFrame:
    """Compute the statistic ``name`` (one of :data:`STATISTICS`) on a GameSet: the finish
    of its count of everything.

    ``piece`` applies to placement, rows and columns; ``feature`` to win-rate. Every table
    starts with ``variant``: with no ``variant`` named, :data:`DEFAULT_VARIANT` alone (every
    variant, one group each, with ``by="variant"`` or ``variant="all"``); several variants
    are one group each, pooled only with ``pool_variants=True``
    (:class:`~strat_tools.stats.registry.Options`).

    >>> compute("rows", games, by="variant", piece="flag")  # doctest: +SKIP
    """
    # A player's spelling ('Flag', 'F', 'Classic') is taken; an unknown name is an error,
    # never a table of zeros.
    piece = parse_piece(piece).label
    if variant is not None:
        names = [variant] if isinstance(variant, str) else list(variant)
        named = [v if v == ALL_VARIANTS else parse_variant(v) for v in names]
        variant = named[0] if isinstance(variant, str) else named
    return get_statistic(name).compute(
        data,
        by=by,
        variant=variant,
        piece=piece,
        feature=feature,
        include_classicfree=include_classicfree,
        pool_variants=pool_variants,
    )


# Last: stream.py counts with the registry above, batch by batch; intervals and repeats are
# submodules a notebook reaches as ``st.stats.repeats`` (and ``dir(st.stats)`` lists).
from strat_tools.stats import intervals, openings, repeats  # noqa: E402
from strat_tools.stats.stream import compute_many_streaming, compute_streaming  # noqa: E402
