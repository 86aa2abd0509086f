"""The rules engine, its parts bottom up (``ls strat_tools/engine``; each part's ``__init__``
lists its modules, and ``tests/test_structure.py``'s ENGINE_PARTS is this plan):

- ``rules/``: the rules over a flat 100-int board, stated once: a position's rule state
  (one immutable ``RuleState``), the rule tables, the replay's hot loop, the scout clause's
  chains, the reference move search, the chasing rule, the end of a game and which boards
  can exist at all;
- ``position/``: :class:`Position`, one board and one ``RuleState`` in python-chess's shape
  (``legal_moves``, ``push``, ``pop``, ``outcome``), and what a push returns;
- ``replays/``: a game record replayed under its rules with every move checked (``replay``,
  ``board_at``, ``show``), and the positions of a game, ply by ply (``positions``);
- ``information/``: what each side knows and sees: the knowledge model (and its cursor, kept
  up to date as moves are pushed), material counts, the mover's view, observation boards and
  planes, the mover's truth-free rows (the export's and a position's), beliefs about
  unidentified pieces, the move-policy protocol and a position's move probabilities;
- ``moves/``: the batch move generator, legal moves of many positions at once (NumPy, or
  compiled), with the two-squares bans;
- ``encodings/``: a move as one int (our action ids, OpenSpiel yorktown's) and a position
  as one line of text (StraDos3);
- ``events/``: the key events of replayed games, their kinds and their words.

A part's modules import, when loaded, only the parts above it in this list (a method may
load a later one on first use: ``Position.knowledge`` loads ``information/``). A record is
replayed (``replays/``) through a :class:`Position` (``position/``) that checks each move by
``rules/``; what the replay gives is read by the knowledge model (``information/``), the
batch generator's replayed games (``moves/games.py``), the encodings and the key events.

This face offers the names below (``st.engine``), each imported from where it lives. The
floor knows no XML and no files; it imports only the ground floor, ``strat_tools.core``
(the board, pieces, the move, records and rule sets), as ``tests/test_structure.py``'s FLOORS
says.
"""

from __future__ import annotations

from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.core.errors import IllegalMove
from strat_tools.engine.position.position import Position

__all__ = ["IllegalMove", "Position", "parse_board", "render_board"]
