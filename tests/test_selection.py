"""Selecting games and writing just those: ids, byte-identical records, tables; the CLI.

Games are generated here: 40 in one month's zip, the first of them copied under another
name into another month's zip (one game recorded twice).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from selection_archive import archive, run

from strat_tools.cli import main
from strat_tools.exports.validate import validate
from strat_tools.formats.readers import read_records
from strat_tools.run.driver import read_games
from strat_tools.run.filters import GameFilter
from strat_tools.run.selection import filter_gameset, read_selected, select_games
from strat_tools.tables.dataset import read_dataset

__all__ = ["archive"]  # the fixture, imported for these tests


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zipped:
        return {name: zipped.read(name) for name in zipped.namelist()}


def test_the_filtered_zip_revalidates_to_exactly_the_selected_games(
    archive: Path, tmp_path: Path
) -> None:
    code, ids_text, err = run("filter", str(archive), "--plies", "60:", "--jobs", "1")
    assert code == 0, err
    chosen = ids_text.split()
    games = read_games([str(archive)], run=1).games
    expected = games.loc[games["plies"] >= 60, "game_id"].tolist()
    assert chosen == expected and 0 < len(chosen) < len(games)
    assert f"{len(chosen)} of 41 games selected (at least 60 plies)" in err
    out = tmp_path / "long.zip"
    code, _, err = run("filter", str(archive), "--plies", "60:", "-o", str(out), "--jobs", "1")
    assert code == 0, err
    report = validate([str(out)], run=1)
    assert sorted(g.game_id for g in report.games) == sorted(chosen)  # zips list by name
    assert report.summary.invalid == 0
    originals = {**members(archive / "strados2026-2.zip"), **members(archive / "strados2026-8.zip")}
    copied = members(out)
    assert sorted(copied) == sorted(f"{i}.xml" for i in chosen)
    assert all(copied[name] == originals[name] for name in copied)


def test_a_folder_of_records_and_a_dataset_of_tables(archive: Path, tmp_path: Path) -> None:
    folder = tmp_path / "red"
    code, _, err = run("filter", str(archive), "--winner", "red", "-o", str(folder))
    assert code == 0, err
    records = list(read_records([str(folder)]))
    assert records and all(r.result is not None and r.result.winner == 1 for r in records)
    tables = tmp_path / "tables"
    code, _, err = run(
        "filter", str(archive), "--winner", "red", "-o", str(tables), "--format", "parquet"
    )
    assert code == 0, err
    exported = read_dataset(tables)
    assert sorted(exported.games["game_id"]) == sorted(r.game_id for r in records)
    assert set(exported.games["status"]) == {"valid"}


def test_duplicates_across_months(archive: Path) -> None:
    chosen = select_games([str(archive)], GameFilter.parse(duplicates="only"), run=1)
    assert len(chosen.games) == 2
    assert chosen.games["period"].tolist() == ["2026-03", "2026-09"]
    once = select_games([str(archive)], GameFilter.parse(duplicates="exclude"), run=1)
    assert len(once.games) == 40 and "2026-09" not in set(once.games["period"])


def test_read_selected_equals_filtering_in_memory(archive: Path) -> None:
    f = GameFilter.parse(variant="classic", plies=":80", duplicates="exclude")
    streamed = read_selected([str(archive)], f, run=2)
    in_memory = filter_gameset(read_games([str(archive)], run=1), f)
    for name in ("games", "setups", "moves"):
        assert streamed.tables[name].equals(in_memory.tables[name]), name
    assert 0 < len(streamed) < 41


def test_bad_filter_values_are_usage_errors(archive: Path) -> None:
    for args in (
        ("--period", "2014-13:"),
        ("--plies", "x"),
        ("--winner", "nobody"),
        ("--ids", "/nonexistent/ids.txt"),
        ("--pattern", "B/B"),
        ("--duplicates", "yes"),
    ):
        code, out, err = run("filter", str(archive), *args)
        assert code == 2, args
        assert f"Invalid value for '{args[0]}'" in err and out == ""
        assert "Traceback" not in err
    code, _, err = run("filter", str(archive), "--format", "parquet")
    assert code == 2 and "needs -o DIR" in err


def test_setups_and_search_commands(archive: Path, tmp_path: Path) -> None:
    games = read_games([str(archive)], run=1).games
    classic = int((games["variant"] == "classic").sum())
    code, out, err = run("setups", str(archive), "--top", "0", "--format", "json", "--jobs", "1")
    assert code == 0, err
    rows = json.loads(out)
    assert {"fingerprint", "count", "wins", "draws", "losses"} <= set(rows[0])
    assert {r["variant"] for r in rows} == {"classic"}  # the default: one variant
    assert sum(r["count"] for r in rows) == 2 * classic
    assert f"classic: {2 * classic} setups" in err
    # The game recorded twice is a barrage game: its two setups were played twice each.
    code, out, err = run("setups", str(archive), "--variant", "barrage", "--format", "json")
    assert code == 0, err
    counts = [r["count"] for r in json.loads(out)]
    assert counts[:2] == [2, 2] and set(counts[2:]) == {1}
    picture = tmp_path / "top.png"
    code, out, err = run("setups", str(archive), "--top", "4", "-o", str(picture), "--jobs", "1")
    assert code == 0, err
    assert picture.stat().st_size > 10_000
    assert out.count("\n    ") >= 16  # four boards of four rows
    code, out, err = run(
        "search",
        str(archive),
        "--pattern",
        "........../........../........../F.........",
        "--mirror",
        "--format",
        "json",
        "--jobs",
        "1",
    )
    assert code == 0, err
    found = json.loads(out)
    assert found["matching"]["count"] + found["rest"]["count"] == 2 * classic
    assert found["pattern"].splitlines()[-1] == "F . . . . . . . . ."
    code, _, err = run("search", str(archive), "--pattern", "nonsense")
    assert code == 2 and "'--pattern'" in err


def test_every_command_that_reads_games_takes_the_filters(archive: Path, tmp_path: Path) -> None:
    games = read_games([str(archive)], run=1).games
    red = int((games["winner"] == "red").sum())
    code, out, err = run("validate", str(archive), "--winner", "red", "--quiet", "--jobs", "1")
    assert code == 0, err
    assert out.startswith(f"{red} games in") and f"{41 - red} games left out" in err
    code, out, err = run(
        "stats",
        str(archive),
        "--stat",
        "flag",
        "--winner",
        "red",
        "--format",
        "json",
        "--pool-variants",
    )
    assert code == 0, err
    rows = json.loads(out)  # classic and barrage, pooled on request: both sides of each game
    assert {row["setups"] for row in rows} == {2 * red} and {r["variant"] for r in rows} == {"all"}
    code, _, err = run("export", str(archive), "-o", str(tmp_path / "t"), "--winner", "red")
    assert code == 0, err
    assert len(read_dataset(tmp_path / "t").games) == red
    outputs = {
        "validate": [],
        "export": ["-o", str(tmp_path / "x")],
        "stats": [],
        "heatmap": ["-o", str(tmp_path / "x.png")],
        "report": ["-o", str(tmp_path / "x.html")],
        "advice": [],
        "setups": [],
        "search": ["--pattern", "F/F/F/F"],
        "filter": [],
        "events": [],
        "convert": ["--to", "gsn", "-o", str(tmp_path / "x.zip")],
        "observations": ["-o", str(tmp_path / "obs")],
        "view": ["-o", str(tmp_path / "v.html")],
        "openings": [],
        "explore": ["-o", str(tmp_path / "e.html")],
        "values": [],
    }
    # generate, show and rules read no archive of games (show: one game of one file); the
    # benchmark's definition fixes its games (classic, valid, whole months): bench takes no
    # filter.
    unfiltered = {"generate", "show", "rules", "bench"}
    assert set(outputs) | unfiltered == set(main.commands)
    for command, extra in outputs.items():
        code, _, err = run(command, str(archive), "--plies", "x", *extra)
        assert code == 2 and "Invalid value for '--plies'" in err, (command, err)


@pytest.mark.parametrize("kind", [str, Path, lambda p: [p]])
def test_one_path_string_is_one_path_not_its_characters(kind: Any, tmp_path: Path) -> None:
    game = tmp_path / "classic-2014.4-17.xml"
    game.write_bytes((Path(__file__).parent / "fixtures/gravon/classic-2014.4-17.xml").read_bytes())
    everything = GameFilter.parse()
    assert len(select_games(kind(str(game)), everything, run=1).games) == 1
    assert len(read_selected(kind(str(game)), everything, run=1).tables["games"]) == 1


@pytest.mark.parametrize("out", ["f.zip", "f"])
def test_the_same_game_file_in_two_folders_is_copied_once_not_a_failed_run(
    out: str, tmp_path: Path
) -> None:
    game = (Path(__file__).parent / "fixtures/gravon/classic-2014.4-17.xml").read_bytes()
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "classic-2014.4-17.xml").write_bytes(game)
    target = tmp_path / out
    args = ["filter", str(tmp_path / "a"), str(tmp_path / "b"), "-o", str(target), "--jobs", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.stderr
    assert "b/classic-2014.4-17.xml: not copied: another game is written as" in result.stderr
    assert "wrote 1 records" in result.stderr
    if out.endswith(".zip"):
        with zipfile.ZipFile(target) as archive:
            assert archive.namelist() == ["classic-2014.4-17.xml"]
    else:
        assert [p.name for p in target.iterdir()] == ["classic-2014.4-17.xml"]
