"""Setup statistics: where each piece stands, the bombs round the flag, win rate by feature.

Counts setups in the owner's view (row 1 = the owner's back row), pooled over red and blue;
classicfree is left out unless asked for. Reads only the setups and games tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.board import LAKES
from strat_tools.stats.frames import (
    SETUP_COLS,
    SETUP_ROWS,
    By,
    Data,
    _by_list,
    _count_setups,
    _filter,
    _groupby,
    _with_setups,
    setup_frame,
)
from strat_tools.stats.intervals import cluster_counts, win_rates_of_clusters

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
    return piece_placements(
        data, [piece], by, variant, include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )[piece]  # fmt: skip


def piece_placements(
    data: Data,
    pieces: Sequence[str],
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> dict[str, pd.DataFrame]:
    """:func:`piece_placement` of several pieces in one pass over the setups: piece → table."""
    keys = _by_list(by)
    frame = setup_frame(
        data,
        keys,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    setups = _count_setups(frame, keys)
    cells = pd.MultiIndex.from_product([SETUP_ROWS, SETUP_COLS], names=["row", "col"])
    index = _full_index(setups, keys, cells.to_frame(index=False))
    wanted = frame.loc[frame["piece"].isin(list(pieces)) & frame["row"].isin(SETUP_ROWS)]
    piece = wanted["piece"].astype(str)
    counted = _groupby(wanted.assign(piece=piece), ["piece", *keys, "row", "col"]).size()
    # Every piece crossed with every (group, cell): one reindex, one merge, then split.
    cross = pd.DataFrame({"piece": list(pieces)}).merge(index.to_frame(index=False), how="cross")
    table = counted.rename("count").reindex(pd.MultiIndex.from_frame(cross), fill_value=0)
    table = table.reset_index()
    table["row"] = table["row"].astype("int8")
    table["col"] = table["col"].astype("int8")
    table["count"] = table["count"].astype("int64")
    table = _with_setups(table, setups, keys)
    per_piece = len(index)
    return {
        name: table.iloc[i * per_piece : (i + 1) * per_piece]
        .drop(columns="piece")
        .reset_index(drop=True)
        for i, name in enumerate(pieces)
    }


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
    groups = frame.groupby(["game_id", "side"], observed=True, sort=False).ngroup()
    setup_id: npt.NDArray[np.int64] = np.asarray(groups, dtype=np.int64)
    is_flag = (frame["piece"] == "flag").to_numpy(dtype=bool)
    flags = frame.loc[is_flag]
    single = ~flags.duplicated(["game_id", "side"], keep=False).to_numpy()
    flags = flags.loc[single]
    neighbours, bombed = _bombed_neighbours(frame, setup_id, np.flatnonzero(is_flag)[single])
    out = flags.drop(columns=["piece", "square"]).rename(
        columns={"row": "flag_row", "col": "flag_col"}
    )
    out["neighbours"] = neighbours
    out["bombs"] = bombed
    out["enclosed"] = out["bombs"] == out["neighbours"]
    return out.reset_index(drop=True)


def _bombed_neighbours(
    frame: pd.DataFrame, setup_id: npt.NDArray[np.int64], flag_rows: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Open neighbours and bombs among them, for the flags at positions ``flag_rows``.

    One int per setup cell, so the lookups are a vectorised membership test instead of a
    Python loop over every flag.
    """
    row = frame["row"].to_numpy(dtype=np.int64)
    col = frame["col"].to_numpy(dtype=np.int64)
    is_bomb = (frame["piece"] == "bomb").to_numpy(dtype=bool)
    bomb_cells = np.sort(((setup_id * 12 + row) * 12 + col)[is_bomb])
    flag_setup, flag_row, flag_col = setup_id[flag_rows], row[flag_rows], col[flag_rows]
    neighbours = np.zeros(len(flag_rows), dtype=np.int64)
    bombed = np.zeros(len(flag_rows), dtype=np.int64)
    for dr, dc in _STEPS:
        r, c = flag_row + dr, flag_col + dc
        on_board = (r >= 1) & (r <= 10) & (c >= 1) & (c <= 10)
        open_cell = on_board & ~_LAKE_GRID[r.clip(0, 11), c.clip(0, 11)]
        neighbours += open_cell
        bombed += open_cell & _contains(bomb_cells, (flag_setup * 12 + r) * 12 + c)
    return neighbours, bombed


def _contains(sorted_values: npt.NDArray[np.int64], keys: npt.NDArray[np.int64]) -> Any:
    """Elementwise: is each key in ``sorted_values``? (binary search, no hashing)."""
    if not len(sorted_values):
        return np.zeros(len(keys), dtype=bool)
    at = np.searchsorted(sorted_values, keys).clip(0, len(sorted_values) - 1)
    return sorted_values[at] == keys


def _flag_frame(
    data: Data, keys: list[str], variant: str | Sequence[str] | None, options: dict[str, Any]
) -> pd.DataFrame:
    """One row per setup with its flag's surroundings, ready to group by ``keys``
    (flag_surroundings has already applied the variant, classicfree and validity filters)."""
    return _filter(
        flag_surroundings(data, variant, **options),
        keys,
        None,
        include_classicfree=True,
        exclude_invalid=False,
    )


def bombs_next_to_flag(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """How many bombs touch the flag: [*by, bombs (0..4), count, setups, share]."""
    keys = _by_list(by)
    frame = _flag_frame(data, keys, variant, options)
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
    frame = _flag_frame(data, keys, variant, options)
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


def _win_rate_frame(
    data: Data,
    feature: str,
    keys: list[str],
    variant: str | Sequence[str] | None,
    options: dict[str, Any],
) -> pd.DataFrame:
    """One row per decided setup with the feature's value (and its mirror fingerprint)."""
    if feature not in SETUP_FEATURES:
        raise ValueError(f"unknown feature {feature!r}; choose from {', '.join(SETUP_FEATURES)}")
    if "won" in keys or "result" in keys:
        raise ValueError("win_rate is already split by the result; drop 'won'/'result' from by")
    frame = _flag_frame(data, keys, variant, options)
    frame = frame.loc[frame["won"].notna()]
    return frame.assign(**{feature: SETUP_FEATURES[feature](frame)})


def win_rate_clusters(
    data: Data,
    feature: str = "flag_back_row",
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """The part of :func:`win_rate` that adds up across batches: decided ``setups`` and
    ``wins`` per group, feature value and setup (mirror fingerprint)."""
    keys = _by_list(by)
    frame = _win_rate_frame(data, feature, keys, variant, options)
    return cluster_counts(frame, [*keys, feature])


def win_rate(
    data: Data,
    feature: str = "flag_back_row",
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Win rate of setups with and without a feature, with plain and clustered 95% intervals.

    Columns: [*by, feature value, setups (decided games only), distinct_setups (by mirror
    fingerprint), wins, win_rate, ci_low, ci_high, cluster_ci_low, cluster_ci_high]. Draws
    and unknown results are left out of the sample. The clustered interval counts the games
    of one setup as one cluster (:mod:`strat_tools.stats.intervals`).
    """
    keys = _by_list(by)
    return win_rates_of_clusters(
        win_rate_clusters(data, feature, by, variant, **options), [*keys, feature]
    )
