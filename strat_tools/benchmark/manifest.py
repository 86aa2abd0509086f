"""The built benchmark's ``manifest.json``: written once by the build, read back checked.

The layout is :mod:`strat_tools.benchmark.definition`'s (its docstring, the contract the
build and the scorer share). :func:`manifest_data` makes the JSON object of a build;
:func:`read_manifest` reads one back and checks **every field** (a file we wrote is still
an input): the benchmark's name and version, each split's zips (a Gravon monthly name's
calendar month, each SHA-256; the shipped splits' zips exactly the definition's), the
counts against the games listed, each game's split, view and fingerprints. Whatever is
wrong raises :class:`ManifestError` naming the field (``splits.test.zips[1].sha256``).
Given the benchmark folder, the file is first checked against the folder's marker (size
and SHA-256, :func:`~strat_tools.io.owned.verify_folder`); :func:`split_folder` checks a
split's folder against the manifest (its games and rows).

This module reads one file and writes none.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, Final, NoReturn

import pyarrow as pa

from strat_tools.benchmark.definition import MONTH_NOTE, NAME, SPLITS, VERSION, calendar_month
from strat_tools.core.errors import InputError
from strat_tools.exports.observation_files import observation_games
from strat_tools.io.output import OutputError
from strat_tools.io.own_files import FieldError, collector_paused, load_json
from strat_tools.io.owned import verify_folder

__all__ = [
    "BENCHMARK_KIND",
    "FINGERPRINTS",
    "MANIFEST",
    "GameEntry",
    "Manifest",
    "ManifestError",
    "SplitEntry",
    "SplitZip",
    "check_split_games",
    "manifest_data",
    "read_manifest",
    "split_folder",
]

MANIFEST: Final = "manifest.json"
MAX_MANIFEST_BYTES: Final = 1 << 28
"""A manifest is about 200 bytes a game (2.5 MB for v1); a file over 256 MiB is refused
unread (a million-game extra set still fits)."""
"""The manifest's file name in the benchmark folder."""
BENCHMARK_KIND: Final = "benchmark"
"""The kind of output that owns a benchmark folder (its marker says so)."""
FINGERPRINTS: Final = (
    "red_fingerprint",
    "red_mirror_fingerprint",
    "blue_fingerprint",
    "blue_mirror_fingerprint",
)
"""Each game's setup fingerprints in the manifest (:mod:`strat_tools.setups.identity`)."""
SHIPPED: Final = tuple(split.name for split in SPLITS)
"""The splits the definition ships (``train``, ``val``, ``test``); any other is an extra."""
VIEWED: Final = ("fresh", "seen")
"""The views a game of a test or extra split is in (``all`` is both)."""

_HEX64: Final = re.compile(r"^[0-9a-f]{64}$")
_HEX16: Final = re.compile(r"^[0-9a-f]{16}$")
_HEX_DIGITS: Final = "0123456789abcdef"
_SPLIT_NAME: Final = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


class ManifestError(InputError):
    """A manifest that is not one this version of the benchmark wrote; the message names
    the field (a damaged build: the run fails, exit 3)."""


@dataclass(frozen=True, slots=True)
class SplitZip:
    """One input file of a split: its name, calendar month (``None`` for a file that is not
    a Gravon monthly zip, possible in an extra) and SHA-256."""

    name: str
    month: str | None
    sha256: str


@dataclass(frozen=True, slots=True)
class SplitEntry:
    """A split as the manifest lists it: its input files, games and observation rows."""

    name: str
    zips: tuple[SplitZip, ...]
    games: int
    rows: int

    @property
    def viewed(self) -> bool:
        """Whether its games are in a view (``fresh``/``seen``): the test split and extras."""
        return self.name not in ("train", "val")


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One game of a split: its id, split, view (``None`` for train and val) and its
    setups' fingerprints (as drawn, and up to a mirror image)."""

    game_id: str
    split: str
    view: str | None
    red_fingerprint: str
    red_mirror_fingerprint: str
    blue_fingerprint: str
    blue_mirror_fingerprint: str


