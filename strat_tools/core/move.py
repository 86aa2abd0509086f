"""A move as a value, defined once: what a game record's moves carry, what
:class:`Position.push <strat_tools.engine.position.position.Position.push>` takes and returns and
what ``Position.legal_moves`` lists (python-chess's ``Move``).

:class:`Move` is (source, target, rescue): it prints as ``B4-B5``, reads every notation the
project prints (``B4-B5``, the viewer's ``I4×I7``, ``I4xI7``, Gravon's ``K:``, a record's
move) and converts to and from our action id (the mover's view, :func:`view_square
<strat_tools.core.board.view_square>`) with the one side convention of :meth:`Side.of
<strat_tools.core.board.Side.of>` (0 red, 1 blue, or a :class:`Side`). A game record's move
(:class:`~strat_tools.core.records.RecordedMove`) carries a :class:`Move`, with its ply, its
line and the rescue as recorded beside it.

This module knows squares and names only: no rules, no boards.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple, Protocol

from strat_tools.core.board import Side, Square, parse_square, square_name, view_square
from strat_tools.core.errors import StratToolsError

__all__ = ["Carrier", "Move", "MoveError", "decode_rescue_piece"]


class MoveError(StratToolsError, ValueError):
    """A move (or a square, a rescue, a ply, a side) given to the stepping API is not one:
    the message says what was expected. Not a rule: a move the rules forbid is an
    :class:`~strat_tools.core.errors.IllegalMove`."""


_SPLIT: Final = re.compile(r"\s*(?:-|×|x|X)\s*")


def _square(value: object, what: str) -> Square:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MoveError(f"the {what} square is an int 0..99, got {value!r}")
    if not 0 <= value < 100:
        raise MoveError(f"the {what} square is an int 0..99, got {value}")
    return value


def _mover(side: object) -> Side:
    """The side an action is taken for: :meth:`Side.of` (0 red, 1 blue, a Side), else
    :class:`MoveError` (a bare 2 is refused: as an int, 1 is blue)."""
    try:
        return Side.of(side)
    except ValueError:
        raise MoveError(
            f"an action's side is 0 (red) or 1 (blue), as the training batches write it, "
            f"or a Side, got {side!r}"
        ) from None


class Carrier(Protocol):
    """Anything that carries a :class:`Move` (a record's move): :meth:`Move.of` takes it."""

    @property
    def move(self) -> Move: ...


class Move(NamedTuple):
    """A move: source and target square (0..99, Gravon squares) and, in ultimate lightning,
    a ``rescue`` (square, board code) made with it.

    >>> move = Move.parse("I4×I7")
    >>> move, str(move), Move.parse("i4xi7") == move == Move.from_uci("I4-I7")
    (Move(source=38, target=68, rescue=None), 'I4-I7', True)
    >>> Move.from_action(move.action(Side.BLUE), Side.BLUE) == move
    True
    >>> Move.from_action(3141, 0), Move.from_action(3141, 1)  # 0 red, 1 blue
    (Move(source=31, target=41, rescue=None), Move(source=68, target=58, rescue=None))
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
        """Our action id of this move made by ``side``: 0 red, 1 blue (the training
        batches' ``side``) or a :class:`Side`; :class:`MoveError` for anything else."""
        mover = _mover(side)
        return view_square(self.source, mover) * 100 + view_square(self.target, mover)

    @classmethod
    def from_action(cls, action: int, side: Side | int) -> Move:
        """The move ``side`` (0 red, 1 blue, or a :class:`Side`) makes with action id
        ``action`` (0..9999); :class:`MoveError` for any other action or side."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 10_000:
            raise MoveError(f"an action id is an int 0..9999, got {action!r}")
        mover = _mover(side)
        source, target = divmod(action, 100)
        return cls(view_square(source, mover), view_square(target, mover))

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
    def from_uci(cls, text: str) -> Move:
        """python-chess's name for :meth:`parse`: ``Move.from_uci("B4-B5")``."""
        return cls.parse(text)

    @classmethod
    def of(
        cls,
        move: object,
        target: object = None,
        rescue: object = None,
    ) -> Move:
        """Any way the stepping API takes a move: a :class:`Move`, its text, a record's
        move (the :class:`Move` it carries), or a source square with ``target``;
        ``rescue`` is (square, board code 1..24)."""
        if isinstance(move, Move):
            if target is not None:
                raise MoveError("give a move as a Move or as two squares, not both")
            found = move
        elif isinstance(move, str):
            if target is not None:
                raise MoveError("give a move as 'B4-B5' or as two squares, not both")
            found = cls.parse(move)
        elif target is None:
            carried = getattr(move, "move", None)
            if isinstance(carried, Move):
                found = carried
            else:
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
