"""Where a dataset folder's tables are, in either layout, checked against its marker.

Today's exports write each table as a folder of parts, ``NAME/part-NNNNN.parquet`` (or
``.csv``), so that a client reading ``NAME/`` reads that table alone; exports before it
wrote one file per table beside the others (``NAME.parquet`` or ``NAME.csv``), and folders
Dask or Spark wrote hold ``NAME/`` folders of Parquet parts with no marker. Every reader of
a dataset folder finds its files here (:func:`dataset_files`, and :func:`games_parts` for the
games table alone), so each layout is read the same way everywhere.

A folder with an export's marker is read only as that export wrote it: every file of a
table (each part the marker lists, and anything else in a table's folder) is checked by
size and SHA-256 (:func:`~strat_tools.io.owned.verify_folder`), so a part missing,
damaged, added or from another export is refused, naming it. A folder holding a table twice
(two layouts, or two formats), game records beside the tables, or an observation export is
refused with :class:`~strat_tools.core.errors.DatasetError`.

This module knows files only: no schema, no rows.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from strat_tools.core.errors import DatasetError
from strat_tools.io.output import OutputError
from strat_tools.io.owned import MARKER_NAME, Marker, read_marker, verify_folder
from strat_tools.io.sources import PathArg
from strat_tools.tables.dataset_writer import INCOMPLETE_MARKER, TABLE_FORMATS, table_file_names
from strat_tools.tables.schemas import TABLE_NAMES

__all__ = ["dataset_files", "games_parts", "is_dataset"]

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


def _verify(folder: Path, names: list[str]) -> None:
    try:
        verify_folder(folder, names)
    except OutputError as exc:
        raise DatasetError(str(exc)) from None


def dataset_files(folder: Path) -> dict[str, list[Path]]:
    """Each table's files in a dataset folder, in reading order, once the folder is checked
    (see the module's docstring); :class:`DatasetError` when it is not one export's intact
    output."""
    if not folder.is_dir():
        raise DatasetError(f"{folder} is not a folder")
    marker = _marker(folder)
    files: dict[str, list[Path]] = {}
    checked: list[str] = []
    for name in TABLE_NAMES:
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
    refuse_records_beside_tables(folder)
    ours = [p.name for paths in files.values() for p in paths if OUR_PART.fullmatch(p.name)]
    if marker is not None or checked or ours:
        # Parts folders of Dask or Spark carry no marker; single files, and parts named as
        # an export names them, must be one export's (a marker lost is refused, not trusted).
        _verify(folder, checked or ours)
    return files


def games_parts(folder: Path) -> list[Path] | None:
    """The games table's files of an export folder with a marker, checked on their own
    (the other tables are not hashed), for questions the games table answers alone;
    ``None`` when the folder has no marker (read it whole)."""
    marker = _marker(folder)
    entry = _table_entry(folder, "games")
    if marker is None or entry is None:
        return None
    parts, names = _parts(folder, entry, marker)
    refuse_records_beside_tables(folder)
    _verify(folder, names)
    return parts


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
