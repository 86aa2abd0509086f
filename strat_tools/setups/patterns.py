"""Setup patterns: a 4x10 picture of what a setup must hold, matched against many setups.

A pattern is written the way its owner sees the setup from their seat, as
:func:`strat_tools.setups.identity.draw_setup` draws one: **the front row (row 4) first, the back
row last**, each row left to right from the owner's seat. Rows are separated by newlines or
``/``; a row is either 10 characters or 10 tokens separated by spaces. A token is:

- ``.`` (or ``?``, ``*``): anything, an empty square too;
- a piece: ``B`` bomb, ``F`` flag, ``S`` (or ``1``) spy, ``2``..``9``, ``G`` the general
  (the same as ``9``), ``X`` (or ``10``) the marshal, or its name (``bomb``, ``scout``,
  ``marshal`` ...; names need the spaced form);
- ``_``: an empty square (barrage, duell and ultimate lightning have them); ``#``: a square
  that holds none of the owner's pieces (a lake or an enemy piece: classicfree only);
- a set: ``[B3]`` (one of the characters) or ``[bomb,miner]``; a negated set ``[!FB]``:
  none of them (neither flag nor bomb);
- ``!`` before a piece or a set: anything but that (``!B``; ``![FB]`` is ``[!FB]``).

A ``!`` stands once, before a square or at the opening of a set: ``[!F!B]`` and ``!!B`` are
errors. Case does not matter. ``str(pattern)`` draws it back in the same form (sets as
``[..]``, or ``[!..]`` when that is shorter).

**Anywhere patterns** (:class:`AnywherePattern`, ``--anywhere``) are written the same way,
front-most row first, but with 1 to 4 rows of 1 to 10 squares (all rows as wide); they match
a setup when they fit at some offset: ``SG`` is a spy with the general right beside it in a
row, ``B/F`` a bomb right in front of the flag. With ``mirror``, the pattern's mirror image
(each row reversed) matches too. :func:`parse_pattern` reads either kind; every bad pattern
is a :class:`PatternError` whose message names the row, the square and the problem.

"Empty is impossible" is kept honest: in a variant whose army fills all 40 squares
(classic), a pattern that asks for an empty square, or for more pieces of a kind than the
army holds, can match nothing, and :meth:`Pattern.impossible` says why.

Matching is vectorised over an ``[n, 40]`` uint8 array of setup codes
(:mod:`strat_tools.setups.identity`): one bit mask per square (bit ``c`` set when byte ``c`` is
allowed there); :mod:`strat_tools.setups.bitboards` turns the setups into one 40-bit word per
byte the pattern names and answers whole patterns, mirror images and every offset of an
anywhere pattern with a few word operations per setup (a million setups in a few
hundredths of a second).

This module reads no files and counts no wins: see :mod:`strat_tools.stats.setup_search`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.errors import NotationError
from strat_tools.core.pieces import ARMIES, KIND_LABELS
from strat_tools.setups.bitboards import ALL, match_anywhere, match_setups
from strat_tools.setups.identity import BOARD_SYMBOLS, MIRROR_INDEX, OTHER, SQUARES, Codes

_PIECES: Final = ALL & ~1 & ~(1 << OTHER)

_SYMBOL_BYTE: Final = {symbol: kind + 1 for kind, symbol in enumerate(BOARD_SYMBOLS)} | {
    "1": 2,
    "G": 10,
    "10": 11,
    "_": 0,
    "#": OTHER,
}
_NAME_BYTE: Final = {name: kind + 1 for kind, name in enumerate(KIND_LABELS)} | {"empty": 0}
_WILDCARDS: Final = frozenset(".?*")
_PIECE_HELP: Final = (
    f"use . for anything, _ for empty, {' '.join(BOARD_SYMBOLS)} "
    "(X the marshal, G or 9 the general, S the spy), a name, [..] or !"
)


SPACES: Final = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""The characters :meth:`str.strip`, :meth:`str.split` and ``\\s`` take for space, written out
(scanning all of Unicode for them cost every process 0.16 s at start-up); a test holds it
to ``str.isspace`` over every code point (``tests/test_patterns.py``)."""

PATTERN_GRAMMAR: Final = {
    "symbols": _SYMBOL_BYTE,
    "names": _NAME_BYTE,
    "wildcards": "".join(sorted(_WILDCARDS)),
    "drawn": ["_", *BOARD_SYMBOLS, "#"],
    "all": ALL,
    "spaces": SPACES,
    "pieceHelp": _PIECE_HELP,
}
"""The grammar's tables as plain JSON, for a parser in another language (the explorer
page's script reads them, so it accepts and refuses what :func:`parse_pattern` does):
``symbols`` (upper-case symbol to setup byte), ``names`` (lower-case name to byte),
``wildcards``, ``drawn`` (byte to the symbol ``str(pattern)`` writes), ``all`` (the mask of
a wildcard), ``spaces`` (what Python counts as space) and the help for an unknown square."""


