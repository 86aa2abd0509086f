"""Select games with a :class:`~strat_tools.filters.GameFilter`: read them, or write them.

:func:`read_selected` is :func:`~strat_tools.dataset.read_games` with a filter applied in
the worker that read each batch (only the kept games' rows travel back);
:func:`filter_gameset` applies one to a GameSet already in memory.

:func:`select_games` reads the inputs batch by batch (setups only: no replay is needed to
judge a game), keeps the games table rows of the games that pass, and applies the
``duplicates`` part once all are in (duplicates are judged among the games the other
filters keep). :func:`write_selected_records` copies the selected records' bytes, exactly
as they are in their files or zip members, into a zip or a folder;
:func:`export_selected` writes the four tables of just those games. Either way the output
is re-readable by every tool that reads Gravon records (the tests re-validate it).

This module decides nothing about which games pass: that is :mod:`strat_tools.filters`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import PurePosixPath
from typing import Final

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.dataset import (
    DatasetWriter,
    ExportSummary,
    Format,
    GameSet,
    is_dataset,
    read_dataset,
)
from strat_tools.filters import GameFilter, duplicate_mask
from strat_tools.pipeline import ProgressCallback, map_batches
from strat_tools.sources import SourceError, Unit, UnitReader, iter_units
from strat_tools.tables import GameIds, concat_tables, tables_for_units, to_frame

KEPT_COLUMNS: Final = (
    "game_id",
    "source",
    "member",
    "variant",
    "period",
    "plies",
    "status",
    "result_type",
    "winner",
    "game_fingerprint",
)
"""The games table columns a :class:`Selection` keeps of each selected game."""


@dataclass(frozen=True)
class Selection:
    """The games a filter kept (``games``: :data:`KEPT_COLUMNS`, input order) of ``total``."""

    games: pd.DataFrame
    total: int
    game_filter: GameFilter

    @property
    def game_ids(self) -> list[str]:
        """The selected games' ids."""
        return [str(i) for i in self.games["game_id"]]

    def units(self) -> list[Unit]:
        """Where each selected game's record is (file, or zip and member)."""
        members = self.games["member"].astype(object).where(self.games["member"].notna(), None)
        return [
            Unit(str(s), None if m is None else str(m))
            for s, m in zip(self.games["source"], members, strict=True)
        ]

    def __str__(self) -> str:
        return (
            f"{len(self.games):,} of {self.total:,} games selected ({self.game_filter.describe()})"
        )


def candidates_of_batch(units: list[Unit], game_filter: GameFilter) -> pa.Table:
    """One batch's games rows that pass every part of ``game_filter`` but ``duplicates``
    (top level, for :func:`~strat_tools.pipeline.map_batches`), and the batch's size as the
    table's ``total`` metadata."""
    tables = tables_for_units(units, setups_only=True)
    return _kept(tables, game_filter)


def _kept(tables: dict[str, pa.Table], game_filter: GameFilter) -> pa.Table:
    games = to_frame(tables["games"])
    setups = to_frame(tables["setups"]) if game_filter.pattern is not None else None
    keep = replace(game_filter, duplicates=None).mask(games, setups)
    table = tables["games"].select(list(KEPT_COLUMNS)).filter(pa.array(keep))
    return table.replace_schema_metadata({"total": str(len(games))})


def select_games(
    paths: Sequence[str],
    game_filter: GameFilter,
    *,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
) -> Selection:
    """The games of ``paths`` that ``game_filter`` keeps.

    >>> from strat_tools.filters import GameFilter
    >>> chosen = select_games(["data/"], GameFilter.parse(variant="duell"), jobs=1)
    >>> str(chosen)
    '20 of 400 games selected (duell)'
    """
    parts: list[pa.Table] = []
    total = 0
    ids = GameIds()
    for table in _candidate_batches(list(paths), game_filter, jobs, dask, dask_address, progress):
        total += int((table.schema.metadata or {}).get(b"total", b"0"))
        parts.append(table)
    games = _renumbered(parts, ids)
    if game_filter.duplicates is not None and len(games):
        games = games.loc[duplicate_mask(games["game_fingerprint"], game_filter.duplicates)]
    return Selection(games.reset_index(drop=True), total, game_filter)


def _candidate_batches(
    paths: list[str],
    game_filter: GameFilter,
    jobs: int | None,
    dask: bool,
    dask_address: str | None,
    progress: ProgressCallback | None,
) -> Iterator[pa.Table]:
    work = partial(candidates_of_batch, game_filter=game_filter)
    for folder, group in _runs(paths):
        if folder:
            yield _kept(read_dataset(group[0]).tables, game_filter)
            continue
        yield from map_batches(
            work, iter_units(group), jobs=jobs, dask=dask, dask_address=dask_address,
            progress=progress,
        )  # fmt: skip


