"""The positions of a replayed game, one per ply: what :func:`strat_tools.engine.stepping.positions`
and :meth:`Replay.position <strat_tools.engine.replay.Replay.position>` yield.

This module knows no XML and replays nothing: it plays a replay's moves again on a
:class:`~strat_tools.engine.position.Position`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from strat_tools.core.records import RecordError
from strat_tools.engine.position import Position

if TYPE_CHECKING:
    from strat_tools.engine.replay import Replay


def walk(result: Replay, upto: int | None = None) -> Iterator[Position]:
    """The positions before the first ``upto`` replayed plies of ``result`` (all of them
    if None): :func:`positions` of an existing replay."""
    record = result.record
    if record.setup is None:
        raise RecordError(f"{record.game_id}: the record has no setup to step through")
    n = result.plies_replayed if upto is None else min(upto, result.plies_replayed)
    pos = Position(record.setup, result.rules)
    for index in range(n):
        yield pos.copy()
        rescue = None
        if index + 1 in result.rescued:
            square = record.rescues[index + 1].square
            assert square is not None  # the replay played this rescue
            rescue = (square, result.rescued[index + 1])
        pos.push(record.sources[index], record.targets[index], rescue)
    if upto is not None and upto > n:
        yield pos


def position_of(result: Replay, ply: int) -> Position:
    """The position before ``ply`` of a replayed game (1: the setup; ``plies_replayed +
    1``: after its last replayed move); ``ValueError`` for any other ply."""
    last = result.plies_replayed + 1
    if not 1 <= ply <= last:
        raise ValueError(f"ply must be 1..{last} (the positions this replay reached), got {ply}")
    *_, pos = walk(result, ply)
    return pos
