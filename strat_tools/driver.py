"""The one way in: game records or exported dataset folders in, batches out.

Every command and notebook call that reads games goes through here: :func:`iter_tables`
(the four tables per batch, behind :func:`read_games` and :func:`export_dataset`),
:func:`reduce_batches` (a reduction run in the worker, behind every statistic, the report,
the advice and the heat maps) and :func:`map_games` (one value per game, behind
``validate``). They share one treatment of everything a run decides:

* **inputs**: record files, folders, globs and zips are cut into batches of files and read,
  checked and (unless ``setups_only``) replayed in the workers (process pool or Dask, see
  :mod:`strat_tools.pipeline`); an exported dataset folder among them is read back a few
  hundred games at a time (:func:`~strat_tools.dataset.iter_dataset`), never whole;
* **rules**: a rule-set name is checked once, before any work (:class:`OptionError`);
* **game ids**: unique over the whole run; a second game of the same name gets ``NAME#2``
  (:class:`~strat_tools.tables.GameIds`) in input order. Reductions see batch-unique ids;
* **batch sizes**: at most :data:`TABLE_BATCH` files when whole tables come back (they are
  big), :data:`REDUCE_BATCH` when a reduction does (it is small, and each call has a fixed
  cost);
* **selection**: ``select``, a picklable per-game predicate, runs in the worker right after
  a record is read, before the replay, the rows and any reduction; the games it leaves out
  are counted in the :class:`Tally` (``dropped``), never silently lost;
* **containment**: one bad game never stops a run. The replay is contained by
  :func:`~strat_tools.replay.replay_safely`; here the other per-game steps are: a game whose
  table rows (or ``select``) raise becomes one invalid games row with an ``internal.rows``
  (``internal.select``) error, and a game a reduction raises on becomes an invalid game
  with an ``internal.reduce`` error, its other rows left out, and the reduction is run again
  without it. Each names the file, the member and the exception. Only the failing batch
  pays for finding the game: the usual path does no per-game work of its own.

This module knows no statistic and draws nothing; it moves tables.

>>> from strat_tools.driver import Tally, read_games
>>> tally = Tally()
>>> games = read_games("tests/fixtures/gravon/classic-2014.4-17.xml", jobs=1, tally=tally)
>>> (tally.games, tally.readable, tally.dropped, tally.failed)
(1, 1, 0, 0)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from strat_tools.errors import InputError, OptionError
from strat_tools.pipeline import ProgressCallback, map_batches
from strat_tools.readers import read_units
from strat_tools.records import GameRecord, Severity
from strat_tools.sources import PathArg, Paths, Skipped, Unit, iter_units, path_list

if TYPE_CHECKING:
    import pyarrow as pa

    from strat_tools.dataset import ExportSummary, Format, GameSet

# pyarrow, pandas and the table modules are imported where they are used, so that
# ``validate`` (which needs none of them) starts as fast as it did before the driver.

T = TypeVar("T")
V = TypeVar("V")
Tables = dict[str, "pa.Table"]
"""The four tables of a batch (:data:`~strat_tools.tables.TABLE_NAMES`)."""

TABLE_BATCH: Final = 200
"""Most files per batch when the batch's tables come back whole."""
REDUCE_BATCH: Final = 1_000
"""Most files per batch when only a reduction comes back: what returns is small whatever
the batch, and each reduction has a fixed cost per call (the report runs about 25 of them),
so fewer, larger batches halve the report's time."""
MAX_REASONS: Final = 3
"""Reasons (unreadable games) and failures kept in a :class:`Tally`."""


class Select(Protocol):
    """A per-game predicate: keep ``record``? Picklable (a module-level function, a
    ``functools.partial`` or an instance of a module-level class), since it runs in the
    workers. A predicate that also has ``rows(tables) -> boolean array over tables['games']``
    applies to dataset folders too; one without refuses them (:class:`InputError`)."""

    def __call__(self, record: GameRecord, /) -> bool: ...


