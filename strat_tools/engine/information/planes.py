"""Compact observation boards (one byte a square) and the dense planes built from them.

An **observation board** is 100 bytes: the position before a ply as the side to move sees
it, *oriented from its own back row*. Byte ``v`` is the square ``view_square(sq, side)``
(:func:`strat_tools.core.board.view_square`): red's squares as they are, blue's turned by 180
degrees, so for either side byte 0 is its back row's left corner and byte 99 the far
right corner of the opponent's back row::

    byte:   90 91 ... 99      <- the opponent's back row (red: row 10 A..K; blue: row 1 K..A)
            ...
            40 41 ~~ ~~ 44 45 ~~ ~~ 48 49
            ...
             0  1 ...  9      <- the mover's own back row, left to right from its seat
                                  (red: A1..K1; blue: K10..A10)

Each byte (:data:`CODE_VERSION` 1):

- bits 0-3: the piece's kind + 1 (1 bomb, 2 spy, 3 scout ... 11 marshal, 12 flag), 0 an
  empty square, 13 a lake. For an opponent piece this is the **hidden truth**: the planes
  show it only where the mover knows it. In a **board view** (:func:`board_views`, the
  truth-free board: what the mover could know, nothing more) an opponent piece the mover
  has not identified has :data:`UNKNOWN_KIND` (14) here instead, and keeps only its
  "moved" bit;
- bit 4 (:data:`OPPONENT`): the piece is the opponent's (else the mover's own);
- bit 5 (:data:`KNOWN`), bit 6 (:data:`MOVED`), bit 7 (:data:`REVEALED`): what the *other*
  side knows of this piece (for the mover's pieces: what the opponent knows of them; for
  the opponent's: what the mover knows): its rank is known (from a battle, a rescue, or a
  move only a scout can make), it has been seen to move, its rank was shown in a battle or
  a rescue. These are the knowledge model's flags (``engine/information/knowledge.py``).

:func:`to_planes` turns a stack of boards into ``[plies, channels, 10, 10]`` arrays, with
the channels of :data:`CHANNELS` (version :data:`CHANNELS_VERSION`); row 0 of a plane is
the mover's back row. It is one table lookup per square, done in cache-sized chunks.

This module is NumPy only: it knows no records and replays nothing.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, KIND_LABELS, LAKE, MODERN_LABELS
from strat_tools.engine.information.knowledge import KNOWN as KNOWLEDGE_KNOWN
from strat_tools.engine.information.knowledge import MOVED as KNOWLEDGE_MOVED
from strat_tools.engine.information.knowledge import REVEALED as KNOWLEDGE_REVEALED
from strat_tools.engine.information.knowledge import ROW_LAYOUT, Rows
from strat_tools.engine.information.mover_view import square_pair_tables, view_boards, view_plies

CODE_VERSION: Final = 1
"""Version of the byte layout of an observation board."""
KIND_BITS: Final = 0x0F
LAKE_KIND: Final = 13
"""Bits 0-3 of a lake square."""
UNKNOWN_KIND: Final = 14
"""Bits 0-3, in a board view (:func:`board_views`), of an opponent piece the mover has not
identified: its rank is not there."""
OPPONENT: Final = 0x10
KNOWN: Final = 0x20
MOVED: Final = 0x40
REVEALED: Final = 0x80

CHANNELS_VERSION: Final = 1
"""Version of :data:`CHANNELS`; a change of meaning or order gets a new number."""
CHANNELS: Final = (
    *(f"own_{label}" for label in KIND_LABELS),
    *(f"opponent_{label}" for label in KIND_LABELS),
    "opponent_unknown_unmoved",
    "opponent_unknown_moved",
    "opponent_scout_by_move",
    "lake",
    "empty",
    "own_known_to_opponent",
    "own_moved",
    "own_revealed",
)
"""The planes of :func:`to_planes`, in order:

- 0-11 ``own_<kind>``: the mover's pieces by kind (bomb, spy, scout ... marshal, flag);
- 12-23 ``opponent_<kind>``: opponent pieces the mover has identified, by kind;
- 24 ``opponent_unknown_unmoved``, 25 ``opponent_unknown_moved``: the others, never seen
  moving (may be bomb or flag) or seen moving;
- 26 ``opponent_scout_by_move``: opponent scouts identified by a long move, never in a
  battle (also in ``opponent_scout``);
