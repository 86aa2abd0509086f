"""Setup patterns: reading, drawing back, matching (mirror too) and impossible patterns."""

from __future__ import annotations

import numpy as np
import pytest

from strat_tools.setups.identity import draw_setup, mirror, setup_from_letters
from strat_tools.setups.patterns import Pattern, PatternError

EXAMPLE = "EEFFJBMKIHEEGDDBBHCDFFDGDBLGDDGBIIJBHHDE"  # gravon-format.md's red setup
# Its drawing (front row first):
#   5 B 7 7 8 B 6 6 2 3
#   4 4 2 5 2 B X 5 2 2
#   3 3 5 2 2 B B 6 S 2
#   3 3 4 4 8 B F 9 7 6
CODES = np.stack([setup_from_letters(EXAMPLE), mirror(setup_from_letters(EXAMPLE)[None, :])[0]])


def test_a_pattern_is_drawn_back_as_written() -> None:
    text = "[B3]......... / ..!B....... / .......... / ......F.[bomb,flag]."
    pattern = Pattern.parse(text)
    assert str(pattern) == (
        "[B3] . . . . . . . . .\n. . !B . . . . . . .\n. . . . . . . . . .\n. . . . . . F . [BF] ."
    )
    assert Pattern.parse(str(pattern)) == pattern
    assert repr(pattern).startswith("Pattern.parse(")


def test_the_drawing_of_a_setup_matches_exactly_that_setup() -> None:
    pattern = Pattern.parse(draw_setup(CODES[0]))
    assert pattern.match(CODES).tolist() == [True, False]
    assert pattern.match(CODES, mirror=True).tolist() == [True, True]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("........../........../........../......F...", [True, False]),  # back row, col 7
        (". . . . . . . . . . / " * 3 + ". . . . . . flag . . .", [True, False]),
        ("........../........../........../......[F9]...", [True, False]),
        ("........../........../........../......!F...", [False, True]),
        ("5........./........../........../..........", [True, False]),  # front row, col 1
        ("........../......X.../........../..........", [True, False]),  # marshal, row 3
        ("........../. . . . . . 10 . . ./........../..........", [True, False]),
        ("........../........S./........../..........", [False, False]),  # a 2 stands there
        ("........../........../........S./..........", [True, False]),
        ("........../........../........../..........", [True, True]),
    ],
)
def test_matches(text: str, expected: list[bool]) -> None:
    assert Pattern.parse(text).match(CODES).tolist() == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("........../........../..........", "4 rows"),
        ("........./........../........../..........", "row 1 of the pattern has 9"),
        ("........../........../........../.........Q", "unknown square 'Q'"),
        ("........../........../........../.........M", "X the marshal"),
        ("........../........../........../.........!.", "allows nothing"),
        ("........../........../........../...flag......", "has 13 squares"),
        ("........../......10.../........../..........", "has 11 squares"),
    ],
)
def test_bad_patterns_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(PatternError, match=message):
        Pattern.parse(text)


def test_empty_is_impossible_in_classic_but_not_in_barrage() -> None:
    empty_corner = Pattern.parse("........../........../........../_.........")
    assert "no empty square (row 1, column 1)" in (empty_corner.impossible("classic") or "")
    assert empty_corner.impossible("barrage") is None
    assert empty_corner.match(CODES).tolist() == [False, False]
    two_flags = Pattern.parse("........../........../........../FF........")
    assert two_flags.impossible("classic") == "the pattern needs 2 flags; a classic army has 1"
    seven_bombs = Pattern.parse("BBBBBBB.../........../........../..........")
    assert "7 bombs" in (seven_bombs.impossible("classic") or "")
    six_bombs = Pattern.parse("BBBBBB..../........../........../..........")
    assert six_bombs.impossible("classic") is None
    one_bomb = Pattern.parse("B........./........../........../..........")
    assert one_bomb.impossible("barrage") is None
    two_bombs = Pattern.parse("BB......../........../........../..........")
    assert "2 bombs" in (two_bombs.impossible("barrage") or "")
