"""The one way in: game records or exported dataset folders in, batches out.

Every command and notebook call that reads games goes through here: :func:`iter_tables`
(the five tables per batch, behind :func:`read_games` and :func:`export_dataset`),
:func:`reduce_batches` (a reduction run in the worker, behind every statistic, the report,
the advice and the heat maps), :func:`map_games` (one value per game, behind ``validate``)
and :func:`map_records` (any :class:`~strat_tools.run.batch_work.RecordWork` on a batch of
records, behind ``events``, ``observations``, ``convert`` and ``view``). The work on one
batch, in the worker, is :mod:`strat_tools.run.batch_work`; what a run read is counted in a
:class:`~strat_tools.run.tally.Tally`. They share one treatment of everything a run decides:

* **inputs**: the one place that decides which input is an exported dataset folder and
  which are game records (:func:`input_parts`), and the one expansion of the records into
  units (files and zip members). Record files, folders, globs and zips are cut into batches
  of files and read, checked and (unless ``setups_only``) replayed in the workers (process
  pool or Dask, see :mod:`strat_tools.run.pipeline`); an exported dataset folder among them
  is read back a few hundred games at a time
  (:func:`~strat_tools.tables.dataset.iter_dataset`), never whole;
* **progress**: counts record files. A progress bar that needs its total first (a
  :class:`~strat_tools.run.options.SizedProgress`) gets it from that same expansion, held
  as a list for the run; any other callback, or none, leaves the units streamed;
* **rules**: a rule-set name is checked once, when an entry point is called, before any
  work (:func:`~strat_tools.core.rules.check_rules`, raising the one usage error,
  :class:`~strat_tools.core.errors.UsageError`, which the CLI shows with exit status 2);
  the entry points return their iterators only after that check;
* **game ids**: unique over the whole run; a second game of the same name gets ``NAME#2``
  (:class:`~strat_tools.tables.build.GameIds`) in input order. Reductions see batch-unique ids;
* **batch sizes**: at most :data:`TABLE_BATCH` files when whole tables come back (they are
  big), :data:`REDUCE_BATCH` when a reduction does (it is small, and each call has a fixed
  cost, so a short input is not cut below :data:`REDUCE_MIN_BATCH` either, while every
  worker still gets a batch);
* **selection**: ``select`` is a :class:`~strat_tools.run.filters.GameFilter` or any picklable
  per-game predicate, checked when an entry point is called
  (:func:`~strat_tools.run.options.check_select`: anything else is a usage error, before
  any work); a predicate that raises stops the run with a
  :class:`~strat_tools.run.batch_work.SelectError` naming the game (the caller's error,
  never a game's diagnostic); the driver makes the select step of it once, here
  (:func:`select_step`): a filter's per-game part, or, when it judges duplicates (which
  needs every game), the games a first pass (setups only, no progress, not counted) kept,
  by file and member. That hook runs in the worker right after a record is read, before the
  replay, the rows and any reduction; the games it leaves out are counted in the
  :class:`Tally` (``dropped``), never silently lost;
* **containment**: one bad game never stops a run. The replay is contained by
  :func:`~strat_tools.engine.replays.replay.replay_safely`; here the other per-game steps are: a
  game whose table rows raise becomes one invalid games row with an ``internal.rows``
  error, and a game a reduction raises on becomes an invalid game with an
  ``internal.reduce`` error, its other rows left out, and the reduction is run again
  without it; a game a :class:`~strat_tools.run.batch_work.RecordWork` raises on becomes
  that work's invalid entry (``internal.events``, ...). Each names the file, the member and
  the exception. Only the failing batch pays for finding the game: the usual path does no
  per-game work of its own.

This module knows no statistic and draws nothing; it moves tables.

>>> from strat_tools.run.driver import Run, Tally, read_games
>>> tally = Tally()
>>> games = read_games("tests/fixtures/gravon/classic-2014.4-17.xml", run=Run(1, tally=tally))
>>> (tally.games, tally.readable, tally.dropped, tally.failed)
(1, 1, 0, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Final, NamedTuple, TypeVar, cast

from strat_tools.core.errors import NothingReadable, NothingToRead
from strat_tools.core.records import GameRecord
from strat_tools.core.rules import check_rules
from strat_tools.io.sources import Input, PathArg, Skipped, Unit, iter_units
from strat_tools.run.batch_work import (
    RecordWork,
    Select,
    Tables,
    map_units,
    only_games,
    records_batch,
    reduce_tables,
    reduce_units,
    rows_kept,
    tables_batch,
)
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg, SizedProgress, check_select
from strat_tools.run.pipeline import map_batches
from strat_tools.run.tally import Tally

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pyarrow as pa

    from strat_tools.run.filters import GameFilter
    from strat_tools.tables.dataset import GameSet
    from strat_tools.tables.dataset_writer import ExportSummary, Format

__all__ = [
    "REDUCE_BATCH",
    "REDUCE_MIN_BATCH",
    "TABLE_BATCH",
    "InputPart",
    "UnitKeys",
    "dataset_folder",
    "export_dataset",
    "input_parts",
    "iter_tables",
    "kept_games",
    "map_games",
    "map_records",
    "read_games",
    "reduce_batches",
    "select_step",
]

# pyarrow, pandas and the table modules are imported where they are used, so that
# ``validate`` (which needs none of them) starts as fast as it did before the driver.

T = TypeVar("T")
V = TypeVar("V")
R = TypeVar("R")

TABLE_BATCH: Final = 200
"""Most files per batch when the batch's tables come back whole."""
REDUCE_BATCH: Final = 1_000
"""Most files per batch when only a reduction comes back: what returns is small whatever
the batch, and each reduction has a fixed cost per call (the report runs about 25 of them),
so fewer, larger batches halve the report's time."""
REDUCE_MIN_BATCH: Final = 500
"""Fewest files per batch when a reduction comes back, unless that leaves a worker without
a batch: the report's reduction costs about 0.4 CPU-s a call whatever the batch (as much as
reading 150 games), so the 400-game sample is one batch on one worker (not eight) and two
on two; a long input is cut as before (about eight batches a worker)."""


