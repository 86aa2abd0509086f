"""The input driver's work on one batch, in the worker: read, select, build, contain.

Everything here runs where a batch of files is read (this process with ``run=1``, a pool
worker, or a Dask worker), called by :mod:`strat_tools.run.driver`, which cuts the input into
batches and collects what comes back. One batch becomes:

* :func:`tables_batch`: the five tables (``read_games``, ``export``);
* :func:`reduce_units` / :func:`reduce_tables`: a reduction of those tables (statistics,
  report, advice, heat maps), of records or of a dataset folder's batch;
* :func:`map_units`: one value per game (``validate``);
* :func:`records_batch`: whatever a :class:`RecordWork` makes of the records (``events``,
  ``observations``, ``convert``, ``view``).

Each applies ``select`` right after a record is read and counts what it read in a
:class:`~strat_tools.run.tally.Tally`. Containment: when a batch's work raises, the batch is
done again game by game, and a game the work fails on is replaced by a *stand-in*
(:func:`stand_in`: where it came from and the error, no setup, no moves) that the work
turns into its own "invalid" entry, so one bad game never stops a run and is never lost.
Only the failing batch pays for finding the game.

>>> from strat_tools.io.sources import Unit
>>> tables, tally = tables_batch([Unit("tests/fixtures/gravon/classic-2014.4-17.xml")])
>>> (tables["games"].num_rows, tally.games, tally.readable)
(1, 1, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from strat_tools.core.errors import InputError, StratToolsError
from strat_tools.core.records import GameRecord, Severity
from strat_tools.formats.readers import read_units
from strat_tools.io.sources import Unit
from strat_tools.run.tally import MAX_REASONS, Tally, failure_line

if TYPE_CHECKING:
    import pyarrow as pa

    from strat_tools.tables.dataset import GameSet
    from strat_tools.tables.game_ids import GameIds

T = TypeVar("T")
V = TypeVar("V")
R = TypeVar("R")
Tables = dict[str, "pa.Table"]
"""The five tables of a batch (:data:`~strat_tools.tables.build.TABLE_NAMES`)."""


class Select(Protocol):
    """A per-game predicate: keep ``record``? Picklable (a module-level function, a
    ``functools.partial`` or an instance of a module-level class), since it runs in the
    workers. A predicate that also has ``rows(tables) -> boolean array over tables['games']``
    applies to dataset folders too; one without refuses them (:class:`InputError`)."""

    def __call__(self, record: GameRecord, /) -> bool: ...


class RecordWork(Protocol[R]):
    """What a command makes of a batch of game records (picklable: an instance of a
    module-level class), for :func:`strat_tools.run.driver.map_records`.

    ``__call__`` runs in the worker on the batch's records (selected already) and must give
    every record an entry, valid or not; a record :func:`stand_in` made for a game it failed
    on (``failure_of(record, code)`` is its message) must become that game's invalid entry.
    ``combine`` joins the parts of one batch done game by game; ``renumber`` (in the
    collecting process) makes the game ids of a batch unique over the run. ``rules`` is
    checked once before any work; ``check`` says whether records are checked when read.
    """

    @property
    def code(self) -> str:
        """The error code of a game the work failed on (``internal.events``)."""

    @property
    def rules(self) -> str | None:
        """The rule set the work replays with (checked once, before any work)."""

    @property
    def check(self) -> bool:
        """Whether the records are checked when read."""

    def __call__(self, records: Iterable[GameRecord], /) -> R: ...

    def combine(self, parts: list[R], /) -> R: ...

    def renumber(self, ids: GameIds, result: R, /) -> R: ...


class SelectError(StratToolsError):
    """The caller's ``select=`` predicate raised on a game: the caller's error, not the
    game's (it stops the run, naming the game and the exception; a game is never made
    invalid for it)."""


def keeps(select: Select | None, record: GameRecord) -> bool:
    """Whether ``select`` keeps ``record`` (``None`` keeps every game); an exception the
    predicate raises is a :class:`SelectError` naming the game, never a game's diagnostic.

    >>> from strat_tools.core.records import GameRecord
    >>> keeps(lambda record: 1 / 0, GameRecord(source="g.zip", member="a.xml"))
    Traceback (most recent call last):
    ...
    strat_tools.run.batch_work.SelectError: the select= predicate raised ZeroDivisionError: \
