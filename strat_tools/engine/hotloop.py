"""The replay engine's hot loop: check and play a run of ordinary plies on a flat board.

:func:`play_span` plays recorded plies on a :class:`~strat_tools.engine.position.Position`
with every check the rules make (the right side, an own movable piece, target on the board,
not a lake, not an own piece, a straight line, the piece's reach, a scout's clear path, the
two-squares rule with the scout clause, battles, nothing after the flag fell) and stops at the
first ply it does not play itself: an illegal move, a move after the flag fell, a turning
lightning captain, or any ply after a rescue. The caller (``replay.py``) plays that ply with
:class:`Position`, where the rules live once, and reports it if it is illegal.

Why it looks the way it does (measured on the archive, see bench/bench_engine.py): the loop
runs once per ply of every game, so it touches only ints, locals and flat tables. It plays two
plies per iteration, first the side to move (``a``) then the other (``b``), so neither side's
state needs a lookup by side; each side's two-squares chain is three local ints. The common
ply (one square, a piece that is not a scout under the scout clause) costs one table lookup
for the piece and one for the geometry; scouts, lightning captains and battles take longer
branches. Squares are keyed ``source * 128 + target``: an unreadable square (-1) lands on a
zero entry, so it stops the loop without a separate scan.

The two halves of the loop body are the same code for the two sides; change them together
(the tests in tests/test_hotloop.py replay random legal and illegal games both ways).

This module knows no XML and no records; it does not report diagnostics (the caller does).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count
from typing import TYPE_CHECKING, Final

from strat_tools.board import LAKES, RAYS

if TYPE_CHECKING:
    from strat_tools.engine.position import Position

STRIDE: Final = 128
"""Key of a move in the hot loop's tables: ``source * STRIDE + target``."""


def _stride_tables() -> tuple[list[int], list[int], list[int], list[tuple[int, ...]]]:
    """One-square flags, distances, unit steps and passed squares per ``source * 128 + target``.

    128 x 128 entries: keys with a square of -1 (or past 99) index rows or columns that no
    move uses, so every table reads 0 (or an empty path) there.
    """
    size = STRIDE * STRIDE
    adjacent, distance, step = [0] * size, [0] * size, [0] * size
    path: list[tuple[int, ...]] = [()] * size
    for source in range(100):
        if source in LAKES:
            continue
        for ray, unit in zip(RAYS[source], (10, -10, 1, -1), strict=True):
            for index, target in enumerate(ray):
                key = source * STRIDE + target
                distance[key] = index + 1
                step[key] = unit
                path[key] = ray[:index]
                adjacent[key] = 1 if index == 0 else 0
    return adjacent, distance, step, path


ADJACENT, DISTANCE_128, STEP_128, PATH_128 = _stride_tables()
"""Per ``source * 128 + target``: 1 for a one-square lake-free orthogonal move, squares
travelled in a straight lake-free line (0 if none), the unit step, the squares passed over."""

NO_MOVE: Final = (-1, -1)
"""Padding for the second half of the last pair: an unreadable move, which stops the loop."""


