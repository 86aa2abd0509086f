"""Setup and move statistics as pandas DataFrames: placement, bombs, scouts, endings, win rates.

Every function takes either a :class:`~strat_tools.dataset.GameSet` (anything with
``.games``/``.setups``/``.moves`` frames) or the frame it needs, and returns a tidy
DataFrame. ``by`` groups the result by any of ``variant``, ``period``, ``year``, ``side``,
``result`` (``win``/``loss``/``draw``) or ``won``; counts come with the sample size, shares
with it, and win rates with Wilson 95% intervals (:func:`wilson_interval`).

Setups are in the owner's view (row 1 = that side's back row, col 1 = that player's left),
so red and blue setups pool. By default, setup statistics leave out ``classicfree`` (any
army on any square) and every statistic leaves out ``invalid`` games; both are parameters.

These functions read no files, replay nothing and draw nothing: they only count what the
tables (:mod:`strat_tools.tables`) hold. The one exception is :func:`compute_streaming`
(:mod:`strat_tools.stats.stream`): it reads game records batch by batch and sums the setup
statistics' counts, so their memory stays flat for any number of games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import pandas as pd

from strat_tools.pieces import parse_piece
from strat_tools.records import parse_variant
from strat_tools.stats.frames import (
    CONTEXT_COLUMNS,
    GROUPINGS,
    SETUP_COLS,
    SETUP_ROWS,
    By,
    Data,
    TableSet,
    game_frame,
    move_context,
    move_frame,
    setup_context,
    setup_frame,
    wilson_interval,
)
from strat_tools.stats.play import (
    endings,
    first_scout_move,
    game_lengths,
    scout_attacks,
    scout_distances,
    scout_usage,
    scouts_surviving,
)
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
    win_rate,
)

__all__ = [
    "CONTEXT_COLUMNS",
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
    "move_context",
    "move_frame",
    "piece_by_line",
    "piece_placement",
    "piece_placements",
    "scout_attacks",
    "scout_distances",
    "scout_usage",
    "scouts_surviving",
    "setup_context",
    "setup_frame",
    "wilson_interval",
    "win_rate",
]

# --- one entry point by name (the CLI's --stat) ---------------------------------------------

SETUP_STATISTICS: Final = (
    "flag",
    "bombs",
    "placement",
    "rows",
    "columns",
    "bombs-next-to-flag",
    "flag-enclosed",
    "win-rate",
)
"""Statistics that need only setups (reading them never pays for a replay)."""
GAME_STATISTICS: Final = ("endings", "lengths")
MOVE_STATISTICS: Final = (
    "scouts",
    "scout-distances",
    "scout-attacks",
    "first-scout",
    "scouts-left",
)
STATISTICS: Final = (*SETUP_STATISTICS, *GAME_STATISTICS, *MOVE_STATISTICS)
"""Every statistic :func:`compute` knows, by name."""


def compute(
    name: str,
    data: TableSet,
    *,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    piece: str = "flag",
    feature: str = "flag_back_row",
    include_classicfree: bool = False,
) -> pd.DataFrame:
    """Compute the statistic ``name`` (one of :data:`STATISTICS`) on a GameSet.

    ``piece`` applies to placement, rows and columns; ``feature`` to win-rate.

    >>> compute("rows", games, by="variant", piece="flag")  # doctest: +SKIP
    """
    # A player's spelling ('Flag', 'F', 'Classic') is taken; an unknown name is an error,
    # never a table of zeros.
    piece = parse_piece(piece).label
    if variant is not None:
        variant = (
            parse_variant(variant)
            if isinstance(variant, str)
            else [parse_variant(v) for v in variant]
        )
    setup_options = {"include_classicfree": include_classicfree}
    setup_stats: dict[str, Callable[[], pd.DataFrame]] = {
        "flag": lambda: flag_placement(data, by, variant=variant, **setup_options),
        "bombs": lambda: bomb_placement(data, by, variant=variant, **setup_options),
        "placement": lambda: piece_placement(data, piece, by, variant, **setup_options),
        "rows": lambda: piece_by_line(data, piece, "row", by, variant, **setup_options),
        "columns": lambda: piece_by_line(data, piece, "col", by, variant, **setup_options),
        "bombs-next-to-flag": lambda: bombs_next_to_flag(data, by, variant, **setup_options),
        "flag-enclosed": lambda: flag_enclosure(data, by, variant, **setup_options),
        "win-rate": lambda: win_rate(data, feature, by, variant, **setup_options),
        "scouts-left": lambda: scouts_surviving(data, by, variant, **setup_options),
    }
    other_stats: dict[str, Callable[..., pd.DataFrame]] = {
        "endings": endings,
        "lengths": game_lengths,
        "scouts": scout_usage,
        "scout-distances": scout_distances,
        "scout-attacks": scout_attacks,
        "first-scout": first_scout_move,
    }
    if name in setup_stats:
        return setup_stats[name]()
    if name in other_stats:
        return other_stats[name](data, by, variant)
    raise ValueError(f"unknown statistic {name!r}; choose from {', '.join(STATISTICS)}")


# Last: stream.py counts with compute() above, batch by batch.
from strat_tools.stats.stream import compute_many_streaming, compute_streaming  # noqa: E402
