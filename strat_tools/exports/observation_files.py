"""Observation exports on disk: zstd Parquet shards and a games table, written and read.

:func:`export_observations` streams :func:`~strat_tools.exports.observations.iter_observations`
(the rows, made through the input driver) into a :class:`ShardWriter`, which owns the
output folder as an export folder is owned and moves complete files into place;
:func:`read_observations` reads the shards an export finished. The rows themselves, their
schema and how they are computed are :mod:`strat_tools.exports.observations`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from strat_tools.core.errors import InputError, OptionError
from strat_tools.engine.information.mover_rows import LAST_MOVES
from strat_tools.exports.observation_rows import OBSERVATIONS_SCHEMA, OBSERVATIONS_VERSION
from strat_tools.exports.observations import (
    GAMES,
    GAMES_FILE,
    GAMES_SCHEMA,
    OLD_GAMES_FILE,
    SHARD_ROWS,
    SHARDS,
    iter_observations,
)
from strat_tools.io.output import OutputError, check_output
from strat_tools.io.owned import Marker, read_marker
from strat_tools.io.staging import StagedFolder
from strat_tools.io.verified import VerifiedFolder
from strat_tools.run.filters import GameFilter
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg

__all__ = [
    "SHARD_OPTIONS",
    "ObservationExport",
    "ObservationsSummary",
    "RowSelection",
    "ShardWriter",
    "export_file_names",
    "export_observations",
    "observation_folder",
    "observation_games",
    "observation_shards",
    "read_observations",
    "require_columns",
]


def _games_folder(directory: Path) -> list[str]:
    """Everything in an export's games folder (checked or replaced as the export's own)."""
    folder = directory / GAMES
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise OutputError(f"will not write into {folder}: it is not a folder")
    return [f"{GAMES}/{p.name}" for p in sorted(folder.iterdir())] if folder.is_dir() else []


def _shard_options() -> dict[str, Any]:
    """How a shard is written: zstd; dictionary pages only for the text and label columns
    (a few distinct values per shard), statistics only for the scalar columns.

    Why (measured on strados2014-5.zip, one core): Parquet tries a dictionary for every
    column by default, and for a high-entropy column (boards, legal-move lists, counts)
    it hashes every value and then falls back to plain pages, and stores the larger
    result: 0.56 s and 12.0 MB a month, against 0.31 s and 7.6 MB this way. Min/max
    statistics of the binary and list columns are of no use to a reader (nothing is
    filtered by a board) and cost a fifth of the list columns' time. What a reader sees
    (columns, types, values) is the same."""
    labels = [
        f.name
        for f in OBSERVATIONS_SCHEMA
        if pa.types.is_string(f.type) or pa.types.is_dictionary(f.type)
    ]
    scalars = [
        f.name
        for f in OBSERVATIONS_SCHEMA
        if not (pa.types.is_list(f.type) or pa.types.is_fixed_size_binary(f.type))
    ]
    return {"compression": "zstd", "use_dictionary": labels, "write_statistics": scalars}


SHARD_OPTIONS: Final = _shard_options()
"""The :class:`pyarrow.parquet.ParquetWriter` options of an observation shard."""


@dataclass(slots=True)
class ObservationsSummary:
    """What an export wrote."""

    directory: str
    games: int = 0
    valid: int = 0
    readable: int = 0
    """Inputs that could be read (valid or invalid games); the others are unreadable."""
    unreadable_reasons: list[str] = field(default_factory=list)
    """The first reasons inputs could not be read (at most three)."""
    without: int = 0
    """Games that gave no rows (invalid, unreadable, or valid without moves)."""
    dropped: int = 0
    """Games the filters left out (read, not in the games table)."""
    observations: int = 0
    shards: list[str] = field(default_factory=list)
    bytes: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        left_out = f"; {self.dropped:,} left out by the filters" if self.dropped else ""
        return (
            f"{self.games:,} games ({self.valid:,} valid; {self.without:,} gave no rows: "
            f"see {GAMES}/ for why{left_out}); wrote {self.observations:,} "
            f"observations in {len(self.shards):,} shard(s), {self.bytes / 1e6:,.1f} MB, to "
            f"{self.directory} in {self.seconds:.1f} s"
        )


class ShardWriter:
    """Writes observation batches as zstd Parquet shards of at most ``shard_rows`` rows,
    and the games table, into a staging folder; a clean exit moves them into place.

    ``directory`` is owned as an export folder is, through the skeleton every streamed
    export shares (:class:`~strat_tools.io.staging.StagedFolder`): one writer at a time (a
    lock); the games table (``games/part-00000.parquet``, or an older export's
    ``games.parquet``) and ``observations/part-*.parquet`` already there are replaced or
    removed only when the folder's marker says an earlier run wrote them (anything else is
    refused, and other files are never touched); the marker, written last, lists each file
    with its size and SHA-256. A folder another kind of output owns (a dataset export's) is
    refused before anything is written.

    Used as a context manager: a clean exit commits, an exception (a full disk, a shard
    that fails to close) removes the staging folder and leaves ``directory`` as it was.
    """

    def __init__(self, directory: str | os.PathLike[str], shard_rows: int = SHARD_ROWS) -> None:
        if shard_rows < 1:
            raise OptionError(f"shard_rows must be at least 1, got {shard_rows}")
        self.directory = Path(directory)
        self.shard_rows = shard_rows
        self.summary = ObservationsSummary(str(self.directory))
        self._stage = StagedFolder(self.directory, "observations", self._present)
        self.staging = self._stage.staging
        self._writer: pq.ParquetWriter | None = None
        self._rows_in_shard = 0
        self._games: pq.ParquetWriter | None = None

    def _present(self) -> list[str]:
        """The names this writer would replace or remove: its tables already in the folder."""
        shards = self.directory / SHARDS
        if shards.is_symlink() or (shards.exists() and not shards.is_dir()):
            raise OutputError(f"will not write into {shards}: it is not a folder")
        names = [f"{SHARDS}/{p.name}" for p in sorted(shards.glob("part-*.parquet"))]
        return [OLD_GAMES_FILE, *_games_folder(self.directory), *names]

    def __enter__(self) -> ShardWriter:
        self._stage.open()  # the lock: one writer per folder at a time
        self._stage.closing(self._close_shard)
        self._stage.closing(self._close_games)
        try:
            (self.staging / SHARDS).mkdir()
            (self.staging / GAMES).mkdir()
            self._games = pq.ParquetWriter(
                self.staging / GAMES_FILE, GAMES_SCHEMA, compression="zstd"
            )
        except BaseException:
            self._stage.finish(None)
            raise
        return self

    def write(self, tables: dict[str, pa.Table]) -> None:
        """Append one batch's games and observations."""
        games = tables["games"]
        assert self._games is not None
        self._games.write_table(games)
        self.summary.games += games.num_rows
        self.summary.valid += sum(1 for s in games.column("status").to_pylist() if s == "valid")
        readable = games.column("readable").to_pylist()
        self.summary.readable += sum(readable)
        reasons = self.summary.unreadable_reasons
        for ok, reason in zip(readable, games.column("reason").to_pylist(), strict=True):
            if not ok and len(reasons) < 3:
                reasons.append(str(reason))
        self.summary.without += sum(1 for n in games.column("observations").to_pylist() if not n)
        observations = tables["observations"]
        start = 0
        while start < observations.num_rows:
            if self._writer is None or self._rows_in_shard >= self.shard_rows:
                self._next_shard()
            assert self._writer is not None
            take = min(self.shard_rows - self._rows_in_shard, observations.num_rows - start)
            self._writer.write_table(observations.slice(start, take))
            self._rows_in_shard += take
            start += take
        self.summary.observations += observations.num_rows

    def _next_shard(self) -> None:
        self._close_shard()
        name = f"part-{len(self.summary.shards):05d}.parquet"
        self.summary.shards.append(f"{SHARDS}/{name}")
        self._writer = pq.ParquetWriter(
            self.staging / SHARDS / name, OBSERVATIONS_SCHEMA, **SHARD_OPTIONS
        )
        self._rows_in_shard = 0

    def _close_shard(self) -> None:
        writer, self._writer = self._writer, None  # closed once, even if closing raises
        if writer is not None:
            writer.close()

    def _close_games(self) -> None:
        writer, self._games = self._games, None
        if writer is not None:
            writer.close()

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        names = None if kind is not None else [GAMES_FILE, *self.summary.shards]
        digests = self._stage.finish(names)
        self.summary.bytes = sum(size for size, _digest in digests.values())


def export_observations(
    paths: InputsArg,
    directory: str | os.PathLike[str],
    *,
    rules: str | None = "auto",
    last_moves: int = LAST_MOVES,
    shard_rows: int = SHARD_ROWS,
    select: GameFilter | None = None,
    run: RunArg = None,
    on_batch: Callable[[dict[str, pa.Table]], None] | None = None,
    compiled: bool | None = None,
) -> ObservationsSummary:
    """Write the observations of every valid game under ``directory`` that ``select``
    keeps: shards ``observations/part-NNNNN.parquet`` and the games table
    ``games/part-00000.parquet`` beside them (every game read and kept, with the rows it
    gave or why none; the summary counts the games the filter left out). Streams batch by
    batch; files move into place when complete. Raises
    :class:`~strat_tools.core.errors.NothingReadable` (nothing written) when not one
    input could be read. ``compiled`` chooses the legal-move path, as for
    :func:`~strat_tools.exports.observations.iter_observations` (by the input's size unless
    told).

    >>> export_observations(["strados2014-1.zip"], "obs/")  # doctest: +SKIP
    """
    started = time.perf_counter()
    inputs = Inputs.of(paths)
    check_output(directory, inputs.given, folder=True, create=True)
    run, seen = Run.of(run).counting()
    with ShardWriter(directory, shard_rows) as writer:
        for tables in iter_observations(
            inputs,
            rules=rules,
            last_moves=last_moves,
            select=select,
            run=run,
            compiled=compiled,
        ):
            writer.write(tables)
            if on_batch is not None:
                on_batch(tables)
        writer.summary.dropped = seen.dropped
        if not writer.summary.readable:  # raised inside: nothing is put in place
            seen.require(inputs.given, select)  # the reader's reasons, as every command's
    writer.summary.seconds = time.perf_counter() - started
    return writer.summary


def _games_file(marker: Marker | None) -> str:
    """The games table's file the export wrote: ``games/part-00000.parquet``, or an older
    export's ``games.parquet`` when its marker lists that."""
    return OLD_GAMES_FILE if marker is not None and OLD_GAMES_FILE in marker.files else GAMES_FILE


def export_file_names(directory: str | os.PathLike[str], marker: Marker | None) -> list[str]:
    """Every file of the observation export in ``directory`` its readers check, relative to
    it, in order: the games table (everything in ``games/``, and the games file ``marker``
    lists: ``games/part-00000.parquet``, or an older export's ``games.parquet``) and each
    shard ``marker`` lists or the folder holds. The one listing of an observation folder's
    files: checked when it is opened (:func:`observation_folder`) and each time a reader
    comes back to it (:meth:`ObservationExport.check`)."""
    root = Path(directory)
    listed = {name for name in marker.files if name.startswith(f"{SHARDS}/")} if marker else set()
    present = {f"{SHARDS}/{p.name}" for p in (root / SHARDS).glob("part-*.parquet")}
    beside = set(_games_folder(root)) | {_games_file(marker)}
    return [*sorted(beside), *sorted(listed | present)]


@dataclass(frozen=True, slots=True)
class ObservationExport:
    """An observation export checked against its marker, held for reading: the folder as
    verified (:class:`~strat_tools.io.verified.VerifiedFolder`), the name of its games
    file and of the shards it finished, in order (relative to the folder). Read each
    through :attr:`folder` (:meth:`~strat_tools.io.verified.VerifiedFolder.read` or
    :meth:`~strat_tools.io.verified.VerifiedFolder.open`); a reader that comes back to the
    folder calls :meth:`check` first. Picklable."""

    directory: Path
    folder: VerifiedFolder
    games: str
    shards: list[str]

    def check(self) -> None:
        """Raise :class:`~strat_tools.io.verified.FolderChanged` unless the folder still
        holds the export verified (the same marker; no file of :func:`export_file_names`
        changed, added or gone)."""
        self.folder.check(export_file_names(self.directory, self.folder.marker))


def observation_folder(directory: str | os.PathLike[str]) -> ObservationExport:
    """The observation export in ``directory`` checked against its marker (every file of
    :func:`export_file_names` by size and SHA-256). A shard deleted, damaged, copied over
    another or added since is refused naming the file (``OutputError``), as is a folder
    whose export did not finish, that has no marker or whose marker is another kind of
    output's; one that holds no ``observations/`` folder is not an export
    (``InputError``). Reads both layouts: the games table in ``games/`` (today's) or as
    ``games.parquet`` (older exports)."""
    root = Path(directory)
    if not (root / SHARDS).is_dir():
        raise InputError(f"{directory} holds no {SHARDS}/ folder (not an export?)")
    marker = read_marker(root)
    if marker is not None and not marker.complete:
        raise OutputError(f"an export into {directory} did not finish; run it again")
    if marker is not None and marker.output != "observations":
        raise OutputError(
            f"{directory} holds a strat-tools {marker.output} export, not observations"
        )
    folder = VerifiedFolder(root, export_file_names(root, marker))
    shards = sorted(name for name in folder.marker.files if name.startswith(f"{SHARDS}/"))
    return ObservationExport(root, folder, _games_file(folder.marker), shards)


def observation_shards(directory: str | os.PathLike[str]) -> list[Path]:
    """The shards an export finished, in order, once the folder is checked against its
    marker (:func:`observation_folder`)."""
    return [Path(directory) / name for name in observation_folder(directory).shards]


def observation_games(directory: str | os.PathLike[str]) -> pa.Table:
    """The games table of an observation export (every game read: status, rows written or
    why none), once the folder is checked as :func:`observation_folder` checks it, read
    through the very file checked; either layout."""
    export = observation_folder(directory)
    return export.folder.read(
        export.games, lambda handle: pq.read_table(handle, page_checksum_verification=True)
    )


RowSelection: TypeAlias = "pc.Expression | Iterable[str]"
"""What ``select=`` of :func:`read_observations` takes: a pyarrow compute expression over
the observation columns, or the game ids whose rows to keep."""


def read_observations(
    directory: str | os.PathLike[str],
    *,
    columns: Sequence[str] | None = None,
    select: RowSelection | None = None,
) -> pa.Table:
    """The observation rows an export wrote, as one Arrow table (for a dataset larger
    than memory, :func:`strat_tools.exports.observation_batches.observation_batches` streams it in
    batches of NumPy arrays): only ``columns`` (all by default, in the schema's order), and
    only the rows ``select`` keeps (a pyarrow compute expression, ``pc.field("ply") <= 10``,
    or the game ids to keep), shard by shard, so memory holds what is kept, not the
    export. The folder is checked against its marker first (:func:`observation_folder`): a
    shard missing, damaged or not the export's is refused, naming it; each shard is read
    through the very file checked, and one written while it is read is refused too.

    >>> read_observations("bench/test", columns=["game_id", "action"],
    ...                   select=["classic-2014.9-1"])  # doctest: +SKIP
    """
    names = list(OBSERVATIONS_SCHEMA.names) if columns is None else list(columns)
    unknown = [name for name in names if name not in OBSERVATIONS_SCHEMA.names]
    if unknown or not names:
        what = f"no column {unknown[0]!r}" if unknown else "no columns"
        raise OptionError(f"{what}; the observations have {', '.join(OBSERVATIONS_SCHEMA.names)}")
    if select is None or isinstance(select, pc.Expression):
        keep = select
    else:
        ids = [select] if isinstance(select, str) else list(select)
        keep = pc.field("game_id").isin(pa.array(ids, pa.string()))
    needed = names if keep is None else sorted(set(names) | _referenced(keep))
    schema = pa.schema([OBSERVATIONS_SCHEMA.field(name) for name in needed])
    export = observation_folder(directory)

    def one(handle: Any) -> pa.Table:
        require_columns(pq.ParquetFile(handle).schema_arrow, needed, directory)
        handle.seek(0)
        table = pq.read_table(handle, columns=needed, schema=OBSERVATIONS_SCHEMA)
        table = table.select(needed).cast(schema)
        return (table if keep is None else table.filter(keep)).select(names)

    parts = [export.folder.read(name, one) for name in export.shards]
    if not parts:
        return pa.schema([OBSERVATIONS_SCHEMA.field(name) for name in names]).empty_table()
    return pa.concat_tables(parts)


def require_columns(
    schema: pa.Schema, columns: Sequence[str], directory: str | os.PathLike[str]
) -> None:
    """Refuse (:class:`~strat_tools.core.errors.InputError`) a shard without one of
    ``columns``: an export of an older schema version (``board_view`` came with version
    3), which a reader would otherwise fill with nulls, silently."""
    missing = [name for name in columns if name not in schema.names]
    if missing:
        version = (schema.metadata or {}).get(b"version", b"?").decode()
        raise InputError(
            f"{directory} has no column {missing[0]!r}: it is an export of observations "
            f"schema version {version}, this is version {OBSERVATIONS_VERSION}; export again"
        )


def _referenced(expression: pc.Expression) -> set[str]:
    """The observation columns an expression names (read beside the columns asked for)."""
    text = str(expression)
    return {name for name in OBSERVATIONS_SCHEMA.names if name in text}
