"""Every formula the statistics use, written once: shares, Wilson intervals, entropies.

Vectorised over whole columns (NumPy / pandas), so a table of counts gets its derived columns
in one call whatever its length. The statistics (:mod:`strat_tools.stats`), the advice and
the report all take their derived values from here; none writes its own.

>>> low, high = wilson(8, 10)
>>> round(float(low), 3), round(float(high), 3)
(0.49, 0.943)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

Z95: float = 1.96
"""The normal quantile of a two-sided 95% interval."""

FloatArray = npt.NDArray[np.float64]


def share(count: pd.Series, total: pd.Series | int | float) -> pd.Series:
    """``count / total``, NaN where the total is 0 (never a division by zero).

    >>> share(pd.Series([1, 0]), pd.Series([4, 0])).tolist()
    [0.25, nan]
    """
    if isinstance(total, pd.Series):
        return count / total.where(total > 0)
    return count / total if total > 0 else count * math.nan


def share_within(table: pd.DataFrame, keys: Sequence[str], column: str = "count") -> pd.Series:
    """Each row's ``column`` over the sum of ``column`` in its group of ``keys`` (all rows
    when no keys): a distribution's shares.

    >>> t = pd.DataFrame({"v": ["a", "a", "b"], "count": [1, 3, 2]})
    >>> share_within(t, ["v"]).tolist()
    [0.25, 0.75, 1.0]
    """
    keys = list(keys)
    if keys:
        return share(table[column], table.groupby(keys)[column].transform("sum"))
    return share(table[column], float(table[column].sum()))


def rate(wins: Any, n: Any) -> FloatArray:
    """``wins / n`` as floats, NaN where ``n`` is 0."""
    k = np.asarray(wins, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m > 0, k / np.maximum(m, 1), np.nan)


def wilson(
    k: npt.ArrayLike, n: npt.ArrayLike, z: npt.ArrayLike = Z95
) -> tuple[FloatArray, FloatArray]:
    """Wilson score interval of ``k`` successes in ``n`` trials, elementwise: ``(low, high)``
    arrays, 95% by default. The one Wilson interval of the project: ``n`` may be a fraction
    (an effective sample size, for the clustered interval of
    :mod:`strat_tools.stats.intervals`) and ``z`` may differ per element (a t quantile).
    ``n == 0`` (or NaN) gives NaN; ``k`` outside ``0..n`` is an error.

    >>> low, high = wilson([8, 0, 3.75], [10, 0, 5.0])
    >>> [round(float(x), 3) for x in low], [round(float(x), 3) for x in high]
    ([0.49, nan, 0.336], [0.943, nan, 0.947])
    >>> [round(float(x), 4) for x in wilson(81, 263)]  # Newcombe (1998), Table I
    [0.2553, 0.3662]
    """
    ks = np.asarray(k, dtype=np.float64)
    ns = np.asarray(n, dtype=np.float64)
    quantile = np.asarray(z, dtype=np.float64)
    if np.any((ns > 0) & ((ks < 0) | (ks > ns * (1 + 1e-12)))):
        raise ValueError("need 0 <= k <= n for every interval")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.clip(ks / ns, 0.0, 1.0)
        z2 = quantile * quantile
        centre = (p + z2 / (2 * ns)) / (1 + z2 / ns)
        half = quantile * np.sqrt(p * (1 - p) / ns + z2 / (4 * ns * ns)) / (1 + z2 / ns)
    empty = ~(ns > 0)
    low: FloatArray = np.where(empty, np.nan, np.maximum(0.0, centre - half))
    high: FloatArray = np.where(empty, np.nan, np.minimum(1.0, centre + half))
    return low, high


def add_wilson(
    table: pd.DataFrame, wins: str, n: str, low: str = "ci_low", high: str = "ci_high"
) -> pd.DataFrame:
    """``table`` with the Wilson interval of ``table[wins]`` in ``table[n]`` as columns
    ``low`` and ``high`` (in place, and returned)."""
    table[low], table[high] = wilson(
        table[wins].to_numpy(np.float64), table[n].to_numpy(np.float64)
    )
    return table


def entropy_bits(p: Any) -> FloatArray:
    """Each cell's term ``-p log2 p`` of a Shannon entropy (0 where ``p`` is 0); sum them
    per distribution.

    >>> float(entropy_bits([0.5, 0.5, 0.0]).sum())
    1.0
    """
    ps = np.asarray(p, dtype=np.float64)
    result: FloatArray = -ps * np.log2(np.where(ps > 0, ps, 1.0))
    return result


def miller_madow(bits: Any, used: Any, samples: Any) -> Any:
    """The Miller-Madow bias correction of an entropy in bits: ``+ (used - 1) / (2 n ln 2)``
    for ``used`` non-empty cells out of ``samples`` draws."""
    return bits + (used - 1) / (2 * samples * math.log(2))


def normal_two_sided_p(z: Any) -> FloatArray:
    """The two-sided p-value of standard normal scores ``z``, elementwise: ``P(|Z| >= |z|)``
    (``erfc(|z| / sqrt 2)``); NaN scores (no test possible) give 1, never a discovery.

    >>> [round(float(p), 4) for p in normal_two_sided_p([0.0, 1.96, float("nan")])]
    [1.0, 0.05, 1.0]
    """
    zs = np.abs(np.asarray(z, dtype=np.float64))
    result: FloatArray = np.array([math.erfc(v / math.sqrt(2)) for v in zs.ravel()]).reshape(
        zs.shape
    )
    return np.where(np.isnan(zs), 1.0, result)


def holm_adjust(p: Any) -> FloatArray:
    """Holm's step-down adjustment of ``m`` p-values for testing them together: the
    ``i``-th smallest becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``. Rejecting where the
    adjusted value is below a level keeps the chance of even one false discovery among the
    ``m`` below that level, whatever the dependence between the tests.

    >>> holm_adjust([0.01, 0.04, 0.03, 0.5]).round(2).tolist()
    [0.04, 0.09, 0.09, 0.5]
    """
    ps = np.asarray(p, dtype=np.float64)
    order = np.argsort(ps, kind="stable")
    m = len(ps)
    stepped = np.minimum(1.0, (m - np.arange(m)) * ps[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted
