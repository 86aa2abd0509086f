"""Inputs resolved once where they enter (issue 44.8 and the Dask defect of round five, 45.4).

Each path a caller gives is resolved once (:func:`strat_tools.io.sources.resolve`: as given,
absolute, its kind) into one :class:`~strat_tools.run.inputs.Inputs` value that the driver,
the pool, Dask and the tally take: followed from ``heatmap`` down, main resolved the paths
three times. The units carry the absolute path, so a worker in another folder opens what
this process listed, while every table and message shows the path as given.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import strat_tools as st
from strat_tools.cli import main
from strat_tools.exports.convert import convert
from strat_tools.io import sources
from strat_tools.io.sources import Input, UnitReader, iter_units, resolve
from strat_tools.report.inputs import report_inputs_of_paths
from strat_tools.run.driver import export_dataset
from strat_tools.run.filters import GameFilter
from strat_tools.run.inputs import Inputs

ROOT = Path(__file__).resolve().parent.parent
GAME = (ROOT / "tests" / "fixtures" / "gravon" / "classic-2014.4-17.xml").read_bytes()


@pytest.fixture
def games_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding games/ (a.xml, sub/b.xml, c.zip with d.xml), a dataset/
    folder exported from them, and elsewhere/ (an empty folder)."""
    games = tmp_path / "games"
    (games / "sub").mkdir(parents=True)
    (games / "a.xml").write_bytes(GAME)
    (games / "sub" / "b.xml").write_bytes(GAME)
    with zipfile.ZipFile(games / "c.zip", "w") as archive:
        archive.writestr("d.xml", GAME)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path)
    export_dataset("games/", "dataset", setups_only=True, run=1)
    return tmp_path


def test_each_kind_is_decided_once_and_shown_as_given(games_here: Path) -> None:
    inputs = Inputs.of(["games/", "games/c.zip", "games/*.xml", "nowhere.xml", "dataset"])
    assert [(item.given, item.kind) for item in inputs] == [
        ("games/", "folder"),
        ("games/c.zip", "zip"),
        ("games/*.xml", "glob"),
        ("nowhere.xml", "missing"),
        ("dataset", "dataset"),
    ]
    assert all(os.path.isabs(item.path) for item in inputs)
    (glob,) = [item for item in inputs if item.kind == "glob"]
    assert [(m.given, m.kind) for m in glob.matches] == [("games/a.xml", "file")]
    assert Inputs.of(inputs) is inputs


def test_units_show_the_path_as_given_and_open_it_from_any_folder(games_here: Path) -> None:
    units = list(iter_units(Inputs.of(["games", "./games/*.xml"])))
    assert [u.label for u in units] == [
        "games/a.xml",
        "games/c.zip!d.xml",
        "games/sub/b.xml",
        "./games/a.xml",
    ]
    os.chdir(games_here / "elsewhere")  # as a Dask worker started in another folder
    with UnitReader() as reader:
        assert all(reader.read(unit) == GAME for unit in units)


def test_a_folder_moved_after_resolving_is_not_resolved_again(games_here: Path) -> None:
    inputs = Inputs.of("games/")
    shutil.move(games_here / "games", games_here / "elsewhere" / "games")
    os.chdir(games_here / "elsewhere")  # "games/" now names the moved folder from here
    (unit,) = list(iter_units(inputs))  # the value says where it was: nothing there now
    assert unit.error is not None and unit.error.startswith("cannot list folder")
    assert unit.source == "games/"


def _counting(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    seen: Counter[str] = Counter()
    real = sources.resolve

    def counted(given: str, cwd: str | None = None) -> Input:
        seen[given] += 1
        return real(given, cwd)

    monkeypatch.setattr(sources, "resolve", counted)
    return seen


CALLS: dict[str, Callable[[Path], Any]] = {
    "heatmap": lambda tmp: CliRunner().invoke(
        main, ["heatmap", "games/", "dataset", "-o", str(tmp / "h.png"), "--jobs", "1"]
    ),
    "validate (command)": lambda tmp: CliRunner().invoke(
        main, ["validate", "games/", "dataset", "--rules", "classic", "--jobs", "1"]
    ),
    "setups (command)": lambda tmp: CliRunner().invoke(main, ["setups", "games/", "--jobs", "1"]),
    "report": lambda tmp: report_inputs_of_paths(["games/", "dataset"], run=1),
    "read_games": lambda tmp: st.read_games(["games/", "dataset"], run=1),
    "validate": lambda tmp: st.validate(["games/", "dataset"], run=1),
    "duplicates": lambda tmp: st.read_games(
        ["games/", "dataset"], select=GameFilter.parse(duplicates="exclude"), run=1
    ),
    "events": lambda tmp: st.read_events(["games/"], run=1),
    "convert": lambda tmp: convert(["games/"], tmp / "out.zip", to="gsn", run=1),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_every_path_is_resolved_once_per_call(
    name: str, games_here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _counting(monkeypatch)
    result = CALLS[name](games_here / "elsewhere")
    assert getattr(result, "exit_code", 0) == 0, getattr(result, "output", "")
    assert seen and set(seen.values()) == {1}, dict(seen)


def test_resolving_keeps_the_systems_meaning_of_dot_dot(games_here: Path) -> None:
    # games/sub/.. is games/ to the system; resolve joins without normalising.
    item = resolve("games/sub/..")
    assert item.kind == "folder" and item.path.endswith("games/sub/..")
    labels = [u.label for u in iter_units([item])]
    assert labels[0] == "games/sub/../a.xml"
