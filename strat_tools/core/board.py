"""The Stratego board: squares, names, lakes, sides, neighbour and ray tables.

A square is an ``int`` from 0 to 99, equal to the index into a Gravon ``field`` string:
column ``"ABCDEFGHIK"[sq % 10]`` (there is no J), row ``sq // 10 + 1``. Square 0 is A1 (red's
back row, red's left), square 99 is K10. Red (player 1) sets up on rows 1-4 and moves first;
blue (player 2) on rows 7-10.

This module knows geometry only: it does not know pieces, rules or the XML format.
"""

from __future__ import annotations

import operator
from enum import IntEnum
from typing import Final

from strat_tools.core.errors import NotationError

Square = int
"""A board square, 0..99 (the Gravon field index)."""

COLUMNS: Final = "ABCDEFGHIK"
"""Column letters left to right from red's seat; Gravon skips J."""

SQUARES: Final = range(100)

LAKES: Final = frozenset({42, 43, 46, 47, 52, 53, 56, 57})
"""C5 D5 G5 H5 C6 D6 G6 H6."""

IS_LAKE: Final = tuple(sq in LAKES for sq in SQUARES)


class Side(IntEnum):
    """A player: the one side type of the API (``Position.side``, ``Outcome.winner``). The
    value is the Gravon player id (1 red, 2 blue). Its encodings elsewhere: the tables'
    strings are :attr:`label` (``'red'``, ``'blue'``), the observation batches' 0/1 are
    :attr:`index` (``side - 1``); :meth:`of` reads any of them back.

    >>> Side.of("blue"), Side.of(0), Side.BLUE.index, Side.RED.label
    (<Side.BLUE: 2>, <Side.RED: 1>, 1, 'red')
    """

    RED = 1
    BLUE = 2

    def __str__(self) -> str:
        """``'red'`` or ``'blue'`` (:attr:`label`), as python-chess prints a colour's name."""
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        """As an int with a format spec (``f"{side:d}"``), else :attr:`label`."""
        return format(int(self), spec) if spec else str(self)

    @property
    def other(self) -> Side:
        """The opponent."""
        return Side.BLUE if self is Side.RED else Side.RED

    @property
    def label(self) -> str:
        """``'red'`` or ``'blue'``."""
        return self.name.lower()

    @property
    def index(self) -> int:
        """0 for red, 1 for blue: the observation batches' encoding."""
        return int(self) - 1

    @classmethod
    def of(cls, value: object) -> Side:
        """The side a table's string (``'red'``) or a batch's index (0, 1, a NumPy integer
        too) names: the one reading of a side given from outside (an action's side, say).
        :class:`~strat_tools.core.errors.NotationError` (a ``ValueError``) for anything else,
        a bare 2 included (a Side is itself: ``Side.BLUE``, whose value is 2, is blue).

        >>> Side.of(1), Side.of(Side.RED)
        (<Side.BLUE: 2>, <Side.RED: 1>)
        """
        if isinstance(value, Side):
            return value
        if isinstance(value, str) and value.lower() in ("red", "blue"):
            return cls[value.upper()]
        if not isinstance(value, bool) and type(value).__name__ != "bool_":
            try:
                index = operator.index(value)  # type: ignore[arg-type]
            except TypeError:
                index = -1
            if index in (0, 1):
                return cls(index + 1)
        raise NotationError(f"a side is 0 (red), 1 (blue), 'red', 'blue' or a Side, got {value!r}")


def square_name(square: Square, *, gravon: bool = False) -> str:
    """Name a square: ``square_name(99) == 'K10'``; ``gravon=True`` writes row 10 as ``':'``."""
    if not 0 <= square < 100:
        raise ValueError(f"square index out of range 0..99: {square!r}")
    row = square // 10 + 1
    col = COLUMNS[square % 10]
    if row == 10:
        return col + (":" if gravon else "10")
    return col + str(row)


