"""Folders one export owns: the lock, the marker and the check every reader makes.

- :class:`OwnedFolder` is a folder of tables one export owns: a lock (``flock`` on the folder
  itself, so no lock file is left behind; one writer at a time), and a marker naming the
  files the run wrote, their SHA-256 and its run id, so files another program wrote are
  never removed and a folder mixed from two runs is refused.
- :func:`verify_folder` is the check every reader of such a folder makes: each file by
  size and SHA-256 (:func:`verify_file`, which returns the file's :class:`FileStamp`, so a
  reader that holds the folder open, :class:`strat_tools.io.verified.VerifiedFolder`, can
  tell later with a ``stat`` whether the file may have changed since).

Split from :mod:`strat_tools.io.output` (which writes single files and checks outputs) as
its own concern: what a folder's owner is and whether its contents are still its own.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from strat_tools.io.output import (
    OutputError,
    OutputOfAnotherKind,
    PathArg,
    refuse_folder_link,
    write_file_atomically,
)
from strat_tools.io.own_files import (
    FieldError,
    expect_flag,
    expect_int,
    expect_keys,
    expect_name,
    expect_object,
    expect_text,
    load_json,
)
from strat_tools.io.sources import SourceError, open_regular

MARKER_NAME: Final = ".strat-tools-export.json"
"""The marker file of a folder written by ``strat-tools export``."""

MARKER_KIND: Final = "strat-tools export"


# --- a folder of tables owned by one export ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Marker:
    """What the marker of an export folder says: the run id and the files it wrote."""

    run_id: str
    files: dict[str, tuple[int, str]]
    """File name -> (size in bytes, SHA-256 in hex), as written."""
    complete: bool = True
    """False while the export puts its files in place (then the folder is not read)."""
    output: str = "dataset"
    """The kind of output that owns the folder (a :class:`~strat_tools.io.staging.
    StagedFolder`'s ``kind``: ``dataset`` or ``observations``); one kind never writes into
    another's folder."""


def new_run_id() -> str:
    """A fresh run id (32 hex digits)."""
    return uuid.uuid4().hex


def open_file(path: PathArg) -> IO[bytes]:
    """``path`` open for reading if it is a regular file, opened non-blocking: a FIFO or a
    device put in the place of a folder's file never blocks its reader (:class:`OSError`
    naming what it is instead)."""
    try:
        return open_regular(os.fspath(path))[0]
    except SourceError as exc:
        raise OSError(str(exc)) from None


def file_digest(path: PathArg) -> str:
    """The SHA-256 of a regular file (:func:`open_file`), in hex, read in 1 MiB blocks."""
    with open_file(path) as handle:
        return handle_digest(handle)


def handle_digest(handle: IO[bytes]) -> str:
    """The SHA-256 of an open file from its start, in hex; the handle is left at its start."""
    handle.seek(0)
    digest = hashlib.sha256()
    while block := handle.read(1 << 20):
        digest.update(block)
    handle.seek(0)
    return digest.hexdigest()


_KIND: Final = "[a-z][a-z0-9_-]{0,31}"
"""A kind of output's name (:attr:`Marker.output`: ``dataset``, ``observations``)."""
MAX_MARKER_BYTES: Final = 64 * 1024 * 1024
"""The largest marker read back (one lists each file of its export: 150 bytes a file)."""
_RUN_ID: Final = "[0-9a-f]{32}"
_SHA256: Final = "[0-9a-f]{64}"


def read_marker(directory: PathArg) -> Marker | None:
    """The marker of ``directory``, or None when it has none; :class:`OutputError` when it
    cannot be read or is not as an export writes one (then the folder is not trusted).

    A marker is an input like any other (:mod:`strat_tools.io.own_files`): opened as a
    regular file of bounded size, strict JSON, every field checked (the keys an export
    writes and no other, the kind of output a lower-case name, the run id 32 hex
    digits, ``complete`` a real flag, each file a name inside the folder with a size from 0
    and a SHA-256 of 64 hex digits, or the empty placeholder of an unfinished export); the
    message names the field.
    """
    path = Path(directory) / MARKER_NAME
    if not os.path.lexists(path):
        return None
    try:  # anything there named so is read as a marker: a FIFO or a folder is refused
        return _marker(load_json(str(path), limit=MAX_MARKER_BYTES))
    except FieldError as exc:
        raise OutputError(f"the export marker {path} cannot be read: {exc}") from None


def _marker(data: object) -> Marker:
    """A marker's parsed JSON as a :class:`Marker`, every field checked."""
    fields = expect_keys(
        data, "the marker", required=("kind", "run_id", "files"), optional=("output", "complete")
    )
    if fields["kind"] != MARKER_KIND:
        raise FieldError(f"kind: {fields['kind']!r} is not {MARKER_KIND!r}")
    run_id = expect_text(fields["run_id"], "run_id", _RUN_ID, what="a run id (32 hex digits)")
    complete = expect_flag(fields.get("complete", False), "complete")
    files: dict[str, tuple[int, str]] = {}
    for name, entry in expect_object(fields["files"], "files").items():
        where = f"files[{name!r}]"
        expect_name(name, "files")
        stamp = expect_keys(entry, where, required=("bytes", "sha256"))
        size = expect_int(stamp["bytes"], f"{where}.bytes")
        digest = expect_text(stamp["sha256"], f"{where}.sha256")
        unfinished = not complete and digest == "" and size == 0  # begin()'s placeholder
        if not unfinished:
            expect_text(digest, f"{where}.sha256", _SHA256, what="a SHA-256 (64 hex digits)")
        files[name] = (size, digest)
    output = fields.get("output")
    if output is None:
        output = _legacy_output(files)
    what = "a kind of output (a lower-case name: dataset, observations)"
    return Marker(run_id, files, complete, expect_text(output, "output", _KIND, what=what))


def _legacy_output(files: dict[str, tuple[int, str]]) -> str:
    """The kind of output that wrote a marker from before markers named it: the two kinds
    there were then, told apart by the observation export's shard folder.

    >>> _legacy_output({"games.parquet": (1, "")}), _legacy_output({"observations/p": (1, "")})
    ('dataset', 'observations')
    """
    return "observations" if any(name.startswith("observations/") for name in files) else "dataset"


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What ``stat`` says of a file that changes whenever its bytes may have: the file
    itself (device, inode: another file renamed over it), its size, and the times of its
    last write and of its last change of any kind. ``ctime`` cannot be set back (``utime``
    sets it to now), so a file written in place with its ``mtime`` restored still differs.
    Two equal stamps mean the same bytes, a reader may trust one verified earlier."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> FileStamp:
        """The stamp of a ``stat`` or ``fstat`` result."""
        return cls(
            status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns
        )


def trusted_marker(directory: PathArg) -> Marker:
    """The marker of ``directory``, refused with :class:`OutputError` when there is none or
    when its export stopped while putting files in place (the first check of
    :func:`verify_folder`)."""
    folder = Path(directory)
    marker = read_marker(folder)
    if marker is None:
        raise OutputError(
            f"{folder} has no export marker ({MARKER_NAME}): an export into it did not finish, "
            "or it was not written by strat-tools export; run the export again"
        )
    if not marker.complete:
        raise OutputError(
            f"an export into {folder} stopped while putting its files in place, so its tables "
            "may come from two different exports; run the export again"
        )
    return marker


def verify_file(
    directory: PathArg, marker: Marker, name: str, handle: IO[bytes] | None = None
) -> FileStamp:
    """Check that ``name`` in ``directory`` (a path relative to it: ``moves/part-00001.
    parquet``) is the very file ``marker`` lists (size and SHA-256), read through ``handle``
    when given (an open file of it, left at its start), and return its stamp: the bytes
    hashed are the bytes a reader of ``handle`` gets. Raises :class:`OutputError` as
    :func:`verify_folder` does."""
    path = Path(directory) / name
    if name not in marker.files:
        raise OutputError(
            f"{path} is not part of the export that wrote {directory} (its marker does not "
            "list it); move it away or run the export again"
        )
    size, digest = marker.files[name]
    if handle is None and not os.path.lexists(path):
        raise OutputError(
            f"{path} is missing: the export that wrote {directory} listed it; run the export again"
        )
    try:
        if handle is None:
            with open_file(path) as opened:
                return verify_file(directory, marker, name, opened)
        stamp = FileStamp.of(os.fstat(handle.fileno()))
        same = stamp.size == size and handle_digest(handle) == digest
    except OSError as exc:
        raise OutputError(f"cannot read {path}: {exc}") from exc
    if not same:
        raise OutputError(
            f"{path} is not the file export run {marker.run_id[:8]} wrote (changed, "
            "damaged or from another export); run the export again"
        )
    return stamp


def verify_folder(directory: PathArg, names: Sequence[str]) -> Marker:
    """Check that ``names`` in ``directory`` are the very files its marker lists (size and
    SHA-256): one export's complete output, not a mix of two runs, not damaged since.
    Raises :class:`OutputError` naming the first file that is not: one the marker does not
    list (an extra file), one it lists that is gone, or one whose size or SHA-256 differs
    (damaged, or another file copied over it).

    The one check of every reader of an owned folder: a dataset folder
    (:func:`strat_tools.tables.layout.dataset_files`, behind every reader of one) and an
    observation export (:func:`strat_tools.exports.observation_files.observation_folder`,
    behind every reader of one). A reader passes every name it will read, and every name of
    its kind the folder or the marker holds, so that nothing listed is skipped and nothing
    unlisted is read. A reader that holds the folder open across reads keeps checking it:
    :class:`strat_tools.io.verified.VerifiedFolder`."""
    marker = trusted_marker(directory)
    for name in names:
        verify_file(directory, marker, name)
    return marker


def refuse_owned(directory: PathArg, output: str) -> None:
    """Refuse (:class:`OutputOfAnotherKind`) to write ``output`` (what is written: ``game
    files``) into a folder an owned output (an export of tables or observations) owns."""
    marker = read_marker(directory)  # one that cannot be read is refused too
    if marker is not None:
        raise OutputOfAnotherKind(
            f"{os.fspath(directory)} was written by a strat-tools {marker.output} export; "
            f"{output} are not written into it (nothing was written): choose another folder"
        )


class OwnedFolder:
    """A folder one export writes into: locked for the run, marked when it is done.

    Used as a context manager around the whole export. :meth:`check_replaceable` refuses a
    folder holding files of the given names that this tool did not write (no marker lists
    them) or that are not regular files; :meth:`commit` writes the marker last. Folders it
    created are removed again on leaving if they are still empty (a run that failed before
    writing anything leaves nothing behind).
    """

    def __init__(self, directory: PathArg, output: str = "dataset") -> None:
        self.directory = Path(directory)
        self.output = output
        self.run_id = new_run_id()
        self._lock: int | None = None
        self._created: list[Path] = []

    def __enter__(self) -> OwnedFolder:
        refuse_folder_link(self.directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise OutputError(f"{self.directory} exists and is not a folder")
        missing = self.directory.absolute()
        while not os.path.lexists(missing) and missing != missing.parent:
            self._created.append(missing)  # deepest first
            missing = missing.parent
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise OutputError(
                    f"another export is writing into {self.directory}; wait for it or choose "
                    "another folder"
                ) from None
            raise
        self._lock = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lock is not None:
            os.close(self._lock)  # releases the flock
            self._lock = None
        for folder in self._created:  # rmdir removes only an empty folder
            try:
                folder.rmdir()
            except OSError:
                break
        self._created = []

    def check_kind(self) -> None:
        """Refuse (:class:`OutputOfAnotherKind`) a folder whose marker says another kind of
        output owns it: the two would replace each other's files and the marker would list
        only the second's, so the first's would be lost or refused on reading."""
        marker = read_marker(self.directory)
        if marker is not None and marker.output != self.output:
            raise OutputOfAnotherKind(
                f"{self.directory} was written by a strat-tools {marker.output} export; a "
                f"{self.output} export will not write into it (nothing was written): choose "
                "another folder"
            )

    def check_replaceable(self, names: Sequence[str]) -> list[str]:
        """The names among ``names`` already present (to be replaced); raises
        :class:`OutputError` when one is not a regular file or was not written by an export."""
        marker = read_marker(self.directory)
        owned = set(marker.files) if marker else set()
        present = []
        for name in names:
            path = self.directory / name
            if not os.path.lexists(path):
                continue
            if path.is_symlink() or not path.is_file():
                raise OutputError(f"will not replace {path}: it is not a regular file")
            if name not in owned:
                raise OutputError(
                    f"{path} was not written by strat-tools export (no export marker lists "
                    "it); move it away or choose another folder"
                )
            present.append(name)
        return present

    def begin(self, names: Sequence[str]) -> None:
        """Mark the folder unfinished before files are replaced, still owning the old files
        and ``names``: a crash then leaves a folder that is refused as unfinished (never read
        as a mix of two exports) and that the next export may overwrite."""
        old = read_marker(self.directory)
        files = dict(old.files) if old else {}
        files.update({name: (0, "") for name in names if name not in files})
        self._write_marker(files, complete=False)

    def commit(self, digests: dict[str, tuple[int, str]]) -> None:
        """Write the final marker: the run id and each file's size and SHA-256."""
        self._write_marker(digests, complete=True)

    def _write_marker(self, files: dict[str, tuple[int, str]], *, complete: bool) -> None:
        data = {
            "kind": MARKER_KIND,
            "output": self.output,
            "run_id": self.run_id,
            "complete": complete,
            "files": {name: {"bytes": n, "sha256": h} for name, (n, h) in files.items()},
        }
        write_file_atomically(
            self.directory / MARKER_NAME, (json.dumps(data, indent=1) + "\n").encode()
        )
