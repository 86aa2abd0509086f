"""Every reader of an owned folder checks it against its marker and names the bad file.

An export folder (the five tables) and an observation export (its games table and shards),
in today's layout and in the one before it, each carry a marker listing every file with its
size and SHA-256 (:func:`strat_tools.io.owned.verify_folder`). One table of damage, each
applied to a fresh copy of a good export of either kind, and every reader of that kind
must refuse it with an error naming the file: a deleted file, one flipped byte, one file
copied over another, an extra file the export did not write. The damage comes after the
reader began: a whole read is done again, and a reader that holds the folder open
(observation batches between epochs and within one, iter_dataset between batches) reads
on (issue 39, point 5).
"""

from __future__ import annotations

import os
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
from strat_tools.io.verified import FolderChanged
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
    gameset = read_games(games, run=1)
    gameset.export(root / "dataset", part_rows=2_000)
    assert (root / "dataset" / MOVES_1).exists()
    gameset.export(root / "old dataset")
    to_old_layout(root / "old dataset")
    summary = export_observations([games], root / "observations", shard_rows=2_000, run=1)
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
    "read_games": lambda f: read_games(f, run=1),
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


def read_again(reader: Callable[[Path], Any]) -> Callable[[Path], Callable[[], Any]]:
    """A reader that reads the folder whole each time: read it once (the copy itself
    reads), then, after the damage, read it again."""

    def start(folder: Path) -> Callable[[], Any]:
        reader(folder)
        return lambda: reader(folder)

    return start


CASES = [
    pytest.param(kind, bad_file, damage, read_again(reader), id=f"{kind}-{how}-{name}")
    for kind, how, bad_file, damage in DAMAGE
    for name, reader in READERS[kind].items()
    if not (name == "read_games_table" and not bad_file.startswith("games"))
]


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


# --- readers that hold a folder open: checked again on every read -----------------------
#
# The same damage, done after the reader was made and began (issue 39, point 5): between two
# epochs of observation batches, within an epoch, and between two batches of iter_dataset.
# A damage to a file already open (the byte flip of the shard being read) is seen by the
# open file's own stamp; one to the folder, by the marker and the stamps of every file.


def _epochs(folder: Path) -> Any:
    """Observation batches, one epoch read whole; the next epoch must see the damage."""
    batches = observation_batches(folder, 256, fields=("action",))
    assert sum(len(b["action"]) for b in batches) == batches.rows
    return iter(batches)


def _within_an_epoch(folder: Path) -> Any:
    """Observation batches, the first batch of an epoch read (shard 0 open, part read)."""
    epoch = iter(observation_batches(folder, 256, fields=("action",)))
    next(epoch)
    return epoch


def _between_dataset_batches(folder: Path) -> Any:
    """iter_dataset, its first batch of 5 games read (every table open)."""
    batches = iter_dataset(folder, games_per_batch=5)
    next(batches)
    return batches


HELD_DATASET: dict[str, Callable[[Path], Any]] = {
    "iter_dataset between batches": _between_dataset_batches
}
HELD_OBSERVATIONS: dict[str, Callable[[Path], Any]] = {
    "observation_batches between epochs": _epochs,
    "observation_batches within an epoch": _within_an_epoch,
}
HELD = {
    "dataset": HELD_DATASET,
    "old dataset": HELD_DATASET,
    "observations": HELD_OBSERVATIONS,
    "old observations": HELD_OBSERVATIONS,
}


def drain(open_: Callable[[Path], Any]) -> Callable[[Path], Callable[[], Any]]:
    """A reader held open: open it (and begin reading), then, after the damage, read on."""

    def start(folder: Path) -> Callable[[], Any]:
        held = open_(folder)
        return lambda: [batch for batch in held]

    return start


HELD_CASES = [
    pytest.param(kind, bad_file, damage, drain(open_), id=f"{kind}-{how}-{name}")
    for kind, how, bad_file, damage in [
        *DAMAGE,
        *[
            (kind, "shard being read flipped", SHARD_0, lambda f: flip_a_byte(f / SHARD_0))
            for kind in ("observations", "old observations")
        ],
    ]
    for name, open_ in HELD[kind].items()
]


