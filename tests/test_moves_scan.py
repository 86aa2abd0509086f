"""The move generator's stages (engine/moves/scan.py) against the pure-Python reference
(:meth:`Position.reference_pairs`) on positions built to catch their shortcuts: the batch
taken as one flat byte array (a step must never cross a row's edge or run into the next
board), rays that stop at lakes, edges, own pieces and each other, far pieces boxed in,
lightning captains that reach two squares and turn corners, and rows whose sides do not
alternate. Many rows at once take the NumPy walk (more far pieces than the few walked in
Python), one row the Python one; both must give the reference's ids."""

from __future__ import annotations

import numpy as np
import pytest
from move_oracle import random_boards, reference_ids, rows_of

from strat_tools.core.board import LAKES, Side, square_name
from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.core.pieces import LAKE, PieceKind
from strat_tools.core.rules import get_rules
from strat_tools.engine.encodings.actions import action_squares
from strat_tools.engine.moves import legal_ids
from strat_tools.engine.moves.scan import FAR, FREE, ONE, OPEN, move_classes
from strat_tools.engine.moves.tables import (
    EDGE_BITS,
    NIBBLE_CODE,
    ONE_IDS,
    RAY_LENGTH,
    RUN_COUNT,
    RUN_IDS,
    RUN_OFFSETS,
    RUN_WIDTH,
    STEPS,
)

RED_SCOUT, BLUE_SCOUT = PieceKind.SCOUT + 1, PieceKind.SCOUT + 13
RED_CAPTAIN, BLUE_CAPTAIN = PieceKind.CAPTAIN + 1, PieceKind.CAPTAIN + 13


def moves_from(board: list[int], side: int, rules: str, square: str) -> set[str]:
    """The generator's moves of the piece on ``square`` (run in a batch of 40 copies of
    the board, so that its far pieces take the NumPy walk), as ``"E5-E6"`` names."""
    offsets, ids = legal_ids([board] * 40, [side] * 40, get_rules(rules))
    rows = rows_of(offsets, ids)
    assert all(row == rows[0] for row in rows)
    names = set()
    for action in rows[0]:
        source, target = action_squares(action, Side(side))
        if square_name(source) == square:
            names.add(f"{square}-{square_name(target)}")
    return names


# Scouts packed against each other, the edges and the lakes: red's on A1 is boxed in by its
# own sergeant and scout; B1 runs up its whole file and right to the blue bomb it may strike
# on F1; K5 runs down to its own flag, up to the blue scout it may strike on K9, and left
# one square to the lake.
SCOUTS_IN_A_ROW = """
      A   B   C   D   E   F   G   H   I   K
10  bF   .   .   .   .   .   .   .   .   .
 9   .   .   .   .   .   .   .   .   .  b2
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .  r2
 4   .   .  r3   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2  r4   .   .   .   .   .   .   .   .   .
 1  r2  r2   .   .   .  bB   .   .   .  rF
"""


def test_scouts_stop_at_each_other_the_edges_and_the_lakes() -> None:
    board = parse_board(SCOUTS_IN_A_ROW)
    assert moves_from(board, 1, "gravon-2013", "A1") == set()  # A2 own, B1 own
    up_the_file = {f"B1-B{rank}" for rank in range(2, 11)}
    assert moves_from(board, 1, "gravon-2013", "B1") == up_the_file | {
        "B1-C1",
        "B1-D1",
        "B1-E1",
        "B1-F1",
    }
    down_and_up = {f"K5-K{rank}" for rank in (2, 3, 4, 6, 7, 8, 9)}
    assert moves_from(board, 1, "gravon-2013", "K5") == down_and_up | {"K5-I5"}
    # Blue's scout on K9, in blue's own view, runs down its file to red's scout on K5.
    assert moves_from(board, 2, "gravon-2013", "K9") >= {"K9-K6", "K9-K5", "K9-A9", "K9-K10"}
    for side in (1, 2):
        offsets, ids = legal_ids([board] * 40, [side] * 40, get_rules("gravon-2013"))
        assert rows_of(offsets, ids)[0] == reference_ids(board, side, "gravon-2013")


# A red sergeant on K1 (the last square of a row) and one on K10 (the last of the board):
# in a flat batch the square after K1 is A2 and the square after K10 is the next board's
# A1. Neither may be a step: K1 moves up and left only, K10 down and left only.
EDGE_PIECES = """
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .   .   .   .   .   .  r4
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  r4   .   .   .   .   .   .   .   .  r4
"""


