"""The batch move generator: legal moves of many positions at once, NumPy over flat boards in
the mover's own view. This package is the library's one generator, and holds every ban:

* here, the face: :func:`legal_ids` (boards and sides in, action ids out), its batches of
  games (:func:`games_legal_ids`) and of one position (:func:`position_ids`, what
  :meth:`Position.legal_moves <strat_tools.engine.position.position.Position.legal_moves>` and
  :func:`~strat_tools.engine.encodings.actions.legal_actions` ask), and the caller's choice of the
  compiled loop (:func:`compiled_pays`);
* :mod:`~strat_tools.engine.moves.tables`: board geometry and run codes (squares only);
* :mod:`~strat_tools.engine.moves.scan`: the NumPy stages, where pieces can go;
* :mod:`~strat_tools.engine.moves.kernel`: the same as one loop compiled by numba;
* :mod:`~strat_tools.engine.moves.bans`: the moves the two-squares rule forbids, and their
  removal from the ids;
* :mod:`~strat_tools.engine.moves.games`: the moves of replayed games, ply by ply (the
  observation export's call).

:func:`legal_ids` takes the boards before a run of plies (``[n, 100]`` board codes, Gravon squares)
and the side to move of each, and returns every legal move of every row as our action ids
(:mod:`strat_tools.engine.information.mover_view`: ``view(source) * 100 + view(target)``),
ascending, in one flat array with row offsets, the layout of an Arrow list column.

How: each row is turned into its mover's view first (blue's board by 180 degrees, which
keeps the lakes where they are), as one class byte a square, so one set of geometry
tables serves both sides and the ids come out directly; the stages then find the pieces
that can move (four shifts of the whole batch as one flat byte array and one scan), walk
the rays of those that reach farther (scouts, ultimate lightning's captains: all together,
a square a step, only while the squares before were empty), and write every piece's moves
as one run of a table of ids, in order of row and source, which is id order: no sort. A
captain that may turn a corner also tries its four diagonal squares (merged by a sort,
only under those rules). Lakes are never targets, and neither is a square holding an own
piece. Many rows are taken :data:`CHUNK_ROWS` at a time, and :func:`games_legal_ids` joins
its games so that the sides alternate over the whole batch (the turn is fastest then).

The compiled loop is an explicit choice: a caller that asks (``compiled=True``), where
numba is installed (the ``fast`` extra), sends big batches of the rule sets it covers
through it instead (the same class bytes and ray lengths, the same ids, twice as fast on
the generation alone); if numba fails in any way, a warning says so and the NumPy stages
answer, the same ids. The choice is the caller's, never the process's history: the
observation export asks once, before its run, from its input's size (:func:`compiled_pays`).

The two-squares rule needs the rule state of a position, not just its board: the bans
(:mod:`~strat_tools.engine.moves.bans`) name the moves it forbids and :func:`legal_ids`
removes them (a one-square piece's before its ids are written). The pure-Python
:meth:`~strat_tools.engine.position.position.Position.reference_pairs` is the independent check
(tests/test_moves.py compares the two on the archive).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.rules import RuleSet
from strat_tools.engine.information.mover_view import view_boards, view_keys
from strat_tools.engine.moves import kernel
from strat_tools.engine.moves.bans import (
    PositionState,
    clear_banned_steps,
    repetition_bans,
    without_bans,
)
from strat_tools.engine.moves.scan import (
    candidates,
    expand,
    expand_one,
    far_codes,
    move_classes,
    turn_keys,
)
from strat_tools.engine.moves.tables import NIBBLE_CODE
from strat_tools.engine.rules.rule_tables import rule_tables


def legal_ids(
    boards: npt.ArrayLike,
    sides: npt.ArrayLike,
    rules: RuleSet,
    bans: Sequence[tuple[int, int]] = (),
    *,
    compiled: bool = False,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """Every legal move of each row of ``boards`` as our action ids, ascending per row.

    ``boards`` is ``[n, 100]`` board codes (Gravon squares), ``sides`` the side to move of
    each row (1 red, 2 blue), ``rules`` the rule set, ``bans`` the ``(row, source * 100 +
    target)`` moves the two-squares rule forbids there (:mod:`~strat_tools.engine.moves.bans`).
    Returns ``(offsets, ids)``: row ``i``'s ids are ``ids[offsets[i]:offsets[i + 1]]``.
    A position whose flag fell is the caller's to leave out (its board still has moves).
    ``compiled`` sends batches of :data:`KERNEL_ROWS` rows or more through the compiled
    loop where numba is installed and the rule set is one it covers (the same ids; off by
    default, and the same path for the same call whatever ran before).
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
        return _in_chunks(board, side, rules, bans, compiled)
    classes = move_classes(rules)
    if (
        compiled
        and n >= KERNEL_ROWS
        and not (classes.short or classes.captains)
        and kernel.available()
    ):
        found = kernel.compiled_ids(board, side, classes.bits)  # None: numba failed
        if found is not None:
            offsets, ids = found
            return without_bans(offsets, ids, bans, side) if bans else (offsets, ids)
    cls = view_boards(classes.bits, board, side)
    movers, steps, far = candidates(cls)
    if bans:
        bans = clear_banned_steps(movers, steps, far, bans, side)
    reach = far_codes(board, side, cls, movers[far], steps[far], classes)
    if n == 1:
        codes = NIBBLE_CODE[steps]
        codes[far] = reach
        offsets, ids = expand_one(movers, codes)
    else:
        offsets, ids = expand(movers, steps, far, reach, n)
    if classes.captains and len(far):
        turns = turn_keys(board, side, cls, movers[far], classes)
        offsets, ids = _with_turns(offsets, ids, turns)
    if bans:
        offsets, ids = without_bans(offsets, ids, bans, side)
    return offsets, ids


