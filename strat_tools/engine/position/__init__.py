"""The position: a flat board and one immutable rule state, in python-chess's shape.

- :mod:`~strat_tools.engine.position.position`: :class:`Position` (``legal_moves``,
  ``push``, ``pop``, ``outcome``, StraDos3, what a side sees), built on the rules of
  :mod:`strat_tools.engine.rules`;
- :mod:`~strat_tools.engine.position.observing`: what its side to move sees (``observe``,
  ``beliefs``, ``move_probabilities``), a mixin of :class:`Position` kept up to date a push
  at a time;
- :mod:`~strat_tools.engine.position.move`: what a push returns (:class:`Battle`) and the
  legal moves a position lists (:class:`LegalMoves`); the move itself is
  :class:`~strat_tools.core.move.Move`, on the ground floor.
"""