def test_no_step_crosses_a_rows_edge_or_runs_into_the_next_board() -> None:
    board = parse_board(EDGE_PIECES)
    assert render_board(board).strip() == EDGE_PIECES.strip()
    assert moves_from(board, 1, "classic", "K1") == {"K1-I1", "K1-K2"}
    assert moves_from(board, 1, "classic", "K10") == {"K10-K9", "K10-I10"}
    assert moves_from(board, 1, "classic", "A1") == {"A1-A2", "A1-B1"}
    # Blue to move sees the board turned: the same pieces are the opponent's, no moves.
    offsets, _ = legal_ids([board] * 3, [1, 2, 1], get_rules("classic"))
    assert np.diff(offsets).tolist() == [6, 0, 6]


@pytest.mark.parametrize(
    "rules", ["classic", "gravon-2013", "ultimate-lightning", "classic+nolimit"]
)
def test_crowded_random_positions_agree_with_the_reference(rules: str) -> None:
    """300 crowded positions, sides at random (they do not alternate), in one call and one
    by one: every row's ids are the reference's."""
    boards = random_boards(300, seed=len(rules))
    sides = np.random.default_rng(7).integers(1, 3, len(boards))
    offsets, ids = legal_ids(boards, sides, get_rules(rules))
    want = [reference_ids(b, int(s), rules) for b, s in zip(boards, sides, strict=True)]
    assert rows_of(offsets, ids) == want
    assert sum(map(len, want)) > 3000  # crowded, yet far from boxed in
    for board, side, expected in list(zip(boards, sides, want, strict=True))[:40]:
        alone = legal_ids([board], [side], get_rules(rules))[1].tolist()
        assert alone == expected


def test_open_boards_with_lone_scouts_reach_the_edges_and_the_lakes() -> None:
    """Sparse boards (long rays): every square in turn holds a scout, with a few enemy
    pieces about; the rays' lengths come from the walk, not a table."""
    rng = np.random.default_rng(3)
    boards, sides = [], []
    for square in range(100):
        if square in LAKES:
            continue
        for side in (1, 2):
            board = [LAKE if s in LAKES else 0 for s in range(100)]
            for enemy in rng.choice(100, 6, replace=False):
                if board[enemy] == 0:
                    board[enemy] = PieceKind.MARSHAL + (13 if side == 1 else 1)
            board[square] = RED_SCOUT if side == 1 else BLUE_SCOUT
            boards.append(board)
            sides.append(side)
    offsets, ids = legal_ids(boards, sides, get_rules("classic"))
    want = [reference_ids(b, s, "classic") for b, s in zip(boards, sides, strict=True)]
    assert rows_of(offsets, ids) == want


def test_the_class_bytes_keep_bits_five_and_six_clear() -> None:
    """The step shifts rely on it (no mask for down, left and right)."""
    for rules in ("classic", "gravon-2004", "ultimate-lightning", "ultimate-lightning-2004"):
        bits = move_classes(get_rules(rules)).bits
        assert not (bits & 0b0110_0000).any()
        assert set(np.unique(bits).tolist()) <= {0, ONE, ONE | FAR, FREE, OPEN}
    assert OPEN > FREE and ONE & FAR == 0


def test_the_tables_list_every_move_of_a_run_in_order() -> None:
    """ONE_IDS by square and step bits, RUN_IDS by run code: ascending targets, and a real
    piece's longest run (its rays to the edges and lakes) fits RUN_WIDTH."""
    for square in range(100):
        for bits in range(16):
            code = int(NIBBLE_CODE[bits])
            ids = ONE_IDS[(square * 16 + bits) * 4 :][: RUN_COUNT[code]]
            assert ids.tolist() == [square * 101 + int(o) for o in RUN_OFFSETS[code, : len(ids)]]
        full = sum(int(RAY_LENGTH[square * 4 + d]) * 10**d for d in range(4))
        assert RUN_COUNT[full] <= RUN_WIDTH
        targets = [square + int(o) for o in RUN_IDS[full, : RUN_COUNT[full]]]
        assert targets == sorted(targets) and len(set(targets)) == len(targets)
    assert EDGE_BITS[0] == 0b1100 and EDGE_BITS[99] == 0b0011 and EDGE_BITS[11] == 0b1111
    assert EDGE_BITS[55] == 0b1011  # F6: the lake G6 on its right is no step
    assert STEPS == (-10, -1, 1, 10)
