"""A built benchmark folder opened for scoring and predicting: its manifest read back (every
field checked, :func:`~strat_tools.benchmark.manifest.read_manifest`) with its SHA-256, a
split's games and views, and a split's observation rows (only the columns asked for).

The layout is :mod:`strat_tools.benchmark.definition`'s (``DIR/manifest.json``,
``DIR/<split>/observations/``, ``DIR/<split>/games/``). The observation shards are read
through the observation export's own check (each file's size and SHA-256 against its
marker).

This module scores nothing and fits nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from strat_tools.benchmark.manifest import (
    MANIFEST,
    Manifest,
    check_split_games,
    read_manifest,
)
from strat_tools.core.errors import InputError, UsageError
from strat_tools.exports.observation_files import ObservationExport, observation_folder
from strat_tools.io.owned import file_digest

__all__ = [
    "BenchFolder",
    "SplitGames",
    "iter_split_batches",
    "iter_split_rows",
    "open_bench",
    "open_split",
    "split_export",
    "split_games_table",
    "split_rows",
]


@dataclass(frozen=True)
class SplitGames:
    """The games of one split as the manifest lists them: ids (in the manifest's order) and
    each one's view (``fresh``, ``seen``, or ``""`` for a split without views)."""

    game_ids: npt.NDArray[np.object_]
    views: npt.NDArray[np.object_]
    has_views: bool
    """Whether the split has fresh/seen views (a test or extra split)."""


@dataclass(frozen=True)
class BenchFolder:
    """A benchmark folder whose manifest was checked: its path, the manifest and the
    manifest's SHA-256 (the bytes its marker lists and the reader checked)."""

    directory: Path
    manifest: Manifest
    sha256: str

    @property
    def splits(self) -> list[str]:
        """The split names, in the manifest's order (train, val, test, then extras)."""
        return list(self.manifest.splits)

    def check_split(self, split: str) -> Path:
        """``DIR/<split>``, once ``split`` is one of the manifest's (else a usage error
        naming them: the caller's choice, before any reading)."""
        if split not in self.manifest.splits:
            raise UsageError(
                f"no split {split!r} in {self.directory / MANIFEST} (it has "
                f"{', '.join(self.splits)})",
                option="split",
            )
        return self.directory / split

    def games(self, split: str) -> SplitGames:
        """The games of ``split`` and their views, as the manifest lists them."""
        self.check_split(split)
        entries = [g for g in self.manifest.games if g.split == split]
        ids = np.array([g.game_id for g in entries], dtype=object)
        views = np.array([g.view or "" for g in entries], dtype=object)
        return SplitGames(ids, views, self.manifest.splits[split].viewed)

    def months(self, split: str) -> list[str]:
        """The calendar months of ``split``'s zips (``YYYY-MM``; an extra's file that is not
        a monthly zip has none)."""
        return [z.month for z in self.manifest.splits[split].zips if z.month is not None]


def open_bench(directory: str | os.PathLike[str]) -> BenchFolder:
    """The benchmark folder ``directory``, its manifest read and checked (a folder that is
    not a finished build, or a manifest with any field wrong, is refused naming it)."""
    root = Path(directory)
    manifest = read_manifest(root)
    return BenchFolder(root, manifest, file_digest(root / MANIFEST))


def split_export(folder: BenchFolder, split: str) -> ObservationExport:
    """``DIR/<split>``, an observation export, checked against the manifest (its games
    with rows and its row count: :func:`~strat_tools.benchmark.manifest.split_folder`)
    and against its marker (every file's size and SHA-256): read its rows and games table
    through it."""
    return open_split(folder, split)[0]


def open_split(folder: BenchFolder, split: str) -> tuple[ObservationExport, pa.Table]:
    """:func:`split_export` and the split's games table it was checked with (every file
    verified once, the games table read once)."""
    directory = folder.check_split(split)
    export = observation_folder(directory)
    games = export.folder.read(
        export.games, lambda handle: pq.read_table(handle, page_checksum_verification=True)
    )
    check_split_games(folder.manifest, split, games, directory)
    return export, games


def iter_split_rows(
    export: ObservationExport, columns: list[str], *, dictionary: tuple[str, ...] = ()
) -> Iterator[pa.Table]:
    """The observation rows of a split (only ``columns``), a shard at a time in the
    export's order, each read through the very file checked (``dictionary``: columns read
    as dictionaries, never made into one string a row)."""
    for name in export.shards:
        yield export.folder.read(
            name,
            lambda handle: pq.read_table(handle, columns=columns, read_dictionary=dictionary),
        )


def iter_split_batches(
    export: ObservationExport,
    columns: list[str],
    *,
    dictionary: tuple[str, ...] = (),
    batch_rows: int = 65_536,
) -> Iterator[pa.Table]:
    """:func:`iter_split_rows` a row group (or ``batch_rows`` rows of one) at a time, each
    read through the very file checked and confirmed unchanged before it is given on: memory
    holds a row group, whatever the size of the shards."""
    for name in export.shards:
        with export.folder.open(name) as file:
            # not pre-buffered: pyarrow would hold every row group's bytes at once
            shard = pq.ParquetFile(file.handle, read_dictionary=dictionary, pre_buffer=False)
            for batch in shard.iter_batches(batch_size=batch_rows, columns=columns):
                file.confirm()
                yield pa.Table.from_batches([batch])


def split_rows(
    export: ObservationExport, columns: list[str], *, dictionary: tuple[str, ...] = ()
) -> pa.Table:
    """:func:`iter_split_rows` as one table."""
    parts = list(iter_split_rows(export, columns, dictionary=dictionary))
    if not parts:
        raise InputError(f"{export.directory} holds no observation rows")
    return pa.concat_tables(parts)


def split_games_table(export: ObservationExport) -> pa.Table:
    """The games table of a split (``DIR/<split>/games/``), read through the file checked."""
    export.check()
    return export.folder.read(
        export.games, lambda handle: pq.read_table(handle, page_checksum_verification=True)
    )
