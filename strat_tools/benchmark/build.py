"""Building ``strat-bench-move-v1`` from a user's Gravon folder: :func:`build_benchmark`.

The splits are the definition's whole monthly zips (:mod:`strat_tools.benchmark.definition`),
found by name under the paths given and checked against their shipped SHA-256 before any
work: a zip missing is named (:class:`MissingZip`), one whose bytes differ is refused
(:class:`ZipMismatch`). Each split (and each extra test set, ``extras``) is one observation
export of its files' classic games (:func:`~strat_tools.exports.observation_files.
export_observations`, through the input driver: processes or Dask like every command) into
``DIR/<split>/``; the manifest (:mod:`strat_tools.benchmark.manifest`) lists every game
that gave rows (valid, with at least one move) with its setups' fingerprints and, for the
test split and the extras, its view: ``fresh`` when neither of its setups, up to a mirror
image, is a setup of a train game, else ``seen``.

``DIR`` is owned as every output folder is (:class:`~strat_tools.io.staging.StagedFolder`,
kind ``benchmark``): one build at a time, everything written into a staging folder inside
it and moved in when complete, the marker (listing each file with its SHA-256) written
last; files an earlier build wrote are replaced, anything else in the way is refused.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib.metadata import version
from pathlib import Path
from typing import Final

import pyarrow.compute as pc
import pyarrow.parquet as pq

from strat_tools.benchmark.definition import SPLITS, calendar_month
from strat_tools.benchmark.manifest import (
    BENCHMARK_KIND,
    FINGERPRINTS,
    MANIFEST,
    SHIPPED,
    GameEntry,
    SplitEntry,
    SplitZip,
    manifest_data,
)
from strat_tools.core.errors import NothingReadable, NothingToRead, UsageError
from strat_tools.exports.observation_files import ObservationsSummary, export_observations
from strat_tools.exports.observations import GAMES_FILE, SHARD_ROWS
from strat_tools.io.output import OutputError, check_output
from strat_tools.io.owned import handle_digest, read_marker
from strat_tools.io.reached import iter_reached
from strat_tools.io.sources import (
    Paths,
    SourceError,
    open_regular,
    path_list,
    printable,
)
from strat_tools.io.staging import StagedFolder
from strat_tools.run.filters import GameFilter
from strat_tools.run.options import Run, RunArg

__all__ = [
    "BenchmarkSummary",
    "MissingZip",
    "ZipMismatch",
    "build_benchmark",
    "extra_name",
    "split_files",
]

CLASSIC: Final = GameFilter.parse(variant="classic")
"""The benchmark's games: classic ones (the export keeps the valid ones' rows)."""
_EXTRA_NAME: Final = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


class MissingZip(NothingToRead):
    """A zip of the definition is not under the paths given (nothing ran: exit 2)."""


class ZipMismatch(NothingToRead):
    """A zip of the definition's name whose bytes are not the shipped ones (refused before
    any work: exit 2)."""


@dataclass(slots=True)
class BenchmarkSummary:
    """What a build wrote: each split's export summary, games and views."""

    directory: str
    splits: dict[str, ObservationsSummary] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    fresh: dict[str, int] = field(default_factory=dict)
    """Per test or extra split, its games in the fresh view."""
    seconds: float = 0.0

    def __str__(self) -> str:
        parts = []
        for name, summary in self.splits.items():
            fresh = f" ({self.fresh[name]:,} fresh)" if name in self.fresh else ""
            parts.append(
                f"{name}: {self.games[name]:,} games{fresh}, {summary.observations:,} rows"
            )
        return f"{'; '.join(parts)}; wrote {self.directory} in {self.seconds:.1f} s"


def extra_name(name: str) -> str:
    """``name`` if it can name an extra test set (lower-case letters, digits, ``-``, ``_``;
    not a shipped split's), else :class:`~strat_tools.core.errors.UsageError`."""
    if not _EXTRA_NAME.match(name) or name in SHIPPED:
        raise UsageError(
            f"an extra test set's name is lower-case letters, digits, - and _, and not "
            f"{', '.join(SHIPPED)}: got {printable(name)!r}",
            option="extra",
        )
    return name


def zip_digest(path: str) -> str:
    """The SHA-256 of the zip at ``path``, opened as every input is (a FIFO or a device named
    like a benchmark zip is refused, never waited on or read without end)."""
    try:
        handle, _size = open_regular(path)
    except SourceError as exc:
        raise ZipMismatch(f"{printable(path)}: {exc}; refused, nothing written") from None
    with handle:
        return handle_digest(handle)


def split_files(paths: Paths) -> dict[str, list[str]]:
    """The files of each shipped split under ``paths`` (folders walked, globs matched),
    each checked against the definition's SHA-256. Raises :class:`MissingZip` naming every
    zip not found, :class:`ZipMismatch` naming one whose bytes differ (or two files of one
    name that differ)."""
    found: dict[str, set[str]] = {}
    for reached in iter_reached(paths):
        if not reached.folder:
            found.setdefault(os.path.basename(reached.path), set()).add(reached.path)
    missing = [f"{z.name} ({s.name})" for s in SPLITS for z in s.zips if z.name not in found]
    if missing:
        raise MissingZip(
            f"{len(missing)} zip(s) of the benchmark are not in {' '.join(path_list(paths))}: "
            f"{', '.join(missing)}"
        )
    files: dict[str, list[str]] = {}
    for split in SPLITS:
        files[split.name] = []
        for entry in split.zips:
            for path in sorted(found[entry.name]):
                digest = zip_digest(path)
                if digest != entry.sha256:
                    raise ZipMismatch(
                        f"{printable(path)} is not Gravon's {entry.name} (SHA-256 {digest}, the "
                        f"benchmark's is {entry.sha256}): refused, nothing written"
                    )
            files[split.name].append(sorted(found[entry.name])[0])
    return files


