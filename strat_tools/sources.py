"""Where game files come from: paths, folders, globs and zip archives, read safely.

:func:`iter_units` turns any mix of files, folders (recursive, each real folder visited once,
so symlink loops end), glob patterns and ``.zip`` archives into a stably ordered stream of
:class:`Unit` (one game file each), listing each folder and zip only when the stream reaches
it; :func:`expand` is the same as a list. :class:`UnitReader` then reads each unit's bytes,
keeping the current zip open and never unpacking anything to disk, with a size guard against
zip bombs and huge files.

Order: arguments in the order given; folders sorted by name; zip members sorted by name.

Nothing here raises for bad input. A missing path, an unreadable file or a broken zip becomes
a :class:`Unit` with ``error`` set (one invalid entry in every output). Entries that are not
game files (folders inside zips, members and files not named as records) are
skipped, and each skip is reported as a :class:`Skipped` value when the caller passes a list
to ``expand(..., skipped=...)``: visible, but not counted as games.

This module knows nothing of XML, .gsn or Stratego: which names are game records it asks
the format registry.
"""

from __future__ import annotations

import glob
import os
import stat
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from types import TracebackType
from typing import Final, NamedTuple

from strat_tools.record_formats import is_record_name, record_suffixes

MAX_GAME_BYTES: Final = 64 * 1024 * 1024
"""Default size limit of one game file (declared and actually inflated): 64 MiB."""

_GLOB_CHARS: Final = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Unit:
    """One game file: a plain file (``member`` None) or a zip member; ``error`` if unusable."""

    source: str
    member: str | None = None
    error: str | None = None

    @property
    def label(self) -> str:
        """``file`` or ``file!member``, for messages."""
        return self.source if self.member is None else f"{self.source}!{self.member}"


class Skipped(NamedTuple):
    """An entry met while expanding that is not a game file, and why it was left out."""

    source: str
    member: str | None
    reason: str


def is_unsafe_member_name(name: str) -> bool:
    """Whether a zip member name is absolute or climbs with ``..`` (never used as a path)."""
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        return True
    return ".." in PurePosixPath(norm).parts


def _is_game_name(name: str) -> bool:
    return is_record_name(name)


def _not_a_record(what: str) -> str:
    return f"not a game record file ({', '.join(record_suffixes())}{what})"


def _zip_units(path: str, skipped: list[Skipped]) -> list[Unit]:
    """One unit per XML member of the zip at ``path``, in name order."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        return [Unit(path, None, f"not a readable zip archive: {_reason(exc)}")]
    units: list[Unit] = []
    seen: set[str] = set()
    for info in sorted(infos, key=lambda i: i.filename):
        name = info.filename
        if info.is_dir():
            skipped.append(Skipped(path, name, "folder inside the zip"))
        elif not _is_game_name(name):
            skipped.append(Skipped(path, name, _not_a_record("")))
        elif name in seen:
            units.append(Unit(path, name, "duplicate member name in the zip"))
        else:
            seen.add(name)
            units.append(Unit(path, name))
    return units


def _reason(exc: BaseException) -> str:
    """An exception as a short message (no file contents, only what the OS or zipfile says)."""
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _walk(folder: str, seen_dirs: set[str], skipped: list[Skipped]) -> Iterator[Unit]:
    """Units under ``folder``, sorted by name, each real folder visited once."""
    real = os.path.realpath(folder)
    if real in seen_dirs:
        skipped.append(Skipped(folder, None, "folder already visited (symlink loop or repeat)"))
        return
    seen_dirs.add(real)
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        yield Unit(folder, None, f"cannot list folder: {_reason(exc)}")
        return
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            yield from _walk(path, seen_dirs, skipped)
        elif name.lower().endswith(".zip"):
            yield from _zip_units(path, skipped)
        elif _is_game_name(name):
            yield _file_unit(path)
        else:
            skipped.append(Skipped(path, None, _not_a_record(" or .zip")))


def _file_unit(path: str) -> Unit:
    """A unit for a plain file, with an error when it is not a regular readable file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return Unit(path, None, f"cannot read: {_reason(exc)}")
    if not stat.S_ISREG(mode):
        return Unit(path, None, "not a regular file (a FIFO, device or socket)")
    return Unit(path, None)


def _expand_one(path: str, seen_dirs: set[str], skipped: list[Skipped]) -> Iterator[Unit]:
    if os.path.isdir(path):
        yield from _walk(path, seen_dirs, skipped)
    elif not os.path.lexists(path):
        if _GLOB_CHARS & set(path):
            matches = sorted(glob.glob(path, recursive=True))
            if not matches:
                yield Unit(path, None, "no file matches this pattern")
            for match in matches:
                yield from _expand_one(match, seen_dirs, skipped)
        else:
            yield Unit(path, None, "no such file or folder")
    elif path.lower().endswith(".zip"):
        yield from _zip_units(path, skipped)
    else:
        yield _file_unit(path)


