"""The statistics by name: one :class:`Statistic` object each, in the file that counts it.

A statistic says three things: how to **count** a batch of games (a small table), how to
**combine** the counts of several batches, and how to **finish** the combined counts into the
table a user reads. The in-memory result is the finish of the count of everything
(:meth:`Statistic.compute`); the streaming path (:mod:`strat_tools.stats.stream`) counts each
batch where it is read and finishes once. Two kinds cover every statistic so far:

* counted (``additive`` names the count columns): every other column of the count is a key,
  and batches combine by summing the counts per key; derived columns (shares, rates,
  intervals) are computed in ``finish`` from :mod:`strat_tools.stats.formulas`. A count may
  carry extra key columns its finish collapses (a cluster key for a clustered interval);
* ordered (``additive`` empty): the count is one row of values per game or side, batches
  combine by concatenation, and ``finish`` takes medians or percentiles.

:data:`STATISTICS` is the one registry: the CLI's ``--stat`` choices and help, the report's
extra sections and the notebook all read it. Adding a statistic is one :func:`register` call
next to its count and finish functions (see ``docs/architecture.md``).

>>> "flag" in STATISTICS and STATISTICS["flag"].needs
'setups'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import pandas as pd

from strat_tools.core.choices import GROUPINGS
from strat_tools.core.errors import OptionError
from strat_tools.core.records import ALL_VARIANTS, DEFAULT_VARIANT
from strat_tools.stats.frames import TableSet, by_list, scope_variants

Needs = Literal["setups", "games", "moves"]
"""What a statistic reads: setups only (no replay needed), the games table, or the moves."""


@dataclass(frozen=True, slots=True)
class Options:
    """The options of a statistic, checked once: grouping, variants, piece, feature.

    Variants never pool unless ``pool_variants``: :meth:`of` makes ``variant`` a key of
    every table (first), and with no variant named counts
    :data:`~strat_tools.core.records.DEFAULT_VARIANT` alone (every variant when grouped ``by``
    variant or named ``'all'``: one group each). Pooled, the table's ``variant`` column
    names what was pooled (:attr:`scope`).

    >>> o = Options.of({"by": "period"})
    >>> o.by, o.variant
    (('variant', 'period'), 'classic')
    >>> Options.of({"variant": ["barrage", "duell"], "pool_variants": True}).scope
    'barrage+duell'
    """

    by: tuple[str, ...] = ()
    variant: str | tuple[str, ...] | None = None
    piece: str = "flag"
    feature: str = "flag_back_row"
    include_classicfree: bool = False
    pool_variants: bool = False

    @classmethod
    def of(cls, options: dict[str, Any]) -> Options:
        """Options from keyword arguments (``by`` a name or a list; unknown keys refused),
        the variant scope resolved (see the class)."""
        unknown = set(options) - set(cls.__slots__)
        if unknown:
            raise OptionError(
                f"unknown statistic option {sorted(unknown)[0]!r}; "
                f"choose from {', '.join(cls.__slots__)}"
            )
        by = tuple(by_list(options.get("by")))
        variant = options.get("variant")
        if variant is not None and not isinstance(variant, str):
            variant = tuple(variant) if len(variant) != 1 else variant[0]
        pool = bool(options.get("pool_variants", False))
        if pool:
            variant = ALL_VARIANTS if variant is None else variant
        else:
            if variant is None and "variant" not in by:
                variant = DEFAULT_VARIANT
            if "variant" not in by:
                by = ("variant", *by)
        return cls(
            by=by,
            variant=variant,
            piece=options.get("piece", "flag"),
            feature=options.get("feature", "flag_back_row"),
            include_classicfree=bool(options.get("include_classicfree", False)),
            pool_variants=pool,
        )

    @property
    def scope(self) -> str:
        """The variants counted, as a table's ``variant`` cell: ``classic``,
        ``barrage+duell``, or ``all`` (every variant of the input; classicfree only for
        statistics of games and moves, or with ``include_classicfree``)."""
        names = scope_variants(self.variant, self.by)
        return ALL_VARIANTS if names is None else "+".join(names)

    @property
    def setup_options(self) -> dict[str, Any]:
        """The keyword options a setup-table filter takes."""
        return {"include_classicfree": self.include_classicfree}


Count = Callable[[TableSet, Options], pd.DataFrame]
Finish = Callable[[pd.DataFrame, Options], pd.DataFrame]


@dataclass(frozen=True)
class Statistic:
    """One statistic: its name and help, how to count a batch, how to finish the counts.

    ``additive`` are the count columns summed per key when batches combine (empty: an order
    statistic, whose rows are concatenated). ``uses`` names the options beyond ``by`` and
    ``variant`` it reads (``piece``, ``feature``); ``report`` (a section title) asks the
    report for a table section of it by variant, when no dedicated section shows it.
    """

    name: str
    help: str
    count: Count
    finish: Finish
    needs: Needs = "setups"
    additive: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    groupings: tuple[str, ...] = GROUPINGS
    report: str | None = None
    keys_of: Callable[[pd.DataFrame], list[str]] | None = field(default=None, repr=False)

    def options(self, **options: Any) -> Options:
        """Check ``options`` for this statistic."""
        checked = Options.of(options)
        bad = [name for name in checked.by if name not in self.groupings]
        if bad:
            raise OptionError(
                f"{self.name} cannot be grouped by {bad[0]!r}; "
                f"choose from {', '.join(self.groupings)}"
            )
        return checked

    def compute(self, data: TableSet, **options: Any) -> pd.DataFrame:
        """The statistic of ``data`` (a GameSet): the finish of the count of everything."""
        checked = self.options(**options)
        return self.result(self.count(data, checked), checked)

    def result(self, counts: pd.DataFrame, options: Options) -> pd.DataFrame:
        """The finished table of ``counts``; pooled variants named in its first column."""
        table = self.finish(counts, options)
        if options.pool_variants and "variant" not in table:
            table.insert(0, "variant", options.scope)
        return table

    def combine(self, parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
        """Several batches' counts as one count (sum per key, or concatenation)."""
        frame = pd.concat(list(parts), ignore_index=True)
        if not self.additive:
            return frame
        keys = [c for c in frame.columns if c not in self.additive]
        if not keys:
            return frame[list(self.additive)].sum().to_frame().T.astype("int64")
        summed: pd.DataFrame = (
            frame.groupby(keys, sort=True, dropna=False, observed=True)[list(self.additive)]
            .sum()
            .reset_index()
        )
        return summed[list(frame.columns)]


STATISTICS: Final[dict[str, Statistic]] = {}
"""Every statistic by name, in the order registered (the CLI lists them in this order)."""


def register(statistic: Statistic) -> Statistic:
    """Add ``statistic`` to :data:`STATISTICS` (a name taken twice is an error) and return
    it, so a module can write ``FLAG = register(Statistic(...))``."""
    if statistic.name in STATISTICS and STATISTICS[statistic.name] is not statistic:
        raise OptionError(f"a statistic named {statistic.name!r} is registered already")
    STATISTICS[statistic.name] = statistic
    return statistic


def unregister(name: str) -> None:
    """Remove a statistic (tests and notebooks that added one for a while)."""
    STATISTICS.pop(name, None)


def get_statistic(name: str) -> Statistic:
    """The statistic ``name``, or :class:`OptionError` naming the choices."""
    try:
        return STATISTICS[name]
    except KeyError:
        raise OptionError(
            f"unknown statistic {name!r}; choose from {', '.join(STATISTICS)}"
        ) from None
