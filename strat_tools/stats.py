"""Setup and move statistics as pandas DataFrames: placement, bombs, scouts, endings, win rates.

Every function takes either a :class:`~strat_tools.dataset.GameSet` (anything with
``.games``/``.setups``/``.moves`` frames) or the frame it needs, and returns a tidy
DataFrame. ``by`` groups the result by any of ``variant``, ``period``, ``year``, ``side``,
``result`` (``win``/``loss``/``draw``) or ``won``; counts come with the sample size, shares
with it, and win rates with Wilson 95% intervals (:func:`wilson_interval`).

Setups are in the owner's view (row 1 = that side's back row, col 1 = that player's left),
so red and blue setups pool. By default, setup statistics leave out ``classicfree`` (any
army on any square) and every statistic leaves out ``invalid`` games; both are parameters.

This module reads no files, replays nothing and draws nothing: it only counts what the
tables (:mod:`strat_tools.tables`) hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.board import LAKES

GROUPINGS: Final = ("variant", "period", "year", "side", "result", "won")
"""The columns a statistic can be grouped ``by``."""

CONTEXT_COLUMNS: Final = (
    "variant",
    "year",
    "month",
    "period",
    "status",
    "result_type",
    "winner",
    "termination",
)
"""Per-game columns that :func:`setup_context` joins onto each setup row."""

SETUP_ROWS: Final = (1, 2, 3, 4)
SETUP_COLS: Final = tuple(range(1, 11))

By = str | Sequence[str] | None


class TableSet(Protocol):
    """Anything with the dataset frames: a :class:`~strat_tools.dataset.GameSet`."""

    @property
    def games(self) -> pd.DataFrame:
        """One row per game."""

    @property
    def setups(self) -> pd.DataFrame:
        """One row per piece of a starting position."""

    @property
    def moves(self) -> pd.DataFrame:
        """One row per move."""


Data = TableSet | pd.DataFrame


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n`` trials (95% by default).

    >>> tuple(round(x, 3) for x in wilson_interval(8, 10))
    (0.49, 0.943)

    ``n == 0`` gives ``(nan, nan)``.
    """
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# --- context --------------------------------------------------------------------------------


def setup_context(games: pd.DataFrame, setups: pd.DataFrame) -> pd.DataFrame:
    """Setups joined with their game's context: variant, period, status, result, ``won``.

    ``won`` is a nullable boolean: whether this side won (NA for draws and unknown results).
    """
    return _with_context(games, setups, CONTEXT_COLUMNS)


def _with_context(games: pd.DataFrame, rows: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``rows`` (setups or moves) with per-game ``columns`` and ``won`` added.

    A join without a merge: factorise the rows' game ids (a few thousand distinct), find each
    in ``games`` once, and gather. Text columns come back as categoricals, so millions of
    moves carry small codes, not strings. Rows of unknown games get nulls.
    """
    codes, uniques = pd.factorize(rows["game_id"])
    index = pd.Index(games["game_id"]).get_indexer(uniques)
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
    """Nullable boolean: did ``side`` ('red'/'blue') win, given the game's winner 1/2/3?"""
    side_id = np.where(
        (side == "red").to_numpy(dtype=bool),
        1,
        np.where((side == "blue").to_numpy(dtype=bool), 2, 0),
    )
    winner_id = pd.Series(winner).astype("Int8").to_numpy(dtype=np.int8, na_value=0)
    decided = (winner_id == 1) | (winner_id == 2)
    values = pd.arrays.BooleanArray(side_id == winner_id, ~decided)
    return pd.Series(values, index=side.index, name="won")


def _result_labels(won: pd.Series, winner: pd.Series) -> pd.Series:
    """``win``/``loss``/``draw`` per row, NA where the result is unknown."""
    labels = won.map({True: "win", False: "loss"}).astype("string")
    draw = pd.Series(winner, index=won.index).astype("Int8").eq(3).fillna(False).astype(bool)
    return labels.mask(draw, "draw")


def _by_list(by: By) -> list[str]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) else list(by)
    for name in names:
        if name not in GROUPINGS:
            raise ValueError(f"cannot group by {name!r}; choose from {', '.join(GROUPINGS)}")
    return names


