"""The events table of many games: battles, losses, rescues and ends, read in parallel.

:func:`read_events` reads files, folders, globs and zips through the input driver
(:func:`strat_tools.run.driver.map_records`: rules checked once, game ids unique over the run,
the pool or Dask, one bad game contained), replays every game in the workers and returns
one table with a row per event (kinds and columns are declared in ``engine/events/key_events.py``,
the table's types in :mod:`strat_tools.tables.schemas`: the same table ``export`` writes as
``events``), with ``game_id`` first. A :class:`~strat_tools.run.filters.GameFilter` chooses the
games.

Nothing is lost: every game read gets at least its ``end`` row, also one that could not be
read (``unreadable: ...``), replayed, or that the events step itself failed on
(``not replayed: [internal.events] ...``); the games a filter leaves out have no rows and
are counted in the :class:`~strat_tools.run.tally.Tally` (``dropped``), as ``validate`` and
``export`` count them.

It writes nothing; ``strat-tools events`` renders the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.core.errors import OptionError
from strat_tools.core.records import GameRecord
from strat_tools.core.rules import resolve_rules
from strat_tools.engine.events.event_kinds import EVENT_KINDS
from strat_tools.engine.events.key_events import EventBatch
from strat_tools.engine.replays.replay import replay_safely
from strat_tools.io.sources import Unit
from strat_tools.run.batch_work import RecordWork, failure_of, records_batch
from strat_tools.run.driver import map_records
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg
from strat_tools.tables.columns import events_table, to_frame
from strat_tools.tables.schemas import EVENTS_SCHEMA

if TYPE_CHECKING:
    import pandas as pd

    from strat_tools.run.filters import GameFilter
    from strat_tools.tables.game_ids import GameIds

__all__ = [
    "EventsWork",
    "events_batch",
    "events_frame",
    "iter_events",
    "read_events",
]


@dataclass(frozen=True, slots=True)
class EventsWork:
    """The events of a batch of records (a :class:`~strat_tools.run.batch_work.RecordWork`)."""

    rules: str | None = "auto"
    code: str = "internal.events"
    check: bool = True

    def __call__(self, records: Iterable[GameRecord]) -> pa.Table:
        from strat_tools.tables.game_ids import GameIds

        ids = GameIds()
        batch = EventBatch()
        names: list[str] = []
        for record in records:
            names.append(ids.claim(record.game_id))
            self.add_game(batch, record)
        return events_table(pa.array(names, pa.string()), batch.codes())

    def add_game(self, batch: EventBatch, record: GameRecord) -> None:
        """Replay one game into ``batch``; a stand-in's ``end`` row says why it has no others."""
        failure = failure_of(record, self.code)
        if failure is not None:
            batch.add(None, record, end=f"not replayed: {failure}")
            return
        result = (
            replay_safely(record, resolve_rules(self.rules, record)) if record.readable else None
        )
        batch.add(result, record)

    def combine(self, parts: list[pa.Table]) -> pa.Table:
        return pa.concat_tables(parts) if parts else EVENTS_SCHEMA.empty_table()

    def renumber(self, ids: GameIds, table: pa.Table) -> pa.Table:
        games = pa.table({"game_id": pc.unique(table.column("game_id"))})
        return ids.renumber({"games": games, "events": table})["events"]


def events_batch(units: list[Unit], rules: str | None = "auto") -> pa.Table:
    """Read and replay one batch of units and return their events (as in a worker)."""
    return records_batch(units, work=EventsWork(rules))[0]


def iter_events(
    paths: InputsArg,
    *,
    rules: str | None = "auto",
    kinds: Iterable[str] | None = None,
    select: GameFilter | None = None,
    run: RunArg = None,
    work: RecordWork[pa.Table] | None = None,
) -> Iterator[pa.Table]:
    """The events of every game under ``paths`` that ``select`` keeps (``kinds``:
    only these), one Arrow table per batch, in input order: memory stays flat however
    many games. ``work`` makes each batch's table instead of ``EventsWork(rules)``: one
    that adds columns to it (the benchmark's ``ModelEventsWork``, ``events --with-model``).
    Nothing is yielded before a game could be read, so when not one input can
    be (and no filter left any out) :class:`~strat_tools.core.errors.NothingReadable` is raised
    with nothing given out."""
    wanted = _kinds(kinds)
    inputs = Inputs.of(paths)
    run, seen = Run.of(run).counting()
    held: list[pa.Table] = []
    work = EventsWork(rules) if work is None else work
    for table in map_records(work, inputs, select=select, run=run):
        if wanted is not None:
            table = table.filter(pc.is_in(table.column("kind").cast(pa.string()), value_set=wanted))
        held.append(table)
        if seen.readable or (seen.dropped and seen.games):
            yield from held
            held.clear()
    seen.require(inputs.given, select)  # every input unreadable, or none, or none kept


def _kinds(kinds: Iterable[str] | None) -> pa.Array | None:
    if kinds is None:
        return None
    wanted = set(kinds)
    if not wanted <= set(EVENT_KINDS):
        unknown = ", ".join(sorted(wanted - set(EVENT_KINDS)))
        raise OptionError(f"unknown event kind {unknown}; expected one of {', '.join(EVENT_KINDS)}")
    return pa.array(sorted(wanted), pa.string())


def read_events(
    paths: InputsArg,
    *,
    rules: str | None = "auto",
    run: RunArg = None,
    kinds: Iterable[str] | None = None,
    select: GameFilter | None = None,
) -> pd.DataFrame:
    """One row per event of every game under ``paths`` that ``select`` keeps
    (``kinds``: keep only these), as one DataFrame (:func:`iter_events` streams). Raises
    :class:`~strat_tools.core.errors.NothingReadable` when not one input could be read (and no
    filter left any out).

    >>> from strat_tools.run.filters import GameFilter
    >>> duell = GameFilter.parse(variant="duell")
    >>> ends = read_events("data/", run=1, kinds=["end"], select=duell)
    >>> len(ends), bool(ends["game_id"].str.startswith("duell").all())
    (20, True)
    """
    events = iter_events(paths, rules=rules, kinds=kinds, select=select, run=run)
    parts = list(events)
    return events_frame(pa.concat_tables(parts) if parts else EVENTS_SCHEMA.empty_table())


def events_frame(table: pa.Table) -> pd.DataFrame:
    """An events table as a DataFrame (``kind`` as text)."""
    frame: pd.DataFrame = to_frame(table)
    return frame
