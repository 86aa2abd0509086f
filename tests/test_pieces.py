"""Pieces: codes, letters, names and both rank numberings."""

from __future__ import annotations

import pytest

from strat_tools.core.board import Side
from strat_tools.core.pieces import (
    ARMIES,
    CODE_KIND,
    CODE_SIDE,
    EMPTY,
    KINDS,
    LAKE,
    PieceKind,
    code_kind,
    code_letter,
    code_side,
    letter_code,
    parse_rank_label,
    piece_code,
    piece_name,
    rank_label,
)


def test_codes_round_trip_every_side_and_kind() -> None:
    seen = set()
    for side in Side:
        for kind in KINDS:
            code = piece_code(side, kind)
            assert code_side(code) is side and code_kind(code) is kind
            assert CODE_SIDE[code] == side.value and CODE_KIND[code] == kind.value
            seen.add(code)
    assert seen == set(range(1, 25))


def test_letters_round_trip_every_code() -> None:
    for code in range(26):
        assert letter_code(code_letter(code)) == code
    assert code_letter(EMPTY) == "A" and code_letter(LAKE) == "_"


def test_gravon_letters_match_the_format_table() -> None:
    red = {
        "B": "bomb",
        "C": "spy",
        "D": "scout",
        "E": "miner",
        "F": "sergeant",
        "G": "lieutenant",
        "H": "captain",
        "I": "major",
        "J": "colonel",
        "K": "general",
        "L": "marshal",
        "M": "flag",
    }
    for letter, name in red.items():
        assert piece_name(letter_code(letter)) == f"red {name}"
        blue = chr(ord(letter) + 12)
        assert piece_name(letter_code(blue)) == f"blue {name}"


@pytest.mark.parametrize("numbering", ["modern", "classic"])
def test_rank_labels_round_trip_both_numberings(numbering: str) -> None:
    labels = [rank_label(k, numbering) for k in KINDS]  # type: ignore[arg-type]
    assert len(set(labels)) == 12
    for kind in KINDS:
        assert parse_rank_label(rank_label(kind, numbering), numbering) is kind  # type: ignore[arg-type]


def test_both_numberings_agree_with_the_rulebooks() -> None:
    assert rank_label(PieceKind.MARSHAL) == "10" and rank_label(PieceKind.MARSHAL, "classic") == "1"
    assert rank_label(PieceKind.SCOUT, "classic") == "9"
    assert rank_label(PieceKind.MINER, "classic") == "8"
    assert rank_label(PieceKind.SPY, "classic") == "S" and rank_label(PieceKind.SPY) == "1"
    assert parse_rank_label("s", "classic") is PieceKind.SPY


def test_kind_labels_round_trip() -> None:
    for kind in KINDS:
        assert PieceKind.from_label(kind.label) is kind
    with pytest.raises(ValueError, match="unknown piece"):
        PieceKind.from_label("queen")


def test_bad_codes_and_letters_are_refused() -> None:
    for bad in (0, 25, 26, -1):
        with pytest.raises(ValueError):
            code_kind(bad)
    for letter in ("Z", "a", "", "AB"):
        with pytest.raises(ValueError):
            letter_code(letter)


def test_armies_have_the_documented_sizes() -> None:
    assert {v: sum(c) for v, c in ARMIES.items()} == {
        "classic": 40,
        "barrage": 8,
        "duell": 10,
        "ultimate lightning": 20,
    }
    classic = ARMIES["classic"]
    assert classic[PieceKind.BOMB] == 6 and classic[PieceKind.SCOUT] == 8
    assert all(army[PieceKind.FLAG] == 1 for army in ARMIES.values())
