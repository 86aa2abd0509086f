"""The names of the library's choices that the command line offers: grouping columns,
setup features, the statistics and their one-line help, advice views, traffic measures
and views, panel scales, report and table formats.

Each is defined here, once, and taken from here by the module that acts on it
(``strat_tools.stats.frames`` groups by :data:`GROUPINGS`, ``strat_tools.report.page``
writes :data:`REPORT_FORMATS`, ...). This module imports nothing, so the command line
builds its options and shows its ``--help`` without loading pandas, NumPy or matplotlib
with the modules that do the work (issue 36); ``tests/test_startup_imports.py`` holds
every command's ``--help`` to it.

>>> GROUPINGS[:2], REPORT_FORMATS
(('variant', 'period'), ('html', 'md'))
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ADVICE_VIEWS",
    "GROUPINGS",
    "PANEL_SCALES",
    "REPORT_FORMATS",
    "SETUP_FEATURE_NAMES",
    "STATISTIC_HELP",
    "TABLE_FORMATS",
    "TRAFFIC_MEASURES",
    "TRAFFIC_VIEWS",
]

GROUPINGS: Final = ("variant", "period", "year", "side", "result", "won")
"""The columns a statistic can be grouped ``by``."""

SETUP_FEATURE_NAMES: Final = (
    "flag_back_row",
    "flag_corner",
    "flag_edge_column",
    "flag_enclosed",
    "bombs_next_to_flag",
)
"""The setup features a win rate can be split by (``strat_tools.stats.setups.SETUP_FEATURES``
computes each)."""

STATISTIC_HELP: Final[dict[str, str]] = {
    "flag": "the flag per square of the setup area",
    "bombs": "bombs per square of the setup area",
    "placement": "--piece per square of the setup area",
    "rows": "--piece per row of the setup area",
    "columns": "--piece per column of the setup area",
    "bombs-next-to-flag": "how many bombs touch the flag (0..4)",
    "flag-enclosed": "how often bombs, edges and lakes close the flag in",
    "win-rate": "win rate of setups with and without --feature, Wilson 95% intervals",
    "endings": "how games end, with their lengths",
    "lengths": "game length in plies: mean, median, p10, p90",
    "scouts": "how much scouts move: shares of moves, long moves, attacks",
    "scout-distances": "how far scouts go, in squares",
    "scout-attacks": "what scouts attack, and how often they win",
    "first-scout": "when each side first moves a scout",
    "scouts-left": "how many scouts each side still has at the end",
}
"""The statistics the package registers (``strat_tools.stats.registry.STATISTICS``), in
their order, each with its one-line help: the registry's entries take their help from
here. A statistic registered later (a notebook's) is in the registry only."""

ADVICE_VIEWS: Final = ("tips", "periods", "adjacency", "entropy", "catalogue")
"""What ``strat_tools.stats.advice.advice_table`` can show: per-tip summary, adoption by
period, neighbour ratios, placement entropy, the tip texts."""

TRAFFIC_MEASURES: Final = ("path", "target", "battle")
"""What a traffic map counts: squares entered, end squares, or battles."""

TRAFFIC_VIEWS: Final = ("board", "owner")
"""As red sees the board, or each mover's own view (blue's moves turned 180 degrees)."""

PANEL_SCALES: Final = ("shared", "per-panel")
"""Colour scales of a panel grid: one for all panels (compare panels), or one per panel
(see each panel's pattern, however few setups it has compared with the others)."""

REPORT_FORMATS: Final = ("html", "md")
"""The report's formats: one self-contained HTML page, or Markdown."""

TABLE_FORMATS: Final = ("parquet", "csv")
"""Export formats of the tables."""
