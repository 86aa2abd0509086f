"""Streaming into an owned folder: :class:`StagedFolder`, the one skeleton of every export.

A dataset export (:class:`strat_tools.tables.dataset_writer.DatasetWriter`) and an
observation export (:class:`strat_tools.exports.observation_files.ShardWriter`) both write
files of unknown size batch by batch into a folder they own
(:class:`~strat_tools.io.owned.OwnedFolder`); this is what they share: a staging folder
inside the target, the files moved in when complete with each one's size and SHA-256 in the
marker written last, and clean-up on any error, a file that fails to close included.

This module knows files only: nothing about tables or their formats.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from strat_tools.io.output import PathArg
from strat_tools.io.owned import OwnedFolder, file_digest

__all__ = ["StagedFolder", "stops_held"]


MAX_PID: Final = 2**31 - 1
"""The largest process id there can be (a ``pid_t``; ``kill`` takes no larger): a staging
folder's name naming a larger one was not written by a run of ours."""


def _process_alive(pid: int) -> bool:
    """Whether a process with this id exists (on this machine)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class StagedFolder:
    """The skeleton every streaming export into an owned folder shares (a dataset's tables,
    an observation export's shards): an :class:`OwnedFolder` (lock, marker) written through
    a staging folder ``.KIND.tmp-PID-XXXXXXXX`` inside it (the same file system, so each
    file moves in with one rename).

    :meth:`open` takes the lock, refuses a folder another kind of output owns (its marker
    names it: :meth:`~strat_tools.io.owned.OwnedFolder.check_kind`; ``kind`` is this one's,
    written in the marker) and one whose present files (``replaces()``: the names of this
    kind already there) this tool did not write, removes the staging folders
    of this kind that a killed export left (its process is gone; a running one's are left
    alone) and makes the staging folder. The writer writes its files under :attr:`staging`
    and registers how to close each (:meth:`closing`). :meth:`finish` ends the run, in
    every case: it closes every file registered, then on a clean end (``names`` given)
    records each file's size and SHA-256, marks the folder unfinished, moves the files in,
    removes the files of an earlier run this one does not write again and writes the
    marker last; and whatever happened (a failed write, a file that fails to close, a
    full disk while moving in) it removes the staging folder and drops the lock, so a
    failed run leaves the folder as it was and nothing behind.
    """

    def __init__(self, directory: PathArg, kind: str, replaces: Callable[[], list[str]]) -> None:
        self.directory = Path(directory)
        self.kind = kind
        self.owned = OwnedFolder(self.directory, kind)
        self.staging = self.directory / f".{kind}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._replaces = replaces
        self._closers: list[Callable[[], object]] = []

    def open(self) -> None:
        """Lock the folder, check what it holds, clear dead runs' staging, make ours."""
        self.owned.__enter__()
        try:
            self.owned.check_kind()
            self.owned.check_replaceable(self._replaces())
            self._remove_stale_staging()
            self.staging.mkdir()
        except BaseException:
            self.finish(None)
            raise

    def _remove_stale_staging(self) -> None:
        prefix = f".{self.kind}.tmp-"
        for entry in self.directory.iterdir():
            pid, _sep, tag = entry.name.removeprefix(prefix).partition("-")
            if (
                not entry.name.startswith(prefix)
                or not pid.isascii()
                or not pid.isdigit()
                or len(tag) != 8
                or not 0 < int(pid) <= MAX_PID  # a name no run of ours wrote: left alone
                or _process_alive(int(pid))
            ):
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)

    def closing(self, close: Callable[[], object]) -> None:
        """Have :meth:`finish` call ``close`` (once, in the order registered)."""
        self._closers.append(close)

    def _close_files(self) -> BaseException | None:
        """Call every closer, each whatever the others did; the first error, if any."""
        first: BaseException | None = None
        closers, self._closers = self._closers, []
        for close in closers:
            try:
                close()
            except Exception as exc:  # a full disk, a broken writer: clean-up goes on
                first = first or exc
        return first

    def finish(
        self, names: Sequence[str] | None, *, remove: Sequence[str] = ()
    ) -> dict[str, tuple[int, str]]:
        """End the run: with ``names`` (files under :attr:`staging`, ``/`` for a subfolder)
        put them in place, marked, and remove ``remove`` (stray files of older versions)
        before the marker; without, or when anything fails, leave the folder as it was.
        The staging folder is removed and the lock dropped either way. Returns each file's
        (size, SHA-256)."""
        try:
            error = self._close_files()
            if names is None:
                return {}
            if error is not None:
                raise error
            return self._commit(names, remove)
        finally:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.owned.__exit__(None, None, None)

    def _commit(self, names: Sequence[str], remove: Sequence[str]) -> dict[str, tuple[int, str]]:
        digests = {
            name: ((self.staging / name).stat().st_size, file_digest(self.staging / name))
            for name in names
        }
        self.owned.check_kind()
        present = self.owned.check_replaceable(self._replaces())
        with stops_held():  # from the unfinished marker to the finished one, a few renames
            self.owned.begin(list(digests))
            for name in names:
                (self.directory / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(self.staging / name, self.directory / name)
            for stale in set(present) - set(names):
                (self.directory / stale).unlink()
            for name in remove:
                (self.directory / name).unlink(missing_ok=True)
            self.owned.commit(digests)
        return digests


@contextmanager
def stops_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back while a folder's files are moved in: a stop then comes
    right after the finished marker, with the output complete, never between the unfinished
    marker and the finished one (a folder refused as unfinished, though the run had all its
    files). Only on the main thread, where Python runs its signal handlers (elsewhere
    nothing changes); a signal ignored stays ignored, and the first one caught is raised
    again on leaving, to the handler there was."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if handler is not signal.SIG_IGN and handler is not None:
            held[signum] = handler
            signal.signal(signum, lambda number, _frame: caught.append(number))
    try:
        yield
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
        if caught:
            signal.raise_signal(caught[0])
