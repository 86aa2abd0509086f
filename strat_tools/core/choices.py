"""The names of the library's choices that the command line offers: grouping columns,
setup features, advice views, traffic measures and views, panel scales, report and table
formats. (The statistics are not here: the command line reads their names and help from
the statistics' own modules, ``strat_tools.cli.options.declared_statistics``.)

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
