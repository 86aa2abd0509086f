"""Legal moves of many positions at once: NumPy over flat boards, in the mover's own view.

:func:`legal_ids` takes the boards before a run of plies (``[n, 100]`` board codes, Gravon
squares) and the side to move of each, and returns every legal move of every row as our
action ids (:mod:`strat_tools.engine.mover_view`: ``view(source) * 100 + view(target)``),
ascending, in one flat array with row offsets, the layout of an Arrow list column. It is
the one move generator of the library: the observation export calls it once per batch of
games (:func:`games_legal_ids`), :func:`~strat_tools.engine.actions.legal_actions` and the
stepping API (:meth:`~strat_tools.engine.position.Position.legal_moves`) once per position.

How: each row is turned into its mover's view first (blue's board by 180 degrees, which
keeps the lakes where they are), as one class byte a square, so one set of geometry
tables serves both sides and the ids come out directly. A piece's moves are described by
a **run code**: how many squares it reaches down, left, right and up (0..9 each, in
:data:`STEPS` order), which a table (:data:`RUN_OFFSETS`) turns into its targets in
ascending order. Pieces that move one square get theirs from four whole-board shifts (a
neighbour's "may be entered" bit brought down to one bit of a nibble, per direction);
pieces that reach farther (scouts, ultimate lightning's captains) walk their rays, all of
them together one direction at a time, a square a step and only while the squares before
were empty (so the work is the squares reached); one scan of one byte array finds every
candidate. The runs are then expanded in order of row, source and code, which is id
order: no sort. A captain that may turn a corner also tries its four diagonal squares
(merged by a sort, only under those rules). Lakes are never targets (the ray lengths end
at them), and neither is a square holding an own piece.

The two-squares rule needs the rule state of a position, not just its board: only the
piece its side moved last can continue a back-and-forth chain, and only when the chain is
already at the limit (or the limit is below 2). :func:`repetition_bans` asks
:meth:`Position.repetition` about that one piece's moves and names the ones the rule
forbids; :func:`legal_ids` removes them. So the rules stay in ``position.py``; this module
only knows where pieces can go. The pure-Python
:meth:`~strat_tools.engine.position.Position.reference_pairs` is the independent check
(tests/test_movegen.py compares the two on the archive).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import RAYS
from strat_tools.core.pieces import CODE_SIDE, EMPTY
from strat_tools.core.rules import RuleSet
from strat_tools.engine.move_tables import (
    CORNERS,
    DIAGONAL,
    NIBBLE_CODE,
    PAD,
    RAY_LENGTH,
    RUN_COUNT,
    RUN_OFFSETS_FLAT,
    STEPS,
    offsets_of,
)
from strat_tools.engine.mover_view import view_boards, view_keys
from strat_tools.engine.rule_tables import CAPTAIN_CODES, REACH_ONE, rule_tables

if TYPE_CHECKING:
    from strat_tools.engine.position import Position

ONE: Final = 15
"""Class bits 0-3: an own piece that moves one square (all four: the mask that keeps the
four step bits of :func:`_candidates`)."""
FAR: Final = 16
"""Class bit: an own piece that reaches farther (a scout, a lightning captain)."""
OPEN: Final = 32
"""Class bit: an empty square (a far piece may pass over it)."""
FREE: Final = 128
"""Class bit: the mover may enter (empty, or an opponent piece); the top bit, so that a
shift alone brings it down to a step bit."""


class _Classes:
    """A rule set's class table: per side index (0 red, 1 blue) and board code, the class
    bits of that code for that side's moves, and what the far pieces need."""

    __slots__ = ("bits", "captains", "reach", "short")

    def __init__(self, rules: RuleSet) -> None:
        tables = rule_tables(rules)
        self.bits = np.zeros((2, 256), np.uint8)
        for index, side in enumerate((1, 2)):
            for code in range(26):
                kind = tables.reach_kind[side][code]
                bits = 0 if tables.own[side][code] else FREE
                bits |= ONE if kind == REACH_ONE else FAR if kind > REACH_ONE else 0
                self.bits[index, code] = bits | (OPEN if code == EMPTY else 0)
        self.reach = np.zeros(256, np.int16)
        self.reach[:26] = tables.steps
        far_reach = [tables.steps[c] for c in range(26) if tables.reach_kind[CODE_SIDE[c]][c]]
        self.short = any(r < 9 for r in far_reach if r > 1)
        """Whether some far piece stops before nine squares (a lightning captain)."""
        self.captains = rules.captain_turns and any(tables.steps[c] >= 2 for c in CAPTAIN_CODES)
        """Whether captains may turn a corner under these rules."""


