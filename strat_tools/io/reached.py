"""What reading inputs reaches, without reading them: every file and folder a run opens
(:func:`iter_reached`, what "is this output an input?" compares with) and about how many
games the inputs hold (:func:`estimated_games`, from the files' sizes).

Split from :mod:`strat_tools.io.sources` (which expands inputs into units and reads them)
as its own concern: looking at inputs from outside, never opening a record.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import suppress
from typing import Final, NamedTuple

from strat_tools.core.record_formats import is_record_name
from strat_tools.io.sources import GLOB_CHARS, Paths, iter_paths
from strat_tools.io.walk import glob_paths

READ_SUFFIXES: Final = (".zip", ".parquet", ".csv", ".json")
"""Besides the record suffixes, what reading a folder takes: archives of records and an
exported dataset's tables and marker."""


def taken_by_reading(name: str) -> bool:
    """Whether reading a folder would take a file named ``name`` (a record, a zip, a table).

    >>> taken_by_reading("a.xml"), taken_by_reading("games.parquet"), taken_by_reading("r.html")
    (True, True, False)
    """
    return is_record_name(name) or name.lower().endswith(READ_SUFFIXES)


class Reached(NamedTuple):
    """A file or folder that reading an input opens: its real path (links followed),
    whether it is a folder, and the input given that reaches it."""

    path: str
    folder: bool
    given: str


def iter_reached(paths: Paths) -> Iterator[Reached]:
    """Every file and folder that reading ``paths`` opens, by real path (links followed):
    each path given (a glob: what it matches), every folder walked under a folder given
    (each real folder once, as :func:`iter_units` walks them) and every file in those
    folders that reading takes (:func:`taken_by_reading`). What "is this output an input?"
    compares with; a path that does not exist reaches nothing. Reads no file.
    """
    seen_dirs: set[str] = set()
    for given in iter_paths(paths):
        if os.path.lexists(given):
            matches = [given]
        else:
            matches = sorted(glob_paths(given)) if GLOB_CHARS & set(given) else []
        for path in matches:
            if os.path.isdir(path):
                yield from _reached_folder(path, given, seen_dirs)
            elif os.path.exists(path):
                yield Reached(os.path.realpath(path), False, given)


def _reached_folder(folder: str, given: str, seen_dirs: set[str]) -> Iterator[Reached]:
    """The folders and taken files under ``folder``, depth first, from a stack of listings
    (never a recursive call: a folder of any depth, as :func:`strat_tools.io.walk.walk`)."""
    # Each entry carries its real path: a child that is no link is its parent's real path
    # and its name (realpath on every level costs a lstat a level above it: quadratic).
    stack = [(folder, os.path.realpath(folder))]
    while stack:
        current, real = stack.pop()
        if real in seen_dirs:
            continue
        seen_dirs.add(real)
        yield Reached(real, True, given)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        folders = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # links followed
                linked = entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                below = os.path.realpath(entry.path) if linked else os.path.join(real, entry.name)
                folders.append((entry.path, below))
            elif taken_by_reading(entry.name) and os.path.exists(entry.path):
                found = os.path.realpath(entry.path) if linked else os.path.join(real, entry.name)
                yield Reached(found, False, given)
        stack.extend(reversed(folders))


ZIP_BYTES_PER_GAME: Final = 2000
"""About how many bytes a game takes in a monthly zip (the 23 Gravon months: 29.6 MB for
13,980 games, 2,117 a game; the shipped sample 1,680)."""


def estimated_games(paths: Paths) -> int:
    """About how many games ``paths`` hold, from the files' sizes alone: a zip's bytes over
    :data:`ZIP_BYTES_PER_GAME`, every other file reading takes one game. No zip is opened
    and nothing is read, so a choice made before a run (the observation export's legal-move
    path) costs no second expansion of its inputs."""
    games = 0
    for reached in iter_reached(paths):
        if reached.folder:
            continue
        if reached.path.lower().endswith(".zip"):
            with suppress(OSError):
                games += max(1, os.stat(reached.path).st_size // ZIP_BYTES_PER_GAME)
        else:
            games += 1
    return games
