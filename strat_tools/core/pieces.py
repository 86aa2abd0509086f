"""Pieces: the twelve kinds, their Gravon letters, names and both rank numberings.

A *piece code* is a small int that says kind and side at once, equal to the Gravon field
letter minus ``'A'``: 0 is an empty square, 1..12 are red's bomb..flag (``B``..``M``),
13..24 blue's (``N``..``Y``), and 25 marks a lake (``_``). Boards are flat lists of these
codes, so the engine's hot loops touch only ints.

The kind's value equals its modern rank for the ten movable pieces (spy 1 .. marshal 10);
the bomb is 0 and the flag 11. Older editions number the other way round (1 = marshal,
9 = scout, S = spy): :func:`rank_label` writes either.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, Literal

from strat_tools.core.board import Side
from strat_tools.core.errors import OptionError

EMPTY: Final = 0
LAKE: Final = 25
BOARD_CODES: Final = bytes(range(LAKE + 1))
"""Every code a board square may hold (empty, the 24 pieces, the lake), as bytes: a setup
whose ``bytes(setup).translate(None, BOARD_CODES)`` is not empty holds a bad code."""


def check_board(board: object) -> None:
    """Raise ``ValueError`` (``TypeError`` for what is no sequence) unless ``board`` is 100
    integer codes 0..25 (empty, the 24 pieces, the lake): the one check of a board given by
    a caller.

    >>> check_board([99] * 100)
    Traceback (most recent call last):
    ...
    ValueError: a board holds integer codes 0..25 (empty, pieces, lake) only
    """
    try:
        size = len(board)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"a board is a sequence of 100 codes, not {type(board).__name__}") from None
    if size != 100:
        raise ValueError(f"a board has 100 squares, got {size}")
    try:
        # C speed (a few microseconds a game): bytes() refuses anything but integers
        # 0..255, and the translation leaves any code past the lake.
        bad = bytes(board).translate(None, BOARD_CODES)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        bad = b"\xff"
    if bad:
        raise ValueError("a board holds integer codes 0..25 (empty, pieces, lake) only")


Numbering = Literal["modern", "classic"]
"""``modern``: 10 = marshal, 1 = spy. ``classic``: 1 = marshal, 9 = scout, S = spy."""

NUMBERINGS: Final = ("modern", "classic")


class PieceKind(IntEnum):
    """A kind of piece. Values 1..10 are the modern ranks."""

    BOMB = 0
    SPY = 1
    SCOUT = 2
    MINER = 3
    SERGEANT = 4
    LIEUTENANT = 5
    CAPTAIN = 6
    MAJOR = 7
    COLONEL = 8
    GENERAL = 9
    MARSHAL = 10
    FLAG = 11

    @property
    def label(self) -> str:
        """Lower-case English name, as used in tables: ``'marshal'``."""
        return self.name.lower()

    @property
    def movable(self) -> bool:
        """Whether the piece can ever move (not a bomb or the flag)."""
        return self is not PieceKind.BOMB and self is not PieceKind.FLAG

    @classmethod
    def from_label(cls, label: str) -> PieceKind:
        """``PieceKind.from_label('scout') is PieceKind.SCOUT``; case-insensitive."""
        try:
            return cls[label.strip().upper()]
        except KeyError:
            names = ", ".join(k.label for k in cls)
            raise OptionError(f"unknown piece {label!r}; expected one of {names}") from None


KINDS: Final = tuple(PieceKind)
KIND_LABELS: Final = tuple(k.label for k in KINDS)


def parse_piece(text: str) -> PieceKind:
    """The piece a player means: its name in any case, the plural, or its letter (``F``
    flag, ``B`` bomb, ``S`` spy). Ranks by number are not taken, since the two numberings
    disagree (``1`` is the spy or the marshal). ``OptionError`` (a ``ValueError``) lists the names.

    >>> [parse_piece(t).label for t in ("Flag", "F", "flag", "BOMBS", " spy ", "s")]
    ['flag', 'flag', 'flag', 'bomb', 'spy', 'spy']
    >>> parse_piece("flagg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    strat_tools.core.errors.OptionError: unknown piece 'flagg'; choose from flag, bomb, ... (or F,
    B, S)
    """
    word = text.strip().lower()
    if word in _PIECE_LETTERS:
        return _PIECE_LETTERS[word]
    for candidate in (word, word[:-1] if word.endswith("s") else word):
        if candidate in KIND_LABELS:
            return PieceKind.from_label(candidate)
    raise OptionError(f"unknown piece {text!r}; choose from {', '.join(PIECE_NAMES)} (or F, B, S)")


PIECE_NAMES: Final = ("flag", "bomb", *(k.label for k in KINDS if k.movable))
"""Piece names in the order a setup is read: flag, bomb, then spy .. marshal."""

_PIECE_LETTERS: Final = {"f": PieceKind.FLAG, "b": PieceKind.BOMB, "s": PieceKind.SPY}

CLASSIC_LABELS: Final = ("B", "S", "9", "8", "7", "6", "5", "4", "3", "2", "1", "F")
"""Rank labels in the older numbering, indexed by kind (1 = marshal, 9 = scout, S = spy)."""
MODERN_LABELS: Final = ("B", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "F")
"""Rank labels in the modern numbering, indexed by kind (10 = marshal, 1 = spy)."""


def check_numbering(numbering: object) -> Numbering:
    """``numbering`` if it is ``'modern'`` or ``'classic'``, else :class:`OptionError`: where
    a numbering enters the library it is checked, never taken as the other one.

    >>> check_numbering("clasic")
    Traceback (most recent call last):
    ...
    strat_tools.core.errors.OptionError: unknown numbering 'clasic'; choose from modern, classic
    """
    if numbering == "modern" or numbering == "classic":
        return numbering
    raise OptionError(f"unknown numbering {numbering!r}; choose from {', '.join(NUMBERINGS)}")


def rank_label(kind: PieceKind, numbering: Numbering = "modern") -> str:
    """Short rank label: the marshal is ``'10'`` (modern) or ``'1'`` (classic)."""
    if numbering == "modern":
        return MODERN_LABELS[kind]
    if numbering == "classic":
        return CLASSIC_LABELS[kind]
    raise OptionError(f"unknown numbering {numbering!r}; expected modern or classic")


def parse_rank_label(label: str, numbering: Numbering = "modern") -> PieceKind:
    """Inverse of :func:`rank_label` (``'S'`` and ``'s'`` both read as the spy)."""
    table = MODERN_LABELS if numbering == "modern" else CLASSIC_LABELS
    text = label.strip().upper()
    for kind in KINDS:
        if table[kind] == text:
            return kind
    raise OptionError(f"not a {numbering} rank label: {label!r}")


def piece_code(side: Side, kind: PieceKind) -> int:
    """The board code of ``side``'s ``kind``: red 1..12, blue 13..24."""
    return kind + 1 if side is Side.RED else kind + 13