def _variants(variant: str | Sequence[str] | None) -> list[str] | None:
    if variant is None:
        return None
    return [variant] if isinstance(variant, str) else list(variant)


def _filter(
    frame: pd.DataFrame,
    by: list[str],
    variant: str | Sequence[str] | None,
    *,
    include_classicfree: bool,
    exclude_invalid: bool,
    keep: pd.Series | None = None,
) -> pd.DataFrame:
    """Apply the variant/status filters (and ``keep``, a row mask) in one selection, and add
    the derived ``result`` column if asked for."""
    keep = pd.Series(True, index=frame.index) if keep is None else keep.fillna(False).astype(bool)
    wanted = _variants(variant)
    if "variant" in frame:
        if wanted is not None:
            keep &= frame["variant"].isin(wanted)
        elif not include_classicfree:
            keep &= frame["variant"] != "classicfree"
    elif wanted is not None:
        raise ValueError("cannot filter by variant: the frame has no 'variant' column")
    if exclude_invalid and "status" in frame:
        keep &= frame["status"] != "invalid"
    frame = frame.loc[keep]
    if "result" in by:
        frame = frame.assign(result=_result_labels(frame["won"], frame["winner"]))
    missing = [name for name in by if name not in frame]
    if missing:
        raise ValueError(
            f"cannot group by {', '.join(missing)}: pass a GameSet or a setup_context frame"
        )
    # Group keys as plain values: categorical keys would bring unused categories along.
    plain = {
        name: frame[name].astype(frame[name].cat.categories.dtype)
        for name in by
        if isinstance(frame[name].dtype, pd.CategoricalDtype)
    }
    return frame.assign(**plain) if plain else frame


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
    return _filter(
        frame,
        _by_list(by),
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )


def _groupby(frame: pd.DataFrame, keys: list[str]) -> Any:
    return frame.groupby(keys, observed=True, sort=True, dropna=False)


