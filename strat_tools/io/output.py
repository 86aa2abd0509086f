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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, cast

from strat_tools.core.errors import StratToolsError

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
        try:
            with open(path, "ab") as handle:  # append: never truncate what we do not own
                yield cast(IO[bytes], _Stream(handle))
        except OSError as exc:
            if exc.filename is None and exc.errno in _WRITE_ERRNOS:
                raise _write_error(path, exc) from exc
            raise
        return
    target = Path(os.path.realpath(path))
    mode = _new_mode(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _write_error(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        ours = exc.filename in (tmp, os.fspath(target))
        if not ours and not (exc.filename is None and exc.errno in _WRITE_ERRNOS):
            raise  # about something else (an input read inside the block): its own message
        raise _write_error(path, exc) from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_WRITE_ERRNOS: Final = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS})
"""Errors of a write itself (no file name attached): said about the output."""


def _write_error(path: PathArg, exc: OSError) -> OutputError:
    """A failed write, said about the path the caller gave, never the temporary file."""
    return OutputError(f"cannot write {os.fspath(path)}: {exc.strerror or type(exc).__name__}")


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


def check_output(
    output: PathArg,
    inputs: Iterable[PathArg] = (),
    *,
    folder: bool = False,
    create: bool = False,
) -> None:
    """The one check every ``-o`` of every command makes before it reads anything: that
    ``output`` is no input (:func:`refuse_overlap`, asked first) and can be written
    (:func:`check_writable`). ``folder``: the output is a folder of files (else one file);
    ``create``: missing folders on its way are created (else its parent must exist).
    Raises :class:`OutputError` (or :class:`OutputOverInput`), naming ``output`` as given.

    >>> check_output("/nowhere/r.html", ["data/"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    strat_tools.io.output.OutputError: cannot write /nowhere/r.html: the folder /nowhere ...
    """
    refuse_overlap(inputs, output, folder=folder)  # first: the user's mistake says so
    check_writable(output, folder=folder, create=create)


def check_writable(output: PathArg, *, folder: bool = False, create: bool = False) -> None:
    """Raise :class:`OutputError`, naming ``output`` as given, unless it can be written:
    a file output's folder exists and takes a new file (tried: a file is made there and
    removed at once, so a read-only file system, ``/proc`` or a missing permission is found
    before any work); a device or FIFO is written through, so it must be writable; a
    folder, block device or socket is never written over. A folder output (``folder``) is
    a folder, or new: then its parent must exist unless ``create`` (the nearest folder that
    exists takes it); a symlink is never a folder output (:func:`refuse_folder_link`)."""
    path = os.fspath(output)
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:  # a file on the way (not a folder), a loop of links
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if mode is not None and (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        if not os.access(path, os.W_OK):
            raise OutputError(f"cannot write {path}: permission denied")
        return
    if folder:
        refuse_folder_link(path)
        if mode is not None and not stat.S_ISDIR(mode):
            raise OutputError(f"{path} exists and is not a folder; name a folder")
        if mode is not None:
            _try_writing(path, path)
            return
    elif mode is not None and not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else _kind_name(mode)
        raise OutputError(f"will not write over {path}: it is {what}, not a regular file")
    real = Path(os.path.realpath(path))
    parent = real.parent
    if folder and create:
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
    if not parent.is_dir():
        shown = os.path.dirname(path) if not os.path.islink(path) else os.fspath(parent)
        what = "does not exist" if not parent.exists() else "is not a folder"
        raise OutputError(f"cannot write {path}: the folder {shown or '.'} {what}")
    _try_writing(parent, path)


def _try_writing(folder: PathArg, path: str) -> None:
    """Make a file in ``folder`` and remove it: the one test of "can I write here" that
    also holds for root, read-only mounts and pseudo file systems."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".strat-tools-probe.", dir=folder)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OutputError(f"cannot write {path}: {reason} (in the folder {folder})") from None
    try:
        os.close(fd)
    finally:  # a Ctrl-C here leaves no probe behind
        os.unlink(probe)


def refuse_overlap(
    inputs: Iterable[PathArg],
    output: PathArg,
    *,
    folder: bool = False,
) -> None:
    """Raise :class:`OutputOverInput` when ``output`` is an input, holds one, or would
    replace one: the one rule of every ``-o`` of every command.

    Compared by real path (links followed) and by device and inode (hard links) with every
    file and folder the inputs reach (:func:`strat_tools.io.sources.iter_reached`: the
    paths given, the folders walked under them and the files there that reading takes,
    also through symlinks inside an input folder). ``output`` is refused when it is one of
    them, when it holds one (a folder output around an input), and when it lies inside a
    folder read and reading that folder would take it: a folder output (``folder``), or a
    file named as a record, a zip or a table. A page or a figure may go into an input
    folder; replacing a file that is an input never.

    A glob is judged by the paths it matches; a path that does not exist overlaps nothing.

    >>> refuse_overlap(["data/"], "data/tables", folder=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    strat_tools.io.output.OutputOverInput: the output data/tables lies inside the input folder ...
    """
    from strat_tools.io.sources import iter_reached, taken_by_reading

    shown = os.fspath(output)
    out = Path(os.path.realpath(output))
    try:
        info = os.stat(out)
        key: tuple[int, int] | None = (info.st_dev, info.st_ino)
    except OSError:
        key = None
    taken = folder or taken_by_reading(out.name)
    for reached in iter_reached(inputs):
        real = Path(reached.path)
        what = "input folder" if reached.folder else "input"
        named = reached.given if reached.path == os.path.realpath(reached.given) else real
        via = "" if named == reached.given else f" (reached from {reached.given})"
        if real == out or (key is not None and _same_file(real, key)):
            link = "" if real == out else " (the same file through a link)"
            raise OutputOverInput(
                f"the output {shown} is the {what} {named}{link}{via}: writing it would "
                "destroy the input; write it elsewhere"
            )
        if reached.folder and taken and real in out.parents:
            raise OutputOverInput(
                f"the output {shown} lies inside the input folder {named}{via}, which reading "
                "it takes; write it elsewhere"
            )
        if out in real.parents:
            raise OutputOverInput(
                f"the output {shown} holds the {what} {named}{via}; write it elsewhere"
            )


def _same_file(path: Path, key: tuple[int, int]) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == key


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