division by zero on g.zip!a.xml; it is the caller's: fix it, or make it return False there
    """
    if select is None:
        return True
    try:
        return bool(select(record))
    except Exception as exc:
        where = record.source if record.member is None else f"{record.source}!{record.member}"
        raise SelectError(
            f"the select= predicate raised {type(exc).__name__}: {exc} on {where}; it is the "
            "caller's: fix it, or make it return False there"
        ) from exc


def selected(
    records: Iterable[GameRecord], select: Select | None, tally: Tally
) -> Iterator[GameRecord]:
    """The records ``select`` keeps; the others are counted as dropped."""
    for record in records:
        if keeps(select, record):
            yield record
        else:
            tally.dropped += 1


def stand_in(record: GameRecord, code: str, exc: BaseException) -> GameRecord:
    """The record standing for a game a per-game step failed on: where it came from and
    the error, nothing else (no setup, no moves), so its rows cannot fail again."""
    made = GameRecord(
        source=record.source,
        member=record.member,
        variant=record.variant if isinstance(record.variant, str) else "",
        year=record.year,
        month=record.month,
        number=record.number,
        diagnostics=list(record.diagnostics),
        readable=record.readable,
    )
    made.add(code, Severity.ERROR, f"{type(exc).__name__}: {exc}")
    return made


def failure_of(record: GameRecord, code: str) -> str | None:
    """``[code] Error: message`` when ``record`` is a :func:`stand_in` for ``code``."""
    for diagnostic in record.diagnostics:
        if diagnostic.code == code and diagnostic.severity is Severity.ERROR:
            return f"[{code}] {diagnostic.message}"
    return None


# --- the five tables -------------------------------------------------------------------------


def tables_batch(
    units: Sequence[Unit],
    *,
    rules: str | None = "auto",
    setups_only: bool = False,
    select: Select | None = None,
) -> tuple[Tables, Tally]:
    """Read, select, check and (unless ``setups_only``) replay one batch: its five tables and
    tally (top-level, so a process pool or Dask can ship it)."""
    from strat_tools.tables.build import tables_for_records

    tally = Tally()
    try:
        tables = tables_for_records(
            selected(read_units(units), select, tally), rules=rules, setups_only=setups_only
        )
    except SelectError:  # the caller's predicate: never a game's error
        raise
    except Exception:  # a per-game step failed: redo this batch game by game
        return _tables_game_by_game(units, rules, setups_only, select)
    tally.count(tables)
    return tables, tally


def _tables_game_by_game(
    units: Sequence[Unit], rules: str | None, setups_only: bool, select: Select | None
) -> tuple[Tables, Tally]:
    from strat_tools.tables.build import tables_for_records
    from strat_tools.tables.columns import concat_tables
    from strat_tools.tables.game_ids import GameIds

    tally = Tally()
    ids = GameIds()
    parts: list[Tables] = []
    for record in read_units(units):
        if not keeps(select, record):
            tally.dropped += 1
            continue
        code = "internal.rows"
        try:
            one = tables_for_records([record], rules=rules, setups_only=setups_only)
        except Exception as exc:  # one bad game must never stop a run
            tally.fail(failure_line(record, code, exc))
            one = tables_for_records([stand_in(record, code, exc)], setups_only=True)
        parts.append(ids.renumber(one))
    tables = concat_tables(parts)
    tally.count(tables)
    return tables, tally


# --- reductions and per-game values -------------------------------------------------------


def only_games(tables: Tables, keep: pa.Array | pa.ChunkedArray) -> Tables:
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


def mark_invalid(tables: Tables, failing: dict[str, str], code: str) -> Tables:
    """The batch with the ``failing`` games (id -> message) made invalid: status
    ``invalid``, one more error, an ``internal.reduce`` diagnostic, no other rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from strat_tools.tables.columns import labels_column, table_from_columns

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
        if name not in tables:
            continue
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


