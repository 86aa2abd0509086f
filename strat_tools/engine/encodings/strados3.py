"""OpenSpiel yorktown's state string, "StraDos3": a position as one line of text, written,
read, and taken at any ply of a replayed game, with the rule-state part
:meth:`Position.strados3 <strat_tools.engine.position.position.Position.strados3>` adds.

A StraDos3 string has three parts separated by one space: the 100-character field, the side
to move (``r`` or ``b``) and the number of plies played. The field is a Gravon field string
(index = Gravon square, ``A`` empty, ``_`` lake, ``B``-``M`` red, ``N``-``Y`` blue) with
every *revealed* piece in lower case; in a player's view (OpenSpiel's information state
string) each opponent piece that player has not seen is written ``?``. A position after
20 plies, red to move, ends ``... r 20``; docs/observations.md shows one from a real game.

OpenSpiel marks a piece visible when it takes part in a battle; which pieces are revealed
is the caller's choice (``visible`` of :func:`to_strados3`); :func:`strados3_at` takes the
knowledge model's (a piece shown in a battle or a rescue). Empty squares are written ``A``
(OpenSpiel's initial string and example; its writer lower-cases them, and its reader takes
either), and both cases are read here.

OpenSpiel's string has no rule state (its loader refuses a fourth part), but the
two-squares rule needs one: so ``Position.strados3(exact=True)`` adds a fourth part,
:func:`chains_text`, each side's last move and how many moves in a row its piece has gone
back and forth: ``r:B4-B5x2,b:I7-I6x1`` (a scout under the scout clause adds its shared
span, ``@B5-B7``, and a chain longer than its last move its squares, ``/B5.B7.B5``; ``-``
when neither side has moved yet).

This module converts text: it knows no rules and replays nothing (:func:`strados3_at`
reads a replay's knowledge).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

from strat_tools.core.board import LAKES, Side, parse_square, square_name
from strat_tools.core.errors import NotationError
from strat_tools.core.pieces import CODE_KIND, CODE_LETTERS, CODE_SIDE, EMPTY, LAKE
from strat_tools.engine.replays.replayed import Replayed
from strat_tools.engine.rules.board_check import PositionError, position_winner
from strat_tools.engine.rules.rule_state import NO_CHAIN, Chain, RuleState

if TYPE_CHECKING:
    from strat_tools.engine.information.knowledge import Knowledge

UNSEEN: Final = -1
"""Board code :func:`parse_strados3` gives a ``?`` square (a piece the viewer has not seen)."""

SIDE_LETTERS: Final = {Side.RED: "r", Side.BLUE: "b"}

EMPTY_FIELD: Final = "".join("_" if square in LAKES else "A" for square in range(100))
"""The field of an empty board: every square ``A`` but the eight lakes ``_``."""


class StraDos3(NamedTuple):
    """A parsed StraDos3 string: board codes (``UNSEEN`` for ``?``), which squares hold a
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


