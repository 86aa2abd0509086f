"""Select games with a :class:`~strat_tools.run.filters.GameFilter`: read them, or write them.

Everything goes through the input driver (:mod:`strat_tools.run.driver`), which takes the
filter as its ``select`` and makes the select step of it once
(:func:`~strat_tools.run.driver.select_step`): the per-game part runs in the worker right
after a record is read (a dataset folder's batches get its ``rows``), so the games it leaves
out are never replayed and never travel back; the ``duplicates`` part needs every game and
is judged among the games the other filters keep
(:func:`~strat_tools.run.driver.kept_games`, the first pass).

- :func:`read_selected`: :func:`~strat_tools.run.driver.read_games` with a filter;
- :func:`filter_gameset`: a filter applied to a GameSet already in memory;
- :func:`select_games`: which games pass (a few columns each, setups only, no replay);
- :func:`write_selected_records`: the selected records' bytes, exactly as they are in
  their files or zip members, into a zip or a folder;
- :func:`export_selected`: the five tables of just those games.

The output of either writer is re-readable by every tool that reads Gravon records (the
tests re-validate it). This module decides nothing about which games pass: that is
:mod:`strat_tools.run.filters`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.core.errors import RunError
from strat_tools.io.sources import SourceError, Unit, UnitReader
from strat_tools.run.driver import UnitKeys, export_dataset, kept_games, read_games
from strat_tools.run.filters import GameFilter
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg
from strat_tools.tables.columns import to_frame
from strat_tools.tables.dataset import GameSet
from strat_tools.tables.dataset_writer import ExportSummary, Format

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

    @property
    def select(self) -> SelectedUnits:
        """The driver's ``select`` for just these games, by file and member."""
        return SelectedUnits(self)

    def __str__(self) -> str:
        kept = self.game_filter.describe()
        return f"{len(self.games):,} of {self.total:,} games selected ({kept})"


def filter_tables(tables: dict[str, pa.Table], select: GameFilter) -> dict[str, pa.Table]:
    """The five tables of the games ``select`` keeps (all of it, duplicates too, judged
    within these tables)."""
    if not select.active:
        return tables
    keep = select.rows(tables)
    kept = pa.array(tables["games"].column("game_id").filter(pa.array(keep)), pa.string())
    return {
        name: table.filter(pc.is_in(table.column("game_id"), value_set=kept))
        for name, table in tables.items()
    }


def filter_gameset(games: GameSet, select: GameFilter) -> GameSet:
    """The games of a GameSet that ``select`` keeps.

    >>> from strat_tools.run.driver import read_games
    >>> len(filter_gameset(read_games("data/", run=1), GameFilter.parse(winner="draw")))
    10
    """
    return GameSet(filter_tables(games.tables, select))


def read_selected(
    paths: InputsArg,
    select: GameFilter,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    run: RunArg = None,
) -> GameSet:
    """The games of ``paths`` that ``select`` keeps, as a GameSet.

    >>> len(read_selected(["data/"], GameFilter.parse(variant="duell"), run=1))
    20
    """
    return read_games(
        paths,
        setups_only=setups_only,
        rules=rules,
        select=select,
        run=run,
    )


class SelectedUnits(UnitKeys):
    """The driver's ``select`` for the games of a :class:`Selection`, by file and member
    (picklable; ``rows`` does the same for a dataset folder's games table)."""

    def __init__(self, selection: Selection) -> None:
        super().__init__((unit.source, unit.member) for unit in selection.units())


def select_games(
    paths: InputsArg,
    select: GameFilter,
    *,
    run: RunArg = None,
) -> Selection:
    """The games of ``paths`` that ``select`` keeps (read without a replay);
    ``run``'s tally counts what was read.

    >>> chosen = select_games(["data/"], GameFilter.parse(variant="duell"), run=1)
    >>> str(chosen)
    '20 of 400 games selected (duell)'
    """
    run, tally = Run.of(run).counting()
    inputs = Inputs.of(paths)
    games = to_frame(kept_games(inputs, select, KEPT_COLUMNS, run=run))
    tally.require(inputs.given, select)
    return Selection(games.reset_index(drop=True), tally.games + tally.dropped, select)


def _os_name(name: str | None) -> str | None:
    r"""A name as the file system spells it: the ``\xNN`` escapes that
    :func:`strat_tools.io.sources.printable` wrote for undecodable bytes, back as those bytes."""
    if name is None or "\\x" not in name:
        return name
    return re.sub(r"\\x([89a-f][0-9a-f])", lambda m: chr(0xDC00 + int(m[1], 16)), name)


def selected_records(
    selection: Selection, left_out: list[str] | None = None
) -> Iterator[tuple[str, bytes]]:
    """``(file name, bytes)`` of each selected record, the bytes exactly as stored. Inputs
    that were unreadable (no record to copy) are left out; a record that cannot be read
    again (changed since) is a :class:`~strat_tools.core.errors.RunError`. A name that is not
    UTF-8 is copied as ``_xNN`` for each undecodable byte (a file name holds no ``\\``)."""
    statuses = list(selection.games["status"].astype(str))
    seen: set[str] = set()
    with UnitReader() as reader:
        for unit, status in zip(selection.units(), statuses, strict=True):
            if status == "unreadable":
                continue
            name = PurePosixPath(unit.member if unit.member is not None else unit.source).name
            name = name.replace("\\", "_")  # an undecodable byte's \xNN: no "\" in a name
            if name in seen:  # the same file in two folders: one game never stops the run
                if left_out is not None:
                    left_out.append(f"{unit.label}: not copied: another game is written as {name}")
                continue
            seen.add(name)
            try:
                yield name, reader.read(unit)
            except SourceError as first:
                real = Unit(_os_name(unit.source) or unit.source, _os_name(unit.member))
                try:
                    data = reader.read(real)
                except SourceError:
                    raise RunError(f"cannot read {unit.label} again: {first}") from None
                yield name, data


def write_selected_records(
    selection: Selection, out: str, *, zip: bool | None = None, left_out: list[str] | None = None
) -> int:
    """Write the selected records byte for byte into zip ``out`` (a name ending ``.zip``)
    or folder ``out``; returns the number written. Games read from a dataset folder are
    copied from the record files they were exported from, if those are still there. A zip
    goes through :func:`strat_tools.io.output.atomic_output`; a folder must be new or empty and
    is built beside its place and renamed in (:func:`strat_tools.io.output.atomic_folder`), so
    nothing already there is replaced."""
    from strat_tools.formats.xml_writer import write_files
    from strat_tools.io.output import atomic_folder

    as_zip = out.lower().endswith(".zip") if zip is None else zip
    if as_zip:
        return write_files(selected_records(selection, left_out), out, zip=True)
    with atomic_folder(out) as building:
        return write_files(selected_records(selection, left_out), building, zip=False)


def export_selected(
    paths: Sequence[str],
    selection: Selection,
    directory: str,
    *,
    format: Format = "parquet",
    rules: str | None = "auto",
    run: RunArg = None,
    setups_only: bool = False,
) -> ExportSummary:
    """Read ``paths`` again and write the five tables of just the selected games (read,
    checked and replayed; the others are dropped before their replay)."""
    return export_dataset(
        list(paths),
        directory,
        format=format,
        rules=rules,
        run=run,
        setups_only=setups_only,
        select=selection.select,
    )
