"""Win rates with two intervals: one per game, and one that knows setups repeat.

The plain interval (``ci_low``/``ci_high``) is Wilson's score interval, treating every
decided game of a setup as an independent trial. On Gravon that is too hopeful: one player
may play the same setup two hundred times, and those games share the player as much as the
setup. The clustered interval (``cluster_ci_low``/``cluster_ci_high``) treats all games of
one setup (by default its mirror fingerprint, :mod:`strat_tools.setups.identity`) as one cluster:

- ``p = Y / N`` with ``N`` decided games in ``G`` clusters, cluster ``g`` holding ``n_g``
  games of which ``y_g`` were won;
- the cluster-robust variance of that ratio, ``V = G / (G - 1) * sum_g (y_g - p n_g)^2 / N^2``
  (the sandwich estimator with the usual small-sample factor);
- the effective sample size ``n_eff = p (1 - p) / V``, at most ``N`` (a design effect below
  one would claim more than the games hold); where ``p`` is 0 or 1, or ``G == 1``, the
  variance says nothing and ``n_eff = G``: every cluster counts once;
- the Wilson interval (:func:`~strat_tools.stats.formulas.wilson`) of ``p`` at ``n_eff``
  trials, with Student's ``t`` quantile at
  ``G - 1`` degrees of freedom in place of the normal 1.96 (the usual correction when there
  are few clusters: the sandwich variance is itself uncertain then); a single cluster gets
  the normal quantile at ``n_eff = 1``.

So copying every game of every setup ten times leaves ``p``, ``V`` and the clustered
interval exactly as they were, while the plain interval narrows by about ``sqrt(10)``
(``tests/test_intervals.py`` checks both). A Wilson interval at the effective sample size
keeps Wilson's good behaviour near 0 and 1, which a Wald interval ``p +- 1.96 sqrt(V)`` lacks.

Also here: :func:`two_proportion_z`, the z-score of a difference of two win rates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.stats.formulas import Z95, wilson

FloatArray = npt.NDArray[np.float64]

_T975: Final = np.array(
    [
        *(np.nan, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228),
        *(2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086),
        *(2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042),
    ]
)
"""Student's t quantile 0.975 for 1..30 degrees of freedom (standard tables)."""


def t_quantile_975(df: npt.ArrayLike) -> FloatArray:
    """Student's t 0.975 quantile at ``df`` degrees of freedom: the table to 30, then the
    Cornish-Fisher expansion around the normal quantile (within 0.001 there); ``df < 1``
    gives the normal quantile.

    >>> [round(float(t), 3) for t in t_quantile_975([1, 10, 60, 0])]
    [12.706, 2.228, 2.0, 1.96]
    """
    nu = np.asarray(df, dtype=np.float64)
    z = Z95
    with np.errstate(invalid="ignore", divide="ignore"):
        series = (
            z
            + (z**3 + z) / (4 * nu)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * nu**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * nu**3)
        )
    table = _T975[np.clip(nu, 0, 30).astype(np.int64)]
    return np.where(nu < 1, z, np.where(nu <= 30, table, series))


WIN_RATE_COLUMNS: Final = (
    "setups",
    "distinct_setups",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "cluster_ci_low",
    "cluster_ci_high",
)
"""The columns :func:`win_rate_table` adds after the group keys."""


