"""Writing a dataset folder: :class:`DatasetWriter`, batch by batch, atomically, and its summary.

:class:`DatasetWriter` writes batches of the five tables (:data:`~strat_tools.tables.schemas.
TABLE_NAMES`) into a folder, what :func:`strat_tools.run.driver.export_dataset` streams into and
:meth:`strat_tools.tables.dataset.GameSet.export` writes tables already in memory with. Each
table is one file, ``NAME.parquet`` or ``NAME.csv``, written into a staging folder inside the
target and renamed into place only when complete (:class:`strat_tools.io.staging.StagedFolder`,
the skeleton every streamed export shares). The folder is owned through
:class:`strat_tools.io.output.OwnedFolder`: one export at a time (a lock), only files an earlier
export wrote are replaced, and a marker written last lists each table's file with its size and
SHA-256. CSV keeps nulls apart from empty strings: every non-null value is quoted, a null is an
empty unquoted field; a text cell a spreadsheet would run as a formula gets a leading ``'``
(see :mod:`strat_tools.core.text`). Reading it back is :mod:`strat_tools.tables.dataset`'s.
"""

from __future__ import annotations

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
from strat_tools.io.sources import PathArg
from strat_tools.io.staging import StagedFolder
from strat_tools.tables.schemas import SCHEMAS, TABLE_NAMES, file_schema

__all__ = [
    "INCOMPLETE_MARKER",
    "TABLE_FORMATS",
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

    Used as a context manager: a clean exit commits every file, an exception (or a file
    that fails to close) removes the staging folder and leaves whatever was in
    ``directory`` before.
    """

    def __init__(self, directory: PathArg, format: Format = "parquet") -> None:
        if format not in TABLE_FORMATS:
            raise OptionError(
                f"unknown format {format!r}; expected one of {', '.join(TABLE_FORMATS)}"
            )
        self.directory = Path(directory)
        self.format: Format = format
        self.rows = dict.fromkeys(TABLE_NAMES, 0)
        self.setups = 0
        self.status = {"valid": 0, "invalid": 0, "unchecked": 0, "unreadable": 0}
        self._writers: dict[str, Any] = {}
        self._buffers: dict[str, list[pa.Table]] = {name: [] for name in TABLE_NAMES}
        self._buffered = dict.fromkeys(TABLE_NAMES, 0)
        self._buffered_bytes = dict.fromkeys(TABLE_NAMES, 0)
        self._stage = StagedFolder(self.directory, "dataset", table_file_names)

    def final_path(self, name: str) -> Path:
        """Where table ``name`` ends up."""
        return self.directory / f"{name}.{self.format}"

    def __enter__(self) -> DatasetWriter:
        self._stage.open()  # the lock: one export per folder at a time
        try:
            for name in TABLE_NAMES:
                self._writers[name] = self._open(name)
                self._stage.closing(self._writers[name].close)
        except BaseException:
            self._stage.finish(None)
            raise
        return self

    def _open(self, name: str) -> Any:
        path = str(self._stage.staging / self.final_path(name).name)
        if self.format == "parquet":
            return pq.ParquetWriter(
                path, file_schema(name), compression="zstd", write_page_checksum=True
            )
        options = pacsv.WriteOptions(quoting_style="all_valid")
        return pacsv.CSVWriter(path, csv_schema(SCHEMAS[name]), write_options=options)

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
                self._buffered[name] >= ROW_GROUP_ROWS
                or self._buffered_bytes[name] >= ROW_GROUP_BYTES
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
        self._writers[name].write_table(table)

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> None:
        """Put the finished files in place as one dataset (or, on any error, nothing).

        Five renames cannot be one atomic step, so they are fenced: the folder is marked
        unfinished first and the new marker (each file's size and SHA-256) comes in last,
        and :func:`~strat_tools.tables.dataset.read_dataset` refuses a folder without a
        marker that matches its files. Only files the old marker lists are replaced or
        removed (an older export's tables in the other format, so they are never read
        instead of this one).
        """
        names: list[str] | None = None
        try:
            if exc_type is None:
                for name in TABLE_NAMES:
                    self._flush(name)
                names = [self.final_path(name).name for name in TABLE_NAMES]
        finally:
            self._writers = {}
            self._stage.finish(names, remove=[INCOMPLETE_MARKER])

    def summary(self, seconds: float = 0.0) -> ExportSummary:
        """What has been written so far."""
        return ExportSummary(
            directory=str(self.directory),
            format=self.format,
            files=[str(self.final_path(name)) for name in TABLE_NAMES],
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

    >>> from strat_tools.tables.schemas import table_from_columns
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
    """Every name a table may have in a dataset folder (each format, and parts folders)."""
    return [f"{name}.{fmt}" for name in TABLE_NAMES for fmt in TABLE_FORMATS] + list(TABLE_NAMES)


def csv_schema(schema: pa.Schema) -> pa.Schema:
    """The schema as written to CSV: dictionary columns as their plain labels."""
    return pa.schema(
        [
            pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
            for f in schema
        ]
    )
