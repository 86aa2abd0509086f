"""The rules over a flat board, stated once: what every part of the engine above checks with.

- :mod:`~strat_tools.engine.rules.rule_state`: a position's rule state as one immutable
  value (side to move, plies, each side's two-squares chain, losses, rescues);
- :mod:`~strat_tools.engine.rules.rule_tables`: the board's lines and a rule set's flat
  per-code tables, computed once;
- :mod:`~strat_tools.engine.rules.hotloop`: the replay's hot loop, a run of ordinary plies
  checked and played;
- :mod:`~strat_tools.engine.rules.chains`: the two-squares rule's scout clause;
- :mod:`~strat_tools.engine.rules.reference_moves`: a move's path and the pure-Python move
  search, the reference the batch generator is tested against;
- :mod:`~strat_tools.engine.rules.chasing`: the ISF more-squares (chasing) rule;
- :mod:`~strat_tools.engine.rules.outcome`: the end of a game;
- :mod:`~strat_tools.engine.rules.board_check`: whether a board can exist in a game at all.

These import only the ground floor (``strat_tools.core``) and each other.
"""