_SQUARE_BY_NAME: Final[dict[str, Square]] = {}
for _sq in SQUARES:
    _SQUARE_BY_NAME[square_name(_sq)] = _sq
    _SQUARE_BY_NAME[square_name(_sq, gravon=True)] = _sq


def parse_square(name: str) -> Square:
    """Read a square name: ``'A1'``..``'K10'``, Gravon's ``'K:'`` for row 10 too.

    Raises :class:`~strat_tools.core.errors.NotationError` (a ``ValueError``) for anything
    else (including the letter J, which Gravon skips).
    """
    try:
        return _SQUARE_BY_NAME[name]
    except (KeyError, TypeError):
        raise NotationError(f"not a square name: {name!r} (expected A1..K10, no J)") from None


def square_lookup() -> dict[str, Square]:
    """A copy of the name→square table, for hot loops that want ``dict.get``."""
    return dict(_SQUARE_BY_NAME)


def row_of(square: Square) -> int:
    """Board row 1..10 (red's back row is 1)."""
    return square // 10 + 1


def col_of(square: Square) -> int:
    """Board column 1..10 from red's left (A=1, K=10)."""
    return square % 10 + 1


def view_square(square: Square, side: Side) -> Square:
    """``square`` as ``side`` sees it: red's squares as they are, blue's turned 180 degrees
    (``99 - square``, a turn that keeps the lakes where they are): the one definition of the mover's
    view of a square (``engine/information/mover_view.py`` turns columns and boards the same way).

    Its own inverse: ``view_square(view_square(s, side), side) == s``.

    >>> view_square(0, Side.BLUE), view_square(0, Side.RED)
    (99, 0)
    """
    return 99 - square if side == Side.BLUE else square


def owner_view(square: Square, side: Side) -> tuple[int, int]:
    """(row, col) as ``side`` sees the board: row 1 is their back row, col 1 their left.

    Blue sits opposite red, so blue's view is the board turned 180 degrees (not mirrored).
    """
    if side is Side.RED:
        return square // 10 + 1, square % 10 + 1
    return 10 - square // 10, 10 - square % 10


def from_owner_view(row: int, col: int, side: Side) -> Square:
    """Inverse of :func:`owner_view`."""
    if not (1 <= row <= 10 and 1 <= col <= 10):
        raise ValueError(f"row and col must be 1..10, got {row}, {col}")
    if side is Side.RED:
        return (row - 1) * 10 + (col - 1)
    return (10 - row) * 10 + (10 - col)


def _neighbours(square: Square) -> tuple[Square, ...]:
    row, col = divmod(square, 10)
    out = []
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        r, c = row + dr, col + dc
        if 0 <= r < 10 and 0 <= c < 10 and (r * 10 + c) not in LAKES:
            out.append(r * 10 + c)
    return tuple(out)


NEIGHBOURS: Final = tuple(_neighbours(sq) for sq in SQUARES)
"""Orthogonal neighbours of each square that are on the board and not lakes."""

DIRECTIONS: Final = (10, -10, 1, -1)


def _ray(square: Square, step: int) -> tuple[Square, ...]:
    out = []
    row, col = divmod(square, 10)
    dr, dc = {10: (1, 0), -10: (-1, 0), 1: (0, 1), -1: (0, -1)}[step]
    r, c = row + dr, col + dc
    while 0 <= r < 10 and 0 <= c < 10 and (r * 10 + c) not in LAKES:
        out.append(r * 10 + c)
        r, c = r + dr, c + dc
    return tuple(out)


RAYS: Final = tuple(tuple(_ray(sq, step) for step in DIRECTIONS) for sq in SQUARES)
"""For each square, four rays (up, down, right, left in red's view) of squares up to a lake
or the edge, nearest first."""


def is_home_square(square: Square, side: Side) -> bool:
    """Whether ``square`` lies in ``side``'s four setup rows."""
    return square < 40 if side is Side.RED else square >= 60
