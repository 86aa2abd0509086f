"""The rulebooks' setup advice put to the test: adoption, win rates, neighbours, entropy.

The tips themselves (:class:`~strat_tools.tips.Tip`, :func:`~strat_tools.tips.setup_features`)
are :mod:`strat_tools.tips`, the grid of setups :mod:`strat_tools.setup_grid`. Here:

- :func:`tip_adoption`: how many setups follow each tip, by variant and period;
- :func:`tip_win_rates`: win rate of followers against the rest, Wilson 95% intervals;
- :func:`adjacency`: which kinds stand next to each other more or less often than chance;
- :func:`placement_entropy`: how predictable each kind's square is, in bits.

The input is the setups table joined with game context (``stats.setup_context``). This module
does not read files, replay games or draw anything; it does not claim that a tip *causes*
wins (see docs/advice.md for what the comparison can and cannot show).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.dataset import empty_gameset
from strat_tools.driver import Select, Tally, reduce_batches
from strat_tools.errors import OptionError
from strat_tools.pieces import ARMIES, KIND_LABELS
from strat_tools.pipeline import ProgressCallback
from strat_tools.records import ALL_VARIANTS, DEFAULT_VARIANT
from strat_tools.setup_grid import (
    CELLS,
    EDGES,
    LABEL_KIND,
    IntArray,
    SetupGrid,
    lookup_codes,
    setup_grid,
)
from strat_tools.sources import Paths
from strat_tools.stats import Data, TableSet, piece_placements, setup_frame, wilson
from strat_tools.stats.stream import sum_counts
from strat_tools.tips import (
    TIP_NAMES,
    TIPS,
    features_from_grid,
    grid_of,
    setup_features,
    tip_catalogue,
)

# ---------------------------------------------------------------------------------------
# Adoption and win rates
# ---------------------------------------------------------------------------------------


def _long_tips(features: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Melt the tip columns: one row per (setup, applicable tip) with ``follows``."""
    present = [name for name in TIP_NAMES if name in features.columns]
    keep = [*by, "won"] if "won" in features.columns else list(by)
    long = features.melt(id_vars=keep, value_vars=present, var_name="tip", value_name="follows")
    return long[long["follows"].notna()]