_CLASS_CACHE: dict[int, tuple[RuleSet, _Classes]] = {}


def _classes(rules: RuleSet) -> _Classes:
    """The :class:`_Classes` of ``rules``, kept per rule set (by identity, like
    ``rule_tables``)."""
    known = _CLASS_CACHE.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    found = _Classes(rules)
    if len(_CLASS_CACHE) >= 64:
        _CLASS_CACHE.clear()
    _CLASS_CACHE[id(rules)] = (rules, found)
    return found


def legal_ids(
    boards: npt.ArrayLike,
    sides: npt.ArrayLike,
    rules: RuleSet,
    bans: Sequence[tuple[int, int]] = (),
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """Every legal move of each row of ``boards`` as our action ids, ascending per row.

    ``boards`` is ``[n, 100]`` board codes (Gravon squares), ``sides`` the side to move of
    each row (1 red, 2 blue), ``rules`` the rule set, ``bans`` the ``(row, source * 100 +
    target)`` moves the two-squares rule forbids there (from :func:`repetition_bans`).
    Returns ``(offsets, ids)``: row ``i``'s ids are ``ids[offsets[i]:offsets[i + 1]]``.
    A position whose flag fell is the caller's to leave out (its board still has moves).
    Rows are independent: one call over many games' boards (the observation export's
    batches) costs far less than one call per game.

    >>> from strat_tools.core.board import LAKES
    >>> from strat_tools.core.pieces import LAKE
    >>> from strat_tools.core.rules import get_rules
    >>> board = [0] * 100
    >>> for lake in LAKES:
    ...     board[lake] = LAKE
    >>> board[31], board[99] = 5, 24  # a red lieutenant on B4, the blue flag on K10
    >>> offsets, ids = legal_ids([board], [1], get_rules("gravon-2013"))
    >>> offsets.tolist(), ids.tolist()  # B4-B3, B4-A4, B4-C4, B4-B5
    ([0, 4], [3121, 3130, 3132, 3141])
    """
    board = np.asarray(boards, dtype=np.uint8).reshape(-1, 100)
    side = np.asarray(sides, dtype=np.uint8).reshape(-1)
    n = len(board)
    if n != len(side):
        raise ValueError(f"{n} boards but {len(side)} sides")
    if n and (side.min() < 1 or side.max() > 2):
        raise ValueError("a side to move is 1 (red) or 2 (blue)")
    if n == 0 or rule_tables(rules).limit < 1:
        return np.zeros(n + 1, np.int32), np.zeros(0, np.int16)
    if n > CHUNK_ROWS:
        return _in_chunks(board, side, rules, bans)
    classes = _classes(rules)
    cls = _class_board(board, side, classes.bits)
    movers, codes, far = _candidates(cls)
    if len(far):
        codes[far] = _far_codes(board, side, cls, movers[far], classes)
    offsets, ids = _expand(movers, codes, n)
    if classes.captains and len(far):
        turns = _turn_keys(board, side, cls, movers[far], classes)
        offsets, ids = _with_turns(offsets, ids, turns)
    if bans:
        offsets, ids = _without(offsets, ids, bans, side)
    return offsets, ids


Moves = tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]
"""``(offsets, ids)`` of the legal moves of a run of positions, a list per position (what
:func:`legal_ids` returns)."""

