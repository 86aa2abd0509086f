"""The statistics the package registers, read from their modules' source without importing
them: what ``--stat`` offers and lists in its help while the registry is not loaded.

A statistic is declared once, where it is defined: ``register(Statistic("name", "help",
count, finish, ...))`` in a module of ``strat_tools/stats/`` that the package imports
(docs/architecture.md, *Recipe: a new statistic*). The registry
(``strat_tools.stats.STATISTICS``) is built by importing those modules, with pandas; the
command line must show ``--help`` and parse its options without pandas (issue 36,
``tests/test_startup_imports.py``), so :func:`declared_statistics` reads the same
declarations from the modules' text, in the order the package imports them (the registry's
order). ``tests/test_registry.py`` holds the two equal, and adds a statistic to a copy of
the package to show it in ``--stat`` and its help.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

__all__ = ["declared_statistics"]


def _folder() -> Path:
    spec = importlib.util.find_spec("strat_tools.stats")  # finds it; imports no pandas
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("strat_tools.stats is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _import_order(folder: Path) -> list[Path]:
    """The modules of ``folder`` in the order its ``__init__`` imports them, then the rest."""
    init = folder / "__init__.py"
    named: list[Path] = []
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            path = folder / f"{node.module.rsplit('.', 1)[-1]}.py"
            if path.is_file() and path not in named:
                named.append(path)
    return [*named, *(p for p in sorted(folder.glob("*.py")) if p not in named and p != init)]


def _declared(node: ast.AST) -> tuple[str, str] | None:
    """(name, help) of a ``register(Statistic("name", "help", ...))`` call."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register"):
        return None
    if not node.args or not isinstance(made := node.args[0], ast.Call):
        return None
    if getattr(made.func, "id", None) != "Statistic":
        return None
    given = dict(zip(("name", "help"), made.args, strict=False))
    given.update({k.arg: k.value for k in made.keywords if k.arg in ("name", "help")})
    values = [given.get(key) for key in ("name", "help")]
    texts = [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return (texts[0], texts[1]) if len(texts) == 2 else None


def declared_statistics(folder: Path | None = None) -> dict[str, str]:
    """Name -> one-line help of every statistic declared in the statistics' modules
    (``folder``: ``strat_tools/stats``), in the registry's order, read without importing
    them.

    >>> list(declared_statistics())[:3]
    ['flag', 'bombs', 'placement']
    """
    found: dict[str, str] = {}
    for path in _import_order(folder or _folder()):
        text = path.read_text(encoding="utf-8")
        if "register(" not in text:
            continue
        calls = [
            (node.lineno, declared)
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and (declared := _declared(node))
        ]
        found.update(declared for _line, declared in sorted(calls))
    return found