def effective_size(
    n: npt.ArrayLike,
    y: npt.ArrayLike,
    clusters: npt.ArrayLike,
    sum_y2: npt.ArrayLike,
    sum_yn: npt.ArrayLike,
    sum_n2: npt.ArrayLike,
) -> FloatArray:
    """The effective sample size of each group from its cluster sums (see the module
    docstring): ``n``, ``y`` games and wins, ``clusters`` = G, and the sums over clusters of
    ``y_g^2``, ``y_g n_g`` and ``n_g^2``."""
    big_n = np.asarray(n, dtype=np.float64)
    g = np.asarray(clusters, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.asarray(y, dtype=np.float64) / big_n
        spread = (
            np.asarray(sum_y2, np.float64)
            - 2 * p * np.asarray(sum_yn, np.float64)
            + p * p * np.asarray(sum_n2, np.float64)
        )
        variance = g / (g - 1) * np.maximum(spread, 0.0) / (big_n * big_n)
        n_eff = p * (1 - p) / variance
    informative = (g > 1) & (p > 0) & (p < 1)
    n_eff = np.where(informative, np.minimum(np.where(variance > 0, n_eff, big_n), big_n), g)
    return np.where(big_n > 0, n_eff, 0.0)


def cluster_interval(wins: Sequence[int], games: Sequence[int]) -> tuple[float, float]:
    """The clustered interval of one win rate, from each cluster's wins and decided games.

    >>> low, high = cluster_interval([4, 0, 2], [4, 2, 4])  # 6 of 10 games won
    >>> round(low, 3), round(high, 3)  # the plain Wilson interval is (0.313, 0.832)
    (0.064, 0.971)
    >>> low10, high10 = cluster_interval([40, 0, 20], [40, 20, 40])  # every game ten times
    >>> round(low10, 9) == round(low, 9), round(high10, 9) == round(high, 9)
    (True, True)
    """
    y = np.asarray(wins, dtype=np.float64)
    m = np.asarray(games, dtype=np.float64)
    n_eff = effective_size(m.sum(), y.sum(), len(m), (y * y).sum(), (y * m).sum(), (m * m).sum())
    p = y.sum() / m.sum() if m.sum() else np.nan
    low, high = wilson(p * n_eff, n_eff, t_quantile_975(len(m) - 1))
    return float(low), float(high)


def cluster_counts(
    frame: pd.DataFrame, keys: Sequence[str], cluster: str = "mirror_fingerprint"
) -> pd.DataFrame:
    """Decided games (``setups``) and ``wins`` per group of ``keys`` and cluster: the part of
    a win rate that adds up across batches (a cluster may span batches).

    ``frame`` has one row per decided setup: the ``keys``, a boolean ``won`` and the
    ``cluster`` column.
    """
    won = frame["won"].astype(bool).astype(np.int64)
    # Plain strings: a categorical cluster column carries its batch's categories, and
    # combining batches must never cast one batch's setups into another's categories.
    plain = frame[cluster].astype(object).where(frame[cluster].notna(), None)
    per: pd.DataFrame = (
        frame.assign(_won=won, **{cluster: plain})
        .groupby([*keys, cluster], observed=True, sort=True, dropna=False)["_won"]
        .agg(["size", "sum"])
        .rename(columns={"size": "setups", "sum": "wins"})
        .reset_index()
    )
    return per


def win_rates_of_clusters(per: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Win rate per group of ``keys`` from per-cluster counts (:func:`cluster_counts`, or
    their sum over batches), with both intervals: ``[*keys, *WIN_RATE_COLUMNS]``."""
    keys = list(keys)
    n, y = per["setups"].astype(np.int64), per["wins"].astype(np.int64)
    per = per.assign(n=n, y=y, y2=y * y, yn=y * n, n2=n * n)
    sums = {"setups": ("n", "sum"), "wins": ("y", "sum"), "distinct_setups": ("n", "size")}
    sums |= {"y2": ("y2", "sum"), "yn": ("yn", "sum"), "n2": ("n2", "sum")}
    if keys:
        table = per.groupby(keys, observed=True, sort=True, dropna=False).agg(**sums).reset_index()
    else:
        table = pd.DataFrame({name: [per[col].agg(how)] for name, (col, how) in sums.items()})
        table = table.fillna(0).astype("int64")
    return finish_win_rates(table, keys)


def win_rate_table(
    frame: pd.DataFrame, keys: Sequence[str], cluster: str = "mirror_fingerprint"
) -> pd.DataFrame:
    """Win rate per group of ``keys``, with the plain and the clustered interval.

    ``frame`` has one row per decided setup: the ``keys``, a boolean ``won`` and the
    ``cluster`` column. Columns: ``[*keys, *WIN_RATE_COLUMNS]``; ``setups`` counts the
    decided setups, ``distinct_setups`` the clusters among them.
    """
    return win_rates_of_clusters(cluster_counts(frame, keys, cluster), keys)


def finish_win_rates(table: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """From per-group sums (``setups``, ``wins``, ``distinct_setups``, ``y2``, ``yn``,
    ``n2``) to the win-rate columns; the sums add across batches, so a streamed statistic
    can keep them and finish once."""
    n = table["setups"].to_numpy(np.float64)
    y = table["wins"].to_numpy(np.float64)
    low, high = wilson(y, n)
    n_eff = effective_size(n, y, table["distinct_setups"], table["y2"], table["yn"], table["n2"])
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = y / n
    quantile = t_quantile_975(table["distinct_setups"].to_numpy(np.float64) - 1)
    c_low, c_high = wilson(rate * n_eff, n_eff, quantile)
    out = table[list(keys)].copy()
    out["setups"] = table["setups"].astype("int64")
    out["distinct_setups"] = table["distinct_setups"].astype("int64")
    out["wins"] = table["wins"].astype("int64")
    out["win_rate"] = rate
    out["ci_low"], out["ci_high"] = low, high
    out["cluster_ci_low"], out["cluster_ci_high"] = c_low, c_high
    return out


def two_proportion_z(k1: float, n1: float, k2: float, n2: float) -> float:
    """The z-score of ``k1/n1 - k2/n2`` under the pooled null of equal rates (NaN when a
    sample is empty or the pooled rate is 0 or 1).

    >>> round(two_proportion_z(60, 100, 50, 100), 2)
    1.42
    """
    if n1 <= 0 or n2 <= 0:
        return float("nan")
    pooled = (k1 + k2) / (n1 + n2)
    if pooled in (0.0, 1.0):
        return float("nan")
    se = float(np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2)))
    return (k1 / n1 - k2 / n2) / se


def score_z(wins: float, draws: float, games: float) -> float:
    """rhalbersma/gravon's z-score of a setup's score (a win 1, a draw 1/2) against an even
    0.5: ``n (s - 0.5) / sqrt(n / 4)`` with ``s = (wins + draws / 2) / n``.

    >>> round(score_z(60, 0, 100), 6)
    2.0
    """
    if games <= 0:
        return float("nan")
    score = (wins + draws / 2) / games
    return float(games * (score - 0.5) / np.sqrt(games * 0.25))


WIN_MORE: Final = "followers win more"
WIN_LESS: Final = "followers win less"
HOLDS: Final = (WIN_MORE, WIN_LESS)
"""The verdicts of a gap that holds, each saying its direction."""
NO_LONGER_HOLDS: Final = "no clear difference once repeats count once"
NOT_SIGNIFICANT: Final = "no clear difference"
VERDICTS: Final = (WIN_MORE, WIN_LESS, NO_LONGER_HOLDS, NOT_SIGNIFICANT)
"""What :func:`gap_verdicts` says of a gap between two win rates, in the words a player
reads: the followers (of a tip, or the setups with a feature) against the rest."""


def gap_verdicts(a: pd.DataFrame, b: pd.DataFrame) -> pd.Series:
    """Per row, whether the gap between two win rates holds, and which way: ``a`` (the
    followers) and ``b`` (the rest) have the columns ``ci_low``, ``ci_high``,
    ``cluster_ci_low``, ``cluster_ci_high`` (row for row).

    :data:`WIN_MORE` (``a`` above ``b``) or :data:`WIN_LESS` (below) when neither the
    plain nor the clustered intervals overlap, :data:`NO_LONGER_HOLDS` when the plain ones
    do not overlap but the clustered ones do (the gap rests on repeated setups counted as
    independent), :data:`NOT_SIGNIFICANT` when the plain intervals overlap; NA where a side
    has no interval.

    >>> a = pd.DataFrame({"ci_low": [0.6, 0.3, 0.6, 0.4], "ci_high": [0.7, 0.35, 0.7, 0.6],
    ...                   "cluster_ci_low": [0.58, 0.28, 0.5, 0.3],
    ...                   "cluster_ci_high": [0.72, 0.36, 0.8, 0.7]})
    >>> b = pd.DataFrame({"ci_low": [0.4] * 4, "ci_high": [0.5] * 4,
    ...                   "cluster_ci_low": [0.38] * 4, "cluster_ci_high": [0.55] * 4})
    >>> gap_verdicts(a, b).tolist()  # doctest: +NORMALIZE_WHITESPACE
    ['followers win more', 'followers win less', 'no clear difference once repeats count
    once', 'no clear difference']
    """

    def apart(low: str, high: str) -> npt.NDArray[np.bool_]:
        return np.asarray(
            (a[high].to_numpy(np.float64) < b[low].to_numpy(np.float64))
            | (b[high].to_numpy(np.float64) < a[low].to_numpy(np.float64))
        )

    plain, clustered = apart("ci_low", "ci_high"), apart("cluster_ci_low", "cluster_ci_high")
    above = a["ci_low"].to_numpy(np.float64) > b["ci_high"].to_numpy(np.float64)
    held = np.where(above, WIN_MORE, WIN_LESS)
    verdict = np.where(plain, np.where(clustered, held, NO_LONGER_HOLDS), NOT_SIGNIFICANT)
    known = np.ones(len(a), dtype=np.bool_)
    for frame in (a, b):
        for column in ("ci_low", "ci_high", "cluster_ci_low", "cluster_ci_high"):
            known &= frame[column].notna().to_numpy()
    return pd.Series(verdict, dtype="string", index=a.index).where(known, pd.NA)


def interval_label(low: float | None, high: float | None) -> str:
    """A 95% interval as text in percent, ``'47.1–49.3%'``; ``'–'`` where there is none
    (no games). The one formatter of the report's and the advice command's intervals.

    >>> interval_label(0.471, 0.493), interval_label(None, 0.5)
    ('47.1–49.3%', '–')
    """
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return "–"
    return f"{low * 100:.1f}–{high * 100:.1f}%"


def rate_label(rate: float | None, low: float | None, high: float | None) -> str:
    """A rate with its interval, ``'55.6% (49.8–61.1%)'``; ``'–'`` without games.

    >>> rate_label(0.5556, 0.498, 0.611), rate_label(float("nan"), None, None)
    ('55.6% (49.8–61.1%)', '–')
    """
    if rate is None or pd.isna(rate):
        return "–"
    return f"{rate * 100:.1f}% ({interval_label(low, high)})"
