"""The fast path: decode a Gravon file that matches the archive's exact byte layout.

Every real archive file is written the same way, byte for byte: the same XML declaration,
the same indentation, the same elements and attributes in the same order, only letters,
digits, ``:`` and ``_`` inside attribute values, no DOCTYPE, no entity or character
references, no comments, no CDATA. :func:`scan` proves that a file is exactly that, with one
compiled regex that must match the *whole* file (``fullmatch``: no byte goes unexplained),
and only then decodes it with two ``findall`` calls over the move block.

Anything else (another layout, other characters, a bad square, ids not 1..N, any hostile
input) makes :func:`scan` return ``None`` and the caller uses the strict lxml parser. Both
paths must give identical records; ``tests/test_gravon.py`` checks it on every real game.

This module decodes only; building the :class:`GameRecord` and its diagnostics is
``gravon_xml.py``'s job, so the two paths share that code.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

import numpy as np

_SQUARE: Final = rb"[ABCDEFGHIK][1-9:]"
_RESCUE_SQUARE: Final = rb"[A-K][1-9:]"  # column J appears in real rescue moves: repaired later
_PLAIN_MOVE: Final = (
    rb'  <move id="\d{1,5}" source="' + _SQUARE + rb'" target="' + _SQUARE + rb'"/>\n'
)
_RESCUE_MOVE: Final = (
    rb'  <move id="\d{1,5}" source="'
    + _RESCUE_SQUARE
    + rb'" target="'
    + _RESCUE_SQUARE
    + rb'">   <rescue rescuefield="'
    + _SQUARE
    + rb'" rescuepiece="\d{1,2}"/>\n  </move>\n'
)

_DECLARATION_END: Final = len(b'<?xml version="1.0" encoding="UTF-8"?>\n')
_SYNTHETIC_LINE: Final = b"<?strat-tools synthetic?>\n"
"""The mark of a generated game (``records.SYNTHETIC_MARK``), optional after the declaration."""

LAYOUT: Final = re.compile(
    rb'<\?xml version="1\.0" encoding="UTF-8"\?>\n'
    rb"(?:<\?strat-tools synthetic\?>\n)?"
    rb"<stratego>\n"
    rb' <game type="(classic|barrage|duell|ultimate lightning|classicfree)">\n'
    rb"  \n"
    rb'(?:  <field content="([A-Y_]{100})"/>\n)?'
    rb"((?:" + _PLAIN_MOVE + rb"|" + _RESCUE_MOVE + rb")*)"
    rb'  <player id="1">([A-Za-z0-9 ]{0,64})</player>\n'
    rb'  <player id="2">([A-Za-z0-9 ]{0,64})</player>\n'
    rb'  <result type="(\d{1,3})" winner="(\d{1,3})"/>\n'
    rb" </game>\n"
    rb"</stratego>"
)
"""The archive's layout. Group 3 is the block of moves."""

_RESCUE_MOVES: Final = re.compile(
    rb'<move id="(\d+)" source="(..)" target="(..)"'
    rb'(/>|>   <rescue rescuefield="(..)" rescuepiece="(\d+)"/>)'
)

_COLUMNS: Final = b"ABCDEFGHIK"
SQUARE_CODES: Final = {
    bytes([col, row]): b"123456789:".index(row) * 10 + c
    for c, col in enumerate(_COLUMNS)
    for row in b"123456789:"
}
"""Two-byte square name (``b'K:'`` is K10) → square index."""
MAX_MOVES: Final = 20000
"""Longer games (none in the archive) take the strict path."""

_ID_BYTES: Final = [str(i).encode() for i in range(1, MAX_MOVES + 1)]
_ID_LENGTHS: Final = np.array([len(i) for i in _ID_BYTES], dtype=np.int64)
_ID_DIGITS: Final = b"".join(_ID_BYTES)
_DIGITS_BEFORE: Final = np.concatenate([[0], np.cumsum(_ID_LENGTHS)])
_DIGIT_LINE: Final = np.repeat(np.arange(MAX_MOVES), _ID_LENGTHS)
_DIGIT_OFFSET: Final = np.arange(len(_ID_DIGITS)) - np.repeat(_DIGITS_BEFORE[:-1], _ID_LENGTHS)
_COLUMN_VALUE: Final = np.zeros(256, dtype=np.int64)
_ROW_VALUE: Final = np.zeros(256, dtype=np.int64)
for _i, _c in enumerate(b"ABCDEFGHIK"):
    _COLUMN_VALUE[_c] = _i
for _i, _c in enumerate(b"123456789:"):
    _ROW_VALUE[_c] = _i * 10