def play_span(
    pos: Position,
    sources: Sequence[int],
    targets: Sequence[int],
    start: int,
    stop: int,
    columns: tuple[list[int], list[int], list[int], list[int], list[int]],
) -> int:
    """Play plies ``start..stop-1`` while they are ordinary and legal; return the index of
    the first ply not played (``stop`` when all were).

    ``columns`` are the replay's per-ply lists (movers, defenders, outcomes, distances,
    revealed), filled at the played indices; distances must hold 1 and the others 0 there.
    ``pos`` is left after the last played ply, its side to move and repetition state
    updated. Squares are 0..99, or -1 for an unreadable one (that ply is not played).
    """
    if pos.winner or pos.rescuers or start >= stop:
        return start
    movers, defenders, outcomes, distances, revealed = columns
    board, battle, steps, limit = pos.board, pos.battle, pos.steps, pos.limit
    tables = pos.tables
    a = pos.side
    b = 3 - a
    one_a, one_b = tables.one_step[a], tables.one_step[b]
    kind_a, kind_b = tables.reach_kind[a], tables.reach_kind[b]
    own_a, own_b = tables.own[a], tables.own[b]
    reveal = tables.reveal
    lost_a, lost_b = pos.captured[a].append, pos.captured[b].append
    adjacent, distance_of, step_of, path_of = ADJACENT, DISTANCE_128, STEP_128, PATH_128
    square_at = board.__getitem__
    # Each side's chain: last source and target (-1 before its first move), length, span.
    rep_key, rep_count, rep_lo, rep_hi = pos.rep_key, pos.rep_count, pos.rep_lo, pos.rep_hi
    a_src, a_tgt = divmod(rep_key[a], 100) if rep_key[a] >= 0 else NO_MOVE
    b_src, b_tgt = divmod(rep_key[b], 100) if rep_key[b] >= 0 else NO_MOVE
    a_cnt, a_lo, a_hi = rep_count[a], rep_lo[a], rep_hi[a]
    b_cnt, b_lo, b_hi = rep_count[b], rep_lo[b], rep_hi[b]
    a_sources, a_targets = sources[start:stop:2], targets[start:stop:2]
    b_sources, b_targets = sources[start + 1 : stop : 2], targets[start + 1 : stop : 2]
    if len(b_sources) < len(a_sources):
        b_sources, b_targets = [*b_sources, -1], [*b_targets, -1]
    index = stop
    pairs = zip(count(start, 2), a_sources, a_targets, count(start + 1, 2), b_sources, b_targets)
    for ia, sa, ta, ib, sb, tb in pairs:
        # ---- side a. Step 1: an own piece, a legal line, not onto an own piece.
        pa = board[sa]
        if one_a[pa] and adjacent[sa * 128 + ta]:
            qa = board[ta]
            if qa and own_a[qa]:
                index = ia
                break
            # Step 2: the two-squares rule (straight back continues the chain).
            if ta == a_src and sa == a_tgt:
                if a_cnt >= limit:
                    index = ia
                    break
                a_cnt += 1
            else:
                a_cnt = 1
        else:
            ka = kind_a[pa]
            key = sa * 128 + ta
            da = distance_of[key]
            if ka < 2 or not da or da > steps[pa]:
                index = ia
                break
            if da > 1 and any(map(square_at, path_of[key])):
                index = ia
                break
            qa = board[ta]
            if qa and own_a[qa]:
                index = ia
                break
            if sa != a_tgt:
                a_cnt = 1
            elif ka == 3:
                if ta != a_src:
                    a_cnt = 1
                elif a_cnt >= limit:
                    index = ia
                    break
                else:
                    a_cnt += 1
            elif step_of[key] == -step_of[a_src * 128 + sa]:
                # Scout clause: a reversing move on one line goes on while the moves share
                # two squares (a chain of 1 spans its own move).
                unit = 1 if -10 < step_of[key] < 10 else 10
                low, high = (sa, ta) if sa < ta else (ta, sa)
                prev_low, prev_high = (a_src, sa) if a_src < sa else (sa, a_src)
                span_low = max(prev_low if a_cnt == 1 else a_lo, low)
                span_high = min(prev_high if a_cnt == 1 else a_hi, high)
                if span_high - span_low >= unit:
                    if a_cnt >= limit:
                        index = ia
                        break
                    a_cnt, a_lo, a_hi = a_cnt + 1, span_low, span_high
                else:
                    if limit < 2:
                        index = ia
                        break
                    a_cnt, a_lo, a_hi = 2, max(prev_low, low), min(prev_high, high)
            else:
                a_cnt = 1
            if da != 1:
                distances[ia] = da
                revealed[ia] = 1
        # Step 3: move, or resolve the battle.
        a_src, a_tgt = sa, ta
        movers[ia] = pa
        board[sa] = 0
        if qa:
            outcome = battle[pa * 26 + qa]
            defenders[ia] = qa
            outcomes[ia] = outcome
            revealed[ia] = reveal[pa]
            if outcome == 1:
                board[ta] = pa
                lost_b(qa)
            elif outcome == 2:
                lost_a(pa)
            elif outcome == 3:
                board[ta] = 0
                lost_a(pa)
                lost_b(qa)
            else:
                board[ta] = pa
                lost_b(qa)
                pos.winner = a
                index = ia + 1
                break
        else:
            board[ta] = pa
        # ---- side b: the same steps with b's tables and chain.
        pb = board[sb]
        if one_b[pb] and adjacent[sb * 128 + tb]:
            qb = board[tb]
            if qb and own_b[qb]:
                index = ib
                break
            if tb == b_src and sb == b_tgt:
                if b_cnt >= limit:
                    index = ib
                    break
                b_cnt += 1
            else:
                b_cnt = 1
        else:
            kb = kind_b[pb]
            key = sb * 128 + tb
            db = distance_of[key]
            if kb < 2 or not db or db > steps[pb]:
                index = ib
                break
            if db > 1 and any(map(square_at, path_of[key])):
                index = ib
                break
            qb = board[tb]
            if qb and own_b[qb]:
                index = ib
                break
            if sb != b_tgt:
                b_cnt = 1
            elif kb == 3:
                if tb != b_src:
                    b_cnt = 1
                elif b_cnt >= limit:
                    index = ib
                    break
                else:
                    b_cnt += 1
            elif step_of[key] == -step_of[b_src * 128 + sb]:
                unit = 1 if -10 < step_of[key] < 10 else 10
                low, high = (sb, tb) if sb < tb else (tb, sb)
                prev_low, prev_high = (b_src, sb) if b_src < sb else (sb, b_src)
                span_low = max(prev_low if b_cnt == 1 else b_lo, low)
                span_high = min(prev_high if b_cnt == 1 else b_hi, high)
                if span_high - span_low >= unit:
                    if b_cnt >= limit:
                        index = ib
                        break
                    b_cnt, b_lo, b_hi = b_cnt + 1, span_low, span_high
                else:
                    if limit < 2:
                        index = ib
                        break
                    b_cnt, b_lo, b_hi = 2, max(prev_low, low), min(prev_high, high)
            else:
                b_cnt = 1
            if db != 1:
                distances[ib] = db
                revealed[ib] = 1
        b_src, b_tgt = sb, tb
        movers[ib] = pb
        board[sb] = 0
        if qb:
            outcome = battle[pb * 26 + qb]
            defenders[ib] = qb
            outcomes[ib] = outcome
            revealed[ib] = reveal[pb]
            if outcome == 1:
                board[tb] = pb
                lost_a(qb)
            elif outcome == 2:
                lost_b(pb)
            elif outcome == 3:
                board[tb] = 0
                lost_b(pb)
                lost_a(qb)
            else:
                board[tb] = pb
                lost_a(qb)
                pos.winner = b
                index = ib + 1
                break
        else:
            board[tb] = pb
    _store_chain(pos, a, a_src, a_tgt, a_cnt, a_lo, a_hi)
    _store_chain(pos, b, b_src, b_tgt, b_cnt, b_lo, b_hi)
    pos.side = a if (index - start) % 2 == 0 else b
    return index


def _store_chain(
    pos: Position, side: int, source: int, target: int, length: int, low: int, high: int
) -> None:
    """Write one side's two-squares chain back into ``pos`` as :class:`Position` keeps it."""
    if source < 0:
        return
    pos.rep_key[side] = source * 100 + target
    pos.rep_count[side] = length
    if length == 1:
        low, high = (source, target) if source < target else (target, source)
    pos.rep_lo[side], pos.rep_hi[side] = low, high
