"""Shared test helpers (from test_moves_scan.py): imported by the tests that need them, so no test
module imports another."""

from __future__ import annotations

import itertools

import numpy as np

from strat_tools.core.board import LAKES, Side
from strat_tools.core.pieces import LAKE, PieceKind
from strat_tools.engine.encodings.actions import action_id
from strat_tools.engine.position.position import Position


def reference_ids(board: list[int], side: int, rules: str) -> list[int]:
    pos = Position(board, rules, Side(side))
    return sorted(action_id(s, t, Side(side)) for s, t in pos.reference_pairs())


def rows_of(offsets: np.ndarray, ids: np.ndarray) -> list[list[int]]:
    return [ids[a:b].tolist() for a, b in itertools.pairwise(offsets)]


def random_boards(count: int, seed: int) -> list[list[int]]:
    """Crowded random boards: both sides' pieces of every kind, many scouts and captains
    (next to edges, lakes and each other by chance), about a third of the squares empty."""
    rng = np.random.default_rng(seed)
    kinds = [k for k in range(12)] + [PieceKind.SCOUT] * 6 + [PieceKind.CAPTAIN] * 3
    boards = []
    for _ in range(count):
        board = [0] * 100
        for square in range(100):
            if square in LAKES:
                board[square] = LAKE
            elif rng.random() < 0.62:
                kind = int(rng.choice(kinds))
                board[square] = kind + (1 if rng.random() < 0.5 else 13)
        boards.append(board)
    return boards
