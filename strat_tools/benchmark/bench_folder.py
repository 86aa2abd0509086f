"""A built benchmark folder read back: its manifest checked field by field, a split's games
and views, and a split's observation rows (only the columns asked for).

The layout is :mod:`strat_tools.benchmark.definition`'s (``DIR/manifest.json``,
``DIR/<split>/observations/``, ``DIR/<split>/games/``). The manifest is a file we wrote,
so it is still an input: every field the scorer and the predictor use is checked when it
is read (:func:`read_manifest`), and a folder whose manifest is not one is refused
(:class:`~strat_tools.core.errors.InputError`, naming the field). The observation shards
are read through the observation export's own check (each file's size and SHA-256
against its marker).

This module scores nothing and fits nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from strat_tools.benchmark.definition import NAME, VERSION
from strat_tools.core.errors import InputError, UsageError
from strat_tools.exports.observation_files import observation_folder, observation_games

__all__ = [
    "MANIFEST",
    "BenchFolder",
    "SplitGames",
    "iter_split_rows",
    "read_manifest",
    "split_column_names",
    "split_games_table",
    "split_rows",
]

MANIFEST: Final = "manifest.json"
"""The manifest's file name in a benchmark folder."""

GAME_KEYS: Final = ("game_id", "split", "view")
"""The keys of a manifest's game entry that the scorer reads (the fingerprints are the
build's; they are checked to be there, as text)."""
FINGERPRINT_KEYS: Final = (
    "red_fingerprint",
    "red_mirror_fingerprint",
    "blue_fingerprint",
    "blue_mirror_fingerprint",
)


@dataclass(frozen=True)
class SplitGames:
    """The games of one split as the manifest lists them: ids (in the manifest's order) and
    each one's view (``fresh``, ``seen``, or ``""`` for a split without views)."""

    game_ids: npt.NDArray[np.object_]
    views: npt.NDArray[np.object_]

    @property
    def has_views(self) -> bool:
        """Whether the split has fresh/seen views (a test or extra split)."""
        return bool(len(self.views)) and bool((self.views != "").all())


@dataclass(frozen=True)
class BenchFolder:
    """A benchmark folder whose manifest was checked: its path, the manifest as read, its
    SHA-256 (the bytes read) and the split names, in the manifest's order."""

    directory: Path
    manifest: dict[str, Any]
    sha256: str

    @property
    def splits(self) -> list[str]:
        """The split names, in the manifest's order (train, val, test, then extras)."""
        return list(self.manifest["splits"])

    def split_folder(self, split: str) -> Path:
        """``DIR/<split>``, once ``split`` is one of the manifest's (else a usage error
        naming them)."""
        if split not in self.manifest["splits"]:
            raise UsageError(
                f"no split {split!r} in {self.directory / MANIFEST} (it has "
                f"{', '.join(self.splits)})",
                option="split",
            )
        return self.directory / split

    def games(self, split: str) -> SplitGames:
        """The games of ``split`` and their views, as the manifest lists them."""
        self.split_folder(split)
        entries = [g for g in self.manifest["games"] if g["split"] == split]
        ids = np.array([g["game_id"] for g in entries], dtype=object)
        views = np.array([g["view"] or "" for g in entries], dtype=object)
        return SplitGames(ids, views)

    def months(self, split: str) -> list[str]:
        """The calendar months of ``split``'s zips (``YYYY-MM``)."""
        return [z["month"] for z in self.manifest["splits"][split]["zips"]]


