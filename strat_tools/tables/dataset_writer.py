"""Writing a dataset folder: :class:`DatasetWriter`, batch by batch, atomically, and its summary.

:class:`DatasetWriter` writes batches of the five tables (:data:`~strat_tools.tables.schemas.
TABLE_NAMES`) into a folder, what :func:`strat_tools.run.driver.export_dataset` streams into and
:meth:`strat_tools.tables.dataset.GameSet.export` writes tables already in memory with. Each
table is a folder of its own, ``NAME/part-NNNNN.parquet`` (or ``.csv``), parts of bounded size
(:data:`PART_ROWS`, :data:`PART_BYTES`) of one schema, so that any client reading the folder
reads that table and nothing else; each part is written into a staging folder inside the
target and renamed into place only when complete (:class:`strat_tools.io.staging.StagedFolder`,
the skeleton every streamed export shares). The folder is owned through
:class:`strat_tools.io.owned.OwnedFolder`: one export at a time (a lock), only files an earlier
export wrote are replaced, and a marker written last lists each part with its size and
SHA-256. CSV keeps nulls apart from empty strings: every non-null value is quoted, a null is an
empty unquoted field; a text cell a spreadsheet would run as a formula gets a leading ``'``
(see :mod:`strat_tools.core.text`). Reading it back is :mod:`strat_tools.tables.dataset`'s.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from strat_tools.core.choices import TABLE_FORMATS
from strat_tools.core.errors import OptionError
from strat_tools.core.text import count_of, neutralise_csv_table
from strat_tools.io.output import OutputError
from strat_tools.io.sources import PathArg
from strat_tools.io.staging import StagedFolder
from strat_tools.tables.columns import file_schema
from strat_tools.tables.schemas import SCHEMAS, TABLE_NAMES

__all__ = [
    "INCOMPLETE_MARKER",
    "PART_BYTES",
    "PART_ROWS",
    "DatasetWriter",
    "ExportSummary",
    "Format",
    "csv_schema",
    "setups_in",
    "table_file_names",
]

Format = Literal["parquet", "csv"]


INCOMPLETE_MARKER: Final = ".export-incomplete"
"""Written by older versions while an export renamed its files; a folder holding it is refused."""

# A table's buffered rows are written as one Parquet row group when they reach either bound:
# big enough for fast scans, small enough that memory stays flat however long the input is.
# The byte bound matters for the wide, short tables: games (about 180 bytes a row) would
# otherwise buffer every game of a run below 250,000 games.
ROW_GROUP_ROWS: Final = 250_000
ROW_GROUP_BYTES: Final = 4 * 1024 * 1024

# A table folder is cut into parts of bounded size, so Dask, Spark or DuckDB can read one
# in parallel, a part each: a new part begins once one holds either bound. The 23 archive
# months' moves (4.3 million rows) make 3 parts. Measured on two real months: a full part of
# moves is about 7 MB on disk (39 bytes a row in Arrow, 3.4 zstd); games rows are wide (341
# bytes in Arrow, 113 on disk), so the byte bound cuts them at about 790,000 games, 90 MB.
PART_ROWS: Final = 2_000_000
"""Rows after which a table's part is closed (at a row group's end)."""
PART_BYTES: Final = 256 * 1024 * 1024
"""Bytes of table data (Arrow, uncompressed) after which a part is closed."""


@dataclass(slots=True)
class ExportSummary:
    """What an export wrote: games by status and rows per table."""

    directory: str
    format: str
    files: list[str] = field(default_factory=list)
    games: int = 0
    valid: int = 0
    invalid: int = 0
    unchecked: int = 0
    unreadable: int = 0
    """Inputs that could not be read: a games row each (status unreadable), not games."""
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    dropped: int = 0
    """Games a selection left out (see :func:`strat_tools.run.driver.export_dataset`)."""
    setups: int = 0
    """Starting positions written (the ``setups`` table has a row per piece of each)."""

    def __str__(self) -> str:
        rows = ", ".join(
            f"{n:,} setup pieces ({count_of(self.setups, 'setup')})"
            if name == "setups"
            else f"{n:,} {name}"
            for name, n in self.rows.items()
            if name != "games"
        )
        unreadable = f"; {count_of(self.unreadable, 'unreadable input')}" if self.unreadable else ""
        return (
            f"{count_of(self.games, 'game')} = {self.valid:,} valid + {self.invalid:,} invalid + "
            f"{self.unchecked:,} unchecked{unreadable}; wrote {rows} to {self.directory} "
            f"({self.format}) in {self.seconds:.1f} s"
        )


class DatasetWriter:
    """Writes batches of the five tables into a staging folder; moves them into place on exit
    (:class:`~strat_tools.io.staging.StagedFolder`, the skeleton every streamed export shares).

    Each table goes into its own folder, ``NAME/part-NNNNN.parquet`` (or ``.csv``): a new
    part begins once one holds ``part_rows`` rows or ``part_bytes`` bytes of table data
    (Arrow, uncompressed; rows are cut where a part is full, so no part passes either
    bound, except that a part holds at least one row); every part of a table has the same
    schema, pandas metadata included, and a table with no rows is one empty part.

    Used as a context manager: a clean exit commits every file, an exception (or a file
    that fails to close) removes the staging folder and leaves whatever was in
    ``directory`` before.
    """

    def __init__(
        self,
        directory: PathArg,
        format: Format = "parquet",
        *,
        part_rows: int = PART_ROWS,
        part_bytes: int = PART_BYTES,
    ) -> None:
        if format not in TABLE_FORMATS:
            raise OptionError(
                f"unknown format {format!r}; expected one of {', '.join(TABLE_FORMATS)}"
            )
        if part_rows < 1 or part_bytes < 1:
            raise OptionError(
                f"parts need at least 1 row and 1 byte, got {part_rows}, {part_bytes}"
            )
        self.directory = Path(directory)
        self.format: Format = format
        self.part_rows = part_rows
        self.part_bytes = part_bytes
        self.rows = dict.fromkeys(TABLE_NAMES, 0)
        self.setups = 0
        self.status = {"valid": 0, "invalid": 0, "unchecked": 0, "unreadable": 0}
        self.parts: dict[str, list[str]] = {name: [] for name in TABLE_NAMES}
        """Each table's part files so far, relative to ``directory``."""
        self._writers: dict[str, Any] = {}
        self._buffers: dict[str, list[pa.Table]] = {name: [] for name in TABLE_NAMES}
        self._buffered = dict.fromkeys(TABLE_NAMES, 0)
        self._buffered_bytes = dict.fromkeys(TABLE_NAMES, 0)
        self._in_part = {name: [0, 0] for name in TABLE_NAMES}
        self._group_rows = min(ROW_GROUP_ROWS, part_rows)
        self._group_bytes = min(ROW_GROUP_BYTES, part_bytes)
        self._stage = StagedFolder(self.directory, "dataset", self._present)

    def _present(self) -> list[str]:
        """The names this writer would replace or remove: an older export's single files
        (``NAME.parquet``, ``NAME.csv``) and everything in the table folders (what no
        marker lists is then refused, so a table folder never mixes in a stranger's file)."""
        names = [f"{name}.{fmt}" for name in TABLE_NAMES for fmt in TABLE_FORMATS]
        for name in TABLE_NAMES:
            folder = self.directory / name
            if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
                raise OutputError(f"will not write into {folder}: it is not a folder")
            if folder.is_dir():
                names += [f"{name}/{entry.name}" for entry in sorted(folder.iterdir())]
        return names

    def __enter__(self) -> DatasetWriter:
        self._stage.open()  # the lock: one export per folder at a time
        try:
            for name in TABLE_NAMES:
                (self._stage.staging / name).mkdir()
                self._stage.closing(functools.partial(self._close, name))
                self._open(name)
        except BaseException:
            self._stage.finish(None)
            raise
        return self

    def _open(self, name: str) -> None:
        part = f"{name}/part-{len(self.parts[name]):05d}.{self.format}"
        self.parts[name].append(part)
        self._in_part[name] = [0, 0]
        path = str(self._stage.staging / part)
        if self.format == "parquet":
            self._writers[name] = pq.ParquetWriter(
                path, file_schema(name), compression="zstd", write_page_checksum=True
            )
            return
        options = pacsv.WriteOptions(quoting_style="all_valid")
        self._writers[name] = pacsv.CSVWriter(
            path, csv_schema(SCHEMAS[name]), write_options=options
        )

    def _close(self, name: str) -> None:
        writer = self._writers.pop(name, None)  # closed once, even if closing raises
        if writer is not None:
            writer.close()

    def write(self, tables: dict[str, pa.Table]) -> None:
        """Add one batch of the five tables."""
        status = tables["games"].column("status").to_pylist()
        for key in self.status:
            self.status[key] += status.count(key)
        for name in TABLE_NAMES:
            table = tables[name]
            self.rows[name] += table.num_rows
            if name == "setups" and table.num_rows:
                self.setups += setups_in(table)
            self._buffers[name].append(table)
            self._buffered[name] += table.num_rows
            self._buffered_bytes[name] += table.nbytes
            if (
                self._buffered[name] >= self._group_rows
                or self._buffered_bytes[name] >= self._group_bytes
            ):
                self._flush(name)

    def _flush(self, name: str) -> None:
        parts = self._buffers[name]
        if not parts:
            return
        table = pa.concat_tables(parts)
        self._buffers[name] = []
        self._buffered[name] = self._buffered_bytes[name] = 0
        if self.format == "csv":
            table = neutralise_csv_table(table.cast(csv_schema(SCHEMAS[name])))
        row_bytes = table.nbytes / max(1, table.num_rows)
        start = 0
        while start < table.num_rows:  # cut where a part reaches a bound
            if name not in self._writers:
                self._open(name)
            in_part = self._in_part[name]
            room = min(
                self.part_rows - in_part[0],
                math.ceil((self.part_bytes - in_part[1]) / row_bytes)
                if row_bytes
                else self.part_rows,
            )
            take = max(1, min(room, table.num_rows - start))
            self._writers[name].write_table(table.slice(start, take))
            in_part[0] += take
            in_part[1] += math.ceil(take * row_bytes)
            start += take
            if in_part[0] >= self.part_rows or in_part[1] >= self.part_bytes:
                self._close(name)  # the next rows, if any, open the next part

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> None:
        """Put the finished files in place as one dataset (or, on any error, nothing).

        The renames cannot be one atomic step, so they are fenced: the folder is marked
        unfinished first and the new marker (each file's size and SHA-256) comes in last,
        and :func:`~strat_tools.tables.dataset.read_dataset` refuses a folder without a
        marker that matches its files. Only files the old marker lists are replaced or
        removed (an older export's parts, or its tables in the old layout or the other
        format, so they are never read instead of this one).
        """
        names: list[str] | None = None
        try:
            if exc_type is None:
                for name in TABLE_NAMES:
                    self._flush(name)
                names = [part for name in TABLE_NAMES for part in self.parts[name]]
        finally:
            self._stage.finish(names, remove=[INCOMPLETE_MARKER])

    def summary(self, seconds: float = 0.0) -> ExportSummary:
        """What has been written so far."""
        return ExportSummary(
            directory=str(self.directory),
            format=self.format,
            files=[str(self.directory / part) for name in TABLE_NAMES for part in self.parts[name]],
            games=self.rows["games"] - self.status["unreadable"],
            valid=self.status["valid"],
            invalid=self.status["invalid"],
            unchecked=self.status["unchecked"],
            unreadable=self.status["unreadable"],
            rows=dict(self.rows),
            seconds=seconds,
            setups=self.setups,
        )


