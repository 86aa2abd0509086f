"""The HTML/Markdown report: its inputs (reduced in one pass), its sections (corpus, setups,
advice) and the page (:mod:`~strat_tools.report.page`, whose names ``st.report`` offers).
"""

from __future__ import annotations

from strat_tools.report.page import *  # noqa: F403  (the names of its __all__)
from strat_tools.report.page import __all__ as __all__