def _need(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise InputError(f"{where} is not a {NAME} manifest: {what}")


def _check_splits(splits: Any, where: str) -> None:
    _need(isinstance(splits, dict) and bool(splits), where, "'splits' is not a mapping")
    for name, split in splits.items():
        _need(isinstance(split, dict), where, f"split {name!r} is not a mapping")
        zips = split.get("zips")
        _need(isinstance(zips, list), where, f"split {name!r} has no list of 'zips'")
        for entry in zips:
            _need(
                isinstance(entry, dict)
                and all(isinstance(entry.get(k), str) for k in ("name", "month", "sha256")),
                where,
                f"a zip of split {name!r} lacks its name, month or sha256: {entry!r}",
            )
        for count in ("games", "rows"):
            value = split.get(count)
            _need(
                isinstance(value, int) and not isinstance(value, bool) and value >= 0,
                where,
                f"split {name!r} has no count of {count}",
            )


def _check_games(games: Any, splits: dict[str, Any], where: str) -> None:
    _need(isinstance(games, list), where, "'games' is not a list")
    seen: set[tuple[str, str]] = set()
    for game in games:
        _need(isinstance(game, dict), where, f"a game entry is not a mapping: {game!r}")
        game_id, split, view = (game.get(k) for k in GAME_KEYS)
        _need(isinstance(game_id, str), where, f"a game entry has no game_id: {game!r}")
        _need(split in splits, where, f"game {game_id!r} is in no split of the manifest")
        _need(view in (None, "fresh", "seen"), where, f"game {game_id!r} has view {view!r}")
        _need(
            all(isinstance(game.get(k), str | None) for k in FINGERPRINT_KEYS),
            where,
            f"game {game_id!r} lacks its setups' fingerprints",
        )
        _need((split, game_id) not in seen, where, f"game {game_id!r} is listed twice")
        seen.add((split, game_id))
    counts: dict[str, int] = {}
    for game in games:
        counts[game["split"]] = counts.get(game["split"], 0) + 1
    for name, split in splits.items():
        _need(
            counts.get(name, 0) == split["games"],
            where,
            f"split {name!r} says {split['games']} games and lists {counts.get(name, 0)}",
        )


def read_manifest(directory: str | os.PathLike[str]) -> BenchFolder:
    """The benchmark folder ``directory`` with its manifest checked: the benchmark's name
    and version, each split's zips (name, month, sha256) and counts, and every game entry
    (id, split, view, fingerprints; no game listed twice; each split's count of games
    equal to the games it lists). :class:`InputError` naming what is wrong."""
    root = Path(directory)
    path = root / MANIFEST
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{root} is not a benchmark folder: cannot read {path}: {exc}") from None
    where = str(path)
    try:
        manifest = json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{where} is not JSON: {exc}") from None
    _need(isinstance(manifest, dict), where, "not a JSON object")
    _need(manifest.get("benchmark") == NAME, where, f"benchmark {manifest.get('benchmark')!r}")
    _need(manifest.get("version") == VERSION, where, f"version {manifest.get('version')!r}")
    _check_splits(manifest.get("splits"), where)
    _check_games(manifest.get("games"), manifest["splits"], where)
    return BenchFolder(root, manifest, hashlib.sha256(data).hexdigest())


def iter_split_rows(folder: BenchFolder, split: str, columns: list[str]) -> Iterator[pa.Table]:
    """The observation rows of ``split`` (only ``columns``), a shard at a time in the
    export's order, read through the export's check against its marker (``DIR/<split>``
    is an observation export folder)."""
    export = observation_folder(folder.split_folder(split))
    for name in export.shards:
        yield export.folder.read(name, lambda handle: pq.read_table(handle, columns=columns))


def split_column_names(folder: BenchFolder, split: str) -> list[str]:
    """The columns of ``split``'s observation rows (from its first shard's schema)."""
    export = observation_folder(folder.split_folder(split))
    if not export.shards:
        return []
    return list(export.folder.read(export.shards[0], pq.read_schema).names)


def split_rows(folder: BenchFolder, split: str, columns: list[str]) -> pa.Table:
    """:func:`iter_split_rows` as one table."""
    parts = list(iter_split_rows(folder, split, columns))
    if not parts:
        raise InputError(f"split {split!r} of {folder.directory} holds no observation rows")
    return pa.concat_tables(parts)


def split_games_table(folder: BenchFolder, split: str) -> pa.Table:
    """The games table of ``split`` (``DIR/<split>/games/``), checked as an export's."""
    return observation_games(folder.split_folder(split))