# --- in the collecting process ---------------------------------------------------------------


class UnitKeys:
    """The select hook for a known set of games, by file and member (picklable; ``rows``
    does the same for a dataset folder's games table): what a first pass kept."""

    def __init__(self, keys: Iterable[tuple[str, str | None]]) -> None:
        self.keys = frozenset((source, member or "") for source, member in keys)

    def __call__(self, record: GameRecord) -> bool:
        return (record.source, record.member or "") in self.keys

    def rows(self, tables: Tables) -> npt.NDArray[np.bool_]:
        import numpy as np

        games = tables["games"]
        sources = games.column("source").to_pylist()
        members = games.column("member").to_pylist()
        return np.array(
            [(s, m or "") in self.keys for s, m in zip(sources, members, strict=True)],
            dtype=bool,
        )


def select_step(paths: InputsArg, select: Select | None, run: RunArg = None) -> Select | None:
    """The hook the workers run for ``select``, decided once per run: a
    :class:`~strat_tools.run.filters.GameFilter` gives its per-game part (``None`` when
    that keeps everything), or, with ``duplicates`` (judged among the games the rest
    keeps, so it needs every game), the games a first pass over ``paths`` kept
    (:func:`kept_games`; where ``run`` runs, neither reporting progress nor counting: the
    real pass does), by file and member. Any other predicate is its own hook; anything
    else is a usage error (:func:`~strat_tools.run.options.check_select`)."""
    check_select(select)
    if select is None:
        return None
    from strat_tools.run.filters import GameFilter  # pandas: only when a filter is given

    if not isinstance(select, GameFilter):
        return select
    if not select.needs_all_games:
        return select.per_game
    first = Run.of(run).with_progress(None).with_tally(None)
    kept = kept_games(paths, select, ("source", "member"), run=first)
    sources, members = kept.column("source").to_pylist(), kept.column("member").to_pylist()
    return UnitKeys(zip(sources, members, strict=True))


def kept_games(
    paths: InputsArg, select: GameFilter, columns: Sequence[str], *, run: RunArg = None
) -> pa.Table:
    """``columns`` of the games table for every game of ``paths`` that ``select``
    keeps, in input order, read without a replay: its per-game part applied in the
    workers, then ``duplicates`` among what that kept (the two-pass rule's first pass,
    and all of :func:`strat_tools.run.selection.select_games`). ``run``'s tally counts what
    was read."""
    check_select(select)
    import pandas as pd
    import pyarrow as pa

    from strat_tools.run.filters import duplicate_mask
    from strat_tools.tables.schemas import SCHEMAS

    need = list(dict.fromkeys([*columns, "game_id", "game_fingerprint"]))
    batches = iter_tables(paths, setups_only=True, select=select.per_game, run=run)
    parts = [batch["games"].select(need) for batch in batches]
    games = pa.concat_tables(parts) if parts else SCHEMAS["games"].empty_table().select(need)
    if select.shared_names and games.num_rows:  # NAME#2: now that the ids are the run's
        ids = pd.Series(games.column("game_id").to_pylist(), dtype=object)
        games = games.filter(pa.array(select.listed(ids)))
    if select.duplicates is not None and games.num_rows:
        fingerprints = pd.Series(games.column("game_fingerprint").to_pylist(), dtype=object)
        games = games.filter(pa.array(duplicate_mask(fingerprints, select.duplicates)))
    return games.select(list(columns))


