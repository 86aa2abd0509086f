"""Write what a command produces (``-o``) without destroying anything that is not ours.

Every output file of the toolkit goes through this module:

- :func:`write_file_atomically` and :func:`atomic_output` write a regular file through a
  temporary file in the same folder and one rename, so a crash leaves the old file or none.
  The new file gets the mode of the file it replaces, or ``0666`` minus the umask for a new
  one, as ``open()`` would give it.
- A symlink is followed: its target is replaced, the link stays a link (a dangling link
  creates its target).
- A character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named pipe) is written
  through, never renamed over. Anything else that is not a regular file (a folder, a block
  device, a socket) is refused with :class:`OutputError` before anything is written.
- :func:`atomic_folder` builds a new folder beside its place and renames it in when complete
  (only over nothing or an empty folder).
- :class:`OwnedFolder` is a folder of tables one export owns: a lock (``flock`` on the folder
  itself, so no lock file is left behind; one writer at a time),
  and a marker naming the files the run wrote and its run id, so files another program wrote
  are never removed and a folder mixed from two runs is refused; :func:`verify_folder` is
  the check every reader of one makes.
- :class:`~strat_tools.io.staging.StagedFolder` is the skeleton of every export streamed
  into such a folder (its own module).

This module knows files only: nothing about records, tables or their formats.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import io
import json
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, cast

from strat_tools.core.errors import StratToolsError
from strat_tools.io.walk import FILE, glob_paths, walk

PathArg = str | os.PathLike[str]

MARKER_NAME: Final = ".strat-tools-export.json"
"""The marker file of a folder written by ``strat-tools export``."""

MARKER_KIND: Final = "strat-tools export"


class OutputError(StratToolsError, ValueError):
    """An output target this toolkit will not write to (and why)."""


def umask() -> int:
    """The process umask, read without changing it where the system allows (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)  # pragma: no cover - not on Linux
    os.umask(old)  # pragma: no cover
    return old  # pragma: no cover


def output_kind(path: PathArg) -> str:
    """What writing to ``path`` does: ``'new'``, ``'replace'`` (a regular file, through a
    rename) or ``'through'`` (a character device or FIFO, written in place); symlinks are
    followed. Raises :class:`OutputError` for a folder, block device, socket or missing folder.

    >>> output_kind("/dev/null")
    'through'
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        parent = Path(os.path.realpath(path)).parent
        if not parent.is_dir():
            raise OutputError(f"cannot write {path}: folder {parent} does not exist") from None
        return "new"
    if stat.S_ISREG(mode):
        return "replace"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "through"
    what = "a folder" if stat.S_ISDIR(mode) else _kind_name(mode)
    raise OutputError(f"will not write over {path}: it is {what}, not a regular file")


class _Stream(io.RawIOBase):
    """A device or FIFO as a write-only stream: no ``seek`` or ``tell``, which mean nothing
    there (``/dev/zero`` says it is at 0 whatever was written), so a writer such as
    ``zipfile`` streams instead of going back to patch what it wrote."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__()
        self._raw = raw

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return self._raw.write(data)

    def flush(self) -> None:
        self._raw.flush()