def tip_adoption(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """How many setups follow each tip: columns [*by, tip, setups, followed, share].

    ``setups`` counts the setups where the tip applies; ``share = followed / setups``.
    """
    long = _long_tips(features, by)
    long = long.assign(followed=long["follows"].astype(bool))
    grouped = long.groupby([*by, "tip"], sort=False, observed=True)
    table = grouped.agg(setups=("followed", "size"), followed=("followed", "sum")).reset_index()
    table["share"] = table["followed"] / table["setups"]
    return _order_tips(table, by)


def tip_win_rates(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Win rate of setups following each tip against those that do not, with Wilson 95% CIs.

    Only setups with a known winner count (``won`` not NA): draws and unknown results are
    excluded; resignations, timeouts and disconnections count as the record says. Columns:
    [*by, tip, n_follow, wins_follow, rate_follow, low_follow, high_follow, n_other,
    wins_other, rate_other, low_other, high_other, difference].
    """
    long = _long_tips(features, by)
    long = long[long["won"].notna()]
    long = long.assign(
        followed=long["follows"].astype(bool), won_int=long["won"].astype(bool).astype(int)
    )
    grouped = long.groupby([*by, "tip", "followed"], sort=False, observed=True)["won_int"]
    counts = pd.DataFrame(grouped.agg(["size", "sum"]).unstack("followed", fill_value=0))
    table = pd.DataFrame(index=counts.index)
    for flag, suffix in ((True, "follow"), (False, "other")):
        n = _column(counts, "size", flag)
        wins = _column(counts, "sum", flag)
        low, high = wilson(wins, n)
        table[f"n_{suffix}"] = n
        table[f"wins_{suffix}"] = wins
        table[f"rate_{suffix}"] = np.where(n > 0, wins / np.maximum(n, 1), np.nan)
        table[f"low_{suffix}"] = low
        table[f"high_{suffix}"] = high
    table["difference"] = table["rate_follow"] - table["rate_other"]
    return _order_tips(table.reset_index(), by)


def tip_head_to_head(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Games where exactly one side follows a tip: how often that side wins, Wilson 95% CI.

    Both setups of a game meet the same ending, clock and server, so this within-game view
    is less exposed to game-level noise than :func:`tip_win_rates`; it still cannot tell the
    tip from the skill of the players who choose it. Decided games only (no draws).
    Columns: [*by, tip, games, follower_wins, rate, low, high].
    """
    long = _long_tips(features, [*by, "game_id"])
    long = long[long["won"].notna()].assign(
        followed=lambda f: f["follows"].astype(bool),
        won_bool=lambda f: f["won"].astype(bool),
    )
    long = long.assign(follower_won=long["followed"] & long["won_bool"])
    per_game = long.groupby([*by, "tip", "game_id"], sort=False, observed=True).agg(
        sides=("followed", "size"), followers=("followed", "sum"), won=("follower_won", "sum")
    )
    split = per_game[(per_game["sides"] == 2) & (per_game["followers"] == 1)].reset_index()
    table = (
        split.groupby([*by, "tip"], sort=False, observed=True)
        .agg(games=("won", "size"), follower_wins=("won", "sum"))
        .reset_index()
    )
    table["rate"] = table["follower_wins"] / table["games"]
    table["low"], table["high"] = wilson(table["follower_wins"], table["games"])
    return _order_tips(table, by)


def _column(counts: pd.DataFrame, stat: str, flag: bool) -> IntArray:
    if (stat, flag) in counts.columns:
        return counts[(stat, flag)].to_numpy(np.int64)
    return np.zeros(len(counts), dtype=np.int64)


def _order_tips(table: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    order = {name: i for i, name in enumerate(TIP_NAMES)}
    table = table.assign(_order=table["tip"].map(order))
    return table.sort_values([*by, "_order"]).drop(columns="_order").reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# Neighbours and predictability
# ---------------------------------------------------------------------------------------


def adjacency(
    data: Data, variant: str | Sequence[str] | None = None, *, exclude_invalid: bool = True
) -> pd.DataFrame:
    """Which kinds stand orthogonally next to each other, against chance, per variant.

    Columns: variant, piece_a, piece_b (each unordered pair once, a <= b by kind value),
    setups, observed (neighbour pairs over all setups), expected, ratio = observed / expected.
    ``expected`` is analytic, not simulated: the same army shuffled uniformly over the same 40
    squares puts kinds a != b on a given neighbour pair with probability 2·na·nb / (40·39),
    a and a with na·(na-1) / (40·39); times the 66 neighbour pairs and the number of setups.
    """
    return adjacency_table(grid_of(data, variant, exclude_invalid))


def adjacency_table(grid: SetupGrid) -> pd.DataFrame:
    parts = [_adjacency_of(name, grid) for name in ARMIES]
    parts = [part for part in parts if len(part)]
    return pd.concat(parts, ignore_index=True) if parts else _empty_adjacency()


def _empty_adjacency() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "variant": pd.Series(dtype=object),
            "piece_a": pd.Series(dtype=object),
            "piece_b": pd.Series(dtype=object),
            "setups": pd.Series(dtype=np.int64),
            "observed": pd.Series(dtype=np.int64),
            "expected": pd.Series(dtype=np.float64),
            "ratio": pd.Series(dtype=np.float64),
        }
    )


def _pair_probability(variant: str) -> npt.NDArray[np.float64]:
    """Chance that a given neighbour pair holds kinds (a, b), a <= b, in a shuffled army."""
    army = np.array(ARMIES[variant], dtype=np.float64)
    pair_p = 2 * np.outer(army, army)
    np.fill_diagonal(pair_p, army * (army - 1))
    return pair_p / (CELLS * (CELLS - 1))


def _adjacency_of(variant: str, grid: SetupGrid) -> pd.DataFrame:
    kinds = grid.kinds[grid.meta["variant"].astype(str).to_numpy() == variant]
    nk = len(KIND_LABELS)
    if not len(kinds):
        return pd.DataFrame()
    a = kinds[:, EDGES[:, 0]].ravel()
    b = kinds[:, EDGES[:, 1]].ravel()
    a, b = np.where(a < 0, nk, a), np.where(b < 0, nk, b)
    ordered = np.bincount(a * (nk + 1) + b, minlength=(nk + 1) ** 2).reshape(nk + 1, nk + 1)
    unordered = np.triu(ordered + ordered.T - np.diag(np.diag(ordered)))[:nk, :nk]
    ia, ib = np.triu_indices(nk)
    keep = _pair_probability(variant)[ia, ib] > 0
    ia, ib = ia[keep], ib[keep]
    counts = pd.DataFrame(
        {
            "variant": variant,
            "piece_a": [KIND_LABELS[i] for i in ia],
            "piece_b": [KIND_LABELS[i] for i in ib],
            "setups": len(kinds),
            "observed": unordered[ia, ib].astype(np.int64),
        }
    )
    return adjacency_from_counts(counts)


def adjacency_from_counts(counts: pd.DataFrame) -> pd.DataFrame:
    """:func:`adjacency`'s expected counts and ratios from its ``setups`` and ``observed``
    columns (which add up across batches of games, so a table summed over batches can be
    finished here)."""
    if not len(counts):
        return _empty_adjacency()
    index = {label: i for i, label in enumerate(KIND_LABELS)}
    ia = counts["piece_a"].map(index).to_numpy(np.int64)
    ib = counts["piece_b"].map(index).to_numpy(np.int64)
    pair_p = np.empty(len(counts), dtype=np.float64)
    variants = counts["variant"].astype(str).to_numpy()
    for variant in dict.fromkeys(variants):
        rows = variants == variant
        pair_p[rows] = _pair_probability(variant)[ia[rows], ib[rows]]
    setups = counts["setups"].to_numpy(np.int64)
    expected = len(EDGES) * setups * pair_p
    observed = counts["observed"].to_numpy(np.int64)
    return (
        counts[["variant", "piece_a", "piece_b"]]
        .assign(setups=setups, observed=observed, expected=expected, ratio=observed / expected)
        .reset_index(drop=True)
    )


def ordered_adjacency(table: pd.DataFrame | None) -> pd.DataFrame:
    """Neighbour counts in one fixed order: variants as the armies list them, then kinds."""
    if table is None:
        return pd.DataFrame()
    variants = {name: i for i, name in enumerate(ARMIES)}
    kinds = {label: i for i, label in enumerate(KIND_LABELS)}
    order = np.lexsort(
        (
            table["piece_b"].map(kinds).to_numpy(),
            table["piece_a"].map(kinds).to_numpy(),
            table["variant"].astype(str).map(variants).to_numpy(),
        )
    )
    return table.iloc[order].reset_index(drop=True)


def ordered_cells(cells: pd.DataFrame | None) -> pd.DataFrame:
    """Placement counts in one fixed order: kind, variant, row, column."""
    if cells is None:
        return pd.DataFrame()
    kinds = {label: i for i, label in enumerate(KIND_LABELS)}
    order = np.lexsort(
        (
            cells["col"].to_numpy(),
            cells["row"].to_numpy(),
            cells["variant"].astype(str).to_numpy(),
            cells["piece"].map(kinds).to_numpy(),
        )
    )
    return cells.iloc[order].reset_index(drop=True)


def adjacency_matrix(table: pd.DataFrame, variant: str = DEFAULT_VARIANT) -> pd.DataFrame:
    """The :func:`adjacency` ratios of one variant as a symmetric kind-by-kind matrix."""
    rows = table[table["variant"] == variant]
    both = pd.concat(
        [rows, rows.rename(columns={"piece_a": "piece_b", "piece_b": "piece_a"})]
    ).drop_duplicates(["piece_a", "piece_b"])
    matrix = both.pivot(index="piece_a", columns="piece_b", values="ratio")
    order = [label for label in KIND_LABELS if label in matrix.index]
    return matrix.loc[order, order]


def placement_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """``stats.piece_placement`` by variant for every kind, stacked with a ``piece`` column,
    each kind counted over the setups holding it (``setups``: those setups)."""
    frame = frame[frame["variant"].isin(list(ARMIES))]
    kinds = lookup_codes(frame["piece"], LABEL_KIND, -1)
    present = [label for kind, label in enumerate(KIND_LABELS) if (kinds == kind).any()]
    if not present:
        return pd.DataFrame()
    # All kinds in one pass; then each kind's sample is the setups that hold it.
    placed = piece_placements(frame, present, "variant", exclude_invalid=False)
    held = frame.loc[kinds >= 0, ["game_id", "side", "variant"]].assign(kind=kinds[kinds >= 0])
    held = held.assign(variant=held["variant"].astype(str))
    holders = (
        held.drop_duplicates(["game_id", "side", "kind"])
        .groupby(["kind", "variant"], sort=True)
        .size()
    )
    parts = []
    for label in present:
        setups: pd.Series = holders.xs(LABEL_KIND[label], level="kind")
        table = placed[label]
        table = table[table["variant"].astype(str).isin(setups.index)].reset_index(drop=True)
        table["setups"] = table["variant"].astype(str).map(setups).astype("int64")
        table["share"] = table["count"] / table["setups"].where(table["setups"] > 0)
        parts.append(table.assign(piece=label))
    cells = pd.concat(parts, ignore_index=True)
    cells["variant"] = cells["variant"].astype(str)
    return cells


def placement_entropy(
    data: Data, variant: str | Sequence[str] | None = None, *, exclude_invalid: bool = True
) -> pd.DataFrame:
    """How predictable each kind's square is: entropy of its placement over the 40 squares.

    Columns: variant, piece, setups (holding that kind), pieces (of that kind), entropy_bits
    (plug-in estimate, in bits, of the square of a randomly chosen piece of that kind, from
    :func:`strat_tools.stats.piece_placement` counts), corrected_bits (Miller-Madow: plus
    (occupied squares - 1) / (2·pieces·ln 2), since the plug-in estimate runs low on small
    samples such as duell's 62 setups), max_bits (log2 40 = 5.32, the uniform maximum),
    relative = entropy_bits / max_bits. Sorted per variant from most predictable (lowest
    entropy) to least.
    """
    cells = placement_cells(
        setup_frame(
            data,
            None,
            ALL_VARIANTS if variant is None else variant,
            exclude_invalid=exclude_invalid,
        )
    )
    return entropy_from_cells(cells)


def entropy_from_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """:func:`placement_entropy` from placement counts per variant, piece and cell
    ([variant, row, col, count, setups, piece], which add up across batches of games)."""
    if not len(cells):
        return pd.DataFrame(
            columns=[
                "variant",
                "piece",
                "setups",
                "pieces",
                "entropy_bits",
                "corrected_bits",
                "max_bits",
                "relative",
            ]
        )
    totals = cells.groupby(["variant", "piece"], sort=False)["count"].transform("sum")
    p = (cells["count"] / totals.where(totals > 0)).fillna(0.0).to_numpy(np.float64)
    cells = cells.assign(
        _h=-p * np.log2(np.where(p > 0, p, 1.0)), _used=(cells["count"] > 0).astype(np.int64)
    )
    table = (
        cells.groupby(["variant", "piece"], sort=False)
        .agg(
            setups=("setups", "first"),
            pieces=("count", "sum"),
            entropy_bits=("_h", "sum"),
            used=("_used", "sum"),
        )
        .reset_index()
    )
    table = table[table["pieces"] > 0]
    table["corrected_bits"] = table["entropy_bits"] + (table["used"] - 1) / (
        2 * table["pieces"] * math.log(2)
    )
    table = table.drop(columns="used")
    table["max_bits"] = math.log2(CELLS)
    table["relative"] = table["entropy_bits"] / table["max_bits"]
    table["pieces"] = table["pieces"].astype(np.int64)
    return table.sort_values(["variant", "entropy_bits"]).reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# Views for the CLI, the report and notebooks
# ---------------------------------------------------------------------------------------

VIEWS: Final = ("tips", "periods", "adjacency", "entropy", "catalogue")
"""What :func:`advice_table` can show: per-tip summary, adoption by period, neighbour
ratios, placement entropy, the tip texts."""


def tip_summary(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Adoption, win rates and head-to-head side by side: one row per tip (and group).

    The same table as :func:`tip_adoption`, :func:`tip_win_rates` and
    :func:`tip_head_to_head` merged, computed from :func:`tip_counts`.
    """
    return tip_summary_from_counts(tip_counts(features, by), by)


TIP_COUNTS: Final = (
    "setups", "followed", "n_follow", "wins_follow", "n_other", "wins_other", "h2h_games",
    "h2h_wins",
)  # fmt: skip
"""The count columns of :func:`tip_counts`: they add up across batches of games."""


def tip_counts(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """The counts behind :func:`tip_summary`, per group and tip: [*by, tip, setups,
    followed, n_follow, wins_follow, n_other, wins_other, h2h_games, h2h_wins].

    Counts of separate batches of games add up (a game's two setups are in one batch), so
    a summary over any number of games needs only these, summed
    (:func:`tip_summary_from_counts`), never every setup's features at once.
    """
    keys = [*by, "tip"]
    long = _long_tips(features, [*by, "game_id"])
    long = long.assign(followed=long["follows"].astype(bool))
    table = (
        long.groupby(keys, sort=False, observed=True)
        .agg(setups=("followed", "size"), followed=("followed", "sum"))
        .reset_index()
    )
    decided = long[long["won"].notna()]
    won = decided["won"].astype(bool)
    follow = decided["followed"]
    rates = (
        decided.assign(
            n_follow=follow, wins_follow=follow & won, n_other=~follow, wins_other=~follow & won
        )
        .groupby(keys, sort=False, observed=True)[["n_follow", "wins_follow", "n_other",
                                                   "wins_other"]]
        .sum()
        .reset_index()
    )  # fmt: skip
    duels = tip_head_to_head(features, by)[[*keys, "games", "follower_wins"]].rename(
        columns={"games": "h2h_games", "follower_wins": "h2h_wins"}
    )
    table = table.merge(rates, on=keys, how="left").merge(duels, on=keys, how="left")
    counts = {name: table[name].fillna(0).astype(np.int64) for name in TIP_COUNTS}
    return table.assign(**counts)[[*keys, *TIP_COUNTS]]


def tip_summary_from_counts(counts: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """:func:`tip_summary` from :func:`tip_counts` (of one batch, or summed over many)."""
    keys = [*by, "tip"]
    adoption = counts[keys].assign(setups=counts["setups"], followed=counts["followed"])
    adoption["share"] = adoption["followed"] / adoption["setups"]
    adoption = _order_tips(adoption, by)
    decided = counts[(counts["n_follow"] + counts["n_other"]) > 0]
    rates = decided[keys].reset_index(drop=True)
    for suffix in ("follow", "other"):
        n = decided[f"n_{suffix}"].to_numpy(np.int64)
        wins = decided[f"wins_{suffix}"].to_numpy(np.int64)
        low, high = wilson(wins, n)
        rates[f"n_{suffix}"] = n
        rates[f"wins_{suffix}"] = wins
        rates[f"rate_{suffix}"] = np.where(n > 0, wins / np.maximum(n, 1), np.nan)
        rates[f"low_{suffix}"], rates[f"high_{suffix}"] = low, high
    rates["difference"] = rates["rate_follow"] - rates["rate_other"]
    rates = _order_tips(rates, by)
    split = counts[counts["h2h_games"] > 0]
    duels = split[keys].assign(
        h2h_games=split["h2h_games"].to_numpy(np.int64),
        h2h_wins=split["h2h_wins"].to_numpy(np.int64),
    )
    duels["h2h_rate"] = duels["h2h_wins"] / duels["h2h_games"]
    duels["h2h_low"], duels["h2h_high"] = wilson(duels["h2h_wins"], duels["h2h_games"])
    duels = _order_tips(duels, by)
    table = adoption.merge(rates, on=keys, how="left")
    table = table.merge(duels, on=keys, how="left")
    table["h2h_games"] = table["h2h_games"].fillna(0).astype(np.int64)
    table["h2h_wins"] = table["h2h_wins"].fillna(0).astype(np.int64)
    titles = {tip.name: tip.title for tip in TIPS}
    table.insert(len(by) + 1, "title", table["tip"].map(titles))
    return table


def _check_view(view: str, variant: str | None) -> None:
    if view not in VIEWS:
        raise OptionError(f"unknown advice view {view!r}; choose from {', '.join(VIEWS)}")
    if variant is not None and variant not in ARMIES:
        raise OptionError(f"no fixed army for variant {variant!r}; choose from {', '.join(ARMIES)}")


def advice_counts(
    data: TableSet, view: str, variant: str | None, exclude_invalid: bool = True
) -> pd.DataFrame:
    """One batch's counts for an advice view: tip counts, neighbour counts or placement
    cells, which add up across batches (top-level: shipped to the workers)."""
    if view == "adjacency":
        table = adjacency_table(grid_of(data, variant, exclude_invalid))
        return table[["variant", "piece_a", "piece_b", "setups", "observed"]]
    if view == "entropy":
        return placement_cells(
            setup_frame(
                data,
                None,
                ALL_VARIANTS if variant is None else variant,
                exclude_invalid=exclude_invalid,
            )
        )
    features = setup_features(data, variant, exclude_invalid=exclude_invalid)
    return tip_counts(features, ["variant", "period"] if view == "periods" else ["variant"])


def finish_advice(counts: pd.DataFrame, view: str) -> pd.DataFrame:
    """An advice view's table from its counts (of one batch, or summed over many)."""
    if view == "adjacency":
        table = adjacency_from_counts(ordered_adjacency(counts))
        return table.sort_values(["variant", "ratio"], ascending=[True, False]).reset_index(
            drop=True
        )
    if view == "entropy":
        return entropy_from_cells(ordered_cells(counts))
    by = ["variant", "period"] if view == "periods" else ["variant"]
    return tip_summary_from_counts(counts, by).astype({key: str for key in by})


def advice_table(
    data: Data,
    view: str = "tips",
    variant: str | None = DEFAULT_VARIANT,
    *,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """One advice view as a flat table, for ``strat-tools advice`` (``variant=None``: all):
    the finish of the counts of every setup, as :func:`advice_table_of_paths` computes it
    batch by batch.

    >>> import strat_tools as st
    >>> games = st.read_games("tests/fixtures/gravon/classic-2014.4-17.xml", setups_only=True)
    >>> advice_table(games, "tips", "classic")[["tip", "setups", "followed"]].head(2)
                  tip  setups  followed
    0  flag_bombed_in       2         0
    1    corner_decoy       2         0
    """
    _check_view(view, variant)
    if view == "catalogue":
        return tip_catalogue()
    return finish_advice(advice_counts(data, view, variant, exclude_invalid), view)  # type: ignore[arg-type]


def advice_table_of_paths(
    paths: Paths,
    view: str = "tips",
    variant: str | None = DEFAULT_VARIANT,
    *,
    exclude_invalid: bool = True,
    select: Select | None = None,
    jobs: int | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
) -> pd.DataFrame:
    """:func:`advice_table` of the game records under ``paths``, counted batch by batch
    where they are read (tip, neighbour and placement counts add up), so memory does not
    grow with the number of setups."""
    _check_view(view, variant)
    if view == "catalogue":
        return tip_catalogue()
    keys = {
        "adjacency": ("variant", "piece_a", "piece_b"),
        "entropy": ("variant", "piece", "row", "col"),
        "periods": ("variant", "period", "tip"),
    }.get(view, ("variant", "tip"))
    held: pd.DataFrame | None = None
    work = partial(advice_counts, view=view, variant=variant, exclude_invalid=exclude_invalid)
    for part in reduce_batches(
        work, paths, setups_only=True, select=select, jobs=jobs, progress=progress, tally=tally
    ):  # fmt: skip
        held = sum_counts(held, part, keys)
    if held is None:
        held = advice_counts(empty_gameset(), view, variant, exclude_invalid)
    return finish_advice(held, view)


def advice_section_data(
    data: Data, variant: str = DEFAULT_VARIANT, *, exclude_invalid: bool = True
) -> dict[str, pd.DataFrame]:
    """Everything the report's advice section shows, computed once.

    Keys: ``catalogue`` (tip texts and definitions), ``summary`` (adoption and win rates per
    tip and variant), ``periods`` (adoption per variant and period), ``adjacency`` (long
    table, all variants), ``adjacency_matrix`` (ratios for ``variant``, kinds by kinds),
    ``entropy`` (all variants).
    """
    frame = setup_frame(data, None, ALL_VARIANTS, exclude_invalid=exclude_invalid)
    grid = setup_grid(frame)
    features = features_from_grid(grid)
    neighbours = adjacency_table(grid)
    return {
        "catalogue": tip_catalogue(),
        "summary": tip_summary(features, ["variant"]),
        "periods": tip_adoption(features, ["variant", "period"]),
        "adjacency": neighbours,
        "adjacency_matrix": adjacency_matrix(neighbours, variant),
        "entropy": placement_entropy(frame, exclude_invalid=False),
    }
