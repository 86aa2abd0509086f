"""The geometry and pure-Python move search of a
:class:`~strat_tools.engine.position.position.Position`: a move's path (straight, lake-free,
within reach, nothing in between, a captain's turn), whether a side can move (the end of a
game, ``engine/rules/outcome.py``) and every legal move square by square, the reference the
batch generator (``engine/moves/``) is tested against.

:class:`ReferenceMoves` is the part of :class:`Position` that searches; the position's
state and its rules (:meth:`Position.repetition`) stay in ``position.py``.

This module knows no XML and no game records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from strat_tools.core.board import LAKES, RAYS, square_name
from strat_tools.core.errors import IllegalMove
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, EMPTY, PieceKind, piece_name
from strat_tools.core.rules import RuleSet
from strat_tools.engine.rules.rule_state import RuleState
from strat_tools.engine.rules.rule_tables import (
    CAPTAIN_CODES,
    DISTANCE,
    PATH,
    SCOUT_CODES,
    RuleTables,
)

__all__ = ["CODE_KIND_LABEL", "ReferenceMoves"]

CODE_KIND_LABEL: Final = tuple("" if k < 0 else PieceKind(k).label for k in CODE_KIND)
"""Kind label per board code ('' for empty and lake)."""


class ReferenceMoves:
    """Move search over a position's board and rule state (a mixin of
    :class:`~strat_tools.engine.position.position.Position`)."""

    __slots__ = ()

    board: list[int]
    state: RuleState
    steps: tuple[int, ...]
    limit: int
    tables: RuleTables
    rules: RuleSet

    def repetition(self, source: int, target: int, side: int = 0) -> tuple[int, int, int]:
        """(count, lo, hi) of the mover's chain after this move (``Position`` defines it)."""
        raise NotImplementedError

    def _check_path(self, source: int, target: int, piece: int) -> int:
        """Geometry: straight, lake-free, within the piece's reach, nothing in between."""
        board = self.board
        key = source * 100 + target
        distance = DISTANCE[key]
        if distance == 0:
            if source == target:
                raise IllegalMove("rule.distance", "the piece does not move")
            if self._captain_turn(source, target, piece):
                return 2
            if source // 10 == target // 10 or source % 10 == target % 10:
                raise IllegalMove("rule.lake", "the move crosses a lake")
            raise IllegalMove("rule.diagonal", "not a straight orthogonal move")
        if distance > self.steps[piece]:
            raise IllegalMove(
                "rule.distance",
                f"a {CODE_KIND_LABEL[piece]} moves at most {self.steps[piece]} square(s), "
                f"not {distance}",
            )
        for square in PATH[key]:
            if board[square] != EMPTY:
                code = "rule.scout_path" if piece in SCOUT_CODES else "rule.path"
                raise IllegalMove(
                    code, f"{square_name(square)} on the way holds a {piece_name(board[square])}"
                )
        return distance

    def _captain_turn(self, source: int, target: int, piece: int) -> bool:
        """Whether a two-step captain move turning a corner is legal here."""
        if piece not in CAPTAIN_CODES or self.steps[piece] < 2 or not self.rules.captain_turns:
            return False
        if abs(source // 10 - target // 10) != 1 or abs(source % 10 - target % 10) != 1:
            return False
        corners = (source // 10 * 10 + target % 10, target // 10 * 10 + source % 10)
        return any(self.board[c] == EMPTY for c in corners)

    def reference_pairs(self) -> list[tuple[int, int]]:
        """:meth:`legal_pairs` found square by square in pure Python: the reference the
        vectorised generator is tested against (tests/test_moves.py)."""
        state = self.state
        if state.winner:
            return []
        return self._moves(state.side, first_only=False)

    def has_legal_move(self, side: int | None = None) -> bool:
        """Whether ``side`` (default: the side to move) could move now."""
        if self.state.winner:
            return False
        return self._any_move(self.state.side if side is None else side)

    def _any_move(self, side: int) -> bool:
        """Whether the side to move has a legal move: first a quick look at the first square
        of each piece's four lines (enough in almost every position), then the full search."""
        board, steps, limit = self.board, self.steps, self.limit
        own = self.tables.own[side]
        # Only the piece the side moved last has a chain (:meth:`repetition` counts 1 for any
        # other): asking it for that piece alone keeps this check, run at the end of every
        # replayed game, from a method call per line.
        last = self.state.chains[side - 1].key
        moved_last = last % 100 if last >= 0 else -1
        for source in range(100):
            piece = board[source]
            if not own[piece] or not steps[piece]:
                continue
            for ray in RAYS[source]:
                if ray and not own[board[ray[0]]]:
                    count = 1 if source != moved_last else self.repetition(source, ray[0], side)[0]
                    if count <= limit:
                        return True
        return bool(self._moves(side, first_only=True))

    def _moves(self, side: int, *, first_only: bool) -> list[tuple[int, int]]:
        """Every legal (source, target) of ``side`` in square order (the first only, with
        ``first_only``): each piece's reach line by line; only the piece ``side`` moved
        last can break the two-squares rule (:meth:`repetition` counts 1 for any other)."""
        board, steps = self.board, self.steps
        limit = self.limit
        own = self.tables.own[side]
        last = self.state.chains[side - 1].key
        moved_last = last % 100 if last >= 0 else -1
        turns = self.rules.captain_turns
        found: list[tuple[int, int]] = []
        add = found.append
        for source in range(100):
            piece = board[source]
            reach = steps[piece]
            if not reach or not own[piece]:
                continue
            if reach == 1 and source != moved_last:
                for ray in RAYS[source]:
                    if ray and not own[board[ray[0]]]:
                        add((source, ray[0]))
            else:
                targets = (
                    self._reach(source, piece, side) if turns else self._lines(source, reach, own)
                )
                if source == moved_last:
                    targets = [t for t in targets if self.repetition(source, t, side)[0] <= limit]
                for target in targets:
                    add((source, target))
            if first_only and found:
                return found[:1]
        return found

    def _lines(self, source: int, reach: int, own: Sequence[int]) -> list[int]:
        """The squares ``reach`` squares or fewer along the four lines from ``source``, up
        to the first piece (an opponent's included), in :meth:`_reach`'s order."""
        board = self.board
        out: list[int] = []
        for ray in RAYS[source]:
            for travelled, square in enumerate(ray, 1):
                if travelled > reach:
                    break
                occupant = board[square]
                if occupant == EMPTY:
                    out.append(square)
                    continue
                if not own[occupant]:
                    out.append(square)
                break
        return out

    def _reach(self, source: int, piece: int, side: int) -> list[int]:
        """Targets the piece's movement allows (ignoring repetition)."""
        board = self.board
        reach = self.steps[piece]
        out: list[int] = []
        for ray in RAYS[source]:
            for travelled, square in enumerate(ray, 1):
                if travelled > reach:
                    break
                occupant = board[square]
                if occupant == EMPTY:
                    out.append(square)
                    continue
                if CODE_SIDE[occupant] != side:
                    out.append(square)
                break
        if reach >= 2 and piece in CAPTAIN_CODES and self.rules.captain_turns:
            row, col = divmod(source, 10)
            for dr in (-1, 1):
                for dc in (-1, 1):
                    if 0 <= row + dr < 10 and 0 <= col + dc < 10:
                        target = (row + dr) * 10 + col + dc
                        if (
                            target not in LAKES
                            and CODE_SIDE[board[target]] != side
                            and (self._captain_turn(source, target, piece))
                        ):
                            out.append(target)
        return out
