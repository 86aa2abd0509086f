"""Logistic regression by Newton's method, with standard errors clustered by group.

:func:`fit_logit` maximises the log-likelihood of ``P(y = 1) = 1 / (1 + exp(-X b))`` by
Newton-Raphson (iteratively reweighted least squares: each step solves ``(X'WX) d = X'(y -
p)`` with ``W = p(1 - p)``), exactly, until the largest step is below ``1e-10``. Its
covariance is the cluster-robust sandwich

    V = (X'WX)^-1 (sum over groups g of s_g s_g') (X'WX)^-1,   s_g = sum over g's rows of x (y - p)

times the small-sample factor ``G/(G-1) * (N-1)/(N-K)`` (``G`` groups, ``N`` rows, ``K``
coefficients): what statsmodels' ``Logit(...).fit(cov_type="cluster", cov_kwds={"groups":
g})`` computes (its default ``use_correction=True``); the tests check the two agree to
1e-6 on real games. Intervals are ``b +- 1.96 se`` (normal, as statsmodels' for this model).

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> x = np.column_stack([np.ones(400), rng.normal(size=400)])
>>> y = (rng.random(400) < 1 / (1 + np.exp(-(0.5 + 1.5 * x[:, 1])))).astype(float)
>>> fit = fit_logit(x, y, np.arange(400) // 4)
>>> [round(float(b), 2) for b in fit.coef], fit.groups, fit.rows
([0.32, 1.34], 100, 400)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.errors import StratToolsError
from strat_tools.stats.formulas import Z95

__all__ = ["LogitFit", "NotConverged", "fit_logit", "predict_logit"]

FloatArray = npt.NDArray[np.float64]

_TOLERANCE: Final = 1e-10
_MAX_STEPS: Final = 100


class NotConverged(StratToolsError):
    """Newton's method found no maximum: the data separate the outcome (a feature predicts
    it perfectly) or the features are collinear."""


@dataclass(frozen=True, slots=True)
class LogitFit:
    """A fitted logistic regression: coefficients, clustered covariance and its sample."""

    coef: FloatArray
    cov: FloatArray
    """The cluster-robust covariance (with the small-sample factor)."""
    rows: int
    groups: int
    steps: int
    log_likelihood: float

    @property
    def se(self) -> FloatArray:
        """Clustered standard errors."""
        return np.asarray(np.sqrt(np.diag(self.cov)))

    @property
    def low(self) -> FloatArray:
        """Lower ends of the 95% intervals."""
        return np.asarray(self.coef - Z95 * self.se)

    @property
    def high(self) -> FloatArray:
        """Upper ends of the 95% intervals."""
        return np.asarray(self.coef + Z95 * self.se)


def predict_logit(x: npt.ArrayLike, coef: npt.ArrayLike) -> FloatArray:
    """``P(y = 1)`` for each row of ``x``."""
    eta = np.asarray(x, dtype=np.float64) @ np.asarray(coef, dtype=np.float64)
    return np.asarray(1.0 / (1.0 + np.exp(-eta)))


def fit_logit(x: npt.ArrayLike, y: npt.ArrayLike, groups: npt.ArrayLike) -> LogitFit:
    """Fit ``y`` (0/1) on the columns of ``x`` (an intercept is a column of ones) with the
    covariance clustered by ``groups`` (one label per row); see the module docstring.
    :class:`NotConverged` when there is no finite maximum."""
    design = np.asarray(x, dtype=np.float64)
    outcome = np.asarray(y, dtype=np.float64)
    rows, k = design.shape
    coef = np.zeros(k)
    steps = 0
    for steps in range(1, _MAX_STEPS + 1):  # noqa: B007 - the count is kept
        p = predict_logit(design, coef)
        w = p * (1.0 - p)
        hessian = design.T @ (design * w[:, None])
        try:
            step = np.linalg.solve(hessian, design.T @ (outcome - p))
        except np.linalg.LinAlgError as exc:
            raise NotConverged(f"the features are collinear ({exc})") from None
        coef = coef + step
        if not np.all(np.isfinite(coef)) or np.max(np.abs(coef)) > 50:
            raise NotConverged("the coefficients grow without bound (the data separate)")
        if np.max(np.abs(step)) < _TOLERANCE:
            break
    else:
        raise NotConverged(f"no convergence in {_MAX_STEPS} Newton steps")
    p = predict_logit(design, coef)
    w = p * (1.0 - p)
    bread = np.linalg.inv(design.T @ (design * w[:, None]))
    _, label = np.unique(np.asarray(groups), return_inverse=True)
    n_groups = int(label.max()) + 1 if rows else 0
    residual = outcome - p
    scores = np.column_stack(
        [np.bincount(label, design[:, j] * residual, n_groups) for j in range(k)]
    )
    meat = scores.T @ scores
    factor = n_groups / max(n_groups - 1, 1) * (rows - 1) / max(rows - k, 1)
    cov = factor * bread @ meat @ bread
    eps = 1e-300
    loglik = float(np.sum(outcome * np.log(p + eps) + (1 - outcome) * np.log(1 - p + eps)))
    return LogitFit(coef, np.asarray(cov), rows, n_groups, steps, loglik)