@dataclass(slots=True)
class Tally:
    """What a run read: games kept, how many were readable, how many ``select`` dropped,
    how many a per-game step failed on, and the first reasons of each."""

    games: int = 0
    readable: int = 0
    dropped: int = 0
    failed: int = 0
    reasons: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    synthetic: int = 0
    """Games made by ``strat-tools generate`` (never played by people)."""

    def add(self, other: Tally) -> None:
        """Add a batch's tally."""
        self.games += other.games
        self.readable += other.readable
        self.dropped += other.dropped
        self.failed += other.failed
        self.synthetic += other.synthetic
        self.reasons += [r for r in other.reasons if r not in self.reasons][
            : MAX_REASONS - len(self.reasons)
        ]
        self.failures += other.failures[: MAX_REASONS - len(self.failures)]

    def count(self, tables: Tables) -> None:
        """Count a batch's games (and the reader's reasons for the unreadable ones)."""
        import pyarrow.compute as pc

        games = tables["games"]
        n_readable = int(pc.sum(games.column("readable")).as_py() or 0)
        self.games += games.num_rows
        self.readable += n_readable
        if "synthetic" in games.column_names:
            self.synthetic += int(pc.sum(games.column("synthetic")).as_py() or 0)
        if n_readable < games.num_rows and len(self.reasons) < MAX_REASONS:
            messages = tables["diagnostics"].column("message").to_pylist()
            for reason in dict.fromkeys(messages):
                if len(self.reasons) >= MAX_REASONS:
                    break
                if reason not in self.reasons:
                    self.reasons.append(reason)


# --- in the worker ---------------------------------------------------------------------------


def _failure(record: GameRecord, code: str, exc: BaseException) -> str:
    where = record.source if record.member is None else f"{record.source}!{record.member}"
    return f"{where}: [{code}] {type(exc).__name__}: {exc}"


def _selected(
    records: Iterable[GameRecord], select: Select | None, tally: Tally
) -> Iterator[GameRecord]:
    for record in records:
        if select is None or select(record):
            yield record
        else:
            tally.dropped += 1


def _stand_in(record: GameRecord, code: str, exc: BaseException) -> GameRecord:
    """The record standing for a game a per-game step failed on: where it came from and
    the error, nothing else (no setup, no moves), so its rows cannot fail again."""
    stand_in = GameRecord(
        source=record.source,
        member=record.member,
        variant=record.variant if isinstance(record.variant, str) else "",
        year=record.year,
        month=record.month,
        number=record.number,
        diagnostics=list(record.diagnostics),
        readable=record.readable,
    )
    stand_in.add(code, Severity.ERROR, f"{type(exc).__name__}: {exc}")
    return stand_in


def tables_batch(
    units: Sequence[Unit],
    *,
    rules: str | None = "auto",
    setups_only: bool = False,
    select: Select | None = None,
) -> tuple[Tables, Tally]:
    """Read, select, check and (unless ``setups_only``) replay one batch: its four tables and
    tally (top-level, so a process pool or Dask can ship it)."""
    from strat_tools.tables import tables_for_records

    tally = Tally()
    try:
        tables = tables_for_records(
            _selected(read_units(units), select, tally), rules=rules, setups_only=setups_only
        )
    except Exception:  # a per-game step failed: redo this batch game by game
        return _tables_game_by_game(units, rules, setups_only, select)
    tally.count(tables)
    return tables, tally


def _tables_game_by_game(
    units: Sequence[Unit], rules: str | None, setups_only: bool, select: Select | None
) -> tuple[Tables, Tally]:
    from strat_tools.tables import GameIds, concat_tables, tables_for_records

    tally = Tally()
    ids = GameIds()
    parts: list[Tables] = []
    for record in read_units(units):
        code = "internal.select"
        try:
            if select is not None and not select(record):
                tally.dropped += 1
                continue
            code = "internal.rows"
            one = tables_for_records([record], rules=rules, setups_only=setups_only)
        except Exception as exc:  # one bad game must never stop a run
            tally.failed += 1
            if len(tally.failures) < MAX_REASONS:
                tally.failures.append(_failure(record, code, exc))
            one = tables_for_records([_stand_in(record, code, exc)], setups_only=True)
        parts.append(ids.renumber(one))
    tables = concat_tables(parts)
    tally.count(tables)
    return tables, tally


def _only(tables: Tables, keep: pa.Array | pa.ChunkedArray) -> Tables:
    """The batch's rows of the games whose ``keep`` (over ``tables['games']``) is true."""
    import pyarrow.compute as pc

    ids = pc.filter(tables["games"].column("game_id"), keep)
    out = {}
    for name, table in tables.items():
        out[name] = (
            table.filter(keep)
            if name == "games"
            else table.filter(pc.is_in(table.column("game_id"), value_set=ids))
        )
    return out


def _mark_invalid(tables: Tables, failing: dict[str, str], code: str) -> Tables:
    """The batch with the ``failing`` games (id -> message) made invalid: status
    ``invalid``, one more error, an ``internal.reduce`` diagnostic, no other rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from strat_tools.schemas import labels_column, table_from_columns

    games = tables["games"]
    bad = pa.array(list(failing), pa.string())
    hit = pc.is_in(games.column("game_id"), value_set=bad)
    status = labels_column("status", pc.if_else(hit, "invalid", games["status"].cast("string")))
    errors = pc.if_else(
        hit, pc.add(games.column("n_errors"), pa.scalar(1, pa.int32())), games.column("n_errors")
    )
    games = games.set_column(games.schema.get_field_index("status"), games.field("status"), status)
    games = games.set_column(
        games.schema.get_field_index("n_errors"), games.schema.field("n_errors"), errors
    )
    out = {"games": games}
    for name in ("setups", "moves", "events"):
        table = tables[name]
        out[name] = table.filter(pc.invert(pc.is_in(table.column("game_id"), value_set=bad)))
    diagnostics = tables["diagnostics"]
    added = table_from_columns(
        "diagnostics",
        {
            "game_id": list(failing),
            "code": [code] * len(failing),
            "severity": [Severity.ERROR.value] * len(failing),
            "message": list(failing.values()),
        },
    )
    out["diagnostics"] = pa.concat_tables([diagnostics, added])
    return out


def _reduce_contained(reduce: Callable[[GameSet], T], tables: Tables, tally: Tally) -> T:
    """``reduce`` of the batch; when it raises, the games it raises on alone are made
    invalid (``internal.reduce``) and the batch is reduced again. A failure no single game
    causes is a bug of the reduction and propagates."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from strat_tools.dataset import GameSet

    try:
        return reduce(GameSet(tables))
    except Exception as first:
        games = tables["games"]
        failing: dict[str, str] = {}
        for at, game_id in enumerate(games.column("game_id").to_pylist()):
            alone = _only(tables, pa.array([i == at for i in range(games.num_rows)]))
            try:
                reduce(GameSet(alone))
            except Exception as exc:
                row = games.slice(at, 1).to_pylist()[0]
                where = (
                    row["source"] if row["member"] is None else f"{row['source']}!{row['member']}"
                )
                failing[game_id] = f"{where}: [internal.reduce] {type(exc).__name__}: {exc}"
        if not failing:
            raise first
        tally.failed += len(failing)
        tally.failures += list(failing.values())[: MAX_REASONS - len(tally.failures)]
        amended = _mark_invalid(tables, failing, "internal.reduce")
        try:
            return reduce(GameSet(amended))
        except Exception:  # the games row itself trips it: leave the games out entirely
            keep = pc.invert(pc.is_in(games.column("game_id"), value_set=pa.array(list(failing))))
            return reduce(GameSet(_only(tables, keep)))


def reduce_units(
    units: Sequence[Unit],
    *,
    reduce: Callable[[GameSet], T],
    rules: str | None = "auto",
    setups_only: bool = False,
    select: Select | None = None,
) -> tuple[T, Tally]:
    """Read one batch of files and reduce it, in the worker."""
    tables, tally = tables_batch(units, rules=rules, setups_only=setups_only, select=select)
    return _reduce_contained(reduce, tables, tally), tally


