"""Where game files come from: paths, folders, globs and zip archives, read safely.

:func:`iter_units` turns any mix of files, folders (recursive, each real folder visited once,
so symlink loops end), glob patterns and ``.zip`` archives into a stably ordered stream of
:class:`Unit` (one game file each), listing each folder and zip only when the stream reaches
it; :func:`expand` is the same as a list. :class:`UnitReader` then reads each unit's bytes,
keeping the current zip open and never unpacking anything to disk, with a size guard against
zip bombs and huge files.

Every function here that takes paths takes a ``str``, a :class:`~pathlib.Path` or an
iterable of them (:data:`Paths`, normalised by :func:`path_list`): ``"data/"`` is one path,
never five characters.

Order: arguments in the order given; folders sorted by name; zip members sorted by name.

Nothing here raises for bad input. A missing path, an unreadable file or a broken zip becomes
a :class:`Unit` with ``error`` set (an unreadable input in every output). Entries that are not
game files (folders inside zips, members and files not named as records) are
skipped, and each skip is reported as a :class:`Skipped` value when the caller passes a list
to ``expand(..., skipped=...)``: visible, but not counted as games.

Hostile inputs: only regular files are ever opened (a FIFO, device, socket, or a symlink to
one, is refused before reading a byte, for every suffix); a zip's directory is read once
(:mod:`strat_tools.io.zipdir`) and each member later with one seek, so time is linear in the
members; members whose data overlaps another member or the directory are refused, and the
members of one archive may declare at most :func:`archive_budget` bytes in all.

Names: a file or member name whose bytes are not valid UTF-8 is carried in printable form
(:func:`printable`: each undecodable byte as the four characters ``\\xNN``); the unit keeps
the real path to open it.

This module knows nothing of XML, .gsn or Stratego: which names are game records it asks
the format registry.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import PurePosixPath
from types import TracebackType
from typing import BinaryIO, Final, NamedTuple

from strat_tools.core.errors import StratToolsError
from strat_tools.core.record_formats import is_record_name, record_suffixes
from strat_tools.io.walk import ERROR, REPEAT, glob_paths, walk
from strat_tools.io.zipdir import ZipEntry, ZipError, read_directory, read_entry

MAX_GAME_BYTES: Final = 64 * 1024 * 1024
"""Default size limit of one game file (declared and actually inflated): 64 MiB."""
DEFLATE_MAX_RATIO: Final = 1032
"""Deflate's largest possible inflation ratio: an honest archive never inflates more."""

PathArg = str | os.PathLike[str]
"""One path: a ``str`` or a :class:`~pathlib.Path`."""
Paths = PathArg | Iterable[PathArg]
"""One path, or an iterable of them."""

_GLOB_CHARS: Final = frozenset("*?[")
_NOT_REGULAR: Final = "not a regular file (a FIFO, device or socket)"


def iter_paths(paths: Paths) -> Iterator[str]:
    """``paths`` one by one as path strings, lazily: one path (str or Path) or an iterable
    of them; anything else is a ``TypeError`` (never a string iterated by character)."""
    if isinstance(paths, str | os.PathLike):
        yield os.fspath(paths)
        return
    if isinstance(paths, bytes) or not isinstance(paths, Iterable):
        raise TypeError(
            f"expected a path (str or Path) or an iterable of paths, not {type(paths).__name__}"
        )
    for path in paths:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"expected a path (str or Path), not {type(path).__name__}")
        yield os.fspath(path)


def path_list(paths: Paths) -> list[str]:
    """``paths`` as a list of path strings: one path (str or Path) or an iterable of them.

    >>> path_list("data/")
    ['data/']
    >>> from pathlib import Path
    >>> path_list([Path("a.zip"), "b.xml"])
    ['a.zip', 'b.xml']
    >>> path_list(3)
    Traceback (most recent call last):
    ...
    TypeError: expected a path (str or Path) or an iterable of paths, not int
    """
    return list(iter_paths(paths))


def printable(name: str) -> str:
    r"""``name`` with each byte that is not valid UTF-8 written as ``\xNN`` (text, not bytes).

    Names from a folder walk or a zip keep undecodable bytes as surrogate escapes (U+DCNN),
    which no UTF-8 output can hold; this is the form every record, table and message
    carries. Valid names are returned unchanged.

    >>> printable("classic-\udcff.xml")
    'classic-\\xff.xml'
    >>> printable("ok.xml")
    'ok.xml'
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raw = name.encode("utf-8", "surrogateescape" if _only_escapes(name) else "backslashreplace")
        return raw.decode("utf-8", "backslashreplace")
    return name


def _only_escapes(name: str) -> bool:
    return all(not 0xD800 <= ord(c) < 0xDC80 for c in name if 0xD800 <= ord(c) < 0xE000)


@dataclass(frozen=True, slots=True)
class Unit:
    """One game file: a plain file (``member`` None) or a zip member; ``error`` if unusable.

    ``source`` and ``member`` are printable (:func:`printable`); ``path`` is the real path to
    open when it differs from ``source``; ``entry`` locates a zip member in its archive.
    """

    source: str
    member: str | None = None
    error: str | None = None
    path: str | None = None
    entry: ZipEntry | None = None

    @property
    def label(self) -> str:
        """``file`` or ``file!member``, for messages."""
        return self.source if self.member is None else f"{self.source}!{self.member}"

    @property
    def open_path(self) -> str:
        """The path to open (``source`` unless the name needed escaping)."""
        return self.source if self.path is None else self.path


def _unit(path: str, member: str | None = None, error: str | None = None) -> Unit:
    """A unit named printably, keeping ``path`` to open when the name needed escaping."""
    shown = printable(path)
    return Unit(shown, member, error, None if shown == path else path)


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


class SourceError(StratToolsError):
    """A unit's bytes could not be read; the message says why (never file contents)."""