@dataclass(frozen=True, slots=True)
class Manifest:
    """A checked manifest (:func:`read_manifest`)."""

    benchmark: str
    version: int
    strat_tools: str
    month_note: str
    splits: dict[str, SplitEntry]
    games: tuple[GameEntry, ...]

    def game_ids(self, split: str, view: str = "all") -> list[str]:
        """The ids of a split's games in a view (``all``, ``fresh``, ``seen``), in order."""
        if split not in self.splits:
            raise ManifestError(f"no split {split!r}; the manifest has {', '.join(self.splits)}")
        if view not in ("all", *VIEWED):
            raise ManifestError(f"no view {view!r}; expected all, fresh or seen")
        return [g.game_id for g in self.games if g.split == split and view in ("all", g.view or "")]


def manifest_data(
    splits: Sequence[SplitEntry], games: Sequence[GameEntry], version: str
) -> dict[str, Any]:
    """The JSON object of a manifest (the layout of :mod:`strat_tools.benchmark.definition`)."""
    return {
        "benchmark": NAME,
        "version": VERSION,
        "strat_tools": version,
        "month_note": MONTH_NOTE,
        "splits": {
            s.name: {
                "zips": [{"name": z.name, "month": z.month, "sha256": z.sha256} for z in s.zips],
                "games": s.games,
                "rows": s.rows,
            }
            for s in splits
        },
        "games": [
            {
                "game_id": g.game_id,
                "split": g.split,
                "view": g.view,
                **{name: getattr(g, name) for name in FINGERPRINTS},
            }
            for g in games
        ],
    }


def read_manifest(path: str | os.PathLike[str]) -> Manifest:
    """The manifest of a built benchmark, every field checked: ``path`` is the benchmark
    folder (its ``manifest.json`` checked against the folder's marker first) or the file.

    >>> read_manifest("bench-v1").game_ids("test", "fresh")[:1]  # doctest: +SKIP
    ['classic-2014.9-1']
    """
    where = Path(path)
    if where.is_dir():
        try:
            verify_folder(where, [MANIFEST])
        except OutputError as exc:
            raise ManifestError(f"{where} is not a finished benchmark build: {exc}") from None
        where = where / MANIFEST
    with collector_paused():  # (a tree of some 100,000 objects, none in a cycle)
        try:  # opened and parsed as every file of ours read back: regular, bounded, strict
            data = load_json(str(where), limit=MAX_MANIFEST_BYTES)
        except FieldError as exc:
            raise ManifestError(f"cannot read the manifest {where}: {exc}") from None
        return manifest_of(data, str(where))


def manifest_of(data: object, where: str = MANIFEST) -> Manifest:
    """A :class:`Manifest` of a decoded JSON object, every field checked (see
    :func:`read_manifest`)."""
    top = _mapping(data, "the manifest", where)
    expected = {"benchmark", "version", "strat_tools", "month_note", "splits", "games"}
    _keys(top, expected, "the manifest", where)
    if top["benchmark"] != NAME:
        _fail(where, "benchmark", f"is {top['benchmark']!r}, expected {NAME!r}")
    if type(top["version"]) is not int or top["version"] != VERSION:
        _fail(where, "version", f"is {top['version']!r}, expected {VERSION}")
    built_by = _string(top["strat_tools"], "strat_tools", where)
    if top["month_note"] != MONTH_NOTE:
        _fail(where, "month_note", "is not the definition's note on zero-based month names")
    splits = _splits(top["splits"], where)
    games = _games(top["games"], splits, where)
    return Manifest(NAME, VERSION, built_by, MONTH_NOTE, splits, games)