def test_a_fifo_in_place_of_a_file_is_refused_without_blocking(
    good_exports: dict[str, Path], tmp_path: Path
) -> None:
    """A FIFO put where an export's file was (in a dataset or an observation export) is
    refused naming the file, at once: every file of an owned folder is opened non-blocking,
    a regular file only (it blocked the reader before, on the main thread or a worker)."""
    from strat_tools.cli import main

    for kind, name in (("dataset", "games/part-00000.parquet"), ("observations", SHARD_1)):
        folder = tmp_path / kind
        shutil.copytree(good_exports[kind], folder)
        (folder / name).unlink()
        os.mkfifo(folder / name)
        reader = read_games_table if kind == "dataset" else read_observations
        with pytest.raises((OutputError, DatasetError), match="not a regular file"):
            reader(folder)
    result = CliRunner().invoke(main, ["stats", str(tmp_path / "dataset")])
    assert result.exit_code == 3 and "not a regular file" in result.stderr


@pytest.mark.parametrize(("kind", "bad_file", "damage", "start"), CASES + HELD_CASES)
def test_a_damaged_folder_is_refused_naming_the_file(
    good_exports: dict[str, Path],
    tmp_path: Path,
    kind: str,
    bad_file: str,
    damage: Callable[[Path], object],
    start: Callable[[Path], Callable[[], Any]],
) -> None:
    """The damage done after the reader began: a whole read done again, or a held reader
    read on."""
    folder = tmp_path / kind
    shutil.copytree(good_exports[kind], folder)
    read_on = start(folder)
    damage(folder)
    with pytest.raises((OutputError, DatasetError)) as raised:
        read_on()
    assert bad_file in str(raised.value)


def test_another_export_into_the_folder_between_epochs_stops_the_next_epoch(
    good_exports: dict[str, Path], tmp_path: Path
) -> None:
    """Issue 39's report: epoch 2 read another export's rows while len() still told the
    old count. Here the second export holds fewer games, as there."""
    folder = tmp_path / "observations"
    shutil.copytree(good_exports["observations"], folder)
    batches = observation_batches(folder, 256, fields=("action",))
    first = sum(len(b["action"]) for b in batches)
    games = tmp_path / "fewer"
    games.mkdir()
    with zipfile.ZipFile(DATA) as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".xml"))[::10][:7]:
            (games / Path(name).name).write_bytes(archive.read(name))
    export_observations([games], folder, shard_rows=2_000, run=1)
    assert read_observations(folder).num_rows < first == batches.rows
    with pytest.raises(FolderChanged, match=r"another export \(run [0-9a-f]{8}\) was written"):
        next(iter(batches))


def test_a_file_touched_but_unchanged_is_hashed_again_and_read(
    good_exports: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "observations"
    shutil.copytree(good_exports["observations"], folder)
    batches = observation_batches(folder, 256, fields=("action",))
    rows = sum(len(b["action"]) for b in batches)
    shutil.copyfile(folder / SHARD_1, tmp_path / "copy")
    shutil.copyfile(tmp_path / "copy", folder / SHARD_1)  # the same bytes, a new stamp
    assert sum(len(b["action"]) for b in batches) == rows


def test_every_byte_flipped_after_the_batches_were_made_stops_the_next_epoch(
    good_exports: dict[str, Path], tmp_path: Path
) -> None:
    """Issue 39: 12 of 39 byte flips after construction were read with different data.
    Here 39 flips spread over a shard, head to footer, each undone before the next."""
    folder = tmp_path / "observations"
    shutil.copytree(good_exports["observations"], folder)
    shard = folder / SHARD_1
    size = shard.stat().st_size
    for offset in [round(k * (size - 1) / 38) for k in range(39)]:
        batches = observation_batches(folder, 256, fields=("action",))
        with shard.open("r+b") as handle:
            handle.seek(offset)
            byte = handle.read(1)
            handle.seek(offset)
            handle.write(bytes([byte[0] ^ 0x01]))
        with pytest.raises(FolderChanged, match=r"part-00001\.parquet"):
            list(batches)
        with shard.open("r+b") as handle:
            handle.seek(offset)
            handle.write(byte)
