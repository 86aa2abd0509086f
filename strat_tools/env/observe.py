"""What the environment shows a player: truth-free planes, kept up to date one push at a time.

:class:`Observer` follows a :class:`~strat_tools.engine.position.position.Position` as moves are
pushed on it, through the knowledge model's resumable step
(:class:`~strat_tools.engine.information.knowledge.KnowledgeState`: what a move, a battle and a
rescue show, stated once in ``engine/information/knowledge.py``), so an observation costs the same
at ply 10 as at ply 100,000. :meth:`Observer.planes` gives a side's view as the planes of
``engine/information/planes.py`` (:data:`~strat_tools.engine.information.planes.CHANNELS`), channels
last: its own pieces by kind and what the opponent knows of them, the opponent's pieces by kind only
where the side has identified them (an unidentified one shows only whether it has moved), lakes and
empty squares. The hidden truth of the observation board's low bits never leaves this module.

This is the one place the environment builds observations; a truth-free view offered by
``Position`` itself can replace it here without touching the environment.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side
from strat_tools.engine.information.knowledge import KnowledgeState
from strat_tools.engine.information.planes import CHANNELS, encode_boards, to_planes
from strat_tools.engine.position.position import Position

__all__ = ["PLANES_SHAPE", "Observer"]

PLANES_SHAPE: Final = (10, 10, len(CHANNELS))
"""An observation's planes: row 0 the observer's back row, column 0 its left, then the
channels of :data:`~strat_tools.engine.information.planes.CHANNELS` (channels last, as PettingZoo's
board games lay them out)."""


class Observer:
    """Each side's knowledge of one game, followed from its start position.

    >>> from strat_tools.formats.readers import read_records
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> pos = Position(record.setup, "gravon-2013")
    >>> seen = Observer(pos)
    >>> _ = pos.push("I4-I5"); seen.pushed(pos)
    >>> planes = seen.planes(Side.BLUE)  # blue saw a red piece move, not what it is
    >>> planes.shape, int(planes[..., CHANNELS.index("opponent_unknown_moved")].sum())
    ((10, 10, 32), 1)
    """

    __slots__ = ("_state",)

    def __init__(self, start: Position) -> None:
        """Start from ``start`` as it stands now (nothing known of either army: a setup,
        or a position given as a StraDos3 string); :meth:`follow` replays a position's move
        stack instead."""
        self._state = KnowledgeState(start.board, start.rules)

    @classmethod
    def follow(cls, pos: Position) -> Observer:
        """The knowledge after every move on ``pos``'s move stack, from the oldest
        position on it (what ``pos.knowledge()`` gives for its last row)."""
        entries = []
        entry = pos.history
        while entry is not None:
            entries.append(entry)
            entry = entry.previous
        entries.reverse()
        if not entries:
            return cls(pos)
        seen = cls.__new__(cls)
        seen._state = KnowledgeState(entries[0].board, pos.rules)
        seen._state.play_plies(
            (e.move.source, e.move.target, *e.event, e.move.rescue) for e in entries
        )
        return seen

    def pushed(self, pos: Position) -> None:
        """Bring the knowledge past the move just pushed on ``pos``."""
        last = pos.history
        if last is None:
            raise ValueError("no move was pushed on this position")
        move = last.move
        self._state.play_plies([(move.source, move.target, *last.event, move.rescue)])

    def planes(self, side: Side | int) -> npt.NDArray[np.bool_]:
        """``side``'s view now, as :data:`PLANES_SHAPE` booleans (a fresh array)."""
        state = self._state
        board = np.frombuffer(state.board, dtype=np.uint8)[None]
        flags = np.frombuffer(state.flags, dtype=np.uint8)[None]
        planes = to_planes(encode_boards(board, flags, [int(side)]))[0]
        return np.ascontiguousarray(planes.transpose(1, 2, 0))

    def unseen(self, side: Side | int) -> npt.NDArray[np.uint8]:
        """How many of the opponent's pieces of each kind (bomb, spy ... flag) ``side`` has
        not identified yet, on the board or captured."""
        start = (int(side) - 1) * 12
        return np.frombuffer(self._state.unseen, dtype=np.uint8)[start : start + 12].copy()
