"""GameSet, read_games, export and read_dataset: round trips, atomic writes, streaming.

Uses the table fixtures (tests/fixtures/tables/, see test_tables.py) and, where it is
present, the real archive (``archive`` marker; skipped with the reason where it is absent).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from layouts import part, to_old_layout, vouch

from strat_tools import tables
from strat_tools.core.board import Side, parse_square
from strat_tools.core.errors import DatasetError, NothingReadable
from strat_tools.core.pieces import CODE_LETTERS, PieceKind, piece_code
from strat_tools.io import staging
from strat_tools.io.owned import MARKER_NAME
from strat_tools.io.sources import expand
from strat_tools.run import batch_work, driver
from strat_tools.run.driver import export_dataset, iter_tables, read_games
from strat_tools.run.options import Run
from strat_tools.tables import dataset, dataset_writer, layout
from strat_tools.tables.columns import concat_tables
from strat_tools.tables.dataset import GameSet, read_dataset
from strat_tools.tables.dataset_writer import DatasetWriter

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tables"
ROOT = Path(__file__).resolve().parent.parent
TABLES = ("games", "setups", "moves", "diagnostics", "events")


@pytest.fixture(scope="module")
def fixture_set() -> GameSet:
    return read_games(FIXTURES, run=1)


def assert_same(left: GameSet, right: GameSet) -> None:
    """The four frames are equal, dtypes and categories included."""
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(left, name), getattr(right, name), obj=name)


def test_read_games_takes_a_str_a_path_a_list_or_a_glob(fixture_set: GameSet) -> None:
    assert len(fixture_set) == 4
    assert_same(read_games(str(FIXTURES), run=1), fixture_set)
    by_list = read_games([FIXTURES / "two_battles", FIXTURES / "not_xml"], run=1)
    assert list(by_list.games["game_id"]) == ["classic-2014.4-1", "classic-2014.4-2"]
    by_glob = read_games(str(FIXTURES / "*" / "classic-2014.4-*.xml"), run=1)
    assert sorted(by_glob.games["game_id"]) == [
        "classic-2014.4-1",
        "classic-2014.4-2",
        "classic-2014.4-4",
    ]


def test_a_missing_path_is_an_unreadable_input_and_read_games_says_so_as_the_cli() -> None:
    """In the batches it is an unreadable input, not a game nor an exception; ``read_games``
    raises what the CLI reports with exit 2, never an empty set (issue 36)."""
    batches = list(iter_tables(str(FIXTURES / "nowhere.zip"), run=1))
    games = GameSet(concat_tables(batches))
    assert list(games.games["status"]) == ["unreadable"]
    assert len(games.diagnostics) == 1
    assert (games.counts()["games"], games.counts()["unreadable"]) == (0, 1)
    assert repr(games).startswith("<GameSet 0 games: 0 valid, 0 invalid, 0 unchecked, 1 unreadable")
    with pytest.raises(NothingReadable, match=r"nowhere\.zip: no such file or folder"):
        read_games(FIXTURES / "nowhere.zip", run=1)


def test_repr_and_counts_account_for_every_game(fixture_set: GameSet) -> None:
    assert repr(fixture_set) == (
        "<GameSet 4 games: 2 valid, 2 invalid, 0 unchecked; 160 setup rows, 7 moves, "
        "4 diagnostics, 7 events>"
    )
    counts = fixture_set.counts()
    assert counts["valid"] + counts["invalid"] + counts["unchecked"] == counts["games"] == 4


def test_frames_have_the_declared_dtypes(fixture_set: GameSet) -> None:
    games, setups, moves = fixture_set.games, fixture_set.setups, fixture_set.moves
    assert str(games["month"].dtype) == "Int8" and str(games["year"].dtype) == "Int16"
    assert str(games["has_setup"].dtype) == "boolean"
    assert isinstance(setups["piece"].dtype, pd.CategoricalDtype)
    assert len(setups["piece"].cat.categories) == 12
    assert list(moves["side"].cat.categories) == ["red", "blue"]
    assert len(moves["from_square"].cat.categories) == 100


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_export_then_read_back_gives_equal_frames(
    fixture_set: GameSet, tmp_path: Path, fmt: Any
) -> None:
    summary = fixture_set.export(tmp_path, fmt)
    assert sorted(os.listdir(tmp_path)) == sorted([*TABLES, MARKER_NAME])
    for name in TABLES:  # a folder per table, of one part here
        assert os.listdir(tmp_path / name) == [f"part-00000.{fmt}"], name
    assert (summary.games, summary.valid, summary.invalid, summary.unchecked) == (4, 2, 2, 0)
    assert summary.rows == {"games": 4, "setups": 160, "moves": 7, "diagnostics": 4, "events": 7}
    back = read_dataset(tmp_path)
    assert_same(back, fixture_set)
    # read_games on a dataset folder reads it back too.
    assert_same(read_games(tmp_path), fixture_set)


def test_csv_keeps_empty_strings_apart_from_nulls(tmp_path: Path) -> None:
    games = tables.table_from_columns(
        "games",
        {
            "game_id": ["a", "b"],
            "source": ["x", "y"],
            "member": [None, ""],
            "variant": [None, "classic"],
            "period": ["", None],
            "status": ["invalid", "valid"],
            "plies": [0, 0],
            "plies_replayed": [0, 0],
            "n_errors": [1, 0],
            "n_warnings": [0, 0],
            "has_setup": [False, False],
            "readable": [False, True],
            "replayed": [False, True],
        },
    )
    gameset = GameSet({**tables.empty_tables(), "games": games})
    gameset.export(tmp_path, "csv")
    back = read_dataset(tmp_path).games
    assert back["member"].isna().tolist() == [True, False]
    assert back["member"].iloc[1] == "" and back["period"].iloc[0] == ""
    assert back["period"].isna().tolist() == [False, True]
    assert back["variant"].isna().tolist() == [True, False]  # a categorical's null stays null


def test_reading_a_dataset_does_not_parse_anything(
    fixture_set: GameSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixture_set.export(tmp_path)

    def no_parsing(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a dataset folder was parsed as records")

    monkeypatch.setattr(batch_work, "read_units", no_parsing)  # where batches are read
    assert len(read_games(tmp_path)) == 4


def test_a_failed_export_leaves_the_old_files_and_no_temporary_ones(
    fixture_set: GameSet, tmp_path: Path
) -> None:
    fixture_set.export(tmp_path)

    def files() -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    before = files()
    with pytest.raises(RuntimeError, match="crash"), DatasetWriter(tmp_path) as writer:
        writer.write(tables.empty_tables())
        raise RuntimeError("crash half way")
    assert files() == before


def test_export_streams_batch_by_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One row group per batch when the buffer holds a single row: what arrives is written.
    monkeypatch.setattr(dataset_writer, "ROW_GROUP_ROWS", 1)
    written: list[int] = []
    summary = export_dataset(
        [FIXTURES], tmp_path, run=1, on_batch=lambda t: written.append(t["games"].num_rows)
    )
    assert sum(written) == summary.games == 4 and len(written) == 4
    assert pq.ParquetFile(part(tmp_path, "games")).num_row_groups == 4


def test_export_rejects_an_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format 'xlsx'"):
        export_dataset([FIXTURES], tmp_path, format="xlsx")  # type: ignore[arg-type]


def test_read_dataset_names_a_missing_table(fixture_set: GameSet, tmp_path: Path) -> None:
    fixture_set.export(tmp_path)
    shutil.rmtree(tmp_path / "moves")
    with pytest.raises(DatasetError, match="has no moves table"):
        read_dataset(tmp_path)


# --- the real archive ------------------------------------------------------------------------


def raw_fields(folder: Path) -> dict[str, str]:
    """game_id → field content, read straight from the zips with a regular expression."""
    fields: dict[str, str] = {}
    pattern = re.compile(rb'<field content="([^"]*)"')
    for path in sorted(folder.glob("*.zip")):
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                found = pattern.search(archive.read(member))
                if found:
                    fields[Path(member).stem] = found.group(1).decode()
    return fields


@pytest.mark.archive
@pytest.mark.slow
def test_archive_setups_agree_square_by_square_with_the_raw_fields(gravon_dir: Path) -> None:
    games = read_games(gravon_dir, setups_only=True, run=2)
    assert len(games) == 13_980
    fields = raw_fields(gravon_dir)
    setups = games.tables["setups"]
    # Field letter per (side index, piece index): the dictionaries are the board's orders.
    codes = [
        CODE_LETTERS[piece_code(side, PieceKind.from_label(label))]
        for side in (Side.RED, Side.BLUE)
        for label in tables.DICTIONARIES["piece"]
    ]
    side = setups.column("side").combine_chunks().indices.to_numpy()
    piece = setups.column("piece").combine_chunks().indices.to_numpy()
    square = setups.column("square").combine_chunks().indices.to_numpy()
    game_ids = setups.column("game_id").to_pylist()
    seen: dict[str, dict[int, str]] = {}
    for game_id, s, p, sq in zip(game_ids, side, piece, square, strict=True):
        seen.setdefault(game_id, {})[int(sq)] = codes[int(s) * 12 + int(p)]
    expected = {
        game_id: {i: ch for i, ch in enumerate(content) if ch not in "A_"}
        for game_id, content in fields.items()
    }
    expected = {k: v for k, v in expected.items() if v}
    assert seen == expected
    assert len(game_ids) == sum(len(v) for v in expected.values())
    assert parse_square("K10") == 99  # the square dictionary is the board index


@pytest.mark.archive
@pytest.mark.slow
def test_archive_export_holds_every_game_and_move(gravon_dir: Path, tmp_path: Path) -> None:
    summary = export_dataset([gravon_dir], tmp_path, run=2)
    assert summary.games == 13_980
    assert summary.valid + summary.invalid + summary.unchecked == 13_980
    assert summary.rows["moves"] == 4_328_697
    back = read_dataset(tmp_path)
    assert len(back) == 13_980
    assert Counter(back.games["variant"]) == {
        "classic": 12_400,
        "barrage": 1_440,
        "ultimate lightning": 55,
        "classicfree": 54,
        "duell": 31,
    }
    assert int(back.games["plies"].sum()) == 4_328_697


# --- the export command ----------------------------------------------------------------------


def test_export_command_writes_the_tables_and_accounts_for_every_input(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    out = tmp_path / "tables"
    result = CliRunner().invoke(main, ["export", str(FIXTURES), "-o", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "4 games = 2 valid + 2 invalid + 0 unchecked" in result.stderr
    assert "2 invalid games are in the tables" in result.stderr
    assert result.stdout == ""
    assert len(read_dataset(out)) == 4
    csv_out = tmp_path / "csv"
    converted = CliRunner().invoke(
        main, ["export", str(out), "-o", str(csv_out), "--format", "csv"]
    )
    assert converted.exit_code == 0, converted.output
    assert_same(read_dataset(csv_out), read_dataset(out))


def test_export_command_errors(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    runner = CliRunner()
    bad_rules = runner.invoke(main, ["export", str(FIXTURES), "-o", str(tmp_path), "--rules", "x"])
    assert bad_rules.exit_code in (1, 2) and "unknown rule set 'x'" in bad_rules.stderr
    assert not list(tmp_path.iterdir())
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = runner.invoke(main, ["export", str(empty), "-o", str(tmp_path / "out")])
    assert nothing.exit_code == 2 and "no game records found" in nothing.stderr
    help_text = runner.invoke(main, ["export", "--help"]).output
    assert "Example:" in help_text and "strat-tools export" in help_text


def test_a_parquet_folder_per_table_is_read_too(fixture_set: GameSet, tmp_path: Path) -> None:
    # Dask and Spark write a table as a folder of part files: NAME/part-*.parquet.
    fixture_set.export(tmp_path)
    for name in TABLES:
        whole = pq.read_table(part(tmp_path, name))
        shutil.rmtree(tmp_path / name)
        (tmp_path / name).mkdir()
        pq.write_table(whole.slice(0, 2), tmp_path / name / "part-0.snappy.parquet")
        pq.write_table(whole.slice(2), tmp_path / name / "part-1.snappy.parquet")
        (tmp_path / name / "_SUCCESS").write_bytes(b"")  # what Spark leaves beside them
    (tmp_path / MARKER_NAME).unlink()  # Dask and Spark write no marker
    assert_same(read_dataset(tmp_path), fixture_set)


@pytest.mark.slow
def test_read_games_on_a_local_dask_cluster_gives_the_same_tables(fixture_set: GameSet) -> None:
    pytest.importorskip("dask.distributed", reason="Dask is the optional 'dist' extra")
    assert_same(read_games(FIXTURES, run=Run(jobs=2, dask=True)), fixture_set)


# --- keys and fences -------------------------------------------------------------------------


@pytest.fixture()
def same_name_twice(tmp_path: Path) -> list[Path]:
    """The two_battles game under its one file name in two folders."""
    folders = []
    for sub in ("a", "b"):
        folder = tmp_path / sub
        folder.mkdir()
        source = FIXTURES / "two_battles" / "classic-2014.4-1.xml"
        (folder / source.name).write_bytes(source.read_bytes())
        folders.append(folder)
    return folders


def test_two_inputs_with_one_file_name_stay_two_games(same_name_twice: list[Path]) -> None:
    # run=1 over two units makes two batches: the ids are made unique across batches ...
    across = read_games(same_name_twice, run=1)
    # ... and within one batch, by the builder.
    within = GameSet(tables.tables_for_units(expand(same_name_twice)))
    for games in (across, within):
        assert list(games.games["game_id"]) == ["classic-2014.4-1", "classic-2014.4-1#2"]
        assert games.setups.groupby("game_id").size().to_dict() == {
            "classic-2014.4-1": 80,
            "classic-2014.4-1#2": 80,
        }
        assert games.moves.groupby("game_id").size().to_list() == [5, 5]
        assert "b" in Path(games.games["source"].iloc[1]).parts


def test_game_ids_are_renumbered_past_names_already_taken() -> None:
    ids = tables.GameIds()
    assert [ids.claim(n) for n in ("x", "x", "x#2", "y")] == ["x", "x#2", "x#2#2", "y"]
    batch = tables.table_from_columns(
        "diagnostics",
        {"game_id": ["y", "z"], "code": ["a", "b"], "severity": ["info"] * 2, "message": ["", ""]},
    )
    renamed = ids.renumber({**tables.empty_tables(), "games": batch, "diagnostics": batch})
    assert renamed["diagnostics"].column("game_id").to_pylist() == ["y#2", "z"]


def test_a_long_run_keeps_ids_unique_across_spilled_digest_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ids seen long ago live only as digests in sorted runs; a repeat must still be caught.
    monkeypatch.setattr(tables.IdSet, "SPILL", 4)
    ids = tables.GameIds()
    first = [ids.claim(f"g{i}") for i in range(50)]
    assert first == [f"g{i}" for i in range(50)] and len(ids.seen._runs) >= 2
    assert ids.seen._recent != set(first)
    assert [ids.claim(n) for n in ("g0", "g0", "g49", "new")] == ["g0#2", "g0#3", "g49#2", "new"]
    batch = tables.table_from_columns(
        "diagnostics",
        {
            "game_id": ["g7", "g77"],
            "code": ["a", "b"],
            "severity": ["info"] * 2,
            "message": ["", ""],
        },
    )
    renamed = ids.renumber({**tables.empty_tables(), "games": batch, "diagnostics": batch})
    assert renamed["games"].column("game_id").to_pylist() == ["g7#2", "g77"]


@pytest.mark.parametrize("spill", [1, 3, 64])
def test_id_set_agrees_with_a_python_set(spill: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables.IdSet, "SPILL", spill)
    rng = random.Random(spill)
    compact, plain = tables.IdSet(), set[str]()
    for _ in range(600):
        item = f"classic-2014.{rng.randrange(12)}-{rng.randrange(60)}"
        assert (item in compact) == (item in plain)
        compact.add(item)
        plain.add(item)
    probe = [f"classic-2014.{m}-{n}" for m in range(13) for n in range(61)] + ["é", "\udcff"]
    assert compact.contains_many(probe) == [p in plain for p in probe]
    assert len(compact) == len(plain)


def test_wide_tables_flush_by_bytes_long_before_the_row_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # games rows are wide: a long run must not buffer every game until 250,000 rows.
    monkeypatch.setattr(dataset_writer, "ROW_GROUP_BYTES", 1)
    filled: Counter[str] = Counter()  # batches with rows, per table: a row group each
    export_dataset(
        [FIXTURES],
        tmp_path,
        run=1,
        on_batch=lambda t: filled.update(name for name, table in t.items() if table.num_rows),
    )
    assert (filled["games"], filled["setups"]) == (4, 2)
    for name in ("games", "setups", "moves"):
        assert pq.ParquetFile(part(tmp_path, name)).num_row_groups == filled[name], name


def test_an_export_stopped_between_renames_is_refused(
    fixture_set: GameSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixture_set.export(tmp_path)
    real_replace = os.replace
    calls: list[str] = []

    def replace_once(src: Any, dst: Any) -> None:
        if calls:
            raise KeyboardInterrupt  # the process dies after the first table is in place
        calls.append(str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(staging.os, "replace", replace_once)
    with pytest.raises(KeyboardInterrupt):
        fixture_set.export(tmp_path)
    monkeypatch.undo()
    with pytest.raises(DatasetError, match="stopped while putting its files in place"):
        read_dataset(tmp_path)
    fixture_set.export(tmp_path)  # exporting again mends the folder
    assert_same(read_dataset(tmp_path), fixture_set)


def test_a_csv_export_over_a_parquet_export_is_what_is_read_back(
    fixture_set: GameSet, tmp_path: Path
) -> None:
    GameSet(tables.empty_tables()).export(tmp_path, "parquet")
    fixture_set.export(tmp_path, "csv")
    assert not list(tmp_path.rglob("*.parquet"))
    assert_same(read_dataset(tmp_path), fixture_set)


def test_two_copies_of_a_table_are_refused(fixture_set: GameSet, tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    fixture_set.export(new, "csv")
    pq.write_table(fixture_set.tables["games"], new / "games.parquet")
    with pytest.raises(DatasetError, match=r"games table more than once \(games, games.parquet\)"):
        read_dataset(new)
    fixture_set.export(old)  # an older export's two formats
    to_old_layout(old)
    pq.write_table(fixture_set.tables["games"], old / "games.csv")
    with pytest.raises(
        DatasetError, match=r"games table more than once \(games.parquet, games.csv\)"
    ):
        read_dataset(old)


def test_a_folder_of_records_named_games_is_not_a_dataset(tmp_path: Path) -> None:
    records = tmp_path / "games"
    records.mkdir()
    source = FIXTURES / "two_battles" / "classic-2014.4-1.xml"
    (records / source.name).write_bytes(source.read_bytes())
    assert not layout.is_dataset(tmp_path)
    assert list(read_games(tmp_path, run=1).games["status"]) == ["valid"]


def test_a_refused_dataset_is_an_error_message_on_the_command_line(
    fixture_set: GameSet, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    fixture_set.export(tmp_path)
    (tmp_path / dataset_writer.INCOMPLETE_MARKER).write_text("")
    result = CliRunner().invoke(main, ["stats", str(tmp_path)])
    assert result.exit_code == 3 and result.stderr.startswith("Error: an export into")


def test_datasets_and_records_mix_in_one_read(fixture_set: GameSet, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    fixture_set.export(first)
    fixture_set.export(second, "csv")
    both = read_games([first, FIXTURES / "two_battles", second], run=1)
    assert len(both) == 9
    assert both.games["game_id"].is_unique
    assert list(both.games["game_id"])[4:6] == ["classic-2014.4-1#2", "classic-2014.4-4#2"]


def test_gameset_shows_counts_by_variant_and_status_in_jupyter() -> None:
    from strat_tools.run.driver import read_games

    data = Path(__file__).resolve().parent.parent / "data"
    html = read_games(str(data), setups_only=True)._repr_html_()
    assert "&lt;GameSet 400 games" in html
    assert "<th>classic</th>" in html and "<td>303</td>" in html


def test_an_export_removes_temporary_files_of_a_killed_export(tmp_path: Path) -> None:
    from strat_tools.run.driver import export_dataset
    from strat_tools.tables.dataset import read_dataset

    data = str(Path(__file__).resolve().parent.parent / "data")
    out = tmp_path / "tables"
    out.mkdir()
    dead = out / ".dataset.tmp-999999999-0123abcd"  # a killed export's staging: no such pid
    alive = out / f".dataset.tmp-{os.getpid()}-0123abcd"  # a running export's
    for folder in (dead, alive):
        folder.mkdir()
        (folder / "games.parquet").write_bytes(b"half a table")
    export_dataset([data], out, run=1, setups_only=True)
    assert not dead.exists() and alive.exists()
    assert len(read_dataset(out)) == 400


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_iter_dataset_hands_out_every_row_once_a_few_games_at_a_time(
    tmp_path: Path, fmt: str
) -> None:
    from strat_tools.tables.dataset import iter_dataset

    whole = read_games([FIXTURES, ROOT / "data"], run=1)
    whole.export(tmp_path, format=fmt)  # type: ignore[arg-type]
    back = read_dataset(tmp_path)
    batches = list(iter_dataset(tmp_path, games_per_batch=37))
    assert len(batches) == -(-len(whole) // 37)
    for batch in batches:  # each batch holds exactly its games' rows
        ids = set(batch["games"].column("game_id").to_pylist())
        for name in ("setups", "moves", "diagnostics"):
            assert set(batch[name].column("game_id").to_pylist()) <= ids, name
    for name in tables.TABLE_NAMES:
        joined = pa.concat_tables([b[name] for b in batches])
        assert joined.num_rows == back.tables[name].num_rows, name
        if fmt == "parquet":  # streamed in file order: the very rows
            assert joined.equals(back.tables[name]), name


def test_a_dataset_out_of_games_order_is_refused_not_misread(tmp_path: Path) -> None:
    from strat_tools.tables.dataset import iter_dataset

    read_games([FIXTURES, ROOT / "data"], run=1).export(tmp_path)
    setups = pq.read_table(part(tmp_path, "setups"))
    pq.write_table(setups.take(list(range(setups.num_rows - 1, -1, -1))), part(tmp_path, "setups"))
    with pytest.raises(DatasetError, match=r"part-00000.parquet is not the file export run"):
        list(iter_dataset(tmp_path, games_per_batch=50))
    # Even with a marker that vouches for the reordered file, the order is checked.
    vouch(tmp_path)
    with pytest.raises(DatasetError, match=r"setups table .* not in the order of its games"):
        list(iter_dataset(tmp_path, games_per_batch=50))


def test_events_round_trip_and_an_export_of_an_export_keeps_them(
    fixture_set: GameSet, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    fixture_set.export(first)
    assert "events/part-00000.parquet" in (first / MARKER_NAME).read_text()
    summary = driver.export_dataset([first], second, run=1)
    assert summary.rows["events"] == fixture_set.tables["events"].num_rows == 7
    back = read_dataset(second)
    assert back.tables["events"].equals(fixture_set.tables["events"])
    pd.testing.assert_frame_equal(back.events, fixture_set.events)
    assert set(back.events["kind"]) == {"battle", "first_capture", "end"}


def test_an_older_export_without_events_says_to_export_again(
    fixture_set: GameSet, tmp_path: Path
) -> None:
    fixture_set.export(tmp_path)
    to_old_layout(tmp_path)  # the layout of the time
    (tmp_path / "events.parquet").unlink()
    vouch(tmp_path)
    with pytest.raises(DatasetError, match=r"exported by an older strat-tools.*export it again"):
        read_dataset(tmp_path)
    with pytest.raises(DatasetError, match="older strat-tools"):
        list(dataset.iter_dataset(tmp_path))


def test_an_older_moves_table_with_gravon_columns_says_to_export_again(
    fixture_set: GameSet, tmp_path: Path
) -> None:
    fixture_set.export(tmp_path)
    old = pa.table(
        {"game_id": ["g"], "ply": [1], "side": ["red"], "source": ["A4"], "target": ["A5"]}
    )
    to_old_layout(tmp_path)  # the layout of the time
    pq.write_table(old, tmp_path / "moves.parquet")
    vouch(tmp_path)  # a marker that vouches for the old file
    with pytest.raises(DatasetError, match=r"lacks the columns .*from_square.*export it again"):
        read_dataset(tmp_path)


def test_plain_pandas_reads_an_export_with_the_documented_dtypes(tmp_path: Path) -> None:
    """No strat-tools reader: pd.read_parquet alone gives each table the dtypes of
    to_frame (nullable ints with their nulls, booleans, categoricals; pieces ordered)."""
    from strat_tools.run.driver import export_dataset
    from strat_tools.tables.columns import empty_table, to_frame
    from strat_tools.tables.schemas import TABLE_NAMES

    out = tmp_path / "out"
    export_dataset(["tests/fixtures/tables/"], str(out), run=1)
    for name in TABLE_NAMES:
        plain = pd.read_parquet(out / name)
        expected = to_frame(empty_table(name)).dtypes
        assert plain.dtypes.astype(str).to_dict() == expected.astype(str).to_dict(), name
    moves = pd.read_parquet(out / "moves")
    assert moves["piece"].cat.ordered and str(moves["distance"].dtype) == "Int8"
    assert moves["distance"].isna().any()  # a bad square name: null, not NaN in a float
    battles = moves.dropna(subset=["defender"])
    assert (battles["piece"] > battles["defender"]).tolist() == [
        a > d for a, d in zip(battles["rank"], battles["defender_rank"], strict=True)
    ]
    games = pd.read_parquet(out / "games")
    assert str(games["result_type"].dtype) == "Int8" and games["result_type"].isna().any()


def test_each_file_schema_carries_the_pandas_metadata_pyarrow_writes_for_its_frame() -> None:
    """The metadata comes from one probe frame of the tables' distinct columns; it must be,
    byte for byte, what ``pa.Schema.from_pandas`` gives for each table's own frame."""
    from strat_tools.tables.columns import empty_table, file_schema, to_frame
    from strat_tools.tables.schemas import SCHEMAS, TABLE_NAMES

    for name in TABLE_NAMES:
        frame = to_frame(empty_table(name))
        expected = pa.Schema.from_pandas(frame, preserve_index=False).metadata[b"pandas"]
        schema = file_schema(name)
        assert schema.metadata[b"pandas"] == expected, name
        assert schema.remove_metadata() == SCHEMAS[name].remove_metadata(), name
        assert schema.metadata[b"doc"] == SCHEMAS[name].metadata[b"doc"], name


def test_setups_are_counted_by_game_and_side_wherever_their_rows_lie() -> None:
    """Runs of one setup's rows are hashed once; a pair met again later (rows out of order,
    another chunk) is still one setup, and the same side of another game another."""
    from strat_tools.tables.columns import table_from_columns

    def setups(games: list[str], sides: list[str]) -> pa.Table:
        fixed = {"row": 1, "col": 1, "square": "A1", "piece": "flag", "fingerprint": "f"}
        columns = {name: [value] * len(games) for name, value in fixed.items()}
        columns["mirror_fingerprint"] = ["m"] * len(games)
        return table_from_columns("setups", {"game_id": games, "side": sides, **columns})

    table = setups(["a", "a", "b", "b", "a", "c"], ["red", "red", "red", "blue", "red", "red"])
    assert dataset_writer.setups_in(table) == 4  # a/red, b/red, b/blue, c/red
    assert dataset_writer.setups_in(setups(["a"], ["blue"])) == 1
    chunked = pa.concat_tables([table.slice(0, 3), table.slice(3)])
    assert chunked.column("game_id").num_chunks == 2
    assert dataset_writer.setups_in(chunked) == 4