def reduce_contained(reduce: Callable[[GameSet], T], tables: Tables, tally: Tally) -> T:
    """``reduce`` of the batch; when it raises, the games it raises on alone are made
    invalid (``internal.reduce``) and the batch is reduced again. A failure no single game
    causes is a bug of the reduction and propagates."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from strat_tools.tables.dataset import GameSet

    try:
        return reduce(GameSet(tables))
    except Exception as first:
        games = tables["games"]
        failing: dict[str, str] = {}
        for at, game_id in enumerate(games.column("game_id").to_pylist()):
            alone = only_games(tables, pa.array([i == at for i in range(games.num_rows)]))
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
        amended = mark_invalid(tables, failing, "internal.reduce")
        try:
            return reduce(GameSet(amended))
        except Exception:  # the games row itself trips it: leave the games out entirely
            keep = pc.invert(pc.is_in(games.column("game_id"), value_set=pa.array(list(failing))))
            return reduce(GameSet(only_games(tables, keep)))


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
    return reduce_contained(reduce, tables, tally), tally


def reduce_tables(
    batch: Sequence[Tables], *, reduce: Callable[[GameSet], T], select: Select | None = None
) -> tuple[T, Tally]:
    """Reduce one batch of a dataset folder (its tables already read), in the worker."""
    (tables,) = batch
    tally = Tally()
    if select is not None:
        before = tables["games"].num_rows
        tables = only_games(tables, rows_kept(select, tables))
        tally.dropped = before - tables["games"].num_rows
    tally.count(tables)
    return reduce_contained(reduce, tables, tally), tally


def rows_kept(select: Select, tables: Tables) -> Any:
    rows = getattr(select, "rows", None)
    if rows is None:
        raise InputError(
            "this selection applies to game records only, not to an exported dataset folder"
        )
    return rows(tables)


def map_units(
    units: Sequence[Unit], *, per_game: Callable[[GameRecord], V], select: Select | None
) -> tuple[list[V], Tally]:
    tally = Tally()
    out = []
    for record in selected(read_units(units), select, tally):
        tally.count_record(record)  # readable or not, as every command counts
        out.append(per_game(record))
    return out, tally


# --- any work on records ---------------------------------------------------------------------


def records_batch(
    units: Sequence[Unit], *, work: RecordWork[R], select: Select | None = None
) -> tuple[R, Tally]:
    """Read and select one batch and run ``work`` on its records (top-level, for the pool
    or Dask); a game ``work`` raises on becomes its :func:`stand_in` (``work.code``)."""
    tally = Tally()

    def counted(records: Iterable[GameRecord]) -> Iterator[GameRecord]:
        for record in selected(records, select, tally):
            tally.count_record(record)
            yield record

    try:
        return work(counted(read_units(units, check=work.check))), tally
    except SelectError:  # the caller's predicate: never a game's error
        raise
    except Exception:  # a per-game step failed: redo this batch game by game
        return _records_game_by_game(units, work, select)


def _records_game_by_game(
    units: Sequence[Unit], work: RecordWork[R], select: Select | None
) -> tuple[R, Tally]:
    from strat_tools.tables.game_ids import GameIds

    tally = Tally()
    ids = GameIds()
    parts: list[R] = []
    for record in read_units(units, check=work.check):
        if not keeps(select, record):
            tally.dropped += 1
            continue
        code = work.code
        try:
            part = work([record])
        except Exception as exc:  # one bad game must never stop a run
            tally.fail(failure_line(record, code, exc))
            part = work([stand_in(record, code, exc)])
        tally.count_record(record)
        parts.append(work.renumber(ids, part))
    return work.combine(parts), tally
