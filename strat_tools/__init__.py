"""strat-tools: read, replay, validate and analyse Stratego game records.

The layers, each importing only those before it: ``sources`` (paths, folders, globs, zips)
→ ``gravon`` (StraDoS2 XML → :class:`GameRecord`) → ``replay`` (the rules engine) →
``tables`` (Arrow/pandas) → ``stats`` → ``plots``/``report`` → ``cli``.

In a notebook::

    import strat_tools as st
    games = st.read_games("strados2014-*.zip")     # GameSet: .games .setups .moves .diagnostics
    st.stats.piece_placement(games.setups, "flag")
    report = st.validate("data/")                    # every input: valid, invalid or unchecked
"""

from __future__ import annotations

__version__ = "0.1.0"

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Functions named like their modules are bound eagerly: a lazy name would be shadowed by
# the submodule as soon as anything imports it (the import system sets it on the package).
from strat_tools.replay import replay
from strat_tools.validate import validate

if TYPE_CHECKING:
    from strat_tools.dataset import GameSet, read_dataset
    from strat_tools.driver import read_games
    from strat_tools.gravon import parse_record, read_records
    from strat_tools.records import GameRecord
    from strat_tools.replay import Replay
    from strat_tools.rules import RULESETS, RuleSet, get_rules, rules_for
    from strat_tools.validate import ValidationReport

_LAZY = {
    "GameSet": "dataset",
    "read_dataset": "dataset",
    "read_games": "driver",
    "parse_record": "gravon",
    "read_records": "gravon",
    "GameRecord": "records",
    "Replay": "replay",
    "RULESETS": "rules",
    "RuleSet": "rules",
    "get_rules": "rules",
    "rules_for": "rules",
    "ValidationReport": "validate",
}
_SUBMODULES = frozenset(
    {
        "stats",
        "plots",
        "report",
        "advice",
        "tables",
        "generate",
        "writer",
        "board",
        "pieces",
        "sources",
        "gravon",
        "rules",
        "dataset",
        "identity",
        "patterns",
        "filters",
        "selection",
    }
)

__all__ = [
    "RULESETS",
    "GameRecord",
    "GameSet",
    "Replay",
    "RuleSet",
    "ValidationReport",
    "__version__",
    "get_rules",
    "parse_record",
    "read_dataset",
    "read_games",
    "read_records",
    "replay",
    "rules_for",
    "validate",
]


def __getattr__(name: str) -> Any:
    """Public names and submodules, imported on first use (pandas, pyarrow and matplotlib
    load lazily, so the CLI and the workers start fast)."""
    if name in _LAZY:
        return getattr(import_module(f"strat_tools.{_LAZY[name]}"), name)
    if name in _SUBMODULES:
        return import_module(f"strat_tools.{name}")
    raise AttributeError(f"module 'strat_tools' has no attribute {name!r}")
