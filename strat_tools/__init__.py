"""strat-tools: read, replay, validate and analyse Stratego game records.

Its subpackages are its floors, each importing only those below it (the plan, stated once
in ``tests/test_structure.py``, is drawn in ``docs/architecture.md``): ``core``, ``setups``,
``io``, ``formats``, ``engine``, ``tables``, ``run``, ``exports``, ``generate``, ``stats``,
``views``, ``report``, ``cli``. This module is the face: the names below, ``st.NAME`` for each
floor and for a few modules (``st.plots`` is :mod:`strat_tools.views.plots`).

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

from strat_tools.core.startup import guard_startup

guard_startup()  # before any other import: Ctrl-C while the command line starts up

from strat_tools.core.defaults import set_default_loader  # noqa: E402

# Every name is bound on first use, ``replay`` and ``validate`` too: they live in
# ``engine.replays.replay`` and ``exports.validate``, so no submodule of this package shares their
# names and shadows them, and ``strat-tools --version`` need not import the engine.
if TYPE_CHECKING:
    from strat_tools.core.errors import IllegalMove
    from strat_tools.core.move import Move
    from strat_tools.core.records import GameRecord
    from strat_tools.core.rules import RULESETS, RuleSet, get_rules, rules_for
    from strat_tools.engine.information.knowledge import Knowledge, knowledge
    from strat_tools.engine.position.move import Battle
    from strat_tools.engine.position.position import Position
    from strat_tools.engine.replays.replay import Replay, replay
    from strat_tools.engine.replays.stepping import board_at, positions
    from strat_tools.engine.rules.outcome import Outcome
    from strat_tools.exports.event_table import read_events
    from strat_tools.exports.validate import ValidationReport, validate
    from strat_tools.formats.readers import parse_record, read_game, read_records
    from strat_tools.run.driver import read_games
    from strat_tools.run.options import Run
    from strat_tools.tables.dataset import GameSet, read_dataset
    from strat_tools.views.boardimage import write_board_image
    from strat_tools.views.svg import board_svg
    from strat_tools.views.viewer import write_viewer

_LAZY = {
    "write_board_image": "views.boardimage",
    "Knowledge": "engine.information.knowledge",
    "knowledge": "engine.information.knowledge",
    "Position": "engine.position.position",
    "Move": "core.move",
    "Battle": "engine.position.move",
    "Outcome": "engine.rules.outcome",
    "IllegalMove": "core.errors",
    "positions": "engine.replays.stepping",
    "board_at": "engine.replays.stepping",
    "board_svg": "views.svg",
    "read_events": "exports.event_table",
    "write_viewer": "views.viewer",
    "GameSet": "tables.dataset",
    "read_dataset": "tables.dataset",
    "read_games": "run.driver",
    "Run": "run.options",
    "parse_record": "formats.readers",
    "read_records": "formats.readers",
    "read_game": "formats.readers",
    "GameRecord": "core.records",
    "Replay": "engine.replays.replay",
    "RULESETS": "core.rules",
    "RuleSet": "core.rules",
    "get_rules": "core.rules",
    "rules_for": "core.rules",
    "ValidationReport": "exports.validate",
    "replay": "engine.replays.replay",
    "validate": "exports.validate",
}
"""Each public name and the module it lives in, imported on first use."""

_SUBMODULES = {
    "core": "core",
    "setups": "setups",
    "io": "io",
    "formats": "formats",
    "engine": "engine",
    "tables": "tables",
    "run": "run",
    "exports": "exports",
    "generate": "generate",
    "stats": "stats",
    "views": "views",
    "report": "report",
    "benchmark": "benchmark",
    "policies": "benchmark.policies",
    "advice": "stats.advice",
    "arrangement": "stats.arrangement",
    "board": "core.board",
    "dataset": "tables.dataset",
    "filters": "run.filters",
    "plots": "views.plots",
    "report_setups": "report.setups",
    "selection": "run.selection",
    "setup_boards": "views.setup_boards",
    "tip_rates": "stats.tip_rates",
}
"""``st.NAME`` for each floor, and for the modules the README, docs/ and notebooks/ reach
that way (``st.plots`` is :mod:`strat_tools.views.plots`); ``tests/test_public_face.py``
checks that every ``st.`` name they mention answers."""

__all__ = [
    "RULESETS",
    "Battle",
    "GameRecord",
    "GameSet",
    "IllegalMove",
    "Knowledge",
    "Move",
    "Outcome",
    "Position",
    "Replay",
    "RuleSet",
    "Run",
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
    load lazily, so the CLI and the workers start fast), then kept here: a later ``st.NAME``
    is a plain attribute (``st.replay`` in a loop over a month's games paid an import
    look-up per call)."""
    if name in _LAZY:
        found = getattr(import_module(f"strat_tools.{_LAZY[name]}"), name)
    elif name in _SUBMODULES:
        found = import_module(f"strat_tools.{_SUBMODULES[name]}")
    else:
        raise AttributeError(f"module 'strat_tools' has no attribute {name!r}")
    globals()[name] = found
    return found


def __dir__() -> list[str]:
    """The public API and the submodules, for ``dir(strat_tools)`` and tab completion."""
    return sorted({*__all__, *_SUBMODULES})


def _notebook_html(item: Any) -> str:
    from strat_tools.views.viewer import notebook_html

    return notebook_html(item)


def _position_svg(position: Any) -> str:
    from strat_tools.views.svg import board_svg

    return board_svg(position.board)


def enable_notebook_display() -> None:
    """In IPython/Jupyter, show a game record or a replay as a stepping viewer (done on
    import when IPython is running; call it again after starting a shell later). Registered
    here, at the top of the package, since records and the engine sit below the viewer."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["text/html"]
    formatter.for_type_by_name("strat_tools.core.records", "GameRecord", _notebook_html)
    formatter.for_type_by_name("strat_tools.engine.replays.replay", "Replay", _notebook_html)
    pictures = shell.display_formatter.formatters["image/svg+xml"]
    pictures.for_type_by_name("strat_tools.engine.position.position", "Position", _position_svg)


enable_notebook_display()


def _default_move_policy() -> object:
    from strat_tools.benchmark.policies import DEFAULTS, load

    return load(DEFAULTS["move"])


# The engine's ``pos.move_probabilities()`` with no policy: the shipped registry's default,
# loaded on first use (the engine sits below the benchmark and never imports it).
set_default_loader("move", _default_move_policy)
