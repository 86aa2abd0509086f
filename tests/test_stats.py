"""Statistics against values counted by hand on a few small, drawn setups and move lists.

The setups are drawn in the owner's view, back row (row 1) at the bottom, as their owner
sees them: ``F`` flag, ``B`` bomb, ``S`` scout, ``.`` anything else (a sergeant, so every
drawn setup area is full). Only the four setup rows are drawn.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from strat_tools import stats
from strat_tools.tables.columns import table_from_columns, to_frame

LETTERS = {"F": "flag", "B": "bomb", "S": "scout", ".": "sergeant"}


def drawn(diagram: str) -> list[tuple[int, int, str]]:
    """(row, col, piece) of a 4-row owner's-view diagram, top line = row 4."""
    lines = [line.split() for line in diagram.strip().splitlines()]
    assert len(lines) == 4 and all(len(line) == 10 for line in lines)
    return [
        (4 - i, j + 1, LETTERS[letter])
        for i, line in enumerate(lines)
        for j, letter in enumerate(line)
    ]


@dataclass
class Frames:
    """A hand-made GameSet stand-in: the three frames, typed as the real tables are."""

    games: pd.DataFrame
    setups: pd.DataFrame
    moves: pd.DataFrame = field(default_factory=pd.DataFrame)


# g1: red wins. Red flag in its left corner, walled by two bombs; blue flag mid back row.
RED_1 = """
. . . . . . . . . .
. . . . . . . . . .
B . . . . . . . . .
F B S S . . . . . .
"""
BLUE_1 = """
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . B F . S . . .
"""
# g2: blue wins. Red flag on row 2 at the right edge, three bombs round it; blue in a corner.
RED_2 = """
. . . . . . . . . .
. . . . . . . . . B
. . . . . . . . B F
. . . . . . . . . B
"""
BLUE_2 = """
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. S . . . . . . . F
"""
# g3: draw. Blue's flag on row 4 behind the left lake (C5 in its view), bombed on three sides.
RED_3 = """
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . F . . . . . . .
"""
BLUE_3 = """
. B F B . . . . . .
. . B . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
"""
# g4 (classicfree) and g5 (invalid) must be left out by default.
CORNER = """
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
F . . . . . . . . .
"""

GAMES = [
    # game_id, variant, period, status, winner, termination, plies
    ("g1", "classic", "2014-01", "valid", "red", "flag_captured", 5),
    ("g2", "classic", "2014-02", "valid", "blue", "resigned", 2),
    ("g3", "classic", "2014-02", "valid", "draw", "draw_agreed", 0),
    ("g4", "classicfree", "2014-02", "valid", "red", "flag_captured", 10),
    ("g5", "classic", "2014-02", "invalid", "blue", "flag_captured", 7),
]
SETUPS = {
    "g1": (RED_1, BLUE_1),
    "g2": (RED_2, BLUE_2),
    "g3": (RED_3, BLUE_3),
    "g4": (CORNER, CORNER),
    "g5": (CORNER, CORNER),
}
MOVES = [
    # game_id, ply, piece, distance, defender, outcome
    ("g1", 1, "scout", 3, None, None),
    ("g1", 2, "miner", 1, None, None),
    ("g1", 3, "scout", 1, "sergeant", "defender"),
    ("g1", 4, "scout", 5, "scout", "both"),
    ("g1", 5, "marshal", 1, "flag", "flag"),
    ("g2", 1, "sergeant", 1, None, None),
    ("g2", 2, "scout", 2, "spy", "attacker"),
    ("g5", 1, "scout", 4, None, None),
]


