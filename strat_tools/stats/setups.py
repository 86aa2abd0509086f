"""Setup statistics: where each piece stands, the bombs round the flag, win rate by feature.

Counts setups in the owner's view (row 1 = the owner's back row), pooled over red and blue;
classicfree is left out unless asked for. Reads only the setups and games tables. Each
statistic is one :class:`~strat_tools.stats.registry.Statistic` registered at the end of
its part of this file: its count (per batch), and its finish (the derived columns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.core.board import LAKES
from strat_tools.core.choices import SETUP_FEATURE_NAMES
from strat_tools.core.errors import OptionError
from strat_tools.core.records import ALL_VARIANTS
from strat_tools.stats.formulas import share
from strat_tools.stats.frames import (
    SETUP_COLS,
    SETUP_ROWS,
    By,
    Data,
    JoinedTables,
    by_list,
    count_setups,
    filter_rows,
    group_by,
    scope_variants,
    setup_frame,
    with_setups,
)
from strat_tools.stats.intervals import cluster_counts, win_rates_of_clusters
from strat_tools.stats.registry import Options, Statistic, register

# --- placement ------------------------------------------------------------------------------


def placement_counts(
    data: Data,
    pieces: Sequence[str],
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> dict[str, pd.DataFrame]:
    """Counts of several pieces in one pass over the setups: piece → [*by, row, col, count,
    setups] for all 40 setup cells (the count of :data:`PLACEMENT`)."""
    keys = by_list(by)
    frame = setup_frame(
        data,
        keys,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    setups = count_setups(frame, keys)
    cells = pd.MultiIndex.from_product([SETUP_ROWS, SETUP_COLS], names=["row", "col"])
    index = _full_index(setups, keys, cells.to_frame(index=False))
    wanted = frame.loc[frame["piece"].isin(list(pieces)) & frame["row"].isin(SETUP_ROWS)]
    piece = wanted["piece"].astype(str)
    counted = group_by(wanted.assign(piece=piece), ["piece", *keys, "row", "col"]).size()
    # Every piece crossed with every (group, cell): one reindex, one merge, then split.
    cross = pd.DataFrame({"piece": list(pieces)}).merge(index.to_frame(index=False), how="cross")
    table = counted.rename("count").reindex(pd.MultiIndex.from_frame(cross), fill_value=0)
    table = table.reset_index()
    table["row"] = table["row"].astype("int8")
    table["col"] = table["col"].astype("int8")
    table["count"] = table["count"].astype("int64")
    table = with_setups(table, setups, keys)
    per_piece = len(index)
    return {
        name: table.iloc[i * per_piece : (i + 1) * per_piece]
        .drop(columns="piece")
        .reset_index(drop=True)
        for i, name in enumerate(pieces)
    }


def finish_share(counts: pd.DataFrame, options: Options | None = None) -> pd.DataFrame:
    """Counts per group with ``share = count / setups`` added (the finish of every
    placement-like statistic)."""
    table = counts.copy()
    table["share"] = share(table["count"], table["setups"])
    return table


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
    counts = placement_counts(
        data,
        pieces,
        by,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    return {piece: finish_share(table) for piece, table in counts.items()}


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
        data,
        [piece],
        by,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )[piece]


def _full_index(setups: pd.DataFrame, keys: list[str], values: pd.DataFrame) -> pd.Index:
    """Every group crossed with every value row (so empty cells show up as zeros)."""
    if keys:
        values = setups[keys].drop_duplicates().merge(values, how="cross")
    if values.shape[1] == 1:
        return pd.Index(values.iloc[:, 0].to_list(), name=str(values.columns[0]))  # type: ignore[no-any-return]
    return pd.MultiIndex.from_frame(values)


def checked_axis(axis: str) -> str:
    """``axis`` if it is ``'row'`` or ``'col'``; :class:`OptionError` otherwise."""
    if axis not in ("row", "col"):
        raise OptionError(f"axis must be 'row' or 'col', got {axis!r}")
    return axis


def line_counts(cells: pd.DataFrame, axis: str) -> pd.DataFrame:
    """Placement counts summed over one axis: [*keys, row (or col), count, setups]."""
    axis = checked_axis(axis)
    keys = [c for c in cells.columns if c not in ("row", "col", "count", "setups")]
    table: pd.DataFrame = (
        cells.groupby([*keys, axis], sort=True, dropna=False)
        .agg(count=("count", "sum"), setups=("setups", "first"))
        .reset_index()
    )
    return table


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
    axis = checked_axis(axis)  # before the counting, not after it
    options = {"include_classicfree": include_classicfree, "exclude_invalid": exclude_invalid}
    cells = placement_counts(data, [piece], by, variant, **options)[piece]
    return finish_share(line_counts(cells, axis))


def flag_placement(data: Data, by: By = None, **options: Any) -> pd.DataFrame:
    """Flag per square of the setup area: [*by, row, col, count, setups, share]."""
    return piece_placement(data, "flag", by, **options)


def bomb_placement(data: Data, by: By = None, **options: Any) -> pd.DataFrame:
    """Bombs per square of the setup area: [*by, row, col, count, setups, share]."""
    return piece_placement(data, "bomb", by, **options)


def _count_piece(piece: str | None) -> Any:
    def count(data: Data, o: Options) -> pd.DataFrame:
        name = o.piece if piece is None else piece
        return placement_counts(data, [name], o.by, o.variant, **o.setup_options)[name]

    return count


def _count_line(axis: str) -> Any:
    def count(data: Data, o: Options) -> pd.DataFrame:
        cells = placement_counts(data, [o.piece], o.by, o.variant, **o.setup_options)[o.piece]
        return line_counts(cells, axis)

    return count


FLAG: Final = register(
    Statistic(
        "flag",
        "the flag per square of the setup area",
        _count_piece("flag"),
        finish_share,
        additive=("count", "setups"),
    )
)
BOMBS: Final = register(
    Statistic(
        "bombs",
        "bombs per square of the setup area",
        _count_piece("bomb"),
        finish_share,
        additive=("count", "setups"),
    )
)
PLACEMENT: Final = register(
    Statistic(
        "placement",
        "--piece per square of the setup area",
        _count_piece(None),
        finish_share,
        additive=("count", "setups"),
        uses=("piece",),
    )
)
ROWS: Final = register(
    Statistic(
        "rows",
        "--piece per row of the setup area",
        _count_line("row"),
        finish_share,
        additive=("count", "setups"),
        uses=("piece",),
    )
)
COLUMNS: Final = register(
    Statistic(
        "columns",
        "--piece per column of the setup area",
        _count_line("col"),
        finish_share,
        additive=("count", "setups"),
        uses=("piece",),
    )
)


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
    if isinstance(data, JoinedTables):  # several statistics of one batch: made once
        scope = variant if variant is None or isinstance(variant, str) else tuple(variant)
        key = ("flag_surroundings", scope, include_classicfree, exclude_invalid)
        return data.shared(
            key,
            lambda: flag_surroundings(
                data.setups,  # joined with its context: taken as it is
                variant,
                include_classicfree=include_classicfree,
                exclude_invalid=exclude_invalid,
            ),
        )
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
    (flag_surroundings applies the variants grouping by ``keys`` asks for, classicfree and
    validity filters)."""
    scope = scope_variants(variant, keys)
    return filter_rows(
        flag_surroundings(data, ALL_VARIANTS if scope is None else scope, **options),
        keys,
        ALL_VARIANTS,
        include_classicfree=True,
        exclude_invalid=False,
    )


