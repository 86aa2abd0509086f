"""The per-square test of a difference map, on hand-made counts whose answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from strat_tools.stats.differences import square_differences
from strat_tools.stats.formulas import holm_adjust, normal_two_sided_p


def placement(counts: dict[tuple[int, int], int], setups: int) -> pd.DataFrame:
    """A placement frame of the 40 setup squares: ``counts`` setups with the piece on each
    named square (row, col), 0 elsewhere."""
    cells = [(row, col) for row in range(1, 5) for col in range(1, 11)]
    count = [counts.get(cell, 0) for cell in cells]
    return pd.DataFrame(
        {
            "row": [r for r, _ in cells],
            "col": [c for _, c in cells],
            "count": count,
            "setups": setups,
            "share": np.array(count) / setups,
        }
    )


def test_a_huge_gap_is_marked_and_no_gap_is_not() -> None:
    winners = placement({(1, 1): 85, (1, 10): 10, (2, 5): 5}, 100)
    losers = placement({(1, 1): 10, (1, 10): 85, (2, 5): 5}, 100)
    tests = square_differences(winners, losers).set_index(["row", "col"])
    assert tests.loc[(1, 1), "difference"] == pytest.approx(0.75)
    assert bool(tests.loc[(1, 1), "significant"]) and bool(tests.loc[(1, 10), "significant"])
    assert not tests.loc[(2, 5), "significant"]  # 5 of 100 in both groups
    assert tests.loc[(2, 5), "z"] == 0.0
    # a square empty in both groups has no test: p = 1, never marked
    assert np.isnan(tests.loc[(3, 3), "z"]) and tests.loc[(3, 3), "p"] == 1.0
    assert int(tests["significant"].sum()) == 2


def test_holm_unmarks_a_gap_that_one_test_alone_would_call_significant() -> None:
    # 60 of 100 against 46 of 100: z = 1.98, p = 0.048 alone; times 40 squares it is not
    winners = placement({(1, 1): 60, (1, 2): 40}, 100)
    losers = placement({(1, 1): 46, (1, 2): 54}, 100)
    tests = square_differences(winners, losers).set_index(["row", "col"])
    assert tests.loc[(1, 1), "z"] == pytest.approx(1.98, abs=0.01)
    assert tests.loc[(1, 1), "p"] < 0.05
    # (1, 2) has the same |z|: the two smallest p tie, and both get 40 p
    assert tests.loc[(1, 1), "p_holm"] == pytest.approx(min(1.0, 40 * tests.loc[(1, 1), "p"]))
    assert not tests["significant"].any()


def test_holm_is_the_step_down_of_the_sorted_p_values() -> None:
    p = np.array([0.2, 0.001, 0.03, 0.01])
    by_hand = {0.001: 4 * 0.001, 0.01: 3 * 0.01, 0.03: max(2 * 0.03, 3 * 0.01), 0.2: 0.2}
    assert holm_adjust(p).tolist() == pytest.approx([by_hand[v] for v in p])
    # 0.02 alone would stay 0.02, but never falls below the 2 x 0.011 before it
    assert holm_adjust([0.02, 0.011]).tolist() == pytest.approx([0.022, 0.022])


def test_normal_p_values() -> None:
    assert normal_two_sided_p([1.959964, -1.959964]).tolist() == pytest.approx([0.05, 0.05])
    assert normal_two_sided_p([3.290527]).tolist() == pytest.approx([0.001], rel=1e-4)


def test_a_level_outside_zero_and_one_is_refused() -> None:
    frame = placement({(1, 1): 1}, 1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        square_differences(frame, frame, level=5)
