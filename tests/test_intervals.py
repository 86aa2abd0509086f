"""The plain and the clustered win-rate intervals, on hand-made data whose answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from strat_tools.stats.formulas import wilson
from strat_tools.stats.intervals import (
    cluster_interval,
    t_quantile_975,
    two_proportion_z,
    win_rate_table,
)


def games_of(setups: dict[str, list[bool]], copies: int = 1) -> pd.DataFrame:
    """One row per decided game: its setup's id and whether it was won, each game ``copies``
    times (the same setup played again with the same result)."""
    rows = [(key, won) for key, results in setups.items() for won in results for _ in range(copies)]
    return pd.DataFrame(rows, columns=["mirror_fingerprint", "won"])


# Forty setups of five games each, with different win rates (a setup effect).
SETUPS = {f"s{i:02d}": [j < (i % 6) for j in range(5)] for i in range(40)}


def test_copying_every_setup_ten_times_narrows_the_plain_interval_only() -> None:
    once = win_rate_table(games_of(SETUPS), [])
    tenfold = win_rate_table(games_of(SETUPS, copies=10), [])
    assert once.at[0, "setups"] == 200 and tenfold.at[0, "setups"] == 2000
    assert once.at[0, "distinct_setups"] == tenfold.at[0, "distinct_setups"] == 40
    assert once.at[0, "win_rate"] == pytest.approx(tenfold.at[0, "win_rate"])
    plain_once = once.at[0, "ci_high"] - once.at[0, "ci_low"]
    plain_ten = tenfold.at[0, "ci_high"] - tenfold.at[0, "ci_low"]
    assert plain_ten < plain_once / 3  # about sqrt(10) narrower
    for column in ("cluster_ci_low", "cluster_ci_high"):
        assert tenfold.at[0, column] == pytest.approx(once.at[0, column], abs=1e-12)


def test_the_clustered_interval_is_never_narrower_than_the_plain_one() -> None:
    table = win_rate_table(games_of(SETUPS), [])
    assert table.at[0, "cluster_ci_low"] <= table.at[0, "ci_low"]
    assert table.at[0, "cluster_ci_high"] >= table.at[0, "ci_high"]


def test_without_repeats_the_clustered_interval_is_the_plain_one_with_t_quantile() -> None:
    # 100 setups played once each: every cluster one game, n_eff = N - 1 capped at N.
    singles = {f"s{i}": [i < 37] for i in range(100)}
    table = win_rate_table(games_of(singles), [])
    assert table.at[0, "distinct_setups"] == 100
    low, high = (float(x) for x in wilson(37, 100))
    assert (table.at[0, "ci_low"], table.at[0, "ci_high"]) == pytest.approx((low, high))
    # The t quantile at 99 degrees of freedom (1.984) against 1.96: a little wider.
    assert table.at[0, "cluster_ci_low"] == pytest.approx(low, abs=0.005)
    assert table.at[0, "cluster_ci_low"] < low


def test_one_setup_is_one_observation() -> None:
    table = win_rate_table(games_of({"only": [True] * 30 + [False] * 10}), [])
    assert table.at[0, "distinct_setups"] == 1
    low, high = wilson(0.75, 1.0)
    assert (table.at[0, "cluster_ci_low"], table.at[0, "cluster_ci_high"]) == pytest.approx(
        (float(low), float(high))
    )


def test_groups_get_their_own_intervals() -> None:
    frame = pd.concat(
        [games_of(SETUPS).assign(side="red"), games_of({"x": [True, False]}).assign(side="blue")]
    )
    table = win_rate_table(frame, ["side"])
    assert table["side"].tolist() == ["blue", "red"]
    assert table["setups"].tolist() == [2, 200]
    assert table["wins"].tolist() == [1, int(sum(sum(v) for v in SETUPS.values()))]


def test_cluster_interval_matches_the_table() -> None:
    frame = games_of(SETUPS)
    wins = frame.groupby("mirror_fingerprint")["won"].sum().to_numpy()
    games = frame.groupby("mirror_fingerprint").size().to_numpy()
    table = win_rate_table(frame, [])
    assert cluster_interval(list(wins), list(games)) == pytest.approx(
        (table.at[0, "cluster_ci_low"], table.at[0, "cluster_ci_high"])
    )


def test_t_quantiles_and_z() -> None:
    expected = [4.303, 2.042, 2.040, 1.962]
    assert t_quantile_975([2, 30, 31, 1000]) == pytest.approx(expected, abs=1e-3)
    assert two_proportion_z(50, 100, 50, 100) == 0.0
    assert np.isnan(two_proportion_z(0, 0, 5, 10))
