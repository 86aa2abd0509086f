"""Which squares of a difference map differ by more than chance: one test per square.

A difference map (:func:`strat_tools.views.plots.setup_heatmap` with ``by='won'``) shows, per
setup square, the share of group A's setups with a piece there minus group B's. Forty
squares give forty chances of a large-looking gap by luck alone, so each square gets:

- a two-proportion z-test of ``k_a / n_a`` against ``k_b / n_b`` (``k`` = setups with the
  piece on that square, ``n`` = setups in the group), under the pooled null of equal shares
  (:func:`strat_tools.stats.intervals.two_proportion_z`); a square where the piece never or
  always stands in both groups has no test and counts as not significant;
- its two-sided normal p-value (:func:`strat_tools.stats.formulas.normal_two_sided_p`);
- Holm's step-down correction over the 40 squares
  (:func:`strat_tools.stats.formulas.holm_adjust`): a square is *significant* when its
  adjusted p-value is below the level (5% by default), which keeps the chance of marking
  even one square by luck below 5% for the whole map. Holm rather than Benjamini-Hochberg:
  a marked square on a map reads as "this one is real", a family-wise promise, and Holm
  makes it without assuming the squares independent (they are not: a setup's flag is on
  exactly one square).

Each setup counts once, as a trial; setups repeated by one player are not clustered here
(:mod:`strat_tools.stats.intervals` does that for win rates), so on archives with many
repeats the marks are somewhat hopeful. Counts only; draws nothing.

>>> import pandas as pd
>>> cells = pd.DataFrame({"row": [1, 1], "col": [1, 2]})
>>> a = cells.assign(count=[90, 50], setups=100)
>>> b = cells.assign(count=[10, 50], setups=100)
>>> square_differences(a, b)[["row", "col", "difference", "significant"]]
   row  col  difference  significant
0    1    1         0.8         True
1    1    2         0.0        False
"""

from __future__ import annotations

from typing import Final

import numpy as np
import pandas as pd

from strat_tools.stats.formulas import holm_adjust, normal_two_sided_p
from strat_tools.stats.intervals import two_proportion_z

SIGNIFICANCE_LEVEL: Final = 0.05
"""The family-wise level of a difference map's marks (Holm over its squares)."""

TEST_NAME: Final = "two-proportion z-test per square, Holm-corrected over the {m} squares"
"""How figures and captions name the test (``{m}``: the number of squares tested)."""


def square_differences(
    group_a: pd.DataFrame, group_b: pd.DataFrame, *, level: float = SIGNIFICANCE_LEVEL
) -> pd.DataFrame:
    """Per square of two placement frames (``row, col, count, setups``, as
    :func:`strat_tools.stats.piece_placement` gives them): ``share_a``, ``share_b``,
    ``difference`` (a minus b), ``z``, ``p``, ``p_holm`` and ``significant`` (``p_holm <
    level``), rows in the order of ``group_a``. A square missing from ``group_b`` counts 0
    there."""
    if not 0 < level < 1:
        raise ValueError(f"the level must lie between 0 and 1, got {level!r}")
    keys = ["row", "col"]
    b = group_b[[*keys, "count"]].rename(columns={"count": "count_b"})
    table = group_a[[*keys, "count"]].rename(columns={"count": "count_a"})
    table = table.merge(b, on=keys, how="left").fillna({"count_b": 0})
    n_a, n_b = _setups(group_a), _setups(group_b)
    k_a = table["count_a"].to_numpy(np.float64)
    k_b = table["count_b"].to_numpy(np.float64)
    z = np.array([two_proportion_z(x, n_a, y, n_b) for x, y in zip(k_a, k_b, strict=True)])
    p = normal_two_sided_p(z)
    adjusted = holm_adjust(p)
    with np.errstate(invalid="ignore", divide="ignore"):
        share_a = k_a / n_a if n_a else np.full(len(k_a), np.nan)
        share_b = k_b / n_b if n_b else np.full(len(k_b), np.nan)
    return pd.DataFrame(
        {
            "row": table["row"].to_numpy(),
            "col": table["col"].to_numpy(),
            "share_a": share_a,
            "share_b": share_b,
            "difference": share_a - share_b,
            "z": z,
            "p": p,
            "p_holm": adjusted,
            "significant": adjusted < level,
        }
    )


def _setups(placement: pd.DataFrame) -> int:
    """The number of setups a placement frame counts."""
    return int(placement["setups"].max()) if len(placement) else 0
