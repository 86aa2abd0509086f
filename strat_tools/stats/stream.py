"""Setup statistics over inputs of any size: counted per batch in the workers, then summed.

Every setup statistic is a table of counts (``count``, ``setups``, ``wins``, ``enclosed``)
per group plus values derived from them (``share``, ``win_rate`` and its Wilson interval).
Counts add up across batches of games, so :func:`compute_streaming` runs
:func:`~strat_tools.stats.compute` on each batch of game files where it is read (a worker
process or a Dask worker), gets back a table of at most a few hundred rows, sums those as
they arrive and derives the shares once at the end. No process ever holds more than a batch
of setups, so memory stays flat however many games there are, and the result equals
``compute(name, read_games(paths, setups_only=True))`` row for row (the tests check it).

The game and move statistics (lengths, endings, scouts) report medians and percentiles,
which do not add up; they read their input whole (:func:`~strat_tools.dataset.read_games`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

import pandas as pd

from strat_tools.dataset import GameSet, Paths, _path_list, empty_gameset
from strat_tools.pipeline import ProgressCallback, map_batches
from strat_tools.sources import Unit, iter_units
from strat_tools.stats import SETUP_STATISTICS, compute
from strat_tools.stats.frames import By, _by_list, wilson_interval
from strat_tools.tables import tables_for_units

ADDITIVE: Final = ("count", "setups", "wins", "enclosed")
"""Columns that add up across batches of games."""
DERIVED: Final = ("share", "win_rate", "ci_low", "ci_high")
"""Columns recomputed from the summed counts."""
_FOLD_EVERY: Final = 64
"""Partial tables held before they are summed into one (bounds memory over long inputs)."""


Request = tuple[str, dict[str, Any]]
"""One statistic to count: its name and the keyword options of :func:`compute`."""


@dataclass(slots=True)
class Tally:
    """What a streamed count read: games, how many were readable, and the first reasons
    (reader diagnostics) of games that were not."""

    games: int = 0
    readable: int = 0
    reasons: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add a batch's tally."""
        self.games += other.games
        self.readable += other.readable
        self.reasons += [r for r in other.reasons if r not in self.reasons][: 3 - len(self.reasons)]


def _partial(
    units: Sequence[Unit], requests: Sequence[Request]
) -> tuple[list[pd.DataFrame], Tally]:
    """One batch's statistics and tally (top-level, so a process pool or Dask can ship it)."""
    tables = tables_for_units(units, rules="auto", setups_only=True)
    games = GameSet(tables)
    readable = tables["games"].column("readable").to_pylist()
    tally = Tally(len(readable), sum(readable))
    if tally.readable < tally.games:
        messages = tables["diagnostics"].column("message").to_pylist()
        tally.reasons = list(dict.fromkeys(messages))[:3]
    return [compute(name, games, **options) for name, options in requests], tally


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


def _derive(table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Recompute the derived columns from the summed counts, in the original column order."""
    for name in ADDITIVE:
        if name in table:
            table[name] = table[name].astype("int64")
    if "wins" in table:
        table["win_rate"] = table["wins"] / table["setups"]
        bounds = [
            wilson_interval(int(k), int(n))
            for k, n in zip(table["wins"], table["setups"], strict=True)
        ]
        table["ci_low"] = [low for low, _ in bounds]
        table["ci_high"] = [high for _, high in bounds]
    elif "share" in columns:
        part = table["enclosed"] if "enclosed" in table else table["count"]
        table["share"] = part / table["setups"].where(table["setups"] > 0)
    return table[list(columns)]


class _Fold:
    """Sums one statistic's per-batch tables as they arrive (at most :data:`_FOLD_EVERY`
    held at a time)."""

    def __init__(self) -> None:
        self.first: pd.DataFrame | None = None
        self.held: list[pd.DataFrame] = []

    def add(self, part: pd.DataFrame) -> None:
        if self.first is None:
            self.first = part
        if len(part):
            self.held.append(part)
        if len(self.held) >= _FOLD_EVERY:
            self.held = [_sum(self.held)]

    def result(self) -> pd.DataFrame:
        first = self.first
        if first is None:
            raise ValueError("no batches to merge")
        if not self.held:
            return first
        keys = {c: first[c].dtype for c in first.columns if c not in ADDITIVE + DERIVED}
        table = _derive(_sum(self.held).astype(keys), list(first.columns))
        # The dtypes compute() gives (some counts come out nullable), so the results are equal.
        return table.astype({c: first[c].dtype for c in first.columns})


def merge_partials(parts: Iterable[pd.DataFrame]) -> pd.DataFrame | None:
    """Sum per-batch tables of one setup statistic and derive shares and win rates again;
    None when there are no parts at all."""
    fold = _Fold()
    for part in parts:
        fold.add(part)
    return fold.result() if fold.first is not None else None


def compute_streaming(
    name: str,
    paths: Paths,
    *,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    piece: str = "flag",
    feature: str = "flag_back_row",
    include_classicfree: bool = False,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
) -> pd.DataFrame:
    """A setup statistic (one of :data:`~strat_tools.stats.SETUP_STATISTICS`) of the game
    records under ``paths``, counted batch by batch: flat memory for any number of games.

    Equal to ``compute(name, read_games(paths, setups_only=True), ...)``.

    >>> compute_streaming("flag", ["strados2014-*.zip"], by="period")  # doctest: +SKIP
    """
    options: dict[str, Any] = {
        "by": by,
        "variant": variant,
        "piece": piece,
        "feature": feature,
        "include_classicfree": include_classicfree,
    }
    (table,) = compute_many_streaming(
        [(name, options)],
        paths,
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
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
) -> list[pd.DataFrame]:
    """Several setup statistics in one pass over ``paths``: ``requests`` are (name, options)
    pairs as :func:`~strat_tools.stats.compute` takes them; one table each, in order.
    ``tally``, when given, counts the games read (and why any were unreadable).

    >>> flag, bombs = compute_many_streaming(  # doctest: +SKIP
    ...     [("placement", {"piece": "flag"}), ("placement", {"piece": "bomb"})], ["data/"])
    """
    for name, options in requests:
        if name not in SETUP_STATISTICS:
            raise ValueError(
                f"{name!r} cannot be counted batch by batch; the setup statistics can: "
                f"{', '.join(SETUP_STATISTICS)}"
            )
        _by_list(options.get("by"))  # a bad grouping is an error before any work starts
    plain = [(name, dict(options)) for name, options in requests]
    work: Callable[[list[Unit]], tuple[list[pd.DataFrame], Tally]] = partial(
        _partial, requests=plain
    )
    batches = map_batches(
        work,
        iter_units(_path_list(paths)),
        jobs=jobs,
        dask=dask,
        dask_address=dask_address,
        progress=progress,
    )
    folds = [_Fold() for _ in requests]
    for tables, batch_tally in batches:
        for fold, table in zip(folds, tables, strict=True):
            fold.add(table)
        if tally is not None:
            tally.add(batch_tally)
    empty = empty_gameset()
    return [
        fold.result() if fold.first is not None else compute(name, empty, **options)
        for fold, (name, options) in zip(folds, plain, strict=True)
    ]