class PatternError(NotationError):
    """A pattern that cannot be read; the message says where and what is expected (a
    ``ValueError`` too)."""


def _token_mask(token: str) -> int:
    """The bit mask of one token (see the module docstring); :class:`PatternError` names
    what is wrong with a bad one."""
    text = token.strip().lower()
    if not text:
        raise PatternError("an empty square: write . for anything")
    if text.startswith("!"):
        rest = token.strip()[1:]
        if not rest:
            raise PatternError(
                "'!' must stand before a square's piece or set (!B: not a bomb, [!FB]: "
                "neither flag nor bomb)"
            )
        if rest.startswith("!"):
            raise PatternError(f"{token!r}: negate a square once (!B: not a bomb)")
        return ALL & ~_token_mask(rest)
    if text in _WILDCARDS:
        return ALL
    if text.startswith("["):
        return _set_mask(token.strip())
    if "[" in text or "]" in text:
        raise PatternError(f"{token!r}: a set is written [..] around its pieces, e.g. [B3]")
    code = _SYMBOL_BYTE.get(text.upper(), _NAME_BYTE.get(text))
    if code is None:
        raise PatternError(f"unknown square {token!r}: {_PIECE_HELP}")
    return 1 << code


def _set_mask(token: str) -> int:
    """The mask of a set ``[..]``: ``[B3]``, ``[bomb,miner]``, ``[!FB]`` (none of them)."""
    text = token
    if not text.endswith("]") or text.count("]") != 1 or text.count("[") != 1:
        raise PatternError(f"{token!r}: a set opens with [ and closes with one ], e.g. [B3]")
    inner = text[1:-1].strip()
    negated = inner.startswith("!")
    if negated:
        inner = inner[1:].strip()
    if "!" in inner:
        raise PatternError(
            f"{token!r}: '!' may only open a set, and negates all of it "
            "([!FB]: neither flag nor bomb)"
        )
    if not inner:
        raise PatternError(f"{token!r}: an empty set allows nothing")
    if "," in inner or inner.lower() in _NAME_BYTE or inner == "10":
        parts = [part.strip() for part in inner.split(",")]
    else:
        parts = [part for part in inner if not part.isspace()]
    if not all(parts):
        raise PatternError(f"{token!r}: an empty name between commas")
    mask = 0
    for part in parts:
        try:
            mask |= _token_mask(part)
        except PatternError as exc:
            raise PatternError(f"in the set {token!r}: {exc}") from None
    return ALL & ~mask if negated else mask


def _row_tokens(row: str, at: int) -> list[str]:
    """A row's tokens: split on spaces, or one character each (``[..]`` sets kept whole,
    ``!`` kept with what follows); row ``at`` (from 1) is named in errors."""
    text = row.strip()
    if not text:
        raise PatternError(f"row {at} of the pattern is empty")
    # Spaces inside a set do not split it: "[bomb, miner]" is one square.
    text = re.sub(r"\[[^\[\]]*\]", lambda m: re.sub(r"\s+", "", m[0]), text)
    if re.search(r"\s", text):
        return text.split()
    tokens = []
    i = 0
    while i < len(text):
        start = i
        while i < len(text) and text[i] == "!":
            i += 1
        if i < len(text) and text[i] == "[":
            close = text.find("]", i)
            if close < 0:
                raise PatternError(f"row {at}: a set opened with [ is not closed with ]")
            i = close + 1
        elif i < len(text):
            i += 1
        tokens.append(text[start:i])
    return tokens


def _row_masks(tokens: list[str], at: int) -> list[int]:
    """The masks of one written row's tokens, errors naming the row and square."""
    masks = []
    for col, token in enumerate(tokens):
        try:
            masks.append(_token_mask(token))
        except PatternError as exc:
            raise PatternError(f"row {at}, square {col + 1}: {exc}") from None
    return masks


def _split_rows(text: str) -> list[str]:
    return [r for r in re.split(r"[/\n]", text.strip()) if r.strip()]