def make_frames() -> Frames:
    """The five games above as typed frames."""
    games = table_from_columns(
        "games",
        {
            "game_id": [g[0] for g in GAMES],
            "source": ["hand.zip"] * len(GAMES),
            "variant": [g[1] for g in GAMES],
            "year": [2014] * len(GAMES),
            "month": [int(g[2][-2:]) for g in GAMES],
            "period": [g[2] for g in GAMES],
            "status": [g[3] for g in GAMES],
            "winner": [None if g[4] == "draw" else g[4] for g in GAMES],
            "draw": [g[4] == "draw" for g in GAMES],
            "termination": [g[5] for g in GAMES],
            "plies": [g[6] for g in GAMES],
            "plies_replayed": [g[6] for g in GAMES],
            "n_errors": [1 if g[3] == "invalid" else 0 for g in GAMES],
            "n_warnings": [0] * len(GAMES),
            "has_setup": [True] * len(GAMES),
            "readable": [True] * len(GAMES),
            "replayed": [True] * len(GAMES),
        },
    )
    setup_columns: dict[str, list[Any]] = {
        k: [] for k in ("game_id", "side", "row", "col", "square", "piece")
    }
    for game_id, (red, blue) in SETUPS.items():
        for side, diagram in (("red", red), ("blue", blue)):
            for row, col, piece in drawn(diagram):
                setup_columns["game_id"].append(game_id)
                setup_columns["side"].append(side)
                setup_columns["row"].append(row)
                setup_columns["col"].append(col)
                setup_columns["square"].append("A1")  # not used by the statistics
                setup_columns["piece"].append(piece)
    moves = table_from_columns(
        "moves",
        {
            "game_id": [m[0] for m in MOVES],
            "ply": [m[1] for m in MOVES],
            "side": ["red" if m[1] % 2 else "blue" for m in MOVES],
            "piece": [m[2] for m in MOVES],
            "distance": [m[3] for m in MOVES],
            "defender": [m[4] for m in MOVES],
            "outcome": [m[5] for m in MOVES],
        },
    )
    return Frames(
        to_frame(games), to_frame(table_from_columns("setups", setup_columns)), to_frame(moves)
    )


@pytest.fixture(scope="module")
def frames() -> Frames:
    return make_frames()


def cell(table: pd.DataFrame, **where: Any) -> pd.Series:
    """The one row of ``table`` matching ``where``."""
    mask = pd.Series(True, index=table.index)
    for key, value in where.items():
        mask &= table[key] == value
    rows = table.loc[mask]
    assert len(rows) == 1, f"{len(rows)} rows match {where}"
    return rows.iloc[0]


# Newcombe, "Two-sided confidence intervals for the single proportion", Statistics in
# Medicine 17 (1998), Table I, method 3 (score interval without continuity correction).
NEWCOMBE_WILSON = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


def test_wilson_matches_newcombes_published_intervals() -> None:
    k, n, lows, highs = (list(column) for column in zip(*NEWCOMBE_WILSON, strict=True))
    low, high = stats.wilson(k, n)
    assert np.round(low, 4).tolist() == lows
    assert np.round(high, 4).tolist() == highs


def test_wilson_edges_fractions_and_errors() -> None:
    low, high = stats.wilson([8, 0, 10, 0], [10, 10, 10, 0])
    assert (round(float(low[0]), 4), round(float(high[0]), 4)) == (0.4902, 0.9433)
    assert low[1] == 0.0 and high[2] == 1.0
    assert math.isnan(low[3]) and math.isnan(high[3])
    # A fractional sample size (the clustered interval's effective size): at one rate, the
    # interval at 7.5 trials lies strictly between those at 7 and at 8.
    low, high = stats.wilson([3.5, 3.75, 4.0], [7.0, 7.5, 8.0])
    width = high - low
    assert width[0] > width[1] > width[2]
    # A per-element quantile: a wider z is a wider interval.
    narrow, wide = stats.wilson([5, 5], [10, 10], [1.96, 2.5])
    assert narrow[1] < narrow[0] and wide[1] > wide[0]
    with pytest.raises(ValueError, match="0 <= k <= n"):
        stats.wilson(3, 2)


def test_setup_context_joins_games_and_says_who_won(frames: Frames) -> None:
    context = stats.setup_context(frames.games, frames.setups)
    assert len(context) == len(frames.setups) == 5 * 2 * 40
    won = context.drop_duplicates(["game_id", "side"]).set_index(["game_id", "side"])["won"]
    assert bool(won[("g1", "red")]) and not bool(won[("g1", "blue")])
    assert bool(won[("g2", "blue")]) and not bool(won[("g2", "red")])
    assert won[("g3", "red")] is pd.NA and won[("g3", "blue")] is pd.NA
    assert str(context["won"].dtype) == "boolean"
    assert set(context["period"]) == {"2014-01", "2014-02"}


