"""Every reader of an owned folder checks it against its marker and names the bad file.

An export folder (the five tables) and an observation export (its games table and shards),
in today's layout and in the one before it, each carry a marker listing every file with its
size and SHA-256 (:func:`strat_tools.io.owned.verify_folder`). One table of damage, each
applied to a fresh copy of a good export of either kind, and every reader of that kind
must refuse it with an error naming the file: a deleted file, one flipped byte, one file
copied over another, an extra file the export did not write.
"""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from layouts import to_old_layout, to_old_observations

from strat_tools.core.errors import DatasetError
from strat_tools.exports.observation_batches import observation_batches
from strat_tools.exports.observation_files import (
    export_observations,
    observation_games,
    observation_shards,
    read_observations,
)
from strat_tools.io.output import OutputError
from strat_tools.run.driver import read_games
from strat_tools.tables.dataset import iter_dataset, read_dataset, read_games_table

DATA = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"


@pytest.fixture(scope="module")
def good_exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One dataset export (moves and setups in several parts) and one observation export
    (several shards) of 40 games of the sample, each in today's layout and in the layout
    before it, written once for the module; each test damages a copy."""
    root = tmp_path_factory.mktemp("exports")
    games = root / "games"
    games.mkdir()
    with zipfile.ZipFile(DATA) as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".xml"))[::10][:40]:
            (games / Path(name).name).write_bytes(archive.read(name))
    gameset = read_games(games, jobs=1)
    gameset.export(root / "dataset", part_rows=2_000)
    assert (root / "dataset" / MOVES_1).exists()
    gameset.export(root / "old dataset")
    to_old_layout(root / "old dataset")
    summary = export_observations([games], root / "observations", shard_rows=2_000, jobs=1)
    assert len(summary.shards) >= 3
    shutil.copytree(root / "observations", root / "old observations")
    to_old_observations(root / "old observations")
    return {
        kind: root / kind for kind in ("dataset", "old dataset", "observations", "old observations")
    }


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


SHARD_0, SHARD_1 = "observations/part-00000.parquet", "observations/part-00001.parquet"
MOVES_0, MOVES_1 = "moves/part-00000.parquet", "moves/part-00001.parquet"


def _observation_damage(
    kind: str, games: str
) -> list[tuple[str, str, str, Callable[[Path], object]]]:
    return [
        (kind, "deleted", SHARD_1, lambda f: (f / SHARD_1).unlink()),
        (kind, "byte flipped", SHARD_1, lambda f: flip_a_byte(f / SHARD_1)),
        (kind, "copied over another", SHARD_1, lambda f: shutil.copyfile(f / SHARD_0, f / SHARD_1)),
        (
            kind,
            "extra file",
            "observations/part-00099.parquet",
            lambda f: shutil.copyfile(f / SHARD_0, f / "observations" / "part-00099.parquet"),
        ),
        (kind, "games table flipped", games, lambda f: flip_a_byte(f / games)),
    ]


# (kind, damage, the file the error must name, what to do to the folder)
DAMAGE: list[tuple[str, str, str, Callable[[Path], object]]] = [
    ("dataset", "deleted", MOVES_1, lambda f: (f / MOVES_1).unlink()),
    ("dataset", "byte flipped", MOVES_1, lambda f: flip_a_byte(f / MOVES_1)),
    (
        "dataset",
        "copied over another",
        MOVES_1,
        lambda f: shutil.copyfile(f / MOVES_0, f / MOVES_1),
    ),
    (
        "dataset",
        "copied from another table",
        "events/part-00000.parquet",
        lambda f: shutil.copyfile(
            f / "diagnostics/part-00000.parquet", f / "events/part-00000.parquet"
        ),
    ),
    (
        "dataset",
        "extra part",
        "moves/part-00099.parquet",
        lambda f: shutil.copyfile(f / MOVES_0, f / "moves/part-00099.parquet"),
    ),
    ("dataset", "old layout beside", "moves.csv", lambda f: (f / "moves.csv").write_text("x\n")),
    (
        "dataset",
        "games flipped",
        "games/part-00000.parquet",
        lambda f: flip_a_byte(f / "games/part-00000.parquet"),
    ),
    ("old dataset", "deleted", "moves.parquet", lambda f: (f / "moves.parquet").unlink()),
    ("old dataset", "byte flipped", "moves.parquet", lambda f: flip_a_byte(f / "moves.parquet")),
    (
        "old dataset",
        "copied over another",
        "events.parquet",
        lambda f: shutil.copyfile(f / "diagnostics.parquet", f / "events.parquet"),
    ),
    ("old dataset", "extra file", "moves.csv", lambda f: (f / "moves.csv").write_text("game_id\n")),
    ("old dataset", "games flipped", "games.parquet", lambda f: flip_a_byte(f / "games.parquet")),
    *_observation_damage("observations", "games/part-00000.parquet"),
    *_observation_damage("old observations", "games.parquet"),
]

DATASET_READERS: dict[str, Callable[[Path], Any]] = {
    "read_dataset": read_dataset,
    "iter_dataset": lambda f: list(iter_dataset(f)),
    "read_games": lambda f: read_games(f, jobs=1),
    "read_games_table": read_games_table,
}
OBSERVATION_READERS: dict[str, Callable[[Path], Any]] = {
    "read_observations": read_observations,
    "observation_shards": observation_shards,
    "observation_games": observation_games,
    "observation_batches": lambda f: list(observation_batches(f, 4096, fields=("action",))),
}
READERS = {
    "dataset": DATASET_READERS,
    "old dataset": DATASET_READERS,
    "observations": OBSERVATION_READERS,
    "old observations": OBSERVATION_READERS,
}

CASES = [
    pytest.param(kind, bad_file, damage, reader, id=f"{kind}-{how}-{name}")
    for kind, how, bad_file, damage in DAMAGE
    for name, reader in READERS[kind].items()
    if not (name == "read_games_table" and not bad_file.startswith("games"))
]


@pytest.mark.parametrize(("kind", "bad_file", "damage", "reader"), CASES)
def test_a_damaged_folder_is_refused_naming_the_file(
    good_exports: dict[str, Path],
    tmp_path: Path,
    kind: str,
    bad_file: str,
    damage: Callable[[Path], object],
    reader: Callable[[Path], Any],
) -> None:
    folder = tmp_path / kind
    shutil.copytree(good_exports[kind], folder)
    reader(folder)  # the copy itself reads
    damage(folder)
    with pytest.raises((OutputError, DatasetError)) as raised:
        reader(folder)
    assert bad_file in str(raised.value)


def test_the_games_table_alone_is_checked_too(
    good_exports: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "dataset"
    shutil.copytree(good_exports["dataset"], folder)
    flip_a_byte(folder / "games/part-00000.parquet")
    with pytest.raises(DatasetError, match=r"games/part-00000\.parquet"):
        read_games_table(folder)


def test_a_shard_gone_is_an_error_on_the_command_line_too(
    good_exports: dict[str, Path], tmp_path: Path
) -> None:
    from strat_tools.cli import main

    folder = tmp_path / "dataset"
    shutil.copytree(good_exports["dataset"], folder)
    (folder / "setups/part-00000.parquet").unlink()
    result = CliRunner().invoke(main, ["stats", str(folder)])
    assert result.exit_code == 3 and "setups/part-00000.parquet" in result.stderr
    assert "Traceback" not in result.output
