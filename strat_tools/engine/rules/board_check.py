"""Whether a board given as a position (a StraDos3 string) can exist in a game at all.

:func:`position_winner` refuses, with a message naming what is wrong, a piece on a lake, a
lake square that is empty or a lake off the eight lake squares, a side with two flags or
more than 40 pieces (or, for a rule set with a fixed army, more pieces of a kind than the
army has), and a side without its flag unless the game has just ended by that capture (the
side that lost it is to move, after at least one ply): then it names the winner, so a
finished game reads back as finished.

This module knows boards and armies only: no moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from strat_tools.core.board import LAKES, Side, square_name
from strat_tools.core.errors import StratToolsError
from strat_tools.core.pieces import (
    ARMIES,
    CODE_KIND,
    CODE_SIDE,
    EMPTY,
    LAKE,
    PieceKind,
    piece_name,
)

__all__ = ["PositionError", "position_winner", "refuse_another_army"]

ARMY_SIZE = 40


class PositionError(StratToolsError, ValueError):
    """A position that cannot exist (or a string that is no position): the message names
    what is wrong."""


def position_winner(
    board: Sequence[int], side: Side, plies: int, army: Sequence[int] | None
) -> int:
    """0 for a live position, the winner's side for one whose flag was just captured;
    :class:`PositionError` for a board no game can reach.

    >>> board = [EMPTY] * 100
    >>> for lake in LAKES:
    ...     board[lake] = LAKE
    >>> board[0], board[99] = 12, 24  # the two flags
    >>> position_winner(board, Side.RED, 0, None)
    0
    >>> board[46] = 2
    >>> position_winner(board, Side.RED, 0, None)
    Traceback (most recent call last):
    ...
    strat_tools.engine.rules.board_check.PositionError: G5 is a lake, but it holds a red spy
    """
    for square, code in enumerate(board):
        if square in LAKES:
            if code == EMPTY:
                raise PositionError(f"{square_name(square)} is a lake, but it is empty")
            if code != LAKE:
                raise PositionError(
                    f"{square_name(square)} is a lake, but it holds a {piece_name(code)}"
                )
        elif code == LAKE:
            raise PositionError(
                f"{square_name(square)} is no lake (the lakes are C5 D5 G5 H5 C6 D6 G6 H6)"
            )
    flagless = []
    for who in Side:
        codes = [c for c in board if CODE_SIDE[c] == who]
        if len(codes) > ARMY_SIZE:
            raise PositionError(f"{who.label} has {len(codes)} pieces; an army has at most 40")
        flags = sum(1 for c in codes if CODE_KIND[c] == PieceKind.FLAG)
        if flags > 1:
            raise PositionError(f"{who.label} has {flags} flags; an army has one")
        if army is not None:
            for kind in PieceKind:
                count = sum(1 for c in codes if CODE_KIND[c] == kind)
                if count > army[kind]:
                    raise PositionError(
                        f"{who.label} has {count} {kind.label} pieces; the rule set's army "
                        f"has {army[kind]}"
                    )
        if not flags:
            flagless.append(who)
    if not flagless:
        return 0
    if flagless == [side] and plies > 0:
        return int(side.other)  # the mover just captured this flag: the game is over
    names = " and ".join(who.label for who in flagless)
    raise PositionError(
        f"{names} has no flag (a captured flag ends the game: only the side that lost it "
        "can be to move, after at least one ply)"
    )


def refuse_another_army(board: Sequence[int], default: str) -> None:
    """:class:`PositionError` for a board holding another variant's whole army (both
    sides) given without rules: the ``default`` (classic) rules would judge it wrongly (a
    lightning captain's two squares, a barrage army's losses) without a word of why.

    >>> from strat_tools.core.pieces import ARMIES, piece_code
    >>> board = [0] * 100
    >>> for side, squares in ((Side.RED, range(0, 8)), (Side.BLUE, range(92, 100))):
    ...     kinds = [k for k, n in enumerate(ARMIES["barrage"]) for _ in range(n)]
    ...     for square, kind in zip(squares, kinds):
    ...         board[square] = piece_code(side, PieceKind(kind))
    >>> refuse_another_army(board, "gravon-2013")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    strat_tools.engine.rules.board_check.PositionError: this board holds the barrage army: ...
    """
    counts = [[0] * 12, [0] * 12]
    for code in board:
        if 0 < code < LAKE:
            counts[CODE_SIDE[code] - 1][CODE_KIND[code]] += 1
    for variant, army in ARMIES.items():
        if variant != "classic" and counts[0] == counts[1] == list(army):
            raise PositionError(
                f"this board holds the {variant} army: give its rules, "
                "Position(setup, st.rules_for(record)) or a rule-set name (without them "
                f"the classic rules, {default}, would judge it)"
            )