def setups_in(setups: pa.Table) -> int:
    """How many setups a ``setups`` table holds: its distinct (game, side) pairs (a batch
    holds whole games, so the batches' counts add up). The rows of one setup come together,
    so only the first row of each run of equal pairs is hashed; and no ``group_by``, whose
    first call imports ``pyarrow.acero`` and ``pyarrow.dataset`` (about 40 million
    instructions, a fifth of the cost of exporting a month).

    >>> from strat_tools.tables.columns import table_from_columns
    >>> setups_in(table_from_columns("setups", {"game_id": ["a", "a", "b", "a"],
    ...     "side": ["red", "red", "red", "blue"], "row": [1] * 4, "col": [1, 2, 1, 1],
    ...     "square": ["A1"] * 4, "piece": ["flag"] * 4, "fingerprint": ["f"] * 4,
    ...     "mirror_fingerprint": ["m"] * 4}))
    3
    """
    games = setups.column("game_id").combine_chunks()
    sides = setups.column("side").combine_chunks().indices.to_numpy()
    rows = len(games)
    heads = np.ones(rows, dtype=np.bool_)
    if rows > 1:
        same = pc.equal(games.slice(1), games.slice(0, rows - 1))
        heads[1:] = ~(same.to_numpy(zero_copy_only=False) & (sides[1:] == sides[:-1]))
    first = np.flatnonzero(heads)
    ids = pc.dictionary_encode(games.take(pa.array(first))).indices.to_numpy()
    return int(np.count_nonzero(np.bincount(ids.astype(np.int64) * 2 + sides[first])))


def table_file_names() -> list[str]:
    """Every name a table may have at the top of a dataset folder: its folder of parts
    (``NAME``, today's layout) and the single files of older exports (each format)."""
    return [f"{name}.{fmt}" for name in TABLE_NAMES for fmt in TABLE_FORMATS] + list(TABLE_NAMES)


def csv_schema(schema: pa.Schema) -> pa.Schema:
    """The schema as written to CSV: dictionary columns as their plain labels."""
    return pa.schema(
        [
            pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
            for f in schema
        ]
    )
