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
from dataclasses import dataclass
from pathlib import PurePosixPath
from types import TracebackType
from typing import BinaryIO, Final, Literal, NamedTuple

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

GLOB_CHARS: Final = frozenset("*?[")
"""The characters that make a path given a glob pattern (when no such file exists)."""
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

    ``source`` and ``member`` are printable (:func:`printable`), as the path was given;
    ``path`` is the path to open, absolute (:func:`iter_units` sets it from the resolved
    :class:`Input`, so a worker in another folder opens the same file; a unit made by hand
    without it opens ``source``); ``entry`` locates a zip member in its archive.
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
        """The path to open: ``path``, or ``source`` for a unit made by hand without one."""
        return self.source if self.path is None else self.path


def _unit(shown: str, opened: str, member: str | None = None, error: str | None = None) -> Unit:
    """A unit shown as ``shown`` (printably) that opens ``opened`` (absolute)."""
    return Unit(printable(shown), member, error, opened)


InputKind = Literal["file", "zip", "folder", "dataset", "glob", "missing"]
"""What a path given is: a file (a record, or anything not a folder or a zip), a zip, a
folder of records, an exported dataset folder (decided a floor up, by
:class:`strat_tools.run.inputs.Inputs`), a glob pattern (with what it matched), or nothing."""


@dataclass(frozen=True, slots=True)
class Input:
    """One path given, resolved once: as given (``given``: what messages and the tables'
    ``source`` show), absolute (``path``: what every process opens, in whatever folder it
    runs) and its kind; a glob's ``matches`` are its files and folders, resolved alike."""

    given: str
    path: str
    kind: InputKind
    matches: tuple[Input, ...] = ()

    def shown(self, opened: str) -> str:
        """How to show ``opened``, a path under :attr:`path` (a folder's entry): as if the
        folder had been walked from the path as given.

        >>> Input("data/", "/w/data/", "folder").shown("/w/data/sub/a.zip")
        'data/sub/a.zip'
        >>> Input("data", "/w/data", "folder").shown("/w/data/a.zip")
        'data/a.zip'
        """
        if not opened.startswith(self.path):
            return opened
        rest = opened[len(self.path) :].lstrip(os.sep)
        return os.path.join(self.given, rest) if rest else self.given


def resolve(given: str, cwd: str | None = None) -> Input:
    """The path ``given`` as an :class:`Input`: joined to the working folder ``cwd`` unless
    absolute, not normalised (``link/..`` means what the system makes of it, as when the
    path is opened as given); a glob with its matches, shown as ``glob`` gives them.

    >>> item = resolve("data/")
    >>> item.given, item.kind, os.path.isabs(item.path), item.path.endswith("/data/")
    ('data/', 'folder', True, True)
    >>> resolve("nowhere-*.zip").kind, resolve("no-such.xml").kind, resolve("a.zip").kind
    ('glob', 'missing', 'missing')
    """
    cwd = os.getcwd() if cwd is None else cwd
    path = given if os.path.isabs(given) else os.path.join(cwd, given)
    if not given:  # not the working folder
        return Input(given, given, "missing")
    if os.path.isdir(path):
        return Input(given, path, "folder")
    if not os.path.lexists(path):
        if not GLOB_CHARS & set(given):
            return Input(given, path, "missing")
        base = None if os.path.isabs(given) else os.path.join(cwd, "")
        return Input(given, path, "glob", tuple(_match(m, base) for m in glob_paths(path)))
    return Input(given, path, "zip" if given.lower().endswith(".zip") else "file")


def _match(opened: str, base: str | None) -> Input:
    """A glob's match, globbed from the absolute pattern: a relative pattern's (``base``:
    the folder it was joined to, ending in a separator) is shown relative, as ``glob``
    gives it."""
    shown = opened[len(base) :] if base is not None and opened.startswith(base) else opened
    if os.path.isdir(opened):
        return Input(shown, opened, "folder")
    return Input(shown, opened, "zip" if shown.lower().endswith(".zip") else "file")


def resolved(paths: Paths | Iterable[Input]) -> Iterator[Input]:
    """``paths`` as :class:`Input` values, lazily: those resolved already as they are, each
    path (str or Path) resolved once; anything else is a ``TypeError``."""
    if isinstance(paths, str | os.PathLike):
        yield resolve(os.fspath(paths))
        return
    if isinstance(paths, bytes) or not isinstance(paths, Iterable):
        raise TypeError(
            f"expected a path (str or Path) or an iterable of paths, not {type(paths).__name__}"
        )
    cwd = os.getcwd()
    for path in paths:
        if isinstance(path, Input):
            yield path
        elif isinstance(path, str | os.PathLike):
            yield resolve(os.fspath(path), cwd)
        else:
            raise TypeError(f"expected a path (str or Path), not {type(path).__name__}")


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
    except BaseException:
        os.close(fd)
        raise
    # the descriptor just checked, owned from here by a file object whose ``name`` is the
    # path (as for any file opened by name), not the descriptor's number
    return open(path, "rb", opener=lambda _path, _flags: fd), info.st_size


