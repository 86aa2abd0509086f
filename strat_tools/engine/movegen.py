"""Legal moves of many positions at once: NumPy over flat boards, in the mover's own view.

:func:`legal_ids` takes the boards before a run of plies (``[n, 100]`` board codes, Gravon
squares) and the side to move of each, and returns every legal move of every row as our
action ids (:mod:`strat_tools.engine.mover_view`: ``view(source) * 100 + view(target)``),
ascending,
in one flat array with row offsets, the layout of an Arrow list column. It is the one move
generator of the library: the observation export calls it once per game,
:func:`~strat_tools.engine.actions.legal_actions` and the stepping API
(:meth:`~strat_tools.engine.position.Position.legal_moves`) once per position.

How: each row is turned into its mover's view first (blue's board by 180 degrees, which
keeps the lakes where they are), so one set of geometry tables serves both sides and the
ids come out directly. Pieces that move one square (the rule set's ``REACH_ONE``) are
judged in four whole-board comparisons of shifted slices, one per direction, into slots
laid out in id order (a source's class bits against its target's); pieces that reach
farther (scouts, ultimate lightning's captains) walk their four rays, nine squares deep,
as ``[pieces, 4, 9]`` arrays (a square counts while every square before it is empty); the
two lists are merged per row by a stable sort. A captain that may turn a corner also
tries its four diagonal squares. Lakes are never targets (the tables hold only lake-free
lines), and neither is a square holding an own piece or a lake mark.

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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import LAKES, NEIGHBOURS, RAYS
from strat_tools.core.pieces import CODE_SIDE, EMPTY
from strat_tools.core.rules import RuleSet
from strat_tools.engine.mover_view import view_boards, view_keys
from strat_tools.engine.rule_tables import CAPTAIN_CODES, REACH_ONE, rule_tables

if TYPE_CHECKING:
    from strat_tools.engine.position import Position

PAD: Final = 100
"""The padding column of a board row: an index for "off the board" (it holds a lake mark)."""

_STEPS: Final = (-10, -1, 1, 10)
"""One-square steps in the order that makes each source's targets ascend."""


def _geometry() -> tuple[
    npt.NDArray[np.intp],
    npt.NDArray[np.intp],
    npt.NDArray[np.int16],
    npt.NDArray[np.intp],
    npt.NDArray[np.intp],
]:
    """Neighbours ``[100, 4]``, rays ``[100, 4, 9]`` with their distances, diagonals
    ``[100, 4]`` and the two corners of each diagonal ``[100, 4, 2]`` (``PAD``: none)."""
    near = np.full((100, 4), PAD, np.intp)
    for source in range(100):
        for target in NEIGHBOURS[source]:
            near[source, _STEPS.index(target - source)] = target
    rays = np.full((100, 4, 9), PAD, np.intp)
    for source in range(100):
        for index, ray in enumerate(RAYS[source]):
            rays[source, index, : len(ray)] = ray
    distance = np.broadcast_to(np.arange(1, 10, dtype=np.int16), (100, 4, 9)).copy()
    diagonal = np.full((100, 4), PAD, np.intp)
    corners = np.full((100, 4, 2), PAD, np.intp)
    for source in range(100):
        row, col = divmod(source, 10)
        for index, (dr, dc) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
            r, c = row + dr, col + dc
            if 0 <= r < 10 and 0 <= c < 10 and r * 10 + c not in LAKES:
                diagonal[source, index] = r * 10 + c
                corners[source, index] = (row * 10 + c, r * 10 + col)
    return near, rays, distance, diagonal, corners


NEAR, RAY_SQUARES, RAY_DISTANCE, DIAGONAL, CORNERS = _geometry()
"""Geometry tables (the board is the same in both sides' views, so they serve both)."""


BLOCKED: Final = 1
"""Class bit: the mover may not enter (own piece, lake mark, off the board)."""
ONE: Final = 2
"""Class bit: an own piece that moves one square (one bit above :data:`BLOCKED`: the
one-square test is ``(source >> 1) & ~target & 1``)."""
FAR: Final = 4
"""Class bit: an own piece that reaches farther (a scout, a lightning captain)."""
OPEN: Final = 8
"""Class bit: an empty square (a far piece may pass over it)."""


class _Classes:
    """A rule set's class table: per side index (0 red, 1 blue) and board code, the class
    bits of that code for that side's moves, and what the far pieces need."""

    __slots__ = ("bits", "captains", "reach", "short")

    def __init__(self, rules: RuleSet) -> None:
        tables = rule_tables(rules)
        self.bits = np.full((2, 256), BLOCKED, np.uint8)
        for index, side in enumerate((1, 2)):
            for code in range(26):
                kind = tables.reach_kind[side][code]
                bits = BLOCKED if tables.own[side][code] else 0
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
    classes = _classes(rules)
    cls = _class_board(board, side, classes.bits)
    keys = _one_keys(cls)
    far = np.flatnonzero(cls[:, :100] & FAR)
    if len(far):
        # Two runs in id order per row, merged: a stable sort is a merge here.
        found = [keys, *_far_keys(board, side, cls, far, classes)]
        keys = np.sort(np.concatenate(found), kind="stable")
    if bans:
        keys = _without(keys, bans, side)
    if n == 1:
        return np.array([0, len(keys)], np.int32), keys.astype(np.int16)
    rows = keys // 10_000
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=offsets[1:])
    return offsets, (keys - rows * 10_000).astype(np.int16)


