"""Adding a statistic is one object in one file: this file adds one and gets it everywhere.

The statistic below (how often the marshal stands in the front row) is defined here only,
with a count and a finish, and registered; nothing else in the package is touched. It then
shows in ``stats.compute``, in the streaming path, in ``strat-tools stats`` (choices and
help) and in the report.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from strat_tools import stats
from strat_tools.cli import main as cli
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