def iter_units(
    paths: Iterable[str | os.PathLike[str]], *, skipped: list[Skipped] | None = None
) -> Iterator[Unit]:
    """Every game file under ``paths`` as a :class:`Unit`, in a stable order, lazily.

    The streaming form of :func:`expand`: folders are listed and zips' directories read only
    when the iteration reaches them, so memory does not grow with the number of inputs.
    ``skipped`` (a list) is filled as the iteration goes.

    >>> sum(1 for _ in iter_units(["games/"]))  # doctest: +SKIP
    400
    """
    sink: list[Skipped] = [] if skipped is None else skipped
    seen_dirs: set[str] = set()
    for path in paths:
        yield from _expand_one(os.fspath(path), seen_dirs, sink)


def expand(
    paths: Iterable[str | os.PathLike[str]], *, skipped: list[Skipped] | None = None
) -> list[Unit]:
    """Every game file under ``paths`` as a :class:`Unit`, in a stable order (a list; see
    :func:`iter_units` to stream them).

    Pass a list as ``skipped`` to collect the entries left out (non-XML members, ...).

    >>> [u.member for u in expand(["games.zip"])]  # doctest: +SKIP
    ['classic-2014.4-0.xml', ...]
    """
    return list(iter_units(paths, skipped=skipped))


def count_units(paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many units :func:`iter_units` yields for ``paths``, without keeping them."""
    return sum(1 for _ in iter_units(paths))


class SourceError(Exception):
    """A unit's bytes could not be read; the message says why (never file contents)."""


class UnitReader:
    """Reads units' bytes, keeping the current zip open. Use as a context manager.

    ``limit`` caps one game file's size, both as declared by the zip and as actually inflated
    (reading stops one byte past it), so a zip bomb costs at most ``limit`` bytes of memory.
    """

    def __init__(self, limit: int = MAX_GAME_BYTES) -> None:
        self.limit = limit
        self._archives: dict[str, zipfile.ZipFile | SourceError] = {}

    def __enter__(self) -> UnitReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close every zip opened so far."""
        for archive in self._archives.values():
            if isinstance(archive, zipfile.ZipFile):
                archive.close()
        self._archives.clear()

    def read(self, unit: Unit) -> bytes:
        """The unit's bytes; raises :class:`SourceError` (with the reason) if unreadable."""
        if unit.error is not None:
            raise SourceError(unit.error)
        if unit.member is None:
            return self._read_file(unit.source)
        return self._read_member(unit.source, unit.member)

    def _too_big(self, size: int) -> SourceError:
        return SourceError(f"larger than the {self.limit:,}-byte limit ({size:,} bytes)")

    def _read_file(self, path: str) -> bytes:
        try:
            # Check before opening: opening a FIFO would block the whole run.
            if not stat.S_ISREG(os.stat(path).st_mode):
                raise SourceError("not a regular file (a FIFO, device, socket or folder)")
            with open(path, "rb") as handle:
                data = handle.read(self.limit + 1)
        except OSError as exc:
            raise SourceError(f"cannot read: {_reason(exc)}") from None
        if len(data) > self.limit:
            raise SourceError(f"larger than the {self.limit:,}-byte limit")
        return data

    def _archive(self, path: str) -> zipfile.ZipFile:
        archive = self._archives.get(path)
        if archive is None:
            # Units come zip by zip: keep only the current zip open, so a reader streaming
            # over many zips does not keep every zip's directory in memory.
            self.close()
            try:
                archive = zipfile.ZipFile(path)
            except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
                archive = SourceError(f"not a readable zip archive: {_reason(exc)}")
            self._archives[path] = archive
        if isinstance(archive, SourceError):
            raise archive
        return archive

    def _read_member(self, path: str, member: str) -> bytes:
        archive = self._archive(path)
        try:
            info = archive.getinfo(member)
            if info.file_size > self.limit:
                raise self._too_big(info.file_size)
            with archive.open(info) as handle:
                data = handle.read(self.limit + 1)
        except SourceError:
            raise
        except (
            OSError,
            KeyError,
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            zlib.error,
            NotImplementedError,
            RuntimeError,
            ValueError,
            EOFError,
        ) as exc:
            raise SourceError(f"cannot read zip member: {_reason(exc)}") from None
        if len(data) > self.limit:
            raise SourceError(f"inflates past the {self.limit:,}-byte limit (zip bomb?)")
        return data