def archive_budget(archive_bytes: int, limit: int = MAX_GAME_BYTES) -> int:
    """How many bytes the game members of one zip may declare in all: what deflate can make
    of the archive's size at most (never less than one game's limit)."""
    return max(limit, DEFLATE_MAX_RATIO * archive_bytes)


def _zip_units(given: str, path: str, skipped: list[Skipped]) -> list[Unit]:
    """One unit per game-record member of the zip at ``path`` (shown as ``given``), in
    name order."""
    shown = printable(given)
    try:
        handle, size = open_regular(path)
    except SourceError as exc:
        return [_unit(given, path, None, f"not a readable zip archive: {exc}")]
    try:
        with handle:
            entries = read_directory(handle, size)
    except (OSError, ZipError, ValueError) as exc:
        return [_unit(given, path, None, f"not a readable zip archive: {_reason(exc)}")]
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
            units.append(Unit(shown, name, error, path, entry))
    return units


def _reason(exc: BaseException) -> str:
    """An exception as a short message (no file contents, only what the OS or zipfile says)."""
    if isinstance(exc, SourceError | ZipError):
        return str(exc)
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _walk(folder: Input, seen_dirs: set[tuple[int, int]], skipped: list[Skipped]) -> Iterator[Unit]:
    """Units under ``folder``, sorted by name, each real folder visited once, at any depth."""
    for entry in walk(folder.path, seen_dirs):
        path, shown = entry.path, folder.shown(entry.path)
        if entry.kind == REPEAT:
            reason = "folder already visited (symlink loop or repeat)"
            skipped.append(Skipped(printable(shown), None, reason))
        elif entry.kind == ERROR:
            assert entry.error is not None
            yield _unit(shown, path, None, f"cannot list folder: {_reason(entry.error)}")
        elif shown.lower().endswith(".zip"):
            yield from _zip_units(shown, path, skipped)
        elif _is_game_name(os.path.basename(shown)):
            yield _file_unit(shown, path)
        else:
            skipped.append(Skipped(printable(shown), None, _not_a_record(" or .zip")))


def _file_unit(given: str, path: str) -> Unit:
    """A unit for a plain file, with an error when it is not a regular readable file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return _unit(given, path, None, f"cannot read: {_reason(exc)}")
    if not stat.S_ISREG(mode):
        return _unit(given, path, None, _NOT_REGULAR)
    return _unit(given, path)


def matches_nothing(path: str) -> bool:
    """Whether ``path`` names nothing at all: no such file or folder, or a glob matching no
    file (the one user's mistake about a path that every command reports alike, exit 2).

    >>> matches_nothing("data/"), matches_nothing("nowhere-*.zip"), matches_nothing("nope.xml")
    (False, True, True)
    """
    if os.path.lexists(path):
        return False
    return not (GLOB_CHARS & set(path)) or not glob_paths(path)


def _expand_one(
    item: Input, seen_dirs: set[tuple[int, int]], skipped: list[Skipped]
) -> Iterator[Unit]:
    if item.kind in ("folder", "dataset"):
        yield from _walk(item, seen_dirs, skipped)
    elif item.kind == "glob":
        if not item.matches:
            yield _unit(item.given, item.path, None, "no file matches this pattern")
        for match in item.matches:
            yield from _expand_one(match, seen_dirs, skipped)
    elif item.kind == "missing":
        yield _unit(item.given, item.path, None, "no such file or folder")
    elif item.kind == "zip":
        yield from _zip_units(item.given, item.path, skipped)
    else:
        yield _file_unit(item.given, item.path)


def iter_units(
    paths: Paths | Iterable[Input], *, skipped: list[Skipped] | None = None
) -> Iterator[Unit]:
    """Every game file under ``paths`` as a :class:`Unit`, in a stable order, lazily.

    The streaming form of :func:`expand`: folders are listed and zips' directories read only
    when the iteration reaches them, so memory does not grow with the number of inputs.
    ``skipped`` (a list) is filled as the iteration goes. ``paths`` is one path or an
    iterable of them (an iterable is consumed lazily), or :class:`Input` values resolved
    already (:func:`resolve`: never resolved again). Each unit opens the absolute path, so
    a worker in another folder reads what this process listed.

    >>> sum(1 for _ in iter_units("games/"))  # doctest: +SKIP
    400
    """
    sink: list[Skipped] = [] if skipped is None else skipped
    seen_dirs: set[tuple[int, int]] = set()
    for item in resolved(paths):
        yield from _expand_one(item, seen_dirs, sink)


def expand(paths: Paths | Iterable[Input], *, skipped: list[Skipped] | None = None) -> list[Unit]:
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