def _extra_files(name: str, paths: Paths) -> tuple[list[str], tuple[SplitZip, ...]]:
    """The files of an extra test set and their manifest entries."""
    files = sorted({r.path for r in iter_reached(paths) if not r.folder})
    if not files:
        raise NothingReadable(path_list(paths), [f"no file for the extra test set {name!r}"])
    entries = []
    for path in files:
        base = os.path.basename(path)
        try:
            month: str | None = calendar_month(base)
        except ValueError:
            month = None
        entries.append(SplitZip(base, month, zip_digest(path)))
    return files, tuple(entries)


def _present(directory: Path, splits: Sequence[str]) -> list[str]:
    """What a build would replace or remove: the manifest, every file under the splits'
    folders, and every file the folder's marker lists (an earlier build's splits)."""
    names = {MANIFEST}
    for split in splits:
        root = directory / split
        if root.is_symlink() or (root.exists() and not root.is_dir()):
            raise OutputError(f"will not write into {root}: it is not a folder")
        if root.is_dir():
            names.update(
                p.relative_to(directory).as_posix() for p in root.rglob("*") if not p.is_dir()
            )
    marker = read_marker(directory) if directory.is_dir() else None
    if marker is not None and marker.output == BENCHMARK_KIND:
        names.update(marker.files)
    return sorted(names)


def _entries(split: str, folder: Path) -> list[GameEntry]:
    """The games of a split's export that gave rows, with their fingerprints (view unset)."""
    games = pq.read_table(
        folder / GAMES_FILE, columns=["game_id", "status", "observations", *FINGERPRINTS]
    )
    kept = games.filter(
        pc.and_(pc.equal(games["status"], "valid"), pc.greater(games["observations"], 0))
    )
    rows = kept.to_pylist()
    for row in rows:
        if any(row[name] is None for name in FINGERPRINTS):
            raise OutputError(f"game {row['game_id']!r} of {split} has rows and no setup")
    return [GameEntry(r["game_id"], split, None, *(r[name] for name in FINGERPRINTS)) for r in rows]


def build_benchmark(
    paths: Paths,
    directory: str | os.PathLike[str],
    *,
    extras: Mapping[str, Paths] | None = None,
    shard_rows: int = SHARD_ROWS,
    run: RunArg = None,
) -> BenchmarkSummary:
    """Build ``strat-bench-move-v1`` into ``directory`` from the Gravon zips under ``paths``
    (a folder, files or globs holding at least the definition's 23 zips), with an extra
    test set per entry of ``extras`` (name to paths: any months, the same rows and views).

    >>> build_benchmark("../gravon", "bench-v1", extras={"y2015": "more/*.zip"})  # doctest: +SKIP
    """
    started = time.perf_counter()
    extras = dict(extras or {})
    for name in extras:
        extra_name(name)
    files = split_files(paths)
    zips: dict[str, tuple[SplitZip, ...]] = {
        split.name: tuple(SplitZip(z.name, z.month, z.sha256) for z in split.zips)
        for split in SPLITS
    }
    for name, extra in extras.items():
        files[name], zips[name] = _extra_files(name, extra)
    target = Path(directory)
    check_output(target, [f for group in files.values() for f in group], folder=True, create=True)
    run = Run.of(run)
    summary = BenchmarkSummary(str(target))
    stage = StagedFolder(target, BENCHMARK_KIND, lambda: _present(target, list(files)))
    stage.open()
    names: list[str] | None = None
    try:
        entries: dict[str, list[GameEntry]] = {}
        for split, inputs in files.items():
            folder = stage.staging / split
            summary.splits[split] = export_observations(
                inputs, folder, shard_rows=shard_rows, select=CLASSIC, run=run
            )
            entries[split] = _entries(split, folder)
        train = {g.red_mirror_fingerprint for g in entries["train"]}
        train |= {g.blue_mirror_fingerprint for g in entries["train"]}
        games: list[GameEntry] = []
        splits = []
        for split, found in entries.items():
            if split not in ("train", "val"):
                found = [_viewed(g, train) for g in found]
                summary.fresh[split] = sum(g.view == "fresh" for g in found)
            games += found
            summary.games[split] = len(found)
            rows = summary.splits[split].observations
            splits.append(SplitEntry(split, zips[split], len(found), rows))
        data = manifest_data(splits, games, version("strat-tools"))
        (stage.staging / MANIFEST).write_text(json.dumps(data, indent=1) + "\n")
        names = sorted(
            p.relative_to(stage.staging).as_posix()
            for p in stage.staging.rglob("*")
            if not p.is_dir()
        )
    finally:
        stage.finish(names)
    summary.seconds = time.perf_counter() - started
    return summary


def _viewed(game: GameEntry, train: set[str]) -> GameEntry:
    """The game with its view: fresh when neither setup (up to a mirror image) is in train."""
    seen = game.red_mirror_fingerprint in train or game.blue_mirror_fingerprint in train
    return replace(game, view="seen" if seen else "fresh")
