"""The game-record formats: Gravon's StraDoS2 XML (:mod:`~strat_tools.formats.gravon_xml`, its
fields and the fast scanner, :mod:`~strat_tools.formats.xml_writer`), the older ``.gsn`` text
records (read by :mod:`~strat_tools.formats.gsn`, written by
:mod:`~strat_tools.formats.gsn_writer`) and the reader seam that turns any format's bytes into
checked records (:mod:`~strat_tools.formats.readers`).

This package is also the face of the 40-character setup strings other projects load
(``st.formats.format_setup``; they live in :mod:`strat_tools.setups.strings`, a floor below),
imported on first use; OpenSpiel's StraDos3 position string is the engine's
(:mod:`strat_tools.engine.encodings.strados3`).

>>> import strat_tools as st
>>> len(st.formats.parse_setup("F" + "B" * 39, 1, "owner"))  # a board of 100 squares
100
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from strat_tools.setups.strings import SETUP_FORMATS, format_setup, parse_setup

SETUP_STRINGS: Final = ("SETUP_FORMATS", "format_setup", "parse_setup")
"""The setup strings' names, from :mod:`strat_tools.setups.strings`."""

__all__ = ["SETUP_FORMATS", "format_setup", "parse_setup"]


def __getattr__(name: str) -> Any:
    """The setup strings' names, imported on first use: every reader import passes through
    this package, and the setup strings (numpy and pandas, about 1.4 s of a start-up) are not
    needed by ``import strat_tools`` or the record readers."""
    if name in SETUP_STRINGS:
        from strat_tools.setups import strings

        return getattr(strings, name)
    raise AttributeError(f"module 'strat_tools.formats' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The submodules Python lists, and the forwarded names, for tab completion."""
    return sorted({*globals(), *__all__})
