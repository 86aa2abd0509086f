"""The ISF more-squares (chasing) rule, checked over a replayed game.

A *chase* is a run of moves where one player (the chaser) keeps moving a piece next to the
piece the opponent just moved, and the opponent keeps moving that threatened piece away. The
chaser may not make a chasing move that recreates a position (board and side to move) that
already occurred during the chase, except moving straight back to the square the piece just
came from (the two-squares rule covers that).

The check runs after the replay, over its per-ply outcomes, because it never changes the
board: it only names the first chasing move that repeats a position. This module knows no
records and no XML.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from strat_tools.core.board import NEIGHBOURS
from strat_tools.core.pieces import CODE_SIDE

OUTCOME_DEFENDER_WINS = 2
OUTCOME_BOTH_REMOVED = 3


class ChaseViolation(NamedTuple):
    """A chasing move that recreated a position of the running chase."""

    ply: int
    chaser: int
    """The chasing side (1 red, 2 blue)."""
    chased_square: int
    """Where the chased piece stood when the move threatened it again."""
    chase_start: int
    """The ply that began the chase."""


def find_chases(
    setup: Sequence[int],
    sources: Sequence[int],
    targets: Sequence[int],
    outcomes: Sequence[int],
    placed: dict[int, tuple[int, int]] | None = None,
) -> list[ChaseViolation]:
    """Every chasing move that repeats a position of its chase, in ply order.

    ``placed`` maps a ply to ``(square, code)`` for a piece a rescue put on the board.
    """
    board = list(setup)
    placed = placed or {}
    found: list[ChaseViolation] = []
    chaser = 0  # 0: no chase running
    chased_at = -1  # square of the chased piece
    start = 0
    seen: set[tuple[int, ...]] = set()
    last_target = [-1, -1, -1]  # each side's last target square
    last_source = [-1, -1, -1]
    for index, (source, target) in enumerate(zip(sources, targets, strict=False)):
        side = 1 + index % 2
        came_back = target == last_source[side] and source == last_target[side]
        _apply(board, source, target, outcomes[index])
        if index + 1 in placed:
            square, code = placed[index + 1]
            board[square] = code
        battle = outcomes[index] != 0
        if chaser == side and not battle and target in NEIGHBOURS[chased_at]:
            position = (side, *board)
            if position in seen and not came_back:
                found.append(ChaseViolation(index + 1, side, chased_at, start))
            seen.add(position)
        elif chaser and side != chaser and source == chased_at and not battle:
            chased_at = target
            seen.add((side, *board))
        else:
            chaser = 0
            # A new chase begins when this move lands next to the piece the opponent moved last.
            threatened = last_target[3 - side]
            if (
                not battle
                and threatened >= 0
                and target in NEIGHBOURS[threatened]
                and CODE_SIDE[board[threatened]] == 3 - side
            ):
                chaser, chased_at, start = side, threatened, index + 1
                seen = {(side, *board)}
        last_source[side], last_target[side] = source, target
    return found


def _apply(board: list[int], source: int, target: int, outcome: int) -> None:
    """Play one replayed ply on ``board`` from its known outcome."""
    piece = board[source]
    board[source] = 0
    if outcome == OUTCOME_DEFENDER_WINS:
        return
    board[target] = 0 if outcome == OUTCOME_BOTH_REMOVED else piece
