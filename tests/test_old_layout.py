"""Folders written in the layout before the folder per table are still read by every
reader (issue 36): five ``NAME.parquet`` (or ``NAME.csv``) side by side with a marker that
names no kind, and observation exports with ``games.parquet`` beside ``observations/``.

The old folders are made by tests/layouts.py from a fresh export (the bytes the old writer
wrote: one file per table, as today's writes a small table as one part). Each command that
reads an export folder must give the same output on the old folder as on today's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from layouts import to_old_layout, to_old_observations

from strat_tools.cli import main
from strat_tools.exports.observation_batches import observation_batches
from strat_tools.exports.observation_files import (
    export_observations,
    observation_games,
    read_observations,
)
from strat_tools.run.driver import read_games
from strat_tools.tables.dataset import iter_dataset, read_dataset, read_games_table

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("layouts")
    games = read_games(DATA, run=1)
    for fmt in ("parquet", "csv"):
        games.export(root / f"new {fmt}", fmt)  # type: ignore[arg-type]
        shutil.copytree(root / f"new {fmt}", root / f"old {fmt}")
        to_old_layout(root / f"old {fmt}")
    return {path.name: path for path in root.iterdir()}


COMMANDS = [
    ["validate", "{}"],
    ["stats", "{}", "--stat", "flag"],
    ["stats", "{}", "--stat", "endings", "--variant", "all"],
    ["search", "{}", "--anywhere", "SG", "--mirror"],
    ["setups", "{}", "--top", "3"],
    ["filter", "{}", "--plies", "400:"],
]


CASES = [(command, "parquet") for command in COMMANDS] + [(COMMANDS[0], "csv")]


@pytest.mark.parametrize(("command", "fmt"), CASES, ids=[f"{c[0]} {f}" for c, f in CASES])
def test_every_command_reads_the_old_layout_as_it_reads_the_new(
    folders: dict[str, Path], command: list[str], fmt: str
) -> None:
    outputs = []
    for layout in ("old", "new"):
        args = [a.format(folders[f"{layout} {fmt}"]) for a in command]
        result = CliRunner().invoke(main, [*args, "--jobs", "1"])
        assert result.exit_code == 0, (layout, result.output)
        outputs.append(result.stdout.replace(str(folders[f"{layout} {fmt}"]), "DIR"))
    assert outputs[0] == outputs[1]


@pytest.mark.slow
def test_the_report_reads_the_old_layout(folders: dict[str, Path], tmp_path: Path) -> None:
    for layout in ("old", "new"):
        out = tmp_path / f"{layout}.md"
        folder = str(folders[f"{layout} parquet"])
        args = ["report", folder, "-o", str(out), "--setups-only", "--jobs", "1"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
    assert "400" in (tmp_path / "old.md").read_text()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_the_library_readers_read_the_old_layout(folders: dict[str, Path], fmt: str) -> None:
    old, new = read_dataset(folders[f"old {fmt}"]), read_dataset(folders[f"new {fmt}"])
    for name, table in new.tables.items():
        assert old.tables[name].equals(table), name
    batches = list(iter_dataset(folders[f"old {fmt}"], games_per_batch=150))
    assert sum(b["games"].num_rows for b in batches) == 400
    if fmt == "parquet":
        games = read_games_table(folders["old parquet"], ["game_id", "red_setup"])
        assert games is not None and games.num_rows == 400


def test_export_of_an_old_folder_replaces_it_with_the_new_layout(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "exp"
    shutil.copytree(folders["old parquet"], out)
    result = CliRunner().invoke(main, ["export", str(DATA), "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert not list(out.glob("*.parquet")) and (out / "moves" / "part-00000.parquet").is_file()
    assert len(read_dataset(out)) == 400


@pytest.mark.slow
def test_the_observation_readers_read_the_old_layout(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    export_observations([DATA / "strados2026-10.zip"], new, shard_rows=30_000, run=1)
    shutil.copytree(new, old)
    to_old_observations(old)
    assert (old / "games.parquet").is_file() and not (old / "games").exists()
    assert read_observations(old).equals(read_observations(new))
    assert observation_games(old).equals(observation_games(new))
    rows = sum(len(b["action"]) for b in observation_batches(old, 4096, fields=("action",)))
    assert rows == read_observations(new).num_rows
    # Observing into the old folder again moves its games table beside the shards.
    export_observations([DATA / "strados2026-10.zip"], old, shard_rows=30_000, run=1)
    assert not (old / "games.parquet").exists() and observation_games(old).num_rows == 400