Moves = tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]
"""``(offsets, ids)`` of the legal moves of a run of positions, a list per position (what
:func:`legal_ids` returns)."""

KERNEL_ROWS = 64
"""From this many rows on, a call with ``compiled=True`` sends a rule set the compiled loop
covers through it (:mod:`strat_tools.engine.moves.kernel`, where numba is installed); fewer
rows (a position of the stepping API) cost less in NumPy's stages than numba's call.
Importing and loading numba costs about 0.4 s once a process, what the compiled loop saves
on about a million rows (0.85 against 0.4 µs a row): worth asking for a long run (a
self-play corpus), not for a month."""


COMPILED_FROM_GAMES: Final = 5000
"""From this many games on, a run asks for the compiled loop (:func:`compiled_pays`):
about 1.5 million plies, so each of two processes earns its 0.4 s of numba import and load
back (the old per-process switch went compiled after a million rows); a month (about
1,000 games) stays with NumPy. Figures in docs/observations.md (*Size and speed*)."""


def compiled_pays(games: int) -> bool:
    """Whether a run over ``games`` game files should ask for the compiled loop: numba is
    installed and the run is long enough to earn its import back (:data:`COMPILED_FROM_GAMES`).
    A caller decides once, before its run, from its input (never from what ran before).

    >>> compiled_pays(1024)
    False
    """
    return games >= COMPILED_FROM_GAMES and kernel.available()


CHUNK_ROWS: Final = 8192
"""Rows :func:`legal_ids` takes at once: about 800 kB a byte array, so each whole-board step
runs in the processor's cache (a batch of 200 games, 60,000 rows, was a tenth slower in
one piece, on strados2014-5)."""


