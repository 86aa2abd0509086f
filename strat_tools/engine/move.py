"""A move as a value, and the battle a move starts: what :class:`Position.push
<strat_tools.engine.position.Position.push>` takes and returns (python-chess's ``Move``).

:class:`Move` is (source, target, rescue): it prints as ``B4-B5``, reads every notation the
project prints (``B4-B5``, the viewer's ``I4×I7``, ``I4xI7``, Gravon's ``K:``, a record's
:class:`~strat_tools.core.records.Move`) and converts to and from our action id (the
mover's view, ``engine/mover_view.py``). :class:`Battle` names what a push did.

This module knows squares and names only: no rules, no boards.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from enum import IntEnum
from typing import Final, NamedTuple, overload

from strat_tools.core.board import Side, Square, parse_square, square_name
from strat_tools.core.errors import StratToolsError

__all__ = ["Battle", "History", "LegalMoves", "Move", "MoveError", "decode_rescue_piece"]


class MoveError(StratToolsError, ValueError):
    """A move (or a square, a rescue, a ply) given to the stepping API is not one: the message
    says what was expected. Not a rule: a move the rules forbid is an
    :class:`~strat_tools.core.errors.IllegalMove`."""


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


_SPLIT: Final = re.compile(r"\s*(?:-|×|x|X)\s*")


def _square(value: object, what: str) -> Square:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MoveError(f"the {what} square is an int 0..99, got {value!r}")
    if not 0 <= value < 100:
        raise MoveError(f"the {what} square is an int 0..99, got {value}")
    return value


class Move(NamedTuple):
    """A move: source and target square (0..99, Gravon squares) and, in ultimate lightning,
    a ``rescue`` (square, board code) made with it.

    >>> move = Move.parse("I4×I7")
    >>> move, str(move), Move.parse("i4xi7") == move == Move.parse("I4-I7")
    (Move(source=38, target=68, rescue=None), 'I4-I7', True)
    >>> Move.from_action(move.action(Side.BLUE), Side.BLUE) == move
    True
    """

    source: Square
    target: Square
    rescue: tuple[Square, int] | None = None

    def __str__(self) -> str:
        return f"{square_name(self.source)}-{square_name(self.target)}"

    def uci(self) -> str:
        """The move as text, ``'B4-B5'`` (python-chess's name for it)."""
        return str(self)

    def action(self, side: Side | int) -> int:
        """Our action id of this move made by ``side`` (the mover's view)."""
        from strat_tools.engine.mover_view import view_square  # numpy: on first use

        return view_square(self.source, side) * 100 + view_square(self.target, side)

    @classmethod
    def from_action(cls, action: int, side: Side | int) -> Move:
        """The move ``side`` makes with action id ``action`` (0..9999)."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 10_000:
            raise MoveError(f"an action id is an int 0..9999, got {action!r}")
        from strat_tools.engine.mover_view import view_square

        source, target = divmod(action, 100)
        return cls(view_square(source, side), view_square(target, side))

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``"B4-B5"``, ``"I4×I7"``, ``"I4xI7"`` (any case, ``K10`` or ``K:``);
        :class:`MoveError` naming the text otherwise."""
        if not isinstance(text, str):
            raise MoveError(f"a move is text like 'B4-B5', got {text!r}")
        parts = _SPLIT.split(text.strip().upper(), maxsplit=1)
        try:
            if len(parts) != 2:
                raise ValueError
            return cls(parse_square(parts[0]), parse_square(parts[1]))
        except ValueError:
            raise MoveError(
                f"not a move: {text!r} (expected squares like B4-B5, I4×I7 or I4xI7)"
            ) from None

    @classmethod
    def of(
        cls,
        move: object,
        target: object = None,
        rescue: object = None,
    ) -> Move:
        """Any way the stepping API takes a move: a :class:`Move`, its text, a record's
        move (its rescue still undecoded: :meth:`Position.push` decodes it), or a source
        square with ``target``; ``rescue`` is (square, board code 1..24)."""
        if isinstance(move, Move):
            if target is not None:
                raise MoveError("give a move as a Move or as two squares, not both")
            found = move
        elif isinstance(move, str):
            if target is not None:
                raise MoveError("give a move as 'B4-B5' or as two squares, not both")
            found = cls.parse(move)
        elif target is None:
            if hasattr(move, "source") and hasattr(move, "target"):
                return cls(_square(move.source, "source"), _square(move.target, "target"))
            raise MoveError(
                f"a move is a Move, text like 'B4-B5' or two squares 0..99, got {move!r}"
            )
        else:
            found = cls(_square(move, "source"), _square(target, "target"))
        if rescue is None:
            return found
        if not isinstance(rescue, tuple) or len(rescue) != 2:
            raise MoveError(f"a rescue is (square, board code), got {rescue!r}")
        square, code = rescue
        _square(square, "rescue")
        if isinstance(code, bool) or not isinstance(code, int) or not 1 <= code <= 24:
            raise MoveError(f"a rescued piece is a board code 1..24, got {code!r}")
        return found._replace(rescue=(square, code))


class History(NamedTuple):
    """The state before one :meth:`Position.push
    <strat_tools.engine.position.Position.push>`, and the history before that."""

    move: Move
    board: list[int]
    side: Side
    chains: tuple[list[int], list[int], list[int], list[int]]
    paths: list[tuple[int, ...]]
    """Each side's scout-chain squares (:attr:`Position.rep_path`)."""
    captured: tuple[list[int], list[int], list[int]]
    rescued: list[int]
    rescuers: frozenset[int]
    winner: int
    plies: int
    event: tuple[int, int, int, int, int]
    """What the move did, as a replay keeps it: mover, defender, outcome, distance and
    revealed bits (:class:`~strat_tools.engine.replay.Replay`)."""
    previous: History | None


class LegalMoves(Sequence[Move]):
    """The legal moves of a position, as python-chess's ``board.legal_moves``: ``len``,
    ``in`` (a :class:`Move` or its text), iteration and indexing, in square order. Found on
    first use; a view of the position when it was taken (push makes a new one)."""

    __slots__ = ("_moves",)

    def __init__(self, pairs: Sequence[tuple[int, int]]) -> None:
        self._moves = [Move(s, t) for s, t in pairs]

    def __len__(self) -> int:
        return len(self._moves)

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Move]: ...

    def __getitem__(self, index: int | slice) -> Move | Sequence[Move]:
        return self._moves[index]

    def __iter__(self) -> Iterator[Move]:
        return iter(self._moves)

    def __contains__(self, move: object) -> bool:
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except MoveError:
                return False
        if isinstance(move, Move):
            move = move._replace(rescue=None)
        return move in self._moves

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves):
            return self._moves == other._moves
        if isinstance(other, list):
            return [str(m) for m in self._moves] == other or self._moves == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(map(str, self._moves))})>"


def decode_rescue_piece(raw: int | None, side: int) -> int:
    """The board code of the piece a Gravon ``rescuepiece`` number names (-1 if unknown).

    ``rescuepiece`` is a board code (1..24, the field letter minus 'A') whose kind is the
    rescued piece's; its colour is unreliable (blue's rescues are written in red codes more
    often than not), so the colour comes from the rescuing ``side``. See
    docs/rules-findings.md.

    >>> decode_rescue_piece(3, Side.BLUE)
    15
    """
    if raw is None or not 1 <= raw <= 24:
        return -1
    return (raw - 1) % 12 + (1 if side == Side.RED else 13)
