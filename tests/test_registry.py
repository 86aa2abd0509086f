"""Adding a statistic is one object in one file: this file adds one and gets it everywhere.

The statistic below (how often the marshal stands in the front row) is defined here only,
with a count and a finish, and registered; nothing else in the package is touched. It then
shows in ``stats.compute``, in the streaming path, in ``strat-tools stats`` (choices and
help) and in the report. And docs/architecture.md's recipe, literally: a statistic added to
one module of a copy of the package is a ``--stat`` choice with its help in a fresh
command line, whose ``--help`` still loads no pandas.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import strat_tools
from strat_tools import stats
from strat_tools.cli import main as cli
from strat_tools.cli.declared import declared_statistics
from strat_tools.core.errors import OptionError
from strat_tools.report import page as report
from strat_tools.run.driver import read_games
from strat_tools.stats.formulas import share
from strat_tools.stats.frames import TableSet, count_setups, setup_frame
from strat_tools.stats.registry import Options, Statistic, register, unregister
from strat_tools.stats.stream import compute_streaming
from strat_tools.views import document

SAMPLE = Path(__file__).parent.parent / "data"


def count_front_marshals(data: TableSet, o: Options) -> pd.DataFrame:
    """[*by, front, setups]: setups with their marshal on the front row (row 4)."""
    keys = list(o.by)
    frame = setup_frame(data, keys, o.variant, **o.setup_options)
    front = frame[(frame["piece"] == "marshal") & (frame["row"] == 4)]
    counts = count_setups(frame, keys)
    fronts = count_setups(front, keys).rename(columns={"setups": "front"})
    if keys:
        table = counts.merge(fronts, on=keys, how="left").fillna({"front": 0})
        return table[[*keys, "front", "setups"]].astype({"front": "int64"})
    return pd.DataFrame({"front": fronts["front"], "setups": counts["setups"]})


def finish_front_marshals(counts: pd.DataFrame, o: Options) -> pd.DataFrame:
    table = counts.copy()
    table["share"] = share(table["front"], table["setups"])
    return table


FRONT_MARSHAL = Statistic(
    "front-marshal",
    "how often the marshal stands in the front row",
    count_front_marshals,
    finish_front_marshals,
    additive=("front", "setups"),
    report="Marshal in front",
)


@pytest.fixture
def registered() -> Iterator[Statistic]:
    register(FRONT_MARSHAL)
    yield FRONT_MARSHAL
    unregister(FRONT_MARSHAL.name)


@pytest.fixture(scope="module")
def sample() -> stats.TableSet:
    return read_games(SAMPLE, run=1, setups_only=True)


def test_a_registered_statistic_is_computed_in_memory_and_streaming(
    registered: Statistic, sample: stats.TableSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = stats.compute("front-marshal", sample, by="variant")
    frame = setup_frame(sample, ["variant"])
    marshals = frame[frame["piece"] == "marshal"].drop_duplicates(["game_id", "side"])
    expected = marshals.groupby("variant")["row"].apply(lambda r: (r == 4).mean())
    assert whole.set_index("variant")["share"].to_dict() == pytest.approx(expected.to_dict())
    monkeypatch.setattr("strat_tools.run.driver.REDUCE_BATCH", 40)  # many batches to combine
    streamed = compute_streaming("front-marshal", [SAMPLE], run=1, by="variant")
    pd.testing.assert_frame_equal(streamed, whole)


def test_a_registered_statistic_is_a_cli_choice_with_its_help(registered: Statistic) -> None:
    runner = CliRunner()
    help_text = runner.invoke(cli, ["stats", "--help"]).output
    words = " ".join(help_text.split()).replace("- ", "-")  # click breaks lines at hyphens
    assert "front-marshal: how often the marshal stands in the front row." in words
    result = runner.invoke(
        cli, ["stats", str(SAMPLE), "--stat", "front-marshal", "--format", "csv", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "variant,front,setups,share"


@pytest.mark.slow
def test_a_registered_statistic_with_a_title_gets_a_report_section(
    registered: Statistic, sample: stats.TableSet
) -> None:
    sections = report.build_sections(sample)
    (section,) = [s for s in sections if s.title == "Marshal in front"]
    (table,) = [b for b in section.blocks if isinstance(b, document.Table)]
    assert list(table.frame.columns) == ["front", "setups", "share"]


def test_an_unregistered_statistic_is_gone_and_a_name_is_taken_once(
    registered: Statistic,
) -> None:
    with pytest.raises(OptionError, match="registered already"):
        register(Statistic("front-marshal", "twice", count_front_marshals, finish_front_marshals))
    unregister("front-marshal")
    with pytest.raises(OptionError, match="unknown statistic 'front-marshal'"):
        stats.compute("front-marshal", read_games(SAMPLE, run=1, setups_only=True))
    register(FRONT_MARSHAL)


ADDED = """

from strat_tools.stats.frames import count_setups as _count_setups, setup_frame as _setups


def _count_setups_seen(data: TableSet, o: Options) -> pd.DataFrame:
    return _count_setups(_setups(data, list(o.by), o.variant, **o.setup_options), list(o.by))


SETUPS_SEEN: Final = register(
    Statistic(
        "setups-seen",
        "how many setups were read",
        _count_setups_seen,
        lambda counts, o: counts,
        additive=("setups",),
    )
)
"""
"""The recipe's one change: a statistic appended to ``stats/play.py``."""

RUN_ADDED = """
import contextlib, io, json, sys
from strat_tools.cli import main
found = {}
for args in (["stats", "--help"], ["stats", sys.argv[1], "--stat", "setups-seen",
                                   "--format", "csv", "--jobs", "1"]):
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        try:
            main(args, prog_name="strat-tools")
        except SystemExit as exc:
            assert not exc.code, (args, exc.code)
    heavy = sorted({"numpy", "pandas"} & set(sys.modules))
    found[args[1]] = [" ".join(shown.getvalue().split()), heavy]
print(json.dumps(found))
"""


def test_the_declared_statistics_are_the_registry() -> None:
    """What ``--stat`` offers before the registry is loaded is the registry: names, help
    and order, read from the statistics' modules."""
    assert declared_statistics() == {n: s.help for n, s in stats.STATISTICS.items()}
    assert list(declared_statistics()) == list(stats.STATISTICS)


def test_a_statistic_added_to_one_module_is_a_cli_choice(tmp_path: Path) -> None:
    """docs/architecture.md's recipe: touch one file (here ``stats/play.py`` of a copy of the
    package), and a fresh ``strat-tools stats`` lists it with its help (still without
    pandas) and computes it."""
    package = Path(strat_tools.__file__).parent
    copy = tmp_path / "strat_tools"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    play = copy / "stats" / "play.py"
    play.write_text(play.read_text() + ADDED)
    run = subprocess.run(
        [sys.executable, "-c", RUN_ADDED, str(SAMPLE)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "", "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    help_text, heavy = found["--help"]
    assert "setups-seen: how many setups were read." in help_text.replace("- ", "-")
    assert heavy == []
    table, _ = found[str(SAMPLE)]
    assert table.startswith("variant,setups classic,")
