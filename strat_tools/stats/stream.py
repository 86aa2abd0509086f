"""Statistics over inputs of any size: counted per batch in the workers, then combined.

Each batch of game files is read (and replayed, when a statistic needs moves) where the work
runs, a worker process or a Dask worker (through :func:`strat_tools.run.driver.reduce_batches`),
and counted there by the statistic's own count (:class:`~strat_tools.stats.registry.Statistic`):
a table of counts per group for counted statistics (a few hundred rows at most), the values
of each game for order statistics (medians do not add up: a few bytes a game instead of the
~10 kB of its moves). The counts are combined as they arrive, by the statistic's
``combine``, and finished once at the end, so memory stays flat however many games there are.

The result equals ``compute(name, read_games(paths))`` row for row (the tests check every
statistic): both are the finish of the count of everything.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Final

import pandas as pd

from strat_tools.io.sources import Paths
from strat_tools.run.batch_work import Select
from strat_tools.run.driver import reduce_batches
from strat_tools.run.options import RunArg
from strat_tools.stats.frames import JoinedTables, TableSet
from strat_tools.stats.registry import Statistic, get_statistic
from strat_tools.tables.dataset import empty_gameset

_FOLD_EVERY: Final = 8
"""Partial tables held before they are combined into one (bounds memory over long inputs)."""

Request = tuple[str, dict[str, Any]]
"""One statistic to compute: its name and the keyword options of :func:`compute`."""


# --- in the worker --------------------------------------------------------------------------


def reduce_requests(requests: Sequence[Request], games: TableSet) -> list[pd.DataFrame]:
    """One batch counted for every request (what a :class:`Combiner` takes); the context
    joins are made once for all of them (:class:`~strat_tools.stats.frames.JoinedTables`)."""
    joined = games if isinstance(games, JoinedTables) else JoinedTables(games)
    out = []
    for name, options in requests:
        statistic = get_statistic(name)
        out.append(statistic.count(joined, statistic.options(**options)))
    return out


# --- in the collecting process --------------------------------------------------------------


def sum_counts(
    held: pd.DataFrame | None, part: pd.DataFrame, keys: Sequence[str]
) -> pd.DataFrame | None:
    """``held`` plus ``part``: every other (count) column summed per ``keys``, in order of
    first appearance; ``held`` None is nothing yet."""
    if not len(part):
        return held
    if held is None:
        return part.reset_index(drop=True)
    both = pd.concat([held, part], ignore_index=True)
    return both.groupby(list(keys), sort=False, dropna=False).sum().reset_index()


class Combiner:
    """Combines one request's per-batch counts as they arrive (folding every
    :data:`_FOLD_EVERY` parts), and finishes them on :meth:`result`."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        self.statistic: Statistic = get_statistic(name)
        self.name = name
        self.options = options
        self.checked = self.statistic.options(**options)
        self.first: pd.DataFrame | None = None
        self.held: list[pd.DataFrame] = []

    def add(self, part: pd.DataFrame) -> None:
        """Take one batch's count."""
        if self.first is None:
            self.first = part
        if len(part):
            self.held.append(part)
        if self.statistic.additive and len(self.held) >= _FOLD_EVERY:
            self.held = [self._combined()]

    def _combined(self) -> pd.DataFrame:
        assert self.first is not None
        if len(self.held) == 1:
            return self.held[0]
        first = self.first
        combined = self.statistic.combine(self.held)
        if not self.statistic.additive:
            return combined
        # The dtypes the count gives (some keys are small ints), so the results are equal.
        return combined.astype({c: first[c].dtype for c in first.columns})

    def counts(self) -> pd.DataFrame:
        """The combined count of every part so far."""
        if self.first is None:  # no batch at all: the count of an empty set
            return self.statistic.count(empty_gameset(), self.checked)
        return self._combined() if self.held else self.first

    def result(self) -> pd.DataFrame:
        """The statistic over every part so far."""
        return self.statistic.result(self.counts(), self.checked)


def compute_streaming(
    name: str,
    paths: Paths,
    *,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
    **options: Any,
) -> pd.DataFrame:
    """The statistic ``name`` (one of :data:`~strat_tools.stats.STATISTICS`) of the game
    records under ``paths``, reduced batch by batch where they are read: memory does not
    grow with the number of games. ``options`` are :func:`~strat_tools.stats.compute`'s
    (``by``, ``variant``, ``piece``, ``feature``, ``include_classicfree``).

    Equal to ``compute(name, read_games(paths, rules=rules), **options)``.

    >>> compute_streaming("flag", ["strados2014-*.zip"], by="period")  # doctest: +SKIP
    """
    (table,) = compute_many_streaming(
        [(name, options)],
        paths,
        rules=rules,
        select=select,
        run=run,
    )
    return table


def compute_many_streaming(
    requests: Sequence[Request],
    paths: Paths,
    *,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
) -> list[pd.DataFrame]:
    """Several statistics in one pass over ``paths``: ``requests`` are (name, options) pairs
    as :func:`~strat_tools.stats.compute` takes them; one table each, in order. ``tally``,
    when given, counts the games read (and why any were unreadable).

    >>> flag, bombs = compute_many_streaming(  # doctest: +SKIP
    ...     [("placement", {"piece": "flag"}), ("placement", {"piece": "bomb"})], ["data/"])
    """
    plain = [(name, dict(options)) for name, options in requests]
    # Unknown names and bad options are errors before any work starts.
    combined = [Combiner(name, options) for name, options in plain]
    for parts in reduce_batches(
        partial(reduce_requests, plain),
        paths,
        # The batch is replayed only when a request needs moves or endings.
        setups_only=all(c.statistic.needs == "setups" for c in combined),
        rules=rules,
        select=select,
        run=run,
    ):
        for combine, part in zip(combined, parts, strict=True):
            combine.add(part)
    return [combine.result() for combine in combined]