def strados3_at(
    result: Replayed,
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
    from strat_tools.engine.information.knowledge import (  # numpy: on first use
        KNOWN,
        REVEALED,
        knowledge,
    )

    know = know if know is not None else knowledge(result)
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


def parse_strados3(text: str) -> StraDos3:
    """Read a StraDos3 string; ``ValueError`` saying what is wrong for anything else.

    >>> state = parse_strados3("A" * 99 + "y b 7")
    >>> state.board[99], state.visible[99], state.side, state.plies
    (24, True, <Side.BLUE: 2>, 7)
    """
    parts = text.split(" ")
    if len(parts) != 3:
        raise NotationError(f"a StraDos3 string has 3 parts separated by spaces, got {len(parts)}")
    field, side_letter, plies_text = parts
    if len(field) != 100:
        raise NotationError(f"the StraDos3 field has 100 characters, got {len(field)}")
    sides = {letter: side for side, letter in SIDE_LETTERS.items()}
    if side_letter not in sides:
        raise NotationError(f"the side to move is 'r' or 'b', got {side_letter!r}")
    if not (plies_text.isascii() and plies_text.isdigit() and len(plies_text) < 10):
        raise NotationError(f"the ply count is a number, got {plies_text!r}")
    board: list[int] = []
    visible: list[bool] = []
    for square, letter in enumerate(field):
        if letter == "?":
            board.append(UNSEEN)
            visible.append(False)
            continue
        code = CODE_LETTERS.find(letter.upper())
        if code < 0:
            raise NotationError(f"square {square}: {letter!r} is not a StraDos3 field letter")
        board.append(code)
        visible.append(code not in (EMPTY, LAKE) and letter.islower())
    return StraDos3(tuple(board), tuple(visible), sides[side_letter], int(plies_text))


def chains_text(chains: Sequence[Chain]) -> str:
    """The fourth part: red's then blue's chain
    (:data:`~strat_tools.engine.rules.rule_state.NO_CHAIN`: that side has not moved); a chain
    whose squares are not just its last move's adds them after ``/``, so that a scout's chain
    is recounted over the same squares when it breaks (the exact round trip).

    >>> chains_text([Chain(3141, 2, 31, 41), NO_CHAIN])
    'r:B4-B5x2'
    >>> chains_text([Chain(3171, 3, 51, 61), NO_CHAIN])
    'r:B4-B8x3@B6-B7'
    >>> chains_text([Chain(3171, 3, 51, 61, (61, 31, 71)), NO_CHAIN])
    'r:B4-B8x3@B6-B7/B7.B4.B8'
    """
    parts = []
    for side, chain in zip((Side.RED, Side.BLUE), chains, strict=True):
        if chain.key < 0:
            continue
        source, target = divmod(chain.key, 100)
        text = f"{SIDE_LETTERS[side]}:{square_name(source)}-{square_name(target)}x{chain.length}"
        if (chain.lo, chain.hi) != (min(source, target), max(source, target)):
            text += f"@{square_name(chain.lo)}-{square_name(chain.hi)}"
        if chain.path and chain.path != (source, target):
            text += "/" + ".".join(square_name(s) for s in chain.path)
        parts.append(text)
    return ",".join(parts) or "-"


def parse_chains(text: str) -> tuple[Chain, Chain]:
    """Red's and blue's chain from a fourth part, each with its squares (the last move's
    when the part does not list them); ``ValueError`` saying what is wrong.

    >>> red, blue = parse_chains("r:B4-B8x3@B6-B7/B7.B4.B8,b:I7-I6x1")
    >>> red
    Chain(key=3171, length=3, lo=51, hi=61, path=(61, 31, 71))
    >>> blue
    Chain(key=6858, length=1, lo=58, hi=68, path=(68, 58))
    """
    chains = [NO_CHAIN, NO_CHAIN]
    if text == "-":
        return chains[0], chains[1]
    sides = {letter: side for side, letter in SIDE_LETTERS.items()}
    for part in text.split(","):
        letter, _, rest = part.partition(":")
        rest, _, path_text = rest.partition("/")
        move, _, count_text = rest.partition("x")
        count_text, _, span = count_text.partition("@")
        if (
            letter not in sides
            or not (count_text.isascii() and count_text.isdigit())
            or int(count_text) < 1
        ):
            raise NotationError(f"a two-squares chain reads like r:B4-B5x2, got {part!r}")
        source, target = move_squares(move)
        low, high = move_squares(span) if span else (source, target)
        low, high = min(low, high), max(low, high)
        try:
            path = tuple(parse_square(s) for s in path_text.split(".")) if path_text else ()
        except ValueError:
            raise ValueError(f"a chain's squares read like /B7.B4.B8, got {part!r}") from None
        if path and (len(path) < 2 or path[-2:] != (source, target)):
            raise ValueError(f"a chain's squares end with its last move, got {part!r}")
        key = source * 100 + target
        chains[sides[letter] - 1] = Chain(key, int(count_text), low, high, path or (source, target))
    return chains[0], chains[1]


def position_state(text: str, army: Sequence[int] | None) -> tuple[list[int], RuleState]:
    """The board and rule state of a StraDos3 string (three parts, or four as
    ``Position.strados3(exact=True)`` writes them) whose game has the ``army`` (counts per
    kind; ``None``: any): the pieces missing from it count as lost, a board whose flag was
    just captured is a finished game. :class:`~strat_tools.engine.rules.board_check.PositionError`
    naming what is wrong for a string that is no position or a board no game reaches."""
    parts = text.strip().split(" ")
    if len(parts) not in (3, 4):
        raise PositionError(f"a StraDos3 string has 3 or 4 parts, got {len(parts)}")
    try:
        found = parse_strados3(" ".join(parts[:3]))
        chains = parse_chains(parts[3]) if len(parts) == 4 else (NO_CHAIN, NO_CHAIN)
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    if -1 in found.board:
        raise PositionError("a position to play needs every piece: this string has '?'")
    board = list(found.board)
    winner = position_winner(board, found.side, found.plies, army)
    lost: tuple[list[int], list[int]] = ([], [])
    for code in range(1, 25) if army else ():
        missing = army[CODE_KIND[code]] - board.count(code)  # type: ignore[index]
        lost[CODE_SIDE[code] - 1].extend([code] * max(0, missing))
    captured = (tuple(lost[0]), tuple(lost[1]))
    return board, RuleState(Side(found.side), found.plies, winner, chains, captured)


def move_squares(text: str) -> tuple[int, int]:
    """(source, target) of a move written ``"B4-B5"`` (``K10`` or Gravon's ``K:``, any
    case); :class:`~strat_tools.core.errors.NotationError` (a ``ValueError``) naming the text
    otherwise.

    >>> move_squares("b4-b5")
    (31, 41)
    """
    source, dash, target = text.strip().upper().partition("-")
    try:
        if not dash:
            raise ValueError
        return parse_square(source), parse_square(target)
    except ValueError:
        raise NotationError(f"not a move: {text!r} (expected squares like B4-B5)") from None
