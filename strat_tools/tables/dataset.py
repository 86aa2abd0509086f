"""Games as five tables in memory (:class:`GameSet`), and dataset folders read back.

:class:`~strat_tools.tables.dataset_writer.DatasetWriter` (re-exported here) writes batches of the
five tables into a folder (what :func:`strat_tools.run.driver.export_dataset` streams into, and
:meth:`GameSet.export` writes tables already in memory with); :func:`read_dataset` gives back
identical tables, and :func:`iter_dataset` the same a batch of games at a time. Reading game
records is the driver's (:mod:`strat_tools.run.driver`), which is also where ``read_games`` lives.

A dataset folder holds one file per table: ``games``, ``setups``, ``moves``,
``diagnostics``, ``events``, as ``NAME.parquet`` (one file each; a ``NAME/`` folder of Parquet
files, as Dask or Spark write them, is read too) or ``NAME.csv``; an export removes the other
format's tables, and a folder holding a table twice is refused. Every file is written under
a temporary name in the same folder and renamed into place only when complete. The folder
is owned through :class:`strat_tools.io.output.OwnedFolder`: one export at a time (a lock), only
files an earlier export wrote are replaced, and a marker written last lists each file with its
SHA-256, so a folder whose renames did not all happen, or mixed from two exports, or damaged,
is refused rather than read. Parquet pages carry checksums, verified on every read. CSV keeps
nulls apart from empty strings: every non-null value is quoted, a null is an empty unquoted
field; a text cell a spreadsheet would run as a formula gets a leading ``'`` (see
:mod:`strat_tools.core.text`), taken off again on reading. A folder exported by an older version
(no ``events`` table, Gravon's winner codes, moves' ``source``/``target``) is refused with a
:class:`~strat_tools.core.errors.DatasetError` that says to export it again: its columns cannot be
brought to today's meaning without the records.

This module knows no XML and no rules: it moves tables (see :mod:`strat_tools.tables.build`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from strat_tools.core.errors import DatasetError
from strat_tools.core.text import restore_csv_table
from strat_tools.io.output import MARKER_NAME, OutputError, verify_folder
from strat_tools.io.output import read_marker as read_export_marker
from strat_tools.io.sources import PathArg as PathArg
from strat_tools.io.sources import Paths as Paths
from strat_tools.tables.dataset_writer import (
    INCOMPLETE_MARKER,
    DatasetWriter,
    ExportSummary,
    Format,
    csv_schema,
    table_file_names,
)
from strat_tools.tables.dataset_writer import (
    TABLE_FORMATS as TABLE_FORMATS,
)
from strat_tools.tables.schemas import SCHEMAS, TABLE_NAMES, conform, empty_tables, to_frame

__all__ = [
    "TABLE_FORMATS",
    "DatasetWriter",
    "ExportSummary",
    "Format",
    "GameSet",
    "empty_gameset",
    "is_dataset",
    "iter_dataset",
    "read_dataset",
]


class GameSet:
    """Games as five tables: ``.games``, ``.setups``, ``.moves``, ``.diagnostics``, ``.events``.

    The frames are pandas DataFrames (nullable ints and booleans, categoricals with fixed
    categories for every enumeration; see :mod:`strat_tools.tables.schemas`), built from the Arrow
    tables (``.tables``) on first use. ``repr`` is one line of counts.

    >>> from strat_tools.run.driver import read_games
    >>> games = read_games("data/")  # doctest: +SKIP
    >>> games.games.groupby("variant").size()  # doctest: +SKIP
    """

    def __init__(self, tables: dict[str, pa.Table]) -> None:
        missing = [name for name in TABLE_NAMES if name not in tables]
        if missing:
            raise ValueError(f"a GameSet needs the tables {', '.join(missing)}")
        self.tables: dict[str, pa.Table] = {name: tables[name] for name in TABLE_NAMES}

    @cached_property
    def games(self) -> pd.DataFrame:
        """One row per input game file."""
        return to_frame(self.tables["games"])

    @cached_property
    def setups(self) -> pd.DataFrame:
        """One row per piece of each starting position, in its owner's view."""
        return to_frame(self.tables["setups"])

    @cached_property
    def moves(self) -> pd.DataFrame:
        """One row per recorded move."""
        return to_frame(self.tables["moves"])

    @cached_property
    def diagnostics(self) -> pd.DataFrame:
        """One row per problem found."""
        return to_frame(self.tables["diagnostics"])

    @cached_property
    def events(self) -> pd.DataFrame:
        """One row per key event of a replayed game (battles, losses, rescues, the end)."""
        return to_frame(self.tables["events"])

    def counts(self) -> dict[str, int]:
        """Games by status, plus rows per table."""
        status = self.tables["games"].column("status").to_pylist()
        out = {s: status.count(s) for s in ("valid", "invalid", "unchecked", "unreadable")}
        out["games"] = len(status) - out["unreadable"]  # unreadable inputs are not games
        for name in ("setups", "moves", "diagnostics", "events"):
            out[name] = self.tables[name].num_rows
        return out

    def __len__(self) -> int:
        return int(self.tables["games"].num_rows)

    def __repr__(self) -> str:
        c = self.counts()
        return (
            f"<GameSet {c['games']:,} games: {c['valid']:,} valid, {c['invalid']:,} invalid, "
            f"{c['unchecked']:,} unchecked"
            + (f", {c['unreadable']:,} unreadable inputs" if c["unreadable"] else "")
            + f"; {c['setups']:,} setup rows, {c['moves']:,} moves, "
            f"{c['diagnostics']:,} diagnostics, {c['events']:,} events>"
        )

    def _repr_html_(self) -> str:
        """Jupyter: the counts, then games per variant and status."""
        from html import escape

        games = self.tables["games"].select(["variant", "status"]).to_pandas()
        table = (
            games.groupby(["variant", "status"], observed=True).size().unstack(fill_value=0)
            if len(games)
            else pd.DataFrame()
        )
        head = escape(repr(self))
        return f"<p><code>{head}</code></p>" + (table.to_html() if len(table) else "")

    def export(self, directory: PathArg, format: Format = "parquet") -> ExportSummary:
        """Write the five tables under ``directory`` (atomically, file by file)."""
        started = time.perf_counter()
        with DatasetWriter(directory, format) as writer:
            writer.write(self.tables)
        return writer.summary(time.perf_counter() - started)