def _kind_name(mode: int) -> str:
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _new_mode(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~umask()


@contextmanager
def atomic_output(path: PathArg) -> Iterator[IO[bytes]]:
    """A binary handle whose bytes end up at ``path`` only when the block ends cleanly.

    A regular file (or none) is written to a temporary file beside it and renamed into
    place; an exception removes the temporary file and leaves the old file. A device or
    FIFO is written through. See the module docstring for symlinks and what is refused.
    """
    kind = output_kind(path)
    if kind == "through":
        with open(path, "ab") as handle:  # append: never truncate what we do not own
            yield cast(IO[bytes], _Stream(handle))
        return
    target = Path(os.path.realpath(path))
    mode = _new_mode(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_file_atomically(path: PathArg, data: bytes) -> None:
    """Write ``data`` to ``path``: all or nothing for a file, written through for a device.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_file_atomically(folder / "a.txt", b"hello")
    >>> (folder / "a.txt").read_bytes()
    b'hello'
    """
    with atomic_output(path) as handle:
        handle.write(data)


class OutputOverInput(OutputError):
    """An output that is, holds or would replace one of the run's inputs: the user's
    mistake, refused before anything is read or written (the CLI exits 2)."""


def refuse_overlap(
    inputs: Iterable[PathArg],
    output: PathArg,
    *,
    reads: Callable[[str], bool] | None = None,
) -> None:
    """Raise :class:`OutputOverInput` when ``output`` is an input, holds one, or would
    replace one: the one check every ``-o`` of every command makes before any work.

    ``output`` is refused when it is an input given (its real path, or the same file
    through a hard link: same device and inode), when it is a folder holding an input, and
    when it lies inside an input folder. ``reads`` narrows the last case for a file output
    (a page, a figure): only a name the read would take (``reads(name)`` true: a record, a
    zip, a table) is refused there, so ``report data/ -o data/report.html`` is fine while
    ``view data/ -o data/a.xml`` is not. Without ``reads`` (folders, archives of records)
    anything inside an input folder is refused.

    A glob is judged by the paths it matches; a path that does not exist overlaps nothing.

    >>> refuse_overlap(["data/"], "data/tables")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    strat_tools.io.output.OutputOverInput: the output data/tables lies inside the input data/; ...
    """
    given = [os.fspath(path) for path in inputs]
    out = Path(os.path.realpath(output))
    sources = [(path, source) for path in given for source in _input_paths(path)]
    for path, source in sources:
        _refuse_one(out, source, output, path, reads)
    _refuse_hard_link(out, sources, output)


def _refuse_one(
    out: Path,
    source: Path,
    output: PathArg,
    given: str,
    reads: Callable[[str], bool] | None,
) -> None:
    shown = os.fspath(output)
    if out == source:
        raise OutputOverInput(
            f"the output {shown} is the input {given}: writing it would destroy the input; "
            "write it elsewhere"
        )
    if source in out.parents and (reads is None or reads(out.name)):
        raise OutputOverInput(
            f"the output {shown} lies inside the input {given}; write it elsewhere"
        )
    if out in source.parents:
        raise OutputOverInput(f"the output {shown} holds the input {given}; write it elsewhere")


def _refuse_hard_link(out: Path, sources: Sequence[tuple[str, Path]], output: PathArg) -> None:
    """An existing output file with more than one name may be an input under another name:
    compare device and inode with every input file (folders walked only in that case)."""
    try:
        info = os.stat(out)
    except OSError:
        return
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return
    key = (info.st_dev, info.st_ino)
    for given, source in sources:
        for path in _files_of(source):
            try:
                other = os.stat(path)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == key:
                raise OutputOverInput(
                    f"the output {os.fspath(output)} is the input {path} (the same file "
                    f"through a link, from {given}); writing it would destroy the input; "
                    "write it elsewhere"
                )


def _files_of(source: Path) -> Iterator[str]:
    if not source.is_dir():
        yield os.fspath(source)
        return
    for entry in walk(os.fspath(source)):  # at any depth, each real folder once
        if entry.kind == FILE:
            yield entry.path


def _input_paths(path: str) -> list[Path]:
    """The real paths an input names: itself if it exists, else what it matches as a glob."""
    if os.path.lexists(path):
        return [Path(os.path.realpath(path))]
    return [Path(os.path.realpath(p)) for p in glob_paths(path)]


def refuse_folder_link(path: PathArg) -> None:
    """Raise :class:`OutputError` when the output folder ``path`` is a symlink, saying so:
    a folder output is never written through a link (it would be built beside the link,
    and the files of the folder it points to are not ours to replace)."""
    if not os.path.islink(path):
        return
    target = os.readlink(path)
    if os.path.isdir(path):
        what = f"a symlink to the folder {target}"
    elif os.path.exists(path):
        what = f"a symlink to {target}, which is not a folder"
    else:
        what = f"a symlink to {target}, which does not exist"
    raise OutputError(
        f"{os.fspath(path)} is {what}: an output folder is never written through a link; "
        "name the folder itself"
    )


@contextmanager
def atomic_folder(path: PathArg) -> Iterator[Path]:
    """A fresh folder (yielded) that becomes ``path`` only when the block ends cleanly.

    ``path`` must be new or an empty folder, so nothing anyone else wrote is replaced; the
    folder is built beside it (same file system) and renamed into place, so a failure leaves
    no partial output. Raises :class:`OutputError` for a symlink, a file, a folder that is not
    empty or a missing parent folder.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "games"
    >>> with atomic_folder(out) as building:
    ...     _ = (building / "a.xml").write_bytes(b"<stratego/>")
    >>> sorted(p.name for p in out.iterdir())
    ['a.xml']
    """
    out = Path(path)
    refuse_folder_link(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise OutputError(f"{out} exists and is not an empty folder; name a new folder")
    if not out.parent.is_dir():
        raise OutputError(f"cannot write {out}: folder {out.parent} does not exist")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        yield tmp
        tmp.chmod(0o777 & ~umask())
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


# --- a folder of tables owned by one export ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Marker:
    """What the marker of an export folder says: the run id and the files it wrote."""

    run_id: str
    files: dict[str, tuple[int, str]]
    """File name -> (size in bytes, SHA-256 in hex), as written."""
    complete: bool = True
    """False while the export puts its files in place (then the folder is not read)."""


def new_run_id() -> str:
    """A fresh run id (32 hex digits)."""
    return uuid.uuid4().hex


def file_digest(path: PathArg) -> str:
    """The SHA-256 of a file, in hex, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def read_marker(directory: PathArg) -> Marker | None:
    """The marker of ``directory``, or None when it has none; :class:`OutputError` when it
    cannot be read (then the folder is not trusted)."""
    path = Path(directory) / MARKER_NAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("kind") != MARKER_KIND:
            raise ValueError("not a strat-tools export marker")
        files = {str(k): (int(v["bytes"]), str(v["sha256"])) for k, v in data["files"].items()}
        return Marker(str(data["run_id"]), files, bool(data.get("complete", False)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise OutputError(f"the export marker {path} cannot be read: {exc}") from exc


def verify_folder(directory: PathArg, names: Sequence[str]) -> Marker:
    """Check that ``names`` in ``directory`` are the very files its marker lists (size and
    SHA-256): one export's complete output, not a mix of two runs, not damaged since.
    Raises :class:`OutputError` naming the first file that is not: one the marker does not
    list (an extra file), one it lists that is gone, or one whose size or SHA-256 differs
    (damaged, or another file copied over it).

    The one check of every reader of an owned folder: a dataset folder
    (:func:`strat_tools.tables.dataset.read_dataset` and its batches) and an observation
    export (:func:`strat_tools.exports.observation_files.observation_shards`, behind every
    reader of one). A reader passes every name it will read, and every name of its kind
    the folder or the marker holds, so that nothing listed is skipped and nothing unlisted
    is read."""
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
    for name in names:
        path = folder / name
        if name not in marker.files:
            raise OutputError(
                f"{path} is not part of the export that wrote {folder} (its marker does not "
                "list it); move it away or run the export again"
            )
        size, digest = marker.files[name]
        if not os.path.lexists(path):
            raise OutputError(
                f"{path} is missing: the export that wrote {folder} listed it; run the export again"
            )
        try:
            same = path.stat().st_size == size and file_digest(path) == digest
        except OSError as exc:
            raise OutputError(f"cannot read {path}: {exc}") from exc
        if not same:
            raise OutputError(
                f"{path} is not the file export run {marker.run_id[:8]} wrote (changed, "
                "damaged or from another export); run the export again"
            )
    return marker


class OwnedFolder:
    """A folder one export writes into: locked for the run, marked when it is done.

    Used as a context manager around the whole export. :meth:`check_replaceable` refuses a
    folder holding files of the given names that this tool did not write (no marker lists
    them) or that are not regular files; :meth:`commit` writes the marker last. Folders it
    created are removed again on leaving if they are still empty (a run that failed before
    writing anything leaves nothing behind).
    """

    def __init__(self, directory: PathArg) -> None:
        self.directory = Path(directory)
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
            "run_id": self.run_id,
            "complete": complete,
            "files": {name: {"bytes": n, "sha256": h} for name, (n, h) in files.items()},
        }
        write_file_atomically(
            self.directory / MARKER_NAME, (json.dumps(data, indent=1) + "\n").encode()
        )
