"""The two-squares bans of the batch move generator: which moves the rule forbids, and their
removal from the generated ids.

The generator (:func:`~strat_tools.engine.moves.legal_ids`) knows where pieces can go; the
two-squares rule needs a position's rule state too. The rule itself (how a move's
back-and-forth chain counts, the scout clause's shared squares) is stated once, in
:meth:`Position.repetition <strat_tools.engine.position.position.Position.repetition>` and
:func:`~strat_tools.engine.rules.chains.scout_chain`, and the rule set's limit and which pieces
count under the clause in :mod:`strat_tools.engine.rules.rule_tables`. This module names the moves
that rule bans, as ``(row, source * 100 + target)`` pairs, Gravon squares:

* only the piece its side moved last can continue a chain, and only from the chain length
  :func:`ban_from` on can going on break the limit (the one gate of both calls below);
* :func:`repetition_bans`: on one position, the moves of that piece
  :meth:`Position.repetition` counts over the limit;
* :func:`chain_bans`: before each ply of a replayed game, read off the replay's own
  chains without playing it again: a piece that is not a scout under the scout clause
  may not go straight back; the plies of a scout under the clause (whose chain spans
  squares) are returned for :func:`~strat_tools.engine.moves.games.two_squares_bans` to
  ask :func:`repetition_bans` on a position;
* :func:`clear_banned_steps` and :func:`without_bans`: the generator's removal of them.

No floor above the engine knows any of this (``tests/test_structure.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import RAYS
from strat_tools.core.rules import RuleSet
from strat_tools.engine.information.mover_view import view_keys
from strat_tools.engine.moves.tables import DIAGONAL, PAD, STEPS
from strat_tools.engine.replays.replayed import Replayed
from strat_tools.engine.rules.rule_state import RuleState
from strat_tools.engine.rules.rule_tables import rule_tables

__all__ = [
    "PositionState",
    "ReplayedGame",
    "ban_from",
    "chain_bans",
    "clear_banned_steps",
    "repetition_bans",
    "without_bans",
]


class PositionState(Protocol):
    """What the one-position calls read of a :class:`~strat_tools.engine.position.position.Position`
    (a type only: the position imports the generator, not the other way round)."""

    @property
    def board(self) -> list[int]: ...

    @property
    def side(self) -> int: ...

    @property
    def limit(self) -> int: ...

    @property
    def rules(self) -> RuleSet: ...

    @property
    def winner(self) -> int: ...

    @property
    def state(self) -> RuleState: ...

    def repetition(self, source: int, target: int, side: int = 0) -> tuple[int, int, int]: ...


class ReplayedGame(Replayed, Protocol):
    """What the bans need of a replay (:class:`~strat_tools.engine.replays.replay.Replay` has it):
    a :class:`~strat_tools.engine.replays.replayed.Replayed` game (its record, rule set and the
    rescues the replay resolved) with each ply's two-squares chain after it."""

    @property
    def chains(self) -> Sequence[int]: ...


def ban_from(limit: int) -> int:
    """The chain length from which the two-squares rule may forbid a move of the piece its
    side moved last: going on with a chain of ``chain`` moves makes it ``chain + 1``, over
    ``limit`` from ``chain == limit`` on; under a limit below 2, any chain (a scout's chain
    recounted under the clause may count two). Every other move starts a chain of one.

    >>> ban_from(3), ban_from(1)
    (3, 0)
    """
    return limit if limit >= 2 else 0


def repetition_bans(pos: PositionState) -> list[int]:
    """The moves (``source * 100 + target``, Gravon squares) of the side to move that only
    the two-squares rule forbids in ``pos``: none unless its last-moved piece's chain is at
    :func:`ban_from`; then :meth:`Position.repetition` judges each square that piece could
    reach.

    >>> from strat_tools.engine.position.position import Position
    >>> repetition_bans(Position([0] * 100, "gravon-2013"))
    []
    """
    side, limit = pos.side, pos.limit
    chain = pos.state.chain(side)
    last = chain.key
    if last < 0 or chain.length < ban_from(limit):
        return []
    moved = last % 100
    reachable = [t for ray in RAYS[moved] for t in ray]
    reachable += [int(t) for t in DIAGONAL[moved] if t != PAD]
    return [
        moved * 100 + target
        for target in reachable
        if pos.repetition(moved, target, side)[0] > limit
    ]


