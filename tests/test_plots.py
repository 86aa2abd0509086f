"""Figures are checked for what they show: annotations, colour limits, lakes, orientation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from strat_tools import stats
from strat_tools.core.board import COLUMNS, LAKES, parse_square
from strat_tools.core.pieces import letter_code
from strat_tools.run.driver import read_games
from strat_tools.stats.traffic import square_traffic, traffic_counts, traffic_of_paths
from strat_tools.views import board_plots, charts, plots

ROOT = Path(__file__).resolve().parent.parent

# Three hand-made setups in the owner's view (row 1 = back row at the bottom of each
# diagram, col 1 = the owner's left). Only the flag (F), bombs (B) and one scout (2) are
# written; the rest of each army does not matter to these tests.
SETUPS = {
    ("g1", "red"): """
        ..........
        ..........
        B.........
        FB........
    """,
    ("g1", "blue"): """
        ..........
        .........2
        B.........
        FB........
    """,
    ("g2", "red"): """
        ..........
        ..........
        .......B.B
        ........BF
    """,
}
LETTER_PIECE = {"F": "flag", "B": "bomb", "2": "scout"}


def setups_frame(diagrams: dict[tuple[str, str], str]) -> pd.DataFrame:
    """The ``setups`` table rows of owner-view diagrams (top line = row 4)."""
    rows = []
    for (game_id, side), diagram in diagrams.items():
        lines = [line.strip() for line in diagram.strip().splitlines()]
        for index, line in enumerate(lines):
            row = 4 - index
            for col, letter in enumerate(line, start=1):
                if letter in LETTER_PIECE:
                    rows.append((game_id, side, row, col, LETTER_PIECE[letter]))
    return pd.DataFrame(rows, columns=["game_id", "side", "row", "col", "piece"])


def cell_labels(ax: Axes) -> dict[tuple[int, int], str]:
    """The annotated text of each cell, keyed by its (row, col) position on the axes."""
    return {
        (round(text.get_position()[1]), round(text.get_position()[0])): text.get_text()
        for text in ax.texts
        if text.get_gid() == "cell-label"
    }


def only_image(ax: Axes) -> AxesImage:
    """The one colour image of an axes."""
    assert len(ax.images) == 1
    return ax.images[0]


@pytest.fixture
def setups() -> pd.DataFrame:
    """Three setups: two with the flag in the back-left corner, one back-right."""
    return setups_frame(SETUPS)


def test_flag_heatmap_annotates_each_cells_share(setups: pd.DataFrame) -> None:
    fig = plots.setup_heatmap(setups, "flag")
    ax = fig.axes[0]
    labels = cell_labels(ax)
    assert len(labels) == 40
    # two of three setups have the flag on A1 (owner's view), one on K1
    assert labels[(1, 1)] == "66.7"
    assert labels[(1, 10)] == "33.3"
    assert {text for key, text in labels.items() if key not in ((1, 1), (1, 10))} == {"0.0"}
    assert "n = 3 setups" in ax.get_title()


def test_heatmap_annotations_equal_the_stats_function(setups: pd.DataFrame) -> None:
    from strat_tools.stats import piece_placement

    placement = piece_placement(setups, "bomb")
    labels = cell_labels(plots.setup_heatmap(setups, "bomb").axes[0])
    for row, col, share in zip(placement["row"], placement["col"], placement["share"], strict=True):
        assert labels[(row, col)] == f"{share * 100:.1f}"


def test_heatmap_orientation_back_row_at_the_bottom(setups: pd.DataFrame) -> None:
    ax = plots.setup_heatmap(setups, "flag").axes[0]
    bottom, top = ax.get_ylim()
    assert bottom < top  # y grows upwards, so row 1 (y = 1) is drawn lowest
    assert [t.get_text() for t in ax.get_xticklabels()] == list("ABCDEFGHIK")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2", "3", "4"]
    lakes = [p for p in ax.patches if p.get_gid() == "lake"]
    # the two lakes stand beyond the front row (row 4), in front of columns C-D and G-H
    assert sorted((p.get_x() + 0.5, p.get_x() + 0.5 + p.get_width() - 1) for p in lakes) == [
        (3, 4),
        (7, 8),
    ]
    assert all(p.get_y() > 4.5 for p in lakes)


def test_heatmap_colour_scale_runs_from_zero_to_the_largest_share(setups: pd.DataFrame) -> None:
    fig = plots.setup_heatmap(setups, "flag")
    image = only_image(fig.axes[0])
    assert image.get_clim() == pytest.approx((0.0, 200 / 3))
    # the colours agree with the labels: array row 0 is drawn at the bottom (row 1)
    assert image.origin == "lower"
    assert image.get_array()[0, 0] == pytest.approx(200 / 3)
    assert image.get_array()[0, 9] == pytest.approx(100 / 3)
    colourbar = fig.axes[1]
    assert "% of setups" in colourbar.get_ylabel()


def test_side_filter_and_title(setups: pd.DataFrame) -> None:
    ax = plots.setup_heatmap(setups, "flag", side="red", title="hand-made").axes[0]
    labels = cell_labels(ax)
    assert labels[(1, 1)] == "50.0" and labels[(1, 10)] == "50.0"
    assert "n = 2 setups" in ax.get_title() and "hand-made" in ax.get_title()


def test_all_pieces_share_one_colour_scale(setups: pd.DataFrame) -> None:
    fig = plots.setup_heatmap(setups, "all", min_setups=1)
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels[:3]] == ["Flag (F)", "Bomb (B)", "Spy (1)"]
    assert len(panels) == 12
    # bombs reach 2/3 on A2 (g1 red and blue), the largest share of any piece
    assert [only_image(ax).get_clim() for ax in panels] == [pytest.approx((0.0, 200 / 3))] * 12
    scout = cell_labels(panels[3])
    assert scout[(3, 10)] == "33" and sum(v != "0" for v in scout.values()) == 1


def test_classic_numbering_in_panel_titles(setups: pd.DataFrame) -> None:
    fig = plots.setup_heatmap(setups, "all", numbering="classic", min_setups=1)
    titles = [ax.get_title() for ax in fig.axes if ax.images]
    assert "Marshal (1)" in titles and "Scout (9)" in titles and "Spy (S)" in titles


def test_difference_map_is_centred_at_zero() -> None:
    winners = setups_frame({k: v for k, v in SETUPS.items() if k[0] == "g1"})
    losers = setups_frame({("g2", "red"): SETUPS[("g2", "red")]})
    fig = plots.difference_heatmap(winners, losers, "flag", labels=("winners", "losers"))
    ax = fig.axes[0]
    low, high = only_image(ax).get_clim()
    assert (low, high) == (-100.0, 100.0)
    labels = cell_labels(ax)
    assert labels[(1, 1)] == "+100.0"
    assert labels[(1, 10)] == "\u2212100.0"
    assert labels[(2, 5)] == "0.0"
    assert "winners (n = 2) minus losers (n = 1)" in ax.get_title()


def test_winners_vs_losers_splits_on_won(setups: pd.DataFrame) -> None:
    context = setups.assign(
        won=pd.array([True] * 3 + [False] * 4 + [pd.NA] * 4, dtype="boolean")[: len(setups)]
    )
    # rows: g1 red (3 pieces: won), g1 blue (4 pieces: lost), g2 red (4 pieces: unknown)
    assert list(context.groupby(["game_id", "side"], sort=False).size()) == [3, 4, 4]
    ax = plots.setup_heatmap(context, "flag", by="won").axes[0]
    assert "winners (n = 1) minus losers (n = 1)" in ax.get_title()
    assert only_image(ax).get_clim() == (-1e-9, 1e-9)  # same flag square: no difference


def flag_setups(squares: dict[tuple[int, int], int], won: bool, first: int = 0) -> pd.DataFrame:
    """``squares[(row, col)]`` setups with the flag on (row, col), one game each, all won or
    all lost: the setup context of a winners-minus-losers map."""
    rows = []
    for (row, col), count in squares.items():
        for _ in range(count):
            rows.append((f"g{first + len(rows)}", "red", row, col, "flag", won))
    frame = pd.DataFrame(rows, columns=["game_id", "side", "row", "col", "piece", "won"])
    return frame.astype({"won": "boolean"})


def test_difference_map_marks_the_squares_that_differ_beyond_chance() -> None:
    winners = flag_setups({(1, 1): 85, (1, 10): 10, (2, 5): 5}, won=True)
    losers = flag_setups({(1, 1): 10, (1, 10): 85, (2, 5): 5}, won=False, first=100)
    fig = plots.setup_heatmap(pd.concat([winners, losers], ignore_index=True), "flag", by="won")
    ax = fig.axes[0]
    marked = {
        (round(patch.get_y() + patch.get_height() / 2), round(patch.get_x() + 0.5))
        for patch in ax.patches
        if patch.get_gid() == "significant"
    }
    assert marked == {(1, 1), (1, 10)}  # 85 vs 10 of 100: marked; (2, 5) 5 vs 5: not
    labels = cell_labels(ax)
    assert labels[(1, 1)] == "+75.0*" and labels[(1, 10)] == "\u221275.0*"
    assert labels[(2, 5)] == "0.0"
    note = fig.get_supxlabel()
    assert note.startswith("Outlined and starred: 2 of 40 squares differ significantly")
    assert "two-proportion z-test per square, Holm-corrected over the 40 squares" in note
    assert "family-wise level 5%" in note
    assert "n = 100 setups of winners, 100 setups of losers" in note


def test_difference_map_without_a_real_gap_marks_nothing() -> None:
    winners = flag_setups({(1, 1): 3, (1, 10): 2}, won=True)
    losers = flag_setups({(1, 1): 2, (1, 10): 3}, won=False, first=10)
    fig = plots.setup_heatmap(pd.concat([winners, losers], ignore_index=True), "flag", by="won")
    assert not [p for p in fig.axes[0].patches if p.get_gid() == "significant"]
    assert "*" not in "".join(cell_labels(fig.axes[0]).values())
    assert fig.get_supxlabel().startswith("No square of 40 differs significantly")
    assert "n = 5 setups of winners, 5 setups of losers" in fig.get_supxlabel()


def too_few_labels(fig: Figure) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts if t.get_gid() == "too-few-label"]


def test_panels_with_too_few_setups_say_so_instead_of_drawing_noise(
    setups: pd.DataFrame,
) -> None:
    fig = plots.setup_heatmap(setups, "flag", by="side", min_setups=2)
    drawn = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in drawn] == ["red, n = 2"]  # blue has one setup
    assert too_few_labels(fig) == ["too few (n = 1)"]
    assert "1 panel with fewer than 2 setups left blank" in fig.get_suptitle()
    # the default threshold blanks every panel of three hand-made setups, and no colour bar
    # is drawn for maps that are not there
    everything = plots.setup_heatmap(setups, "all")
    assert len(too_few_labels(everything)) == 12 and not everything.axes[12:]
    assert plots.MIN_PANEL_SETUPS == 50
    assert "12 panels with fewer than 50 setups left blank" in everything.get_suptitle()


def test_per_panel_scale_gives_each_panel_its_own_colour_bar(setups: pd.DataFrame) -> None:
    fig = plots.setup_heatmap(setups, "flag", by="side", min_setups=1, scale="per-panel")
    panels = [ax for ax in fig.axes if ax.images]
    assert [only_image(ax).get_clim() for ax in panels] == [(0.0, 100.0), (0.0, 50.0)]
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "% (this panel)"]
    assert len(bars) == 2
    assert "one colour scale per panel" in fig.get_suptitle()
    shared = plots.setup_heatmap(setups, "flag", by="side", min_setups=1)
    assert [only_image(ax).get_clim() for ax in shared.axes if ax.images] == [(0.0, 100.0)] * 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"scale": "own"}, "unknown panel scale 'own'; choose from shared, per-panel"),
        ({"min_setups": -1}, "must be a count >= 0, not -1"),
        ({"min_setups": 2.5}, "must be a count >= 0, not 2.5"),
    ],
)
def test_panel_options_are_checked_where_they_enter(
    setups: pd.DataFrame, options: dict[str, Any], message: str
) -> None:
    from strat_tools.core.errors import OptionError

    with pytest.raises(OptionError, match=message):
        plots.setup_heatmap(setups, "flag", by="side", **options)


def test_grouped_heatmap_one_panel_per_group(setups: pd.DataFrame) -> None:
    fig = plots.setup_heatmap(setups, "flag", by="side", min_setups=1)
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["blue, n = 1", "red, n = 2"]
    assert cell_labels(panels[0])[(1, 1)] == "100"
    assert cell_labels(panels[1])[(1, 1)] == "50"


@pytest.mark.parametrize(
    "options",
    [{}, {"side": "red"}, {"by": "side", "min_setups": 1}, {"piece": "all", "min_setups": 1}],
)
def test_counted_placements_draw_what_the_setups_draw(
    setups: pd.DataFrame, options: dict[str, Any]
) -> None:
    """One function draws both: the setups counted here, or the placement frames counted
    elsewhere (the report's and the heatmap command's streamed counts)."""
    from strat_tools.stats import piece_placements

    piece = options.pop("piece", "flag")
    requests = plots.setup_heatmap_requests(piece, side=options.get("side"), by=options.get("by"))
    keys = requests[0][1]
    counted = piece_placements(setups, [p for p, _ in requests], list(keys), None)
    placements = {(p, keys): counted[p] for p, _ in requests}
    drawn = plots.setup_heatmap(placements, piece, **options)
    assert _figure_text(drawn) == _figure_text(plots.setup_heatmap(setups, piece, **options))


def test_all_pieces_cannot_be_grouped_and_unknown_pieces_are_refused(setups: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="group 'by' one piece at a time"):
        plots.setup_heatmap(setups, "all", by="won")
    with pytest.raises(ValueError, match="unknown piece 'queen'"):
        plots.setup_heatmap(setups, "queen")
    with pytest.raises(ValueError, match="no setups to draw for variant barrage"):
        plots.setup_heatmap(setups.assign(variant="classic"), "flag", variant="barrage")


def board_patches(ax: Axes, gid: str) -> set[int]:
    """The squares covered by the unit patches with ``gid`` on a whole-board view."""
    squares = set()
    for patch in ax.patches:
        if patch.get_gid() == gid:
            col, row = round(patch.get_x() + 0.5), round(patch.get_y() + 0.5)
            squares.add(row * 10 + col)
    return squares


def test_board_view_draws_the_lakes_where_they_belong() -> None:
    ax = board_plots.board_heatmap(np.zeros(100)).axes[0]
    assert board_patches(ax, "lake") == set(LAKES)
    assert {parse_square(n) for n in ("C5", "D5", "G5", "H5", "C6", "D6", "G6", "H6")} == set(LAKES)
    assert [t.get_text() for t in ax.get_xticklabels()] == list("ABCDEFGHIK")
    assert ax.get_yticklabels()[0].get_text() == "1"  # red's back row at the bottom
    assert ax.get_ylim()[0] < ax.get_ylim()[1]


def test_board_heatmap_scale_ignores_lake_values() -> None:
    values = np.arange(100, dtype=float)
    values[57] = 10_000  # H6 is a lake: its value must not stretch the scale
    ax = board_plots.board_heatmap(values).axes[0]
    assert only_image(ax).get_clim() == (0.0, 99.0)
    labels = cell_labels(ax)
    assert len(labels) == 92
    assert labels[(9, 9)] == "99" and (5, 7) not in labels


def test_board_heatmap_shortens_big_counts_to_fit_a_square() -> None:
    values = np.zeros(100)
    values[[0, 1, 2, 3]] = [532, 9876, 10_000, 123_456]
    labels = cell_labels(board_plots.board_heatmap(values).axes[0])
    assert [labels[(0, c)] for c in range(4)] == ["532", "9.9k", "10.0k", "123k"]


def ascii_counts(counts: np.ndarray) -> str:
    """A 10x10 count grid as red sees it: row 10 on top, lakes as ~, zeros as dots."""
    lines = []
    for row in range(9, -1, -1):
        cells = []
        for col in range(10):
            square = row * 10 + col
            value = int(counts[square])
            cells.append("~" if square in LAKES else ("." if value == 0 else str(value)))
        lines.append("".join(cells))
    return "\n".join(lines)


@pytest.fixture
def moves() -> pd.DataFrame:
    """A scout run up the A file, a blue scout down K, a miner step, a scout battle."""
    return pd.DataFrame(
        {
            "game_id": ["g1", "g1", "g1", "g2", "g2"],
            "ply": [1, 2, 3, 1, 2],
            "side": ["red", "blue", "red", "red", "blue"],
            "piece": ["scout", "scout", "miner", "scout", "scout"],
            "from_square": ["A4", "K7", "E4", "B4", "A7"],
            "to_square": ["A9", "K5", "E5", "B5", "A8"],
            "distance": [5, 2, 1, 1, 1],
            "defender": [None, None, None, None, "bomb"],
            "outcome": [None, None, None, None, "defender"],
        }
    )


def test_scout_paths_count_every_square_entered(moves: pd.DataFrame) -> None:
    counts = square_traffic(moves, piece="scout", measure="path")
    assert ascii_counts(counts) == "\n".join(
        [
            "..........",
            "1.........",
            "2.........",
            "1.........",
            "1.~~..~~.1",
            "11~~..~~.1",
            "..........",
            "..........",
            "..........",
            "..........",
        ]
    )


def test_battles_and_owner_view(moves: pd.DataFrame) -> None:
    battles = square_traffic(moves, piece=None, measure="battle")
    assert int(battles.sum()) == 1 and battles[parse_square("A8")] == 1
    owner = square_traffic(moves, piece="scout", measure="target", view="owner")
    # blue's K7->K5 becomes A4->A6 and A7->A8 becomes K4->K3 in the mover's own view
    assert ascii_counts(owner) == "\n".join(
        [
            "..........",
            "1.........",
            "..........",
            "..........",
            "1.~~..~~..",
            ".1~~..~~..",
            "..........",
            ".........1",
            "..........",
            "..........",
        ]
    )


def test_traffic_reads_categorical_squares_and_skips_bad_ones(moves: pd.DataFrame) -> None:
    names = [COLUMNS[sq % 10] + str(sq // 10 + 1) for sq in range(100)]
    frame = moves.copy()
    frame.loc[2, "to_square"] = None  # a bad square name in the record becomes null
    for column in ("from_square", "to_square"):
        frame[column] = pd.Categorical(frame[column], categories=names)
    counts = square_traffic(frame, piece=None, measure="target")
    assert int(counts.sum()) == 4 and counts[parse_square("E5")] == 0


def test_traffic_heatmap_titles_what_and_how_many(moves: pd.DataFrame) -> None:
    fig = board_plots.traffic_heatmap(moves, piece="scout")
    ax = fig.axes[0]
    assert ax.get_title() == "Squares entered by Scout (2): 4 moves in 2 games"
    assert only_image(ax).get_clim() == (0.0, 2.0)
    assert cell_labels(ax)[(7, 0)] == "2"  # A8, entered twice
    battles = board_plots.traffic_heatmap(moves, piece=None, measure="battle").axes[0]
    assert battles.get_title() == "Where battles happen: 1 attack in 1 game"
    assert "(red sets up on 1-4" in battles.get_ylabel()
    owner = board_plots.traffic_heatmap(moves, view="owner").axes[0]
    assert "mover's back row" in owner.get_ylabel()


def test_traffic_heatmap_names_the_piece_in_the_chosen_numbering(moves: pd.DataFrame) -> None:
    classic = board_plots.traffic_heatmap(
        moves, piece="scout", measure="target", numbering="classic"
    )
    assert classic.axes[0].get_title() == "Squares Scout (9) moved to: 4 moves in 2 games"
    battles = board_plots.traffic_heatmap(
        moves, piece="scout", measure="battle", numbering="classic"
    )
    assert battles.axes[0].get_title() == (
        "Where battles happen, Scout (9) attacking: 1 attack in 1 game"
    )
    miner = board_plots.traffic_heatmap(moves, piece="miner", title="variant: classic").axes[0]
    assert miner.get_title() == "Squares entered by Miner (3): 1 move in 1 game\nvariant: classic"


# Neighbour ratios as arrangement.adjacency_matrix gives them: kinds in KIND_LABELS order, NaN
# where chance gives no pair (one spy, one flag), 0 where no pair was seen.
ADJACENCY = pd.DataFrame(
    [[0.5, 1.0, 8.0], [1.0, np.nan, 0.0], [8.0, 0.0, np.nan]],
    index=["bomb", "spy", "flag"],
    columns=["bomb", "spy", "flag"],
)


def test_adjacency_figure_is_centred_at_chance_on_a_log_scale() -> None:
    fig = charts.adjacency_figure(ADJACENCY, title="Neighbours, n = 3 setups")
    ax = fig.axes[0]
    assert ax.get_title() == "Neighbours, n = 3 setups"
    image = only_image(ax)
    low, high = image.get_clim()
    assert low == pytest.approx(1 / high) and high > 1  # symmetric around 1 in log terms
    scaled = np.asarray(image.norm(np.array([0.5, 1.0, 2.0])), dtype=float)
    assert scaled[1] == pytest.approx(0.5)
    assert scaled[2] - 0.5 == pytest.approx(0.5 - scaled[0])  # twice as often = half as often
    array = image.get_array()
    assert array is not None
    shown = np.ma.getdata(array)
    assert np.ma.getmaskarray(array).tolist() == np.isnan(ADJACENCY.to_numpy()).tolist()
    assert shown[0, 2] == high and shown[1, 2] == low  # 8 and 0 saturate, stay drawable
    labels = cell_labels(ax)
    assert [labels[(0, col)] for col in range(3)] == ["0.50", "1.00", "8.00"]
    assert labels[(1, 1)] == "–" and labels[(2, 1)] == "0.00"


def test_adjacency_figure_names_pieces_with_their_rank() -> None:
    modern = charts.adjacency_figure(ADJACENCY, title="t").axes[0]
    names = ["Bomb (B)", "Spy (1)", "Flag (F)"]
    assert [t.get_text() for t in modern.get_xticklabels()] == names
    assert [t.get_text() for t in modern.get_yticklabels()] == names
    classic = charts.adjacency_figure(ADJACENCY, title="t", numbering="classic").axes[0]
    assert [t.get_text() for t in classic.get_yticklabels()] == ["Bomb (B)", "Spy (S)", "Flag (F)"]


POSITION = """
    .........F
    ..........
    ..........
    ......X...
    ..~~..~~..
    ..~~.D~~..
    ...L......
    ..........
    ..........
    M.........
