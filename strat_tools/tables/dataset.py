"""Games as five tables in memory (:class:`GameSet`), and dataset folders read back.

:class:`~strat_tools.tables.dataset_writer.DatasetWriter` writes batches of the
five tables into a folder (what :func:`strat_tools.run.driver.export_dataset` streams into, and
:meth:`GameSet.export` writes tables already in memory with); :func:`read_dataset` gives back
identical tables, and :func:`iter_dataset` the same a batch of games at a time. Reading game
records is the driver's (:mod:`strat_tools.run.driver`), which is also where ``read_games`` lives.

A dataset folder holds a folder per table: ``games/``, ``setups/``, ``moves/``,
``diagnostics/``, ``events/``, each of parts ``part-NNNNN.parquet`` (or ``.csv``) of one
schema, so that any Parquet client given a table's folder reads that table alone; folders of
the older layout (``NAME.parquet`` or ``NAME.csv`` side by side) and ``NAME/`` folders of
Parquet parts as Dask or Spark write them are read too (where each table's files are, in
either layout, and their check against the marker: :mod:`strat_tools.tables.layout`). An export
removes the older layout's and the other format's files, and a folder holding a table twice
is refused. Every file is written under a temporary name in the same folder and renamed into
place only when complete. The folder is owned through
:class:`strat_tools.io.owned.OwnedFolder`: one export at a time (a lock), only files an
earlier export wrote are replaced, and a marker written last lists each part with its
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
from collections.abc import Generator, Iterator, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import IO, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from strat_tools.core.errors import DatasetError
from strat_tools.core.text import restore_csv_table
from strat_tools.io.sources import PathArg
from strat_tools.io.verified import FolderChanged
from strat_tools.tables.columns import conform, empty_tables, to_frame
from strat_tools.tables.dataset_writer import DatasetWriter, ExportSummary, Format, csv_schema
from strat_tools.tables.layout import DatasetFiles, dataset_files, games_parts
from strat_tools.tables.schemas import SCHEMAS, TABLE_NAMES

__all__ = [
    "GameSet",
    "empty_gameset",
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

    def export(
        self, directory: PathArg, format: Format = "parquet", *, part_rows: int | None = None
    ) -> ExportSummary:
        """Write the five tables under ``directory``, a folder per table (atomically, file by
        file); ``part_rows``: rows per part (default
        :data:`~strat_tools.tables.dataset_writer.PART_ROWS`)."""
        started = time.perf_counter()
        bounds = {} if part_rows is None else {"part_rows": part_rows}
        with DatasetWriter(directory, format, **bounds) as writer:
            writer.write(self.tables)
        return writer.summary(time.perf_counter() - started)


# --- reading -----------------------------------------------------------------------------


def read_dataset(directory: PathArg) -> GameSet:
    """Read an exported dataset folder back: the same tables, typed by the schemas.

    >>> games = read_dataset("out/")  # doctest: +SKIP
    """
    files = dataset_files(Path(directory))
    return GameSet({name: _read_table(files, name) for name in files.tables})


def read_games_table(directory: PathArg, columns: Sequence[str] | None = None) -> pa.Table | None:
    """The ``games`` table of an exported Parquet folder, read and checked on its own (its
    marker says the export finished and lists these very parts), for questions the games
    table answers alone (setup searches through ``red_setup``/``blue_setup``). ``None``
    when the folder cannot be read that way: no marker (Dask's or Spark's parts), CSV, or an
    export from before the setup strings; :func:`read_dataset` then reads it all.
    ``columns``: read only those (the parts are checked whole all the same).
    """
    folder = Path(directory)
    files = games_parts(folder)
    if files is None or any(p.suffix != ".parquet" for p in files.tables["games"]):
        return None
    parts = files.tables["games"]
    try:
        if not parts or "red_setup" not in files.read(parts[0], _column_names):
            return None
        # ParquetFile, not pq.read_table: the latter imports pyarrow.dataset (half a
        # second), longer than the whole question takes.
        wanted = None if columns is None else list(columns)
        tables = [
            conform(
                "games",
                files.read(p, partial(_read_columns, columns=wanted)),
                wanted,
            )
            for p in parts
        ]
        return pa.concat_tables(tables)
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
        raise DatasetError(f"cannot read the games table from {folder}: {exc}") from exc


def _column_names(source: Path | IO[bytes]) -> list[str]:
    """The column names of a Parquet file (its footer alone is read)."""
    return list(pq.ParquetFile(source).schema_arrow.names)


def _read_columns(source: Path | IO[bytes], columns: list[str] | None) -> pa.Table:
    """``columns`` of a Parquet file (all when None), pages checked."""
    return pq.ParquetFile(source, page_checksum_verification=True).read(columns=columns)


DATASET_BATCH_GAMES: Final = 500
"""Games per batch when a dataset folder is read batch by batch."""


def _parquet_file(path: Path | IO[bytes]) -> pq.ParquetFile:
    """A Parquet file to stream, pages checked. Without ``pre_buffer=False`` pyarrow reads
    ahead a share of the whole file when the first batch is asked for, so memory would grow
    with the file (77 MB against 37 MB for 4x the archive's export)."""
    return pq.ParquetFile(path, page_checksum_verification=True, pre_buffer=False)


def _batches(files: DatasetFiles, table: str, rows: int) -> Generator[pa.RecordBatch, None, None]:
    """The record batches of a table's parts, one part open at a time: each part of a
    folder with a marker read through the very file verified, each batch confirmed before
    it is handed on (:class:`~strat_tools.io.verified.VerifiedFile`)."""
    for path in files.tables[table]:
        if files.verified is None:
            yield from _parquet_file(path).iter_batches(batch_size=rows)
            continue
        with files.verified.open(files.name(path)) as file:
            for batch in _parquet_file(file.handle).iter_batches(batch_size=rows):
                file.confirm()
                yield batch


class _RowStream:
    """The rows of one Parquet table (its parts in order), handed out a run of games at a
    time."""

    def __init__(self, files: DatasetFiles, name: str) -> None:
        self.name = name
        self._batches = _batches(files, name, 65_536)
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

    def close(self) -> None:
        """Close the part being read."""
        self._batches.close()


def iter_dataset(
    directory: PathArg, games_per_batch: int | None = None
) -> Iterator[dict[str, pa.Table]]:
    """A dataset folder's five tables, ``games_per_batch`` games at a time, so a dataset of
    any size can be analysed in flat memory.

    A game's rows in ``setups``, ``moves`` and ``diagnostics`` follow the order of the
    ``games`` table, as :func:`export_dataset` writes them; a folder whose tables are not in
    that order is refused with :class:`DatasetError` (read it whole with
    :func:`read_dataset`). A dataset in CSV is read whole, then cut.
    ``games_per_batch`` defaults to :data:`DATASET_BATCH_GAMES`.

    The folder stays checked: each part is read through the very file verified against the
    marker, each read confirmed, and before each batch is handed on the folder is checked
    again (the same marker; no part changed, added or gone: a ``stat`` each), so another
    export written into it, or a part damaged in place, stops the stream with
    :class:`DatasetError` naming it.
    """
    games_per_batch = games_per_batch or DATASET_BATCH_GAMES
    folder = Path(directory)
    files = dataset_files(folder)
    if not all(path.suffix == ".parquet" for paths in files.tables.values() for path in paths):
        yield from _cut(read_dataset(folder).tables, games_per_batch, folder)
        return
    streams = [_RowStream(files, name) for name in TABLE_NAMES if name != "games"]
    games_batches = _batches(files, "games", games_per_batch)
    try:
        for batch in games_batches:
            games = conform("games", pa.Table.from_batches([batch]))
            ids = games.column("game_id").combine_chunks()
            tables = {"games": games, **{stream.name: stream.take(ids) for stream in streams}}
            files.check()
            yield tables
        unread = [stream.name for stream in streams if not stream.exhausted()]
    except DatasetError:
        raise
    except FolderChanged as exc:
        raise DatasetError(str(exc)) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
        raise DatasetError(f"cannot read the dataset {folder}: {exc}") from exc
    finally:
        games_batches.close()
        for stream in streams:
            stream.close()
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


def _read_table(files: DatasetFiles, name: str) -> pa.Table:
    """Table ``name`` from its parts (or its one file), typed by its schema; each part read
    through the very file verified (:meth:`~strat_tools.tables.layout.DatasetFiles.read`)."""
    return pa.concat_tables(
        [files.read(path, partial(_read_part, path=path, name=name)) for path in files.tables[name]]
    )


def _read_part(source: Path | IO[bytes], path: Path, name: str) -> pa.Table:
    try:
        if path.suffix == ".csv":
            columns = {f.name: f.type for f in csv_schema(SCHEMAS[name])}
            table = restore_csv_table(
                pacsv.read_csv(
                    source,
                    convert_options=pacsv.ConvertOptions(
                        column_types=columns,
                        strings_can_be_null=True,
                        quoted_strings_can_be_null=False,
                    ),
                )
            )
        else:
            table = pq.read_table(source, schema=None, page_checksum_verification=True)
        return conform(name, table)
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
        raise DatasetError(f"cannot read the {name} table from {path}: {exc}") from exc


def empty_gameset() -> GameSet:
    """A GameSet with no games."""
    return GameSet(empty_tables())
