"""Where the pieces of many positions can go: the stages of the move generator.

:mod:`strat_tools.engine.moves` is the generator's face (its chunks and the bans it removes);
this module does the work, NumPy over the positions' boards in their movers' views
(:func:`~strat_tools.engine.information.mover_view.view_boards`), one **class** byte a square
(:class:`MoveClasses`):

1. :func:`candidates`: the whole batch taken as one flat byte array, four shifts bring each
   square's neighbours' "may be entered" bit down to a **step bit** of that square (one
   mask clears those that crossed an edge), the square's own class keeps them where a
   piece of the mover stands, and one scan finds the pieces that can move;
2. :func:`far_codes`: the pieces that reach farther (scouts, lightning captains) walk
   their rays, all together, only those whose first square is free, a square a step;
3. :func:`expand`: every piece's moves are one run of a table of ids (a one-square
   piece's from :data:`~strat_tools.engine.moves.tables.ONE_IDS` by square and step bits,
   a far piece's made from its run code), so one ``repeat`` and one gather write all the
   ids, ascending per position, with no sort;
4. :func:`turn_keys`: a lightning captain's turning moves (only under those rules).

This module knows squares, classes and reach; the two-squares bans are
:mod:`~strat_tools.engine.moves.bans`'s.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.pieces import CODE_SIDE, EMPTY
from strat_tools.core.rules import RuleSet, per_rule_set
from strat_tools.engine.moves.tables import (
    CORNERS,
    DIAGONAL,
    EDGE_BITS,
    ONE_IDS,
    PAD,
    RAY_LENGTH,
    RUN_COUNT,
    RUN_IDS,
    RUN_WIDTH,
    STEPS,
    offsets_of,
)
from strat_tools.engine.rules.rule_tables import CAPTAIN_CODES, REACH_ONE, rule_tables

__all__ = [
    "FAR",
    "FREE",
    "ONE",
    "OPEN",
    "MoveClasses",
    "candidates",
    "expand",
    "expand_one",
    "far_codes",
    "move_classes",
    "turn_keys",
]

ONE: Final = 15
"""Class bits 0-3: an own piece that moves (all four: the mask that keeps the four step
bits of :func:`candidates`)."""
FAR: Final = 16
"""Class bit 4 of an own piece (:data:`ONE` set): it reaches farther than one square (a
scout, a lightning captain)."""
FREE: Final = 128
"""Class bit 7: the mover may enter (empty, or an opponent piece); the top bit, so that a
shift alone brings it down to a step bit."""
OPEN: Final = FREE | FAR
"""The class of an empty square (a far piece may pass over it): bit 4 with :data:`FREE`,
so that bits 5 and 6 stay clear in every class and the shifts that make the step bits
need no mask; "open" is ``class > FREE``."""


class MoveClasses:
    """A rule set's class table: per side index (0 red, 1 blue) and board code, the class
    byte of that code for that side's moves, and what the far pieces need.

    The five classes: :data:`ONE` a piece of the mover that moves, ``ONE | FAR`` one that
    reaches farther, :data:`FREE` an opponent's piece (to strike), :data:`OPEN` an empty
    square, 0 a square no move enters (the mover's bombs and flag, a lake, a code past the
    lake)."""

    __slots__ = ("bits", "captains", "reach", "short")

    def __init__(self, rules: RuleSet) -> None:
        tables = rule_tables(rules)
        self.bits = np.zeros((2, 256), np.uint8)
        for index, side in enumerate((1, 2)):
            for code in range(26):
                kind = tables.reach_kind[side][code]
                bits = 0 if tables.own[side][code] else FREE
                bits |= ONE if kind == REACH_ONE else ONE | FAR if kind > REACH_ONE else 0
                self.bits[index, code] = OPEN if code == EMPTY else bits
        self.reach = np.zeros(256, np.int16)
        self.reach[:26] = tables.steps
        far_reach = [tables.steps[c] for c in range(26) if tables.reach_kind[CODE_SIDE[c]][c]]
        self.short = any(r < 9 for r in far_reach if r > 1)
        """Whether some far piece stops before nine squares (a lightning captain)."""
        self.captains = rules.captain_turns and any(tables.steps[c] >= 2 for c in CAPTAIN_CODES)
        """Whether captains may turn a corner under these rules."""


@per_rule_set
def move_classes(rules: RuleSet) -> MoveClasses:
    """The :class:`MoveClasses` of ``rules`` (cached per rule set, like ``rule_tables``)."""
    return MoveClasses(rules)


def candidates(
    cls: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint8], npt.NDArray[np.intp]]:
    """The squares whose piece may move, in order: ``(movers, steps, far)``.

    ``movers`` are ``row * 100 + view square`` of every own piece with a free neighbour;
    ``steps`` their four step bits (in :data:`STEPS` order: the neighbour that way may be
    entered); ``far`` the indices into ``movers`` of the pieces that reach farther (their
    step bits say where their rays start). The rows are taken as one flat byte array:
    each direction is one shift of it by one square or one row that brings the
    neighbours' :data:`FREE` bit down to a step bit; where that crossed a row's edge or
    into the next board one mask (:data:`_EDGES`) clears it, and the source's own class
    keeps the bits of a piece that moves (:data:`ONE`); one scan then finds them all."""
    flat = cls.reshape(-1)
    size = len(flat)
    steps = np.empty(size, np.uint8)
    steps[:10] = 0
    np.right_shift(flat[:-10], 7, out=steps[10:])  # bit 0: the square below is free
    steps[1:] |= flat[:-1] >> 6  # bit 1: left (bit 6 is clear in every class)
    steps[:-1] |= flat[1:] >> 5  # bit 2: right (bits 5 and 6 are clear)
    up = flat[10:] >> 4
    up &= 8  # bit 3: up (bit 4, FAR, came down to bit 0)
    steps[:-10] |= up
    steps &= flat
    steps &= _edges(size)
    movers = np.flatnonzero(steps != 0)  # a scan of booleans is several times faster
    far = np.flatnonzero(flat[movers] & FAR)
    return movers, steps[movers], far


def _edges(size: int) -> npt.NDArray[np.uint8]:
    """The step bits that stay on the board, per square of ``size // 100`` flat boards
    (a view of one kept array, grown as needed)."""
    if len(_EDGES[0]) < size:
        _EDGES[0] = np.tile(EDGE_BITS, max(size, 2 * len(_EDGES[0])) // 100)
    return _EDGES[0][:size]


_EDGES = [np.tile(EDGE_BITS, 1024)]
"""The kept array of :func:`_edges`: :data:`EDGE_BITS` over as many boards as were asked."""


def far_codes(
    board: npt.NDArray[np.uint8],
    side: npt.NDArray[np.uint8],
    cls: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    steps: npt.NDArray[np.uint8],
    classes: MoveClasses,
) -> npt.NDArray[np.uint16]:
    """The run code of each piece that reaches farther than one square (``far``: their
    flat ``row * 100 + view square`` indices, ``steps`` their step bits): every ray that
    starts on a free square walked, all of them together, one square a step, a ray only
    while the squares before were empty and within its length on the board (lakes end it)
    and the piece's reach; so the work is the squares actually reached."""
    rows, sources = _row_square(far)
    flat = cls.reshape(-1)
    reach = None
    if classes.short:
        absolute = np.where(side[rows] == 2, 99 - sources, sources)  # back to Gravon's
        reach = classes.reach[board[rows, absolute]]
    if len(far) <= _FEW:
        return _few_far_codes(flat, far, sources, reach)
    # A ray is ``piece * 4 + direction``; only those whose first square is free are walked.
    walking = np.flatnonzero(_STEP_BITS[steps])
    pieces = walking >> 2
    direction = walking & 3
    limit = RAY_LENGTH[sources[pieces] * 4 + direction]
    if reach is not None:
        limit = np.minimum(limit, reach[pieces])
    lengths = np.zeros(len(far) * 4, np.uint16)
    step = _STEP_OF[direction]
    at = far[pieces] + step
    distance = 1
    while len(walking):
        seen = flat[at]
        going = seen > FREE  # open
        # The squares before this one, and this one if it may be entered: an open square
        # (the walk goes on, and writes again) or a battle.
        seen >>= 7
        seen += distance - 1
        lengths[walking] = seen
        going &= limit > distance
        kept = np.flatnonzero(going)
        walking = walking[kept]
        limit = limit[kept]
        step = step[kept]
        at = at[kept]
        at += step
        distance += 1
    codes: npt.NDArray[np.uint16] = lengths.reshape(-1, 4) @ _DIGITS
    return codes