def test_flag_placement_covers_all_40_cells_with_hand_counts(frames: Frames) -> None:
    table = stats.flag_placement(frames)
    assert list(table.columns) == ["row", "col", "count", "setups", "share"]
    assert len(table) == 40
    # g1-g3 only (classicfree and invalid games are out by default): 6 setups.
    assert set(table["setups"]) == {6}
    expected = {(1, 1): 1, (1, 5): 1, (2, 10): 1, (1, 10): 1, (1, 3): 1, (4, 3): 1}
    got = {
        (r, c): n for r, c, n in zip(table["row"], table["col"], table["count"], strict=True) if n
    }
    assert got == expected
    assert cell(table, row=1, col=1)["share"] == pytest.approx(1 / 6)


def test_placement_options_include_what_the_defaults_leave_out(frames: Frames) -> None:
    # The default is classic alone: g4 (classicfree) is not counted, nor is g5 (invalid).
    assert set(stats.flag_placement(frames)["setups"]) == {6}
    # Named variants are counted as named (these low-level functions pool what they are
    # told to; stats.compute and the CLI keep variants apart, see the test below).
    with_free = stats.flag_placement(frames, variant=["classic", "classicfree"])
    assert cell(with_free, row=1, col=1)["count"] == 3 and set(with_free["setups"]) == {8}
    every = stats.flag_placement(frames, variant="all", include_classicfree=True)
    assert set(every["setups"]) == {8}
    assert set(stats.flag_placement(frames, variant="all")["setups"]) == {6}
    everything = stats.flag_placement(
        frames, variant=["classic", "classicfree"], exclude_invalid=False
    )
    assert cell(everything, row=1, col=1)["count"] == 5
    only_free = stats.flag_placement(frames, variant="classicfree")
    assert cell(only_free, row=1, col=1)["share"] == 1.0


def test_flag_placement_by_side_and_period(frames: Frames) -> None:
    table = stats.flag_placement(frames, by=["side", "period"])
    assert len(table) == 4 * 40
    assert cell(table, side="blue", period="2014-02", row=1, col=10)["count"] == 1
    assert cell(table, side="blue", period="2014-02", row=4, col=3)["count"] == 1
    assert cell(table, side="red", period="2014-01", row=1, col=1)["setups"] == 1
    assert cell(table, side="red", period="2014-02", row=1, col=1)["count"] == 0
    assert cell(table, side="red", period="2014-02", row=2, col=10)["setups"] == 2


def test_flag_rows_and_bomb_columns(frames: Frames) -> None:
    rows = stats.piece_by_line(frames, "flag", "row")
    assert dict(zip(rows["row"], rows["count"], strict=True)) == {1: 4, 2: 1, 3: 0, 4: 1}
    assert cell(rows, row=1)["share"] == pytest.approx(4 / 6)
    bombs = stats.piece_by_line(frames, "bomb", "col")
    # Bombs per column (owner's view): g1 red A2 B1, blue D1; g2 red K1 I2 K3; g3 blue B4 D4 C3.
    assert dict(zip(bombs["col"], bombs["count"], strict=True)) == {
        1: 1,
        2: 2,
        3: 1,
        4: 2,
        5: 0,
        6: 0,
        7: 0,
        8: 0,
        9: 1,
        10: 2,
    }


def test_bombs_next_to_flag_and_enclosure(frames: Frames) -> None:
    table = stats.bombs_next_to_flag(frames)
    assert list(table["bombs"]) == [0, 1, 2, 3, 4]
    assert list(table["count"]) == [2, 1, 1, 2, 0]
    assert set(table["setups"]) == {6}
    enclosed = stats.flag_enclosure(frames)
    assert enclosed.iloc[0]["enclosed"] == 3 and enclosed.iloc[0]["setups"] == 6
    by_side = stats.flag_enclosure(frames, by="side")
    assert dict(zip(by_side["side"], by_side["enclosed"], strict=True)) == {"blue": 1, "red": 2}


