"""Tests for the replay engine: Position moves and battles on hand-built boards, replays of
hand-built records, result checks and the board renderer. Boards are ASCII diagrams."""

from __future__ import annotations

import pytest

from strat_tools.board import parse_square
from strat_tools.records import GameRecord, Result, Status, Termination
from strat_tools.replay import IllegalMove, Position, parse_board, render_board, replay

EMPTY_BOARD = """
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .   .   .   .   .   .   .
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1   .   .   .   .   .   .   .   .   .   .
"""


def board(diagram: str) -> list[int]:
    """A board from a diagram (pieces on an otherwise empty board)."""
    return parse_board(diagram)


def put(pieces: dict[str, str]) -> list[int]:
    """An empty board with the given pieces: ``{'A1': 'rF', 'K10': 'bF'}``."""
    codes = parse_board(EMPTY_BOARD)
    labels = ["B", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "F"]
    for name, text in pieces.items():
        kind = labels.index(text[1:])
        codes[parse_square(name)] = kind + (1 if text[0] == "r" else 13)
    return codes


def move(pos: Position, text: str) -> int:
    """Push a move written like 'D4-D5'."""
    source, target = (parse_square(part) for part in text.split("-"))
    return pos.push(source, target)


def diagram(pos: Position) -> str:
    return str(pos).strip("\n")


def test_render_and_parse_round_trip() -> None:
    codes = put({"A1": "rF", "B1": "rB", "K10": "bF", "E4": "r10", "E7": "b1"})
    text = render_board(codes)
    assert parse_board(text) == codes
    assert parse_board(render_board(codes, numbering="classic"), "classic") == codes


def test_position_push_and_diagram() -> None:
    pos = Position(put({"A1": "rF", "E4": "r10", "K10": "bF", "E7": "b1"}), "gravon-2013")
    assert move(pos, "E4-E5") == 0
    assert move(pos, "E7-E6") == 0
    assert diagram(pos) == """\
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .   .   .   .   .   .  bF
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~  b1   .  ~~  ~~   .   .
 5   .   .  ~~  ~~ r10   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  rF   .   .   .   .   .   .   .   .   ."""
    # Marshal attacks the spy: anything attacking the spy wins.
    assert move(pos, "E5-E6") == 1
    assert pos.captured[2] == [14]  # blue spy


def test_legal_moves_of_a_scout_stop_at_pieces_and_lakes() -> None:
    pos = Position(put({"A1": "rF", "C4": "r2", "C8": "b5", "K10": "bF", "A4": "r4"}))
    targets = sorted(t for s, t in pos.legal_moves() if s == parse_square("C4"))
    assert targets == sorted(parse_square(n) for n in ("C3", "C2", "C1", "B4", "D4", "E4",
                                                       "F4", "G4", "H4", "I4", "K4"))


def test_push_rejects_illegal_move_with_rule_code() -> None:
    pos = Position(put({"A1": "rF", "B1": "rB", "K10": "bF"}))
    with pytest.raises(IllegalMove) as info:
        move(pos, "B1-B2")
    assert info.value.code == "rule.immovable"


def test_replay_of_hand_built_record_captures_flag() -> None:
    setup = tuple(put({"A1": "rF", "A4": "r2", "A9": "bF", "K7": "b3"}))
    record = GameRecord(
        source="t", variant="classicfree", year=2014, setup=setup,
        sources=[parse_square("A4")], targets=[parse_square("A9")], lines=[5],
        result=Result(1, 1),
    )
    result = replay(record)
    assert result.status is Status.VALID
    assert result.termination is Termination.FLAG_CAPTURED
    assert result.outcomes == [4]
    assert result.distances == [5]