CHUNK_ROWS: Final = 8192
"""Rows :func:`legal_ids` takes at once: about 800 kB a byte array, so each whole-board step
runs in the processor's cache (a batch of 200 games, 60,000 rows, was a tenth slower in
one piece, on strados2014-5)."""


def _in_chunks(
    board: npt.NDArray[np.uint8],
    side: npt.NDArray[np.uint8],
    rules: RuleSet,
    bans: Sequence[tuple[int, int]],
) -> Moves:
    """:func:`legal_ids` of many rows, :data:`CHUNK_ROWS` at a time, joined."""
    n = len(board)
    by_chunk: dict[int, list[tuple[int, int]]] = {}
    for row, key in bans:
        by_chunk.setdefault(row // CHUNK_ROWS, []).append((row % CHUNK_ROWS, key))
    offsets = [np.zeros(1, np.int32)]
    ids = []
    total = 0
    for index, start in enumerate(range(0, n, CHUNK_ROWS)):
        stop = min(start + CHUNK_ROWS, n)
        part = legal_ids(board[start:stop], side[start:stop], rules, by_chunk.get(index, ()))
        offsets.append(part[0][1:] + total)
        ids.append(part[1])
        total += int(part[0][-1])
    return np.concatenate(offsets), np.concatenate(ids)


def games_legal_ids(
    games: Sequence[tuple[npt.NDArray[np.uint8], Sequence[tuple[int, int]]]], rules: RuleSet
) -> list[Moves]:
    """:func:`legal_ids` of several games under one rule set in one call, split back per
    game: each game is the boards before its plies (red moves first) and its bans (rows
    counted from its first ply). One call over a batch of games costs far less than a
    call per game (NumPy's cost per call is paid once).

    >>> from strat_tools.core.rules import get_rules
    >>> board = np.zeros((1, 100), np.uint8)
    >>> board[0, 31] = 5  # a red lieutenant on B4 (lakes left out: only B4's moves matter)
    >>> moves = games_legal_ids([(board, []), (board, [])], get_rules("classic"))
    >>> [ids.tolist() for _, ids in moves]
    [[3121, 3130, 3132, 3141], [3121, 3130, 3132, 3141]]
    """
    if not games:
        return []
    sizes = [len(boards) for boards, _ in games]
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    bans = [
        (int(start) + row, key)
        for (_, game_bans), start in zip(games, starts, strict=False)
        for row, key in game_bans
    ]
    sides = np.concatenate([game_sides(size) for size in sizes])
    boards = np.concatenate([np.asarray(b, np.uint8).reshape(-1, 100) for b, _ in games])
    offsets, ids = legal_ids(boards, sides, rules, bans)
    found: list[Moves] = []
    for start, stop in itertools.pairwise(starts.tolist()):
        first, last = int(offsets[start]), int(offsets[stop])
        found.append((offsets[start : stop + 1] - first, ids[first:last]))
    return found


def game_sides(n: int) -> npt.NDArray[np.uint8]:
    """The side to move before each of a game's ``n`` plies: red (1), blue (2), red ...

    >>> game_sides(3).tolist()
    [1, 2, 1]
    """
    sides: npt.NDArray[np.uint8] = np.where(np.arange(n) % 2 == 0, 1, 2).astype(np.uint8)
    return sides


def _candidates(
    cls: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint16], npt.NDArray[np.intp]]:
    """The squares whose piece may move, in order: ``(movers, codes, far)``.

    ``movers`` are ``row * 100 + view square`` of every own piece that moves one square and
    has a free neighbour, and of every piece that reaches farther; ``codes`` their run codes
    (the one-square pieces' final, the far pieces' still 0); ``far`` the indices into
    ``movers`` of the far pieces. Each direction is one whole-board shift of the
    neighbours' :data:`FREE` bit down to one step bit of a nibble (masked where the step
    would leave the row); the source's own class then keeps the nibble (a one-square
    piece, :data:`ONE`) or the :data:`FAR` bit above it, so that one scan of one byte
    array finds every candidate."""
    n = len(cls)
    nibble = np.empty((n, 100), np.uint8)
    nibble[:, :10] = 0
    np.right_shift(cls[:, :90], 7, out=nibble[:, 10:])  # bit 0: the square below is free
    step = cls[:, :99] >> 6
    step &= _LEFT_BIT
    nibble[:, 1:] |= step
    step = cls[:, 1:] >> 5
    step &= _RIGHT_BIT
    nibble[:, :99] |= step
    step = cls[:, 10:] >> 4
    step &= 8
    nibble[:, :90] |= step
    nibble |= FAR
    nibble &= cls
    flat = nibble.reshape(-1)
    movers = np.flatnonzero(flat != 0)  # a scan of booleans is several times faster
    found = flat[movers]
    far = np.flatnonzero(found & FAR)
    codes = NIBBLE_CODE[found & ONE]
    return movers, codes, far