def bombs_next_to_flag_counts(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """[*by, bombs (0..4), count, setups]: the count of :func:`bombs_next_to_flag`."""
    keys = by_list(by)
    frame = _flag_frame(data, keys, variant, options)
    setups = count_setups(frame, keys)
    counts = group_by(frame, [*keys, "bombs"]).size().rename("count")
    index = _full_index(setups, keys, pd.DataFrame({"bombs": range(5)}))
    table = counts.reindex(index, fill_value=0).reset_index()
    return with_setups(table, setups, keys)


def bombs_next_to_flag(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """How many bombs touch the flag: [*by, bombs (0..4), count, setups, share]."""
    return finish_share(bombs_next_to_flag_counts(data, by, variant, **options))


def flag_enclosure_counts(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """[*by, enclosed, setups]: the count of :func:`flag_enclosure`."""
    keys = by_list(by)
    frame = _flag_frame(data, keys, variant, options)
    if not keys:
        return pd.DataFrame({"enclosed": [int(frame["enclosed"].sum())], "setups": [len(frame)]})
    table: pd.DataFrame = (
        group_by(frame, keys)
        .agg(enclosed=("enclosed", "sum"), setups=("enclosed", "size"))
        .reset_index()
    )
    table["enclosed"] = table["enclosed"].astype("int64")
    return table


def _finish_enclosure(counts: pd.DataFrame, options: Options | None = None) -> pd.DataFrame:
    table = counts.copy()
    table["share"] = share(table["enclosed"], table["setups"])
    return table


def flag_enclosure(
    data: Data,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """How often the flag is fully enclosed by bombs: [*by, enclosed, setups, share]."""
    return _finish_enclosure(flag_enclosure_counts(data, by, variant, **options))


def _count_next_to_flag(data: Data, o: Options) -> pd.DataFrame:
    return bombs_next_to_flag_counts(data, o.by, o.variant, **o.setup_options)


def _count_enclosure(data: Data, o: Options) -> pd.DataFrame:
    return flag_enclosure_counts(data, o.by, o.variant, **o.setup_options)


BOMBS_NEXT_TO_FLAG: Final = register(
    Statistic(
        "bombs-next-to-flag",
        "how many bombs touch the flag (0..4)",
        _count_next_to_flag,
        finish_share,
        additive=("count", "setups"),
    )
)
FLAG_ENCLOSED: Final = register(
    Statistic(
        "flag-enclosed",
        "how often bombs, edges and lakes close the flag in",
        _count_enclosure,
        _finish_enclosure,
        additive=("enclosed", "setups"),
    )
)


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


SETUP_FEATURES: Final[dict[str, Callable[[pd.DataFrame], pd.Series]]] = dict(
    zip(
        SETUP_FEATURE_NAMES,
        (
            _feature_flag_back_row,
            _feature_flag_corner,
            _feature_flag_edge_column,
            _feature_flag_enclosed,
            _feature_bombs_next_to_flag,
        ),
        strict=True,
    )
)
"""Setup features :func:`win_rate` can split by, computed from :func:`flag_surroundings`
(named in :data:`strat_tools.core.choices.SETUP_FEATURE_NAMES`)."""


def win_rate_counts(
    data: Data,
    feature: str = "flag_back_row",
    by: By = None,
    variant: str | Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """[*by, feature value, mirror_fingerprint, setups, wins] over decided games: the count
    of :func:`win_rate`, per setup so that the clustered interval adds up across batches.

    Long and additive, so a count may carry further key columns (a cluster key, say, for a
    clustered interval) that a finish collapses.
    """
    if feature not in SETUP_FEATURES:
        raise OptionError(f"unknown feature {feature!r}; choose from {', '.join(SETUP_FEATURES)}")
    keys = by_list(by)
    if "won" in keys or "result" in keys:
        raise OptionError("win_rate is already split by the result; drop 'won'/'result' from by")
    frame = _flag_frame(data, keys, variant, options)
    frame = frame.loc[frame["won"].notna()]
    frame = frame.assign(**{feature: SETUP_FEATURES[feature](frame)})
    return cluster_counts(frame, [*keys, feature], CLUSTER)


CLUSTER: Final = "mirror_fingerprint"
"""The cluster key of the win-rate counts: the games of one setup (or its mirror) are one
cluster (:mod:`strat_tools.stats.intervals`)."""


def finish_win_rate(counts: pd.DataFrame, options: Options | None = None) -> pd.DataFrame:
    """``win_rate`` with its Wilson 95% interval (``ci_low``, ``ci_high``) and the clustered
    one (``cluster_ci_low``, ``cluster_ci_high``), and ``distinct_setups``, from the
    per-cluster counts (the cluster column collapsed)."""
    keys = [c for c in counts.columns if c not in ("setups", "wins", CLUSTER)]
    return win_rates_of_clusters(counts, keys)


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
    return finish_win_rate(win_rate_counts(data, feature, by, variant, **options))


def _count_win_rate(data: Data, o: Options) -> pd.DataFrame:
    return win_rate_counts(data, o.feature, o.by, o.variant, **o.setup_options)


WIN_RATE: Final = register(
    Statistic(
        "win-rate",
        "win rate of setups with and without --feature, Wilson 95% intervals",
        _count_win_rate,
        finish_win_rate,
        additive=("setups", "wins"),
        uses=("feature",),
    )
)
