"""The one input driver: selection, per-game containment, ids, dataset folders."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from strat_tools.core.errors import InputError, OptionError
from strat_tools.core.records import GameRecord
from strat_tools.exports.validate import iter_verdicts
from strat_tools.run.batch_work import SelectError
from strat_tools.run.driver import (
    export_dataset,
    iter_tables,
    map_games,
    read_games,
    reduce_batches,
)
from strat_tools.run.options import Run
from strat_tools.run.tally import Tally
from strat_tools.tables.dataset import GameSet

FIXTURES = Path(__file__).parent / "fixtures" / "gravon"
ONE_GAME = FIXTURES / "classic-2014.4-17.xml"
DATA = Path(__file__).parent.parent / "data"


def odd_numbered(record: GameRecord) -> bool:
    """A picklable selection: keep the games whose Gravon number is odd."""
    return record.number is not None and record.number % 2 == 1


class OddNumbered:
    """The same selection, with the dataset-folder form (``rows``)."""

    def __call__(self, record: GameRecord) -> bool:
        return odd_numbered(record)

    def rows(self, tables: dict[str, Any]) -> Any:
        import pyarrow.compute as pc

        number = tables["games"].column("number")
        return pc.fill_null(pc.equal(pc.bit_wise_and(number, 1), 1), False)


def game_count(games: GameSet) -> int:
    return len(games)


def count_unless(games: GameSet, bad: str) -> int:
    """A reduction with a bug: it raises on the game ``bad`` (when that game is valid)."""
    valid = games.games[games.games["status"] == "valid"]
    if (valid["game_id"] == bad).any():
        raise KeyError(f"no such thing in {bad}")
    return len(valid)


def test_select_runs_in_the_worker_and_its_drops_are_counted() -> None:
    everything = read_games(DATA, setups_only=True, run=1)
    tally = Tally()
    kept = read_games(DATA, setups_only=True, select=odd_numbered, run=Run(jobs=2, tally=tally))
    odd = everything.games["number"].dropna() % 2 == 1
    assert len(kept) == int(odd.sum()) > 0
    assert tally.dropped == len(everything) - len(kept)
    assert tally.games == len(kept)
    assert set(kept.setups["game_id"]) <= set(kept.games["game_id"])


def test_select_applies_to_a_dataset_folder_only_in_its_rows_form(tmp_path: Path) -> None:
    export_dataset(DATA, tmp_path / "out", setups_only=True, run=1)
    direct = read_games(DATA, setups_only=True, run=1, select=odd_numbered)
    tally = Tally()
    back = read_games(tmp_path / "out", select=OddNumbered(), run=Run(tally=tally))
    assert back.games["game_id"].tolist() == direct.games["game_id"].tolist()
    assert tally.dropped > 0
    with pytest.raises(InputError, match="dataset folder"):
        read_games(tmp_path / "out", select=odd_numbered)


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
def test_a_reduction_that_raises_on_one_game_costs_that_game_only() -> None:
    games = read_games(DATA, run=1)
    valid = games.games[games.games["status"] == "valid"]
    bad = str(valid["game_id"].iloc[7])
    tally = Tally()
    counts = list(
        reduce_batches(partial(count_unless, bad=bad), DATA, run=Run(jobs=1, tally=tally))
    )
    assert sum(counts) == len(valid) - 1
    assert tally.failed == 1
    (failure,) = tally.failures
    assert "[internal.reduce] KeyError" in failure and "no such thing" in failure
    row = games.games.set_index("game_id").loc[bad]
    assert f"{row['source']}!{row['member']}" in failure


def test_a_reduction_that_fails_on_every_game_together_only_is_a_bug() -> None:
    def raises(games: GameSet) -> int:
        if len(games) > 1:
            raise IndexError("batch-level bug")
        return 1

    with pytest.raises(IndexError, match="batch-level bug"):
        list(reduce_batches(raises, DATA, run=1, setups_only=True))


class Exploding:
    """A selection that raises on one game: the caller's error, not the game's."""

    def __init__(self, number: int) -> None:
        self.number = number

    def __call__(self, record: GameRecord) -> bool:
        if record.number == self.number:
            raise LookupError("selection bug")
        return True


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_select_predicate_that_raises_stops_the_run_naming_the_game(jobs: int) -> None:
    # Round five: it made every game of the batch invalid (internal.select), silently.
    everything = read_games(DATA, setups_only=True, run=1)
    number = int(everything.games["number"].dropna().iloc[3])
    member = everything.games[everything.games["number"] == number]["member"].iloc[0]
    with pytest.raises(SelectError, match="select= predicate raised LookupError") as caught:
        read_games(DATA, setups_only=True, select=Exploding(number), run=jobs)
    assert f"!{member}" in str(caught.value)
    with pytest.raises(SelectError, match="selection bug"):
        list(iter_verdicts(DATA, select=Exploding(number), run=jobs))


def test_rows_failing_on_one_game_become_an_internal_rows_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from strat_tools.tables import build as tables

    real = tables.tables_for_records

    def fragile(records: Any, **options: Any) -> Any:
        records = list(records)
        if any(r.number == 17 and r.setup is not None for r in records):
            raise ZeroDivisionError("rows bug")
        return real(records, **options)

    monkeypatch.setattr(tables, "tables_for_records", fragile)
    games = read_games(ONE_GAME, run=1)
    (row,) = games.games.to_dict("records")
    assert row["status"] == "invalid"
    assert "internal.rows" in games.diagnostics["code"].tolist()
    message = games.diagnostics.set_index("code").loc["internal.rows", "message"]
    assert message == "ZeroDivisionError: rows bug"


def test_game_ids_stay_unique_across_inputs_and_dataset_folders(tmp_path: Path) -> None:
    export_dataset(ONE_GAME, tmp_path / "out", run=1)
    games = read_games([ONE_GAME, tmp_path / "out", ONE_GAME], run=1)
    assert games.games["game_id"].tolist() == [
        "classic-2014.4-17",
        "classic-2014.4-17#2",
        "classic-2014.4-17#3",
    ]


def test_export_of_a_dataset_folder_streams_it_in_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export_dataset(DATA, tmp_path / "one", setups_only=True, run=1)
    monkeypatch.setattr("strat_tools.tables.dataset.DATASET_BATCH_GAMES", 50)
    sizes = [t["games"].num_rows for t in iter_tables(tmp_path / "one")]
    assert len(sizes) > 1 and max(sizes) <= 50
    summary = export_dataset(tmp_path / "one", tmp_path / "two", run=1)
    assert summary.games == sum(sizes)
    pd.testing.assert_frame_equal(
        read_games(tmp_path / "two").setups, read_games(tmp_path / "one").setups
    )


def test_bad_rules_are_refused_before_any_work() -> None:
    with pytest.raises(OptionError, match="nosuch"):
        list(reduce_batches(game_count, DATA, rules="nosuch"))


@pytest.mark.parametrize("rules", ["nosuch", "gravon-2013+nosuch"])
def test_bad_rules_are_the_one_usage_error_raised_when_an_entry_point_is_called(
    rules: str, tmp_path: Path
) -> None:
    """Not when the first batch is asked for: calling is enough, and the paths (missing
    here) are never looked at; setups only is no exception (the rules are still a typo)."""
    from strat_tools.core.errors import UsageError
    from strat_tools.exports.event_table import EventsWork
    from strat_tools.run.driver import map_records

    missing = tmp_path / "no-such-folder"
    calls = [
        partial(iter_tables, missing, rules=rules),
        partial(iter_tables, missing, rules=rules, setups_only=True),
        partial(reduce_batches, game_count, missing, rules=rules),
        partial(map_records, EventsWork(rules), missing),
        partial(export_dataset, missing, tmp_path / "out", rules=rules),
    ]
    for call in calls:
        with pytest.raises(UsageError, match="nosuch") as caught:
            call()
        assert caught.value.option == "rules"
    assert list(tmp_path.iterdir()) == []  # no output folder begun


def test_map_games_refuses_a_dataset_folder(tmp_path: Path) -> None:
    export_dataset(ONE_GAME, tmp_path / "out", run=1)
    with pytest.raises(InputError, match="exported dataset folder"):
        list(map_games(game_id_of, tmp_path / "out"))


def game_id_of(record: GameRecord) -> str:
    """A picklable per-game value: the record's id."""
    return record.game_id


