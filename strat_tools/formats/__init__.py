"""The game-record formats: Gravon's StraDoS2 XML (:mod:`~strat_tools.formats.gravon_xml`, its
fields and the fast scanner, :mod:`~strat_tools.formats.xml_writer`), the older ``.gsn`` text
records (:mod:`~strat_tools.formats.gsn`, read and written) and the reader seam that turns any
format's bytes into checked records (:mod:`~strat_tools.formats.readers`).

The 40-character setup strings of other projects are :mod:`strat_tools.setups.strings` (re-exported
here as before); OpenSpiel's StraDos3 position string is :mod:`strat_tools.engine.yorktown`.
"""

from __future__ import annotations

from strat_tools.setups.strings import SETUP_FORMATS, format_setup, parse_setup

__all__ = ["SETUP_FORMATS", "format_setup", "parse_setup"]
