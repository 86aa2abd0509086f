"""Setup statistics counted batch by batch (flat memory) equal the in-memory ones, row for row."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from peak_memory import PEAK_MIB_CODE

from strat_tools import stats
from strat_tools.cli import main
from strat_tools.run import driver
from strat_tools.run.driver import read_games
from strat_tools.stats import stream
from strat_tools.stats.stream import compute_streaming

ROOT = Path(__file__).resolve().parent.parent
# The shipped sample (400 generated games) and the real-game fixtures (quirks included).
INPUTS = [str(ROOT / "data"), str(ROOT / "tests" / "fixtures" / "gravon")]


def _by(options: dict[str, Any]) -> list[str]:
    by = options.get("by") or []
    return [by] if isinstance(by, str) else list(by)


CASES: list[tuple[str, dict[str, Any]]] = [
    (name, options)
    for name in stats.SETUP_STATISTICS
    for options in (
        {},
        {"by": "variant"},
        {"by": ["period", "side"], "variant": "classic"},
        {"by": ["result", "year"]},
        {"variant": "barrage", "include_classicfree": True},
        {"piece": "bomb", "feature": "flag_corner", "by": "side"},
    )
    if not (name == "win-rate" and {"won", "result"} & set(_by(options)))
]


@pytest.fixture(scope="module")
def whole() -> Any:
    """The inputs read whole, the in-memory way."""
    return read_games(INPUTS, setups_only=True, run=1)


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 40 games, partial tables summed every 2: many batches and many folds."""
    monkeypatch.setattr(driver, "REDUCE_BATCH", 40)
    monkeypatch.setattr(stream, "_FOLD_EVERY", 2)