def chain_bans(
    result: ReplayedGame, n: int, boards: npt.NDArray[np.uint8], start: int = 0
) -> tuple[list[tuple[int, int]], list[int]]:
    """The ``(ply index, source * 100 + target)`` moves the two-squares rule bans before
    each of the plies ``start`` to ``n - 1`` (counted from 0) of a replayed game
    (``boards``: the boards before them; the indices counted from ``start``), read off the
    replay's :attr:`~strat_tools.engine.replays.replay.Replay.chains`, and the plies (ascending,
    counted from 0) where the piece at the limit is a scout under the scout clause, whose
    bans only a position knows (:func:`repetition_bans`).

    Before ply ``i`` the side to move last moved at ply ``i - 2``; once that chain is at
    :func:`ban_from`, a piece that does not count under the clause may not go straight back
    (as :meth:`Position.repetition` counts it)."""
    tables = rule_tables(result.rules)
    limit = tables.limit
    if n < 3:
        return [], []
    record = result.record
    low = max(start - 2, 0)
    chains = np.asarray(result.chains[low : n - 2], np.int64)
    gated = np.flatnonzero(chains >= ban_from(limit)) + low + 2
    gated = gated[gated >= start]
    if not len(gated):
        return [], []
    sources = np.asarray(record.sources[low : n - 2], np.int64)[gated - 2 - low]
    moved = np.asarray(record.targets[low : n - 2], np.int64)[gated - 2 - low]
    spans = np.asarray(tables.spans, np.bool_)
    clause = spans[boards[gated - start, moved]]
    bans = [
        (int(i) - start, int(m * 100 + s))
        for i, m, s in zip(gated[~clause], moved[~clause], sources[~clause], strict=True)
    ]
    return bans, gated[clause].tolist()


def clear_banned_steps(
    movers: npt.NDArray[np.intp],
    steps: npt.NDArray[np.uint8],
    far: npt.NDArray[np.intp],
    bans: Sequence[tuple[int, int]],
    side: npt.NDArray[np.uint8],
) -> list[tuple[int, int]]:
    """Take the bans of pieces that move one square out of their step bits (``steps`` of
    ``movers``, :func:`~strat_tools.engine.moves.scan.candidates`), before any id is
    written; the bans of far pieces (a ray less one square) are returned, for
    :func:`without_bans`. A ban whose source is no mover bans nothing there."""
    ban_rows = np.fromiter((row for row, _ in bans), np.intp, len(bans))
    keys = view_keys(np.fromiter((key for _, key in bans), np.intp, len(bans)), side[ban_rows] == 2)
    sources, targets = np.divmod(keys, 100)
    at = np.searchsorted(movers, ban_rows * 100 + sources)
    found = at < len(movers)
    found[found] = movers[at[found]] == (ban_rows * 100 + sources)[found]
    is_far = np.zeros(len(movers) + 1, np.bool_)
    is_far[far] = True
    direction = _DIRECTION_OF[targets - sources + 99]  # -1: not one square
    one = found & ~is_far[at] & (direction >= 0)
    np.bitwise_and.at(steps, at[one], ~(1 << direction[one]).astype(np.uint8))
    rest = np.flatnonzero(found & is_far[at])
    return [bans[i] for i in rest.tolist()]


_DIRECTION_OF: Final = np.full(199, -1, np.int8)
"""Per ``target - source + 99``: the index in :data:`STEPS` of that one-square step, or -1."""
_DIRECTION_OF[np.add(STEPS, 99)] = np.arange(4)


def without_bans(
    offsets: npt.NDArray[np.int32],
    ids: npt.NDArray[np.int16],
    bans: Sequence[tuple[int, int]],
    side: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """The moves ``(offsets, ids)`` less the banned ones (``(row, source * 100 + target)``,
    absolute squares): each looked up among its own row's ids only."""
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
    # The ids between the dropped ones, joined: a few slices (np.delete would mask all).
    bounds = [-1, *drop.tolist(), len(ids)]
    return kept, np.concatenate([ids[a + 1 : b] for a, b in itertools.pairwise(bounds)])
