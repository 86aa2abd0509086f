"""``strat-tools observations``: exit codes, messages on stderr, the files it writes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pyarrow.parquet as pq
from click.testing import CliRunner

from strat_tools.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"


def some_games(folder: Path, count: int = 12) -> Path:
    folder.mkdir()
    with zipfile.ZipFile(DATA / "strados2026-10.zip") as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".xml"))[::31][:count]
        for name in names:
            (folder / Path(name).name).write_bytes(archive.read(name))
    return folder


def test_observations_writes_shards_and_reports_on_stderr(tmp_path: Path) -> None:
    games = some_games(tmp_path / "games")
    out = tmp_path / "obs"
    result = CliRunner().invoke(
        main, ["observations", str(games), "-o", str(out), "--jobs", "1", "--last-moves", "2"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "12 games (12 valid; 0 gave no rows" in result.stderr
    table = pq.read_table(out / "observations" / "part-00000.parquet")
    assert max(len(m) for m in table.column("last_moves").to_pylist()) == 2
    assert pq.read_table(out / "games").num_rows == 12


def test_no_valid_game_is_an_error(tmp_path: Path) -> None:
    invalid = tmp_path / "piece_on_lake.xml"  # readable, but its replay stops at ply 1
    invalid.write_bytes((DATA.parent / "tests/fixtures/gravon/piece_on_lake.xml").read_bytes())
    result = CliRunner().invoke(main, ["observations", str(invalid), "-o", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "no valid game" in result.stderr and "/games/" in result.stderr


def test_nothing_readable_is_a_usage_error_and_writes_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xml"
    broken.write_text("<stratego>", encoding="utf-8")
    result = CliRunner().invoke(main, ["observations", str(broken), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "nothing readable in" in result.stderr and "truncated" in result.stderr
    assert not (tmp_path / "o").exists()


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["observations", str(DATA), "-o", str(tmp_path / "o"), "--shard-rows", "0"]
    )
    assert result.exit_code == 2
    result = CliRunner().invoke(main, ["observations", str(DATA)])
    assert result.exit_code == 2 and "--output" in result.stderr


# -- the output folder is owned (issue 14: never destroy what is not ours) ---------------


def observe(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["observations", *args, "--jobs", "1"])
    return result.exit_code, result.stderr


def test_observations_refuses_an_output_inside_or_holding_an_input(tmp_path: Path) -> None:
    games = some_games(tmp_path / "games", count=3)
    before = sorted(p.name for p in games.iterdir())
    code, err = observe(str(games), "-o", str(games / "obs"))
    assert code == 2 and "lies inside the input" in err, err  # a usage error: nothing ran
    code, err = observe(str(games), "-o", str(tmp_path))
    assert code == 2 and "holds the input" in err, err
    assert sorted(p.name for p in games.iterdir()) == before
    assert "Traceback" not in err


def test_observations_never_replaces_or_removes_files_it_did_not_write(tmp_path: Path) -> None:
    games = some_games(tmp_path / "games", count=3)
    out = tmp_path / "obs"
    (out / "observations").mkdir(parents=True)
    (out / "observations" / "notes.txt").write_text("mine")
    (out / "games.parquet").write_text("someone else's table")
    code, err = observe(str(games), "-o", str(out))
    assert code == 3 and "was not written by strat-tools" in err, err
    assert (out / "games.parquet").read_text() == "someone else's table"
    (out / "games.parquet").unlink()
    (out / "games").mkdir()  # the games table's folder: a stranger's file in it is kept too
    (out / "games" / "theirs.parquet").write_text("someone else's table")
    code, err = observe(str(games), "-o", str(out))
    assert code == 3 and "theirs.parquet was not written by strat-tools" in err, err
    (out / "games" / "theirs.parquet").unlink()
    code, err = observe(str(games), "-o", str(out))
    assert code == 0, err
    assert (out / "observations" / "notes.txt").read_text() == "mine"  # not ours: kept
    assert (out / ".strat-tools-export.json").is_file()


def test_observations_run_again_replaces_only_its_own_shards(tmp_path: Path) -> None:
    games = some_games(tmp_path / "games", count=6)
    out = tmp_path / "obs"
    code, err = observe(str(games), "-o", str(out), "--shard-rows", "50")
    assert code == 0, err
    many = sorted(p.name for p in (out / "observations").iterdir())
    assert len(many) > 2
    code, err = observe(str(games), "-o", str(out))
    assert code == 0, err
    assert sorted(p.name for p in (out / "observations").iterdir()) == ["part-00000.parquet"]
    assert [p.name for p in out.iterdir() if p.name.endswith(".tmp")] == []


def test_observations_refuses_a_symlinked_output_folder(tmp_path: Path) -> None:
    games = some_games(tmp_path / "games", count=2)
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    code, err = observe(str(games), "-o", str(tmp_path / "link"))
    assert code == 3 and "is a symlink to the folder" in err, err  # the reason, not "not a folder"
    assert list(real.iterdir()) == []
