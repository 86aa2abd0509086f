"""What a push returns and keeps, and the legal moves a position lists: :class:`Battle` names
what a :meth:`Position.push <strat_tools.engine.position.position.Position.push>` did,
:class:`History` is what :meth:`Position.pop
<strat_tools.engine.position.position.Position.pop>` restores, and
:class:`LegalMoves` is python-chess's ``board.legal_moves``. The move itself is
:class:`~strat_tools.core.move.Move`, defined once on the ground floor.

This module knows squares and names only: no rules, no boards.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import IntEnum
from typing import Final, overload

from strat_tools.core.move import Move, MoveError

__all__ = ["Battle", "LegalMoves"]


class Battle(IntEnum):
    """What a pushed move did; the value is the engine's outcome code (``core/rules.py``)."""

    NONE = 0
    """No battle: the target square was empty."""
    ATTACKER_WINS = 1
    DEFENDER_WINS = 2
    BOTH_REMOVED = 3
    FLAG_CAPTURED = 4

    @property
    def label(self) -> str:
        """Lower-case name: ``'attacker_wins'``."""
        return self.name.lower()


class LegalMoves(Sequence[Move]):
    """The legal moves of a position, as python-chess's ``board.legal_moves``: ``len``,
    :meth:`count`, ``in`` (a :class:`~strat_tools.core.move.Move`, its text or a record's
    move), iteration and indexing, in square order. A view of the position when it was taken
    (push makes a new one); the moves are built as they are asked for.

    >>> moves = LegalMoves([(31, 41), (38, 48)])
    >>> moves.count(), "B4-B5" in moves, Move.parse("I4-I5") in moves, list(moves)[0]
    (2, True, True, Move(source=31, target=41, rescue=None))
    """

    __slots__ = ("_pairs",)

    def __init__(self, pairs: Sequence[tuple[int, int]]) -> None:
        self._pairs = pairs

    def __len__(self) -> int:
        return len(self._pairs)

    def count(self, value: object = None) -> int:
        """How many legal moves there are (python-chess's ``legal_moves.count()``); with a
        move, 1 if it is one of them, else 0 (a sequence's ``count``)."""
        if value is None:
            return len(self._pairs)
        return 1 if value in self else 0

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Move]: ...

    def __getitem__(self, index: int | slice) -> Move | Sequence[Move]:
        if isinstance(index, slice):
            return [_move(pair) for pair in self._pairs[index]]
        return _move(self._pairs[index])

    def __iter__(self) -> Iterator[Move]:
        return map(_move, self._pairs)

    def __contains__(self, move: object) -> bool:
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except MoveError:
                return False
        carried = getattr(move, "move", move)  # a record's move carries its Move
        if not isinstance(carried, Move):
            return False
        return (carried.source, carried.target) in self._pairs

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves):
            return list(self._pairs) == list(other._pairs)
        if isinstance(other, list):
            mine = list(self)
            return [str(m) for m in mine] == other or mine == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(map(str, self))})>"


def _move(pair: tuple[int, int]) -> Move:
    """A plain move of a (source, target) pair (no rescue), built without NamedTuple's
    argument handling: the legal moves of a position build up to a hundred at a time."""
    return _new(Move, (*pair, None))


_new: Final = tuple.__new__