class InputPart(NamedTuple):
    """One run of the inputs: an exported dataset folder (``folder``, as given), or the
    units of the record inputs between two such folders (``folder`` None)."""

    folder: str | None
    units: Iterable[Unit]
    item: Input | None = None
    """The folder as resolved (for work given it: never resolved again)."""


def input_parts(
    paths: InputsArg,
    run: RunArg = None,
    *,
    skipped: list[Skipped] | None = None,
    datasets: bool = True,
) -> list[InputPart]:
    """``paths`` as dataset folders and runs of record units, in the order given: the
    inputs' one decision "dataset folder or records" (:class:`~strat_tools.run.inputs.
    Inputs`) and the one expansion of the records (``skipped`` collects what is not a game
    file). The units stream, expanded as the work reaches them, unless ``run.progress`` is
    a :class:`SizedProgress`: then they are listed here and its ``start`` is told how many.
    ``datasets=False``: a dataset folder among the paths is refused
    (:class:`NothingToRead`), for work on game records only."""
    runs = Inputs.of(paths).parts()
    for folder, _ in runs:
        if folder is not None and not datasets:
            raise NothingToRead(
                f"{folder.given} is an exported dataset folder; this reads game records "
                "(the files, folders or zips it was exported from)"
            )
    progress = Run.of(run).progress
    sized = isinstance(progress, SizedProgress)
    parts = [
        InputPart(folder.given, (), folder)
        if folder is not None
        else InputPart(None, _units(group, skipped, listed=sized))
        for folder, group in runs
    ]
    if isinstance(progress, SizedProgress):
        progress.start(sum(len(cast(list[Unit], p.units)) for p in parts if p.folder is None))
    return parts


def dataset_folder(paths: InputsArg) -> str | None:
    """The folder, when ``paths`` are one exported dataset folder and nothing else (as
    :func:`input_parts` decides: the one decision), else ``None``; the records are not
    expanded to find out. For work a dataset folder answers faster on its own (a setup
    search from its games table, :mod:`strat_tools.stats.setup_search`).

    >>> dataset_folder(["data/"]) is None  # game records
    True
    """
    runs = Inputs.of(paths).parts()
    return runs[0][0].given if len(runs) == 1 and runs[0][0] is not None else None


def _units(
    group: tuple[Input, ...], skipped: list[Skipped] | None, *, listed: bool
) -> Iterable[Unit]:
    units = iter_units(group, skipped=skipped)
    return list(units) if listed else units


def _record_units(parts: list[InputPart]) -> Iterator[Unit]:
    """The units of ``parts`` (records only: refused datasets), in order."""
    for part in parts:
        yield from part.units


def iter_tables(
    paths: InputsArg,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
    skipped: list[Skipped] | None = None,
) -> Iterator[Tables]:
    """The five tables per batch of the games under ``paths``, in input order, game ids
    unique over the whole run. ``paths`` are record files, folders, globs, zips or exported
    dataset folders (read back in batches, never whole). ``tally`` counts what was read;
    ``skipped`` collects the entries that are not game files.

    >>> batches = iter_tables("data/", setups_only=True, run=1)  # doctest: +SKIP
    """
    check_rules(rules)
    check_select(select)
    return _iter_tables(Inputs.of(paths), setups_only, rules, select, Run.of(run), skipped)


def _iter_tables(
    inputs: Inputs,
    setups_only: bool,
    rules: str | None,
    select: Select | None,
    run: Run,
    skipped: list[Skipped] | None,
) -> Iterator[Tables]:
    from strat_tools.tables.dataset import iter_dataset
    from strat_tools.tables.game_ids import GameIds

    select = select_step(inputs, select, run)
    tally = run.tally
    ids = GameIds()
    for part in input_parts(inputs, run, skipped=skipped):
        if part.folder is not None:  # progress counts record files only
            for tables in iter_dataset(part.folder):
                if select is not None:
                    before = tables["games"].num_rows
                    tables = only_games(tables, rows_kept(select, tables))
                    if tally is not None:
                        tally.dropped += before - tables["games"].num_rows
                if tally is not None:
                    tally.count(tables)
                if run.stop is not None:  # the caller's check, after each batch
                    run.stop()
                yield ids.renumber(tables)
            continue
        work = partial(tables_batch, rules=rules, setups_only=setups_only, select=select)
        batches = map_batches(work, part.units, run=run, max_batch=TABLE_BATCH)
        for tables, batch_tally in batches:
            if tally is not None:
                tally.add(batch_tally)
            yield ids.renumber(tables)