def _one_keys(cls: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """``row * 10000 + id`` of every move of the pieces that move one square, ascending.

    Each direction is one whole-board comparison of shifted slices (a source's class bit
    :data:`ONE` against its neighbour's :data:`BLOCKED`), written into ``[n, 128, 4]``
    slots (row, square, direction in target order), so that the set slots, read in order,
    are the ids in order."""
    n = len(cls)
    movers = (cls[:, :100] >> 1) & 1
    free = ~cls[:, :100] & 1
    slots = np.zeros((n, 128, 4), np.uint8)
    np.bitwise_and(movers[:, 10:], free[:, :90], out=slots[:, 10:100, 0])
    np.bitwise_and(movers[:, 1:], free[:, :99] & _NOT_FIRST, out=slots[:, 1:100, 1])
    np.bitwise_and(movers[:, :99], free[:, 1:] & _NOT_LAST, out=slots[:, :99, 2])
    np.bitwise_and(movers[:, :90], free[:, 10:], out=slots[:, :90, 3])
    # nonzero is several times faster on booleans than on bytes (the slots hold 0 or 1).
    found = np.flatnonzero(slots.view(np.bool_))
    keys: npt.NDArray[np.int64] = (found >> 9) * 10_000 + _SLOT_IDS[found & 511]
    return keys


def _slot_ids() -> npt.NDArray[np.int64]:
    """Per ``square * 4 + direction`` slot of :func:`_one_keys`: the move's id."""
    ids = np.zeros(512, np.int64)
    for square in range(100):
        for direction, step in enumerate(_STEPS):
            ids[square * 4 + direction] = square * 100 + square + step
    return ids


_SLOT_IDS: Final = _slot_ids()
_NOT_FIRST: Final = (np.arange(1, 100) % 10 != 0).astype(np.uint8)
"""Squares 1..99 whose left neighbour is on their row (a move to the left stays on it)."""
_NOT_LAST: Final = (np.arange(0, 99) % 10 != 9).astype(np.uint8)
"""Squares 0..98 whose right neighbour is on their row."""


def _class_board(
    board: npt.NDArray[np.uint8], side: npt.NDArray[np.uint8], bits: npt.NDArray[np.uint8]
) -> npt.NDArray[np.uint8]:
    """``[n, 101]`` class bits of every square in the mover's view (blue's rows turned by
    180 degrees); column 100 is the padding, blocked."""
    cls = np.empty((len(board), 101), np.uint8)
    cls[:, 100] = BLOCKED
    view_boards(bits, board, side, out=cls[:, :100])
    return cls


def _far_keys(
    board: npt.NDArray[np.uint8],
    side: npt.NDArray[np.uint8],
    cls: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    classes: _Classes,
) -> list[npt.NDArray[np.int64]]:
    """``row * 10000 + id`` of every move of the pieces that reach farther than one square
    (``far``: their flat ``row * 100 + view square`` indices)."""
    rows, sources = np.divmod(far, 100)
    squares = RAY_SQUARES[sources]  # [k, 4, 9]
    seen = cls.reshape(-1)[rows[:, None, None] * 101 + squares]
    clear = np.ones(squares.shape, np.bool_)
    np.logical_and.accumulate((seen[:, :, :-1] & OPEN) != 0, axis=2, out=clear[:, :, 1:])
    ok = clear & ((seen & BLOCKED) == 0)
    if classes.short or classes.captains:
        absolute = np.where(side[rows] == 2, 99 - sources, sources)  # back to Gravon's
        codes = board[rows, absolute]
        reach = classes.reach[codes]
    if classes.short:
        ok &= RAY_DISTANCE[sources] <= reach[:, None, None]
    flat = np.flatnonzero(ok)  # faster than a three-axis nonzero
    pair = flat // 36
    found = [rows[pair] * 10_000 + sources[pair] * 100 + squares.reshape(-1)[flat]]
    if classes.captains:
        captains = np.isin(codes, CAPTAIN_CODES) & (reach >= 2)
        c_rows, c_sources = rows[captains], sources[captains]
        targets = DIAGONAL[c_sources]  # [c, 4]
        corner = c_rows[:, None, None] * 101 + CORNERS[c_sources]  # [c, 4, 2]
        turn = (cls.reshape(-1)[corner] & OPEN).any(axis=2)
        turn &= (targets != PAD) & (
            (cls.reshape(-1)[c_rows[:, None] * 101 + targets] & BLOCKED) == 0
        )
        pair, which = np.nonzero(turn)
        found.append(c_rows[pair] * 10_000 + c_sources[pair] * 100 + targets[pair, which])
    return found


def _without(
    keys: npt.NDArray[np.int64], bans: Sequence[tuple[int, int]], side: npt.NDArray[np.uint8]
) -> npt.NDArray[np.int64]:
    """``keys`` (sorted ``row * 10000 + id``) less the banned moves (absolute squares)."""
    ban_rows = np.fromiter((row for row, _ in bans), np.int64, len(bans))
    absolute = np.fromiter((key for _, key in bans), np.int64, len(bans))
    ids = view_keys(absolute, side[ban_rows] == 2)
    wanted = ban_rows * 10_000 + ids
    at = np.searchsorted(keys, wanted)
    hit = at < len(keys)
    hit[hit] = keys[at[hit]] == wanted[hit]
    return np.delete(keys, at[hit])


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