def test_flag_surroundings_treat_lakes_and_edges_as_closed(frames: Frames) -> None:
    table = stats.flag_surroundings(frames).set_index(["game_id", "side"])
    assert table.loc[("g1", "red"), "neighbours"] == 2  # corner: two edges
    assert table.loc[("g3", "blue"), "neighbours"] == 3  # the lake in front is closed
    assert bool(table.loc[("g3", "blue"), "enclosed"])
    assert not bool(table.loc[("g1", "blue"), "enclosed"])


def test_win_rate_by_flag_on_back_row_with_wilson_bounds(frames: Frames) -> None:
    table = stats.win_rate(frames, "flag_back_row")
    back = cell(table, flag_back_row=True)
    # decided setups: g1 red (won), g1 blue (lost), g2 blue (won) on the back row; g2 red lost.
    assert (back["setups"], back["wins"]) == (3, 2)
    assert (back["ci_low"], back["ci_high"]) == pytest.approx(tuple(map(float, stats.wilson(2, 3))))
    other = cell(table, flag_back_row=False)
    assert (other["setups"], other["wins"], other["win_rate"]) == (1, 0, 0.0)
    with pytest.raises(ValueError, match="unknown feature"):
        stats.win_rate(frames, "flag_in_pocket")


def test_grouping_errors_name_the_choices(frames: Frames) -> None:
    with pytest.raises(ValueError, match="choose from variant, period"):
        stats.flag_placement(frames, by="colour")
    with pytest.raises(ValueError, match="per game"):
        stats.endings(frames, by="side")


def test_endings_and_lengths(frames: Frames) -> None:
    table = stats.endings(frames, variant="all")
    flag = cell(table, termination="flag_captured")
    # g1 (5 plies) and g4 (classicfree, 10 plies) count; g5 is invalid.
    assert (flag["games"], flag["mean_plies"], flag["max_plies"]) == (2, 7.5, 10)
    assert flag["share"] == pytest.approx(0.5)
    assert table["games"].sum() == 4
    # By default classic alone: g4 is classicfree.
    classic = stats.endings(frames)
    assert cell(classic, termination="flag_captured")["games"] == 1
    assert classic["games"].sum() == 3
    lengths = stats.game_lengths(frames, by="period", variant="all")
    assert dict(zip(lengths["period"], lengths["games"], strict=True)) == {
        "2014-01": 1,
        "2014-02": 3,
    }
    assert cell(lengths, period="2014-02")["no_moves"] == 1
    per_variant = stats.game_lengths(frames, by="variant")
    assert dict(zip(per_variant["variant"], per_variant["games"], strict=True)) == {
        "classic": 3,
        "classicfree": 1,
    }


def test_scout_usage_counts(frames: Frames) -> None:
    row = stats.scout_usage(frames).iloc[0]
    assert (row["moves"], row["scout_moves"], row["long_moves"], row["scout_attacks"]) == (
        7,
        4,
        3,
        3,
    )
    assert row["scout_share"] == pytest.approx(4 / 7)
    assert row["long_share"] == pytest.approx(3 / 4)
    by_side = stats.scout_usage(frames, by="side")
    assert dict(zip(by_side["side"], by_side["scout_moves"], strict=True)) == {"blue": 2, "red": 2}


def test_scout_distances_and_targets(frames: Frames) -> None:
    distances = stats.scout_distances(frames)
    assert dict(zip(distances["distance"], distances["count"], strict=True)) == {
        1: 1,
        2: 1,
        3: 1,
        5: 1,
    }
    attacks = stats.scout_attacks(frames).set_index("defender")
    assert attacks["count"].to_dict() == {"sergeant": 1, "scout": 1, "spy": 1}
    assert attacks["wins"].to_dict() == {"sergeant": 0, "scout": 0, "spy": 1}


def test_first_scout_move(frames: Frames) -> None:
    row = stats.first_scout_move(frames).iloc[0]
    # g1 red ply 1, g1 blue ply 4, g2 blue ply 2; g2 red never moved a scout.
    assert (row["sides"], row["with_scout_move"]) == (4, 3)
    assert row["mean_ply"] == pytest.approx(7 / 3)
    assert row["median_ply"] == 2.0