@dataclass(frozen=True)
class Pattern:
    """A parsed setup pattern: one bit mask per square, in setup-code order (back row first)."""

    masks: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> Pattern:
        """Read a pattern (front row first; see the module docstring).

        >>> p = Pattern.parse("........../........../........../BFB.......")
        >>> print(p)
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        B F B . . . . . . .
        """
        rows = _split_rows(text)
        if len(rows) != 4:
            raise PatternError(
                f"a pattern has 4 rows (front row first, back row last), got {len(rows)}"
                " (--anywhere matches a smaller one at every offset)"
            )
        masks = [0] * SQUARES
        for at, row in enumerate(rows):
            tokens = _row_tokens(row, at + 1)
            if len(tokens) != 10:
                raise PatternError(f"row {at + 1} of the pattern has {len(tokens)} squares, not 10")
            cells = _row_masks(tokens, at + 1)
            owner_row = 3 - at  # the first row written is the front row (row 4)
            masks[owner_row * 10 : owner_row * 10 + 10] = cells
        if not all(masks):
            raise PatternError("the pattern allows nothing on some square")
        return cls(tuple(masks))

    def __str__(self) -> str:
        lines = []
        for owner_row in (3, 2, 1, 0):
            cells = self.masks[owner_row * 10 : owner_row * 10 + 10]
            lines.append(" ".join(_mask_text(m) for m in cells))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Pattern.parse({'/'.join(str(self).replace(' ', '').splitlines())!r})"

    @property
    def constrained(self) -> tuple[int, ...]:
        """The squares (setup-code index) where the pattern is not a wildcard."""
        return tuple(i for i, m in enumerate(self.masks) if m != ALL)

    def mirrored(self) -> Pattern:
        """The left-right mirror of the pattern."""
        return Pattern(tuple(self.masks[i] for i in MIRROR_INDEX))

    def match(self, codes: Codes, *, mirror: bool = False) -> npt.NDArray[np.bool_]:
        """Which setups (rows of ``codes``) the pattern matches; with ``mirror``, those that
        match it or its mirror image.

        >>> from strat_tools.setups.identity import setup_from_letters
        >>> flag_left = setup_from_letters("MB" + "D" * 38)  # back row first: flag on its left
        >>> flag_right = setup_from_letters("D" * 8 + "BM" + "D" * 30)
        >>> codes = np.stack([flag_left, flag_right])
        >>> p = Pattern.parse("........../........../........../FB........")
        >>> p.match(codes).tolist(), p.match(codes, mirror=True).tolist()
        ([True, False], [True, True])
        """
        if not mirror:
            return match_setups([self.masks], codes)[0]
        plain, mirrored = self.match_views(codes)
        return plain | mirrored

    def match_views(self, codes: Codes) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Which setups the pattern matches as drawn, and which its mirror image matches."""
        plain, mirrored = match_setups([self.masks, self.mirrored().masks], codes)
        return plain, mirrored

    def impossible(self, variant: str) -> str | None:
        """Why the pattern can never match a ``variant`` setup, or ``None`` if it may."""
        return _impossible(self.masks, variant, lambda i: f"row {i // 10 + 1}, column {i % 10 + 1}")


def _impossible(masks: Sequence[int], variant: str, where: Callable[[int], str]) -> str | None:
    """Why squares of ``masks`` can never all hold in a ``variant`` setup (``where(i)``
    names square ``i``), or ``None``."""
    army = ARMIES.get(variant)
    if army is None:
        return None
    full = sum(army) == SQUARES
    forced = [0] * len(KIND_LABELS)
    for square, mask in enumerate(masks):
        allowed = mask & (_PIECES if full else _PIECES | 1)
        allowed &= ~(1 << OTHER)
        if not allowed:
            if full:
                return f"a {variant} army fills all 40 squares: no empty square ({where(square)})"
            return f"nothing the pattern allows at {where(square)} stands in a {variant} setup"
        if allowed & (allowed - 1) == 0 and allowed != 1:
            forced[allowed.bit_length() - 2] += 1
    for kind, count in enumerate(forced):
        if count > army[kind]:
            return (
                f"the pattern needs {count} {KIND_LABELS[kind]}s; a {variant} army has {army[kind]}"
            )
    return None


def _mask_text(mask: int) -> str:
    """One square drawn back: ``.``, a symbol, ``!X``, ``[..]`` or ``[!..]`` (the shorter)."""
    if mask == ALL:
        return "."
    allowed = [c for c in range(OTHER + 1) if mask >> c & 1]
    symbols = ("_", *BOARD_SYMBOLS, "#")
    if len(allowed) == 1:
        return symbols[allowed[0]]
    banned = [c for c in range(OTHER + 1) if not mask >> c & 1]
    if len(banned) == 1:
        return "!" + symbols[banned[0]]
    if len(banned) < len(allowed):
        return "[!" + "".join(symbols[c] for c in banned) + "]"
    return "[" + "".join(symbols[c] for c in allowed) + "]"


@dataclass(frozen=True)
class AnywherePattern:
    """A smaller pattern matched at every offset of a setup (``--anywhere``).

    Written like a full pattern, in the same orientation (the front-most row first, each
    row left to right from the owner's seat), with 1 to 4 rows of 1 to 10 squares, all rows
    as wide. It matches a setup when it fits at some offset: ``SG`` is a spy with the
    general right beside it in one row; ``B/F`` a bomb right in front of the flag;
    ``BFB`` a bomb on each side of the flag. ``grid`` holds the masks row by row as
    written.

    >>> from strat_tools.setups.identity import setup_from_letters
    >>> spy_general = setup_from_letters("D" * 12 + "CK" + "D" * 26)  # row 2: spy, general
    >>> general_spy = setup_from_letters("D" * 12 + "KC" + "D" * 26)
    >>> p = AnywherePattern.parse("SG")
    >>> codes = np.stack([spy_general, general_spy])
    >>> p.match(codes).tolist(), p.match(codes, mirror=True).tolist()
    ([True, False], [True, True])
    >>> print(AnywherePattern.parse("[!FB] F / B B"))
    [!BF] F
    B B
    """

    grid: tuple[tuple[int, ...], ...]

    @classmethod
    def parse(cls, text: str) -> AnywherePattern:
        """Read a smaller pattern (front row first, rows split by ``/`` or newlines)."""
        rows = _split_rows(text)
        if not rows:
            raise PatternError(
                "an empty pattern: write its squares, e.g. SG (a spy, the general beside it)"
            )
        if len(rows) > 4:
            raise PatternError(f"a pattern has at most 4 rows, got {len(rows)}")
        tokens = [_row_tokens(row, at + 1) for at, row in enumerate(rows)]
        widths = sorted({len(row) for row in tokens})
        if len(widths) > 1:
            raise PatternError(
                "the rows of a pattern are equally wide; got rows of "
                + " and ".join(str(w) for w in widths)
                + " squares (pad with .)"
            )
        if widths[0] > 10:
            raise PatternError(f"a row has at most 10 squares, got {widths[0]}")
        grid = tuple(tuple(_row_masks(row, at + 1)) for at, row in enumerate(tokens))
        if not all(all(row) for row in grid):
            raise PatternError("the pattern allows nothing on some square")
        return cls(grid)

    @property
    def height(self) -> int:
        """Rows of the pattern."""
        return len(self.grid)

    @property
    def width(self) -> int:
        """Squares per row."""
        return len(self.grid[0])

    def __str__(self) -> str:
        return "\n".join(" ".join(_mask_text(m) for m in row) for row in self.grid)

    def __repr__(self) -> str:
        return f"AnywherePattern.parse({' / '.join(str(self).splitlines())!r})"

    def mirrored(self) -> AnywherePattern:
        """The left-right mirror of the pattern (each row reversed)."""
        return AnywherePattern(tuple(row[::-1] for row in self.grid))

    def match(self, codes: Codes, *, mirror: bool = False) -> npt.NDArray[np.bool_]:
        """Which setups hold the pattern at some offset; with ``mirror``, it or its mirror."""
        if not mirror:
            return match_anywhere([self.grid], codes)[0]
        plain, mirrored = self.match_views(codes)
        return plain | mirrored

    def match_views(self, codes: Codes) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Which setups hold the pattern as drawn, and which its mirror image."""
        plain, mirrored = match_anywhere([self.grid, self.mirrored().grid], codes)
        return plain, mirrored

    def impossible(self, variant: str) -> str | None:
        """Why the pattern can never match a ``variant`` setup, or ``None`` if it may."""
        width = self.width
        masks = [m for row in self.grid for m in row]
        return _impossible(
            masks, variant, lambda i: f"row {i // width + 1}, square {i % width + 1} of the pattern"
        )


SetupPattern = Pattern | AnywherePattern
"""A pattern of either kind: the whole setup, or a smaller one matched anywhere."""


def parse_pattern(text: str, *, anywhere: bool = False) -> SetupPattern:
    """Read a pattern: a whole-setup :class:`Pattern`, or with ``anywhere`` an
    :class:`AnywherePattern`. The one parser of the search syntax (``search``, the game
    filters and the explorer page's ``#pattern=``); a bad pattern is a
    :class:`PatternError` naming the problem.

    >>> parse_pattern("SG", anywhere=True)
    AnywherePattern.parse('S 9')
    >>> parse_pattern("[!F!B]", anywhere=True)
    Traceback (most recent call last):
    ...
    strat_tools.setups.patterns.PatternError: row 1, square 1: '[!F!B]': '!' may only open a set, \
and negates all of it ([!FB]: neither flag nor bomb)
    """
    return AnywherePattern.parse(text) if anywhere else Pattern.parse(text)
