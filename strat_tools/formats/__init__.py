"""The game-record formats: Gravon's StraDoS2 XML (:mod:`~strat_tools.formats.gravon_xml`, its
fields and the fast scanner, :mod:`~strat_tools.formats.xml_writer`), the older ``.gsn`` text
records (:mod:`~strat_tools.formats.gsn`, read and written) and the reader seam that turns any
format's bytes into checked records (:mod:`~strat_tools.formats.readers`).

The 40-character setup strings of other projects are :mod:`strat_tools.setups.strings` (re-exported
here as before); OpenSpiel's StraDos3 position string is :mod:`strat_tools.engine.yorktown`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from strat_tools.setups.strings import SETUP_FORMATS, format_setup, parse_setup

__all__ = ["SETUP_FORMATS", "format_setup", "parse_setup"]


def __getattr__(name: str) -> Any:
    """The setup strings' names, imported on first use: every reader import passes through
    this package, and :mod:`strat_tools.setups.strings` brings numpy and pandas, which
    ``import strat_tools`` and the record readers do not need (about 1.4 s of a start-up)."""
    if name in __all__:
        return getattr(import_module("strat_tools.setups.strings"), name)
    raise AttributeError(f"module 'strat_tools.formats' has no attribute {name!r}")