def _splits(value: object, where: str) -> dict[str, SplitEntry]:
    splits = _mapping(value, "splits", where)
    names = list(splits)
    if names[: len(SHIPPED)] != list(SHIPPED):
        _fail(where, "splits", f"are {names}, expected {list(SHIPPED)} first")
    found: dict[str, SplitEntry] = {}
    shipped = {split.name: split for split in SPLITS}
    for name in names:
        field = f"splits.{name}"
        if not isinstance(name, str) or not _SPLIT_NAME.match(name):
            _fail(where, field, "is not a split name (lower-case letters, digits, - and _)")
        entry = _mapping(splits[name], field, where)
        _keys(entry, {"zips", "games", "rows"}, field, where)
        zips_value = entry["zips"]
        if not isinstance(zips_value, list) or not zips_value:
            _fail(where, f"{field}.zips", "is not a non-empty list")
        zips = tuple(_zip(z, f"{field}.zips[{i}]", where) for i, z in enumerate(zips_value))
        if name in shipped:
            want = [(z.name, z.month, z.sha256) for z in shipped[name].zips]
            if [(z.name, z.month, z.sha256) for z in zips] != want:
                _fail(where, f"{field}.zips", "are not the definition's zips and SHA-256")
        found[name] = SplitEntry(
            name,
            zips,
            _count(entry["games"], f"{field}.games", where),
            _count(entry["rows"], f"{field}.rows", where),
        )
    return found


def _zip(value: object, field: str, where: str) -> SplitZip:
    entry = _mapping(value, field, where)
    _keys(entry, {"name", "month", "sha256"}, field, where)
    name = _string(entry["name"], f"{field}.name", where)
    try:
        month: str | None = calendar_month(name)
    except ValueError:
        month = None
    if entry["month"] != month:
        _fail(where, f"{field}.month", f"is {entry['month']!r}; {name!r} holds {month!r}")
    sha = entry["sha256"]
    if not isinstance(sha, str) or not _HEX64.match(sha):
        _fail(where, f"{field}.sha256", "is not 64 lower-case hex digits")
    return SplitZip(name, month, sha)


def _games(value: object, splits: Mapping[str, SplitEntry], where: str) -> tuple[GameEntry, ...]:
    if not isinstance(value, list):
        _fail(where, "games", "is not a list")
    at_once = _games_at_once(value, splits)
    return at_once if at_once is not None else _games_one_by_one(value, splits, where)


def _games_at_once(
    value: list[Any], splits: Mapping[str, SplitEntry]
) -> tuple[GameEntry, ...] | None:
    """The games when every entry passes the checks of :func:`_games_one_by_one`, made in
    bulk (a fifth of its time on 12,400 games); None whenever any entry might not, for
    that one to decide and name the field. Never accepts what it would refuse: every
    check here is as strict or stricter."""
    fields = ("game_id", "split", "view", *FINGERPRINTS)
    expected, get = set(fields), itemgetter(*fields)
    rows = [get(e) for e in value if type(e) is dict and e.keys() == expected]
    if len(rows) != len(value) or not rows:
        return None
    ids, of, views, *columns = zip(*rows, strict=True)
    prints = [text for column in columns for text in column]
    # types and lengths gathered by map (in C), then compared as sets
    if set(map(type, ids)) != {str} or not all(ids) or set(map(type, of)) != {str}:
        return None
    if not set(of) <= splits.keys() or len(set(zip(of, ids, strict=True))) != len(ids):
        return None
    if any(of.count(name) != entry.games for name, entry in splits.items()):
        return None
    viewed = {name: entry.viewed for name, entry in splits.items()}
    if not all((v in VIEWED) if viewed[x] else v is None for x, v in zip(of, views, strict=True)):
        return None
    if set(map(type, prints)) != {str} or set(map(len, prints)) != {16}:
        return None
    if "".join(prints).strip(_HEX_DIGITS):  # a character left: not a hex digit
        return None
    return tuple(GameEntry(*row) for row in rows)


