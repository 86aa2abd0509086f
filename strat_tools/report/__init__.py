"""The HTML/Markdown report: its inputs (reduced in one pass), its sections (corpus, setups,
advice) and the page (:mod:`~strat_tools.report.page`, re-exported here).
"""

from __future__ import annotations

from strat_tools.report.page import (
    REPORT_FORMATS,
    REPORT_SECTIONS,
    ReportSection,
    SectionInputs,
    advice_section,
    build_sections,
    numbering_note,
    piece_label,
    report_text,
    side_win_rates,
    write_report,
)

__all__ = [
    "REPORT_FORMATS",
    "REPORT_SECTIONS",
    "ReportSection",
    "SectionInputs",
    "advice_section",
    "build_sections",
    "numbering_note",
    "piece_label",
    "report_text",
    "side_win_rates",
    "write_report",
]
