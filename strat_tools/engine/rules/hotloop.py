"""The replay engine's hot loop: check and play a run of ordinary plies on a flat board.

:func:`play_span` plays recorded plies on a :class:`~strat_tools.engine.position.position.Position`
with every check the rules make (the right side, an own movable piece, target on the board,
not a lake, not an own piece, a straight line, the piece's reach, a scout's clear path, the
two-squares rule with the scout clause, battles, nothing after the flag fell) and stops at the
first ply it does not play itself: an illegal move, a move after the flag fell, a turning
lightning captain, or any ply after a rescue. The caller (``replay.py``) plays that ply with
:class:`Position`, where the rules live once, and reports it if it is illegal.

Why it looks the way it does (measured on the archive, see bench/bench_engine.py): the loop
runs once per ply of every game, so it touches only ints, locals and flat tables. It plays two
plies per iteration, first the side to move (``a``) then the other (``b``), so neither side's
state needs a lookup by side: each side's last move and two-squares chain are local ints, and
the chain is counted lazily (a move that is not straight back stores nothing). The common ply
(one square, a piece that is not a scout under the scout clause) costs one three-level table
lookup (``one_step[side][piece][source][target]``); a scout starting a chain with one square
takes a short branch; longer moves, scouts going on under the clause and battles take longer
ones. Unreadable squares (-1) index all-zero rows and columns (``ADJACENT_ROWS`` is 101 x 101,
the other tables are keyed ``source * 128 + target``), so they stop the loop without a
separate scan of the move lists.

The two halves of the loop body are the same code for the two sides; change them together
(the tests in tests/test_hotloop.py replay random legal and illegal games both ways).

This module knows no XML and no records; it does not report diagnostics (the caller does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from strat_tools.core.board import LAKES, RAYS
from strat_tools.engine.rules.chains import CHAIN_KEPT, scout_chain
from strat_tools.engine.rules.rule_state import OTHER_SIDE, Chain, RuleState
from strat_tools.engine.rules.rule_tables import ADJACENT_ROWS, RuleTables

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
NO_MOVE: Final = (-1, -1)
"""Padding for the second half of the last pair: an unreadable move, which stops the loop."""


def play_span(
    board: list[int],
    state: RuleState,
    tables: RuleTables,
    sources: Sequence[int],
    targets: Sequence[int],
    start: int,
    stop: int,
    columns: tuple[list[int], list[int], list[int], list[int], list[int], list[int]],
) -> tuple[int, RuleState]:
    """Play plies ``start..stop-1`` on ``board`` (changed in place) from rule ``state``
    under the rule ``tables`` while they are ordinary and legal; return the index of the
    first ply not played (``stop`` when all were) and the rule state after the last played
    ply. :meth:`Position.play_span <strat_tools.engine.position.position.Position.play_span>` calls
    it with its own board and state, and keeps what it returns.

    ``columns`` are the replay's per-ply lists (movers, defenders, outcomes, distances,
    revealed, chains), filled at the played indices; distances and chains must hold 1 and
    the others 0 there. ``chains`` gets the length of the mover's two-squares chain after
    each ply that goes on with one (the others start a chain of 1, the value already there).
    Squares are 0..99, or -1 for an unreadable one (that ply is not played).
    """
    if stop - start > 1 and (stop - start) % 2:
        # An odd span: the pairs first, then the last ply alone (only a short list to pad).
        index, state = play_span(board, state, tables, sources, targets, start, stop - 1, columns)
        if index < stop - 1:
            return index, state
        start = index
    if state.winner or state.rescuers or start >= stop:
        return start, state
    movers, defenders, outcomes, distances, revealed, chains = columns
    steps, limit = tables.steps, tables.limit
    battle = tables.battle_rows
    a = int(state.side)
    b = 3 - a
    one_a, one_b = tables.one_step[a], tables.one_step[b]
    kind_a, kind_b = tables.reach_kind[a], tables.reach_kind[b]
    clause_a, clause_b = tables.clause[a], tables.clause[b]
    own_a, own_b = tables.own[a], tables.own[b]
    reveal = tables.reveal
    lost = [list(state.captured[0]), list(state.captured[1])]
    lost_a, lost_b = lost[a - 1].append, lost[b - 1].append
    winner = 0
    adjacent, distance_of, step_of, path_of = ADJACENT_ROWS, DISTANCE_128, STEP_128, PATH_128
    square_at = board.__getitem__
    # Each side's two-squares chain: its length (a_cnt) holds for the chain's move at index
    # a_next - 2; a move that is not straight back leaves it, so a later back move that
    # finds a_next stale starts a new chain (the common move stores nothing). a_lo..a_hi
    # is the span a scout's chain shares under the scout clause (a_lo -1: a plain chain).
    chain_a, chain_b = state.chains[a - 1], state.chains[b - 1]
    a_cnt, a_lo, a_hi = chain_a.length, chain_a.lo, chain_a.hi
    b_cnt, b_lo, b_hi = chain_b.length, chain_b.lo, chain_b.hi
    # A scout's chain as its squares (for recounting one that stops sharing two squares).
    a_path, b_path = chain_a.path, chain_b.path
    a_next, b_next = start, start + 1
    # Each side's last move (-1 before its first). Two plies per iteration, read from one
    # iterator each (the whole game's lists when the span is the game: no copy); a single
    # ply is padded with an unreadable move, which stops the loop after it.
    a_last, b_last = chain_a.key, chain_b.key
    a_src, a_tgt = divmod(a_last, 100) if a_last >= 0 else NO_MOVE
    b_src, b_tgt = divmod(b_last, 100) if b_last >= 0 else NO_MOVE
    if stop - start == 1:
        moves_src, moves_tgt = iter((sources[start], -1)), iter((targets[start], -1))
    elif start == 0 and stop == len(sources):
        moves_src, moves_tgt = iter(sources), iter(targets)
    else:
        moves_src, moves_tgt = iter(sources[start:stop]), iter(targets[start:stop])
    index = stop
    ia = start - 2
    for sa, ta, sb, tb in zip(moves_src, moves_tgt, moves_src, moves_tgt, strict=False):
        ia += 2
        ib = ia + 1
        # ---- side a. Step 1: an own piece, a legal line, not onto an own piece.
        pa = board[sa]
        if one_a[pa][sa][ta]:
            qa = board[ta]
            if qa and own_a[qa]:
                index = ia
                break
            # Step 2: the two-squares rule (straight back continues the chain).
            if ta == a_src and sa == a_tgt:
                if a_next != ia:
                    a_cnt = 1
                if a_cnt >= limit:
                    index = ia
                    break
                a_cnt, a_lo = a_cnt + 1, -1
                a_next = ia + 2
                chains[ia] = a_cnt
        elif clause_a[pa] and sa != a_tgt and adjacent[sa][ta]:
            # A scout under the scout clause, one square, not going on from its last move:
            # a new chain, as for any piece.
            qa = board[ta]
            if qa and own_a[qa]:
                index = ia
                break
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
                pass
            elif ka == 3:
                if ta == a_src:
                    if a_next != ia:
                        a_cnt = 1
                    if a_cnt >= limit:
                        index = ia
                        break
                    a_cnt, a_lo = a_cnt + 1, -1
                    a_next = ia + 2
                    chains[ia] = a_cnt
            elif step_of[key] == -step_of[a_src * 128 + sa]:
                # Scout clause: a reversing move on one line goes on while the moves share
                # two squares (a chain of 1 spans its own move).
                unit = 1 if -10 < step_of[key] < 10 else 10
                low, high = (sa, ta) if sa < ta else (ta, sa)
                prev_low, prev_high = (a_src, sa) if a_src < sa else (sa, a_src)
                if a_next != ia:
                    a_cnt, a_lo, a_hi, a_path = 1, prev_low, prev_high, (a_src, sa)
                span_low, span_high = max(a_lo, low), min(a_hi, high)
                if span_high - span_low >= unit:
                    if a_cnt >= limit:
                        index = ia
                        break
                    a_cnt, a_lo, a_hi = a_cnt + 1, span_low, span_high
                    a_path = (*a_path[1 - CHAIN_KEPT :], ta)
                else:
                    count, span_low, span_high = scout_chain(a_path, ta, unit)
                    if count > limit:
                        index = ia
                        break
                    a_cnt, a_lo, a_hi = count, span_low, span_high
                    a_path = (*a_path[-min(count, CHAIN_KEPT - 1) :], ta)
                a_next = ia + 2
                chains[ia] = a_cnt
            if da != 1:
                distances[ia] = da
                revealed[ia] = 1
        # Step 3: move, or resolve the battle.
        a_src, a_tgt = sa, ta
        movers[ia] = pa
        board[sa] = 0
        if qa:
            outcome = battle[pa][qa]
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
                winner = a
                index = ia + 1
                break
        else:
            board[ta] = pa
        # ---- side b: the same steps with b's tables and chain.
        pb = board[sb]
        if one_b[pb][sb][tb]:
            qb = board[tb]
            if qb and own_b[qb]:
                index = ib
                break
            if tb == b_src and sb == b_tgt:
                if b_next != ib:
                    b_cnt = 1
                if b_cnt >= limit:
                    index = ib
                    break
                b_cnt, b_lo = b_cnt + 1, -1
                b_next = ib + 2
                chains[ib] = b_cnt
        elif clause_b[pb] and sb != b_tgt and adjacent[sb][tb]:
            # A scout under the scout clause, one square, not going on from its last move:
            # a new chain, as for any piece.
            qb = board[tb]
            if qb and own_b[qb]:
                index = ib
                break
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
                pass
            elif kb == 3:
                if tb == b_src:
                    if b_next != ib:
                        b_cnt = 1
                    if b_cnt >= limit:
                        index = ib
                        break
                    b_cnt, b_lo = b_cnt + 1, -1
                    b_next = ib + 2
                    chains[ib] = b_cnt
            elif step_of[key] == -step_of[b_src * 128 + sb]:
                unit = 1 if -10 < step_of[key] < 10 else 10
                low, high = (sb, tb) if sb < tb else (tb, sb)
                prev_low, prev_high = (b_src, sb) if b_src < sb else (sb, b_src)
                if b_next != ib:
                    b_cnt, b_lo, b_hi, b_path = 1, prev_low, prev_high, (b_src, sb)
                span_low, span_high = max(b_lo, low), min(b_hi, high)
                if span_high - span_low >= unit:
                    if b_cnt >= limit:
                        index = ib
                        break
                    b_cnt, b_lo, b_hi = b_cnt + 1, span_low, span_high
                    b_path = (*b_path[1 - CHAIN_KEPT :], tb)
                else:
                    count, span_low, span_high = scout_chain(b_path, tb, unit)
                    if count > limit:
                        index = ib
                        break
                    b_cnt, b_lo, b_hi = count, span_low, span_high
                    b_path = (*b_path[-min(count, CHAIN_KEPT - 1) :], tb)
                b_next = ib + 2
                chains[ib] = b_cnt
            if db != 1:
                distances[ib] = db
                revealed[ib] = 1
        b_src, b_tgt = sb, tb
        movers[ib] = pb
        board[sb] = 0
        if qb:
            outcome = battle[pb][qb]
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
                winner = b
                index = ib + 1
                break
        else:
            board[tb] = pb
    # Each side's last played move and chain, as Position keeps them.
    played = index - start
    if played >= 1:
        last = start + (played - 1) // 2 * 2
        length = a_cnt if a_next == last + 2 else 1
        chain_a = _chain(sources[last], targets[last], length, a_lo, a_hi, a_path)
    if played >= 2:
        last = start + 1 + (played - 2) // 2 * 2
        length = b_cnt if b_next == last + 2 else 1
        chain_b = _chain(sources[last], targets[last], length, b_lo, b_hi, b_path)
    return index, RuleState(
        OTHER_SIDE[b] if played % 2 == 0 else OTHER_SIDE[a],  # a Side, no enum call
        state.plies + played,
        winner,
        (chain_a, chain_b) if a == 1 else (chain_b, chain_a),
        (tuple(lost[0]), tuple(lost[1])),
        state.rescued,
        state.rescuers,
    )


def _chain(
    source: int, target: int, length: int, low: int, high: int, path: tuple[int, ...]
) -> Chain:
    """One side's last move and two-squares chain as :class:`Position` keeps them.

    A span ``low`` of -1 marks a plain chain (not under the scout clause): like a chain of
    one, :class:`Position` keeps the move's own squares as its span, and the chain's squares
    go back and forth between the move's two (``path`` is the loop's only for a scout's chain).
    """
    if length == 1 or low < 0:
        low, high = (source, target) if source < target else (target, source)
        kept = min(length, CHAIN_KEPT - 1)
        # The last kept + 1 squares of source, target, source, target ... (ending at target).
        path = ((source, target) * (kept // 2 + 1))[-(kept + 1) :]
    return Chain(source * 100 + target, length, low, high, path)