def reduce_batches(
    reduce: Callable[[GameSet], T],
    paths: InputsArg,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
) -> Iterator[T]:
    """``reduce(batch)`` for each batch of the games under ``paths``, in input order, run
    where the batch is read; only what ``reduce`` returns crosses to this process.

    ``reduce`` must be picklable (a module-level function or a ``functools.partial`` of
    one) and should return something small: counts, a few values a game. A game it raises
    on is contained (see the module's docstring). ``progress`` counts record files only.
    When the last batch is in and not one game was readable, or the filters kept none, it
    raises what the CLI reports with exit 2 (:meth:`~strat_tools.run.tally.Tally.require`),
    so a statistic of nothing is an error, never zeros.
    """
    check_rules(rules)
    check_select(select)
    run, _ = Run.of(run).counting()
    return _reduce_batches(reduce, Inputs.of(paths), setups_only, rules, select, run)


def _reduce_batches(
    reduce: Callable[[GameSet], T],
    inputs: Inputs,
    setups_only: bool,
    rules: str | None,
    select: Select | None,
    run: Run,
) -> Iterator[T]:
    from strat_tools.tables.dataset import iter_dataset

    asked, select = select, select_step(inputs, select, run)
    for part in input_parts(inputs, run):
        batches: Iterator[tuple[T, Tally]]
        if part.folder is not None:
            on_tables = partial(reduce_tables, reduce=reduce, select=select)
            folder = folder_run(run).with_progress(None)  # progress counts record files only
            tables = iter_dataset(part.folder)
            batches = map_batches(on_tables, tables, run=folder, batch_size=1)
        else:
            work: Callable[[list[Unit]], tuple[T, Tally]] = partial(
                reduce_units, reduce=reduce, rules=rules, setups_only=setups_only, select=select
            )
            batches = map_batches(
                work, part.units, run=run, max_batch=REDUCE_BATCH, min_batch=REDUCE_MIN_BATCH
            )
        for reduced, batch_tally in batches:
            if run.tally is not None:
                run.tally.add(batch_tally)
            yield reduced
    if run.tally is not None and not run.tally.readable:
        run.tally.require(inputs.given, asked)


def folder_run(run: RunArg) -> Run:
    """``run`` for reducing an exported dataset folder's batches: in this process unless
    ``jobs`` (or Dask) was asked for. Its tables are read already; shipping each batch to a
    worker costs more than the reduction (issue 36 timed an export of the archive at 5.8 s
    with the default two workers against 2.9 s in one process), so the default is chosen
    by the work.

    >>> folder_run(Run()).jobs, folder_run(Run(jobs=4)).jobs
    (1, 4)
    """
    run = Run.of(run)
    if run.jobs is not None or run.on_dask:
        return run
    return replace(run, jobs=1)


def map_games(
    per_game: Callable[[GameRecord], V],
    paths: InputsArg,
    *,
    select: Select | None = None,
    run: RunArg = None,
    skipped: list[Skipped] | None = None,
    on_dataset: Callable[[Inputs], Iterable[V]] | None = None,
) -> Iterator[V]:
    """``per_game(record)`` for every game record under ``paths``, in input order, run in
    the workers; ``per_game`` must be picklable and contain its own failures (as
    :func:`~strat_tools.exports.validate.verdict_for` does; its caller checks the rules it
    binds, as :func:`~strat_tools.exports.validate.iter_verdicts` does). An exported dataset
    folder has no records left to judge: ``on_dataset(folder)`` (the folder as the one
    input resolved already) gives its values in its
    place (validate's recorded verdicts), and without it such a folder is refused
    (:class:`NothingToRead`)."""
    inputs = Inputs.of(paths)
    run = Run.of(run)
    parts = input_parts(inputs, run, skipped=skipped, datasets=on_dataset is not None)
    work = partial(map_units, per_game=per_game, select=select_step(inputs, select, run))
    for part in parts:
        if part.folder is not None:
            assert on_dataset is not None and part.item is not None  # else refused
            yield from on_dataset(Inputs((part.item,)))
            continue
        for values, batch_tally in map_batches(work, part.units, run=run, max_batch=TABLE_BATCH):
            if run.tally is not None:
                run.tally.add(batch_tally)
            yield from values