def reduce_tables(
    batch: Sequence[Tables], *, reduce: Callable[[GameSet], T], select: Select | None = None
) -> tuple[T, Tally]:
    """Reduce one batch of a dataset folder (its tables already read), in the worker."""
    (tables,) = batch
    tally = Tally()
    if select is not None:
        before = tables["games"].num_rows
        tables = _only(tables, _rows_kept(select, tables))
        tally.dropped = before - tables["games"].num_rows
    tally.count(tables)
    return _reduce_contained(reduce, tables, tally), tally


def _rows_kept(select: Select, tables: Tables) -> Any:
    rows = getattr(select, "rows", None)
    if rows is None:
        raise InputError(
            "this selection applies to game records only, not to an exported dataset folder"
        )
    return rows(tables)


def _map_units(
    units: Sequence[Unit], *, per_game: Callable[[GameRecord], V], select: Select | None
) -> tuple[list[V], Tally]:
    tally = Tally()
    out = [per_game(record) for record in _selected(read_units(units), select, tally)]
    tally.games = tally.readable = len(out)
    return out, tally


# --- in the collecting process ---------------------------------------------------------------


def _is_dataset(path: str) -> bool:
    from strat_tools.dataset import is_dataset  # only for folders: a zip needs no pandas

    return is_dataset(path)


def _runs(paths: Paths) -> list[tuple[bool, list[str]]]:
    """Runs of record paths and single dataset folders, in the order given."""
    runs: list[tuple[bool, list[str]]] = []
    for path in path_list(paths):
        if os.path.isdir(path) and _is_dataset(path):
            runs.append((True, [path]))
        elif runs and not runs[-1][0]:
            runs[-1][1].append(path)
        else:
            runs.append((False, [path]))
    return runs


def _check_rules(rules: str | None, setups_only: bool) -> None:
    from strat_tools.tables import check_rules

    if setups_only:
        return
    try:
        check_rules(rules)
    except OptionError:
        raise
    except ValueError as exc:
        raise OptionError(str(exc)) from exc


def iter_tables(
    paths: Paths,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
    skipped: list[Skipped] | None = None,
) -> Iterator[Tables]:
    """The four tables per batch of the games under ``paths``, in input order, game ids
    unique over the whole run. ``paths`` are record files, folders, globs, zips or exported
    dataset folders (read back in batches, never whole). ``tally`` counts what was read;
    ``skipped`` collects the entries that are not game files.

    >>> batches = iter_tables("data/", setups_only=True, jobs=1)  # doctest: +SKIP
    """
    from strat_tools.dataset import iter_dataset
    from strat_tools.tables import GameIds

    _check_rules(rules, setups_only)
    run: dict[str, Any] = {"jobs": jobs, "dask": dask, "dask_address": dask_address}
    ids = GameIds()
    for is_folder, group in _runs(paths):
        if is_folder:
            for tables in iter_dataset(group[0]):
                if select is not None:
                    before = tables["games"].num_rows
                    tables = _only(tables, _rows_kept(select, tables))
                    if tally is not None:
                        tally.dropped += before - tables["games"].num_rows
                if tally is not None:
                    tally.count(tables)
                if progress is not None:
                    progress(tables["games"].num_rows)
                yield ids.renumber(tables)
            continue
        work = partial(tables_batch, rules=rules, setups_only=setups_only, select=select)
        for tables, batch_tally in map_batches(
            work, iter_units(group, skipped=skipped), progress=progress, max_batch=TABLE_BATCH,
            **run,
        ):  # fmt: skip
            if tally is not None:
                tally.add(batch_tally)
            yield ids.renumber(tables)


def reduce_batches(
    reduce: Callable[[GameSet], T],
    paths: Paths,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
) -> Iterator[T]:
    """``reduce(batch)`` for each batch of the games under ``paths``, in input order, run
    where the batch is read; only what ``reduce`` returns crosses to this process.

    ``reduce`` must be picklable (a module-level function or a ``functools.partial`` of
    one) and should return something small: counts, a few values a game. A game it raises
    on is contained (see the module's docstring). ``progress`` counts record files only.
    """
    from strat_tools.dataset import iter_dataset

    _check_rules(rules, setups_only)
    run: dict[str, Any] = {"jobs": jobs, "dask": dask, "dask_address": dask_address}
    for is_folder, group in _runs(paths):
        batches: Iterator[tuple[T, Tally]]
        if is_folder:
            batches = map_batches(
                partial(reduce_tables, reduce=reduce, select=select), iter_dataset(group[0]),
                batch_size=1, **run,
            )  # fmt: skip
        else:
            work: Callable[[list[Unit]], tuple[T, Tally]] = partial(
                reduce_units, reduce=reduce, rules=rules, setups_only=setups_only, select=select
            )
            batches = map_batches(
                work, iter_units(group), progress=progress, max_batch=REDUCE_BATCH,
                **run,
            )  # fmt: skip
        for reduced, batch_tally in batches:
            if tally is not None:
                tally.add(batch_tally)
            yield reduced


