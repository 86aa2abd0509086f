"""OpenSpiel yorktown's state string, "StraDos3": a position as one line of text.

A StraDos3 string has three parts separated by one space: the 100-character field, the side
to move (``r`` or ``b``) and the number of plies played. The field is a Gravon field string
(index = Gravon square, ``A`` empty, ``_`` lake, ``B``-``M`` red, ``N``-``Y`` blue) with
every *revealed* piece in lower case; in a player's view (OpenSpiel's information state
string) each opponent piece that player has not seen is written ``?``. A position after
20 plies, red to move, ends ``... r 20``; docs/observations.md shows one from a real game.

OpenSpiel marks a piece visible when it takes part in a battle; which pieces are revealed
here is the caller's choice (``visible``), e.g. the knowledge model's. Empty squares are
written ``A`` (OpenSpiel's initial string and example; its writer lower-cases them, and its
reader takes either), and both cases are read here.

:func:`strados3_at` writes the string of any ply of a replayed game, with the pieces the
knowledge model says were shown (in a battle or a rescue) in lower case.

This module converts text: it knows no rules and replays nothing itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

from strat_tools.board import Side
from strat_tools.engine.knowledge import KNOWN, REVEALED, Knowledge
from strat_tools.pieces import CODE_LETTERS, CODE_SIDE, EMPTY, LAKE

if TYPE_CHECKING:
    from strat_tools.replay import Replay

UNKNOWN: Final = -1
"""Board code :func:`parse_strados3` gives a ``?`` square (a piece the viewer has not seen)."""

SIDE_LETTERS: Final = {Side.RED: "r", Side.BLUE: "b"}


class StraDos3(NamedTuple):
    """A parsed StraDos3 string: board codes (``UNKNOWN`` for ``?``), which squares hold a
    revealed piece (lower case), the side to move and the plies played."""

    board: tuple[int, ...]
    visible: tuple[bool, ...]
    side: Side
    plies: int


def to_strados3(
    board: Sequence[int],
    side: Side | int,
    plies: int,
    visible: Sequence[bool] | None = None,
    view: Side | int | None = None,
) -> str:
    """The StraDos3 string of ``board`` (100 board codes) with ``side`` to move after
    ``plies`` plies; ``visible[square]`` writes that piece in lower case; ``view`` writes
    that side's information state, each opponent piece not visible as ``?``.

    >>> start = [0] * 100
    >>> start[0], start[99] = 12, 24  # red flag on A1, blue flag on K10
    >>> to_strados3(start, Side.RED, 0)[-8:]
    'AAAY r 0'
    """
    if len(board) != 100:
        raise ValueError(f"a board has 100 squares, got {len(board)}")
    if plies < 0:
        raise ValueError(f"plies must be 0 or more, got {plies}")
    hidden_side = 0 if view is None else 3 - int(view)
    letters = []
    for square, code in enumerate(board):
        letter = CODE_LETTERS[code]
        if code != EMPTY and code != LAKE:
            seen = visible is not None and visible[square]
            if seen:
                letter = letter.lower()
            elif CODE_SIDE[code] == hidden_side:
                letter = "?"
        letters.append(letter)
    return f"{''.join(letters)} {SIDE_LETTERS[Side(side)]} {plies}"


def parse_strados3(text: str) -> StraDos3:
    """Read a StraDos3 string; ``ValueError`` saying what is wrong for anything else.

    >>> state = parse_strados3("A" * 99 + "y b 7")
    >>> state.board[99], state.visible[99], state.side, state.plies
    (24, True, <Side.BLUE: 2>, 7)
    """
    parts = text.split(" ")
    if len(parts) != 3:
        raise ValueError(f"a StraDos3 string has 3 parts separated by spaces, got {len(parts)}")
    field, side_letter, plies_text = parts
    if len(field) != 100:
        raise ValueError(f"the StraDos3 field has 100 characters, got {len(field)}")
    sides = {letter: side for side, letter in SIDE_LETTERS.items()}
    if side_letter not in sides:
        raise ValueError(f"the side to move is 'r' or 'b', got {side_letter!r}")
    if not (plies_text.isascii() and plies_text.isdigit() and len(plies_text) < 10):
        raise ValueError(f"the ply count is a number, got {plies_text!r}")
    board: list[int] = []
    visible: list[bool] = []
    for square, letter in enumerate(field):
        if letter == "?":
            board.append(UNKNOWN)
            visible.append(False)
            continue
        code = CODE_LETTERS.find(letter.upper())
        if code < 0:
            raise ValueError(f"square {square}: {letter!r} is not a StraDos3 field letter")
        board.append(code)
        visible.append(code not in (EMPTY, LAKE) and letter.islower())
    return StraDos3(tuple(board), tuple(visible), sides[side_letter], int(plies_text))


def strados3_at(
    result: Replay,
    ply: int,
    view: Side | int | None = None,
    know: Knowledge | None = None,
) -> str:
    """The StraDos3 string after ``ply`` plies of a replayed game: pieces shown in a battle
    or a rescue in lower case (as OpenSpiel shows battle pieces); with ``view``, that side's
    information state (the opponent's pieces it has identified, by a battle or by a move
    only a scout can make, in lower case, the others ``?``). Pass ``know``
    (``result.knowledge()``) when writing many plies of one game.
    """
    know = know if know is not None else result.knowledge()
    if not 0 <= ply <= know.plies:
        raise ValueError(f"ply must be 0..{know.plies}, got {ply}")
    board, flags = know.boards[ply].tolist(), know.flags[ply].tolist()
    side = Side.RED if ply % 2 == 0 else Side.BLUE
    opponent = 0 if view is None else 3 - int(view)
    visible = [
        bool(bits & REVEALED) or (CODE_SIDE[code] == opponent and bool(bits & KNOWN))
        for code, bits in zip(board, flags, strict=True)
    ]
    return to_strados3(board, side, ply, visible, view)