"""


def test_position_figure_puts_each_piece_on_its_square() -> None:
    board = [0] * 100
    for index, line in enumerate(POSITION.strip().splitlines()):
        row = 9 - index
        for col, letter in enumerate(line.strip()):
            if letter == "~":
                board[row * 10 + col] = 25
            elif letter == "F":
                board[row * 10 + col] = letter_code("Y")  # blue flag
            elif letter != ".":
                board[row * 10 + col] = letter_code(letter)
    ax = board_plots.position_figure(board, last_move=(35, 45)).axes[0]
    labels = {
        (round(t.get_position()[1]) * 10 + round(t.get_position()[0])): t.get_text()
        for t in ax.texts
        if t.get_gid() == "piece-label"
    }
    assert labels == {99: "F", 66: "10", 45: "2", 33: "10", 0: "F"}
    assert board_patches(ax, "lake") == set(LAKES)
    colours = {
        round(p.get_x() + 0.42) + 10 * round(p.get_y() + 0.42): p.get_facecolor()[:3]
        for p in ax.patches
        if p.get_gid() == "piece"
    }
    assert colours[0][0] > colours[0][2] and colours[99][2] > colours[99][0]  # red, blue


# --- the heatmap command ------------------------------------------------------------------


@pytest.fixture(scope="module")
def games_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve generated classic games in one zip."""
    from strat_tools.formats.xml_writer import write_games
    from strat_tools.generate.games import generate_games

    path = tmp_path_factory.mktemp("games") / "strados2026-10.zip"
    write_games(generate_games(12, variant="classic", seed=4, month=11), path)
    return path


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run ``strat-tools`` in process: exit code, stdout, stderr."""
    from click.testing import CliRunner

    from strat_tools.cli import main

    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def svg_texts(path: Path) -> str:
    """The text of an SVG written by matplotlib (glyphs kept as text)."""
    return path.read_text()


def test_heatmap_command_writes_the_flag_map(tmp_path: Path, games_zip: Path) -> None:
    from strat_tools.run.driver import read_games
    from strat_tools.stats import piece_placement

    out = tmp_path / "flag.png"
    code, stdout, stderr = run_cli("heatmap", str(games_zip), "--piece", "flag", "-o", str(out))
    assert code == 0, stderr
    assert stdout == "" and f"Wrote {out}" in stderr
    assert out.read_bytes().startswith(b"\x89PNG")
    # the same picture through the library, to read its labels back
    games = read_games([str(games_zip)], setups_only=True, run=1)
    placement = piece_placement(games, "flag", variant="classic")
    labels = cell_labels(plots.setup_heatmap(games, "flag", variant="classic").axes[0])
    assert int(placement["setups"].max()) == 24
    for row, col, share in zip(placement["row"], placement["col"], placement["share"], strict=True):
        assert labels[(row, col)] == f"{share * 100:.1f}"


def test_heatmap_command_all_pieces_svg(tmp_path: Path, games_zip: Path) -> None:
    import matplotlib

    out = tmp_path / "pieces.svg"
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        code, _, stderr = run_cli("heatmap", str(games_zip), "--piece", "all", "-o", str(out))
    assert code == 0, stderr
    text = svg_texts(out)
    assert "n = 24 setups" in text and "Marshal (10)" in text


def test_heatmap_command_moves_view(tmp_path: Path, games_zip: Path) -> None:
    out = tmp_path / "scouts.pdf"
    code, _, stderr = run_cli(
        "heatmap",
        str(games_zip),
        "--piece",
        "scout",
        "--moves",
        "path",
        "--view",
        "owner",
        "-o",
        str(out),
        "--jobs",
        "1",
    )
    assert code == 0, stderr
    assert out.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("numbering, scout", [("modern", "Scout (2)"), ("classic", "Scout (9)")])
def test_heatmap_command_moves_in_either_numbering(
    tmp_path: Path, games_zip: Path, numbering: str, scout: str
) -> None:
    import matplotlib

    out = tmp_path / "scouts.svg"
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        code, _, stderr = run_cli(
            "heatmap",
            str(games_zip),
            "--piece",
            "scout",
            "--moves",
            "target",
            "--numbering",
            numbering,
            "-o",
            str(out),
            "--jobs",
            "1",
        )
    assert code == 0, stderr
    text = svg_texts(out)
    assert f"Squares {scout} moved to" in text
    other = {"Scout (2)": "Scout (9)", "Scout (9)": "Scout (2)"}[scout]
    assert other not in text


@pytest.mark.parametrize(
    "args, code, text",
    [
        (["--piece", "flag", "-o", "flag.txt"], 2, "must end in .png, .svg or .pdf"),
        (["--piece", "queen", "-o", "x.png"], 2, "Invalid value for '--piece'"),
        (
            ["--variant", "barrage", "-o", "x.png"],
            3,
            "Error: no setups to draw for variant barrage",
        ),
        (["--by", "side", "--scale", "own", "-o", "x.png"], 2, "Invalid value for '--scale'"),
        (["--by", "side", "--min-setups", "-1", "-o", "x.png"], 2, "--min-setups"),
        (["--moves", "path", "--scale", "per-panel", "-o", "x.png"], 2, "a --moves map has none"),
    ],
)
def test_heatmap_command_errors(
    tmp_path: Path, games_zip: Path, args: list[str], code: int, text: str
) -> None:
    result = run_cli(
        "heatmap", str(games_zip), *[str(tmp_path / a) if "." in a else a for a in args]
    )
    assert result[0] == code
    assert text in result[2]
    assert list(tmp_path.iterdir()) == []


def test_heatmap_command_panel_scale_and_threshold(tmp_path: Path, games_zip: Path) -> None:
    import matplotlib

    out = tmp_path / "sides.svg"
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        code, _, stderr = run_cli(
            "heatmap",
            str(games_zip),
            "--by",
            "side",
            "--scale",
            "per-panel",
            "--min-setups",
            "13",
            "-o",
            str(out),
            "--jobs",
            "1",
        )
    assert code == 0, stderr
    text = svg_texts(out)  # 12 games: 12 setups a side, one short of 13
    assert text.count("too few (n = 12)") == 2 and "one colour scale per panel" in text


def test_heatmap_command_missing_input(tmp_path: Path) -> None:
    code, _, stderr = run_cli("heatmap", str(tmp_path / "nothing"), "-o", str(tmp_path / "x.png"))
    assert code == 2
    assert stderr.startswith("Error: nothing readable in")


@pytest.mark.archive
def test_flag_heatmap_of_the_real_archive(gravon_dir: Path) -> None:
    from strat_tools.run.driver import read_games
    from strat_tools.stats import piece_placement

    games = read_games([str(gravon_dir)], setups_only=True)
    ax = plots.setup_heatmap(games, "flag", variant="classic").axes[0]
    # 12,400 classic games, one without a setup (classic-2014.9-2525): 2 x 12,399 setups
    assert "n = 24,798 setups" in ax.get_title()
    placement = piece_placement(games, "flag", variant="classic")
    labels = cell_labels(ax)
    for row, col, share in zip(placement["row"], placement["col"], placement["share"], strict=True):
        assert labels[(row, col)] == f"{share * 100:.1f}"
    # most flags stand on the back row, as every rulebook advises
    back_row = placement.loc[placement["row"] == 1, "share"].sum()
    assert back_row > 0.9


def test_win_rate_chart_draws_each_interval() -> None:
    rates = pd.DataFrame(
        {
            "label": ["flag corner: no", "flag corner: yes"],
            "setups": [100, 20],
            "win_rate": [0.5, 0.6],
            "ci_low": [0.4, 0.39],
            "ci_high": [0.6, 0.78],
        }
    )
    ax = charts.win_rate_chart(rates, title="test").axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "flag corner: no  (n = 100)",
        "flag corner: yes  (n = 20)",
    ]
    points = ax.lines[0].get_xydata()
    assert points.ravel().tolist() == pytest.approx([50.0, 1.0, 60.0, 0.0])
    bars = ax.collections[0].get_segments()
    assert [tuple(seg[:, 0]) for seg in bars] == [
        pytest.approx((40.0, 60.0)),
        pytest.approx((39.0, 78.0)),
    ]


def _figure_text(fig: Figure) -> list[Any]:
    """Everything a reader sees: the titles, axis labels and every cell label."""
    suptitle = fig.get_suptitle()
    return [suptitle] + [(ax.get_title(), ax.get_ylabel(), cell_labels(ax)) for ax in fig.axes]


@pytest.mark.parametrize(
    "options",
    [
        {"piece": "flag"},
        {"piece": "bomb", "side": "blue"},
        {"piece": "all", "side": "red"},
        {"piece": "flag", "by": "won"},
        {"piece": "scout", "by": "side", "side": "blue"},
        {"piece": "spy", "by": "period", "variant": "barrage"},
    ],
)
@pytest.mark.slow
def test_streamed_heatmap_draws_what_the_in_memory_one_draws(options: dict[str, Any]) -> None:
    # The CLI counts placement batch by batch (flat memory); the figure must not change.
    from strat_tools.run.driver import read_games
    from strat_tools.stats.stream import compute_many_streaming

    inputs = [str(ROOT / "data"), str(ROOT / "tests" / "fixtures" / "gravon")]
    options = {"variant": "classic", **options}
    piece, side, by = options["piece"], options.get("side"), options.get("by")
    whole = plots.setup_heatmap(read_games(inputs, setups_only=True, run=1), **options)
    requests = plots.setup_heatmap_requests(piece, side=side, by=by)
    counted = compute_many_streaming(
        [
            ("placement", {"piece": p, "by": list(k), "variant": options["variant"]})
            for p, k in requests
        ],
        inputs,
        run=1,
    )
    streamed = plots.setup_heatmap(dict(zip(requests, counted, strict=True)), **options)
    assert _figure_text(streamed) == _figure_text(whole)


def test_the_heatmap_of_paths_is_the_commands_one_call() -> None:
    """``heatmap_of_paths`` draws from the paths what the command draws (both modes), the
    synthetic games named in the title; a moves map split by a group is a usage error."""
    from strat_tools.core.errors import UsageError
    from strat_tools.views.heatmaps import heatmap_of_paths

    inputs = [str(ROOT / "data")]  # the generator's games: synthetic, and said so
    setups = heatmap_of_paths(inputs, "flag", title="sample", run=1)
    expected = plots.setup_heatmap(
        read_games(inputs, setups_only=True, run=1),
        "flag",
        variant="classic",
        title="classic, sample\n400 synthetic games",
    )
    assert _figure_text(setups) == _figure_text(expected)
    moves = heatmap_of_paths(inputs, "scout", moves="battle", side="red", run=1)
    assert moves.axes[0].get_title().endswith("\nclassic, red side only\n400 synthetic games")
    with pytest.raises(UsageError, match="cannot be split") as refused:
        heatmap_of_paths(inputs, "scout", moves="path", by="won", run=1)
    assert refused.value.option == "by"


@pytest.mark.parametrize(
    ("piece", "measure", "view", "side"),
    [
        ("scout", "path", "owner", None),
        (None, "battle", "board", "red"),
        ("miner", "target", "board", "blue"),
    ],
)
def test_traffic_counted_batch_by_batch_equals_the_whole(
    piece: str | None, measure: Any, view: Any, side: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from strat_tools.run.driver import read_games
    from strat_tools.stats import move_frame

    monkeypatch.setattr("strat_tools.run.driver.REDUCE_BATCH", 40)  # many batches
    inputs = [str(ROOT / "data"), str(ROOT / "tests" / "fixtures" / "gravon")]
    moves = move_frame(read_games(inputs, run=1), variant="classic")
    if side is not None:
        moves = moves[moves["side"] == side]
    whole = traffic_counts(moves, piece=piece, measure=measure, view=view)
    streamed = traffic_of_paths(
        inputs, variant="classic", side=side, piece=piece, measure=measure, view=view, run=1
    )
    assert whole.moves > 0 and whole.games > 1
    assert (streamed.moves, streamed.games) == (whole.moves, whole.games)
    assert streamed.counts.tolist() == whole.counts.tolist()
    figures = [
        board_plots.traffic_figure(t, piece=piece, measure=measure, view=view)
        for t in (whole, streamed)
    ]
    assert _figure_text(figures[0]) == _figure_text(figures[1])


@pytest.mark.parametrize("numbering", ["clasic", "Modern", ""])
def test_a_misspelt_numbering_is_refused_not_drawn_as_modern(numbering: str) -> None:
    from strat_tools.core.errors import OptionError
    from strat_tools.run.driver import read_games

    one = Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"
    placement = stats.flag_placement(read_games(one, setups_only=True, run=1))
    with pytest.raises(OptionError, match=f"unknown numbering {numbering!r}"):
        plots.placement_heatmap(placement, "flag", numbering=numbering)  # type: ignore[arg-type]
