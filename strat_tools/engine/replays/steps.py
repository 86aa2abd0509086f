"""The positions of a game already replayed, one per ply, and the ply convention they keep:
what :meth:`Replay.position <strat_tools.engine.replays.replay.Replay.position>`,
:func:`~strat_tools.engine.replays.stepping.board_at` and (after replaying a record)
:func:`strat_tools.engine.replays.stepping.positions` give.

**The ply convention** (docs/position.md): position ``n`` is the position *after* ``n``
plies (0: the setup, red to move); ply ``n`` is the ``n``-th move, the one that leads from
position ``n - 1`` to position ``n``. ``board_at(r, n)``, ``positions(r)[n]``,
``Replay.position(n)``, ``strados3_at(r, n)``, the viewer's ``#ply=n`` and the tables'
``ply`` all count this way.

This module knows no XML and replays nothing: it pushes a replay's moves again on a
:class:`~strat_tools.engine.position.position.Position`, so every position has the earlier moves on
its move stack. A position's outcome is the board's only: a resignation or a clock is the
record's ending, which :meth:`Replay.outcome <strat_tools.engine.replays.replay.Replay.outcome>`
reports (equal positions have equal outcomes, as in python-chess).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from strat_tools.core.move import MoveError
from strat_tools.core.records import RecordError
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replayed import Replayed

if TYPE_CHECKING:
    from strat_tools.engine.information.cursor import KnowledgeCursor

__all__ = ["position_of", "walk"]


def walk(result: Replayed, upto: int | None = None) -> Iterator[Position]:
    """The positions after 0, 1, ... ``upto`` plies of ``result`` (every replayed ply if
    None, ``upto`` capped at the plies replayed), each its own copy."""
    record = result.record
    if record.setup is None:
        raise RecordError(f"{record.game_id}: the record has no setup to step through")
    from strat_tools.engine.information.cursor import advanced

    n = result.plies_replayed if upto is None else min(upto, result.plies_replayed)
    pos = Position(record.setup, result.rules)
    # One knowledge cursor for the copies: each brings it past the moves since the copy
    # before it, so observing every position of a game costs its length, not its square
    # (a copy that goes its own way starts its own, correct either way).
    shared = advanced(None, pos)
    for index in range(n):
        yield _sharing(pos, shared)
        rescue = None
        if index + 1 in result.rescued:
            square = record.rescues[index + 1].square
            assert square is not None  # the replay played this rescue
            rescue = (square, result.rescued[index + 1])
        pos.push(record.sources[index], record.targets[index], rescue)
    pos.seen = shared
    yield pos


def _sharing(pos: Position, cursor: KnowledgeCursor) -> Position:
    """A copy of ``pos`` (which keeps no cursor of its own) reading ``cursor``."""
    other = pos.copy()
    other.seen = cursor
    return other


def position_of(result: Replayed, ply: int) -> Position:
    """The position after ``ply`` plies of a replayed game (0: the setup; ``plies_replayed``:
    after its last replayed move); :class:`~strat_tools.core.move.MoveError` (a
    ``ValueError``) for any other ply."""
    last = result.plies_replayed
    if isinstance(ply, bool) or not isinstance(ply, int):
        raise MoveError(f"a ply is an int 0..{last}, got {ply!r}")
    if not 0 <= ply <= last:
        raise MoveError(
            f"ply must be 0..{last} (the positions after each ply this replay reached), got {ply}"
        )
    *_, pos = walk(result, ply)
    return pos