_LEFT_BIT: Final = np.where(np.arange(1, 100) % 10 != 0, 2, 0).astype(np.uint8)
"""Bit 1 for squares 1..99 whose left neighbour is on their row (a step left stays on it)."""
_RIGHT_BIT: Final = np.where(np.arange(0, 99) % 10 != 9, 4, 0).astype(np.uint8)
"""Bit 2 for squares 0..98 whose right neighbour is on their row."""


def _class_board(
    board: npt.NDArray[np.uint8], side: npt.NDArray[np.uint8], bits: npt.NDArray[np.uint8]
) -> npt.NDArray[np.uint8]:
    """``[n, 100]`` class bits of every square in the mover's view (blue's rows turned by
    180 degrees)."""
    return view_boards(bits, board, side)


def _far_codes(
    board: npt.NDArray[np.uint8],
    side: npt.NDArray[np.uint8],
    cls: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    classes: _Classes,
) -> npt.NDArray[np.uint16]:
    """The run code of each piece that reaches farther than one square (``far``: their
    flat ``row * 100 + view square`` indices): one direction at a time, all the pieces'
    rays walked together, one square a step, a ray only while the squares before were
    empty and within its length on the board (lakes end it) and the piece's reach; so the
    work is the squares actually reached, not nine a ray."""
    rows, sources = np.divmod(far, 100)
    flat = cls.reshape(-1)
    reach = None
    if classes.short:
        absolute = np.where(side[rows] == 2, 99 - sources, sources)  # back to Gravon's
        reach = classes.reach[board[rows, absolute]]
    if len(far) <= _FEW:
        return _few_far_codes(flat, far, sources, reach)
    code = np.zeros(len(far), np.uint16)
    for direction, step in enumerate(STEPS):
        limit = RAY_LENGTH[sources * 4 + direction]
        if reach is not None:
            limit = np.minimum(limit, reach)
        lengths = limit.astype(np.uint16)  # a ray open to its end; a blocked one set below
        walking = np.flatnonzero(limit)
        at = far[walking] + step
        for distance in range(1, 10):
            seen = flat[at]
            going = (seen & OPEN) != 0
            stopped = ~going
            # Stopped here: the squares before, and this one if it may be entered (a battle).
            lengths[walking[stopped]] = (seen[stopped] >> 7) + (distance - 1)
            going &= limit[walking] > distance
            walking = walking[going]
            if not len(walking):
                break
            at = at[going] + step
        code += lengths * 10**direction
    return code


_FEW: Final = 24
"""Up to this many far pieces (one position, the stepping API) are walked square by square
in Python: a few dozen steps cost less than NumPy's calls for each of the nine."""


