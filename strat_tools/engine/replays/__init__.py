"""A game record played under its rules, and the positions of a game played.

- :mod:`~strat_tools.engine.replays.replay`: :func:`replay` checks every move of a record
  and gives a :class:`Replay` (status, diagnostics, result, per-ply battles);
- :mod:`~strat_tools.engine.replays.replayed`: what the stepping API, the knowledge model and
  StraDos3 read of a replayed game (a ``Protocol``, so that none imports the replay);
- :mod:`~strat_tools.engine.replays.steps`: the positions of a game already replayed, one per
  ply, and the ply convention;
- :mod:`~strat_tools.engine.replays.stepping`: a record's positions, as python-chess users
  step through them (:func:`positions`), the one after a ply (:func:`board_at`) and its text
  picture (:func:`show`).
"""
