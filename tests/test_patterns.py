"""Setup patterns: reading, drawing back, matching (mirror too, anywhere) and impossible ones."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strat_tools.setups.identity import draw_setup, mirror, setup_from_letters
from strat_tools.setups.patterns import Pattern, PatternError, parse_pattern

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


# --- negated sets, and every bad pattern a clean error -------------------------------------


def test_a_negated_set_is_none_of_its_pieces() -> None:
    back_row = "........../........../........../"
    neither = Pattern.parse(back_row + "......[!FB]...")  # column 7 holds the flag in CODES[0]
    assert neither.match(CODES).tolist() == [False, True]
    assert neither == Pattern.parse(back_row + "......![FB]...")
    assert neither == Pattern.parse(back_row.replace("/", " / ") + ". . . . . . [!flag,bomb] . . .")
    assert str(neither).splitlines()[3] == ". . . . . . [!BF] . . ."
    assert Pattern.parse(str(neither)) == neither


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[!F!B]", "'!' may only open a set"),
        ("!!B", "negate a square once"),
        ("S!", "'!' must stand before"),
        ("[FB", "not closed with ]"),
        ("F]", "a set is written"),
        ("[]", "an empty set allows nothing"),
        ("[!]", "an empty set allows nothing"),
        ("[bomb,]", "an empty name between commas"),
        ("[Q]", "in the set '[Q]': unknown square 'Q'"),
        ("S G / B", "equally wide; got rows of 1 and 2"),
        ("SG/B/F/B/F", "at most 4 rows"),
        ("SSSSSSSSSSS", "at most 10 squares"),
        ("/ /", "an empty pattern"),
        ("!.", "allows nothing"),
    ],
)
def test_bad_anywhere_patterns_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(PatternError, match=re.escape(message)):
        parse_pattern(text, anywhere=True)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="SGBF.!_#[],/ 10xXbomb\n\t\x1b", max_size=60))
def test_any_text_reads_as_a_pattern_or_a_pattern_error(text: str) -> None:
    for anywhere in (False, True):
        try:
            pattern = parse_pattern(text, anywhere=anywhere)
        except PatternError as exc:
            assert str(exc)
        else:  # what was read draws back to the same pattern
            assert parse_pattern(str(pattern), anywhere=anywhere) == pattern


# --- patterns anywhere ----------------------------------------------------------------------

ARMY = "B" * 6 + "C" + "D" * 8 + "E" * 5 + "F" * 4 + "G" * 4 + "H" * 4 + "I" * 3 + "J" * 2 + "KLM"
"""The 40 pieces of a classic army in Gravon letters (C spy, K general, M flag)."""


def random_setups(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    army = np.frombuffer(ARMY.encode(), dtype=np.uint8) - ord("A")
    return np.stack([rng.permutation(army) for _ in range(n)]).astype(np.uint8)


def test_spy_beside_the_general_is_counted_as_a_person_would() -> None:
    codes = random_setups(3000)
    spy, general = 2, 10
    beside = [  # the general right of the spy in some row, as the owner sees it
        any(
            row[c] == spy and row[c + 1] == general for row in code.reshape(4, 10) for c in range(9)
        )
        for code in codes
    ]
    either = [
        any(
            {int(row[c]), int(row[c + 1])} == {spy, general}
            for row in code.reshape(4, 10)
            for c in range(9)
        )
        for code in codes
    ]
    pattern = parse_pattern("SG", anywhere=True)
    assert pattern.match(codes).tolist() == beside
    assert pattern.match(codes, mirror=True).tolist() == either
    plain, mirrored = pattern.match_views(codes)
    assert (plain | mirrored).tolist() == either and mirrored.tolist() != plain.tolist()
    assert 50 < sum(beside) < sum(either) < 3000


def test_rows_of_an_anywhere_pattern_run_front_row_first() -> None:
    setup = setup_from_letters(EXAMPLE)
    # Drawn front row first: the flag (back row, column 7) has a 9 right of it and a bomb
    # in front of it; the 9 has a 6 in front of it, the spy a 7 behind it.
    assert draw_setup(setup).splitlines()[2:] == ["3 3 5 2 2 B B 6 S 2", "3 3 4 4 8 B F 9 7 6"]
    codes = setup[None, :]
    assert parse_pattern("B/F", anywhere=True).match(codes).tolist() == [True]
    assert parse_pattern("S/9", anywhere=True).match(codes).tolist() == [False]
    assert parse_pattern("6/9", anywhere=True).match(codes).tolist() == [True]
    assert parse_pattern("F9", anywhere=True).match(codes).tolist() == [True]
    assert parse_pattern("9F", anywhere=True).match(codes).tolist() == [False]
    assert parse_pattern("9F", anywhere=True).match(codes, mirror=True).tolist() == [True]
    three = parse_pattern("[!FB] B B / [!FB] B F", anywhere=True)  # columns 5 to 7
    assert str(three) == "[!BF] B B\n[!BF] B F"
    assert three.match(codes).tolist() == [True]
    assert parse_pattern("[FB] B B / . B F", anywhere=True).match(codes).tolist() == [False]


def test_a_full_size_anywhere_pattern_is_the_whole_setup_pattern() -> None:
    codes = random_setups(200, seed=3)
    text = "..S......./........../....[FB]...../B........."
    assert (
        parse_pattern(text, anywhere=True).match(codes).tolist()
        == parse_pattern(text).match(codes).tolist()
    )


def test_an_anywhere_pattern_knows_what_a_classic_army_cannot_hold() -> None:
    assert "no empty square" in (parse_pattern("S_", anywhere=True).impossible("classic") or "")
    assert "2 flags" in (parse_pattern("FF", anywhere=True).impossible("classic") or "")
    assert parse_pattern("S_", anywhere=True).impossible("barrage") is None


def test_the_spaces_written_out_are_every_character_python_takes_for_space() -> None:
    from strat_tools.setups.patterns import SPACES

    assert "".join(c for c in map(chr, range(0x110000)) if c.isspace()) == SPACES
