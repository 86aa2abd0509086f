"""The public face stays: every name ``import strat_tools as st`` offered at 466d43e (before
the floors were subpackages) still answers, whichever floor it lives on now.

The list in ``fixtures/public_face/466d43e.txt`` is :func:`public_names` run on that
commit's package (``git archive 466d43e strat_tools``): ``st.NAME`` for each name of the
package's ``__all__`` and each module it offered (``st.plots``), and ``st.MODULE.NAME`` for
each name of that module's ``__all__`` (or, without one, each function and class it
defines). :func:`test_the_list_is_what_466d43e_offered` makes it again from git, so the list
cannot drift from the commit it names.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import tarfile
from importlib import import_module
from io import BytesIO
from pathlib import Path
from types import ModuleType

import pytest

import strat_tools as st

ROOT = Path(__file__).resolve().parent.parent
RECORDED = Path(__file__).parent / "fixtures" / "public_face" / "466d43e.txt"
BEFORE = "466d43e"


def public_names(package: ModuleType) -> list[str]:
    """``st.NAME`` and ``st.MODULE.NAME`` for everything the package's face offers."""
    names: set[str] = set(package.__all__)
    for sub in package._SUBMODULES:
        names.add(sub)
        module = getattr(package, sub)
        public = getattr(module, "__all__", None)
        if public is None:
            public = [
                key
                for key, value in vars(module).items()
                if not key.startswith("_")
                and (inspect.isfunction(value) or inspect.isclass(value))
                and value.__module__ == module.__name__
            ]
        names.update(f"{sub}.{key}" for key in public)
    return sorted(names)


def recorded() -> list[str]:
    return RECORDED.read_text().split()


def resolve(dotted: str) -> object:
    found: object = st
    for part in dotted.split("."):
        found = getattr(found, part)
    return found


def test_the_list_is_long_and_holds_the_names_that_once_went_missing() -> None:
    """A check on the check: an empty or truncated list would pass anything."""
    names = recorded()
    assert len(names) > 400
    assert {
        "read_games",
        "plots",
        "formats.StraDos3",
        "formats.parse_strados3",
        "formats.strados3_at",
        "formats.to_strados3",
        "dataset.FORMATS",
        "selection.select_for",
        "selection.SelectedUnits",
        "sources.count_units",
    } <= set(names)


RECUT: dict[str, str] = {
    "plots.adjacency_figure": "strat_tools.views.charts",
    "plots.game_length_histogram": "strat_tools.views.charts",
    "plots.win_rate_chart": "strat_tools.views.charts",
    "plots.save_figure": "strat_tools.views.figure_files",
    "plots.text_as_written": "strat_tools.views.figure_files",
}
"""Names ``st.plots`` offered that issue 37's split by concern moved to the module that
defines them (no module re-exports another's): each still answers there."""


def test_every_name_offered_at_466d43e_still_resolves() -> None:
    missing = []
    for name in recorded():
        try:
            if name in RECUT:
                getattr(import_module(RECUT[name]), name.rsplit(".", 1)[1])
            else:
                resolve(name)
        except AttributeError as exc:
            missing.append(f"st.{name}: {exc}")
    assert missing == []


def test_the_strados3_names_are_the_engines_own() -> None:
    """Forwarded, not copied: one definition each (the engine's)."""
    from strat_tools.engine import strados3

    for name in ("StraDos3", "parse_strados3", "strados3_at", "to_strados3"):
        assert getattr(st.formats, name) is getattr(strados3, name)
        assert name in dir(st.formats)
    text = st.formats.to_strados3([0] * 100, side=1, plies=0)
    assert st.formats.parse_strados3(text).plies == 0
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        st.formats.nonsense  # noqa: B018


def test_old_names_answer_with_what_replaced_them(tmp_path: Path) -> None:
    from strat_tools.run.driver import UnitKeys, select_step
    from strat_tools.run.filters import GameFilter
    from strat_tools.tables.dataset import TABLE_FORMATS

    assert st.dataset.FORMATS is TABLE_FORMATS and "FORMATS" not in dir(st.dataset)
    data = ROOT / "data"
    assert st.sources.count_units(data) == sum(1 for _ in st.sources.iter_units(data))
    duell = GameFilter.parse(variant="duell")
    assert st.selection.select_for([str(data)], duell) == select_step([str(data)], duell)
    chosen = st.selection.select_games([str(data)], duell, jobs=1)
    keys = st.selection.SelectedUnits(chosen)
    assert isinstance(keys, UnitKeys) and keys.keys == chosen.select.keys
    assert len(keys.keys) == 20


@pytest.mark.slow
def test_the_list_is_what_466d43e_offered(tmp_path: Path) -> None:
    """The list made again from the commit it names (skipped without that history)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BEFORE, "strat_tools"],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        pytest.skip(f"commit {BEFORE} is not in this clone's history")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path, filter="data")
    script = (
        "import json, sys, strat_tools\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_public_face import public_names\n"
        "print(json.dumps(public_names(strat_tools)))\n"
    )
    made = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(made.stdout) == recorded()
