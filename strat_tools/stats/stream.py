"""Statistics over inputs of any size: reduced per batch in the workers, then combined.

Each batch of game files is read (and replayed, when a statistic needs moves) where the work
runs, a worker process or a Dask worker, and reduced there to something small; only that
comes back, so no process ever holds more than a batch of setups or moves:

* **Counted statistics** (every setup statistic, ``scouts``, ``scout-distances``,
  ``scout-attacks``, ``scouts-left``) are tables of counts per group (``count``,
  ``setups``, ``wins``, ``moves``, ...) plus values derived from them (shares, win rates,
  Wilson intervals). Counts add up across batches, so each batch returns its table of at
  most a few hundred rows; they are summed as they arrive and the derived columns computed
  once at the end. Memory stays flat however many games there are.
* **Order statistics** (``endings``, ``lengths``, ``first-scout``) report medians and
  percentiles, which do not add up. Each batch returns just the values they are taken from
  (a game's length and ending, a side's first scout move: a few bytes a game instead of the
  ~10 kB of its moves), and the statistic is computed on those at the end.

Either way the result equals ``compute(name, read_games(paths))`` row for row (the tests
check every statistic).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Final

import pandas as pd

from strat_tools.dataset import empty_gameset
from strat_tools.driver import Paths, Select, Tally, reduce_batches
from strat_tools.pipeline import ProgressCallback
from strat_tools.stats import SETUP_STATISTICS, STATISTICS, compute
from strat_tools.stats.frames import TableSet, _by_list, game_frame
from strat_tools.stats.intervals import win_rates_of_clusters
from strat_tools.stats.play import (
    endings,
    first_scout_sides,
    first_scout_table,
    game_lengths,
)
from strat_tools.stats.setups import win_rate_clusters

ADDITIVE: Final = (
    "count",
    "setups",
    "wins",
    "enclosed",
    "moves",
    "scout_moves",
    "long_moves",
    "scout_attacks",
)
"""Columns that add up across batches of games."""
DERIVED: Final = (
    "share",
    "win_rate",
    "ci_low",
    "ci_high",
    "scout_share",
    "long_share",
    "attack_share",
)
"""Columns recomputed from the summed counts."""
ORDER_STATISTICS: Final = ("endings", "lengths", "first-scout")
"""Statistics with medians or percentiles: combined from per-game values, not summed."""
_DISTRIBUTIONS: Final = {
    "scout-distances": "distance",
    "scout-attacks": "defender",
    "scouts-left": "scouts_left",
}
"""Counted statistics whose share is within the group: the column the shares run over."""
_FOLD_EVERY: Final = 8
"""Partial tables held before they are summed into one (bounds memory over long inputs)."""

Request = tuple[str, dict[str, Any]]
"""One statistic to compute: its name and the keyword options of :func:`compute`."""


# --- in the worker --------------------------------------------------------------------------


def _order_values(name: str, games: TableSet, options: dict[str, Any]) -> pd.DataFrame:
    """The per-game (or per-side) values an order statistic is taken from."""
    by, variant = options.get("by"), options.get("variant")
    if name == "first-scout":
        return first_scout_sides(games, by, variant)
    keys = _by_list(by)
    return game_frame(games, keys, variant)[[*keys, "termination", "plies"]]


def reduce_requests(requests: Sequence[Request], games: TableSet) -> list[pd.DataFrame]:
    """One batch reduced for every request (what a :class:`Combiner` takes)."""
    return [
        _order_values(name, games, options)
        if name in ORDER_STATISTICS
        else _win_rate_part(games, options)
        if name == "win-rate"
        else compute(name, games, **options)
        for name, options in requests
    ]


def _win_rate_part(games: TableSet, options: dict[str, Any]) -> pd.DataFrame:
    """A batch's win-rate counts per setup (cluster), which add up across batches."""
    return win_rate_clusters(
        games,
        options.get("feature", "flag_back_row"),
        options.get("by"),
        options.get("variant"),
        include_classicfree=options.get("include_classicfree", False),
    )


# --- in the collecting process --------------------------------------------------------------


