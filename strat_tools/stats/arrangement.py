"""How the pieces of real setups are arranged: neighbours against chance, and how
predictable each kind's square is.

- :func:`adjacency`: which kinds stand next to each other more or less often than chance;
- :func:`placement_entropy`: how predictable each kind's square is, in bits.

Both come from counts that add up across batches of games (:func:`adjacency_table`'s
``setups``/``observed``, :func:`placement_cells`), finished by :func:`adjacency_from_counts`
and :func:`entropy_from_cells`, so :mod:`strat_tools.stats.advice` can stream them. Reads no
files and draws nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.core.pieces import ARMIES, KIND_LABELS
from strat_tools.core.records import ALL_VARIANTS, DEFAULT_VARIANT
from strat_tools.setups.grid import CELLS, EDGES, LABEL_KIND, SetupGrid, lookup_codes
from strat_tools.stats.formulas import entropy_bits, miller_madow, share
from strat_tools.stats.frames import Data, setup_frame
from strat_tools.stats.setups import piece_placements
from strat_tools.stats.tips import grid_of


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
        table["share"] = share(table["count"], table["setups"])
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
    scope = ALL_VARIANTS if variant is None else variant
    cells = placement_cells(setup_frame(data, None, scope, exclude_invalid=exclude_invalid))
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
    p = share(cells["count"], totals).fillna(0.0).to_numpy(np.float64)
    cells = cells.assign(_h=entropy_bits(p), _used=(cells["count"] > 0).astype(np.int64))
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
    table["corrected_bits"] = miller_madow(table["entropy_bits"], table["used"], table["pieces"])
    table = table.drop(columns="used")
    table["max_bits"] = math.log2(CELLS)
    table["relative"] = table["entropy_bits"] / table["max_bits"]
    table["pieces"] = table["pieces"].astype(np.int64)
    return table.sort_values(["variant", "entropy_bits"]).reset_index(drop=True)