def _runs(paths: Sequence[str]) -> list[tuple[bool, list[str]]]:
    """Single dataset folders and runs of record paths, in the order given."""
    runs: list[tuple[bool, list[str]]] = []
    for path in paths:
        if is_dataset(path):
            runs.append((True, [path]))
        elif runs and not runs[-1][0]:
            runs[-1][1].append(path)
        else:
            runs.append((False, [path]))
    return runs


def _renumbered(parts: list[pa.Table], ids: GameIds) -> pd.DataFrame:
    """The batches' rows as one frame, with ids made unique across batches (``NAME#2``)."""
    if not parts:
        return pd.DataFrame(columns=list(KEPT_COLUMNS))
    frames = []
    for part in parts:
        plain = part.replace_schema_metadata(None)
        frames.append(to_frame(ids.renumber({"games": plain})["games"]))
    return pd.concat(frames, ignore_index=True)


def selected_records(selection: Selection) -> Iterator[tuple[str, bytes]]:
    """``(file name, bytes)`` of each selected record, the bytes exactly as stored."""
    with UnitReader() as reader:
        for unit in selection.units():
            name = PurePosixPath(unit.member if unit.member is not None else unit.source).name
            try:
                yield name, reader.read(unit)
            except SourceError as exc:
                raise ValueError(f"cannot read {unit.label} again: {exc}") from None


def write_selected_records(selection: Selection, out: str, *, zip: bool | None = None) -> int:
    """Write the selected records byte for byte into zip ``out`` (a name ending ``.zip``)
    or folder ``out``; returns the number written. Records read from a dataset folder have
    are copied from the record files they were exported from, if those are still there."""
    from strat_tools.writer import write_files

    return write_files(selected_records(selection), out, zip=zip)


def export_selected(
    selection: Selection,
    directory: str,
    *,
    format: Format = "parquet",
    rules: str | None = "auto",
    jobs: int | None = None,
    setups_only: bool = False,
) -> ExportSummary:
    """Read, check and replay just the selected games and write their four tables."""
    started = time.perf_counter()
    ids = GameIds()
    work = partial(tables_for_units, rules=rules, setups_only=setups_only)
    with DatasetWriter(directory, format) as writer:
        for tables in map_batches(work, selection.units(), jobs=jobs):
            writer.write(ids.renumber(tables))
    return writer.summary(time.perf_counter() - started)


def filter_tables(tables: dict[str, pa.Table], game_filter: GameFilter) -> dict[str, pa.Table]:
    """The four tables of the games ``game_filter`` keeps (all of it, duplicates too, judged
    within these tables)."""
    if not game_filter.active:
        return tables
    games = to_frame(tables["games"])
    setups = to_frame(tables["setups"]) if game_filter.pattern is not None else None
    kept = pa.array(
        games["game_id"].loc[game_filter.mask(games, setups)].astype(str).tolist(), pa.string()
    )
    return {
        name: table.filter(pc.is_in(table.column("game_id"), value_set=kept))
        for name, table in tables.items()
    }


def filter_gameset(games: GameSet, game_filter: GameFilter) -> GameSet:
    """The games of a GameSet that ``game_filter`` keeps.

    >>> from strat_tools.dataset import read_games
    >>> from strat_tools.filters import GameFilter
    >>> len(filter_gameset(read_games("data/", jobs=1), GameFilter.parse(winner="draw")))
    10
    """
    return GameSet(filter_tables(games.tables, game_filter))


def _batch_tables(
    units: list[Unit], game_filter: GameFilter, rules: str | None, setups_only: bool
) -> dict[str, pa.Table]:
    """One batch read and filtered (all but duplicates): the worker's part of
    :func:`read_selected`."""
    tables = tables_for_units(units, rules=rules, setups_only=setups_only)
    return filter_tables(tables, replace(game_filter, duplicates=None))


def read_selected(
    paths: Sequence[str],
    game_filter: GameFilter,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
) -> GameSet:
    """The games of ``paths`` that ``game_filter`` keeps, as a GameSet (read in parallel;
    each worker drops the games it does not keep; duplicates are judged at the end)."""
    work = partial(_batch_tables, game_filter=game_filter, rules=rules, setups_only=setups_only)
    within = replace(game_filter, duplicates=None)
    ids = GameIds()
    parts = []
    for folder, group in _runs(paths):
        if folder:
            parts.append(ids.renumber(filter_tables(read_dataset(group[0]).tables, within)))
            continue
        for tables in map_batches(
            work, iter_units(group), jobs=jobs, dask=dask, dask_address=dask_address,
            progress=progress,
        ):  # fmt: skip
            parts.append(ids.renumber(tables))
    tables = concat_tables(parts)
    if game_filter.duplicates is not None:
        tables = filter_tables(tables, GameFilter(duplicates=game_filter.duplicates))
    return GameSet(tables)