@pytest.fixture
def one_game_twice(tmp_path: Path) -> Path:
    """The same game under two names (one fingerprint) and another game: a duplicate pair."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "classic-2014.4-17.xml").write_bytes(ONE_GAME.read_bytes())
    (folder / "classic-2014.4-90.xml").write_bytes(ONE_GAME.read_bytes())
    other = FIXTURES.parent / "tables" / "two_battles" / "classic-2014.4-1.xml"
    (folder / other.name).write_bytes(other.read_bytes())
    return folder


@pytest.mark.parametrize(
    ("duplicates", "kept"),
    [
        ("exclude", ["classic-2014.4-1", "classic-2014.4-17"]),
        ("only", ["classic-2014.4-17", "classic-2014.4-90"]),
    ],
)
def test_every_entry_point_takes_a_filter_and_judges_duplicates_over_the_whole_run(
    one_game_twice: Path, tmp_path: Path, duplicates: str, kept: list[str]
) -> None:
    from strat_tools.exports.event_table import EventsWork
    from strat_tools.run.driver import map_records
    from strat_tools.run.filters import GameFilter

    chosen = GameFilter.parse(duplicates=duplicates)
    steps: list[int] = []
    tally = Tally()
    # Two jobs and batches of one game: a duplicate pair split across batches and workers.
    run = Run(jobs=2, progress=steps.append, tally=tally)
    games = read_games(one_game_twice, select=chosen, run=run)
    assert sorted(games.games["game_id"]) == kept
    assert (tally.games, tally.dropped, sum(steps)) == (2, 1, 3)  # the first pass is not counted
    ids = map_games(game_id_of, one_game_twice, select=chosen, run=1)
    assert sorted(ids) == kept
    counts = reduce_batches(game_count, one_game_twice, select=chosen, run=1)
    assert sum(counts) == 2
    events = map_records(EventsWork("auto"), one_game_twice, select=chosen, run=1)
    assert sorted({g for t in events for g in t.column("game_id").to_pylist()}) == kept
    export_dataset(one_game_twice, tmp_path / "tables", run=1)
    back = read_games(tmp_path / "tables", select=chosen, run=1)
    assert sorted(back.games["game_id"]) == kept


def test_a_filter_that_keeps_everything_adds_no_step(one_game_twice: Path) -> None:
    from strat_tools.run.driver import select_step
    from strat_tools.run.filters import GameFilter

    assert select_step([one_game_twice], GameFilter()) is None
    winner = GameFilter.parse(winner="red")
    assert select_step([one_game_twice], winner) == winner  # its per-game part, judged in place
    assert select_step([one_game_twice], odd_numbered) is odd_numbered


class Bar:
    """A progress bar as the CLI draws one: it needs its total first (``SizedProgress``)."""

    def __init__(self) -> None:
        self.totals: list[int] = []
        self.done = 0

    def start(self, total: int) -> None:
        self.totals.append(total)

    def __call__(self, done: int, /) -> None:
        assert self.totals, "progress before its total"
        self.done += done


@pytest.fixture
def zip_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of a zip's directory (the costly part of expanding the inputs)."""
    from strat_tools.io import sources

    reads: list[str] = []
    real = sources.read_directory  # type: ignore[attr-defined]

    def counted(handle: Any, size: int) -> Any:
        reads.append(getattr(handle, "name", "?"))
        return real(handle, size)

    monkeypatch.setattr(sources, "read_directory", counted)
    return reads