def _in_chunks(
    board: npt.NDArray[np.uint8],
    side: npt.NDArray[np.uint8],
    rules: RuleSet,
    bans: Sequence[tuple[int, int]],
    compiled: bool,
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
        part = legal_ids(
            board[start:stop], side[start:stop], rules, by_chunk.get(index, ()), compiled=compiled
        )
        offsets.append(part[0][1:] + total)
        ids.append(part[1])
        total += int(part[0][-1])
    return np.concatenate(offsets), np.concatenate(ids)


def games_legal_ids(
    games: Sequence[tuple[npt.NDArray[np.uint8], Sequence[tuple[int, int]]]],
    rules: RuleSet,
    *,
    compiled: bool = False,
) -> list[Moves]:
    """:func:`legal_ids` of several games under one rule set in one call, split back per
    game: each game is the boards before its plies (red moves first) and its bans (rows
    counted from its first ply). One call over a batch of games costs far less than a
    call per game (NumPy's cost per call is paid once). ``compiled`` as for
    :func:`legal_ids`.

    >>> from strat_tools.core.rules import get_rules
    >>> board = np.zeros((1, 100), np.uint8)
    >>> board[0, 31] = 5  # a red lieutenant on B4 (lakes left out: only B4's moves matter)
    >>> moves = games_legal_ids([(board, []), (board, [])], get_rules("classic"))
    >>> [ids.tolist() for _, ids in moves]
    [[3121, 3130, 3132, 3141], [3121, 3130, 3132, 3141]]
    """
    if not games:
        return []
    joined, starts, bans = join_games(games)
    offsets, ids = legal_ids(joined, game_sides(len(joined)), rules, bans, compiled=compiled)
    found: list[Moves] = []
    for start, (boards, _) in zip(starts, games, strict=False):
        stop = start + len(boards)
        first, last = int(offsets[start]), int(offsets[stop])
        found.append((offsets[start : stop + 1] - first, ids[first:last]))
    return found


def join_games(
    games: Sequence[tuple[npt.NDArray[np.uint8], Sequence[tuple[int, int]]]],
) -> tuple[npt.NDArray[np.uint8], list[int], list[tuple[int, int]]]:
    """The boards of several games as one ``[rows, 100]`` array whose sides alternate from
    red (:func:`game_sides`), each game's first row, and their bans counted from the first
    row: a game of odd length is followed by one empty board (no moves), so that the sides
    alternate over the whole batch, which the turn into the movers' views takes fastest.

    >>> boards, starts, bans = join_games([(np.ones((3, 100), np.uint8), [(2, 3141)])] * 2)
    >>> boards.shape, starts, bans
    ((8, 100), [0, 4], [(2, 3141), (6, 3141)])
    """
    boards = [np.asarray(b, np.uint8).reshape(-1, 100) for b, _ in games]
    sizes = [len(b) + len(b) % 2 for b in boards]
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64).tolist()
    joined = np.empty((starts[-1], 100), np.uint8)  # not zeros: calloc's fresh pages fault
    for start, game in zip(starts, boards, strict=False):
        joined[start : start + len(game)] = game
        if len(game) % 2:
            joined[start + len(game)] = 0
    bans = [
        (start + row, key)
        for (_, bans_of_game), start in zip(games, starts, strict=False)
        for row, key in bans_of_game
    ]
    return joined, starts[:-1], bans


def game_sides(n: int) -> npt.NDArray[np.uint8]:
    """The side to move before each of a game's ``n`` plies: red (1), blue (2), red ...

    >>> game_sides(3).tolist()
    [1, 2, 1]
    """
    sides = np.full(n, 2, np.uint8)
    sides[::2] = 1
    return sides


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


def position_ids(pos: PositionState) -> npt.NDArray[np.int16]:
    """Our ids of every legal move of ``pos`` (the side to move's view), ascending; none
    once the flag fell."""
    if pos.winner:
        return np.zeros(0, np.int16)
    bans = [(0, key) for key in repetition_bans(pos)]
    board = np.frombuffer(bytes(pos.board), np.uint8)
    return legal_ids(board, np.full(1, pos.side, np.uint8), pos.rules, bans)[1]


def position_pairs(pos: PositionState) -> list[tuple[int, int]]:
    """Every legal ``(source, target)`` of ``pos`` in Gravon squares, ascending."""
    keys = position_ids(pos).astype(np.int64)
    if pos.side == 2:
        keys = view_keys(keys[::-1], True)
    return [divmod(key, 100) for key in keys.tolist()]
