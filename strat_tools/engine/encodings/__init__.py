"""A move as one int and a position as one line of text, for other programs.

- :mod:`~strat_tools.engine.encodings.actions`: action ids, ours (from the mover's seat) and
  OpenSpiel yorktown's, the legal actions of a position and the translation between them;
- :mod:`~strat_tools.engine.encodings.strados3`: OpenSpiel yorktown's state string,
  "StraDos3", written, read and taken at any ply of a replayed game, with the rule-state part
  :meth:`Position.strados3 <strat_tools.engine.position.position.Position.strados3>` adds.
"""
