"""Board geometry: square names, lakes, owner's view, neighbour and ray tables."""

from __future__ import annotations

import pytest

from strat_tools.core.board import (
    COLUMNS,
    LAKES,
    NEIGHBOURS,
    RAYS,
    SQUARES,
    Side,
    col_of,
    from_owner_view,
    is_home_square,
    owner_view,
    parse_square,
    row_of,
    square_name,
)


def test_square_names_round_trip_every_square() -> None:
    for sq in SQUARES:
        assert parse_square(square_name(sq)) == sq
        assert parse_square(square_name(sq, gravon=True)) == sq


def test_row_ten_is_written_k10_and_read_from_gravon_colon() -> None:
    assert square_name(99) == "K10"
    assert square_name(99, gravon=True) == "K:"
    assert parse_square("K:") == parse_square("K10") == 99
    assert square_name(0) == "A1" and square_name(9) == "K1" and square_name(90) == "A10"


@pytest.mark.parametrize("bad", ["J1", "A0", "A11", "L5", "", "a1", "K;", "A:0", "10A"])
def test_bad_square_names_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a square name"):
        parse_square(bad)


def test_square_name_refuses_out_of_range() -> None:
    with pytest.raises(ValueError):
        square_name(100)
    with pytest.raises(ValueError):
        square_name(-1)


def test_there_is_no_column_j() -> None:
    assert COLUMNS == "ABCDEFGHIK"


def test_lakes_as_a_diagram() -> None:
    rows = []
    for row in range(9, -1, -1):
        rows.append("".join("~" if row * 10 + c in LAKES else "." for c in range(10)))
    assert "\n".join(rows) == "\n".join(
        [
            "..........",
            "..........",
            "..........",
            "..........",
            "..~~..~~..",
            "..~~..~~..",
            "..........",
            "..........",
            "..........",
            "..........",
        ]
    )
    assert sorted(square_name(s) for s in LAKES) == sorted(
        ["C5", "D5", "G5", "H5", "C6", "D6", "G6", "H6"]
    )


def test_owner_view_round_trips_and_turns_blue_by_180_degrees() -> None:
    for side in Side:
        for sq in SQUARES:
            row, col = owner_view(sq, side)
            assert from_owner_view(row, col, side) == sq
    assert owner_view(parse_square("A1"), Side.RED) == (1, 1)
    assert owner_view(parse_square("K10"), Side.BLUE) == (1, 1)  # blue's back-row left
    assert owner_view(parse_square("A10"), Side.BLUE) == (1, 10)
    assert owner_view(parse_square("K7"), Side.BLUE) == (4, 1)


def test_rows_cols_and_home_squares() -> None:
    assert (row_of(55), col_of(55)) == (6, 6)
    assert sum(is_home_square(s, Side.RED) for s in SQUARES) == 40
    assert all(is_home_square(s, Side.BLUE) == (s >= 60) for s in SQUARES)


def test_neighbours_skip_lakes_and_edges() -> None:
    assert sorted(square_name(s) for s in NEIGHBOURS[parse_square("A1")]) == ["A2", "B1"]
    assert sorted(square_name(s) for s in NEIGHBOURS[parse_square("C4")]) == ["B4", "C3", "D4"]
    assert all(n not in LAKES for ns in NEIGHBOURS for n in ns)


def test_rays_stop_at_lakes_and_edges() -> None:
    up, down, right, left = RAYS[parse_square("C1")]
    assert [square_name(s) for s in up] == ["C2", "C3", "C4"]
    assert down == ()
    assert [square_name(s) for s in right][:2] == ["D1", "E1"] and len(right) == 7
    assert [square_name(s) for s in left] == ["B1", "A1"]
    assert [square_name(s) for s in RAYS[parse_square("E5")][0]] == ["E6", "E7", "E8", "E9", "E10"]


def test_side_other_and_label() -> None:
    assert Side.RED.other is Side.BLUE and Side.BLUE.other is Side.RED
    assert Side(1) is Side.RED and Side.BLUE.label == "blue"
