"""The game-record formats: Gravon's StraDoS2 XML (:mod:`~strat_tools.formats.gravon_xml`, its
fields and the fast scanner, :mod:`~strat_tools.formats.xml_writer`), the older ``.gsn`` text
records (:mod:`~strat_tools.formats.gsn`, read and written) and the reader seam that turns any
format's bytes into checked records (:mod:`~strat_tools.formats.readers`).

Before the floors, ``st.formats`` meant the strings other game-AI code reads; those names
still answer here, imported on first use from where they live now: the 40-character setup
strings of other projects (:mod:`strat_tools.setups.strings`, a floor below) and OpenSpiel's
StraDos3 position string (:mod:`strat_tools.engine.strados3`, on the engine's floor: a
forward for the package's face only, ``tests/test_structure.py``'s ``FACE_FORWARDS``;
nothing inside the package reaches the engine through here).

>>> import strat_tools as st
>>> st.formats.parse_strados3("A" * 100 + " r 0").plies
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from strat_tools.engine.strados3 import StraDos3, parse_strados3, strados3_at, to_strados3
    from strat_tools.setups.strings import SETUP_FORMATS, format_setup, parse_setup

SETUP_STRINGS: Final = ("SETUP_FORMATS", "format_setup", "parse_setup")
"""The setup strings' names, from :mod:`strat_tools.setups.strings`."""
STRADOS3: Final = ("StraDos3", "parse_strados3", "strados3_at", "to_strados3")
"""The StraDos3 names, from :mod:`strat_tools.engine.strados3` (the face's forward)."""

__all__ = [
    "SETUP_FORMATS",
    "StraDos3",
    "format_setup",
    "parse_setup",
    "parse_strados3",
    "strados3_at",
    "to_strados3",
]


def __getattr__(name: str) -> Any:
    """The forwarded names, imported on first use: every reader import passes through this
    package, and neither the setup strings (numpy and pandas, about 1.4 s of a start-up) nor
    the engine are needed by ``import strat_tools`` or the record readers."""
    if name in SETUP_STRINGS:
        from strat_tools.setups import strings

        return getattr(strings, name)
    if name in STRADOS3:
        from strat_tools.engine import strados3  # FACE_FORWARDS in tests/test_structure.py

        return getattr(strados3, name)
    raise AttributeError(f"module 'strat_tools.formats' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The submodules Python lists, and the forwarded names, for tab completion."""
    return sorted({*globals(), *__all__})