def open_regular(path: str) -> tuple[BinaryIO, int]:
    """Open ``path`` for reading only if it is a regular file: (handle, size in bytes).

    Opened non-blocking and checked on the open descriptor, so a FIFO never blocks, and a
    device (or a symlink to one) is refused before a byte is read. Raises
    :class:`SourceError` with the reason.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise SourceError(f"cannot read: {_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(_NOT_REGULAR)
        return os.fdopen(fd, "rb"), info.st_size
    except BaseException:
        os.close(fd)
        raise


def archive_budget(archive_bytes: int, limit: int = MAX_GAME_BYTES) -> int:
    """How many bytes the game members of one zip may declare in all: what deflate can make
    of the archive's size at most (never less than one game's limit)."""
    return max(limit, DEFLATE_MAX_RATIO * archive_bytes)


def _zip_units(path: str, skipped: list[Skipped]) -> list[Unit]:
    """One unit per game-record member of the zip at ``path``, in name order."""
    shown = printable(path)
    try:
        handle, size = open_regular(path)
    except SourceError as exc:
        return [_unit(path, None, f"not a readable zip archive: {exc}")]
    try:
        with handle:
            entries = read_directory(handle, size)
    except (OSError, ZipError, ValueError) as exc:
        return [_unit(path, None, f"not a readable zip archive: {_reason(exc)}")]
    raw = None if shown == path else path
    units: list[Unit] = []
    budget, declared = archive_budget(size), 0
    for entry in sorted(entries, key=lambda e: e.name):
        name = printable(entry.name)
        if entry.is_dir:
            skipped.append(Skipped(shown, name, "folder inside the zip"))
        elif not _is_game_name(entry.name):
            skipped.append(Skipped(shown, name, _not_a_record("")))
        else:
            declared += min(entry.size, MAX_GAME_BYTES + 1)
            error = None
            if declared > budget:
                error = (
                    f"the archive's members declare more than {budget:,} bytes in all, more "
                    "than deflate can make of its size (zip bomb?); refused"
                )
            units.append(Unit(shown, name, error, raw, entry))
    return units


def _reason(exc: BaseException) -> str:
    """An exception as a short message (no file contents, only what the OS or zipfile says)."""
    if isinstance(exc, SourceError | ZipError):
        return str(exc)
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _walk(folder: str, seen_dirs: set[tuple[int, int]], skipped: list[Skipped]) -> Iterator[Unit]:
    """Units under ``folder``, sorted by name, each real folder visited once, at any depth."""
    for entry in walk(folder, seen_dirs):
        path = entry.path
        if entry.kind == REPEAT:
            reason = "folder already visited (symlink loop or repeat)"
            skipped.append(Skipped(printable(path), None, reason))
        elif entry.kind == ERROR:
            assert entry.error is not None
            yield _unit(path, None, f"cannot list folder: {_reason(entry.error)}")
        elif path.lower().endswith(".zip"):
            yield from _zip_units(path, skipped)
        elif _is_game_name(os.path.basename(path)):
            yield _file_unit(path)
        else:
            skipped.append(Skipped(printable(path), None, _not_a_record(" or .zip")))


def _file_unit(path: str) -> Unit:
    """A unit for a plain file, with an error when it is not a regular readable file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return _unit(path, None, f"cannot read: {_reason(exc)}")
    if not stat.S_ISREG(mode):
        return _unit(path, None, _NOT_REGULAR)
    return _unit(path)


def matches_nothing(path: str) -> bool:
    """Whether ``path`` names nothing at all: no such file or folder, or a glob matching no
    file (the one user's mistake about a path that every command reports alike, exit 2).

    >>> matches_nothing("data/"), matches_nothing("nowhere-*.zip"), matches_nothing("nope.xml")
    (False, True, True)
    """
    if os.path.lexists(path):
        return False
    return not (_GLOB_CHARS & set(path)) or not glob_paths(path)


def _expand_one(
    path: str, seen_dirs: set[tuple[int, int]], skipped: list[Skipped]
) -> Iterator[Unit]:
    if os.path.isdir(path):
        yield from _walk(path, seen_dirs, skipped)
    elif not os.path.lexists(path):
        if _GLOB_CHARS & set(path):
            matches = glob_paths(path)
            if not matches:
                yield _unit(path, None, "no file matches this pattern")
            for match in matches:
                yield from _expand_one(match, seen_dirs, skipped)
        else:
            yield _unit(path, None, "no such file or folder")
    elif path.lower().endswith(".zip"):
        yield from _zip_units(path, skipped)
    else:
        yield _file_unit(path)


