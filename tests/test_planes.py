"""Observation boards and planes: the byte layout, the channel table, orientation."""

from __future__ import annotations

import numpy as np
import pytest

from strat_tools.core.board import parse_square
from strat_tools.engine.knowledge import KNOWN, MOVED, REVEALED
from strat_tools.engine.planes import (
    CHANNELS,
    LAKE_KIND,
    OPPONENT,
    PLANE_TABLE,
    UNKNOWN_KIND,
    board_diagram,
    encode_boards,
    hidden_truth,
    to_planes,
)
from strat_tools.engine.planes import KNOWN as BYTE_KNOWN
from strat_tools.engine.planes import MOVED as BYTE_MOVED


def one_board(pieces: dict[str, int], flags: dict[str, int] | None = None):  # type: ignore[no-untyped-def]
    board = np.zeros((1, 100), np.uint8)
    for square in (42, 43, 46, 47, 52, 53, 56, 57):
        board[0, square] = 25
    bits = np.zeros((1, 100), np.uint8)
    for name, code in pieces.items():
        board[0, parse_square(name)] = code
    for name, value in (flags or {}).items():
        bits[0, parse_square(name)] = value
    return board, bits


def test_every_piece_square_sets_exactly_one_of_the_first_29_channels() -> None:
    for byte in range(256):
        kind1 = byte & 0x0F
        if kind1 == UNKNOWN_KIND and byte & OPPONENT and not byte & BYTE_KNOWN:  # a board view's
            moved = "opponent_unknown_moved" if byte & BYTE_MOVED else "opponent_unknown_unmoved"
            assert np.flatnonzero(PLANE_TABLE[byte]).tolist() == [CHANNELS.index(moved)]
            continue
        if kind1 > LAKE_KIND:
            assert not PLANE_TABLE[byte].any()
            continue
        # One of: a piece plane, opponent unknown (unmoved/moved), lake, empty; the
        # scout-by-move plane only beside the opponent scout plane.
        assert np.delete(PLANE_TABLE[byte, :29], 26).sum() == 1
        assert not PLANE_TABLE[byte, 26] or PLANE_TABLE[byte, CHANNELS.index("opponent_scout")]
    assert len(CHANNELS) == len(set(CHANNELS)) == 32


def test_blue_sees_the_board_turned_from_its_own_back_row() -> None:
    # Blue to move: its flag on K10 is its back row's left corner, red's marshal on A4
    # (seen moving) stands on blue's far right, four rows from the top.
    board, flags = one_board({"K10": 24, "A4": 11, "A1": 12}, {"A4": MOVED})
    codes = encode_boards(board, flags, [2])
    assert (
        board_diagram(codes[0])
        == """\
10   .   .   .   .   .   .   .   .   .  -?
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .  -m
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  +F   .   .   .   .   .   .   .   .   ."""
    )
    planes = to_planes(codes)
    assert planes[0, CHANNELS.index("own_flag"), 0, 0]
    assert planes[0, CHANNELS.index("opponent_unknown_moved"), 6, 9]
    assert planes[0, CHANNELS.index("opponent_unknown_unmoved"), 9, 9]
    assert planes[0, CHANNELS.index("lake"), 4, 2] and planes[0, CHANNELS.index("lake"), 5, 7]


def test_red_sees_the_board_as_it_is() -> None:
    board, flags = one_board({"A1": 12, "E7": 17}, {"E7": MOVED | REVEALED | KNOWN})
    codes = encode_boards(board, flags, [1])
    assert codes[0, parse_square("A1")] == 12
    assert codes[0, parse_square("E7")] == OPPONENT | 5 | BYTE_KNOWN | 0x40 | 0x80
    planes = to_planes(codes)
    assert planes[0, CHANNELS.index("opponent_sergeant"), 6, 4]
    assert planes[0].sum() == 100  # every square one plane: no flag plane for red's pieces


def test_own_flags_say_what_the_opponent_knows() -> None:
    board, flags = one_board({"B2": 3}, {"B2": MOVED | KNOWN})  # a red scout seen running
    planes = to_planes(encode_boards(board, flags, [1]))[0]
    on = {CHANNELS[c] for c in np.flatnonzero(planes[:, 1, 1])}
    assert on == {"own_scout", "own_known_to_opponent", "own_moved"}


def test_a_scout_known_by_its_run_is_in_both_scout_planes() -> None:
    board, flags = one_board({"C8": 15}, {"C8": MOVED | KNOWN})  # blue scout, no battle
    planes = to_planes(encode_boards(board, flags, [1]))[0]
    on = {CHANNELS[c] for c in np.flatnonzero(planes[:, 7, 2])}
    assert on == {"opponent_scout", "opponent_scout_by_move"}


def test_hidden_truth_is_every_opponent_piece_not_known() -> None:
    board, flags = one_board({"C8": 15, "D8": 24, "A1": 12}, {"C8": MOVED | KNOWN})
    mask, kinds = hidden_truth(encode_boards(board, flags, [1]))
    assert np.flatnonzero(mask[0]).tolist() == [parse_square("D8")]
    assert kinds[0, parse_square("D8")] == 11 and kinds[0, parse_square("A1")] == 11
    assert kinds[0, 0 + 42] == -1  # a lake


def test_planes_of_a_long_stack_equal_those_of_its_chunks() -> None:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 256, size=(3000, 100), dtype=np.uint8)
    whole = to_planes(codes, chunk=1024)
    assert whole.shape == (3000, 32, 10, 10)
    parts = np.concatenate([to_planes(codes[i : i + 500]) for i in range(0, 3000, 500)])
    assert np.array_equal(whole, parts)
    assert np.array_equal(whole, to_planes(codes, contiguous=True))
    assert to_planes(codes, contiguous=True).flags.c_contiguous
    n, c, y, x = 1234, 17, 3, 8
    assert whole[n, c, y, x] == PLANE_TABLE[codes[n, y * 10 + x], c]


def test_to_planes_refuses_a_wrong_shape() -> None:
    with pytest.raises(ValueError, match=r"\[plies, 100\]"):
        to_planes(np.zeros((4, 99), np.uint8))