def test_a_bar_gets_its_total_from_the_one_expansion_of_the_inputs(
    zip_reads: list[str], tmp_path: Path
) -> None:
    from strat_tools.run.options import SizedProgress

    export_dataset(ONE_GAME, tmp_path / "tables", run=1)
    zip_reads.clear()
    bar = Bar()
    assert isinstance(bar, SizedProgress)
    inputs = [DATA, tmp_path / "tables", ONE_GAME]
    games = read_games(inputs, setups_only=True, run=Run(jobs=1, progress=bar))
    assert bar.totals == [401] and bar.done == 401  # record files: the dataset is not counted
    assert len(games) == 402
    assert len(zip_reads) == 1  # the sample's zip directory, read once for the whole run
    for run_one in (
        lambda run: list(reduce_batches(game_count, inputs, setups_only=True, run=run)),
        lambda run: list(map_games(game_id_of, [DATA, ONE_GAME], run=run)),
    ):
        zip_reads.clear()
        bar = Bar()
        run_one(Run(jobs=1, progress=bar))
        assert bar.totals == [401] and bar.done == 401 and len(zip_reads) == 1


def test_without_a_bar_nothing_is_counted_and_the_units_stream(
    zip_reads: list[str], tmp_path: Path
) -> None:
    from strat_tools.run.driver import input_parts

    export_dataset(ONE_GAME, tmp_path / "tables", run=1)
    zip_reads.clear()
    inputs = [DATA, ONE_GAME, tmp_path / "tables", DATA]
    steps: list[int] = []
    for progress in (None, steps.append):
        parts = input_parts(inputs, Run(progress=progress))
        assert [p.folder for p in parts] == [None, str(tmp_path / "tables"), None]
        assert zip_reads == []  # decided, not expanded: the units come as the work reaches them
        assert not isinstance(parts[0].units, list)
        assert sum(1 for _ in parts[0].units) == 401 and len(zip_reads) == 1
        zip_reads.clear()
    bar = Bar()
    parts = input_parts(inputs, Run(progress=bar))
    assert bar.totals == [801] and len(zip_reads) == 2  # listed once, for the bar
    assert [len(p.units) for p in parts] == [401, 0, 400]  # type: ignore[arg-type]


def test_dataset_folder_is_the_one_decision_of_a_dataset_alone(tmp_path: Path) -> None:
    """What the setup search asks before answering from a games table: one exported folder
    and nothing else; records (never expanded to find out) or a mix are read as usual."""
    from strat_tools.run.driver import dataset_folder

    out = tmp_path / "out"
    export_dataset(ONE_GAME, out, run=1)
    assert dataset_folder([str(out)]) == str(out)
    assert dataset_folder(str(out)) == str(out)
    assert dataset_folder([str(DATA)]) is None
    assert dataset_folder([str(out), str(ONE_GAME)]) is None
    assert dataset_folder([str(out), str(out)]) is None
    assert dataset_folder([str(tmp_path / "no-such-folder")]) is None