_STEP_BITS: Final = ((np.arange(16)[:, None] >> np.arange(4)) & 1).astype(np.bool_)
"""``[16, 4]``: the four step bits of each nibble, as booleans."""
_STEP_OF: Final = np.array(STEPS, np.intp)
_DIGITS: Final = np.array([1, 10, 100, 1000], np.uint16)


_FEW: Final = 24
"""Up to this many far pieces (one position, the stepping API) are walked square by square
in Python: a few dozen steps cost less than NumPy's calls for each of the nine."""


def _few_far_codes(
    flat: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    sources: npt.NDArray[np.intp],
    reach: npt.NDArray[np.int16] | None,
) -> npt.NDArray[np.uint16]:
    """:func:`far_codes` of a few pieces, the same walk one square at a time."""
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
                if seen <= FREE:  # not open
                    length += seen >> 7  # FREE: a battle there
                    break
                length += 1
            code += length * 10**direction
        codes.append(code)
    return np.array(codes, np.uint16)


def expand_one(
    movers: npt.NDArray[np.intp], codes: npt.NDArray[np.uint16]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """``(offsets, ids)`` of one position from its movers (view squares, in order) and run
    codes: a short Python loop, cheaper than NumPy's calls for a few dozen moves."""
    found = [
        square * 101 + offset
        for square, code in zip(movers.tolist(), codes.tolist(), strict=True)
        for offset in offsets_of(code)
    ]
    return np.array([0, len(found)], np.int32), np.array(found, np.int16)


def expand(
    movers: npt.NDArray[np.intp],
    nibbles: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    far_codes: npt.NDArray[np.uint16],
    n: int,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """``(offsets, ids)`` of ``n`` rows from their movers (``row * 100 + view square``, in
    order), the one-square pieces' step bits and the far pieces' run codes.

    Every mover's ids are one run of a table of ids: a one-square piece's the row of
    :data:`ONE_IDS` for its square and step bits, a far piece's a row made here from its
    run code (:data:`~strat_tools.engine.moves.tables.RUN_IDS`). The runs, taken in order
    of row and source, are the ids in order: one ``repeat`` of each run's start, plus the
    position within it, and one gather."""
    rows, squares = _row_square(movers)
    start = squares * 16
    start += nibbles
    start <<= 2  # (square * 16 + nibble) * 4: row (square, nibble) of ONE_IDS, 4 wide
    counts = _step_counts(nibbles)
    table = ONE_IDS
    if len(far):  # every far mover has a move (its step bits say a first square is free)
        table = np.empty(len(ONE_IDS) + RUN_WIDTH * len(far), np.int16)
        table[: len(ONE_IDS)] = ONE_IDS
        runs = table[len(ONE_IDS) :].reshape(-1, RUN_WIDTH)
        np.add(RUN_IDS[far_codes], (squares[far] * 101).astype(np.int16)[:, None], out=runs)
        start[far] = np.arange(len(ONE_IDS), len(table), RUN_WIDTH)
        counts[far] = RUN_COUNT[far_codes]
    ends = np.cumsum(counts, dtype=np.intp)
    total = int(ends[-1]) if len(ends) else 0
    start -= ends
    start += counts
    where = np.repeat(start, counts)
    where += _positions(total)
    ids: npt.NDArray[np.int16] = table[where]
    # Row r's moves end where its last mover's do: after the movers of rows 0..r.
    last = np.zeros(len(ends) + 1, np.int32)
    last[1:] = ends
    offsets: npt.NDArray[np.int32] = last[np.cumsum(np.bincount(rows, minlength=n))]
    return np.concatenate((last[:1], offsets)), ids


def _step_counts(nibbles: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The number of step bits of each nibble (a popcount of four bits, in byte-wide
    operations: NumPy 1.26 has no ``bitwise_count``)."""
    counts: npt.NDArray[np.uint8] = nibbles >> np.uint8(1)
    counts &= 5
    counts += nibbles & 5
    high = counts >> 2
    counts &= 3
    counts += high
    return counts


def _row_square(flat: npt.NDArray[np.intp]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """``divmod(flat, 100)`` by a multiply and a shift (exact below 2**30), several times
    faster than NumPy's integer division."""
    rows = flat * 42_949_673
    rows >>= 32
    squares = rows * -100
    squares += flat
    return rows, squares


def _positions(total: int) -> npt.NDArray[np.intp]:
    """``arange(total)``, a view of one kept array (grown as needed)."""
    if len(_ARANGE[0]) < total:
        _ARANGE[0] = np.arange(max(total, 2 * len(_ARANGE[0])), dtype=np.intp)
    return _ARANGE[0][:total]


_ARANGE = [np.arange(1 << 16, dtype=np.intp)]
"""The kept array of :func:`_positions`."""


def turn_keys(
    board: npt.NDArray[np.uint8],
    side: npt.NDArray[np.uint8],
    cls: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    classes: MoveClasses,
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
    turn = (flat[corner] > FREE).any(axis=2)  # a corner is open
    turn &= (targets != PAD) & ((flat[c_rows[:, None] * 101 + targets] & FREE) != 0)
    pair, which = np.nonzero(turn)
    keys: npt.NDArray[np.int64] = (
        c_rows[pair] * 10_000 + c_sources[pair] * 100 + targets[pair, which]
    )
    return keys
