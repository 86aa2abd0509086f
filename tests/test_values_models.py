"""What the piece values mean (issue 46, points 4 and 5): `--by phase` holds the games
fixed, `--quiet` keeps only rows with no piece taken 5 plies either side, and the ratio to
the scout carries an interval that shows how fragile it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.engine.information.material import MATERIAL_WIDTH
from strat_tools.stats.piece_values import PHASES, TooFewGames, piece_value_table
from strat_tools.stats.value_rows import ValueRows, read_value_rows

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="module")
def sample_rows() -> ValueRows:
    return read_value_rows([str(DATA)], run=1)


def _rows(plies: list[list[int]]) -> ValueRows:
    """Rows of games whose plies are given per game, counts all zero."""
    ply = np.array([p for game in plies for p in game], dtype=np.int16)
    game = np.array([g for g, game in enumerate(plies) for _ in game], dtype=np.int32)
    counts = np.zeros((len(ply), MATERIAL_WIDTH), dtype=np.int8)
    return ValueRows(
        counts, ply, game, np.ones(len(plies), dtype=np.int8), np.zeros(len(plies), np.int32)
    )


def test_every_phase_is_fitted_on_the_games_that_reach_the_last_band() -> None:
    from strat_tools.stats.piece_values import phase_sample

    short = list(range(10, 101, 10))  # the opening only
    long = list(range(10, 401, 10))  # every band
    middle = list(range(10, 301, 10))  # stops before the end band
    kept = phase_sample(_rows([short, long, middle, long]))
    assert sorted(set(kept.game.tolist())) == [1, 3]
    for first, last in PHASES.values():
        band = kept.game[(kept.ply >= first) & (kept.ply <= last)]
        assert sorted(set(band.tolist())) == [1, 3]  # the same games in every band


def test_quiet_rows_have_no_capture_five_plies_either_side(sample_rows: ValueRows) -> None:
    from strat_tools.stats.value_rows import quiet_rows

    quiet = quiet_rows(sample_rows)
    assert 0 < quiet.sum() < len(quiet)
    board = sample_rows.counts[:, :22]
    where = np.flatnonzero(quiet)
    assert (sample_rows.game[where - 1] == sample_rows.game[where]).all()
    assert (sample_rows.game[where + 1] == sample_rows.game[where]).all()
    assert (board[where - 1] == board[where]).all() and (board[where + 1] == board[where]).all()
    kept = quiet & (sample_rows.ply % 10 == 0)
    games = len(np.unique(sample_rows.game[kept]))
    # The sample's quiet rows are too few for a bomb term: the refusal counts their games.
    with pytest.raises(TooFewGames, match=f"of {games:,} games"):
        piece_value_table(sample_rows, quiet=True)


def test_the_ratio_interval_is_fiellers_and_unbounded_for_an_uncertain_unit() -> None:
    from strat_tools.stats.piece_values import ratio_interval

    b = np.array([2.0, 0.1])
    sure = np.diag([0.01, 0.0001])  # the unit's value 0.1 +- 0.01: bounded
    ratio, low, high = ratio_interval(b, sure, 1)
    assert ratio[0] == pytest.approx(20.0) and low[0] < 20.0 < high[0]
    assert high[0] - 20.0 > 20.0 - low[0]  # skewed upward, as a ratio's is
    unsure = np.diag([0.01, 0.01])  # the unit's value 0.1 +- 0.1: not clearly above zero
    _, low, high = ratio_interval(b, unsure, 1)
    assert np.isinf(low[0]) and np.isinf(high[0])


def test_the_table_shows_the_relative_interval() -> None:
    # a wide terminal: the table's layout follows COLUMNS, which another test may have set
    result = CliRunner().invoke(main, ["values", str(DATA), "--jobs", "1"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0].split()
    assert header[5:8] == ["relative", "relative_low", "relative_high"]


@pytest.mark.slow
def test_the_win_model_equals_statsmodels_on_columns_made_from_the_raw_counts(
    sample_rows: ValueRows,
) -> None:
    """The fit docs/values.md states, made again from the 44 counts by hand (no project
    code between the rows and the columns): the coefficients agree to 1e-6."""
    sm = pytest.importorskip("statsmodels.api")
    from strat_tools.stats.win_model import fit_win_model

    kinds = ["bomb", "spy", "scout", "miner", "sergeant", "lieutenant", "captain"]
    kinds += ["major", "colonel", "general", "marshal"]
    r = sample_rows
    c = r.counts.astype(float)
    red = r.ply % 2 == 0
    pick = red[:, None]
    own, opp = np.where(pick, c[:, :11], c[:, 11:22]), np.where(pick, c[:, 11:22], c[:, :11])
    own_k, opp_k = np.where(pick, c[:, 22:33], c[:, 33:]), np.where(pick, c[:, 33:], c[:, 22:33])
    y = ((r.winner[r.game] == 1) == red).astype(float)
    moved = own[:, 1:].sum(1) - opp[:, 1:].sum(1)
    both = np.maximum(own[:, 1:].sum(1) + opp[:, 1:].sum(1), 1)

    def line(side: np.ndarray) -> list[int]:  # movable ranks, strongest first, 7 long
        ranks = sorted((k for k in range(1, 11) for _ in range(int(side[k]))), reverse=True)
        return (ranks + [0] * 7)[:7]

    ladder = np.sign(
        np.array([line(o) for o in own], dtype=float) - [line(q) for q in opp]
    )  # per row the 7 strongest of each side compared, one by one
    spy, marshal = kinds.index("spy"), kinds.index("marshal")
    safe = ((own[:, marshal] > 0) & (opp[:, spy] == 0)) * 1.0 - (
        (opp[:, marshal] > 0) & (own[:, spy] == 0)
    )
    x = np.column_stack(
        [
            np.ones(len(y)),
            own - opp,
            own_k - opp_k,
            moved / both,
            ladder,
            ladder.sum(1) * r.ply / 100,
            safe,
        ]
    )
    theirs = sm.Logit(y, x).fit(disp=0, tol=1e-12, maxiter=200)
    ours = fit_win_model(r)
    assert np.allclose(ours.coef, theirs.params, atol=1e-6)
    assert ours.base_rate == pytest.approx(float((r.winner[r.game] == 1).mean()))