- 27 ``lake``, 28 ``empty``;
- 29 ``own_known_to_opponent``, 30 ``own_moved``, 31 ``own_revealed``: what the opponent
  knows of the mover's pieces.
"""


def _plane_table() -> npt.NDArray[np.bool_]:
    """``[byte, channel]``: whether a square holding ``byte`` is set in ``channel``."""
    table = np.zeros((256, len(CHANNELS)), dtype=np.bool_)
    index = {name: i for i, name in enumerate(CHANNELS)}
    for byte in range(256):
        kind1 = byte & KIND_BITS
        row = table[byte]
        if kind1 == 0:
            row[index["empty"]] = True
            continue
        if kind1 == LAKE_KIND:
            row[index["lake"]] = True
            continue
        known, moved, revealed = bool(byte & KNOWN), bool(byte & MOVED), bool(byte & REVEALED)
        if kind1 == UNKNOWN_KIND and byte & OPPONENT and not known:  # a board view's
            row[index["opponent_unknown_moved" if moved else "opponent_unknown_unmoved"]] = True
            continue
        if kind1 > 12:
            continue  # not a code an observation board holds
        label = KIND_LABELS[kind1 - 1]
        if byte & OPPONENT:
            if known:
                row[index[f"opponent_{label}"]] = True
                if label == "scout" and not revealed:
                    row[index["opponent_scout_by_move"]] = True
            else:
                row[index["opponent_unknown_moved" if moved else "opponent_unknown_unmoved"]] = True
        else:
            row[index[f"own_{label}"]] = True
            row[index["own_known_to_opponent"]] = known
            row[index["own_moved"]] = moved
            row[index["own_revealed"]] = revealed
    return table


PLANE_TABLE: Final = _plane_table()
"""``PLANE_TABLE[byte, channel]``: the one definition of what each channel shows."""
_PLANE_ROWS: Final = np.ascontiguousarray(PLANE_TABLE).view(np.dtype((np.void, len(CHANNELS))))[
    :, 0
]

_KIND1_OF_CODE: Final = np.array(
    [0 if c == 0 else LAKE_KIND if c == LAKE else CODE_KIND[c] + 1 for c in range(26)],
    dtype=np.uint8,
)
_SIDE_OF_CODE: Final = np.array(CODE_SIDE, dtype=np.uint8)
_BITS_OF_FLAGS: Final = np.array(
    [
        (KNOWN if f & KNOWLEDGE_KNOWN else 0)
        | (MOVED if f & KNOWLEDGE_MOVED else 0)
        | (REVEALED if f & KNOWLEDGE_REVEALED else 0)
        for f in range(256)
    ],
    dtype=np.uint8,
)

_BYTE_OF_CODE: Final = np.zeros((2, 256), np.uint8)
"""Per side to move (index side - 1) and board code: the kind and opponent bits."""
_BYTE_OF_CODE[:, :26] = _KIND1_OF_CODE
_BYTE_OF_CODE[0, :26] |= np.where(_SIDE_OF_CODE == 2, OPPONENT, 0).astype(np.uint8)
_BYTE_OF_CODE[1, :26] |= np.where(_SIDE_OF_CODE == 1, OPPONENT, 0).astype(np.uint8)


_Bytes = bytes | bytearray | memoryview
"""A row of bytes as the knowledge state keeps it (its board and flags are views of one
row)."""


def encode_boards(
    boards: npt.NDArray[np.uint8], flags: npt.NDArray[np.uint8], sides: npt.ArrayLike
) -> npt.NDArray[np.uint8]:
    """Observation boards ``[n, 100]`` from the knowledge model's ``boards`` and ``flags``
    rows (absolute squares, board codes 0..25) and the side to move of each row (1 red,
    2 blue).

    >>> from strat_tools.core.pieces import letter_code
    >>> board = np.zeros((1, 100), np.uint8); board[0, 0], board[0, 99] = 12, 24
    >>> encode_boards(board, np.zeros_like(board), [2])[0, [0, 99]].tolist()  # blue to move
    [12, 28]
    """
    return _encoded(_TRUTH_OF_PAIR, boards, flags, sides)


def encode_views(
    boards: npt.NDArray[np.uint8], flags: npt.NDArray[np.uint8], sides: npt.ArrayLike
) -> npt.NDArray[np.uint8]:
    """The board views of :func:`encode_boards`' boards (``board_views(encode_boards(...))``,
    from the same tables composed: one lookup a square): the truth-free boards of a
    game's plies at once.

    >>> board = np.zeros((2, 100), np.uint8); board[:, 99] = 24  # blue's flag, never seen
    >>> encode_views(board, np.zeros_like(board), [1, 2])[:, [0, 99]].tolist()
    [[0, 30], [12, 0]]
    """
    return _encoded(_VIEW_OF_PAIR, boards, flags, sides)


def game_views(rows: Rows, plies: int) -> npt.NDArray[np.uint8]:
    """The board views (:func:`encode_views`) of a game's first ``plies`` positions from its
    setup, red to move first and then the sides in turn (no sides to pass or read), from
    the knowledge pass's own bytes (:func:`~strat_tools.engine.information.knowledge.
    knowledge_rows`): every ply's truth-free board view at once, what :meth:`Replay.views
    <strat_tools.engine.replays.replay.Replay.views>` returns.

    The pair bytes of every row are made in one go over the rows' words (the counts
    between them made too, and dropped: one contiguous pass is cheaper than a strided one),
    then each side's rows are looked up two squares at a time (``view_plies``).

    >>> from strat_tools.engine.information.knowledge import ROW_LAYOUT, Rows
    >>> rows = Rows(); board = bytearray(100); board[99] = 24  # blue's flag, never seen
    >>> rows.rows += (board + bytes(ROW_LAYOUT[0] - 100)) * 2
    >>> game_views(rows, 2)[:, [0, 99]].tolist()
    [[0, 30], [12, 0]]
    """
    if not 0 <= plies <= rows.count:
        raise ValueError(f"the views of {plies} plies need as many rows, not {rows.count}")
    if not plies:
        return np.empty((0, 100), np.uint8)
    width, board_at, flags_at = (part // 4 for part in ROW_LAYOUT)  # in words
    words = np.frombuffer(rows.rows, np.uint32)
    span = (plies - 1) * width + 25  # from the first row's board to the last row's end
    pairs = np.empty((plies, width), np.uint32)
    head = pairs.reshape(-1)[:span]
    _pair_words(words[board_at : board_at + span], words[flags_at : flags_at + span], head)
    return view_plies(_VIEW_OF_SQUARE_PAIRS, pairs[:, :25].view(np.uint8))


def _encoded(
    tables: npt.NDArray[np.uint8],
    boards: npt.NDArray[np.uint8],
    flags: npt.NDArray[np.uint8],
    sides: npt.ArrayLike,
) -> npt.NDArray[np.uint8]:
    """``tables[side - 1][pair]`` per square and row, each row in its side's view, where a
    square's *pair* byte is its board code OR its knowledge bits as an observation board
    holds them (bits 5-7: codes fit bits 0-4, so the two share one byte)."""
    side = np.asarray(sides, dtype=np.uint8).reshape(-1)
    if len(side) == 1:  # one position (a game loop's): bytes, without NumPy's per-call costs
        board = np.ascontiguousarray(boards, dtype=np.uint8).tobytes()
        bits = np.ascontiguousarray(flags, dtype=np.uint8).tobytes().translate(_FLAG_BYTES)
        which = int(side[0])
        found = _pair_row(board, bits, which, tables[which - 1].tobytes())
        return np.frombuffer(bytearray(found), np.uint8).reshape(1, 100)
    return view_boards(tables, _pairs(boards, flags), side)


def _pairs(boards: npt.NDArray[np.uint8], flags: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The pair bytes of :func:`_encoded` of many rows (:func:`_pair_words`)."""
    pairs = np.empty(boards.size // 4, np.uint32)
    _pair_words(
        np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1).view(np.uint32),
        np.ascontiguousarray(flags, dtype=np.uint8).reshape(-1).view(np.uint32),
        pairs,
    )
    return pairs.view(np.uint8).reshape(-1, 100)


def _pair_words(
    boards: npt.NDArray[np.uint32], flags: npt.NDArray[np.uint32], out: npt.NDArray[np.uint32]
) -> None:
    """Pair bytes four squares at a time (``uint32`` words) into ``out``: the knowledge bits
    moved into place by one multiplication, OR-ed with the codes; the same bits as
    :data:`_FLAG_BYTES` gives one square. ``flags & 0x0B`` (MOVED 1, REVEALED 2, KNOWN 8)
    times 68 is ``<< 2`` plus ``<< 6``, bits 2, 3, 5 and 6, 7, 9 of each byte (no carry:
    none shared): KNOWN lands on 0x20, MOVED on 0x40, REVEALED on 0x80, and the mask drops
    the rest (bit 9 is the next byte's bit 1; the top byte's goes past the word)."""
    np.bitwise_and(flags, _SPREAD_BITS, out=out)
    out *= _SPREAD
    out &= _PAIR_BITS
    out |= boards


# 0-d arrays, not NumPy scalars: a ufunc takes them as they are (a scalar is converted on
# each call, a third of a small array's operation).
_SPREAD_BITS: Final = np.array(
    0x01010101 * (KNOWLEDGE_MOVED | KNOWLEDGE_REVEALED | KNOWLEDGE_KNOWN), np.uint32
)
_SPREAD: Final = np.array(4 + 64, np.uint32)
_PAIR_BITS: Final = np.array(0x01010101 * (KNOWN | MOVED | REVEALED), np.uint32)


def _pair_row(board: _Bytes, bits: bytes, side: int, table: bytes) -> bytes:
    """One row of :func:`_encoded`, as bytes: the pair bytes OR-ed as one integer (written
    back in the other byte order for blue: its turned row), looked up in ``table`` (the
    side's) by ``bytes.translate``."""
    pair = int.from_bytes(board, "little") | int.from_bytes(bits, "little")
    return pair.to_bytes(100, "big" if side == 2 else "little").translate(table)


def view_row(board: _Bytes, flags: _Bytes, side: int) -> bytes:
    """One position's board view as 100 bytes (:func:`encode_views` of one row, without
    NumPy): what a game loop's ``observe()`` returns, from the knowledge state's board and
    flags rows and the side to move (1 red, 2 blue)."""
    return _pair_row(board, bytes(flags).translate(_FLAG_BYTES), side, _VIEW_ROWS[side - 1])


_FLAG_BYTES: Final = _BITS_OF_FLAGS.tobytes()


def _view_of_byte() -> npt.NDArray[np.uint8]:
    """``[byte]``: the byte of a board view for each byte of an observation board."""
    codes = np.arange(256, dtype=np.uint8)
    kind1 = codes & KIND_BITS
    hidden = (kind1 >= 1) & (kind1 <= 12) & ((codes & OPPONENT) != 0) & ((codes & KNOWN) == 0)
    view = np.where(hidden, (codes & ~np.uint8(KIND_BITS | REVEALED)) | UNKNOWN_KIND, codes)
    return view.astype(np.uint8)


VIEW_OF_BYTE: Final = _view_of_byte()
"""``VIEW_OF_BYTE[byte]``: the one definition of what a board view keeps of a square."""


def _pair_tables(of_byte: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """``[side - 1, pair]``: ``of_byte`` of the observation byte of a square whose pair
    byte (:func:`_encoded`) is ``pair``: the kind and opponent bits of its code, and its
    knowledge bits as they are."""
    pair = np.arange(256)
    byte = _BYTE_OF_CODE[:, pair & 0x1F] | (pair & (KNOWN | MOVED | REVEALED))
    return np.ascontiguousarray(of_byte[byte], dtype=np.uint8)


_TRUTH_OF_PAIR: Final = _pair_tables(np.arange(256, dtype=np.uint8))
"""Per side to move and pair byte: the observation byte (with the hidden truth)."""
_VIEW_OF_PAIR: Final = _pair_tables(VIEW_OF_BYTE)
"""Per side to move and pair byte: the board view's byte."""
_VIEW_ROWS: Final = (_VIEW_OF_PAIR[0].tobytes(), _VIEW_OF_PAIR[1].tobytes())
""":data:`_VIEW_OF_PAIR` as ``bytes.translate`` tables, per side to move."""
_VIEW_OF_SQUARE_PAIRS: Final = square_pair_tables(_VIEW_OF_PAIR)
""":data:`_VIEW_OF_PAIR` two squares at a time (256 KiB), for :func:`game_views`."""


def board_views(boards: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """The truth-free **board views** of observation boards (any shape of bytes): every
    opponent piece the mover has not identified becomes :data:`UNKNOWN_KIND`, keeping only
    whether it has moved (and the opponent bit); everything else as it is. What a model of
    the mover may read; :func:`to_planes` gives a view the same planes as its board.

    >>> board = np.array([[0x10 | 12, 0x10 | 0x40 | 11, 0x10 | 0x20 | 11] + [0] * 97], np.uint8)
    >>> board_views(board)[0, :3].tolist()  # unseen flag, moved marshal, known marshal
    [30, 94, 59]
    """
    return np.take(VIEW_OF_BYTE, np.asarray(boards, dtype=np.uint8))


def to_planes(
    boards: npt.ArrayLike, *, chunk: int = 1024, contiguous: bool = False
) -> npt.NDArray[np.bool_]:
    """Dense planes ``[plies, len(CHANNELS), 10, 10]`` (bool) of observation boards
    ``[plies, 100]`` (uint8); plane row 0 is the mover's back row, column 0 its left.

    The result is a strided view (channels are the fastest axis in memory);
    ``contiguous=True`` copies it to C order. Work goes ``chunk`` boards at a time, so
    each chunk's output stays in cache.

    >>> planes = to_planes(np.full((2, 100), 0, np.uint8))
    >>> planes.shape, bool(planes[:, CHANNELS.index("empty")].all())
    ((2, 32, 10, 10), True)
    """
    codes = np.asarray(boards, dtype=np.uint8)
    if codes.ndim != 2 or codes.shape[1] != 100:
        raise ValueError(f"observation boards are [plies, 100], got {codes.shape}")
    n = codes.shape[0]
    if n <= chunk:
        rows = np.take(_PLANE_ROWS, codes)
    else:
        rows = np.empty((n, 100), dtype=_PLANE_ROWS.dtype)
        for start in range(0, n, chunk):
            rows[start : start + chunk] = np.take(_PLANE_ROWS, codes[start : start + chunk])
    dense = rows.view(np.bool_).reshape(n, 100, len(CHANNELS))
    planes = dense.transpose(0, 2, 1).reshape(n, len(CHANNELS), 10, 10)
    return np.ascontiguousarray(planes) if contiguous else planes


def hidden_truth(
    boards: npt.ArrayLike,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
    """``(mask, kinds)``, both ``[plies, 100]``: which squares hold an opponent piece the
    mover cannot identify, and the true kind value of every piece (-1 on empty squares and
    lakes; kind values as ``PieceKind``: 0 bomb, 1 spy ... 10 marshal, 11 flag).

    >>> mask, kinds = hidden_truth(np.array([[0x10 | 12] + [0] * 99], np.uint8))
    >>> bool(mask[0, 0]), int(kinds[0, 0])  # an unseen opponent flag
    (True, 11)
    """
    codes = np.asarray(boards, dtype=np.uint8)
    kind1 = (codes & KIND_BITS).astype(np.int8)
    piece = (kind1 >= 1) & (kind1 <= 12)
    mask = piece & ((codes & OPPONENT) != 0) & ((codes & KNOWN) == 0)
    kinds = np.where(piece, kind1 - 1, -1).astype(np.int8)
    return mask, kinds


def board_diagram(board: npt.ArrayLike) -> str:
    """One observation board as text, the opponent's back row on top and the mover's at
    the bottom, each row left to right from the mover's seat: own pieces ``+<rank>``,
    identified opponent pieces ``-<rank>``, unidentified ones ``-?`` (never moved) or
    ``-m`` (moved), ``~~`` lakes, ``.`` empty; ranks in the modern numbering (``B``, ``F``).

    >>> print(board_diagram([12] + [0] * 41 + [13, 13] + [0] * 55 + [0x10 | 12]).splitlines()[0])
    10   .   .   .   .   .   .   .   .   .  -?
    """
    codes = np.asarray(board, dtype=np.uint8).reshape(100)
    lines = []
    for row in range(9, -1, -1):
        cells = []
        for byte in codes[row * 10 : row * 10 + 10].tolist():
            kind1 = byte & KIND_BITS
            if kind1 == 0:
                text = "."
            elif kind1 == LAKE_KIND:
                text = "~~"
            elif kind1 == UNKNOWN_KIND:
                text = "-m" if byte & MOVED else "-?"
            else:
                label = MODERN_LABELS[kind1 - 1]
                if not byte & OPPONENT:
                    text = "+" + label
                elif byte & KNOWN:
                    text = "-" + label
                else:
                    text = "-m" if byte & MOVED else "-?"
            cells.append(f"{text:>3} ")
        lines.append(f"{row + 1:>2} {''.join(cells)}".rstrip())
    return "\n".join(lines)