def test_scouts_surviving(frames: Frames) -> None:
    table = stats.scouts_surviving(frames)
    # g1: red had 2, lost one attacking (ply 3) and one defending (ply 4, both removed);
    # blue had 1, lost it at ply 4. g2: blue keeps its 1; red had none. g3: none at all.
    assert dict(zip(table["scouts_left"], table["count"], strict=True)) == {0: 5, 1: 1}


def test_compute_names_every_statistic(frames: Frames) -> None:
    for name in stats.STATISTICS:
        table = stats.compute(name, frames)  # type: ignore[arg-type]
        assert len(table) > 0, name
    rows = stats.compute("rows", frames, piece="bomb", by="side")  # type: ignore[arg-type]
    assert rows["count"].sum() == 9
    with pytest.raises(ValueError, match="unknown statistic 'luck'"):
        stats.compute("luck", frames)  # type: ignore[arg-type]


def test_stats_command_on_records_and_on_an_export(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main
    from strat_tools.run.driver import read_games

    fixtures = Path(__file__).resolve().parent / "fixtures" / "tables"
    runner = CliRunner()
    result = runner.invoke(main, ["stats", str(fixtures), "--stat", "rows", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "variant,row,count,setups,share",
        "classic,1,2,2,1.0",
        "classic,2,0,2,0.0",
        "classic,3,0,2,0.0",
        "classic,4,0,2,0.0",
    ]
    read_games(fixtures, run=1).export(tmp_path)
    scouts = runner.invoke(
        main, ["stats", str(tmp_path), "--stat", "scout-attacks", "--format", "json"]
    )
    assert scouts.exit_code == 0, scouts.output
    assert json.loads(scouts.stdout) == [
        {"variant": "classic", "defender": "marshal", "count": 1, "share": 1.0, "wins": 0}
    ]
    unknown = runner.invoke(main, ["stats", str(tmp_path), "--stat", "luck"])
    # The choices are the registry's: click names them all (exit 2, a usage error).
    assert unknown.exit_code == 2 and "Invalid value for '--stat': 'luck'" in unknown.stderr
    assert "'flag'" in unknown.stderr and "'scouts-left'" in unknown.stderr


def test_grouping_by_result_and_won(frames: Frames) -> None:
    by_result = stats.piece_by_line(frames, "flag", "row", by="result")
    # g1 red and g2 blue won, g1 blue and g2 red lost, both g3 setups drew.
    setups = by_result.drop_duplicates("result").set_index("result")["setups"].to_dict()
    assert setups == {"draw": 2, "loss": 2, "win": 2}
    assert cell(by_result, result="loss", row=2)["count"] == 1  # g2 red
    by_won = stats.flag_placement(frames, by="won")
    winners = by_won[by_won["won"].eq(True).fillna(False).astype(bool)]
    assert set(winners["setups"]) == {2}
    assert winners.loc[winners["count"] > 0, ["row", "col"]].values.tolist() == [[1, 1], [1, 10]]


def test_scouts_surviving_by_side_and_a_rescued_scout_comes_back(frames: Frames) -> None:
    by_side = stats.scouts_surviving(frames, by="side")
    counts = {
        (s, n): c
        for s, n, c in zip(by_side["side"], by_side["scouts_left"], by_side["count"], strict=True)
    }
    assert counts == {("blue", 0): 2, ("blue", 1): 1, ("red", 0): 3}
    moves = frames.moves.copy()
    last = (moves["game_id"] == "g1") & (moves["ply"] == 5)  # red's marshal takes the flag
    moves["rescued"] = (
        moves["rescued"].astype(object).where(~last, "scout").astype(frames.moves["rescued"].dtype)
    )
    rescued = stats.scouts_surviving(Frames(frames.games, frames.setups, moves), by="side")
    red = rescued[rescued["side"] == "red"].set_index("scouts_left")["count"].to_dict()
    assert red == {0: 2, 1: 1}


def test_duplicate_game_ids_are_a_clear_error(frames: Frames) -> None:
    games = pd.concat([frames.games, frames.games.iloc[:1]], ignore_index=True)
    with pytest.raises(ValueError, match="game_id 'g1' names more than one game"):
        stats.setup_context(games, frames.setups)


def test_compute_takes_a_players_spelling_and_refuses_unknown_names() -> None:
    import strat_tools as st
    from strat_tools.stats import compute

    games = st.read_games(
        Path(__file__).resolve().parent / "fixtures" / "tables" / "two_battles", run=1
    )
    assert compute("rows", games, piece="F").equals(compute("rows", games, piece="flag"))
    assert compute("rows", games, variant="Classic").equals(
        compute("rows", games, variant="classic")
    )
    with pytest.raises(ValueError, match="unknown piece 'nope'"):
        compute("rows", games, piece="nope")
    with pytest.raises(ValueError, match="unknown variant 'clasic'"):
        compute("rows", games, variant="clasic")


@pytest.fixture(scope="module")
def mixed() -> Any:
    """data/: classic, barrage and duell games (and their moves) in one input."""
    from strat_tools.run.driver import read_games

    return read_games("data/", run=1)


@pytest.mark.parametrize("name", list(stats.STATISTICS))
def test_a_mixed_input_gives_per_variant_tables_never_a_pool(mixed: Any, name: str) -> None:
    variants = set(mixed.games["variant"].astype(str))
    assert {"classic", "barrage", "duell"} <= variants
    default = stats.compute(name, mixed)
    assert default.columns[0] == "variant" and set(default["variant"]) == {"classic"}
    two = stats.compute(name, mixed, variant=["classic", "barrage"])
    assert set(two["variant"]) == {"classic", "barrage"}
    # Each variant's rows are what that variant alone gives: nothing pooled.
    alone = stats.compute(name, mixed, variant="barrage")
    pd.testing.assert_frame_equal(
        two[two["variant"] == "barrage"].reset_index(drop=True), alone, check_dtype=False
    )
    grouped = stats.compute(name, mixed, by="variant")
    assert set(grouped["variant"]) == set(stats.compute(name, mixed, variant="all")["variant"])
    assert {"classic", "barrage", "duell"} <= set(grouped["variant"])
    pooled = stats.compute(name, mixed, variant=["classic", "barrage"], pool_variants=True)
    assert set(pooled["variant"]) == {"classic+barrage"}
    sizes = [c for c in ("setups", "games", "moves", "count") if c in pooled]
    if sizes and stats.STATISTICS[name].additive:
        # A pool adds its variants up, and only when asked.
        assert pooled[sizes[0]].sum() == two[sizes[0]].sum() > alone[sizes[0]].sum()


def test_stats_says_which_variant_each_row_covers_in_every_format() -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    runner = CliRunner()
    common = ["stats", "data/", "--stat", "flag-enclosed", "--jobs", "1"]
    csv_text = runner.invoke(main, [*common, "--format", "csv"]).stdout
    assert csv_text.splitlines()[0].startswith("variant,") and "classic," in csv_text
    rows = json.loads(
        runner.invoke(
            main, [*common, "--variant", "barrage", "--variant", "duell", "--format", "json"]
        ).stdout
    )
    assert [r["variant"] for r in rows] == ["barrage", "duell"]
    table = runner.invoke(main, [*common, "--by", "variant"]).stdout
    assert table.split()[0] == "variant" and "barrage" in table and "classic" in table
    pooled = runner.invoke(
        main,
        [
            *common,
            "--variant",
            "barrage",
            "--variant",
            "duell",
            "--pool-variants",
            "--format",
            "json",
        ],
    )
    (row,) = json.loads(pooled.stdout)
    assert row["variant"] == "barrage+duell"
    assert row["setups"] == sum(r["setups"] for r in rows)
    # No game of the default variant: a usage error naming it, never an empty table.
    nothing = runner.invoke(main, [*common, "--variant", "ultimate-lightning"])
    assert nothing.exit_code == 2 and "no ultimate lightning games to count" in nothing.stderr
