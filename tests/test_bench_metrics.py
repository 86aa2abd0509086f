"""The benchmark's metrics (strat_tools/benchmark/metrics.py): ties split, top-3 across a
tie, the calibration error, and the bootstrap over games (seeded, whole games)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from strat_tools.benchmark.metrics import (
    BINS,
    RowMetrics,
    bootstrap_draws,
    draw_percentile,
    game_sums,
    row_metrics,
    spread_by_game,
    summarise,
)


def rows_of(*probabilities: list[float]) -> tuple[np.ndarray, np.ndarray]:
    values = np.log(np.concatenate([np.array(p) for p in probabilities]))
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in probabilities])])
    return values, offsets


def test_top1_splits_a_tie_and_top3_counts_the_moves_above() -> None:
    values, offsets = rows_of([0.4, 0.4, 0.2], [0.3, 0.2, 0.2, 0.2, 0.1], [0.1, 0.9])
    m = row_metrics(values, offsets, np.array([0, 2, 0]))
    assert m.top1.tolist() == [0.5, 0.0, 0.0]
    # row 2: one move above the played one, three tied with it: 2 of the 3 top-3 places
    assert m.top3.tolist() == pytest.approx([1.0, 2 / 3, 1.0])
    assert m.nll == pytest.approx([-np.log(0.4), -np.log(0.2), -np.log(0.1)])
    assert m.confidence == pytest.approx([0.4, 0.3, 0.9])


def test_the_calibration_error_compares_the_top_choice_with_its_credit() -> None:
    values, offsets = rows_of([0.9, 0.1], [0.9, 0.1], [0.5, 0.5])
    m = row_metrics(values, offsets, np.array([0, 1, 0]))
    sums = game_sums(m, np.array([0, 1, 2]), np.zeros(3, np.int64), 1)
    assert sums["bin_rows"].shape == (3, BINS)
    [row] = summarise(sums, ["all"], bootstrap_draws(3))
    # bin of 0.9: credit 1/2 against 0.9 on 2 rows; bin of 0.5: credit 1/2 against 0.5
    assert row["ece"] == pytest.approx(2 / 3 * 0.4)
    assert row["rows"] == 3 and row["games"] == 3


def test_the_bootstrap_draws_whole_games_reproducibly() -> None:
    first, again = bootstrap_draws(50, replicates=200, seed=7), bootstrap_draws(50, 200, 7)
    assert (first == again).all() and (first.sum(axis=1) == 50).all()
    assert not (first == bootstrap_draws(50, 200, 8)).all()
    rng = np.random.default_rng(3)
    games = np.repeat(np.arange(50), 20)
    values, offsets = rows_of(*([[0.5, 0.25, 0.25]] * len(games)))
    m = row_metrics(values, offsets, rng.integers(0, 3, len(games)))
    [row] = summarise(game_sums(m, games, np.zeros(len(games), np.int64), 1), ["all"], first)
    assert row["nll_low"] < row["nll"] < row["nll_high"]
    assert row["perplexity_low"] == pytest.approx(np.exp(row["nll_low"]))


def test_a_group_without_rows_has_no_value_and_no_interval() -> None:
    values, offsets = rows_of([0.5, 0.5], [0.5, 0.5])
    m = row_metrics(values, offsets, np.array([0, 1]))
    sums = game_sums(m, np.array([0, 1]), np.array([0, 0]), 2)
    full, empty = summarise(sums, ["a", "b"], bootstrap_draws(2), ece_interval=False)
    assert (full["rows"], empty["rows"]) == (2, 0)
    assert np.isnan(empty["nll"]) and np.isnan(empty["nll_low"])
    assert full["ece_low"] is None and full["top1"] == 0.5


def test_rows_worked_in_blocks_give_what_one_block_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    from strat_tools.benchmark import metrics

    rng = np.random.default_rng(11)
    counts = rng.integers(1, 6, 3 * metrics.BLOCK_ROWS + 17)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    values = np.round(rng.normal(size=offsets[-1]), 1).astype(np.float32)  # ties happen
    played = (rng.random(len(counts)) * counts).astype(np.int64)
    blocked = row_metrics(values, offsets, played)
    with ThreadPoolExecutor(2) as workers:  # the blocks on two threads, as the scorer has them
        threaded = row_metrics(values, offsets, played, workers=workers)
    monkeypatch.setattr(metrics, "BLOCK_ROWS", len(counts))
    whole = row_metrics(values, offsets, played)
    for name in ("nll", "top1", "top3", "confidence"):
        assert (getattr(blocked, name) == getattr(whole, name)).all(), name
        assert (getattr(threaded, name) == getattr(whole, name)).all(), name
    assert (blocked.top1 % 1).sum() > 0  # split ties are in the sample


def test_block_spans_cover_the_rows_once_in_order() -> None:
    from strat_tools.benchmark.metrics import BLOCK_ROWS, block_spans

    assert block_spans(0) == []
    assert block_spans(5) == [(0, 5)]
    spans = block_spans(2 * BLOCK_ROWS + 1)
    assert spans == [
        (0, BLOCK_ROWS),
        (BLOCK_ROWS, 2 * BLOCK_ROWS),
        (2 * BLOCK_ROWS, 2 * BLOCK_ROWS + 1),
    ]


def test_the_percentile_over_draws_is_nanpercentiles_to_the_last_digit() -> None:
    """Columns missing from some draws (NaN), from none, and from all: the very numbers of
    numpy.nanpercentile (which the intervals used to be made with)."""
    rng = np.random.default_rng(3)
    values = rng.normal(size=(1000, 40)) * rng.uniform(0.1, 10, size=40)
    values[rng.random((1000, 40)) < rng.uniform(0, 1, size=40)] = np.nan
    values[:, 0] = np.nan
    values[:, 1] = rng.normal(size=1000)
    for q in (2.5, 97.5):
        with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
            expected = np.nanpercentile(values, q, axis=0)
        assert np.array_equal(draw_percentile(values, q), expected, equal_nan=True)


def test_sums_of_a_grouping_fixed_per_game_are_the_games_own() -> None:
    """spread_by_game places each game's sums in its group's column: game_sums' numbers
    with the grouping given row by row, to the last digit."""
    rng = np.random.default_rng(4)
    games = np.sort(rng.integers(0, 30, size=5000))
    games = np.unique(games, return_inverse=True)[1]
    metrics = RowMetrics(*(rng.random(5000) for _ in range(4)))
    group_of_game = rng.integers(0, 6, size=games.max() + 1)
    overall = game_sums(metrics, games, np.zeros(5000, np.int64), 1)
    by_row = game_sums(metrics, games, group_of_game[games], 6, bins=False)
    spread = spread_by_game(overall, group_of_game, 6)
    assert spread.keys() == by_row.keys()
    assert all(np.array_equal(spread[k], by_row[k]) for k in by_row)