def map_games(
    per_game: Callable[[GameRecord], V],
    paths: Paths,
    *,
    select: Select | None = None,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
    skipped: list[Skipped] | None = None,
) -> Iterator[V]:
    """``per_game(record)`` for every game record under ``paths``, in input order, run in
    the workers; ``per_game`` must be picklable and contain its own failures (as
    :func:`~strat_tools.validate.verdict_for` does). Game records only: an exported dataset
    folder has no records left to judge (:class:`InputError`)."""
    folders = [group[0] for is_folder, group in _runs(paths) if is_folder]
    if folders:
        raise InputError(
            f"{folders[0]} is an exported dataset folder; this reads game records "
            "(the files, folders or zips it was exported from)"
        )
    work = partial(_map_units, per_game=per_game, select=select)
    for values, batch_tally in map_batches(
        work, iter_units(path_list(paths), skipped=skipped), progress=progress,
        max_batch=TABLE_BATCH, jobs=jobs, dask=dask, dask_address=dask_address,
    ):  # fmt: skip
        if tally is not None:
            tally.add(batch_tally)
        yield from values


# --- the notebook's entry points -------------------------------------------------------------


def read_games(
    paths: Paths,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
) -> GameSet:
    """Read game records (files, folders, globs, zips) or an exported dataset folder.

    ``setups_only`` skips the replay (much faster; no moves table, see
    :mod:`strat_tools.tables`); ``rules`` names a rule set or ``'auto'``; ``select`` keeps
    only the games it is true for; ``jobs`` is the number of processes (None: every core);
    ``dask``/``dask_address`` run the batches on Dask.

    >>> import strat_tools as st
    >>> games = st.read_games("strados2014-*.zip")  # doctest: +SKIP
    >>> games.setups.query("piece == 'flag'").row.value_counts()  # doctest: +SKIP
    """
    from strat_tools.dataset import GameSet
    from strat_tools.tables import concat_tables

    parts = iter_tables(
        paths,
        setups_only=setups_only,
        rules=rules,
        select=select,
        jobs=jobs,
        dask=dask,
        dask_address=dask_address,
        progress=progress,
        tally=tally,
    )
    return GameSet(concat_tables(parts))


def export_dataset(
    paths: Paths,
    directory: PathArg,
    *,
    format: Format = "parquet",
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    on_batch: Callable[[Tables], None] | None = None,
    tally: Tally | None = None,
) -> ExportSummary:
    """Read records (or a dataset folder) and write the four tables under ``directory``.

    Streams: each batch is written as it arrives, so memory stays flat (a dataset folder is
    read back in batches too). Atomic per file.

    >>> export_dataset(["strados2014-1.zip"], "out/")  # doctest: +SKIP
    """
    from strat_tools.dataset import DatasetWriter
    from strat_tools.output import refuse_overlap
    from strat_tools.sources import path_list

    started = time.perf_counter()
    refuse_overlap(path_list(paths), directory)
    seen = tally if tally is not None else Tally()
    with DatasetWriter(directory, format) as writer:
        for tables in iter_tables(
            paths,
            setups_only=setups_only,
            rules=rules,
            select=select,
            jobs=jobs,
            dask=dask,
            dask_address=dask_address,
            progress=progress,
            tally=seen,
        ):
            writer.write(tables)
            if on_batch is not None:
                on_batch(tables)
    summary = writer.summary(time.perf_counter() - started)
    summary.dropped = seen.dropped
    return summary