def _sum(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The parts' counts added up per key (every column that is not a count or derived)."""
    frame = pd.concat(parts, ignore_index=True)
    counts = [c for c in frame.columns if c in ADDITIVE]
    keys = [c for c in frame.columns if c not in ADDITIVE and c not in DERIVED]
    if not keys:
        return frame[counts].sum().to_frame().T.astype("int64")
    summed: pd.DataFrame = (
        frame.groupby(keys, sort=True, dropna=False, observed=True)[counts].sum().reset_index()
    )
    return summed


def _derive(name: str, table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Recompute ``name``'s derived columns from the summed counts, as the statistic itself
    computes them, in its column order."""
    for column in ADDITIVE:
        if column in table:
            table[column] = table[column].astype("int64")
    keys = [c for c in columns if c not in ADDITIVE and c not in DERIVED]
    if name == "scouts":
        scouts = table["scout_moves"].where(table["scout_moves"] > 0)
        table["scout_share"] = table["scout_moves"] / table["moves"]
        table["long_share"] = table["long_moves"] / scouts
        table["attack_share"] = table["scout_attacks"] / scouts
    elif name in _DISTRIBUTIONS:
        group = [k for k in keys if k != _DISTRIBUTIONS[name]]
        totals = table.groupby(group)["count"].transform("sum") if group else table["count"].sum()
        table["share"] = table["count"] / totals
        if name == "scout-attacks":
            table = table.sort_values(
                [*group, "count"], ascending=[True] * len(group) + [False], kind="stable"
            ).reset_index(drop=True)
    elif name == "flag-enclosed":
        table["share"] = table["enclosed"] / table["setups"]
    else:
        table["share"] = table["count"] / table["setups"].where(table["setups"] > 0)
    return table[list(columns)]


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
    """Combines one request's per-batch parts as they arrive: sums counted statistics
    (folding every :data:`_FOLD_EVERY` parts), keeps the values of order statistics."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        self.name = name
        self.options = options
        self.first: pd.DataFrame | None = None
        self.held: list[pd.DataFrame] = []

    def add(self, part: pd.DataFrame) -> None:
        """Take one batch's part."""
        if self.first is None:
            self.first = part
        if len(part):
            self.held.append(part)
        if self.name not in ORDER_STATISTICS and len(self.held) >= _FOLD_EVERY:
            self.held = [_sum(self.held)]

    def result(self) -> pd.DataFrame:
        """The statistic over every part so far."""
        if self.first is None:  # no batch at all: the statistic of an empty set
            return compute(self.name, empty_gameset(), **self.options)
        by = self.options.get("by")
        if self.name in ORDER_STATISTICS:
            values = pd.concat(self.held, ignore_index=True) if self.held else self.first
            if self.name == "first-scout":
                return first_scout_table(values, by)
            finish = endings if self.name == "endings" else game_lengths
            return finish(values, by)
        first = self.first
        if self.name == "win-rate":
            groups = [*_by_list(by), self.options.get("feature", "flag_back_row")]
            clusters = _sum(self.held) if self.held else first
            return win_rates_of_clusters(clusters, groups)
        if not self.held:
            return first
        keys = {c: first[c].dtype for c in first.columns if c not in ADDITIVE + DERIVED}
        table = _derive(self.name, _sum(self.held).astype(keys), list(first.columns))
        # The dtypes compute() gives (some counts come out nullable), so the results are equal.
        return table.astype({c: first[c].dtype for c in first.columns})


def compute_streaming(
    name: str,
    paths: Paths,
    *,
    rules: str | None = "auto",
    select: Select | None = None,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
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
        jobs=jobs,
        dask=dask,
        dask_address=dask_address,
        progress=progress,
    )
    return table


def compute_many_streaming(
    requests: Sequence[Request],
    paths: Paths,
    *,
    rules: str | None = "auto",
    select: Select | None = None,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
) -> list[pd.DataFrame]:
    """Several statistics in one pass over ``paths``: ``requests`` are (name, options) pairs
    as :func:`~strat_tools.stats.compute` takes them; one table each, in order. ``tally``,
    when given, counts the games read (and why any were unreadable).

    >>> flag, bombs = compute_many_streaming(  # doctest: +SKIP
    ...     [("placement", {"piece": "flag"}), ("placement", {"piece": "bomb"})], ["data/"])
    """
    for name, options in requests:
        if name not in STATISTICS:
            raise ValueError(f"unknown statistic {name!r}; choose from {', '.join(STATISTICS)}")
        _by_list(options.get("by"))  # a bad grouping is an error before any work starts
    plain = [(name, dict(options)) for name, options in requests]
    combined = [Combiner(name, options) for name, options in plain]
    for parts in reduce_batches(
        partial(reduce_requests, plain),
        paths,
        # The batch is replayed only when a request needs moves or endings.
        setups_only=all(name in SETUP_STATISTICS for name, _ in plain),
        rules=rules,
        select=select,
        jobs=jobs,
        dask=dask,
        dask_address=dask_address,
        progress=progress,
        tally=tally,
    ):
        for combine, part in zip(combined, parts, strict=True):
            combine.add(part)
    return [combine.result() for combine in combined]
