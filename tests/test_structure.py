"""The package's shape, checked by parsing its imports: floors, private names, cycles, size.

Floor by floor, one subpackage each (:data:`FLOORS`, from which ``docs/architecture.md``'s
table is generated): core -> setups -> io -> formats -> engine -> tables -> run -> exports ->
generate -> env -> stats -> benchmark -> views -> report -> cli. No module imports a floor it
may not; no module imports another module's private (``_name``) name; the imports have no cycle; no
module is over 600 lines (the engine's hot loop excepted); no function takes three run
settings loose (one ``Run`` carries them); no line is excused from ``ruff format``. Each name
is imported from the module that defines it (only the faces, the ``__init__`` modules,
gather names from others), and every public function takes its game filter as ``select=``
and its run settings as ``run=``.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "strat_tools"
MAX_LINES = 600

FLOORS: dict[str, tuple[str, tuple[str, ...]]] = {
    "core": (
        "the board and squares, pieces, the move, game records, the record-format registry, "
        "rule sets, "
        "record checks, errors, text helpers, text board diagrams, the default models' hook",
        (),
    ),
    "setups": (
        "setup identity and mirror images, search patterns, the setup grid, setup strings",
        ("core",),
    ),
    "io": ("input paths, folders, globs and zips; atomic outputs", ("core",)),
    "formats": (
        "Gravon XML (read, fast scan, write), .gsn (read, write), the reader seam",
        ("core", "setups", "io"),
    ),
    "engine": (
        "positions, their rule state and legality, the hot loop, the batch move generator, "
        "chasing, replay, "
        "knowledge, key events, action ids, planes, StraDos3",
        ("core",),
    ),
    "tables": (
        "table schemas, game ids, building tables, owned dataset folders",
        ("core", "setups", "io", "formats", "engine"),
    ),
    "run": (
        "the per-file pipeline and process pool (or Dask), batch work, the tally, the driver, "
        "game filters and selections",
        ("core", "setups", "io", "formats", "tables"),
    ),
    "exports": (
        "validation, conversion, the events table, observations for learning",
        ("core", "setups", "io", "formats", "engine", "tables", "run"),
    ),
    "generate": (
        "synthetic games: setup model, playing policy, replay before writing",
        ("core", "formats", "engine", "run"),
    ),
    "env": (
        "the reinforcement-learning environment: PettingZoo's AEC API over a position, "
        "truth-free observations (optional extra)",
        ("core", "engine", "generate"),
    ),
    "stats": (
        "statistics and their registry, formulas and intervals, repeats, the rulebooks' tips, "
        "piece values and the win model",
        ("core", "setups", "io", "engine", "tables", "run"),
    ),
    "benchmark": (
        "the benchmark of human play: its definition, build, scorer, baselines, the "
        "move-policy protocol, the shipped models and their registry",
        ("core", "setups", "io", "formats", "engine", "tables", "run", "exports", "stats"),
    ),
    "views": (
        "setup heatmaps, charts, board pictures, setup boards, figure files, the document "
        "builder, the viewer (with the shipped models' likely moves and beliefs)",
        (
            "core",
            "setups",
            "io",
            "formats",
            "engine",
            "tables",
            "run",
            "exports",
            "stats",
            "benchmark",
        ),
    ),
    "report": (
        "the report's inputs, sections and page",
        ("core", "setups", "io", "tables", "run", "stats", "views"),
    ),
    "__init__": (
        "the package's face: `import strat_tools as st`",
        ("core", "engine", "formats", "tables", "run", "exports", "views", "benchmark"),
    ),
    "cli": (
        "one module per command; options and rendering only",
        (
            "core",
            "setups",
            "io",
            "formats",
            "engine",
            "tables",
            "run",
            "exports",
            "generate",
            "stats",
            "views",
            "report",
            "benchmark",
            "__init__",
        ),
    ),
    "__main__": ("`python -m strat_tools`", ("cli",)),
}
"""The one floor plan, bottom up: each top-level entry of ``strat_tools/`` (a subpackage, or
the package's own ``__init__``/``__main__``), what it holds, and the entries it may import
(only entries below it). ``docs/architecture.md``'s floor table is generated from it."""

KNOWN_UPWARD: set[tuple[str, str]] = set()
"""Upward imports not yet removed (none: parse-then-check lives in ``readers``)."""

KNOWN_CYCLES: set[frozenset[str]] = set()
"""Import cycles not yet removed, each as the set of modules in it (counting type-only and
function-level imports). Every other cycle fails :func:`test_the_imports_have_no_cycle`."""

KNOWN_LONG: set[str] = set()
"""Modules still over the limit, to be split (each leaves this set when it is; none now)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


@functools.cache
def modules() -> dict[str, Path]:
    """Every module of the package, read once per session (the checks below ask often)."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def floor_of(module: str) -> str:
    head = module.split(".")[0]
    if head not in FLOORS:
        raise AssertionError(f"strat_tools.{module} is on no floor: add it to FLOORS")
    return head


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_by_name(call: ast.Call) -> str:
    """The module an ``import_module("strat_tools.NAME")`` call imports (a lazy import is
    an import too), or ``""``."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    if name != "import_module" or not call.args:
        return ""
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return (
            arg.value.removeprefix("strat_tools.") if arg.value.startswith("strat_tools.") else ""
        )
    return ""


def imports(
    tree: ast.AST, module: str, *, type_only: bool = False
) -> Iterator[tuple[str, str | None, int]]:
    """(imported strat_tools module, imported name or None, line) for every import that runs
    (module level or in a function; not under ``if TYPE_CHECKING``), and with ``type_only``
    the type-only ones too (a type is a dependency: a cycle through it is still a cycle)."""
    package = module.rsplit(".", 1)[0] if "." in module else ""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and _type_checking(node) and not type_only:
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Call) and _imported_by_name(node):
            yield _imported_by_name(node), None, node.lineno
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("strat_tools."):
                    yield alias.name.removeprefix("strat_tools."), None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(filter(None, [package, base]))
            elif base == "strat_tools":
                base = ""
            elif base.startswith("strat_tools."):
                base = base.removeprefix("strat_tools.")
            else:
                continue
            for alias in node.names:
                submodule = f"{base}.{alias.name}" if base else alias.name
                if submodule in modules() or f"{submodule}.__init__" in modules():
                    yield submodule, None, node.lineno
                else:
                    yield base or "__init__", alias.name, node.lineno
        todo.extend(ast.iter_child_nodes(node))


def module_aliases(tree: ast.AST) -> dict[str, str]:
    """Local names bound to strat_tools modules (``from strat_tools import advice``)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "strat_tools":
            for alias in node.names:
                names[alias.asname or alias.name] = alias.name
    return names


@functools.cache
def parsed() -> dict[str, ast.AST]:
    return {name: ast.parse(path.read_text(), str(path)) for name, path in modules().items()}


def _target(imported: str) -> str:
    """A module name as listed by :func:`modules` (a package is its ``__init__``)."""
    return imported if imported in modules() else f"{imported}.__init__"


@pytest.mark.slow
def test_no_module_imports_a_floor_above_its_own() -> None:
    upward = []
    for module, tree in parsed().items():
        for imported, _name, line in imports(tree, module):
            if imported == "__init__" or module.split(".")[0] == imported.split(".")[0]:
                continue
            floor, target = floor_of(module), floor_of(imported)
            if target not in FLOORS[floor][1] and (floor, target) not in KNOWN_UPWARD:
                upward.append(f"strat_tools/{module}.py:{line} imports {imported}")
    assert upward == []


def test_the_parser_sees_lazy_imports() -> None:
    """In a function, or by ``import_module`` with the module's name: both are arrows."""
    found = {imported for imported, _n, _l in imports(parsed()["formats.__init__"], "formats")}
    assert "setups.strings" in found
    lazy = ast.parse('def f():\n    return import_module("strat_tools.engine.replays.replay")\n')
    assert [imported for imported, _n, _l in imports(lazy, "views.x")] == ["engine.replays.replay"]


def test_each_floor_may_import_only_floors_below_it() -> None:
    order = list(FLOORS)
    upward = [
        f"{floor} may import {other}"
        for floor, (_holds, allowed) in FLOORS.items()
        for other in allowed
        if order.index(other) >= order.index(floor)
    ]
    assert upward == []


def test_the_package_is_its_floors() -> None:
    """``ls strat_tools/`` is the floor plan: every entry is a floor (or py.typed)."""
    entries = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert entries - {"py.typed"} == set(FLOORS), "each entry of strat_tools/ is one floor"
    assert len(entries) <= 18


def floor_table() -> str:
    """The floor table of ``docs/architecture.md``, generated from :data:`FLOORS`."""
    rows = ["| floor | holds | may import |", "|---|---|---|"]
    for floor, (holds, allowed) in FLOORS.items():
        name = f"`{floor}`" if floor.startswith("_") else f"`{floor}/`"
        rows.append(f"| {name} | {holds} | {', '.join(allowed) or '-'} |")
    return "\n".join(rows)


ENGINE_PARTS: dict[str, str] = {
    "rules": "the rules over a flat board: rule state, rule tables, the hot loop, the scout "
    "clause's chains, the reference move search, chasing, the end of a game, which boards exist",
    "position": "`Position` (one board, one `RuleState`) and what a push returns",
    "replays": "a record replayed and checked (`replay`), the `Replayed` protocol, the positions "
    "of a game (steps, stepping)",
    "information": "what each side knows and sees: knowledge (kept up to date as moves are "
    "pushed), material, the mover's view, observation boards and planes, the mover's truth-free "
    "rows, beliefs, the move-policy protocol and a position's move probabilities",
    "moves": "the batch move generator: legal moves of many positions at once, and the bans",
    "encodings": "a move as an action id (ours, OpenSpiel yorktown's), a position as StraDos3",
    "events": "key events of replayed games, their kinds and their words",
}
"""The engine floor's plan, bottom up: ``ls strat_tools/engine`` is these parts (and the
floor's face, ``__init__.py``). A module's imports that run when it is loaded go only to its
own part or one listed before it; an import in a function (``Position.knowledge`` loads
``information`` on first use) or for a type only may reach up, and the module-level cycle
check still holds for those. ``docs/architecture.md``'s engine table is generated from it."""


def load_time_imports(tree: ast.AST, module: str) -> Iterator[tuple[str, int]]:
    """(imported module, line) for the imports that run when the module is loaded: at its
    top level (in an ``if`` or ``try`` too, not under ``if TYPE_CHECKING``), not in a function
    or class::

        >>> tree = ast.parse("import os\\nfrom strat_tools.core import board\\ndef f():\\n"
        ...     "    from strat_tools.engine.moves import legal_ids")
        >>> list(load_time_imports(tree, "engine.x.y"))
        [('core.board', 2)]
    """
    body = list(getattr(tree, "body", []))
    while body:
        node = body.pop(0)
        if isinstance(node, ast.If):
            body[:0] = node.orelse if _type_checking(node) else [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            body[:0] = [*node.body, *node.orelse, *node.finalbody]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for imported, _name, line in imports(node, module):
                yield imported, line


def engine_part(module: str) -> str:
    """The part of the engine floor ``module`` (``engine.rules.hotloop``) is in."""
    return module.split(".")[1] if module.count(".") >= 2 else "__init__"


def test_the_engine_floor_is_its_parts() -> None:
    """``ls strat_tools/engine`` reads as the plan: the face and one subpackage a concern."""
    entries = {p.name for p in (PACKAGE / "engine").iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", *ENGINE_PARTS}
    face = ast.get_docstring(parsed()["engine.__init__"]) or ""
    assert [part for part in ENGINE_PARTS if f"{part}/" not in face] == []


def test_the_engine_parts_load_bottom_up() -> None:
    order = list(ENGINE_PARTS)
    upward = [
        f"strat_tools/{module.replace('.', '/')}.py:{line} imports {imported}"
        for module, tree in parsed().items()
        if module.startswith("engine.") and engine_part(module) in ENGINE_PARTS
        for imported, line in load_time_imports(tree, module)
        if imported.startswith("engine.")
        and engine_part(imported) in ENGINE_PARTS
        and order.index(engine_part(imported)) > order.index(engine_part(module))
    ]
    assert upward == []


def engine_table() -> str:
    """The engine table of ``docs/architecture.md``, generated from :data:`ENGINE_PARTS`."""
    rows = ["| part | holds |", "|---|---|"]
    rows += [f"| `engine/{part}/` | {holds} |" for part, holds in ENGINE_PARTS.items()]
    return "\n".join(rows)


def test_the_architecture_doc_shows_the_engine_plan() -> None:
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    begin, end = "<!-- engine: generated by tests/test_structure.py -->", "<!-- /engine -->"
    shown = doc[doc.index(begin) + len(begin) : doc.index(end)].strip()
    assert shown == engine_table(), "paste engine_table() into docs/architecture.md"


def test_the_architecture_doc_shows_this_floor_plan() -> None:
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    begin, end = "<!-- floors: generated by tests/test_structure.py -->", "<!-- /floors -->"
    shown = doc[doc.index(begin) + len(begin) : doc.index(end)].strip()
    assert shown == floor_table(), "paste floor_table() into docs/architecture.md"


def test_no_private_name_is_imported_or_used_across_modules() -> None:
    private = []
    for module, tree in parsed().items():
        for imported, name, line in imports(tree, module):
            if name is not None and name.startswith("_") and not name.startswith("__"):
                private.append(f"strat_tools/{module}.py:{line} imports {imported}.{name}")
        aliases = module_aliases(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                private.append(
                    f"strat_tools/{module}.py:{node.lineno} uses {node.value.id}.{node.attr}"
                )
    assert private == []


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, at module level, in a function or only
    for types (under ``if TYPE_CHECKING``): every arrow a reader of the code follows."""
    return {
        module: {
            _target(imported)
            for imported, _name, _line in imports(tree, module, type_only=True)
            if _target(imported) != module
        }
        for module, tree in parsed().items()
    }


def import_cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of two or more modules (Tarjan), a package's
    ``__init__`` gathering its submodules left out (that is not a cycle back into it)::

        >>> sorted(sorted(c) for c in import_cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}))
        [['a', 'b']]
        >>> import_cycles({"p.__init__": {"p.x"}, "p.x": {"p.__init__"}})
        []
    """
    graph = {
        node: {n for n in nexts if not n.endswith("__init__")}
        for node, nexts in graph.items()
        if not node.endswith("__init__")
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = {stack.pop()}
            while node not in group:
                group.add(stack.pop())
            if len(group) > 1:
                found.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.slow
def test_the_imports_have_no_cycle() -> None:
    cycles = set(import_cycles(import_graph()))
    assert {" <-> ".join(sorted(c)) for c in cycles - KNOWN_CYCLES} == set()
    assert KNOWN_CYCLES - cycles == set(), "these cycles are gone: take them off KNOWN_CYCLES"


def test_the_cycle_check_sees_type_only_and_function_imports() -> None:
    """A ``TYPE_CHECKING`` import and one inside a function are both arrows (so the check
    can fail on either)."""
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from strat_tools.core.records import GameRecord\n"
        "def f():\n    from strat_tools.core.board import Side\n"
    )
    assert {i for i, _n, _l in imports(tree, "core.x", type_only=True)} == {
        "core.records",
        "core.board",
    }
    assert {i for i, _n, _l in imports(tree, "core.x")} == {"core.board"}


def test_no_module_is_over_the_line_limit() -> None:
    long = {
        name
        for name, path in modules().items()
        if name != "engine.rules.hotloop" and len(path.read_text().splitlines()) > MAX_LINES
    }
    assert long - KNOWN_LONG == set(), "split these modules by concern"
    assert KNOWN_LONG - long == set(), "these are short now: take them off KNOWN_LONG"


@pytest.mark.parametrize("module", ["formats/readers.py", "stats/registry.py"])
def test_the_parser_sees_imports(module: str) -> None:
    """The checks above read real imports (so they can fail)."""
    name = module.removesuffix(".py").replace("/", ".")
    found = {imported for imported, _n, _l in imports(parsed()[name], name)}
    assert found & {"core.checks", "core.errors", "stats.frames"}


RUN_SETTINGS = frozenset({"jobs", "dask", "dask_address", "progress", "tally", "stop"})
"""One run's settings: they travel whole as :class:`strat_tools.run.options.Run`."""


def loose_run_settings(tree: ast.AST) -> list[str]:
    """The functions of ``tree`` that take three or more of :data:`RUN_SETTINGS` as
    parameters of their own (instead of one ``Run``)::

        >>> loose_run_settings(ast.parse("def f(paths, *, jobs, dask, progress): pass"))
        ['f (dask, jobs, progress)']
        >>> loose_run_settings(ast.parse("def f(paths, *, jobs=None, run=None): pass"))
        []
    """
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
            if len(loose := sorted(names & RUN_SETTINGS)) >= 3:
                found.append(f"{node.name} ({', '.join(loose)})")
    return found


def test_no_function_takes_the_run_settings_loose() -> None:
    loose = {
        f"strat_tools.{module}: {function}"
        for module, tree in parsed().items()
        for function in loose_run_settings(tree)
    }
    assert loose == set(), "take one Run (strat_tools.run.options) instead"


def test_the_package_packs_no_lines_by_hand() -> None:
    """``ruff format`` lays out every line: none is excused with ``# fmt: skip``."""
    skipped = [
        f"{path.relative_to(PACKAGE.parent)}:{number}"
        for path in modules().values()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "fmt: skip" in line or "fmt: off" in line
    ]
    assert skipped == []


TIMERS = re.compile(r"\b(?:time\.)?(?:perf_counter|process_time|thread_time)(?:_ns)?\(")


def test_no_test_measures_speed() -> None:
    """Timing belongs in bench/: no test reads a speed clock (deadlines that bound a wait use
    ``time.monotonic``, and subprocesses a ``timeout=``, as hang guards)."""
    tests = Path(__file__).resolve().parent
    timed = [
        f"{path.name}:{number}"
        for path in sorted(tests.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if TIMERS.search(line) and path.name != "test_structure.py"
    ]
    assert not timed, timed


def test_no_test_module_imports_another() -> None:
    """Shared test helpers live in helper modules (hand_games.py, hostile_folder.py, ...), so a
    test module can be moved, renamed or run alone without dragging another in."""
    tests = Path(__file__).resolve().parent
    found = []
    for path in sorted(tests.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            found += [f"{path.name}: {name}" for name in names if name.startswith("test_")]
    assert not found, found


RULE_FLOORS = ("core", "engine")
"""The floors that state the rules: ``core/rules.py`` (rule sets, battles) and the engine
(legality, the two-squares and more-squares rules, the move generator and its tables)."""

RULE_INTERNALS = frozenset(
    {
        "engine.rules.rule_tables",
        "engine.moves.tables",
        "engine.moves.scan",
        "engine.moves.kernel",
        "engine.moves.bans",
        "engine.rules.hotloop",
        "engine.rules.chasing",
    }
)
"""The engine's rule tables, generator stages and bans: read only on the rule floors (above
them a module asks the batch generator's face ``engine.moves``, its games' call
``engine.moves.games``, ``replay`` or ``Position`` for moves)."""

RULE_NAMES = frozenset({"battle_outcome", "battle_table", "per_rule_set", "repetition_bans"})
"""Functions of the rule floors that apply a rule piecemeal: never imported above them."""

RULE_WORDS = re.compile(r"two_squares|repetition|scout_clause|(?:^|_)bans?(?:$|_)|chas(?:e|ing)")
"""A function or class named after a rule (``two_squares_bans``, ``repetition_bans``)."""

RULE_STATE = frozenset({"repetition", "rep_count", "rep_key", "spans"})
"""A position's or a rule table's two-squares state: read only on the rule floors."""


def rule_logic(tree: ast.AST, module: str) -> list[str]:
    """Where ``tree`` (a module above the rule floors) states a rule: it imports a rule
    internal (:data:`RULE_INTERNALS`, :data:`RULE_NAMES`), defines a function or class named
    after a rule (:data:`RULE_WORDS`) or reads two-squares state (:data:`RULE_STATE`)::

        >>> rule_logic(ast.parse("def two_squares_bans(r): return r.spans"), "exports.x")
        ['exports.x:1 defines two_squares_bans', 'exports.x:1 reads .spans']
        >>> rule_logic(ast.parse("from strat_tools.engine.rules.chasing import find_chases"), "x")
        ['x:1 imports engine.rules.chasing.find_chases']
        >>> rule_logic(ast.parse("def observe(game, bans=()): return game.plies"), "exports.x")
        []
    """
    found = []
    for imported, name, line in imports(tree, module, type_only=True):
        if imported in RULE_INTERNALS or name in RULE_NAMES:
            found.append(f"{module}:{line} imports {imported}{'.' + name if name else ''}")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if RULE_WORDS.search(node.name.lower()):
                found.append(f"{module}:{node.lineno} defines {node.name}")
        elif isinstance(node, ast.Attribute) and node.attr in RULE_STATE:
            found.append(f"{module}:{node.lineno} reads .{node.attr}")
    return found


def test_no_floor_above_the_engine_states_a_rule() -> None:
    """The rules are stated once, on ``core/`` and ``engine/``: every floor above asks the
    engine (a new rule option touches no module there; docs/architecture.md's recipe)."""
    found = [
        place
        for module, tree in parsed().items()
        if floor_of(module) not in RULE_FLOORS
        for place in rule_logic(tree, module)
    ]
    assert found == []


FILTER_KEYWORD = "select"
"""The one keyword a public function takes its game filter by (a GameFilter or a predicate)."""


def test_every_public_function_takes_its_game_filter_as_select() -> None:
    """One filter, one keyword: ``select=`` everywhere (it was ``game_filter=`` in 15
    functions and ``select=`` in 23). The CLI's own parameters are click's, not the API."""
    loose = []
    for module, tree in parsed().items():
        if module.startswith("cli"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [a.arg for a in (*node.args.args, *node.args.kwonlyargs)]
                if "game_filter" in names or "filter" in names:
                    loose.append(f"{module}.{node.name}")
    assert loose == [], f"take the game filter as {FILTER_KEYWORD}="


def test_every_command_types_its_game_filter() -> None:
    """A command's ``game_filter`` (what ``game_filter_options`` hands it) is annotated
    ``GameFilter``, not ``Any``: mypy then checks what the command does with it."""
    loose = [
        f"{module}.{node.name}: {ast.unparse(arg.annotation) if arg.annotation else 'none'}"
        for module, tree in parsed().items()
        if module.startswith("cli")
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for arg in (*node.args.args, *node.args.kwonlyargs)
        if arg.arg == "game_filter"
        and not (arg.annotation and ast.unparse(arg.annotation) == "GameFilter")
    ]
    assert loose == []


def defined_names(tree: ast.AST) -> set[str]:
    """The names a module defines itself, at module level (a ``def``, a ``class``, an
    assignment; in an ``if`` or ``try`` too, not under ``if TYPE_CHECKING``), never those it
    imports::

        >>> sorted(defined_names(ast.parse("from a import b\\nc = b\\ndef d(): e = 1")))
        ['c', 'd']
    """
    names: set[str] = set()
    todo = list(getattr(tree, "body", []))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.If):
            todo.extend(node.orelse if _type_checking(node) else [*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            todo.extend([*node.body, *node.orelse, *node.finalbody])
            todo.extend(line for handler in node.handlers for line in handler.body)
    return names


def star_names(tree: ast.AST) -> list[str]:
    """The names of a module's ``__all__`` (what ``from module import *`` binds)."""
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return [str(name) for name in ast.literal_eval(node.value)]
    return []


def uses(tree: ast.AST, module: str) -> Iterator[tuple[str, str, int]]:
    """(module, name, line) for every ``alias.NAME`` of ``tree`` whose ``alias`` is a module of
    the package it imported (``from strat_tools.views import plots``: ``plots.NAME`` uses
    ``views.plots``'s ``NAME``, as an import of it would)::

        >>> list(uses(ast.parse("from strat_tools.views import plots\\nplots.x(plots.Y)"), "a"))
        [('views.plots', 'x', 2), ('views.plots', 'Y', 2)]
    """
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("strat_tools"):
            base = (node.module or "").removeprefix("strat_tools").removeprefix(".")
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                if sub in modules() or f"{sub}.__init__" in modules():
                    aliases[alias.asname or alias.name] = sub
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name.startswith("strat_tools."):
                    aliases[alias.asname] = alias.name.removeprefix("strat_tools.")
    found = [
        (aliases[node.value.id], node.attr, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in aliases
    ]
    yield from sorted(found, key=lambda use: use[2])


def imports_through_forwarders(trees: dict[str, ast.AST]) -> list[str]:
    """Every ``from strat_tools.X import NAME`` of ``trees`` (type-only and in functions
    too) whose ``X`` does not define ``NAME`` but only imports it from elsewhere (and every
    ``import *`` of a module whose ``__all__`` names what it does not define)::

        >>> imports_through_forwarders({
        ...     "core.a": ast.parse("B = 1"),
        ...     "core.b": ast.parse("from strat_tools.core.a import B"),
        ...     "core.c": ast.parse("from strat_tools.core.b import B"),
        ... })
        ['strat_tools/core/c.py:1 imports B through core.b (it lives in core.a)']
    """
    defined = {module: defined_names(tree) for module, tree in trees.items()}
    home = {
        name: module
        for module in sorted(trees, reverse=True)
        for name in defined[module]
        if not module.endswith("__init__")
    }
    through = []
    for module, tree in trees.items():
        for imported, name, line in [*imports(tree, module, type_only=True), *uses(tree, module)]:
            target = imported if imported in trees else f"{imported}.__init__"
            if name is None or target not in trees or f"{imported}.{name}" in modules():
                continue
            names = star_names(trees[target]) if name == "*" else [name]
            through += [
                f"strat_tools/{module.replace('.', '/')}.py:{line} imports {each}"
                f" through {imported}"
                f" (it lives in {home.get(each, 'another module')})"
                for each in names
                if each not in defined[target]
            ]
    return through


def test_no_module_imports_a_name_through_a_module_that_only_forwards_it() -> None:
    """Each name is imported from the module that defines it: never through a package's face
    (``strat_tools/__init__.py``, ``st.stats``, ``st.tables``, ...), which may offer names
    from below for ``import strat_tools as st``, nor through a module that imported it."""
    assert imports_through_forwarders(dict(parsed())) == []


def class_definitions() -> dict[str, list[str]]:
    """Each class name the package defines at a module's top level, and the modules that
    define it."""
    found: dict[str, list[str]] = {}
    for module, tree in parsed().items():
        for node in getattr(tree, "body", []):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(module)
    return found


def test_no_class_name_is_defined_twice() -> None:
    """One definition of each thing: two classes of one name (two ``Move`` classes, one a
    record's and one the engine's, once) make a user's ``isinstance`` and ``==`` lie."""
    twice = {name: where for name, where in class_definitions().items() if len(where) > 1}
    assert twice == {}, twice
    assert "Move" in class_definitions() and "RuleState" in class_definitions()


def test_only_a_face_offers_names_it_does_not_define() -> None:
    """A module's ``__all__`` (and any ``import X as X``) names only what it defines; the
    package's faces (its ``__init__`` modules: ``st``, ``st.stats``, ``st.tables``, ...) are
    where names from several modules are gathered for ``import strat_tools as st``."""
    offered = []
    for module, tree in parsed().items():
        if module.endswith("__init__"):
            continue
        defined = defined_names(tree)
        offered += [f"{module}.{name}" for name in star_names(tree) if name not in defined]
        offered += [
            f"{module}.{alias.name} (import as itself)"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
            if alias.asname == alias.name
        ]
    assert offered == []


RUN_KEYWORD = "run"
"""The one keyword a public function takes its run settings by: a ``Run``, or a number of
worker processes (:data:`strat_tools.run.options.RunArg`)."""


def run_keywords(tree: ast.AST, module: str) -> list[str]:
    """The public functions of ``tree`` that take the run settings by two keywords
    (``jobs=`` beside ``run=``), or ``run=`` as something other than ``RunArg``::

        >>> run_keywords(ast.parse("def f(p, *, jobs=None, run: Run | None = None): pass"), "m")
        ['m.f takes jobs= and run=', 'm.f takes run: Run | None']
        >>> run_keywords(ast.parse("def f(p, *, run: RunArg = None): pass"), "m")
        []
    """
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name[0] == "_":
            continue
        params = {a.arg: a for a in [*node.args.args, *node.args.kwonlyargs]}
        if "run" not in params:
            continue
        if "jobs" in params:
            found.append(f"{module}.{node.name} takes jobs= and run=")
        annotation = params["run"].annotation
        if annotation is not None and ast.unparse(annotation) != "RunArg":
            found.append(f"{module}.{node.name} takes run: {ast.unparse(annotation)}")
    return found


def test_every_public_function_takes_its_run_settings_as_run() -> None:
    """One keyword for the run settings: ``run=`` (28 functions took ``jobs=`` and ``run=``
    both), the same type everywhere, so ``run=2`` or ``run=Run(dask=True)`` is taken by every
    public entry point alike. The CLI's own parameters are click's, not the API."""
    found = [
        place
        for module, tree in parsed().items()
        if not module.startswith("cli")
        for place in run_keywords(tree, module)
    ]
    assert found == [], f"take the run settings as {RUN_KEYWORD}: RunArg"
