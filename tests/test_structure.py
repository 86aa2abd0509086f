"""The package's shape, checked by parsing its imports: floors, private names, cycles, size.

Floor by floor (``docs/architecture.md``): model -> sources -> readers -> checks -> engine ->
pipeline -> tables -> statistics -> views -> cli. No module imports a floor above its own;
no module imports another module's private (``_name``) name; the imports have no cycle; no
module is over 600 lines (the engine's hot loop excepted).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "strat_tools"
MAX_LINES = 600

FLOORS: dict[str, tuple[str, ...]] = {
    "model": (
        "errors",
        "board",
        "pieces",
        "records",
        "record_formats",
        "text",
        "output",
    ),
    "sources": ("sources", "zipdir"),
    "readers": ("gravon", "gravon_fields", "fastscan", "gsn", "writer"),
    "checks": ("checks", "rules", "readers"),
    "engine": ("engine", "replay", "stepping", "actions", "planes", "formats"),
    "pipeline": ("pipeline", "processes", "generate", "generate_setups", "generate_play"),
    "tables": (
        "schemas",
        "game_ids",
        "tables",
        "identity",
        "patterns",
        "dataset_writer",
        "dataset",
        "tally",
        "batch_work",
        "driver",
        "validate",
        "convert",
        "events",
        "observations",
        "observation_files",
        "filters",
        "selection",
    ),
    "statistics": ("stats", "setup_grid", "tips", "tip_rates", "arrangement", "advice"),
    "views": (
        "setup_area",
        "plots",
        "board_plots",
        "report",
        "report_inputs",
        "document",
        "viewer",
        "boardimage",
        "setup_boards",
        "report_setups",
        "report_corpus",
        "report_advice",
    ),
    "cli": ("cli", "__main__", "__init__"),
}
"""Each floor's modules (a name is a module or a subpackage of ``strat_tools``)."""

KNOWN_UPWARD: set[tuple[str, str]] = set()
"""Upward imports not yet removed (none: parse-then-check lives in ``readers``)."""

KNOWN_LONG: set[str] = set()
"""Modules still over the limit, to be split (each leaves this set when it is; none now)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def floor_of(module: str) -> int:
    head = module.split(".")[0]
    for index, names in enumerate(FLOORS.values()):
        if head in names:
            return index
    raise AssertionError(f"strat_tools.{module} is on no floor: add it to FLOORS")


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(tree: ast.AST, module: str) -> Iterator[tuple[str, str | None, int]]:
    """(imported strat_tools module, imported name or None, line) for every import that runs
    (module level or in a function; not under ``if TYPE_CHECKING``)."""
    package = module.rsplit(".", 1)[0] if "." in module else ""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            todo.extend(node.orelse)
            continue
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


def parsed() -> dict[str, ast.AST]:
    return {name: ast.parse(path.read_text(), str(path)) for name, path in modules().items()}


def _target(imported: str) -> str:
    """A module name as listed by :func:`modules` (a package is its ``__init__``)."""
    return imported if imported in modules() else f"{imported}.__init__"


def test_no_module_imports_a_floor_above_its_own() -> None:
    upward = []
    for module, tree in parsed().items():
        for imported, _name, line in imports(tree, module):
            if imported == "__init__" or module.split(".")[0] == imported.split(".")[0]:
                continue
            if floor_of(imported) > floor_of(module):
                pair = (module.split(".")[0], imported.split(".")[0])
                if pair not in KNOWN_UPWARD:
                    upward.append(f"strat_tools/{module}.py:{line} imports {imported}")
    assert upward == []


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


def test_the_imports_have_no_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for module, tree in parsed().items():
        graph[module] = {
            _target(imported)
            for imported, _name, _line in imports(tree, module)
            if _target(imported) != module
        }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    # A package's __init__ gathering its submodules is not a cycle back into it.
    real = [c for c in cycles if not any(m.endswith("__init__") for m in c[-2:])]
    assert real == []


def test_no_module_is_over_the_line_limit() -> None:
    long = {
        name
        for name, path in modules().items()
        if name != "engine.hotloop" and len(path.read_text().splitlines()) > MAX_LINES
    }
    assert long - KNOWN_LONG == set(), "split these modules by concern"
    assert KNOWN_LONG - long == set(), "these are short now: take them off KNOWN_LONG"


@pytest.mark.parametrize("module", ["readers.py", "stats/registry.py"])
def test_the_parser_sees_imports(module: str) -> None:
    """The checks above read real imports (so they can fail)."""
    name = module.removesuffix(".py").replace("/", ".")
    found = {imported for imported, _n, _l in imports(parsed()[name], name)}
    assert found & {"checks", "errors", "stats.frames"}
