"""Tip win rates with intervals that know setups repeat, on hand-made setups whose answer is
known: copies of a setup are one cluster, a mirror image is the same cluster, and counts
split over batches add up to the whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from advice_frames import BASE, frame, swap

from strat_tools.setups import grid as setup_grid
from strat_tools.setups import identity
from strat_tools.stats import advice, tip_rates, tips
from strat_tools.stats.formulas import wilson
from strat_tools.stats.intervals import cluster_interval
from strat_tools.stats.stream import sum_counts

LONELY = swap(BASE, ((1, 1), (4, 10)))
"""BASE with the flag moved to the front-right corner: no bomb next to it."""

# Six distinct setups that keep the flag next to a bomb and six that do not (swaps in the
# front rows, away from the flag), each with its own number of wins in five games.
SWAPS = [((4, 1), (4, k)) for k in (2, 4, 6, 8, 9)] + [((3, 1), (3, 2))]
FOLLOW = [swap(BASE, pair) for pair in SWAPS]
OTHER = [
    swap(LONELY, pair)
    for pair in [((4, 1), (4, k)) for k in (2, 4, 6, 8)] + [((3, 1), (3, 2)), ((3, 1), (3, 3))]
]
FOLLOW_WINS = [5, 4, 3, 2, 3, 4]
OTHER_WINS = [1, 2, 3, 4, 2, 1]
GAMES = 5


def mirrored(diagram: str) -> str:
    """The left-right mirror of a diagram (each row reversed)."""
    return "\n".join(" ".join(line.split()[::-1]) for line in diagram.strip().splitlines())


def played(copies: int = 1, extra: tuple[tuple[str, bool], ...] = ()) -> pd.DataFrame:
    """Every setup's games (one game each, alternately red and blue), ``copies`` times."""
    setups: list[tuple[str, str]] = []
    won: list[bool] = []
    for diagrams, wins in ((FOLLOW, FOLLOW_WINS), (OTHER, OTHER_WINS)):
        for diagram, k in zip(diagrams, wins, strict=True):
            for game in range(GAMES):
                for _ in range(copies):
                    setups.append(("classic", diagram))
                    won.append(game < k)
    for diagram, result in extra:
        setups.append(("classic", diagram))
        won.append(result)
    return frame(*setups, won=won)


def row_of(table: pd.DataFrame, tip: str = "flag_next_to_bomb") -> pd.Series:
    return table.set_index("tip").loc[tip]


def test_the_hand_made_setups_are_distinct_and_split_by_the_tip() -> None:
    features = tips.setup_features(played())
    distinct = features.drop_duplicates(tips.CLUSTER)
    assert len(distinct) == len(FOLLOW) + len(OTHER)
    assert distinct["flag_next_to_bomb"].astype(bool).sum() == len(FOLLOW)


def test_copying_every_setup_ten_times_keeps_the_clustered_interval() -> None:
    once = row_of(tip_rates.tip_win_rates(tips.setup_features(played())))
    tenfold = row_of(tip_rates.tip_win_rates(tips.setup_features(played(copies=10))))
    for side in ("follow", "other"):
        assert once[f"distinct_{side}"] == tenfold[f"distinct_{side}"] == 6
        assert (once[f"n_{side}"], tenfold[f"n_{side}"]) == (30, 300)
        assert once[f"rate_{side}"] == pytest.approx(tenfold[f"rate_{side}"])
        for bound in ("cluster_ci_low", "cluster_ci_high"):
            assert tenfold[f"{bound}_{side}"] == pytest.approx(once[f"{bound}_{side}"], abs=1e-12)
        plain_once = once[f"high_{side}"] - once[f"low_{side}"]
        plain_ten = tenfold[f"high_{side}"] - tenfold[f"low_{side}"]
        assert 2.5 < plain_once / plain_ten < 3.5  # about sqrt(10) narrower
    # Tenfold, the plain intervals part but the clustered ones still overlap.
    assert once["verdict"] == "no clear difference"
    assert tenfold["verdict"] == "no clear difference once repeats count once"


def test_clustered_interval_is_the_one_of_stats_intervals() -> None:
    row = row_of(tip_rates.tip_win_rates(tips.setup_features(played())))
    low, high = cluster_interval(FOLLOW_WINS, [GAMES] * len(FOLLOW))
    assert (row["cluster_ci_low_follow"], row["cluster_ci_high_follow"]) == pytest.approx(
        (low, high), abs=1e-12
    )
    low, high = wilson([sum(OTHER_WINS)], [GAMES * len(OTHER)])
    assert (row["low_other"], row["high_other"]) == pytest.approx((low[0], high[0]))


def test_a_mirror_image_is_the_same_setup() -> None:
    extra = ((mirrored(FOLLOW[0]), True), (mirrored(FOLLOW[0]), False))
    row = row_of(tip_rates.tip_summary(tips.setup_features(played(extra=extra))))
    assert (row["n_follow"], row["distinct_follow"]) == (32, 6)
    assert (row["setups"], row["distinct_setups"]) == (62, 12)


def test_mirror_ids_are_the_mirror_fingerprints() -> None:
    context = played(extra=((mirrored(FOLLOW[0]), True),))
    grid = setup_grid.setup_grid(context)
    codes = identity.setup_array(context).codes
    expected = np.array([int(f, 16) for f in identity.mirror_fingerprints(codes)], np.uint64)
    assert (grid.mirror_ids() == expected).all()


def test_counts_of_batches_sharing_setups_add_up_to_the_whole() -> None:
    features = tips.setup_features(played(copies=2))
    keys = tip_rates.tip_count_keys(["variant"])
    held = None
    for part in np.array_split(np.arange(len(features)), 3):  # every setup in two batches
        held = sum_counts(held, tip_rates.tip_counts(features.iloc[part], ["variant"]), keys)
    assert held is not None and held[tips.CLUSTER].dtype == np.uint64
    assert len(held) == len(tip_rates.tip_counts(features, ["variant"]))
    whole = tip_rates.tip_summary(features)
    pd.testing.assert_frame_equal(tip_rates.tip_summary_from_counts(held, ["variant"]), whole)


@pytest.mark.archive
@pytest.mark.slow
def test_archive_month_streamed_in_small_batches_equals_the_whole(
    gravon_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One real month: its setups repeat across batches, and the clustered intervals of the
    # batch-by-batch count are those of the whole.
    from strat_tools.run.driver import read_games

    month = [str(gravon_dir / "strados2014-5.zip")]
    whole = advice.advice_table(read_games(month, setups_only=True, run=1), "tips", "classic")
    monkeypatch.setattr("strat_tools.run.driver.REDUCE_BATCH", 200)
    streamed = advice.advice_table_of_paths(month, "tips", "classic", run=1)
    pd.testing.assert_frame_equal(streamed, whole)
    row = whole.set_index("tip").loc["flag_bombed_in"]
    assert row["distinct_setups"] < 0.8 * row["setups"]  # repeats: clusters matter here
    assert row["cluster_ci_low_follow"] <= row["low_follow"]
