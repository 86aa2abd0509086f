"""strat-tools: read, replay, validate and analyse Stratego game records.

The layers, each importing only those before it: ``sources`` (paths, folders, globs, zips;
which names are records it asks the format registry, ``record_formats``) → the format parsers
(``gravon`` for StraDoS2 XML, ``gsn`` for the older text records) → ``checks`` → ``readers``
(any format's bytes → checked :class:`GameRecord`) → ``replay`` (the rules engine) →
``tables`` (Arrow/pandas) → ``stats`` → ``plots``/``report`` → ``cli``.

In a notebook::

    import strat_tools as st
    games = st.read_games("strados2014-*.zip")     # GameSet: .games .setups .moves .diagnostics
    st.stats.piece_placement(games.setups, "flag")
    report = st.validate("data/")                    # every input: valid, invalid or unchecked
"""

from __future__ import annotations

__version__ = "0.1.0"

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

# Functions named like their modules are bound eagerly: a lazy name would be shadowed by
# the submodule as soon as anything imports it (the import system sets it on the package).
from strat_tools.replay import replay
from strat_tools.validate import validate

if TYPE_CHECKING:
    from strat_tools.boardimage import write_board_image
    from strat_tools.dataset import GameSet, read_dataset
    from strat_tools.driver import read_games
    from strat_tools.engine.knowledge import Knowledge, knowledge
    from strat_tools.engine.position import Position
    from strat_tools.engine.svg import board_svg
    from strat_tools.errors import IllegalMove
    from strat_tools.events import read_events
    from strat_tools.readers import parse_record, read_game, read_records
    from strat_tools.records import GameRecord
    from strat_tools.replay import Replay, board_at
    from strat_tools.rules import RULESETS, RuleSet, get_rules, rules_for
    from strat_tools.stepping import positions
    from strat_tools.validate import ValidationReport
    from strat_tools.viewer import write_viewer

_LAZY = {
    "write_board_image": "boardimage",
    "Knowledge": "engine.knowledge",
    "knowledge": "engine.knowledge",
    "Position": "engine.position",
    "IllegalMove": "errors",
    "positions": "stepping",
    "board_at": "replay",
    "board_svg": "engine.svg",
    "read_events": "events",
    "write_viewer": "viewer",
    "GameSet": "dataset",
    "read_dataset": "dataset",
    "read_games": "driver",
    "parse_record": "readers",
    "read_records": "readers",
    "read_game": "readers",
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
        "report_setups",
        "setup_boards",
        "advice",
        "tips",
        "tip_rates",
        "arrangement",
        "setup_grid",
        "tables",
        "generate",
        "writer",
        "board",
        "pieces",
        "sources",
        "gravon",
        "gsn",
        "record_formats",
        "readers",
        "rules",
        "dataset",
        "identity",
        "patterns",
        "filters",
        "selection",
        "replay",
        "engine",
        "events",
        "viewer",
        "boardimage",
        "records",
        "validate",
        "actions",
        "formats",
        "observations",
        "planes",
        "stepping",
    }
)

__all__ = [
    "RULESETS",
    "GameRecord",
    "GameSet",
    "IllegalMove",
    "Knowledge",
    "Position",
    "Replay",
    "RuleSet",
    "ValidationReport",
    "__version__",
    "board_at",
    "board_svg",
    "enable_notebook_display",
    "get_rules",
    "knowledge",
    "parse_record",
    "positions",
    "read_dataset",
    "read_events",
    "read_game",
    "read_games",
    "read_records",
    "replay",
    "rules_for",
    "validate",
    "write_board_image",
    "write_viewer",
]


def __getattr__(name: str) -> Any:
    """Public names and submodules, imported on first use (pandas, pyarrow and matplotlib
    load lazily, so the CLI and the workers start fast)."""
    if name in _LAZY:
        return getattr(import_module(f"strat_tools.{_LAZY[name]}"), name)
    if name in _SUBMODULES:
        return import_module(f"strat_tools.{name}")
    raise AttributeError(f"module 'strat_tools' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API and the submodules, for ``dir(strat_tools)`` and tab completion."""
    return sorted({*__all__, *_SUBMODULES})


def _notebook_html(item: Any) -> str:
    from strat_tools.viewer import notebook_html

    return notebook_html(item)


def enable_notebook_display() -> None:
    """In IPython/Jupyter, show a game record or a replay as a stepping viewer (done on
    import when IPython is running; call it again after starting a shell later). Registered
    here, at the top of the package, since records and the engine sit below the viewer."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["text/html"]
    formatter.for_type_by_name("strat_tools.records", "GameRecord", _notebook_html)
    formatter.for_type_by_name("strat_tools.replay", "Replay", _notebook_html)


enable_notebook_display()
