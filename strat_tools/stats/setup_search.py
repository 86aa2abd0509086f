"""Setup questions answered from an exported folder's games table, at the speed of a query.

An export's ``games`` table carries each side's setup as a 40-letter string
(``red_setup``/``blue_setup``, :data:`strat_tools.setups.identity.SETUP_STRING_COLUMNS`). A
setup search, a most-played-setups table or a pattern filter needs nothing else: this
module reads that one Parquet file (checked against the export's marker), applies the game
filter to its rows, and turns the strings into ``[n, 40]`` setup codes with one NumPy
subtraction (:func:`strat_tools.setups.identity.codes_of_strings`); the pattern is then matched
over whole arrays. No record is read again, no setups table is touched, no worker starts.

- :func:`folder_outcomes`: the :class:`~strat_tools.stats.repeats.SetupOutcomes` of a
  dataset folder's games table (the driver decides what is one,
  :func:`~strat_tools.run.driver.dataset_folder`), or ``None`` when the table alone cannot
  answer (an older export, CSV, Parquet parts; classicfree setups, which have no 40-letter
  string);
- :func:`read_outcomes`: the same for any paths: from the table when it can, else by
  reading the records a batch at a time (:func:`strat_tools.run.driver.iter_tables`), each
  batch's tables turned into its setups' codes and context at once and dropped, so memory
  holds a few hundred bytes a setup, never a game's tables. The answer is the same either
  way (the tests compare them on the sample and on an archive month).
- :func:`reduce_setups`: what a question keeps of those setups, reduced a batch at a time
  and joined: ``setups`` a tally per distinct setup (:func:`read_tally`), ``search`` its
  counts per distinct setup, the explorer the rows its page carries; never every setup's
  row.

Imports stay light (pandas, pyarrow, NumPy): ``search`` and ``setups`` on a folder start
no plotting library and no replay engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, TypeVar

from strat_tools.core.errors import NothingKept
from strat_tools.core.records import DEFAULT_VARIANT
from strat_tools.run.driver import dataset_folder
from strat_tools.run.filters import GameFilter
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.setups.identity import SETUP_STRING_COLUMNS
from strat_tools.stats.repeats import SetupOutcomes, Variant, string_outcomes
from strat_tools.tables.columns import to_frame
from strat_tools.tables.dataset import read_games_table

if TYPE_CHECKING:
    import pandas as pd

    from strat_tools.run.options import RunArg

T = TypeVar("T")

FOLDER_COLUMNS: Final = (
    *("game_id", "variant", "status", "winner", "draw", "period"),
    *("has_setup", *SETUP_STRING_COLUMNS, "plies", "result_type"),
)
"""The games table's columns a setup question reads (the setups' context, their strings
and what the game filters look at; ``game_fingerprint`` too for ``--duplicates``): a
third of the file."""


def folder_outcomes(
    path: str, select: GameFilter | None = None, variant: Variant = DEFAULT_VARIANT
) -> SetupOutcomes | None:
    """Every setup of ``variant`` in dataset folder ``path`` (a folder the driver took for
    one, :func:`~strat_tools.run.driver.dataset_folder`) whose game ``select`` keeps,
    from its games table alone; ``None`` when that table cannot answer alone (or ``path``
    has no export's marker).

    >>> import tempfile
    >>> from strat_tools.run.driver import export_dataset
    >>> out = tempfile.mkdtemp() + "/out"
    >>> _ = export_dataset(["data/"], out, setups_only=True, run=1)
    >>> len(folder_outcomes(out, GameFilter.parse(period="2026-10:")))
    606
    """
    chosen = select if select is not None else GameFilter()
    columns = FOLDER_COLUMNS + (("game_fingerprint",) if chosen.duplicates else ())
    table = read_games_table(path, columns)
    if table is None:
        return None
    games = to_frame(table)
    if not GameFilter.strings_suffice(games.loc[_variant_rows(games, variant)]):
        return None
    if chosen.active:
        # The pattern through the strings of every row: the variant's all have one (checked
        # above); a game of another variant (classicfree) is left out below anyway.
        keep = replace(chosen, pattern=None).mask(games)
        if chosen.pattern is not None:
            keep &= chosen.string_hits(games)
        if len(games) and not keep.any():  # as a read of the records says it
            raise NothingKept([path], len(games), chosen.describe())
        games = games.loc[keep].reset_index(drop=True)
    return string_outcomes(games, variant)


def _variant_rows(games: Any, variant: Variant) -> Any:
    """The rows of ``games`` a setup statistic of ``variant`` looks at."""
    names = games["variant"].astype(str)
    if variant is None:
        return (names != "classicfree").to_numpy(dtype=bool)
    wanted = [variant] if isinstance(variant, str) else list(variant)
    return names.isin(wanted).to_numpy(dtype=bool)


def read_outcomes(
    paths: InputsArg,
    select: GameFilter | None = None,
    variant: Variant = DEFAULT_VARIANT,
    *,
    run: RunArg = None,
    from_table: bool = True,
) -> SetupOutcomes:
    """The setups of ``paths`` that a setup statistic of ``variant`` looks at: from a
    single dataset folder's games table when it can answer alone, else read from the
    records (``run`` as for
    :func:`~strat_tools.run.driver.read_games`; ``from_table=False``: always from the
    records, for a caller that tried :func:`folder_outcomes` already). Every setup's row
    is kept: a question that needs less asks :func:`reduce_setups`.

    >>> len(read_outcomes(["data/"], run=1))
    606
    """
    from strat_tools.stats.repeats import concat_outcomes

    def add(parts: Sequence[SetupOutcomes]) -> SetupOutcomes:
        return concat_outcomes(parts, variant)

    return reduce_setups(paths, _same, add, select, variant, run=run, from_table=from_table)


def _same(outcomes: SetupOutcomes) -> SetupOutcomes:
    return outcomes


def _batch_outcomes(
    paths: InputsArg, chosen: GameFilter, variant: Variant, run: RunArg
) -> Iterator[SetupOutcomes]:
    """The setups of each batch of the records under ``paths``, in order, game ids unique
    over the run: a batch's tables live only while its setups are taken from them."""
    from strat_tools.run.driver import iter_tables
    from strat_tools.stats.repeats import setup_outcomes
    from strat_tools.tables.dataset import GameSet

    for tables in iter_tables(paths, setups_only=True, select=chosen, run=run):
        yield setup_outcomes(GameSet(tables), variant)


MERGE_EVERY: Final = 16
"""Batch parts :func:`reduce_setups` holds before it adds them into one."""


def reduce_setups(
    paths: InputsArg,
    reduce: Callable[[SetupOutcomes], T],
    add: Callable[[Sequence[T]], T],
    select: GameFilter | None = None,
    variant: Variant = DEFAULT_VARIANT,
    *,
    run: RunArg = None,
    from_table: bool = True,
) -> T:
    """``reduce`` of the setups :func:`read_outcomes` reads (the same arguments), a batch
    at a time, the parts joined by ``add`` (in input order, every :data:`MERGE_EVERY`
    batches): memory holds what ``reduce`` keeps, never every setup's row. A game never
    spans two batches and its ids are the run's (:func:`~strat_tools.run.driver.iter_tables`
    renumbers them where they are collected, so ``reduce`` runs here, on a batch's
    setups: a few hundred bytes a setup while the batch lasts). A dataset folder whose
    games table answers alone is reduced whole.

    >>> from strat_tools.stats.repeats import add_tallies, setup_tally
    >>> tally = reduce_setups(["data/"], setup_tally, add_tallies, run=1)
    >>> len(tally), int(tally["count"].sum())
    (606, 606)
    """
    from strat_tools.stats.repeats import concat_outcomes

    chosen = select if select is not None else GameFilter()
    paths = Inputs.of(paths)  # resolved once: the folder test and the batches take it
    folder = dataset_folder(paths) if from_table else None
    if folder is not None:
        found = folder_outcomes(folder, chosen, variant)
        if found is not None:
            return reduce(found)
    pending: list[T] = []
    for outcomes in _batch_outcomes(paths, chosen, variant, run):
        pending.append(reduce(outcomes))
        if len(pending) >= MERGE_EVERY:
            pending = [add(pending)]
    if not pending:
        return reduce(concat_outcomes([], variant))
    return add(pending)


def read_tally(
    paths: InputsArg,
    select: GameFilter | None = None,
    variant: Variant = DEFAULT_VARIANT,
    *,
    run: RunArg = None,
    from_table: bool = True,
) -> pd.DataFrame:
    """:func:`~strat_tools.stats.repeats.setup_tally` of :func:`read_outcomes` (the same
    arguments; the number of processes in ``run``), counted a batch at a time from the
    records: memory holds a row per distinct setup, whatever the number of games (a game
    never spans two batches, so the counts, ``games`` included, add up).

    >>> tally = read_tally(["data/"], run=1)
    >>> len(tally), int(tally["count"].sum())
    (606, 606)
    """
    from strat_tools.stats.repeats import add_tallies, setup_tally

    return reduce_setups(
        paths, setup_tally, add_tallies, select, variant, run=run, from_table=from_table
    )
