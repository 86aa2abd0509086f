"""An owned folder held open across reads: verified once, then re-checked on every read.

:func:`~strat_tools.io.owned.verify_folder` checks a folder against its marker (each
file's size and SHA-256) at one moment; a reader that comes back to the folder later (the
next epoch of a training loop, the next batch of a stream) would read whatever is there
by then: another export written into it, a file damaged in place. :class:`VerifiedFolder`
is what such a reader holds instead. It verifies the files once and keeps each one's
:class:`~strat_tools.io.owned.FileStamp`; afterwards

- :meth:`VerifiedFolder.check` (each epoch) reads the marker again, which must list the
  same files, and compares each file's stamp with the one verified, hashing again only a
  file whose stamp changed (a ``touch``, a copy of the same bytes): a few ``stat`` calls
  when nothing changed;
- :meth:`VerifiedFolder.open` opens a file for reading and checks the open file's own
  stamp (``fstat``), hashing that very handle when it differs, so the bytes read are the
  bytes verified even if the path is replaced meanwhile;
- :meth:`VerifiedFile.confirm`, called after each read and before the data is handed
  on, ``fstat`` s the open file again: a write into it while it was read changes its
  stamp, and the reader stops instead of yielding the changed bytes.

Any difference raises :class:`FolderChanged` (an :class:`~strat_tools.io.output.OutputError`)
naming the file. The cost is a ``stat`` per file per check and an ``fstat`` per read;
SHA-256 (about 200 MB a second on one core of the development machine) only runs again
for a file whose stamp changed.

This module knows files only: nothing about tables or their formats.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TypeVar

from strat_tools.io.output import OutputError, PathArg
from strat_tools.io.owned import (
    FileStamp,
    Marker,
    open_file,
    read_marker,
    trusted_marker,
    verify_file,
)

__all__ = ["FolderChanged", "VerifiedFile", "VerifiedFolder"]

T = TypeVar("T")

_AGAIN = "make the reader again (or export into another folder)"


class FolderChanged(OutputError):
    """A folder (or a file of it) is no longer the one a reader verified."""


class VerifiedFile:
    """A file of a :class:`VerifiedFolder`, open for reading, its bytes the verified ones.

    Read through :attr:`handle`; call :meth:`confirm` after each read, before using what
    was read. A context manager: leaving it closes the file."""

    def __init__(self, path: Path, handle: IO[bytes], stamp: FileStamp) -> None:
        self.path = path
        self.handle = handle
        self.stamp = stamp

    def confirm(self) -> None:
        """Raise :class:`FolderChanged` when the open file changed since it was verified
        (written in place, truncated): what was read may not be the verified bytes."""
        try:
            now = FileStamp.of(os.fstat(self.handle.fileno()))
        except OSError as exc:
            raise FolderChanged(f"cannot read {self.path}: {exc}") from exc
        if now != self.stamp:
            raise FolderChanged(
                f"{self.path} was written while it was being read (it is no longer the file "
                f"its export wrote); run the export again and {_AGAIN}"
            )

    def close(self) -> None:
        """Close the file."""
        self.handle.close()

    def __enter__(self) -> VerifiedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class VerifiedFolder:
    """An owned folder whose files ``names`` were checked against its marker (size and
    SHA-256, :func:`~strat_tools.io.owned.verify_file`), held for reading them again.

    Refuses, as :func:`~strat_tools.io.owned.verify_folder` does, a folder without a
    marker or whose export did not finish, and each name the marker does not list, that
    is missing, or whose size or SHA-256 differ. Picklable (a reader in another process
    keeps checking against what was verified here)."""

    def __init__(self, directory: PathArg, names: Sequence[str]) -> None:
        self.directory = Path(directory)
        self.marker: Marker = trusted_marker(self.directory)
        self._stamps: dict[str, FileStamp] = {}
        for name in names:
            self._stamps[name] = verify_file(self.directory, self.marker, name)

    @property
    def names(self) -> list[str]:
        """The files verified, in the order given."""
        return list(self._stamps)

    def check(self, names: Sequence[str]) -> None:
        """Raise :class:`FolderChanged` unless the folder is still the one verified: its
        marker lists the same files with the same sizes and SHA-256 (not another export's),
        and every name of ``names`` (what the folder holds now: pass every name of the
        reader's kind it lists or holds) was verified and is unchanged. A file whose stamp
        changed is hashed again, and passes when its bytes are still the listed ones."""
        try:
            now = read_marker(self.directory)
        except OutputError as exc:
            raise FolderChanged(f"{exc}; {_AGAIN}") from None
        if (
            now is None
            or not now.complete
            or now.files != self.marker.files
            or now.output != self.marker.output
        ):
            what = (
                "its export marker is gone"
                if now is None
                else "another export is putting its files in place"
                if not now.complete
                else f"another export (run {now.run_id[:8]}) was written into it"
            )
            raise FolderChanged(
                f"{self.directory} changed since it was opened for reading (export run "
                f"{self.marker.run_id[:8]}): {what}; {_AGAIN}"
            )
        for name in names:
            if name not in self._stamps:
                raise FolderChanged(
                    f"{self.directory / name} appeared since {self.directory} was opened for "
                    f"reading (export run {self.marker.run_id[:8]}); move it away and {_AGAIN}"
                )
        for name in self._stamps:
            path = self.directory / name
            try:
                stamp = FileStamp.of(os.stat(path))
            except OSError:
                stamp = None
            if stamp != self._stamps[name]:
                self._stamps[name] = self._verify_again(name)

    def open(self, name: str) -> VerifiedFile:
        """``name`` opened for reading, its bytes the verified ones: the open file's stamp
        is the one verified, or its bytes are hashed again through the open file (so a path
        replaced after this call still reads the bytes checked here)."""
        path = self.directory / name
        if name not in self._stamps:
            raise FolderChanged(f"{path} was not verified with {self.directory}; {_AGAIN}")
        try:
            handle = open_file(path)  # (the VerifiedFile owns and closes it)
        except OSError as exc:
            raise FolderChanged(f"{path} is gone or unreadable ({exc}); {_AGAIN}") from None
        try:
            stamp = FileStamp.of(os.fstat(handle.fileno()))
            if stamp != self._stamps[name]:
                stamp = self._verify_again(name, handle)
                self._stamps[name] = stamp
        except BaseException:
            handle.close()
            raise
        return VerifiedFile(path, handle, stamp)

    def read(self, name: str, reader: Callable[[IO[bytes]], T]) -> T:
        """What ``reader`` makes of file ``name`` read whole through :meth:`open` (the very
        file verified), the read confirmed before it is returned."""
        with self.open(name) as file:
            made = reader(file.handle)
            file.confirm()
        return made

    def _verify_again(self, name: str, handle: IO[bytes] | None = None) -> FileStamp:
        try:
            return verify_file(self.directory, self.marker, name, handle)
        except OutputError as exc:
            raise FolderChanged(
                f"{exc} (it changed after {self.directory} was opened for reading); {_AGAIN}"
            ) from None
