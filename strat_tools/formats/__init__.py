"""Formats other game-AI code reads: OpenSpiel yorktown's StraDos3 state string
(:mod:`strat_tools.formats.yorktown`) and the 40-character human-setup strings of
Ataraxos and stratego_env (:mod:`strat_tools.formats.setups`).

These modules convert boards and setups (flat lists of board codes) to and from text; they
know no game records and replay nothing. Where each format was read off its project is in
docs/observations.md.
"""

from __future__ import annotations

from strat_tools.formats.setups import SETUP_FORMATS, format_setup, parse_setup
from strat_tools.formats.yorktown import StraDos3, parse_strados3, strados3_at, to_strados3

__all__ = [
    "SETUP_FORMATS",
    "StraDos3",
    "format_setup",
    "parse_setup",
    "parse_strados3",
    "strados3_at",
    "to_strados3",
]
