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
- :class:`~strat_tools.io.owned.OwnedFolder` (its own module) is a folder of tables one
  export owns, with its lock and marker; :func:`~strat_tools.io.owned.verify_folder` is the
  check every reader of one makes.
- :class:`~strat_tools.io.staging.StagedFolder` is the skeleton of every export streamed
  into such a folder (its own module).

This module knows files only: nothing about records, tables or their formats.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Final, cast

from strat_tools.core.errors import StratToolsError

PathArg = str | os.PathLike[str]


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


class OutputOfAnotherKind(OutputError):
    """An output folder another kind of output owns (a dataset export's folder named as an
    observation export's, or the other way round): the user's mistake, refused before
    anything is written, the folder untouched (the CLI exits 2)."""


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
    file and folder the inputs reach (:func:`strat_tools.io.reached.iter_reached`: the
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
    from strat_tools.io.reached import iter_reached, taken_by_reading

    shown = os.fspath(output)
    out = Path(os.path.realpath(output))
    try:
        info = os.stat(out)
        key: tuple[int, int] | None = (info.st_dev, info.st_ino)
    except OSError:
        key = None
    taken = folder or taken_by_reading(out.name)
    out_text = os.fspath(out)
    real_given: dict[str, str] = {}
    for reached in iter_reached(inputs):
        real = Path(reached.path)
        what = "input folder" if reached.folder else "input"
        if reached.given not in real_given:
            real_given[reached.given] = os.path.realpath(reached.given)
        named = reached.given if reached.path == real_given[reached.given] else real
        via = "" if named == reached.given else f" (reached from {reached.given})"
        if real == out or (key is not None and _same_file(real, key)):
            link = "" if real == out else " (the same file through a link)"
            raise OutputOverInput(
                f"the output {shown} is the {what} {named}{link}{via}: writing it would "
                "destroy the input; write it elsewhere"
            )
        # Real paths, so containment is a prefix test (the paths' parents would cost a
        # comparison a level: quadratic in a folder 1,000 deep).
        if reached.folder and taken and _inside(out_text, reached.path):
            raise OutputOverInput(
                f"the output {shown} lies inside the input folder {named}{via}, which reading "
                "it takes; write it elsewhere"
            )
        if _inside(reached.path, out_text):
            raise OutputOverInput(
                f"the output {shown} holds the {what} {named}{via}; write it elsewhere"
            )


def _inside(path: str, folder: str) -> bool:
    """Whether the real path ``path`` lies strictly inside the real folder ``folder``.

    >>> _inside("/a/b/c", "/a/b"), _inside("/a/bc", "/a/b"), _inside("/a/b", "/a/b")
    (True, False, False)
    >>> _inside("/a", "/")
    True
    """
    return path != folder and path.startswith(folder.rstrip(os.sep) + os.sep)


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