def streamed_in_one_pass(cases: list[tuple[str, dict[str, Any]]]) -> list[pd.DataFrame]:
    """Every case's table, counted batch by batch (batches of 40 games, folded every 2) in
    one pass over the inputs for all of them, as ``stats`` computes several statistics."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(driver, "REDUCE_BATCH", 40)
        patch.setattr(stream, "_FOLD_EVERY", 2)
        return stream.compute_many_streaming(cases, INPUTS, run=1)


@pytest.fixture(scope="module")
def streamed_setup_statistics() -> list[pd.DataFrame]:
    return streamed_in_one_pass(CASES)


@pytest.mark.parametrize(("case", "name", "options"), [(i, *c) for i, c in enumerate(CASES)])
def test_counted_batch_by_batch_equals_the_whole(
    whole: Any,
    streamed_setup_statistics: list[pd.DataFrame],
    case: int,
    name: str,
    options: dict[str, Any],
) -> None:
    expected = stats.compute(name, whole, **options)
    pd.testing.assert_frame_equal(streamed_setup_statistics[case], expected)


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize(("name", "options"), [CASES[0], CASES[-1]])
def test_one_statistic_streamed_alone_equals_the_whole(
    whole: Any, name: str, options: dict[str, Any]
) -> None:
    expected = stats.compute(name, whole, **options)
    got = compute_streaming(name, INPUTS, run=1, **options)
    pd.testing.assert_frame_equal(got, expected)


@pytest.mark.usefixtures("small_batches")
def test_worker_processes_give_the_same_table(whole: Any) -> None:
    expected = stats.compute("win-rate", whole, by="period", feature="bombs_next_to_flag")
    got = compute_streaming("win-rate", INPUTS, by="period", feature="bombs_next_to_flag", run=2)
    pd.testing.assert_frame_equal(got, expected)


def test_no_games_is_the_error_the_cli_reports_never_a_statistic_of_zeros(
    tmp_path: Path,
) -> None:
    """An empty folder: both ways in raise what the CLI shows with exit 2 (issue 36)."""
    from strat_tools.core.errors import NothingReadable

    with pytest.raises(NothingReadable, match="no game records found"):
        compute_streaming("flag", [tmp_path], run=1)
    with pytest.raises(NothingReadable, match="no game records found"):
        read_games([tmp_path], setups_only=True, run=1)


def test_an_unknown_statistic_or_grouping_is_refused_before_any_work() -> None:
    with pytest.raises(ValueError, match=r"unknown statistic 'luck'; choose from flag"):
        compute_streaming("luck", INPUTS)
    with pytest.raises(ValueError, match=r"cannot group by 'colour'"):
        compute_streaming("scouts", INPUTS, by="colour")


MOVE_CASES: list[tuple[str, dict[str, Any]]] = [
    (name, options)
    for name in (*stats.GAME_STATISTICS, *stats.MOVE_STATISTICS)
    for options in (
        {},
        {"by": "variant"},
        {"by": ["period", "year"], "variant": "classic"},
        *([{"by": ["side", "won"]}, {"by": "result"}] if name in stats.MOVE_STATISTICS else []),
    )
]


@pytest.fixture(scope="module")
def replayed() -> Any:
    """The inputs read whole and replayed, the in-memory way."""
    return read_games(INPUTS, run=1)


@pytest.fixture(scope="module")
def streamed_move_statistics() -> list[pd.DataFrame]:
    return streamed_in_one_pass(MOVE_CASES)


@pytest.mark.parametrize(("case", "name", "options"), [(i, *c) for i, c in enumerate(MOVE_CASES)])
def test_game_and_move_statistics_reduced_per_batch_equal_the_whole(
    replayed: Any,
    streamed_move_statistics: list[pd.DataFrame],
    case: int,
    name: str,
    options: dict[str, Any],
) -> None:
    # Counted ones (scouts, distances, attacks, scouts left) are summed; order statistics
    # (endings, lengths, first scout move: medians, percentiles) are taken from per-game
    # values sent back by each batch. Either way: the same table.
    expected = stats.compute(name, replayed, **options)
    pd.testing.assert_frame_equal(streamed_move_statistics[case], expected)


@pytest.mark.usefixtures("small_batches")
def test_one_move_statistic_streamed_alone_equals_the_whole(replayed: Any) -> None:
    expected = stats.compute("scouts-left", replayed, by=["side", "won"])
    got = compute_streaming("scouts-left", INPUTS, run=1, by=["side", "won"])
    pd.testing.assert_frame_equal(got, expected)


def test_stats_command_streams_records_and_agrees_with_an_export(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["--stat", "bombs-next-to-flag", "--by", "variant", "--format", "csv", "--jobs", "1"]
    streamed = runner.invoke(main, ["stats", *INPUTS, *args])
    assert streamed.exit_code == 0, streamed.output
    read_games(INPUTS, setups_only=True, run=1).export(tmp_path)
    in_memory = runner.invoke(main, ["stats", str(tmp_path), *args])
    assert in_memory.exit_code == 0, in_memory.output
    assert streamed.stdout == in_memory.stdout
    assert streamed.stdout.startswith("variant,bombs,count,setups,share\nbarrage,0,")


def _peak_mb(paths: list[str]) -> float:
    """The peak memory of one streaming run in a fresh process: its own (VmHWM), not the
    pytest worker's that ``ru_maxrss`` carries across exec (which made one run and four
    look alike whatever they did)."""
    code = PEAK_MIB_CODE + (
        "import sys\n"
        "from strat_tools.stats.stream import compute_streaming\n"
        "compute_streaming('placement', sys.argv[1:], by='period', run=1)\n"
        "print(peak_mib())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *paths], capture_output=True, text=True, check=True
    )
    return float(out.stdout.split()[-1])


@pytest.mark.slow
def test_real_archive_months_agree_and_memory_does_not_grow_with_copies(
    gravon_dir: Path,
) -> None:
    months = [str(p) for p in sorted(gravon_dir.glob("strados*.zip"))[-3:]]
    games = read_games(months, setups_only=True)
    for name, by in (("flag", "period"), ("win-rate", "variant"), ("flag-enclosed", "year")):
        expected = stats.compute(name, games, by=by)
        pd.testing.assert_frame_equal(compute_streaming(name, months, by=by), expected)
    # Four times the input (the same zips named four times: read four times, counted four
    # times) in a fresh process: peak memory stays within 20% of one pass.
    del games
    one, four = _peak_mb(months), _peak_mb(months * 4)
    assert four <= 1.2 * one, (one, four)