# --- reading -----------------------------------------------------------------------------


def _table_file(directory: Path, name: str) -> Path | None:
    """The file (or Parquet folder) holding table ``name`` in a dataset folder, if any.

    At most one of ``NAME.parquet``, ``NAME/`` (Parquet parts, as Dask or Spark write them)
    and ``NAME.csv`` may exist: two would leave it to chance which export is read.
    """
    found = [
        candidate
        for candidate in (
            directory / f"{name}.parquet",
            directory / name,
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
    # A games/ folder is a Parquet dataset only if it holds Parquet parts (not game records).
    parts = directory / "games"
    return parts.is_dir() and any(parts.glob("*.parquet"))


def read_dataset(directory: PathArg) -> GameSet:
    """Read an exported dataset folder back: the same tables, typed by the schemas.

    >>> games = read_dataset("out/")  # doctest: +SKIP
    """
    files = _dataset_files(Path(directory))
    return GameSet({name: _read_table(path, name) for name, path in files.items()})


def read_games_table(directory: PathArg, columns: Sequence[str] | None = None) -> pa.Table | None:
    """The ``games`` table of an exported Parquet folder, read and checked on its own (its
    marker says the export finished and lists this very file), for questions the games
    table answers alone (setup searches through ``red_setup``/``blue_setup``). ``None``
    when the folder cannot be read that way: no marker (Parquet parts), CSV, or an export
    from before the setup strings; :func:`read_dataset` then reads it all. ``columns``:
    read only those (the file is checked whole all the same).
    """
    folder = Path(directory)
    path = folder / "games.parquet"
    if (folder / INCOMPLETE_MARKER).exists() or not path.is_file() or not _has_marker(folder):
        return None
    _refuse_records_beside_tables(folder)
    try:  # first: a damaged file says so as every read of the folder does
        verify_folder(folder, [path.name])
    except OutputError as exc:
        raise DatasetError(str(exc)) from None
    try:
        if "red_setup" not in pq.read_schema(path).names:
            return None
    except (pa.ArrowInvalid, OSError) as exc:
        raise DatasetError(f"cannot read the games table from {path}: {exc}") from exc
    try:
        # ParquetFile, not pq.read_table: the latter imports pyarrow.dataset (half a
        # second), longer than the whole question takes.
        wanted = None if columns is None else list(columns)
        table = pq.ParquetFile(path, page_checksum_verification=True).read(columns=wanted)
        return conform("games", table, wanted)
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
        raise DatasetError(f"cannot read the games table from {path}: {exc}") from exc


DATASET_BATCH_GAMES: Final = 500
"""Games per batch when a dataset folder is read batch by batch."""


def _parquet_file(path: Path) -> pq.ParquetFile:
    """A Parquet file to stream, pages checked. Without ``pre_buffer=False`` pyarrow reads
    ahead a share of the whole file when the first batch is asked for, so memory would grow
    with the file (77 MB against 37 MB for 4x the archive's export)."""
    return pq.ParquetFile(path, page_checksum_verification=True, pre_buffer=False)


class _RowStream:
    """The rows of one Parquet table, handed out a run of games at a time."""

    def __init__(self, path: Path, name: str) -> None:
        self.name = name
        self._batches = _parquet_file(path).iter_batches(batch_size=65_536)
        self._buffer: pa.Table | None = None

    def _fill(self) -> bool:
        while self._buffer is None or not self._buffer.num_rows:
            batch = next(self._batches, None)
            if batch is None:
                self._buffer = None
                return False
            self._buffer = pa.Table.from_batches([batch])
        return True

    def take(self, game_ids: pa.Array) -> pa.Table:
        """The leading rows whose game is one of ``game_ids``."""
        parts = []
        while self._fill():
            assert self._buffer is not None
            inside = pc.is_in(self._buffer.column("game_id"), value_set=game_ids)
            first_out = pc.index(inside, False).as_py()
            if first_out == -1:
                parts.append(self._buffer)
                self._buffer = None
                continue
            parts.append(self._buffer.slice(0, first_out))
            self._buffer = self._buffer.slice(first_out)
            break
        rows = pa.concat_tables(parts) if parts else SCHEMAS[self.name].empty_table()
        return conform(self.name, rows)

    def exhausted(self) -> bool:
        """Whether every row has been handed out."""
        return not self._fill()


def iter_dataset(
    directory: PathArg, games_per_batch: int | None = None
) -> Iterator[dict[str, pa.Table]]:
    """A dataset folder's five tables, ``games_per_batch`` games at a time, so a dataset of
    any size can be analysed in flat memory.

    A game's rows in ``setups``, ``moves`` and ``diagnostics`` follow the order of the
    ``games`` table, as :func:`export_dataset` writes them; a folder whose tables are not in
    that order is refused with :class:`DatasetError` (read it whole with
    :func:`read_dataset`). A dataset in CSV or in Parquet parts is read whole, then cut.
    ``games_per_batch`` defaults to :data:`DATASET_BATCH_GAMES`.
    """
    games_per_batch = games_per_batch or DATASET_BATCH_GAMES
    folder = Path(directory)
    files = _dataset_files(folder)
    if not all(path.suffix == ".parquet" and path.is_file() for path in files.values()):
        yield from _cut(read_dataset(folder).tables, games_per_batch, folder)
        return
    try:
        streams = [_RowStream(files[name], name) for name in TABLE_NAMES if name != "games"]
        games_file = _parquet_file(files["games"])
        for batch in games_file.iter_batches(batch_size=games_per_batch):
            games = conform("games", pa.Table.from_batches([batch]))
            ids = games.column("game_id").combine_chunks()
            yield {"games": games, **{stream.name: stream.take(ids) for stream in streams}}
        unread = [stream.name for stream in streams if not stream.exhausted()]
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
        raise DatasetError(f"cannot read the dataset {folder}: {exc}") from exc
    if unread:
        raise DatasetError(
            f"the {unread[0]} table of {folder} is not in the order of its games table (not "
            "written by strat-tools export?); read it whole with read_dataset instead"
        )


def _cut(
    whole: dict[str, pa.Table], games_per_batch: int, folder: Path
) -> Iterator[dict[str, pa.Table]]:
    """Tables already in memory, ``games_per_batch`` games at a time, in any row order: each
    other table is sorted once (stably) by its game's batch, then sliced."""
    games = whole["games"]
    parts: dict[str, list[pa.Table]] = {}
    batches = max(1, -(-games.num_rows // games_per_batch))
    for name, table in whole.items():
        if name == "games":
            continue
        position = pc.index_in(table.column("game_id"), value_set=games.column("game_id"))
        if position.null_count:
            raise DatasetError(f"the {name} table of {folder} has rows of games it does not list")
        batch = np.asarray(position.to_numpy(zero_copy_only=False)) // games_per_batch
        table = table.take(np.argsort(batch, kind="stable"))
        bounds = np.concatenate(([0], np.cumsum(np.bincount(batch, minlength=batches))))
        parts[name] = [
            table.slice(int(bounds[k]), int(bounds[k + 1] - bounds[k])) for k in range(batches)
        ]
    for k in range(batches):
        yield {
            "games": games.slice(k * games_per_batch, games_per_batch),
            **{name: tables[k] for name, tables in parts.items()},
        }


def _dataset_files(folder: Path) -> dict[str, Path]:
    """Each table's file in a dataset folder; :class:`DatasetError` when it is not one."""
    if not folder.is_dir():
        raise DatasetError(f"{folder} is not a folder")
    if (folder / INCOMPLETE_MARKER).exists():
        raise DatasetError(
            f"an export into {folder} stopped while putting its files in place, so its tables "
            "may come from two different exports; run the export again"
        )
    files = {}
    for name in TABLE_NAMES:
        path = _table_file(folder, name)
        if path is None and name == "events" and "games" in files:
            raise DatasetError(
                f"{folder} has no events table: it was exported by an older strat-tools, whose "
                "columns differ too (winners as Gravon's codes); export it again from the "
                "game records"
            )
        if path is None:
            raise DatasetError(
                f"{folder} has no {name} table (expected {name}.parquet, {name}/ or {name}.csv)"
            )
        files[name] = path
    _refuse_records_beside_tables(folder)
    plain = [path.name for path in files.values() if path.is_file()]
    if plain or _has_marker(folder):
        # Parts folders (Dask, Spark) carry no marker; single files must be one export's.
        try:
            verify_folder(folder, plain)
        except OutputError as exc:
            raise DatasetError(str(exc)) from None
    return files


def _has_marker(folder: Path) -> bool:
    """Whether ``folder`` holds an export marker (a broken one counts: it is then refused)."""
    try:
        return read_export_marker(folder) is not None
    except OutputError:
        return True


def _refuse_records_beside_tables(folder: Path) -> None:
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


def _read_table(path: Path, name: str) -> pa.Table:
    try:
        if path.suffix == ".csv":
            columns = {f.name: f.type for f in csv_schema(SCHEMAS[name])}
            table = restore_csv_table(
                pacsv.read_csv(
                    path,
                    convert_options=pacsv.ConvertOptions(
                        column_types=columns,
                        strings_can_be_null=True,
                        quoted_strings_can_be_null=False,
                    ),
                )
            )
        else:
            table = pq.read_table(path, schema=None, page_checksum_verification=True)
        return conform(name, table)
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
        raise DatasetError(f"cannot read the {name} table from {path}: {exc}") from exc


def empty_gameset() -> GameSet:
    """A GameSet with no games."""
    return GameSet(empty_tables())


def __getattr__(name: str) -> object:
    """``FORMATS``: this module's name for :data:`TABLE_FORMATS` before each meaning of
    "format" got its own name (issue 26), still answered for notebooks that use it; not
    listed in ``__all__`` or ``dir()``, and used nowhere in the package."""
    if name == "FORMATS":
        return TABLE_FORMATS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
