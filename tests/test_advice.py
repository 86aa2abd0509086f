"""Tests for strat_tools.stats.advice: every tip's definition on hand-built setups, the summaries,
the neighbour ratios and the placement entropy.

Setups are written as the owner sees them from their seat: the FRONT row (row 4) on the top
line, the BACK row (row 1) on the bottom line, col 1 on the left. Symbols: F flag, B bomb,
S spy, 2 scout, 3 miner, 4 sergeant, 5 lieutenant, 6 captain, 7 major, 8 colonel,
9 general, M marshal, . empty.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from advice_frames import BASE, SYMBOL_OF, cells, frame, swap

from strat_tools import stats
from strat_tools.core.pieces import ARMIES, KIND_LABELS
from strat_tools.setups import grid as setup_grid
from strat_tools.stats import advice, arrangement, tip_rates, tips

# Follows every tip but the corner decoy: flag in the back-left corner sealed by two bombs,
# four more bombs elsewhere, none in front; spy beside the general; a major in the front row.


def features_of(*setups: tuple[str, str]) -> pd.DataFrame:
    return tips.setup_features(frame(*setups))


def tip(name: str, diagram: str, variant: str = "classic") -> Any:
    """The value of one tip for one setup (True, False or pd.NA)."""
    return features_of((variant, diagram))[name].iloc[0]


# --- diagrams and the grid --------------------------------------------------------------


def test_swap_keeps_the_army_and_draws_front_row_on_top() -> None:
    moved = swap(BASE, ((1, 1), (4, 1)))
    assert moved.splitlines()[0].startswith("F 5 2")
    assert moved.splitlines()[3].startswith("2 B 3")
    assert Counter(cells(moved).values()) == Counter(cells(BASE).values())


def test_base_setup_follows_every_tip_but_the_decoy() -> None:
    row = features_of(("classic", BASE)).iloc[0]
    assert {name: bool(row[name]) for name in tips.TIP_NAMES} == {
        name: name != "corner_decoy" for name in tips.TIP_NAMES
    }


def test_red_and_blue_setups_pool_in_the_owner_view() -> None:
    table = tips.setup_features(frame(("classic", BASE), ("classic", BASE)))
    assert list(table["side"]) == ["red", "blue"]
    assert (table[list(tips.TIP_NAMES)].iloc[0] == table[list(tips.TIP_NAMES)].iloc[1]).all()


def test_setups_without_their_variants_army_are_dropped_and_counted() -> None:
    short = BASE.replace("F B 3", "F B .")
    context = frame(("classic", BASE), ("classic", short), ("classicfree", BASE), check_army=False)
    grid = setup_grid.setup_grid(context)
    assert len(grid.kinds) == 1
    assert grid.dropped == 2
    assert list(grid.meta["game_id"]) == ["classic-2014.4-0"]


def test_grid_cells_are_in_the_owner_view() -> None:
    grid = setup_grid.setup_grid(frame(("classic", BASE)))
    assert grid.kinds.shape == (1, 40)
    assert KIND_LABELS[grid.kinds[0, 0]] == "flag"  # row 1, col 1
    assert KIND_LABELS[grid.kinds[0, 39]] == "scout"  # row 4, col 10
    assert KIND_LABELS[grid.kinds[0, 29]] == "marshal"  # row 3, col 10


# --- flag_bombed_in ---------------------------------------------------------------------


def test_flag_bombed_in_needs_every_open_neighbour_bombed() -> None:
    one_bomb = swap(BASE, ((2, 1), (2, 5)))
    assert one_bomb.splitlines()[2:] == ["2 4 3 6 B 8 5 3 7 2", "F B 3 B B 4 2 B 3 B"]
    assert tip("flag_bombed_in", BASE)
    assert not tip("flag_bombed_in", one_bomb)


def test_flag_in_the_back_row_middle_needs_three_bombs() -> None:
    middle = swap(BASE, ((1, 1), (1, 3)), ((2, 1), (2, 3)))
    assert middle.splitlines()[2:] == ["3 4 B 6 2 8 5 3 7 2", "3 B F B B 4 2 B 3 B"]
    assert tip("flag_bombed_in", middle)
    two_of_three = swap(middle, ((1, 4), (1, 7)))
    assert two_of_three.splitlines()[3] == "3 B F 2 B 4 B B 3 B"
    assert not tip("flag_bombed_in", two_of_three)


def test_front_row_flag_is_sealed_by_a_lake_ahead_but_not_by_an_open_square() -> None:
    lake_ahead = """
    2 B F B 2 4 2 5 7 2
    6 3 B S 8 6 7 5 4 M
    5 4 3 6 2 8 5 3 7 2
    2 9 3 B 6 4 2 B 3 B
    """
    assert tip("flag_bombed_in", lake_ahead)
    open_ahead = swap(
        lake_ahead, ((4, 3), (4, 6)), ((4, 2), (4, 5)), ((4, 4), (4, 7)), ((3, 3), (3, 6))
    )
    assert open_ahead.splitlines()[:2] == ["2 2 4 2 B F B 5 7 2", "6 3 6 S 8 B 7 5 4 M"]
    assert not tip("flag_bombed_in", open_ahead)


def test_flag_bombed_in_cannot_apply_to_barrage() -> None:
    barrage = """
    . . 2 . . . 2 . . .
    . . . . M . . . . .
    . . . . . 9 . . . .
    F B . S . . . . 3 .
    """
    assert tip("flag_bombed_in", barrage, "barrage") is pd.NA
    assert tip("flag_next_to_bomb", barrage, "barrage")


def test_duell_flag_in_a_corner_can_be_bombed_in() -> None:
    duell = """
    . 2 . . 3 . . 2 . .
    . . . . . . M . . .
    B . . . 9 . . S . .
    F B . . . . . . 3 .
    """
    assert tip("flag_bombed_in", duell, "duell")


# --- corner_decoy -----------------------------------------------------------------------


DECOY = """
2 5 2 6 2 4 2 5 7 2
6 3 9 S 8 6 7 5 4 M
2 4 3 6 B 8 5 3 7 B
3 4 3 B F B 2 2 B B
"""


def test_corner_decoy_bombs_a_corner_the_flag_is_not_in() -> None:
    assert tip("corner_decoy", DECOY)
    assert tip("flag_bombed_in", DECOY)
    assert not tip("corner_decoy", BASE)


def test_a_corner_guarded_by_the_flags_own_bombs_is_no_decoy() -> None:
    near = """
    2 5 2 6 2 4 2 5 7 2
    6 3 9 S 8 6 7 5 4 M
    B 4 B 6 2 8 5 3 7 2
    3 B F B 4 B B 2 3 3
    """
    assert tip("flag_bombed_in", near)
    assert not tip("corner_decoy", near)


def test_a_decoy_needs_both_guards_bombed() -> None:
    half = swap(DECOY, ((2, 10), (2, 1)))
    assert half.splitlines()[2] == "B 4 3 6 B 8 5 3 7 2"
    assert not tip("corner_decoy", half)
    left = swap(half, ((1, 2), (1, 9)))
    assert left.splitlines()[2:] == ["B 4 3 6 B 8 5 3 7 2", "3 B 3 B F B 2 2 4 B"]
    assert tip("corner_decoy", left)


def test_corner_decoy_cannot_apply_to_barrage() -> None:
    barrage = """
    . . 2 . . . 2 . . .
    . . . . M . . . . .
    . . . . . 9 . . . .
    F B . S . . . . 3 .
    """
    assert tip("corner_decoy", barrage, "barrage") is pd.NA


# --- few_front_bombs --------------------------------------------------------------------


def test_few_front_bombs_allows_one_bomb_in_the_front_row_but_not_two() -> None:
    one = swap(BASE, ((1, 10), (4, 10)))
    assert one.splitlines()[0] == "2 5 2 6 2 4 2 5 7 B"
    assert tip("few_front_bombs", one)
    two = swap(one, ((1, 8), (4, 8)))
    assert two.splitlines()[0] == "2 5 2 6 2 4 2 B 7 B"
    assert not tip("few_front_bombs", two)
    assert tip("few_front_bombs", BASE)


# --- mixed_front ------------------------------------------------------------------------


def test_mixed_front_needs_a_strong_piece_in_rows_three_or_four() -> None:
    weak_only = """
    2 5 2 6 2 4 2 5 3 2
    6 3 2 S 4 6 3 5 4 2
    B 4 3 6 9 8 5 8 7 M
    F B 7 B B 7 2 B 3 B
    """
    assert not tip("mixed_front", weak_only)
    assert tip("mixed_front", swap(weak_only, ((3, 1), (2, 10))))


def test_mixed_front_in_barrage_needs_a_weak_piece_too() -> None:
    strong_only = """
    . . . . M 9 . . . .
    . . . . . . . . . .
    . . 2 . . . 2 . . .
    F B . S . . . . 3 .
    """
    assert not tip("mixed_front", strong_only, "barrage")
    assert tip("mixed_front", swap(strong_only, ((4, 1), (1, 4))), "barrage")


# --- scouts -----------------------------------------------------------------------------


def test_scouts_forward_needs_half_the_scouts_in_the_two_front_rows() -> None:
    four = swap(BASE, ((4, 1), (2, 4)))
    assert sum(p == "scout" for (r, _), p in cells(four).items() if r >= 3) == 4
    assert tip("scouts_forward", four)
    three = swap(four, ((4, 3), (2, 2)))
    assert three.splitlines()[0] == "6 5 4 6 2 4 2 5 7 2"
    assert not tip("scouts_forward", three)


def test_scouts_in_reserve_needs_a_scout_in_the_back_rows() -> None:
    all_forward = swap(BASE, ((2, 1 + 4), (3, 2)), ((2, 10), (3, 9)), ((1, 7), (3, 1)))
    assert all_forward.splitlines() == [
        "2 5 2 6 2 4 2 5 7 2",
        "2 2 9 S 8 6 7 5 2 M",
        "B 4 3 6 3 8 5 3 7 4",
        "F B 3 B B 4 6 B 3 B",
    ]
    assert not tip("scouts_in_reserve", all_forward)
    assert tip("scouts_in_reserve", BASE)


def test_scouts_tips_in_barrage_count_its_two_scouts() -> None:
    barrage = """
    . . 2 . . . . . . .
    . . . . M . . . . .
    . . . . . 9 . 2 . .
    F B . S . . . . 3 .
    """
    assert tip("scouts_forward", barrage, "barrage")
    assert tip("scouts_in_reserve", barrage, "barrage")
    back = swap(barrage, ((4, 3), (1, 3)))
    assert not tip("scouts_forward", back, "barrage")


# --- spy_next_to_general ----------------------------------------------------------------


def test_spy_next_to_general_side_by_side_or_in_front() -> None:
    assert tip("spy_next_to_general", BASE)
    in_front = swap(BASE, ((3, 4), (4, 3)))
    assert in_front.splitlines()[:2] == ["2 5 S 6 2 4 2 5 7 2", "6 3 9 2 8 6 7 5 4 M"]
    assert tip("spy_next_to_general", in_front)


def test_a_diagonal_spy_is_not_next_to_the_general() -> None:
    diagonal = swap(BASE, ((3, 4), (4, 4)))
    assert diagonal.splitlines()[:2] == ["2 5 2 S 2 4 2 5 7 2", "6 3 9 6 8 6 7 5 4 M"]
    assert not tip("spy_next_to_general", diagonal)


def test_spy_and_general_at_the_ends_of_two_rows_are_not_neighbours() -> None:
    # Cells 19 (row 2, col 10) and 20 (row 3, col 1) follow each other in the flat index only.
    wrapped = swap(BASE, ((3, 3), (3, 1)), ((3, 4), (2, 10)))
    assert wrapped.splitlines()[1:3] == ["9 3 6 2 8 6 7 5 4 M", "B 4 3 6 2 8 5 3 7 S"]
    assert not tip("spy_next_to_general", wrapped)


# --- high_ranks_front -------------------------------------------------------------------


def test_high_ranks_front_needs_a_major_or_higher_in_the_front_row() -> None:
    assert tip("high_ranks_front", BASE)
    back = swap(BASE, ((4, 9), (2, 2)))
    assert back.splitlines()[0] == "2 5 2 6 2 4 2 5 4 2"
    assert not tip("high_ranks_front", back)
    marshal = swap(back, ((4, 1), (3, 10)))
    assert tip("high_ranks_front", marshal)


# --- miners_back ------------------------------------------------------------------------


def test_miners_back_needs_two_miners_in_the_back_rows() -> None:
    two = swap(BASE, ((1, 3), (4, 2)), ((1, 9), (4, 4)))
    assert two.splitlines()[0] == "2 3 2 3 2 4 2 5 7 2"
    assert sum(p == "miner" for (r, _), p in cells(two).items() if r <= 2) == 2
    assert tip("miners_back", two)
    one = swap(two, ((2, 3), (4, 6)))
    assert not tip("miners_back", one)


def test_miners_back_with_barrages_single_miner() -> None:
    barrage = """
    . . 2 . . . 2 . . .
    . . . . M . . . . .
    . . . . . 9 . . . .
    F B . S . . . . 3 .
    """
    assert tip("miners_back", barrage, "barrage")
    assert not tip("miners_back", swap(barrage, ((1, 9), (3, 9))), "barrage")


# --- bombs around the flag --------------------------------------------------------------


def test_bombs_flag_plus_spare_needs_two_bombs_at_the_flag_and_one_elsewhere() -> None:
    assert tip("bombs_flag_plus_spare", BASE)
    one_at_flag = swap(BASE, ((2, 1), (2, 5)))
    assert not tip("bombs_flag_plus_spare", one_at_flag)
    all_six = """
    2 5 2 6 2 4 2 5 7 2
    6 3 9 S 8 6 7 5 4 M
    3 4 3 6 2 8 5 B 7 2
    2 B 3 4 3 B B F B B
    """
    # Three bombs touch the flag, three stand elsewhere (two of them out on the right).
    assert tip("bombs_flag_plus_spare", all_six)
    assert tip("flag_bombed_in", all_six)


def test_bombs_flag_plus_spare_cannot_apply_with_two_bombs() -> None:
    duell = """
    . 2 . . 3 . . 2 . .
    . . . . . . M . . .
    B . . . 9 . . S . .
    F B . . . . . . 3 .
    """
    assert tip("bombs_flag_plus_spare", duell, "duell") is pd.NA
    assert tip("flag_bombed_in", duell, "duell")


def test_flag_next_to_bomb() -> None:
    assert tip("flag_next_to_bomb", BASE)
    lonely = swap(BASE, ((1, 1), (4, 10)))
    assert lonely.splitlines()[0] == "2 5 2 6 2 4 2 5 7 F"
    assert not tip("flag_next_to_bomb", lonely)


def test_flag_bombed_in_agrees_with_stats_flag_surroundings() -> None:
    diagrams = [
        BASE,
        DECOY,
        swap(BASE, ((2, 1), (2, 5))),
        swap(BASE, ((1, 1), (4, 10))),
        swap(BASE, ((1, 1), (4, 3)), ((1, 2), (4, 2)), ((2, 1), (4, 4)), ((1, 4), (3, 3))),
    ]
    context = frame(*[("classic", d) for d in diagrams])
    ours = tips.setup_features(context)
    theirs = stats.flag_surroundings(context)
    merged = ours.merge(theirs[["game_id", "side", "enclosed", "bombs"]], on=["game_id", "side"])
    assert list(merged["flag_bombed_in"].astype(bool)) == list(merged["enclosed"].astype(bool))
    assert merged["flag_bombed_in"].astype(bool).tolist() == [True, True, False, False, True]


# --- applicability ----------------------------------------------------------------------


def test_every_tip_applies_to_classic_and_barrage_lacks_the_bomb_tips() -> None:
    assert all(t.applies_to("classic") for t in tips.TIPS)
    barrage = {t.name for t in tips.TIPS if not t.applies_to("barrage")}
    assert barrage == {"flag_bombed_in", "corner_decoy", "few_front_bombs", "bombs_flag_plus_spare"}
    for variant in ("duell", "ultimate lightning"):
        assert {t.name for t in tips.TIPS if not t.applies_to(variant)} == {"bombs_flag_plus_spare"}
    assert not any(t.applies_to("classicfree") for t in tips.TIPS)


def test_catalogue_quotes_each_tip_from_its_seed_file() -> None:
    seeds = Path(__file__).resolve().parents[2] / "shared" / "seeds"
    table = tips.tip_catalogue()
    assert list(table["tip"]) == list(tips.TIP_NAMES)
    assert table["english"].str.len().min() > 20
    if not seeds.is_dir():
        pytest.skip(f"seed texts not found at {seeds}")
    for seed, original in zip(table["seed"], table["original"], strict=True):
        text = " ".join((seeds / seed).read_text(encoding="utf-8").split())
        assert original in text, (seed, original[:40])


# --- adoption and win rates -------------------------------------------------------------


def test_adoption_counts_followers_by_variant_and_period() -> None:
    lonely = swap(BASE, ((1, 1), (4, 10)))
    context = frame(
        ("classic", BASE),
        ("classic", lonely),
        ("classic", BASE),
        periods=["2004-12", "2004-12", "2014-05"],
    )
    table = tip_rates.tip_adoption(tips.setup_features(context), ["variant", "period"])
    rows = table[table["tip"] == "flag_next_to_bomb"]
    assert rows[["period", "setups", "followed", "share"]].values.tolist() == [
        ["2004-12", 2, 1, 0.5],
        ["2014-05", 1, 1, 1.0],
    ]


def test_adoption_leaves_out_variants_where_a_tip_cannot_apply() -> None:
    barrage = """
    . . 2 . . . 2 . . .
    . . . . M . . . . .
    . . . . . 9 . . . .
    F B . S . . . . 3 .
    """
    table = tip_rates.tip_adoption(features_of(("barrage", barrage), ("classic", BASE)))
    assert "corner_decoy" not in set(table.loc[table["variant"] == "barrage", "tip"])
    assert len(table[table["variant"] == "classic"]) == len(tips.TIPS)


def test_win_rates_split_followers_and_exclude_draws() -> None:
    lonely = swap(BASE, ((1, 1), (4, 10)))
    setups = [("classic", BASE)] * 3 + [("classic", lonely)] * 3
    context = frame(*setups, won=[True, True, False, False, None, True])
    table = tip_rates.tip_win_rates(tips.setup_features(context))
    row = table[table["tip"] == "flag_next_to_bomb"].iloc[0]
    assert (row["n_follow"], row["wins_follow"], row["n_other"], row["wins_other"]) == (3, 2, 2, 1)
    assert row["rate_follow"] == pytest.approx(2 / 3)
    expected = tuple(map(float, stats.wilson(2, 3)))
    assert (row["low_follow"], row["high_follow"]) == pytest.approx(expected)
    assert row["difference"] == pytest.approx(2 / 3 - 1 / 2)


def test_win_rates_with_nobody_on_one_side_give_nan_intervals() -> None:
    context = frame(("classic", BASE), ("classic", BASE), won=[True, False])
    table = tip_rates.tip_win_rates(tips.setup_features(context)).set_index("tip")
    row = table.loc["flag_next_to_bomb"]
    assert row["n_other"] == 0
    assert math.isnan(row["low_other"]) and math.isnan(row["rate_other"])


def test_head_to_head_counts_games_where_exactly_one_side_follows() -> None:
    lonely = swap(BASE, ((1, 1), (4, 10)))
    # Game 0: red follows and wins. Game 1: blue follows, red wins. Game 2: both follow.
    # Game 3: red follows, draw (left out).
    context = frame(
        ("classic", BASE),
        ("classic", lonely),
        ("classic", lonely),
        ("classic", BASE),
        ("classic", BASE),
        ("classic", BASE),
        ("classic", BASE),
        ("classic", lonely),
        games=[0, 0, 1, 1, 2, 2, 3, 3],
        won=[True, False, True, False, True, False, None, None],
    )
    features = tips.setup_features(context)
    table = tip_rates.tip_head_to_head(features).set_index("tip")
    row = table.loc["flag_next_to_bomb"]
    assert (row["games"], row["follower_wins"], row["rate"]) == (2, 1, 0.5)
    assert (row["low"], row["high"]) == pytest.approx(tuple(map(float, stats.wilson(1, 2))))
    assert "flag_bombed_in" in table.index
    summary = tip_rates.tip_summary(features).set_index("tip")
    assert summary.loc["flag_next_to_bomb", "h2h_games"] == 2
    assert summary.loc["spy_next_to_general", "h2h_games"] == 0


# --- adjacency --------------------------------------------------------------------------


def brute_force_pairs(diagram: str) -> Counter[tuple[str, str]]:
    pieces = cells(diagram)
    order = {label: i for i, label in enumerate(KIND_LABELS)}
    out: Counter[tuple[str, str]] = Counter()
    for (row, col), piece in pieces.items():
        for other in ((row + 1, col), (row, col + 1)):
            if other in pieces:
                pair = sorted((piece, pieces[other]), key=order.__getitem__)
                out[(pair[0], pair[1])] += 1
    return out


def test_adjacency_counts_orthogonal_neighbour_pairs() -> None:
    table = arrangement.adjacency(frame(("classic", BASE), ("classic", DECOY)))
    observed = {(a, b): n for a, b, n in table[["piece_a", "piece_b", "observed"]].values if n}
    assert observed == dict(brute_force_pairs(BASE) + brute_force_pairs(DECOY))
    assert table["observed"].sum() == 2 * 66
    assert table["expected"].sum() == pytest.approx(2 * 66)
    flag_bomb = table[(table["piece_a"] == "bomb") & (table["piece_b"] == "flag")].iloc[0]
    assert flag_bomb["expected"] == pytest.approx(2 * 66 * 2 * 6 * 1 / (40 * 39))


def test_adjacency_of_random_shuffles_is_close_to_one() -> None:
    rng = np.random.default_rng(7)
    army = [
        label for label, n in zip(KIND_LABELS, ARMIES["classic"], strict=True) for _ in range(n)
    ]
    diagrams = []
    for _ in range(400):
        shuffled = rng.permutation(army)
        diagrams.append(
            (
                "classic",
                "\n".join(
                    " ".join(SYMBOL_OF[p] for p in shuffled[r * 10 : (r + 1) * 10])
                    for r in range(4)
                ),
            )
        )
    table = arrangement.adjacency(frame(*diagrams))
    common = table[table["expected"] > 150]
    assert len(common) >= 10
    assert common["ratio"].between(0.85, 1.15).all(), common
    matrix = arrangement.adjacency_matrix(table)
    assert list(matrix.index) == list(KIND_LABELS)
    assert matrix.loc["bomb", "scout"] == matrix.loc["scout", "bomb"]


def test_adjacency_in_barrage_counts_only_pieces() -> None:
    barrage = """
    . . 2 . . . 2 . . .
    . . . . M . . . . .
    . . . . . 9 . . . .
    F B . S . . . . 3 .
    """
    table = arrangement.adjacency(frame(("barrage", barrage)))
    assert table["observed"].sum() == 1  # flag-bomb
    row = table[(table["piece_a"] == "bomb") & (table["piece_b"] == "flag")].iloc[0]
    assert row["expected"] == pytest.approx(66 * 2 / (40 * 39))


# --- entropy ----------------------------------------------------------------------------


def test_entropy_of_a_flag_on_every_square_is_log2_40_and_one_move_is_binary() -> None:
    diagrams = []
    base = cells(BASE)
    flat = [base[(r, c)] for r in range(1, 5) for c in range(1, 11)]
    for shift in range(40):
        # Move the flag through all 40 cells; the piece it displaces goes to cell 0.
        pieces = list(flat)
        pieces[0], pieces[shift] = pieces[shift], pieces[0]
        diagrams.append(
            (
                "classic",
                "\n".join(
                    " ".join(SYMBOL_OF[p] for p in pieces[r * 10 : (r + 1) * 10])
                    for r in range(3, -1, -1)
                ),
            )
        )
    table = arrangement.placement_entropy(frame(*diagrams)).set_index("piece")
    assert table.loc["flag", "entropy_bits"] == pytest.approx(math.log2(40))
    assert table.loc["flag", "max_bits"] == pytest.approx(math.log2(40))
    assert table.loc["flag", "corrected_bits"] == pytest.approx(
        math.log2(40) + 39 / (2 * 40 * math.log(2))
    )
    marshal = table.loc["marshal"]
    # The marshal sits on cell 29 except in the one setup where it swapped with the flag.
    p = 39 / 40
    binary = -(p * math.log2(p) + (1 - p) * math.log2(1 - p))
    assert marshal["entropy_bits"] == pytest.approx(binary)
    assert table["entropy_bits"].is_monotonic_increasing
    # Every one-of piece was displaced once, so all share the marshal's entropy, the lowest.
    for piece in ("spy", "general", "marshal"):
        assert table.loc[piece, "entropy_bits"] == pytest.approx(table["entropy_bits"].iloc[0])


# --- views ------------------------------------------------------------------------------


def test_advice_table_views_and_errors() -> None:
    context = frame(("classic", BASE), ("classic", DECOY), won=[True, False])
    table = advice.advice_table(context, "tips", "classic")
    assert list(table["tip"]) == list(tips.TIP_NAMES)
    assert {"title", "share", "rate_follow", "low_follow", "high_other"} <= set(table.columns)
    assert set(advice.advice_table(context, "entropy")["variant"]) == {"classic"}
    assert len(advice.advice_table(context, "catalogue")) == len(tips.TIPS)
    with pytest.raises(ValueError, match="unknown advice view"):
        advice.advice_table(context, "nonsense")
    with pytest.raises(ValueError, match="known variant, but advice covers"):
        advice.advice_table(context, "tips", "classicfree")


def test_advice_section_data_has_every_part() -> None:
    data = advice.advice_section_data(frame(("classic", BASE), ("classic", DECOY)))
    assert set(data) == {
        "catalogue",
        "summary",
        "periods",
        "adjacency",
        "adjacency_matrix",
        "entropy",
    }
    assert data["adjacency_matrix"].shape == (12, 12)
    assert all(isinstance(value, pd.DataFrame) for value in data.values())


def test_no_fixed_army_setups_give_empty_tables_not_errors() -> None:
    context = frame(("classicfree", BASE), check_army=False)
    data = advice.advice_section_data(context)
    assert len(data["catalogue"]) == len(tips.TIPS)
    assert all(len(data[key]) == 0 for key in ("summary", "periods", "adjacency", "entropy"))
    assert {"tip", "share", "h2h_rate"} <= set(data["summary"].columns)


# --- the command ------------------------------------------------------------------------


def test_advice_command_reads_records_and_reports_each_tip(fixtures_dir: Path) -> None:
    import json

    from click.testing import CliRunner

    from strat_tools.cli import main

    folder = str(fixtures_dir / "advice")
    result = CliRunner().invoke(main, ["advice", folder, "--jobs", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {row["tip"]: row for row in json.loads(result.stdout)}
    assert list(rows) == list(tips.TIP_NAMES)
    # Game 1: red's sealed flag (BASE) beats blue's open front-row flag; game 2 is a draw.
    sealed = rows["flag_bombed_in"]
    assert (sealed["setups"], sealed["followed"]) == (4, 3)
    assert (sealed["n_follow"], sealed["wins_follow"], sealed["n_other"]) == (1, 1, 1)
    assert (sealed["h2h_games"], sealed["h2h_wins"]) == (1, 1)
    # Blue's flag left the corner of BASE: the two bombs there now guard a decoy.
    assert (rows["corner_decoy"]["followed"], rows["corner_decoy"]["wins_follow"]) == (2, 0)


@pytest.mark.slow
def test_advice_command_views_and_errors(fixtures_dir: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    folder = str(fixtures_dir / "advice")
    runner = CliRunner()
    entropy = runner.invoke(
        main, ["advice", folder, "-j", "1", "--view", "entropy", "--format", "csv"]
    )
    assert entropy.exit_code == 0, entropy.output
    assert entropy.stdout.splitlines()[0].startswith("variant,piece,setups,pieces,entropy_bits")
    assert entropy.stdout.splitlines()[1].startswith("classic,")
    # The table's layout depends on the terminal's width: fix it (another test's may linger).
    every = runner.invoke(
        main, ["advice", folder, "-j", "1", "--variant", "all"], env={"COLUMNS": "100"}
    )
    assert every.exit_code == 0 and "flag_bombed_in" in every.stdout
    assert " 75.0% " in every.stdout  # the digest shows shares as percentages
    # Where the spy-general tip appears, advice says how it differs from `search ... SG`.
    assert "spy_next_to_general: A spy in front of or behind" in every.stderr
    assert "search --anywhere SG --mirror" in every.stderr
    catalogue = runner.invoke(main, ["advice", folder, "--view", "catalogue"])
    assert catalogue.exit_code == 0 and "flag_bombed_in" in catalogue.stdout
    bad = runner.invoke(main, ["advice", folder, "--variant", "classicfree"])
    assert bad.exit_code == 2
    missing = runner.invoke(main, ["advice", str(fixtures_dir / "advice" / "nothing_here")])
    assert missing.exit_code == 2 and missing.output.startswith("Error: ")
    help_text = runner.invoke(main, ["advice", "--help"]).output
    assert "Example:" in help_text


# --- the real archive -------------------------------------------------------------------


@pytest.mark.archive
@pytest.mark.slow
def test_archive_month_tips_agree_with_stats_and_account_for_every_setup(
    gravon_dir: Path,
) -> None:
    from strat_tools.run.driver import read_games

    games = read_games([str(gravon_dir / "strados2014-5.zip")], setups_only=True, run=1)
    context = stats.setup_context(games.games, games.setups)
    grid = setup_grid.setup_grid(context)
    fixed = games.games[games.games["variant"].isin(list(ARMIES)) & games.games["has_setup"]]
    assert len(grid.kinds) + grid.dropped == 2 * len(games.games[games.games["has_setup"]])
    assert len(grid.kinds) == 2 * len(fixed)
    features = tips.setup_features(context, exclude_invalid=False)
    theirs = stats.flag_surroundings(context, exclude_invalid=False)
    merged = features.merge(theirs, on=["game_id", "side"], suffixes=("", "_stats"))
    applies = merged["flag_bombed_in"].notna()
    assert applies.sum() > 1000
    assert (
        merged.loc[applies, "flag_bombed_in"].astype(bool)
        == merged.loc[applies, "enclosed"].astype(bool)
    ).all()
    assert (merged["flag_next_to_bomb"].astype(bool) == (merged["bombs"] > 0)).all()