def map_records(
    work: RecordWork[R],
    paths: InputsArg,
    *,
    select: Select | None = None,
    run: RunArg = None,
    skipped: list[Skipped] | None = None,
    max_batch: int = TABLE_BATCH,
) -> Iterator[R]:
    """``work(records)`` for each batch of the game records under ``paths``, in input order,
    run where the batch is read (``events``, ``observations``, ``convert``, ``view``).

    The driver's treatment throughout: ``work.rules`` checked once, here, before any work;
    ``select`` applied in the worker; a game ``work`` raises on is contained (it becomes
    ``work``'s own invalid entry for a :func:`~strat_tools.run.batch_work.stand_in`, named
    in ``tally.failures``); game ids made unique over the run by ``work.renumber``;
    ``tally`` counts every game read (kept, readable, dropped by ``select``, failed). Game
    records only: an exported dataset folder is refused (:class:`NothingToRead`).
    """
    check_rules(work.rules)
    check_select(select)
    return _map_records(work, Inputs.of(paths), select, Run.of(run), skipped, max_batch)


def _map_records(
    work: RecordWork[R],
    inputs: Inputs,
    select: Select | None,
    run: Run,
    skipped: list[Skipped] | None,
    max_batch: int,
) -> Iterator[R]:
    from strat_tools.tables.game_ids import GameIds

    units = _record_units(input_parts(inputs, run, skipped=skipped, datasets=False))
    ids = GameIds()
    on_records = partial(records_batch, work=work, select=select_step(inputs, select, run))
    for result, batch_tally in map_batches(on_records, units, run=run, max_batch=max_batch):
        if run.tally is not None:
            run.tally.add(batch_tally)
        yield work.renumber(ids, result)


# --- the notebook's entry points -------------------------------------------------------------


def read_games(
    paths: InputsArg,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
) -> GameSet:
    """Read game records (files, folders, globs, zips) or an exported dataset folder.

    ``setups_only`` skips the replay (much faster; no moves table, see
    :mod:`strat_tools.tables.build`); ``rules`` names a rule set or ``'auto'``; ``select`` (a
    :class:`~strat_tools.run.filters.GameFilter`, duplicates included, or any per-game
    predicate) keeps only the games it is true for; ``run`` is the number of processes
    (``None``: every core), or a :class:`~strat_tools.run.options.Run` that says the rest too:
    Dask, progress, tally.

    Paths that hold no game record at all (a glob matching nothing, a missing folder, only
    broken files) raise :class:`~strat_tools.core.errors.NothingReadable`, and games
    read of which ``select`` kept none :class:`~strat_tools.core.errors.NothingKept`: the
    errors the CLI reports with exit status 2, never an empty set that later gives zeros.

    >>> import strat_tools as st
    >>> games = st.read_games("strados2014-*.zip")  # doctest: +SKIP
    >>> games.setups.query("piece == 'flag'").row.value_counts()  # doctest: +SKIP
    >>> try:
    ...     st.read_games("nowhere-*.zip")
    ... except NothingReadable as exc:
    ...     print(exc)
    nothing readable in nowhere-*.zip: no file matches this pattern
    """
    from strat_tools.tables.columns import concat_tables
    from strat_tools.tables.dataset import GameSet

    inputs = Inputs.of(paths)
    run, seen = Run.of(run).counting()
    parts = iter_tables(inputs, setups_only=setups_only, rules=rules, select=select, run=run)
    games = GameSet(concat_tables(parts))
    if not seen.readable:
        seen.require(inputs.given, select)
    return games


def export_dataset(
    paths: InputsArg,
    directory: PathArg,
    *,
    format: Format = "parquet",
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
    on_batch: Callable[[Tables], None] | None = None,
) -> ExportSummary:
    """Read records (or a dataset folder) and write the five tables under ``directory``.

    Streams: each batch is written as it arrives, so memory stays flat (a dataset folder is
    read back in batches too). Atomic per file.

    >>> export_dataset(["strados2014-1.zip"], "out/")  # doctest: +SKIP
    """
    from strat_tools.io.output import check_output
    from strat_tools.tables.dataset_writer import DatasetWriter

    started = time.perf_counter()
    inputs = Inputs.of(paths)
    check_output(directory, inputs.given, folder=True, create=True)
    run, seen = Run.of(run).counting()
    batches = iter_tables(inputs, setups_only=setups_only, rules=rules, select=select, run=run)
    with DatasetWriter(directory, format) as writer:
        for tables in batches:
            writer.write(tables)
            if on_batch is not None:
                on_batch(tables)
        if not seen.games:  # raised inside: nothing is put in place
            seen.require(inputs.given, select)
        if not seen.readable:
            raise NothingReadable(inputs.given, seen.reasons)
    summary = writer.summary(time.perf_counter() - started)
    summary.dropped = seen.dropped
    return summary
