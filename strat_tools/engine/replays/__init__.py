"""A game record played under its rules, and the positions of a game played.

- :mod:`~strat_tools.engine.replays.replay`: :func:`replay` checks every move of a record
  and gives a :class:`Replay` (status, diagnostics, result, per-ply battles), with
  ``board_at`` and ``show``;
- :mod:`~strat_tools.engine.replays.replayed`: what the stepping API, the knowledge model and
  StraDos3 read of a replayed game (a ``Protocol``, so that none imports the replay);
- :mod:`~strat_tools.engine.replays.steps`: the positions of a game already replayed, one per
  ply, and the ply convention;
- :mod:`~strat_tools.engine.replays.stepping`: :func:`positions`, stepping through a record
  yourself as python-chess users do.
"""