def _games_one_by_one(
    value: list[Any], splits: Mapping[str, SplitEntry], where: str
) -> tuple[GameEntry, ...]:
    expected = {"game_id", "split", "view", *FINGERPRINTS}
    seen: set[tuple[str, str]] = set()
    counts = dict.fromkeys(splits, 0)
    games = []
    for i, item in enumerate(value):
        field = f"games[{i}]"
        entry = _mapping(item, field, where)
        _keys(entry, expected, field, where)
        game_id = _string(entry["game_id"], f"{field}.game_id", where)
        split = entry["split"]
        if split not in splits:
            _fail(where, f"{field}.split", f"is {split!r}, not a split of the manifest")
        if (split, game_id) in seen:
            _fail(where, f"{field}.game_id", f"{game_id!r} is listed twice in {split}")
        seen.add((split, game_id))
        counts[split] += 1
        view = entry["view"]
        if splits[split].viewed and view not in VIEWED:
            _fail(where, f"{field}.view", f"is {view!r}; a {split} game is fresh or seen")
        if not splits[split].viewed and view is not None:
            _fail(where, f"{field}.view", f"is {view!r}; a {split} game has none (null)")
        prints = []
        for name in FINGERPRINTS:
            text = entry[name]
            if not isinstance(text, str) or not _HEX16.match(text):
                _fail(where, f"{field}.{name}", "is not 16 lower-case hex digits")
            prints.append(text)
        games.append(GameEntry(game_id, split, view, *prints))
    for name, split_entry in splits.items():
        if counts[name] != split_entry.games:
            _fail(
                where, f"splits.{name}.games", f"is {split_entry.games}, games lists {counts[name]}"
            )
    return tuple(games)


def _mapping(value: object, field: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(where, field, "is not an object")
    return value


def _keys(entry: Mapping[str, Any], expected: set[str], field: str, where: str) -> None:
    missing = sorted(expected - set(entry))
    if missing:
        _fail(where, field, f"has no {missing[0]!r}")
    unknown = sorted(str(key) for key in set(entry) - expected)
    if unknown:
        _fail(where, field, f"has an unknown field {unknown[0]!r}")


def _string(value: object, field: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        _fail(where, field, "is not a non-empty string")
    return value


def _count(value: object, field: str, where: str) -> int:
    if type(value) is not int or value < 0:
        _fail(where, field, f"is {value!r}, not a count")
    return value


def _fail(where: str, field: str, what: str) -> NoReturn:
    raise ManifestError(f"{where}: {field} {what}")


def split_folder(directory: str | os.PathLike[str], manifest: Manifest, split: str) -> Path:
    """The folder of ``split`` in the benchmark folder ``directory``, checked against the
    manifest: an observation export (checked against its own marker,
    :func:`~strat_tools.exports.observation_files.observation_games`) whose games that gave
    rows are exactly the split's games in the manifest, with its row count. Raises
    :class:`ManifestError` naming what differs."""
    if split not in manifest.splits:
        raise ManifestError(f"no split {split!r}; the manifest has {', '.join(manifest.splits)}")
    folder = Path(directory) / split
    check_split_games(manifest, split, observation_games(folder), folder)
    return folder


def check_split_games(manifest: Manifest, split: str, games: pa.Table, folder: Path) -> None:
    """Check the games table ``games`` of ``split``'s folder ``folder`` against the manifest
    (:func:`split_folder`'s check, for a reader that read the table itself)."""
    rows = dict(zip(games["game_id"].to_pylist(), games["observations"].to_pylist(), strict=True))
    kept = {game_id for game_id, count in rows.items() if count}
    listed = set(manifest.game_ids(split))
    if kept != listed:
        odd = sorted(kept ^ listed)[0]
        raise ManifestError(
            f"{folder}: game {odd!r} is {'not ' if odd in kept else ''}in the manifest's "
            f"{split} but {'gave rows' if odd in kept else 'gave none here'}"
        )
    total = sum(rows[game_id] for game_id in kept)
    if total != manifest.splits[split].rows:
        raise ManifestError(
            f"{folder}: {total:,} rows, the manifest's splits.{split}.rows says "
            f"{manifest.splits[split].rows:,}"
        )
