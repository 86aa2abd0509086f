"""What the side to move of a :class:`~strat_tools.engine.position.position.Position` sees
(a mixin of it): its truth-free board view (:meth:`Observing.observe`), its beliefs and a
move policy's probabilities, from the position's knowledge cursor (``pos.seen``,
:mod:`strat_tools.engine.information.cursor`) brought past the moves pushed since it was
last asked: a game loop that pushes and observes costs a constant time a ply.

The information part of the engine sits above the position's: its cursor module is loaded
on first use (in a function), and then the cursor's own methods carry a game loop's plies,
so a ply imports nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from strat_tools.engine.information.beliefs import BeliefModel
    from strat_tools.engine.information.cursor import KnowledgeCursor, StackedPosition
    from strat_tools.engine.information.move_policy import MovePolicy, MoveProbabilities

    class Stepped(StackedPosition, Protocol):
        """A position as these methods read it (``Position``): its stack and its cursor."""

        seen: KnowledgeCursor | None

        def _cursor(self) -> KnowledgeCursor: ...


__all__ = ["Observing"]


class Observing:
    """What a position's side to move sees (see the module docstring)."""

    __slots__ = ()

    seen: KnowledgeCursor | None
    """The position's knowledge cursor (None until first asked)."""

    def observe(self: Stepped) -> npt.NDArray[np.uint8]:
        """What the side to move sees (100 bytes, its view): the truth-free board view the
        observation export writes as ``board_view`` for this ply (an opponent piece it has
        not identified keeps only whether it moved; :func:`~strat_tools.engine.information.planes.
        board_views`); ``to_planes(pos.observe()[None])`` its planes."""
        return self._cursor().view(self.side)

    def beliefs(self: Stepped, model: BeliefModel | None = None) -> dict[int, dict[str, float]]:
        """For each square holding an opponent piece the side to move has not identified,
        a distribution over its kind (``{square: {kind: probability}}``, Gravon squares,
        kinds ``bomb`` .. ``flag``), from what that side knows only (:meth:`observe` and
        the unidentified counts): the counts left, or ``model``'s
        (:mod:`strat_tools.engine.information.beliefs`)."""
        from strat_tools.engine.information.cursor import cursor_beliefs

        self.seen, found = cursor_beliefs(self, self._cursor(), model)
        return found

    def move_probabilities(self: Stepped, policy: MovePolicy | None = None) -> MoveProbabilities:
        """A move policy's distribution over exactly :attr:`legal_moves` (``dist[move]``,
        ``top(k)``, ``log_prob``, ``entropy``, ``sample``; ``ids`` and ``probs`` in the
        benchmark's layout), from what the side to move knows only: its truth-free row, the
        one ``bench predict`` reads for this ply. ``policy`` is any
        :class:`~strat_tools.engine.information.move_policy.MovePolicy` (None: the shipped
        default, ``human-v3``); docs/human-model.md."""
        from strat_tools.engine.information.cursor import move_probabilities

        return move_probabilities(self, self._cursor(), policy)

    def observation_with_truth(self: Stepped) -> npt.NDArray[np.uint8]:
        """The side to move's observation board *with the hidden truth* (the rank of every
        opponent piece; the export's ``board`` label column), for analysis and the belief
        task: never what a player of this side may read (that is :meth:`observe`)."""
        from strat_tools.engine.information.cursor import cursor_board

        return cursor_board(self._cursor(), self.side)

    def _cursor(self: Stepped) -> KnowledgeCursor:
        """The knowledge after the stack's moves, brought past those pushed since (the
        cursor's module is loaded on first use only: a game loop imports nothing a ply)."""
        seen = self.seen
        if seen is None:
            from strat_tools.engine.information.cursor import advanced

            seen = advanced(None, self)
        else:
            seen = seen.brought_to(self)
        self.seen = seen
        return seen