def _few_far_codes(
    flat: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    sources: npt.NDArray[np.intp],
    reach: npt.NDArray[np.int16] | None,
) -> npt.NDArray[np.uint16]:
    """:func:`_far_codes` of a few pieces, the same walk one square at a time."""
    cells = flat.tolist() if len(flat) <= 200 else None
    codes = []
    limits = RAY_LENGTH.tolist()
    for index, (at, square) in enumerate(zip(far.tolist(), sources.tolist(), strict=True)):
        code = 0
        most = 9 if reach is None else int(reach[index])
        for direction, step in enumerate(STEPS):
            limit = min(limits[square * 4 + direction], most)
            length = 0
            while length < limit:
                at_next = at + step * (length + 1)
                seen = cells[at_next] if cells is not None else int(flat[at_next])
                if not seen & OPEN:
                    length += seen >> 7  # FREE: a battle there
                    break
                length += 1
            code += length * 10**direction
        codes.append(code)
    return np.array(codes, np.uint16)


def _expand(
    movers: npt.NDArray[np.intp], codes: npt.NDArray[np.uint16], n: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """``(offsets, ids)`` of ``n`` rows from their movers (``row * 100 + view square``, in
    order) and run codes: each source's moves in :data:`RUN_OFFSETS` order, sources in
    order, so every row's ids come out ascending without a sort."""
    if n == 1:  # one position (the stepping API): a short Python loop beats NumPy's calls
        found = [
            square * 101 + offset
            for square, code in zip(movers.tolist(), codes.tolist(), strict=True)
            for offset in offsets_of(code)
        ]
        return np.array([0, len(found)], np.int32), np.array(found, np.int16)
    counts = RUN_COUNT[codes]
    ends = np.cumsum(counts, dtype=np.int32)
    total = int(ends[-1]) if len(ends) else 0
    rows, squares = np.divmod(movers, 100)
    # Per move: its source's id base (source * 100 + source) plus its target's offset, read
    # at ``code * 36 + k`` for the k-th move of that source (``k = i - start``).
    shift = codes.astype(np.int32) * 36 - (ends - counts)
    where = np.repeat(shift, counts)
    where += np.arange(total, dtype=np.int32)
    ids = np.repeat((squares * 101).astype(np.int16), counts)
    ids += RUN_OFFSETS_FLAT[where]
    offsets = np.zeros(n + 1, np.int32)
    per_row = np.bincount(rows, weights=counts, minlength=n)  # float64: exact for these sums
    np.cumsum(per_row.astype(np.int32), out=offsets[1:])
    return offsets, ids


def _turn_keys(
    board: npt.NDArray[np.uint8],
    side: npt.NDArray[np.uint8],
    cls: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    classes: _Classes,
) -> npt.NDArray[np.int64]:
    """``row * 10000 + id`` of the turning moves of the captains among the far pieces
    (ultimate lightning): a diagonal square reached round a corner that is empty."""
    rows, sources = np.divmod(far, 100)
    absolute = np.where(side[rows] == 2, 99 - sources, sources)  # back to Gravon's
    codes = board[rows, absolute]
    captains = np.isin(codes, CAPTAIN_CODES) & (classes.reach[codes] >= 2)
    c_rows, c_sources = rows[captains], sources[captains]
    targets = DIAGONAL[c_sources]  # [c, 4]
    padded = np.zeros((len(cls), 101), np.uint8)  # column 100: off the board, neither
    padded[:, :100] = cls
    flat = padded.reshape(-1)
    corner = c_rows[:, None, None] * 101 + CORNERS[c_sources]  # [c, 4, 2]
    turn = (flat[corner] & OPEN).any(axis=2)
    turn &= (targets != PAD) & ((flat[c_rows[:, None] * 101 + targets] & FREE) != 0)
    pair, which = np.nonzero(turn)
    keys: npt.NDArray[np.int64] = (
        c_rows[pair] * 10_000 + c_sources[pair] * 100 + targets[pair, which]
    )
    return keys


def _keys(offsets: npt.NDArray[np.int32], ids: npt.NDArray[np.int16]) -> npt.NDArray[np.int64]:
    """``row * 10000 + id`` of every move, from ``(offsets, ids)``."""
    rows = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    keys: npt.NDArray[np.int64] = rows * 10_000 + ids
    return keys


def _from_keys(
    keys: npt.NDArray[np.int64], n: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """``(offsets, ids)`` of sorted ``row * 10000 + id`` keys of ``n`` rows."""
    rows = keys // 10_000
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=offsets[1:])
    return offsets, (keys - rows * 10_000).astype(np.int16)


def _with_turns(
    offsets: npt.NDArray[np.int32], ids: npt.NDArray[np.int16], turns: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """The moves plus the captains' turning moves (``row * 10000 + id``), merged in order."""
    if not len(turns):
        return offsets, ids
    keys = np.sort(np.concatenate([_keys(offsets, ids), turns]))
    return _from_keys(keys, len(offsets) - 1)


def _without(
    offsets: npt.NDArray[np.int32],
    ids: npt.NDArray[np.int16],
    bans: Sequence[tuple[int, int]],
    side: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """The moves less the banned ones (``(row, source * 100 + target)``, absolute squares):
    each looked up among its own row's ids only."""
    ban_rows = np.fromiter((row for row, _ in bans), np.int64, len(bans))
    absolute = np.fromiter((key for _, key in bans), np.int64, len(bans))
    wanted = view_keys(absolute, side[ban_rows] == 2)
    rows, group = np.unique(ban_rows, return_inverse=True)
    starts, sizes = offsets[rows], offsets[rows + 1] - offsets[rows]
    ends = np.cumsum(sizes)
    at = np.repeat(starts - (ends - sizes), sizes) + np.arange(int(ends[-1]) if len(ends) else 0)
    keys = np.repeat(np.arange(len(rows), dtype=np.int64), sizes) * 10_000 + ids[at]
    want = group.reshape(-1) * 10_000 + wanted
    found = np.searchsorted(keys, want)
    hit = found < len(keys)
    hit[hit] = keys[found[hit]] == want[hit]
    drop = np.unique(at[found[hit]])
    if not len(drop):
        return offsets, ids
    removed = np.bincount(
        np.searchsorted(offsets, drop, side="right") - 1, minlength=len(offsets) - 1
    )
    kept = offsets.copy()
    kept[1:] -= np.cumsum(removed).astype(np.int32)
    return kept, np.delete(ids, drop)


def repetition_bans(pos: Position) -> list[int]:
    """The moves (``source * 100 + target``, Gravon squares) of the side to move that only
    the two-squares rule forbids in ``pos``: none unless its last-moved piece's chain is at
    the limit (or the limit is below 2); then :meth:`Position.repetition` judges each
    square that piece could reach.

    >>> from strat_tools.engine.position import Position
    >>> repetition_bans(Position([0] * 100, "gravon-2013"))
    []
    """
    side, limit = pos.side, pos.limit
    last = pos.rep_key[side]
    if last < 0 or (pos.rep_count[side] < limit and limit >= 2):
        return []
    moved = last % 100
    reachable = [t for ray in RAYS[moved] for t in ray]
    reachable += [int(t) for t in DIAGONAL[moved] if t != PAD]
    return [
        moved * 100 + target
        for target in reachable
        if pos.repetition(moved, target, side)[0] > limit
    ]


def position_ids(pos: Position) -> npt.NDArray[np.int16]:
    """Our ids of every legal move of ``pos`` (the side to move's view), ascending; none
    once the flag fell."""
    if pos.winner:
        return np.zeros(0, np.int16)
    bans = [(0, key) for key in repetition_bans(pos)]
    board = np.frombuffer(bytes(pos.board), np.uint8)
    return legal_ids(board, np.full(1, pos.side, np.uint8), pos.rules, bans)[1]


def position_pairs(pos: Position) -> list[tuple[int, int]]:
    """Every legal ``(source, target)`` of ``pos`` in Gravon squares, ascending."""
    keys = position_ids(pos).astype(np.int64)
    if pos.side == 2:
        keys = view_keys(keys[::-1], True)
    return [divmod(key, 100) for key in keys.tolist()]
