"""The documented face holds: every name the README, ``docs/*.md`` and the notebooks use
answers.

Each ``st.NAME`` (and ``st.MODULE.NAME``, ``st.Class.method``) they mention resolves on
``import strat_tools as st``, and each ``from strat_tools.X import NAME`` and
``strat_tools.X.NAME`` they show imports. The face is what they use, no more: the names of
an older layout are not kept for their own sake (issue 37 retired that freeze).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

import strat_tools as st

ROOT = Path(__file__).resolve().parent.parent
DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
ST_NAME = re.compile(rf"(?<![\w.])st\.({DOTTED})")
PACKAGE_NAME = re.compile(rf"(?<![\w./])strat_tools\.({DOTTED})")
FROM_IMPORT = re.compile(r"^\s*from strat_tools((?:\.\w+)*) import (?:\(([^)]*)\)|([\w, ]+))", re.M)


def documents() -> dict[str, str]:
    """The README, each page of docs/ and the code cells of each notebook, by name."""
    texts = {"README.md": (ROOT / "README.md").read_text()}
    texts |= {f"docs/{p.name}": p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
        texts[f"notebooks/{path.name}"] = "\n".join(code)
    return texts


def code_of(text: str) -> str:
    """The Python of a document: its ``python`` blocks (a notebook's text is code already),
    IPython's ``%`` and ``!`` lines left out."""
    blocks = re.findall(r"```python\n(.*?)```", text, re.S) if "```" in text else [text]
    lines = "\n".join(blocks).splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))


def alias_uses(code: str) -> set[str]:
    """``MODULE.NAME`` for each ``alias.NAME`` of ``code`` whose alias is a module of the
    package it imported (``from strat_tools.views import plots``: ``views.plots.NAME``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # a block that only shows a shape
        return set()
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("strat_tools"):
            base = (node.module or "").removeprefix("strat_tools").removeprefix(".")
            for alias in node.names:
                dotted = f"{base}.{alias.name}".removeprefix(".")
                path = ROOT / "strat_tools" / dotted.replace(".", "/")
                if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
                    aliases[alias.asname or alias.name] = dotted
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name.startswith("strat_tools."):
                    aliases[alias.asname] = alias.name.removeprefix("strat_tools.")
    return {
        f"{aliases[node.value.id]}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in aliases
    }


def mentioned() -> dict[str, set[str]]:
    """Every dotted name the documents use, as a path from the package (``read_games``,
    ``stats.piece_placement``, ``engine.encodings.strados3.to_strados3``), and where."""
    found: dict[str, set[str]] = {}
    for where, text in documents().items():
        names = {*ST_NAME.findall(text), *PACKAGE_NAME.findall(text), *alias_uses(code_of(text))}
        for module, bracketed, imported in FROM_IMPORT.findall(text):
            listed = re.sub(r"#.*", "", bracketed or imported).split(",")
            for name in filter(None, (n.strip().split(" as ")[0] for n in listed)):
                names.add(f"{module.removeprefix('.')}.{name}".removeprefix("."))
        for name in names:
            found.setdefault(name.removesuffix("."), set()).add(where)
    return found


def resolve(dotted: str) -> object:
    """``dotted`` from ``st``: each part an attribute, or else a submodule to import (as
    ``from strat_tools.engine.encodings.strados3 import ...`` would)."""
    found: object = st
    parts = dotted.split(".")
    for index, part in enumerate(parts):
        try:
            found = getattr(found, part)
        except AttributeError:
            module = ".".join(["strat_tools", *parts[: index + 1]])
            try:
                found = importlib.import_module(module)
            except ModuleNotFoundError as exc:
                raise AttributeError(f"no {part} in {'.'.join(parts[:index]) or 'st'}") from exc
    return found


@pytest.fixture(scope="module")
def names() -> dict[str, set[str]]:
    return mentioned()


def test_the_documents_use_the_face_widely(names: dict[str, set[str]]) -> None:
    """A check on the check: the scan finds the names people are shown first."""
    assert len(names) > 100
    assert {
        "read_games",
        "replay",
        "stats.piece_placement",
        "stats.compute_streaming",
        "filters.GameFilter.parse",
        "plots.setup_heatmap",
        "report.write_report",
        "Position.from_strados3",
        "views.setup_boards.common_setups_figure",
    } <= set(names)


def test_every_name_the_documents_use_answers(names: dict[str, set[str]]) -> None:
    missing = []
    for name, where in sorted(names.items()):
        try:
            resolve(name)
        except AttributeError as exc:
            missing.append(f"{name} ({', '.join(sorted(where))}): {exc}")
    assert missing == []


def test_the_documents_name_each_function_and_class_where_it_lives(
    names: dict[str, set[str]],
) -> None:
    """``strat_tools.MODULE.NAME`` is where ``NAME`` is defined: a document never sends its
    reader through a module that only imported it (a face, an ``__init__``, may gather)."""
    elsewhere = []
    for name, where in sorted(names.items()):
        try:
            found = resolve(name)
        except AttributeError:
            continue  # missing: the test above says so
        parent = resolve(name.rpartition(".")[0]) if "." in name else st
        if (
            isinstance(parent, ModuleType)
            and not str(parent.__file__).endswith("__init__.py")
            and (inspect.isfunction(found) or inspect.isclass(found))
            and found.__module__ != parent.__name__
        ):
            elsewhere.append(f"{name} ({', '.join(sorted(where))}) lives in {found.__module__}")
    assert elsewhere == []


def test_a_name_gone_from_the_face_is_missed() -> None:
    """The resolver fails on what is not there (so the test above can fail)."""
    with pytest.raises(AttributeError):
        resolve("formats.to_strados3")
    with pytest.raises(AttributeError):
        resolve("sources.count_units")
    assert resolve("engine.encodings.strados3.to_strados3") is not None


def test_the_face_lists_what_it_offers() -> None:
    """``dir(st)`` is the public names and the submodules, each of which answers."""
    for name in dir(st):
        assert getattr(st, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        st.nonsense  # noqa: B018