def code_side(code: int) -> Side:
    """The side of a piece code (1..24)."""
    if 1 <= code <= 12:
        return Side.RED
    if 13 <= code <= 24:
        return Side.BLUE
    raise ValueError(f"not a piece code: {code!r}")


def code_kind(code: int) -> PieceKind:
    """The kind of a piece code (1..24)."""
    if not 1 <= code <= 24:
        raise ValueError(f"not a piece code: {code!r}")
    return KINDS[(code - 1) % 12]


CODE_LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXY_"
"""Gravon field letter of each code 0..25."""


def code_letter(code: int) -> str:
    """Gravon field letter of a code: ``code_letter(12) == 'M'`` (red flag)."""
    if not 0 <= code <= 25:
        raise ValueError(f"not a board code: {code!r}")
    return CODE_LETTERS[code]


def letter_code(letter: str) -> int:
    """Board code of a Gravon field letter: ``letter_code('Y') == 24`` (blue flag)."""
    code = CODE_LETTERS.find(letter) if len(letter) == 1 else -1
    if code < 0:
        raise ValueError(f"not a Gravon field letter: {letter!r} (expected A-Y or _)")
    return code


def piece_name(code: int) -> str:
    """``'red marshal'``, ``'blue scout'``; ``'empty'`` and ``'lake'`` for the others."""
    if code == EMPTY:
        return "empty"
    if code == LAKE:
        return "lake"
    return f"{code_side(code).label} {code_kind(code).label}"


# Flat lookup tables for hot loops, indexed by board code 0..25.
CODE_SIDE: Final = tuple(0 if c in (EMPTY, LAKE) else (1 if c <= 12 else 2) for c in range(26))
"""0 for empty/lake, else the Gravon player id (1 red, 2 blue)."""
CODE_KIND: Final = tuple(-1 if c in (EMPTY, LAKE) else (c - 1) % 12 for c in range(26))
"""-1 for empty/lake, else the kind value 0..11."""


def _army(letters: str) -> tuple[int, ...]:
    """Counts per kind (index = kind value) of an army written in red Gravon letters."""
    counts = [0] * 12
    for letter in letters:
        counts[letter_code(letter) - 1] += 1
    return tuple(counts)


ARMIES: Final[dict[str, tuple[int, ...]]] = {
    "classic": _army("BBBBBBCDDDDDDDDEEEEEFFFFGGGGHHHHIIIJJKLM"),
    "barrage": _army("BCDDEKLM"),
    "duell": _army("BBCDDEEKLM"),
    "ultimate lightning": _army("BBCDDDDEEFFGGHHIJKLM"),
}
"""Each variant's army per side as counts indexed by kind value. Classicfree has none: any
army is allowed there."""
