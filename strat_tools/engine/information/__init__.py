"""What each side knows and sees: the hidden information of a game, ply by ply.

- :mod:`~strat_tools.engine.information.beliefs`: what a side may believe an unidentified
  opponent piece is (the counts left, or a model the caller passes), never more than it knows;
- :mod:`~strat_tools.engine.information.history`: how each piece has moved (where it started,
  how often, which way, how long it stood still), as both players saw it, for belief models;
- :mod:`~strat_tools.engine.information.knowledge`: what each side knew at every ply
  (revealed, moved and scout pieces, captures, unseen ranks), for a replay or a position;
- :mod:`~strat_tools.engine.information.material`: piece counts at chosen plies, and how many
  of them the opponent knows;
- :mod:`~strat_tools.engine.information.mover_view`: squares, action ids and boards as the
  side to move sees them (blue's turned by 180 degrees);
- :mod:`~strat_tools.engine.information.planes`: observation boards (one byte a square, only
  what the mover could know) and the dense planes built from them.
"""