def iter_units(paths: Paths, *, skipped: list[Skipped] | None = None) -> Iterator[Unit]:
    """Every game file under ``paths`` as a :class:`Unit`, in a stable order, lazily.

    The streaming form of :func:`expand`: folders are listed and zips' directories read only
    when the iteration reaches them, so memory does not grow with the number of inputs.
    ``skipped`` (a list) is filled as the iteration goes. ``paths`` is one path or an
    iterable of them (an iterable is consumed lazily).

    >>> sum(1 for _ in iter_units("games/"))  # doctest: +SKIP
    400
    """
    sink: list[Skipped] = [] if skipped is None else skipped
    seen_dirs: set[tuple[int, int]] = set()
    for path in iter_paths(paths):
        yield from _expand_one(path, seen_dirs, sink)


READ_SUFFIXES: Final = (".zip", ".parquet", ".csv", ".json")
"""Besides the record suffixes, what reading a folder takes: archives of records and an
exported dataset's tables and marker."""


def taken_by_reading(name: str) -> bool:
    """Whether reading a folder would take a file named ``name`` (a record, a zip, a table).

    >>> taken_by_reading("a.xml"), taken_by_reading("games.parquet"), taken_by_reading("r.html")
    (True, True, False)
    """
    return _is_game_name(name) or name.lower().endswith(READ_SUFFIXES)


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
            matches = sorted(glob_paths(given)) if _GLOB_CHARS & set(given) else []
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


def expand(paths: Paths, *, skipped: list[Skipped] | None = None) -> list[Unit]:
    """Every game file under ``paths`` as a :class:`Unit`, in a stable order (a list; see
    :func:`iter_units` to stream them).

    Pass a list as ``skipped`` to collect the entries left out (non-XML members, ...).

    >>> [u.member for u in expand("games.zip")]  # doctest: +SKIP
    ['classic-2014.4-0.xml', ...]
    """
    return list(iter_units(paths, skipped=skipped))


class _Archive:
    """An open zip: its handle, and its directory by name once a unit without an entry asks."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self.handle, self.size = handle, size
        self.by_name: dict[str, list[ZipEntry]] | None = None

    def entry(self, member: str) -> ZipEntry:
        """The entry of a member named ``member`` (printable form), for units made by hand."""
        if self.by_name is None:
            self.by_name = {}
            for entry in read_directory(self.handle, self.size):
                self.by_name.setdefault(printable(entry.name), []).append(entry)
        found = self.by_name.get(member)
        if not found:
            raise SourceError(f"cannot read zip member: no member named {member!r}")
        if len(found) > 1:
            raise SourceError("cannot read zip member: the zip holds this name more than once")
        return found[0]


class UnitReader:
    """Reads units' bytes, keeping the current zip open. Use as a context manager.

    ``limit`` caps one game file's size, both as declared by the zip and as actually inflated
    (reading stops one byte past it), so a zip bomb costs at most ``limit`` bytes of memory.
    A zip member is read with one seek from its unit's directory entry: the archive's
    directory is never read again, however the units are batched.
    """

    def __init__(self, limit: int = MAX_GAME_BYTES) -> None:
        self.limit = limit
        self._archives: dict[str, _Archive | SourceError] = {}

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
            if isinstance(archive, _Archive):
                archive.handle.close()
        self._archives.clear()

    def read(self, unit: Unit) -> bytes:
        """The unit's bytes; raises :class:`SourceError` (with the reason) if unreadable."""
        if unit.error is not None:
            raise SourceError(unit.error)
        if unit.member is None:
            return self._read_file(unit.open_path)
        return self._read_member(unit)

    def _read_file(self, path: str) -> bytes:
        handle, _size = open_regular(path)
        try:
            with handle:
                data = handle.read(self.limit + 1)
        except OSError as exc:
            raise SourceError(f"cannot read: {_reason(exc)}") from None
        if len(data) > self.limit:
            raise SourceError(f"larger than the {self.limit:,}-byte limit")
        return data

    def _archive(self, path: str) -> _Archive:
        archive = self._archives.get(path)
        if archive is None:
            # Units come zip by zip: keep only the current zip open.
            self.close()
            try:
                archive = _Archive(*open_regular(path))
            except SourceError as exc:
                archive = SourceError(f"not a readable zip archive: {exc}")
            self._archives[path] = archive
        if isinstance(archive, SourceError):
            raise archive
        return archive

    def _read_member(self, unit: Unit) -> bytes:
        archive = self._archive(unit.open_path)
        try:
            entry = unit.entry or archive.entry(unit.member or "")
            return read_entry(archive.handle, entry, self.limit)
        except (OSError, ZipError, ValueError) as exc:
            raise SourceError(f"cannot read zip member: {_reason(exc)}") from None
