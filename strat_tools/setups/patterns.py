"""Setup patterns: a 4x10 picture of what a setup must hold, matched against many setups.

A pattern is written the way its owner sees the setup from their seat, as
:func:`strat_tools.setups.identity.draw_setup` draws one: **the front row (row 4) first, the back
row last**, each row left to right from the owner's seat. Rows are separated by newlines or
``/``; a row is either 10 characters or 10 tokens separated by spaces. A token is:

- ``.`` (or ``?``, ``*``): anything, an empty square too;
- a piece: ``B`` bomb, ``F`` flag, ``S`` (or ``1``) spy, ``2``..``9``, ``X`` (or ``10``) the
  marshal, or its name (``bomb``, ``scout``, ``marshal`` ...; names need the spaced form);
- ``_``: an empty square (barrage, duell and ultimate lightning have them);
- a set: ``[B3]`` (one of the characters) or ``[bomb,miner]``;
- ``!`` before any of these: anything but that.

Case does not matter. ``str(pattern)`` draws it back in the same form (sets as ``[..]``).
"Empty is impossible" is kept honest: in a variant whose army fills all 40 squares
(classic), a pattern that asks for an empty square, or for more pieces of a kind than the
army holds, can match nothing, and :meth:`Pattern.impossible` says why.

Matching is vectorised over an ``[n, 40]`` uint8 array of setup codes
(:mod:`strat_tools.setups.identity`): one bit mask per square (bit ``c`` set when byte ``c`` is
allowed there), tested column by column on the squares the pattern constrains, so a million
setups take a few milliseconds per constrained square.

This module reads no files and counts no wins: see :mod:`strat_tools.stats.search`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.pieces import ARMIES, KIND_LABELS
from strat_tools.setups.identity import BOARD_SYMBOLS, MIRROR_INDEX, OTHER, SQUARES, Codes

ALL: Final = (1 << (OTHER + 1)) - 1
"""The mask of a wildcard: every byte 0..13 allowed."""
_PIECES: Final = ALL & ~1 & ~(1 << OTHER)

_SYMBOL_BYTE: Final = {symbol: kind + 1 for kind, symbol in enumerate(BOARD_SYMBOLS)} | {
    "1": 2,
    "10": 11,
    "_": 0,
}
_NAME_BYTE: Final = {name: kind + 1 for kind, name in enumerate(KIND_LABELS)} | {"empty": 0}
_WILDCARDS: Final = frozenset(".?*")


class PatternError(ValueError):
    """A pattern that cannot be read; the message says where and what is expected."""


def _token_mask(token: str) -> int:
    """The bit mask of one token (see the module docstring)."""
    text = token.strip().lower()
    if text.startswith("!"):
        return ALL & ~_token_mask(text[1:])
    if text in _WILDCARDS:
        return ALL
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1]
        parts = inner.split(",") if "," in inner or inner in _NAME_BYTE else list(inner)
        if not parts or not inner:
            raise PatternError("an empty set [] allows nothing")
        mask = 0
        for part in parts:
            mask |= _token_mask(part)
        return mask
    code = _SYMBOL_BYTE.get(text.upper(), _NAME_BYTE.get(text))
    if code is None:
        raise PatternError(
            f"unknown square {token!r}: use . for anything, _ for empty, "
            f"{' '.join(BOARD_SYMBOLS)} (X the marshal, S the spy), a name, [..] or !"
        )
    return 1 << code


def _row_tokens(row: str) -> list[str]:
    """A row's tokens: split on spaces, or one character each (``[..]`` sets kept whole)."""
    if " " in row.strip() or "\t" in row.strip():
        return row.split()
    return re.findall(r"!?\[[^\]]*\]|!?.", row.strip())


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
        rows = [r for r in re.split(r"[/\n]", text.strip()) if r.strip()]
        if len(rows) != 4:
            raise PatternError(
                f"a pattern has 4 rows (front row first, back row last), got {len(rows)}"
            )
        masks = [0] * SQUARES
        for at, row in enumerate(rows):
            tokens = _row_tokens(row)
            if len(tokens) != 10:
                raise PatternError(f"row {at + 1} of the pattern has {len(tokens)} squares, not 10")
            owner_row = 3 - at  # the first row written is the front row (row 4)
            for col, token in enumerate(tokens):
                masks[owner_row * 10 + col] = _token_mask(token)
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
        found = _match_masks(self.masks, codes)
        if mirror:
            found |= _match_masks(self.mirrored().masks, codes)
        return found

    def impossible(self, variant: str) -> str | None:
        """Why the pattern can never match a ``variant`` setup, or ``None`` if it may."""
        army = ARMIES.get(variant)
        if army is None:
            return None
        full = sum(army) == SQUARES
        forced = [0] * len(KIND_LABELS)
        for square, mask in enumerate(self.masks):
            allowed = mask & (_PIECES if full else _PIECES | 1)
            allowed &= ~(1 << OTHER)
            if not allowed:
                where = f"row {square // 10 + 1}, column {square % 10 + 1}"
                if full:
                    return f"a {variant} army fills all 40 squares: no empty square ({where})"
                return f"nothing the pattern allows at {where} stands in a {variant} setup"
            if allowed & (allowed - 1) == 0 and allowed != 1:
                forced[allowed.bit_length() - 2] += 1
        for kind, count in enumerate(forced):
            if count > army[kind]:
                return (
                    f"the pattern needs {count} {KIND_LABELS[kind]}s; "
                    f"a {variant} army has {army[kind]}"
                )
        return None


def _mask_text(mask: int) -> str:
    if mask == ALL:
        return "."
    allowed = [c for c in range(OTHER + 1) if mask >> c & 1]
    symbols = ("_", *BOARD_SYMBOLS, "#")
    if len(allowed) == 1:
        return symbols[allowed[0]]
    banned = [c for c in range(OTHER + 1) if not mask >> c & 1]
    if len(banned) == 1:
        return "!" + symbols[banned[0]]
    return "[" + "".join(symbols[c] for c in allowed) + "]"


def _match_masks(masks: tuple[int, ...], codes: Codes) -> npt.NDArray[np.bool_]:
    """Rows of ``codes`` whose every square's byte is allowed by that square's mask.

    Square by square over the constrained squares, each a lookup of the column's bytes in
    that square's allowed-bytes table; once few rows are left, only those are looked at.
    """
    data = np.asarray(codes, dtype=np.uint8)
    allowed = np.array([[m >> c & 1 for c in range(256)] for m in masks], dtype=bool)
    found = np.ones(len(data), dtype=bool)
    rows: npt.NDArray[np.intp] | None = None
    for square in (i for i, m in enumerate(masks) if m != ALL):
        if rows is None:
            found &= allowed[square][data[:, square]]
            if np.count_nonzero(found) * 8 < len(found):
                rows = np.flatnonzero(found)
        else:
            rows = rows[allowed[square][data[rows, square]]]
    if rows is not None:
        found = np.zeros(len(data), dtype=bool)
        found[rows] = True
    return found
