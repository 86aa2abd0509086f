"""The frames statistics count: game context joined onto setups and moves, and the filters.

Shared by :mod:`strat_tools.stats.setups` and :mod:`strat_tools.stats.play`: grouping names,
:func:`setup_context`/:func:`move_context` (a join without a merge),
and :func:`setup_frame`/:func:`move_frame`/:func:`game_frame` (filters applied: variant,
classicfree, invalid games). Counts nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Final, Protocol

import numpy as np
import pandas as pd

from strat_tools.core.choices import GROUPINGS
from strat_tools.core.errors import InputError, OptionError
from strat_tools.core.records import ALL_VARIANTS, DEFAULT_VARIANT
from strat_tools.tables.schemas import SIDE_LABELS

CONTEXT_COLUMNS: Final = (
    "variant",
    "year",
    "month",
    "period",
    "status",
    "result_type",
    "winner",
    "draw",
    "termination",
)
"""Per-game columns that :func:`setup_context` joins onto each setup row."""

SETUP_ROWS: Final = (1, 2, 3, 4)
SETUP_COLS: Final = tuple(range(1, 11))

By = str | Sequence[str] | None


class TableSet(Protocol):
    """Anything with the dataset frames: a :class:`~strat_tools.tables.dataset.GameSet`."""

    @property
    def games(self) -> pd.DataFrame:
        """One row per game."""

    @property
    def setups(self) -> pd.DataFrame:
        """One row per piece of a starting position."""

    @property
    def moves(self) -> pd.DataFrame:
        """One row per move."""

    @property
    def diagnostics(self) -> pd.DataFrame:
        """One row per diagnostic."""


Data = TableSet | pd.DataFrame


# --- context --------------------------------------------------------------------------------


def setup_context(games: pd.DataFrame, setups: pd.DataFrame) -> pd.DataFrame:
    """Setups joined with their game's context: variant, period, status, result, ``won``.

    ``won`` is a nullable boolean: whether this side won (NA for draws and unknown results).
    """
    return _with_context(games, setups, CONTEXT_COLUMNS)


class JoinedTables:
    """``data`` with its setups and moves joined with their game's context, each once, on
    first use: what several statistics counting the same batch share, instead of each
    joining again (:func:`setup_frame` and :func:`move_frame` take the joined rows as they
    are). Games and diagnostics are ``data``'s own."""

    def __init__(
        self, data: TableSet, prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    ) -> None:
        self.data = data
        self.prepare = prepare
        """Applied to each joined frame (e.g. text columns made categorical), if given."""
        self.derived: dict[tuple[Any, ...], pd.DataFrame] = {}

    def shared(self, key: tuple[Any, ...], make: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """A frame derived from these tables (``make``'s, under ``key``), made once for every
        statistic that asks; callers must not change it in place."""
        if key not in self.derived:
            self.derived[key] = make()
        return self.derived[key]

    @property
    def games(self) -> pd.DataFrame:
        """``data``'s games."""
        return self.data.games

    @cached_property
    def setups(self) -> pd.DataFrame:
        """:func:`setup_context` of ``data``'s setups."""
        joined = setup_context(self.data.games, self.data.setups)
        return joined if self.prepare is None else self.prepare(joined)

    @cached_property
    def moves(self) -> pd.DataFrame:
        """:func:`move_context` of ``data``'s moves."""
        joined = move_context(self.data.games, self.data.moves)
        return joined if self.prepare is None else self.prepare(joined)

    @property
    def diagnostics(self) -> pd.DataFrame:
        """``data``'s diagnostics."""
        return self.data.diagnostics


def _with_context(games: pd.DataFrame, rows: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``rows`` (setups or moves) with per-game ``columns`` and ``won`` added.

    A join without a merge: factorise the rows' game ids (a few thousand distinct), find each
    in ``games`` once, and gather. Text columns come back as categoricals, so millions of
    moves carry small codes, not strings. Rows of unknown games get nulls.
    """
    if "won" in rows and all(name in rows for name in columns if name in games):
        return rows  # already joined (a context frame passed on again): nothing to add
    codes, uniques = pd.factorize(rows["game_id"])
    lookup = pd.Index(games["game_id"])
    if not lookup.is_unique:
        twice = lookup[lookup.duplicated()][0]
        raise InputError(f"game_id {twice!r} names more than one game; game ids must be unique")
    index = lookup.get_indexer(uniques)
    where = index[codes] if len(codes) else np.zeros(0, dtype=np.int64)
    where = np.where(codes < 0, -1, where)
    added: dict[str, Any] = {}
    for name in columns:
        if name not in games or name in rows:
            continue
        column = games[name]
        if pd.api.types.is_string_dtype(column.dtype) or isinstance(
            column.dtype, pd.CategoricalDtype
        ):
            category = pd.Categorical(column)
            picked = np.where(where < 0, -1, np.asarray(category.codes)[where])
            added[name] = pd.Categorical.from_codes(picked, categories=category.categories)
        else:
            added[name] = column.array.take(where, allow_fill=True)
    frame = rows.assign(**added)
    frame["won"] = _won(frame["side"], frame["winner"])
    return frame


def _won(side: pd.Series, winner: pd.Series) -> pd.Series:
    """Nullable boolean: did ``side`` ('red'/'blue') win, given the game's winner (red, blue
    or null)? Compared as category codes: no string work per row."""
    side_id = np.asarray(pd.Categorical(side, categories=SIDE_LABELS).codes)
    winner_id = np.asarray(pd.Categorical(winner, categories=SIDE_LABELS).codes)
    decided = winner_id >= 0
    values = pd.arrays.BooleanArray((side_id == winner_id) & decided, ~decided)
    return pd.Series(values, index=side.index, name="won")


def _result_labels(won: pd.Series, draw: pd.Series) -> pd.Series:
    """``win``/``loss``/``draw`` per row, NA where the result is unknown."""
    labels = won.map({True: "win", False: "loss"}).astype("string")
    drawn = pd.Series(draw, index=won.index).astype("boolean").fillna(False).astype(bool)
    return labels.mask(drawn, "draw")


def by_list(by: By) -> list[str]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) else list(by)
    for name in names:
        if name not in GROUPINGS:
            raise OptionError(f"cannot group by {name!r}; choose from {', '.join(GROUPINGS)}")
    return names


def scope_variants(variant: str | Sequence[str] | None, by: Sequence[str] = ()) -> list[str] | None:
    """The variants a statistic counts, the one rule every statistic follows: the names given
    (:data:`~strat_tools.core.records.ALL_VARIANTS`, ``'all'``: every variant, ``None`` in the
    result); none given: every variant when grouped ``by`` variant (one group each, never a
    pool), else :data:`~strat_tools.core.records.DEFAULT_VARIANT` alone.

    >>> scope_variants(None), scope_variants(None, ["variant"]), scope_variants("all")
    (['classic'], None, None)
    >>> scope_variants(["barrage", "duell"])
    ['barrage', 'duell']
    """
    if variant is None:
        return None if "variant" in by else [DEFAULT_VARIANT]
    names = [variant] if isinstance(variant, str) else list(variant)
    return None if ALL_VARIANTS in names else names


def filter_rows(
    frame: pd.DataFrame,
    by: list[str],
    variant: str | Sequence[str] | None,
    *,
    include_classicfree: bool,
    exclude_invalid: bool,
    keep: pd.Series | None = None,
) -> pd.DataFrame:
    """Apply the variant/status filters (and ``keep``, a row mask) in one selection, and add
    the derived ``result`` column if asked for. The variants are :func:`scope_variants`'s;
    classicfree only when named or ``include_classicfree``."""
    keep = pd.Series(True, index=frame.index) if keep is None else keep.fillna(False).astype(bool)
    wanted = scope_variants(variant, by)
    if "variant" in frame:
        if wanted is not None:
            keep &= frame["variant"].isin(wanted)
        elif not include_classicfree:
            keep &= frame["variant"] != "classicfree"
    elif variant is not None and wanted is not None:
        raise OptionError("cannot filter by variant: the frame has no 'variant' column")
    if exclude_invalid and "status" in frame:
        keep &= frame["status"] != "invalid"
    frame = frame.loc[keep]
    if "result" in by:
        frame = frame.assign(result=_result_labels(frame["won"], frame["draw"]))
    missing = [name for name in by if name not in frame]
    if missing:
        raise OptionError(
            f"cannot group by {', '.join(missing)}: pass a GameSet or a setup_context frame"
        )
    # Group keys as plain values: categorical keys would bring unused categories along.
    plain = {
        name: plain_values(frame[name])
        for name in by
        if isinstance(frame[name].dtype, pd.CategoricalDtype)
    }
    return frame.assign(**plain) if plain else frame


def plain_values(column: pd.Series) -> pd.Series:
    """A categorical column as plain values of its categories' dtype (missing stays missing).

    Text categories are gathered by code in one take (Arrow's, for Arrow strings), not
    converted value by value: a grouping key over millions of moves costs milliseconds.

    >>> keys = pd.Series(pd.Categorical(["red", None, "blue"], categories=["red", "blue"]))
    >>> plain_values(keys).tolist()
    ['red', nan, 'blue']
    """
    categories = column.cat.categories
    if not pd.api.types.is_string_dtype(categories.dtype):
        return column.astype(categories.dtype)
    codes = np.asarray(column.cat.codes, dtype=np.intp)
    values = pd.api.extensions.take(categories.array, codes, allow_fill=True)
    return pd.Series(values, index=column.index, name=column.name)


def setup_frame(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """The setup rows a setup statistic counts (context joined, filters applied)."""
    frame = data if isinstance(data, pd.DataFrame) else setup_context(data.games, data.setups)
    return filter_rows(
        frame,
        by_list(by),
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )


def group_by(frame: pd.DataFrame, keys: list[str]) -> Any:
    return frame.groupby(keys, observed=True, sort=True, dropna=False)


def count_setups(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Number of distinct setups (game, side) per group, as a frame with column ``setups``."""
    pairs = frame.drop_duplicates(["game_id", "side"])
    if not by:
        return pd.DataFrame({"setups": [len(pairs)]})
    counts: pd.DataFrame = group_by(pairs, by).size().rename("setups").reset_index()
    return counts


def with_setups(counts: pd.DataFrame, setups: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Attach the ``setups`` sample size of each group (the share is the finish's)."""
    if by:
        counts = counts.merge(setups, on=by, how="left")
    else:
        counts = counts.assign(setups=int(setups["setups"].iloc[0]))
    counts["setups"] = counts["setups"].astype("int64")
    return counts


def game_frame(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """The games rows a game statistic counts (filters applied; ``side`` grouping not allowed)."""
    keys = by_list(by)
    if {"side", "won", "result"} & set(keys):
        raise OptionError("game statistics are per game: group by variant, period or year")
    games = data if isinstance(data, pd.DataFrame) else data.games
    return filter_rows(
        games, keys, variant, include_classicfree=True, exclude_invalid=exclude_invalid
    )


def move_context(games: pd.DataFrame, moves: pd.DataFrame) -> pd.DataFrame:
    """Moves joined with their game's context and ``won`` (did the moving side win)."""
    return _with_context(games, moves, (*CONTEXT_COLUMNS, "plies", "plies_replayed"))


def move_frame(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """The replayed moves a move statistic counts (context joined, filters applied)."""
    frame = data if isinstance(data, pd.DataFrame) else move_context(data.games, data.moves)
    return filter_rows(
        frame,
        by_list(by),
        variant,
        include_classicfree=True,
        exclude_invalid=exclude_invalid,
        keep=frame["piece"].notna(),
    )


def distribution_counts(frame: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    """[*keys, column, count]: rows per value of ``column`` in each group (the counts of a
    distribution; :func:`~strat_tools.stats.formulas.share_within` gives its shares)."""
    table: pd.DataFrame = group_by(frame, [*keys, column]).size().rename("count").reset_index()
    return table


def as_tuple(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)
