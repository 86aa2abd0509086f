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
    assert pq.read_table(out / "games.parquet").num_rows == 12


def test_no_valid_game_is_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xml"
    broken.write_text("<stratego>", encoding="utf-8")
    result = CliRunner().invoke(main, ["observations", str(broken), "-o", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "no valid game" in result.stderr and "games.parquet" in result.stderr


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["observations", str(DATA), "-o", str(tmp_path / "o"), "--shard-rows", "0"]
    )
    assert result.exit_code == 2
    result = CliRunner().invoke(main, ["observations", str(DATA)])
    assert result.exit_code == 2 and "--output" in result.stderr
