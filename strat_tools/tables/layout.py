"""Where a dataset folder's tables are, in either layout, checked against its marker.

Today's exports write each table as a folder of parts, ``NAME/part-NNNNN.parquet`` (or
``.csv``), so that a client reading ``NAME/`` reads that table alone; exports before it
wrote one file per table beside the others (``NAME.parquet`` or ``NAME.csv``), and folders
Dask or Spark wrote hold ``NAME/`` folders of Parquet parts with no marker. Every reader of
a dataset folder finds its files here (:func:`dataset_files`, and :func:`games_parts` for the
games table alone), so each layout is read the same way everywhere.

A folder with an export's marker is read only as that export wrote it: every file of a
table (each part the marker lists, and anything else in a table's folder) is checked by
size and SHA-256 (a :class:`~strat_tools.io.verified.VerifiedFolder`, which
:class:`DatasetFiles` holds), so a part missing, damaged, added or from another export is
refused, naming it; a reader reads each part through the very file checked
(:meth:`DatasetFiles.read`, or the verified folder's ``open``) and, coming back to the
folder between batches, checks it again (:meth:`DatasetFiles.check`: a ``stat`` a file).
A folder holding a table twice (two layouts, or two formats), game records beside the
tables, or an observation export is refused with
:class:`~strat_tools.core.errors.DatasetError`.

This module knows files only: no schema, no rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, TypeVar

from strat_tools.core.choices import TABLE_FORMATS
from strat_tools.core.errors import DatasetError
from strat_tools.io.output import OutputError
from strat_tools.io.owned import MARKER_NAME, Marker, read_marker
from strat_tools.io.sources import PathArg
from strat_tools.io.verified import VerifiedFolder
from strat_tools.tables.dataset_writer import INCOMPLETE_MARKER, table_file_names
from strat_tools.tables.schemas import TABLE_NAMES

__all__ = ["DatasetFiles", "dataset_files", "games_parts", "is_dataset"]

T = TypeVar("T")

_SUFFIXES = tuple(f".{fmt}" for fmt in TABLE_FORMATS)
OUR_PART: Final = re.compile(r"part-[0-9]{5}\.(?:parquet|csv)")
"""The name of a part as an export writes it (Dask's ``part.0.parquet``, Spark's
``part-00000-<uuid>-c000.snappy.parquet`` and pyarrow's ``part-0.parquet`` differ)."""


def _table_entry(directory: Path, name: str) -> Path | None:
    """The file or folder holding table ``name`` in a dataset folder, if any.

    At most one of ``NAME/`` (today's parts, or Dask's or Spark's), ``NAME.parquet`` and
    ``NAME.csv`` (older exports) may exist: two would leave it to chance which is read.
    """
    found = [
        candidate
        for candidate in (
            directory / name,
            directory / f"{name}.parquet",
            directory / f"{name}.csv",
        )
        if candidate.exists()
    ]
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise DatasetError(
            f"{directory} holds the {name} table more than once ({names}); "
            "remove the stale ones or export again"
        )
    return found[0] if found else None


def _parts(directory: Path, entry: Path, marker: Marker | None) -> tuple[list[Path], list[str]]:
    """A table's files to read, in order, and the names to check against the marker.

    A single file is itself. A folder with a marker: the parts the marker lists under it,
    checked together with everything else the folder holds (so nothing is skipped and
    nothing foreign is read); without a marker (Dask, Spark): its ``*.parquet`` parts (or
    ``*.csv``), leaving out the ``_``- and ``.``-names those tools write beside them."""
    if not entry.is_dir():
        return [entry], [entry.name]
    if marker is not None:
        prefix = f"{entry.name}/"
        listed = sorted(name for name in marker.files if name.startswith(prefix))
        present = sorted(f"{prefix}{p.name}" for p in entry.iterdir())
        return [directory / name for name in listed], sorted(set(listed) | set(present))
    for suffix in _SUFFIXES:
        found = sorted(
            p for p in entry.glob(f"*{suffix}") if not p.name.startswith(("_", ".")) and p.is_file()
        )
        if found:
            return found, []
    return [], []


def _marker(folder: Path) -> Marker | None:
    """The folder's marker, refused as a dataset's when unfinished or another output's."""
    if (folder / INCOMPLETE_MARKER).exists():
        raise DatasetError(
            f"an export into {folder} stopped while putting its files in place, so its tables "
            "may come from two different exports; run the export again"
        )
    try:
        marker = read_marker(folder)
    except OutputError as exc:
        raise DatasetError(str(exc)) from None
    if marker is not None and marker.output != "dataset":
        raise DatasetError(
            f"{folder} holds a strat-tools {marker.output} export, not the tables of "
            "strat-tools export"
        )
    return marker


def _verified(folder: Path, names: list[str], marker: Marker | None) -> VerifiedFolder:
    """The folder's files ``names`` checked against its marker (the one read before)."""
    try:
        verified = VerifiedFolder(folder, names)
    except OutputError as exc:
        raise DatasetError(str(exc)) from None
    if marker is not None and verified.marker != marker:
        raise DatasetError(f"{folder} changed while it was opened for reading; read it again")
    return verified


@dataclass(frozen=True, slots=True)
class DatasetFiles:
    """A dataset folder's tables as found and checked: each table's files in reading order
    (:attr:`tables`), and the folder as verified against its marker (:attr:`verified`,
    every part it lists by its name in the folder: ``moves/part-00001.parquet``, or an
    older export's ``moves.parquet``); ``None`` for Dask's or Spark's parts, which carry no
    marker."""

    folder: Path
    tables: dict[str, list[Path]]
    verified: VerifiedFolder | None

    def name(self, path: Path) -> str:
        """The name of a file of :attr:`tables` in the folder (as its marker lists it)."""
        return path.relative_to(self.folder).as_posix()

    def read(self, path: Path, reader: Callable[[Path | IO[bytes]], T]) -> T:
        """What ``reader`` makes of a file of :attr:`tables`: through the very file verified,
        the read confirmed (see :meth:`~strat_tools.io.verified.VerifiedFolder.read`), or
        from its path when the folder has no marker."""
        if self.verified is None:
            return reader(path)
        try:
            return self.verified.read(self.name(path), reader)
        except OutputError as exc:  # the folder changed since it was verified
            raise DatasetError(str(exc)) from None

    def check(self) -> None:
        """Raise :class:`DatasetError` unless the folder still holds the tables verified:
        the same marker, each table's files the same (none changed, added or gone); for a
        reader coming back to the folder (the next batch). Nothing to check without a
        marker."""
        if self.verified is None:
            return
        _tables, names = _listing(self.folder, self.verified.marker, list(self.tables))
        try:
            self.verified.check(names)
        except OutputError as exc:
            raise DatasetError(str(exc)) from None


def _listing(
    folder: Path, marker: Marker | None, tables: Sequence[str] = TABLE_NAMES
) -> tuple[dict[str, list[Path]], list[str]]:
    """Each of ``tables``' files in reading order, and the names to check against the
    marker (none for Dask's or Spark's parts without one)."""
    files: dict[str, list[Path]] = {}
    checked: list[str] = []
    for name in tables:
        entry = _table_entry(folder, name)
        if entry is None and name == "events" and "games" in files:
            raise DatasetError(
                f"{folder} has no events table: it was exported by an older strat-tools, whose "
                "columns differ too (winners as Gravon's codes); export it again from the "
                "game records"
            )
        if entry is None:
            raise DatasetError(
                f"{folder} has no {name} table (expected {name}/, {name}.parquet or {name}.csv)"
            )
        parts, names = _parts(folder, entry, marker)
        if not parts:
            raise DatasetError(f"{entry} holds no part of the {name} table")
        formats = {p.suffix for p in parts}
        if len(formats) > 1:
            raise DatasetError(f"{entry} holds parts in two formats ({', '.join(sorted(formats))})")
        files[name] = parts
        checked += names
    # Parts folders of Dask or Spark carry no marker; single files, and parts named as an
    # export names them, must be one export's (a marker lost is refused, not trusted).
    ours = [p.name for paths in files.values() for p in paths if OUR_PART.fullmatch(p.name)]
    return files, checked or ours


def dataset_files(folder: Path) -> DatasetFiles:
    """Each table's files in a dataset folder, in reading order, once the folder is checked
    (see the module's docstring); :class:`DatasetError` when it is not one export's intact
    output."""
    if not folder.is_dir():
        raise DatasetError(f"{folder} is not a folder")
    marker = _marker(folder)
    files, names = _listing(folder, marker)
    refuse_records_beside_tables(folder)
    return DatasetFiles(folder, files, _verified(folder, names, marker) if names else None)


def games_parts(folder: Path) -> DatasetFiles | None:
    """The games table's files of an export folder with a marker, checked on their own
    (the other tables are not hashed), for questions the games table answers alone;
    ``None`` when the folder has no marker (read it whole)."""
    marker = _marker(folder)
    entry = _table_entry(folder, "games")
    if marker is None or entry is None:
        return None
    parts, names = _parts(folder, entry, marker)
    refuse_records_beside_tables(folder)
    return DatasetFiles(folder, {"games": parts}, _verified(folder, names, marker))


def refuse_records_beside_tables(folder: Path) -> None:
    """A folder holding an export's tables and game records too is neither: say so."""
    tables = set(table_file_names())
    for entry in folder.iterdir():
        if entry.name in tables or entry.name.startswith("."):
            continue
        if entry.is_dir() or entry.suffix.lower() in (".xml", ".zip"):
            raise DatasetError(
                f"{folder} holds both an export's tables and game records ({entry.name}); "
                "give the records themselves (for example a glob) or move the tables away"
            )


def is_dataset(path: PathArg) -> bool:
    """Whether ``path`` is to be read as a dataset folder: it holds an export's marker or a
    ``games`` table (reading then checks that it is one export's complete, intact output)."""
    directory = Path(path)
    if not directory.is_dir():
        return False
    if (directory / MARKER_NAME).exists() or (directory / INCOMPLETE_MARKER).exists():
        return True
    if (directory / "games.parquet").is_file() or (directory / "games.csv").is_file():
        return True
    # A games/ folder is a dataset only if it holds table parts (not game records).
    parts = directory / "games"
    return parts.is_dir() and any(p.suffix in _SUFFIXES for p in parts.iterdir())
