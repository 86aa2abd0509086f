"""The events table of many games: battles, losses, rescues and ends, read in parallel.

:func:`read_events` reads files, folders, globs and zips, replays every game in worker
processes (or on Dask) and returns one table with a row per event (kinds and columns are
declared in ``engine/events.py``, the table's types in :mod:`strat_tools.schemas`), with
``game_id`` first: the same table ``export`` writes as ``events``. Every input game has at least
its ``end`` row, so none is lost: an unreadable or unreplayable one says why there.

It writes nothing; ``strat-tools events`` renders the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

import pyarrow as pa

from strat_tools.engine.events import EVENT_COLUMNS, EVENT_KINDS, UNREADABLE, game_events
from strat_tools.errors import OptionError
from strat_tools.pipeline import ProgressCallback, map_batches
from strat_tools.readers import NothingReadable, read_units
from strat_tools.replay import replay_safely
from strat_tools.rules import resolve_rules
from strat_tools.schemas import EVENTS_SCHEMA, table_from_columns, to_frame
from strat_tools.sources import Paths, Unit, iter_units, path_list

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EVENTS_SCHEMA", "events_batch", "iter_events", "read_events"]


def events_batch(units: list[Unit], rules: str | None = "auto") -> pa.Table:
    """Read and replay one batch of units and return their events (runs in a worker)."""
    columns: dict[str, list[object]] = {name: [] for name in EVENTS_SCHEMA.names}
    for record in read_units(units):
        result = replay_safely(record, resolve_rules(rules, record)) if record.readable else None
        rows = game_events(result, record)
        columns["game_id"].extend([record.game_id] * len(rows["ply"]))
        for name in EVENT_COLUMNS:
            columns[name].extend(rows[name])
    return table_from_columns("events", columns)


def iter_events(
    paths: Iterable[str],
    *,
    rules: str | None = "auto",
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[pa.Table]:
    """The events of every game under ``paths``, one Arrow table per batch, in input order."""
    work = partial(events_batch, rules=rules)
    yield from map_batches(
        work,
        iter_units(list(paths)),
        jobs=jobs,
        dask=dask,
        dask_address=dask_address,
        progress=progress,
    )


def read_events(
    paths: Paths,
    *,
    rules: str | None = "auto",
    jobs: int | None = None,
    kinds: Iterable[str] | None = None,
) -> pd.DataFrame:
    """One row per event of every game under ``paths`` (``kinds``: keep only these).
    Raises :class:`~strat_tools.readers.NothingReadable` when not one input could be read.

    >>> read_events("data/", kinds=["marshal_lost"]).head()  # doctest: +SKIP
    """
    wanted = None if kinds is None else set(kinds)
    if wanted is not None and not wanted <= set(EVENT_KINDS):
        unknown = ", ".join(sorted(wanted - set(EVENT_KINDS)))
        raise OptionError(f"unknown event kind {unknown}; expected one of {', '.join(EVENT_KINDS)}")
    inputs = path_list(paths)
    parts = list(iter_events(inputs, rules=rules, jobs=jobs))
    table = pa.concat_tables(parts) if parts else EVENTS_SCHEMA.empty_table()
    frame = to_frame(table)
    ends = frame.loc[frame["kind"] == "end", "detail"].astype(str)
    if not (~ends.str.startswith(UNREADABLE)).any():  # every input unreadable, or none
        raise NothingReadable(inputs, [d.removeprefix(UNREADABLE) for d in ends[:3]])
    if wanted is not None:
        frame = frame[frame["kind"].isin(wanted)].reset_index(drop=True)
    return frame