# A plain move line is b'  <move id="' + id + b'" source="XX" target="YY"/>' + b'\n'.
_LINE_FIXED: Final = len(b'  <move id="" source="XX" target="YY"/>')
_ID_AT: Final = len(b'  <move id="')
_SOURCE_AT: Final = -len(b'XX" target="YY"/>')  # counted back from the line's newline
_TARGET_AT: Final = -len(b'YY"/>')


class FastRescue(NamedTuple):
    """A rescue move as written: the raw move squares (maybe with column J) and the rescue."""

    ply: int
    source: str
    target: str
    field: str
    piece: str


class FastGame(NamedTuple):
    """What :func:`scan` decoded from a file in the archive's layout."""

    variant: str
    field: str | None
    sources: list[int]
    targets: list[int]
    lines: list[int]
    rescues: list[FastRescue]
    players: tuple[str, str]
    result_type: int
    winner: int
    game_line: int
    field_line: int | None
    result_line: int
    synthetic: bool = False
    """Whether the file carries the generator's mark (see ``records.SYNTHETIC_MARK``)."""


def _fix_j(name: bytes) -> int:
    return SQUARE_CODES[b"K" + name[1:] if name[:1] == b"J" else name]


_Moves = tuple[list[int], list[int], list[int], list[FastRescue]]


def _rescue_moves(block: bytes, first_line: int) -> _Moves | None:
    """Decode a move block that holds rescues (ultimate lightning; rare, so per move)."""
    sources: list[int] = []
    targets: list[int] = []
    lines: list[int] = []
    rescues: list[FastRescue] = []
    line = first_line
    for ply, found in enumerate(_RESCUE_MOVES.finditer(block), 1):
        mid, src, tgt, tail, field, piece = found.groups()
        if mid != str(ply).encode():
            return None
        sources.append(_fix_j(src))
        targets.append(_fix_j(tgt))
        lines.append(line)
        line += 1
        if tail != b"/>":
            line += 1
            rescues.append(
                FastRescue(ply, src.decode(), tgt.decode(), field.decode(), piece.decode())
            )
    return sources, targets, lines, rescues


def _plain_moves(data: bytes, start: int, end: int) -> tuple[list[int], list[int]] | None:
    """Squares of a block of plain move lines, vectorised; ``None`` if ids are not 1..N.

    The layout regex has proven every line's shape, so each square sits at a fixed distance
    before its line's newline, and each id between fixed offsets of its line.
    """
    if start == end:
        return [], []
    block = np.frombuffer(data, dtype=np.uint8, count=end - start, offset=start)
    ends = np.flatnonzero(block == 10)
    n = len(ends)
    if n > MAX_MOVES:
        return None
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    if not np.array_equal(ends - starts - _LINE_FIXED, _ID_LENGTHS[:n]):
        return None  # ids not 1..N (by their lengths): the strict path reports them
    digits = int(_DIGITS_BEFORE[n])
    at = starts[_DIGIT_LINE[:digits]] + _ID_AT + _DIGIT_OFFSET[:digits]
    if block[at].tobytes() != _ID_DIGITS[:digits]:
        return None  # ids not 1..N
    sources = _ROW_VALUE[block[ends + _SOURCE_AT + 1]] + _COLUMN_VALUE[block[ends + _SOURCE_AT]]
    targets = _ROW_VALUE[block[ends + _TARGET_AT + 1]] + _COLUMN_VALUE[block[ends + _TARGET_AT]]
    return sources.tolist(), targets.tolist()


def scan(data: bytes) -> FastGame | None:
    """Decode ``data`` if it is byte for byte in the archive's layout, else ``None``."""
    found = LAYOUT.fullmatch(data)
    if found is None:
        return None
    start, end = found.span(3)
    first_line = data.count(b"\n", 0, start) + 1
    if data.find(b"<rescue", start, end) >= 0:
        moves = _rescue_moves(data[start:end], first_line)
        if moves is None:
            return None
        sources, targets, lines, rescues = moves
    else:
        plain = _plain_moves(data, start, end)
        if plain is None:
            return None
        sources, targets = plain
        lines = list(range(first_line, first_line + len(sources)))
        rescues = []
    field = found.group(2)
    synthetic = data.startswith(_SYNTHETIC_LINE, _DECLARATION_END)
    return FastGame(
        variant=found.group(1).decode(),
        field=field.decode() if field is not None else None,
        sources=sources,
        targets=targets,
        lines=lines,
        rescues=rescues,
        players=(found.group(4).decode(), found.group(5).decode()),
        result_type=int(found.group(6)),
        winner=int(found.group(7)),
        game_line=3 + synthetic,
        field_line=5 + synthetic if field is not None else None,
        result_line=first_line + len(lines) + len(rescues) + 2,  # after the two player lines
        synthetic=synthetic,
    )