def _count_setups(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Number of distinct setups (game, side) per group, as a frame with column ``setups``."""
    pairs = frame.drop_duplicates(["game_id", "side"])
    if not by:
        return pd.DataFrame({"setups": [len(pairs)]})
    counts: pd.DataFrame = _groupby(pairs, by).size().rename("setups").reset_index()
    return counts


def _with_setups(counts: pd.DataFrame, setups: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Attach the ``setups`` sample size and ``share = count / setups``."""
    if by:
        counts = counts.merge(setups, on=by, how="left")
    else:
        counts = counts.assign(setups=int(setups["setups"].iloc[0]))
    counts["setups"] = counts["setups"].astype("int64")
    counts["share"] = counts["count"] / counts["setups"].where(counts["setups"] > 0)
    return counts


# --- placement ------------------------------------------------------------------------------


def piece_placement(
    data: Data,
    piece: str = "flag",
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """Where ``piece`` stands: [*by, row, col, count, setups, share] for all 40 setup cells.

    ``share`` = count / setups: for the flag, the share of setups with the flag there; for a
    bomb, the share of setups with a bomb there.
    """
    keys = _by_list(by)
    frame = setup_frame(
        data,
        keys,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    setups = _count_setups(frame, keys)
    pieces = frame.loc[(frame["piece"] == piece) & frame["row"].isin(SETUP_ROWS)]
    counts = _groupby(pieces, [*keys, "row", "col"]).size().rename("count")
    cells = pd.MultiIndex.from_product([SETUP_ROWS, SETUP_COLS], names=["row", "col"])
    index = _full_index(setups, keys, cells.to_frame(index=False))
    table = counts.reindex(index, fill_value=0).reset_index()
    table["row"] = table["row"].astype("int8")
    table["col"] = table["col"].astype("int8")
    return _with_setups(table, setups, keys)


def _full_index(setups: pd.DataFrame, keys: list[str], values: pd.DataFrame) -> pd.Index:
    """Every group crossed with every value row (so empty cells show up as zeros)."""
    if keys:
        values = setups[keys].drop_duplicates().merge(values, how="cross")
    if values.shape[1] == 1:
        return pd.Index(values.iloc[:, 0].to_list(), name=str(values.columns[0]))  # type: ignore[no-any-return]
    return pd.MultiIndex.from_frame(values)


def piece_by_line(
    data: Data,
    piece: str = "flag",
    axis: str = "row",
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """Placement summed over one axis: [*by, row (or col), count, setups, share]."""
    if axis not in ("row", "col"):
        raise ValueError(f"axis must be 'row' or 'col', got {axis!r}")
    keys = _by_list(by)
    cells = piece_placement(
        data,
        piece,
        keys,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    table: pd.DataFrame = (
        cells.groupby([*keys, axis], sort=True, dropna=False)
        .agg(count=("count", "sum"), setups=("setups", "first"))
        .reset_index()
    )
    table["share"] = table["count"] / table["setups"].where(table["setups"] > 0)
    return table


def flag_placement(data: Data, by: By = None, **options: Any) -> pd.DataFrame:
    """Flag per square of the setup area: [*by, row, col, count, setups, share]."""
    return piece_placement(data, "flag", by, **options)


def bomb_placement(data: Data, by: By = None, **options: Any) -> pd.DataFrame:
    """Bombs per square of the setup area: [*by, row, col, count, setups, share]."""
    return piece_placement(data, "bomb", by, **options)


# --- the flag's surroundings ----------------------------------------------------------------

_STEPS: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
# Lakes in the owner's view: the board turned 180 degrees keeps the lakes where they are.
_LAKE_GRID: Final = np.zeros((12, 12), dtype=bool)
for _sq in LAKES:
    _LAKE_GRID[_sq // 10 + 1, _sq % 10 + 1] = True


def flag_surroundings(
    data: Data,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """One row per setup with one flag: its cell, bombs next to it and whether it is enclosed.

    Columns: game_id, side, (context columns), flag_row, flag_col, neighbours (on-board,
    non-lake orthogonal squares), bombs (bombs among them), enclosed (every such neighbour a
    bomb: board edges and lakes count as closed).
    """
    frame = setup_frame(
        data,
        None,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    # One int per setup (game, side), then one int per cell of it: neighbour lookups become
    # a vectorised membership test instead of a Python loop over every flag.
    setup_id = frame.groupby(["game_id", "side"], observed=True, sort=False).ngroup().to_numpy()
    row = frame["row"].to_numpy(dtype=np.int64)
    col = frame["col"].to_numpy(dtype=np.int64)
    is_flag = (frame["piece"] == "flag").to_numpy(dtype=bool)
    is_bomb = (frame["piece"] == "bomb").to_numpy(dtype=bool)
    bomb_cells = np.sort(((setup_id * 12 + row) * 12 + col)[is_bomb])
    flags = frame.loc[is_flag]
    single = ~flags.duplicated(["game_id", "side"], keep=False).to_numpy()
    flags = flags.loc[single]
    flag_setup, flag_row, flag_col = (
        setup_id[is_flag][single],
        row[is_flag][single],
        col[is_flag][single],
    )
    neighbours = np.zeros(len(flags), dtype=np.int64)
    bombed = np.zeros(len(flags), dtype=np.int64)
    for dr, dc in _STEPS:
        r, c = flag_row + dr, flag_col + dc
        open_cell = (
            (r >= 1) & (r <= 10) & (c >= 1) & (c <= 10) & ~_LAKE_GRID[r.clip(0, 11), c.clip(0, 11)]
        )
        neighbours += open_cell
        bombed += open_cell & _contains(bomb_cells, (flag_setup * 12 + r) * 12 + c)
    out = flags.drop(columns=["piece", "square"]).rename(
        columns={"row": "flag_row", "col": "flag_col"}
    )
    out["neighbours"] = neighbours
    out["bombs"] = bombed
    out["enclosed"] = out["bombs"] == out["neighbours"]
    return out.reset_index(drop=True)


def _contains(sorted_values: npt.NDArray[np.int64], keys: npt.NDArray[np.int64]) -> Any:
    """Elementwise: is each key in ``sorted_values``? (binary search, no hashing)."""
    if not len(sorted_values):
        return np.zeros(len(keys), dtype=bool)
    at = np.searchsorted(sorted_values, keys).clip(0, len(sorted_values) - 1)
    return sorted_values[at] == keys


def bombs_next_to_flag(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """How many bombs touch the flag: [*by, bombs (0..4), count, setups, share]."""
    keys = _by_list(by)
    frame = _filter(
        flag_surroundings(data, variant, **options),
        keys,
        None,
        include_classicfree=True,
        exclude_invalid=False,
    )
    setups = _count_setups(frame, keys)
    counts = _groupby(frame, [*keys, "bombs"]).size().rename("count")
    index = _full_index(setups, keys, pd.DataFrame({"bombs": range(5)}))
    table = counts.reindex(index, fill_value=0).reset_index()
    return _with_setups(table, setups, keys)


def flag_enclosure(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """How often the flag is fully enclosed by bombs: [*by, enclosed, setups, share]."""
    keys = _by_list(by)
    frame = _filter(
        flag_surroundings(data, variant, **options),
        keys,
        None,
        include_classicfree=True,
        exclude_invalid=False,
    )
    if not keys:
        n = len(frame)
        k = int(frame["enclosed"].sum())
        return pd.DataFrame({"enclosed": [k], "setups": [n], "share": [k / n if n else math.nan]})
    table: pd.DataFrame = (
        _groupby(frame, keys)
        .agg(enclosed=("enclosed", "sum"), setups=("enclosed", "size"))
        .reset_index()
    )
    table["enclosed"] = table["enclosed"].astype("int64")
    table["share"] = table["enclosed"] / table["setups"]
    return table


# --- win rate by a setup feature ------------------------------------------------------------


def _feature_flag_back_row(s: pd.DataFrame) -> pd.Series:
    return s["flag_row"] == 1


def _feature_flag_corner(s: pd.DataFrame) -> pd.Series:
    return (s["flag_row"] == 1) & s["flag_col"].isin([1, 10])


def _feature_flag_edge_column(s: pd.DataFrame) -> pd.Series:
    return s["flag_col"].isin([1, 10])


def _feature_flag_enclosed(s: pd.DataFrame) -> pd.Series:
    return s["enclosed"].astype(bool)


def _feature_bombs_next_to_flag(s: pd.DataFrame) -> pd.Series:
    return s["bombs"]


SETUP_FEATURES: Final[dict[str, Callable[[pd.DataFrame], pd.Series]]] = {
    "flag_back_row": _feature_flag_back_row,
    "flag_corner": _feature_flag_corner,
    "flag_edge_column": _feature_flag_edge_column,
    "flag_enclosed": _feature_flag_enclosed,
    "bombs_next_to_flag": _feature_bombs_next_to_flag,
}
"""Setup features :func:`win_rate` can split by, computed from :func:`flag_surroundings`."""


def win_rate(
    data: Data,
    feature: str = "flag_back_row",
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Win rate of setups with and without a feature, with Wilson 95% intervals.

    Columns: [*by, feature value, setups (decided games only), wins, win_rate, ci_low,
    ci_high]. Draws and unknown results are left out of the sample.
    """
    if feature not in SETUP_FEATURES:
        raise ValueError(f"unknown feature {feature!r}; choose from {', '.join(SETUP_FEATURES)}")
    keys = _by_list(by)
    if "won" in keys or "result" in keys:
        raise ValueError("win_rate is already split by the result; drop 'won'/'result' from by")
    frame = _filter(
        flag_surroundings(data, variant, **options),
        keys,
        None,
        include_classicfree=True,
        exclude_invalid=False,
    )
    frame = frame.loc[frame["won"].notna()]
    frame = frame.assign(**{feature: SETUP_FEATURES[feature](frame)})
    table: pd.DataFrame = (
        _groupby(frame, [*keys, feature])
        .agg(setups=("won", "size"), wins=("won", "sum"))
        .reset_index()
    )
    table["wins"] = table["wins"].astype("int64")
    table["win_rate"] = table["wins"] / table["setups"]
    bounds = [
        wilson_interval(int(k), int(n)) for k, n in zip(table["wins"], table["setups"], strict=True)
    ]
    table["ci_low"] = [low for low, _ in bounds]
    table["ci_high"] = [high for _, high in bounds]
    return table


# --- games: lengths and endings -------------------------------------------------------------


def game_frame(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """The games rows a game statistic counts (filters applied; ``side`` grouping not allowed)."""
    keys = _by_list(by)
    if {"side", "won", "result"} & set(keys):
        raise ValueError("game statistics are per game: group by variant, period or year")
    games = data if isinstance(data, pd.DataFrame) else data.games
    return _filter(games, keys, variant, include_classicfree=True, exclude_invalid=exclude_invalid)


def endings(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How games end: [*by, termination, games, share, mean_plies, median_plies, max_plies]."""
    keys = _by_list(by)
    frame = game_frame(data, keys, variant, **options)
    frame = frame.assign(termination=frame["termination"].fillna("none").astype(str))
    table: pd.DataFrame = (
        _groupby(frame, [*keys, "termination"])
        .agg(
            games=("plies", "size"),
            mean_plies=("plies", "mean"),
            median_plies=("plies", "median"),
            max_plies=("plies", "max"),
        )
        .reset_index()
    )
    totals = table.groupby(keys)["games"].transform("sum") if keys else table["games"].sum()
    table.insert(len(keys) + 2, "share", table["games"] / totals)
    return table


def game_lengths(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """Game length in plies: [*by, games, mean, median, p10, p90, max, no_moves]."""
    keys = _by_list(by)
    frame = game_frame(data, keys, variant, **options)
    plies = frame["plies"].astype("int64")
    grouped = plies.groupby([frame[k] for k in keys]) if keys else None
    if grouped is None:
        return pd.DataFrame([_length_summary(plies)])
    rows = [
        {**dict(zip(keys, _as_tuple(key), strict=True)), **_length_summary(group)}
        for key, group in grouped
    ]
    return pd.DataFrame(rows)


def _as_tuple(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)


def _length_summary(plies: pd.Series) -> dict[str, Any]:
    return {
        "games": len(plies),
        "mean": float(plies.mean()) if len(plies) else math.nan,
        "median": float(plies.median()) if len(plies) else math.nan,
        "p10": float(plies.quantile(0.1)) if len(plies) else math.nan,
        "p90": float(plies.quantile(0.9)) if len(plies) else math.nan,
        "max": int(plies.max()) if len(plies) else 0,
        "no_moves": int((plies == 0).sum()),
    }


# --- moves: scouts --------------------------------------------------------------------------


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
    return _filter(
        frame,
        _by_list(by),
        variant,
        include_classicfree=True,
        exclude_invalid=exclude_invalid,
        keep=frame["piece"].notna(),
    )


def scout_usage(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How much scouts move: [*by, moves, scout_moves, scout_share, long_moves, long_share,
    scout_attacks, attack_share]; long = more than one square, shares of scout moves."""
    keys = _by_list(by)
    frame = move_frame(data, keys, variant, **options)
    scout = frame["piece"] == "scout"
    frame = frame.assign(
        scout=scout,
        long=scout & (frame["distance"] > 1),
        attack=scout & frame["defender"].notna(),
    )
    if keys:
        table: pd.DataFrame = (
            _groupby(frame, keys)
            .agg(
                moves=("scout", "size"),
                scout_moves=("scout", "sum"),
                long_moves=("long", "sum"),
                scout_attacks=("attack", "sum"),
            )
            .reset_index()
        )
    else:
        table = pd.DataFrame(
            {
                "moves": [len(frame)],
                "scout_moves": [int(frame["scout"].sum())],
                "long_moves": [int(frame["long"].sum())],
                "scout_attacks": [int(frame["attack"].sum())],
            }
        )
    for name in ("scout_moves", "long_moves", "scout_attacks"):
        table[name] = table[name].astype("int64")
    scouts = table["scout_moves"].where(table["scout_moves"] > 0)
    table.insert(len(keys) + 2, "scout_share", table["scout_moves"] / table["moves"])
    table.insert(len(keys) + 4, "long_share", table["long_moves"] / scouts)
    table["attack_share"] = table["scout_attacks"] / scouts
    return table


def _distribution(frame: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    """[*keys, column, count, share] with share within each group."""
    table: pd.DataFrame = _groupby(frame, [*keys, column]).size().rename("count").reset_index()
    totals = table.groupby(keys)["count"].transform("sum") if keys else table["count"].sum()
    table["share"] = table["count"] / totals
    return table


def scout_distances(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How far scouts go: [*by, distance, count, share] over all scout moves."""
    keys = _by_list(by)
    frame = move_frame(data, keys, variant, **options)
    frame = frame.loc[(frame["piece"] == "scout") & frame["distance"].notna()]
    frame = frame.assign(distance=frame["distance"].astype("int64"))
    return _distribution(frame, keys, "distance")


def scout_attacks(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """What scouts attack: [*by, defender, count, share, wins] (wins: the scout won or took
    the flag)."""
    keys = _by_list(by)
    frame = move_frame(data, keys, variant, **options)
    frame = frame.loc[(frame["piece"] == "scout") & frame["defender"].notna()]
    frame = frame.assign(
        defender=frame["defender"].astype(str),
        win=frame["outcome"].astype(str).isin(["attacker", "flag"]),
    )
    table = _distribution(frame, keys, "defender")
    wins = _groupby(frame, [*keys, "defender"])["win"].sum().rename("wins").reset_index()
    table = table.merge(wins, on=[*keys, "defender"], how="left")
    table["wins"] = table["wins"].astype("int64")
    return table.sort_values([*keys, "count"], ascending=[True] * len(keys) + [False]).reset_index(
        drop=True
    )


def first_scout_move(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """When each side first moves a scout: [*by, sides, with_scout_move, mean_ply,
    median_ply, median_turn]; ``turn`` counts that side's own moves (ply 1 and 2 are turn 1)."""
    keys = _by_list(by)
    frame = move_frame(data, keys, variant, **options)
    sides = frame.drop_duplicates(["game_id", "side"])
    scouts = frame.loc[frame["piece"] == "scout"]
    first_ply = scouts.groupby(["game_id", "side"], observed=True, sort=False)["ply"].min()
    first = first_ply.rename("first_ply").reset_index()
    first["side"] = first["side"].astype(str)
    sides = sides.assign(side_key=sides["side"].astype(str)).merge(
        first.rename(columns={"side": "side_key"}), on=["game_id", "side_key"], how="left"
    )
    ply = sides["first_ply"].astype("float64")
    sides = sides.assign(first_ply=ply, first_turn=(ply + 1) // 2)
    if not keys:
        return pd.DataFrame([_first_summary(sides)])
    rows = [
        {**dict(zip(keys, _as_tuple(key), strict=True)), **_first_summary(group)}
        for key, group in sides.groupby(keys, sort=True)
    ]
    return pd.DataFrame(rows)


def _first_summary(sides: pd.DataFrame) -> dict[str, Any]:
    ply = sides["first_ply"].dropna()
    return {
        "sides": len(sides),
        "with_scout_move": len(ply),
        "mean_ply": float(ply.mean()) if len(ply) else math.nan,
        "median_ply": float(ply.median()) if len(ply) else math.nan,
        "median_turn": float(sides["first_turn"].dropna().median()) if len(ply) else math.nan,
    }


def scouts_surviving(
    data: TableSet,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """How many scouts each side still has at the end: [*by, scouts_left, count, share].

    Only fully replayed games count. Scouts start from the setup; a scout is lost when it
    attacks and loses or ties, or is attacked and loses or ties (rescues in ultimate
    lightning are not counted back).
    """
    keys = _by_list(by)
    games = data.games
    complete = games.loc[
        games["replayed"].astype(bool) & (games["plies_replayed"] == games["plies"])
    ]
    setups = setup_frame(
        data,
        keys,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    setups = setups.loc[setups["game_id"].isin(complete["game_id"])]
    start = (
        setups.assign(scout=setups["piece"] == "scout")
        .groupby(["game_id", "side"], observed=True)
        .agg(start=("scout", "sum"), **{k: (k, "first") for k in keys})
    )
    moves = data.moves
    moves = moves.loc[moves["game_id"].isin(complete["game_id"]) & moves["defender"].notna()]
    outcome = moves["outcome"].astype(str)
    lost_attacking = moves.loc[(moves["piece"] == "scout") & outcome.isin(["defender", "both"])]
    lost_defending = moves.loc[(moves["defender"] == "scout") & outcome.isin(["attacker", "both"])]
    other = {"red": "blue", "blue": "red"}
    losses = pd.concat(
        [
            pd.DataFrame(
                {"game_id": lost_attacking["game_id"], "side": lost_attacking["side"].astype(str)}
            ),
            pd.DataFrame(
                {
                    "game_id": lost_defending["game_id"],
                    "side": lost_defending["side"].astype(str).map(other),
                }
            ),
        ]
    )
    lost = losses.groupby(["game_id", "side"]).size().rename("lost")
    start.index = pd.MultiIndex.from_arrays(
        [start.index.get_level_values(0), start.index.get_level_values(1).astype(str)],
        names=["game_id", "side"],
    )
    start = start.join(lost, how="left").fillna({"lost": 0})
    start["scouts_left"] = (start["start"] - start["lost"]).astype("int64")
    return _distribution(start.reset_index(drop=True), keys, "scouts_left")


# --- one entry point by name (the CLI's --stat) ---------------------------------------------

SETUP_STATISTICS: Final = (
    "flag",
    "bombs",
    "placement",
    "rows",
    "columns",
    "bombs-next-to-flag",
    "flag-enclosed",
    "win-rate",
)
"""Statistics that need only setups (reading them never pays for a replay)."""
GAME_STATISTICS: Final = ("endings", "lengths")
MOVE_STATISTICS: Final = (
    "scouts",
    "scout-distances",
    "scout-attacks",
    "first-scout",
    "scouts-left",
)
STATISTICS: Final = (*SETUP_STATISTICS, *GAME_STATISTICS, *MOVE_STATISTICS)
"""Every statistic :func:`compute` knows, by name."""


def compute(
    name: str,
    data: TableSet,
    *,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    piece: str = "flag",
    feature: str = "flag_back_row",
    include_classicfree: bool = False,
) -> pd.DataFrame:
    """Compute the statistic ``name`` (one of :data:`STATISTICS`) on a GameSet.

    ``piece`` applies to placement, rows and columns; ``feature`` to win-rate.

    >>> compute("rows", games, by="variant", piece="flag")  # doctest: +SKIP
    """
    setup_options = {"include_classicfree": include_classicfree}
    setup_stats: dict[str, Callable[[], pd.DataFrame]] = {
        "flag": lambda: flag_placement(data, by, variant=variant, **setup_options),
        "bombs": lambda: bomb_placement(data, by, variant=variant, **setup_options),
        "placement": lambda: piece_placement(data, piece, by, variant, **setup_options),
        "rows": lambda: piece_by_line(data, piece, "row", by, variant, **setup_options),
        "columns": lambda: piece_by_line(data, piece, "col", by, variant, **setup_options),
        "bombs-next-to-flag": lambda: bombs_next_to_flag(data, by, variant, **setup_options),
        "flag-enclosed": lambda: flag_enclosure(data, by, variant, **setup_options),
        "win-rate": lambda: win_rate(data, feature, by, variant, **setup_options),
        "scouts-left": lambda: scouts_surviving(data, by, variant, **setup_options),
    }
    other_stats: dict[str, Callable[..., pd.DataFrame]] = {
        "endings": endings,
        "lengths": game_lengths,
        "scouts": scout_usage,
        "scout-distances": scout_distances,
        "scout-attacks": scout_attacks,
        "first-scout": first_scout_move,
    }
    if name in setup_stats:
        return setup_stats[name]()
    if name in other_stats:
        return other_stats[name](data, by, variant)
    raise ValueError(f"unknown statistic {name!r}; choose from {', '.join(STATISTICS)}")
