"""Action ids: a move as one int, in our encoding and in OpenSpiel yorktown's, and legal moves.

**Our action id** (:data:`ACTION_COUNT` = 10,000 ids) names a move from the mover's own
seat: ``view(source) * 100 + view(target)``, where ``view`` keeps a red square and turns a
blue one by 180 degrees (``99 - square``, :func:`~strat_tools.core.board.view_square`,
the one definition of the turn, with its column and board forms), the same turn as a setup
"in its owner's view". So an id means the same move on the board as its player sees it,
whichever side plays it, and for blue the id is simply ``9999 - (source * 100 + target)``
with Gravon squares. Every move any rule set allows has an id, the turning ultimate
lightning captain's included.

**OpenSpiel yorktown's id** (:data:`YORKTOWN_ACTION_COUNT` = 3,600) is
``(file * 10 + rank) * 36 + destination``, with file 0..9 (A..K, no J) and rank 0..9 (row
1..10), the rank reflected for blue (``9 - rank``; files are not turned, so blue's board is
a mirror image there, not a turn); ``destination`` is 0..17 for a move along the file
(rank offset -9..-1 then +1..+9) and 18..35 for one along the rank (file offset -9..-1,
then +1..+9). A move that is not a straight line (the turning lightning captain) has no
yorktown id: :func:`yorktown_action` gives ``None``, :data:`YORKTOWN_OF_ACTION` -1. See
docs/observations.md for where this was read off OpenSpiel's code.

:func:`legal_actions` lists the ids of every legal move of a
:class:`~strat_tools.engine.position.position.Position`, under its rule set, with the library's one
move generator (:mod:`strat_tools.engine.moves`, which the observation export runs over
whole games); it agrees with the pure-Python
:meth:`~strat_tools.engine.position.position.Position.reference_pairs` (tested move by move on the
archive).

**The side** of a move, wherever a function here takes one, is read by
:meth:`Side.of <strat_tools.core.board.Side.of>`, the project's one convention: 0 red, 1 blue
(the training batches' and the observation export's ``side``), ``'red'``/``'blue'`` or a
:class:`~strat_tools.core.board.Side`; a bare 2 (a Gravon player id) is refused, so that a
1 never means red in one place and blue in another (``Move.from_action`` reads it the same).

This module knows no records and no XML; it does not replay games.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side, Square, view_square
from strat_tools.engine.moves import position_ids
from strat_tools.engine.position.position import Position

ACTION_COUNT: Final = 10_000
"""Our action ids: 0..9999 (``view(source) * 100 + view(target)``)."""
YORKTOWN_ACTION_COUNT: Final = 3_600
"""OpenSpiel yorktown's action ids: 0..3599 (100 squares x 36 destinations)."""
YORKTOWN_DESTINATIONS: Final = 36
"""Destinations per source square in yorktown's encoding: 9 distances x 4 directions."""

Action = int
"""An action id in our encoding."""

__all__ = [
    "ACTION_COUNT",
    "ACTION_OF_HEAD",
    "ACTION_OF_YORKTOWN",
    "HEAD_COUNT",
    "HEAD_DIRECTIONS",
    "HEAD_DISTANCES",
    "HEAD_OF_ACTION",
    "YORKTOWN_ACTION_COUNT",
    "YORKTOWN_DESTINATIONS",
    "YORKTOWN_OF_ACTION",
    "Action",
    "action_heads",
    "action_id",
    "action_squares",
    "from_yorktown",
    "head_actions",
    "legal_actions",
    "to_yorktown",
    "yorktown_action",
    "yorktown_move",
]


def action_id(source: Square, target: Square, side: Side | int) -> Action:
    """Our id of ``side``'s move ``source``→``target`` (Gravon squares).

    >>> action_id(31, 41, Side.RED), action_id(68, 58, Side.BLUE)  # B4-B5, I7-I6
    (3141, 3141)
    """
    if not (0 <= source < 100 and 0 <= target < 100):
        raise ValueError(f"squares must be 0..99, got {source}, {target}")
    mover = Side.of(side)
    return view_square(source, mover) * 100 + view_square(target, mover)


def action_squares(action: Action, side: Side | int) -> tuple[Square, Square]:
    """(source, target) in Gravon squares of ``side``'s action ``action``; inverse of
    :func:`action_id`.

    >>> action_squares(3141, Side.BLUE)
    (68, 58)
    """
    if not 0 <= action < ACTION_COUNT:
        raise ValueError(f"not an action id (0..{ACTION_COUNT - 1}): {action!r}")
    source, target = divmod(action, 100)
    mover = Side.of(side)
    return view_square(source, mover), view_square(target, mover)


def legal_actions(pos: Position) -> list[Action]:
    """Ids of every legal move of the side to move, ascending (empty once the flag fell).

    One call of the library's move generator
    (:func:`~strat_tools.engine.moves.position_ids`) on the position's board, less the
    moves the two-squares rule bans there: the same generator the observation export runs
    over whole games.
    """
    found: list[Action] = position_ids(pos).tolist()
    return found


# -- OpenSpiel yorktown ---------------------------------------------------------------


def _yorktown_coords(square: Square, side: Side | int) -> tuple[int, int]:
    """(file, rank) of a Gravon square in yorktown's frame for ``side`` (rank reflected for
    blue)."""
    rank, file = divmod(square, 10)
    return file, (9 - rank if Side.of(side) is Side.BLUE else rank)


def yorktown_action(source: Square, target: Square, side: Side | int) -> int | None:
    """OpenSpiel yorktown's id of ``side``'s move ``source``→``target`` (Gravon squares), or
    ``None`` for a move that is not along a file or a rank.

    >>> yorktown_action(31, 41, Side.RED)  # B4-B5: file 1, rank 3, one rank up
    477
    """
    if not (0 <= source < 100 and 0 <= target < 100) or source == target:
        return None
    file, rank = _yorktown_coords(source, side)
    to_file, to_rank = _yorktown_coords(target, side)
    d_file, d_rank = to_file - file, to_rank - rank
    if d_file == 0:
        destination = d_rank + 9 if d_rank < 0 else d_rank + 8
    elif d_rank == 0:
        destination = 18 + (d_file + 9 if d_file < 0 else d_file + 8)
    else:
        return None
    return (file * 10 + rank) * YORKTOWN_DESTINATIONS + destination


def yorktown_move(action: int, side: Side | int) -> tuple[Square, Square]:
    """(source, target) in Gravon squares of yorktown id ``action`` played by ``side``;
    ``ValueError`` for an id that leaves the board.

    >>> yorktown_move(477, Side.RED), yorktown_move(2997, Side.BLUE)  # B4-B5, I7-I6
    ((31, 41), (68, 58))
    """
    if not 0 <= action < YORKTOWN_ACTION_COUNT:
        raise ValueError(f"not a yorktown action id (0..3599): {action!r}")
    square, destination = divmod(action, YORKTOWN_DESTINATIONS)
    file, rank = divmod(square, 10)
    along_file, index = divmod(destination, 18)
    offset = index - 9 if index < 9 else index - 8
    to_file, to_rank = (file, rank + offset) if along_file == 0 else (file + offset, rank)
    if not (0 <= to_file < 10 and 0 <= to_rank < 10):
        raise ValueError(f"yorktown action {action} leaves the board")

    blue = Side.of(side) is Side.BLUE

    def gravon(f: int, r: int) -> Square:
        return (9 - r if blue else r) * 10 + f

    return gravon(file, rank), gravon(to_file, to_rank)


def _yorktown_tables() -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """Per side (index 0 red, 1 blue): our id → yorktown id (-1: none), and back (-1: off
    the board)."""
    ours_to_theirs = np.full((2, ACTION_COUNT), -1, dtype=np.int16)
    theirs_to_ours = np.full((2, YORKTOWN_ACTION_COUNT), -1, dtype=np.int16)
    for index, side in enumerate((Side.RED, Side.BLUE)):
        for action in range(ACTION_COUNT):
            source, target = action_squares(action, side)
            theirs = yorktown_action(source, target, side)
            if theirs is not None:
                ours_to_theirs[index, action] = theirs
                theirs_to_ours[index, theirs] = action
    return ours_to_theirs, theirs_to_ours


YORKTOWN_OF_ACTION, ACTION_OF_YORKTOWN = _yorktown_tables()
"""Lookup tables ``[side_index, id]`` (side index 0 red, 1 blue) from our ids to yorktown's
(-1 where a move has none) and back (-1 for an id that leaves the board), for whole
columns at once: ``YORKTOWN_OF_ACTION[side_index, actions]``."""


def to_yorktown(actions: npt.ArrayLike, side_index: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Yorktown ids of our ``actions`` (any shape), ``side_index`` 0 for red, 1 for blue
    (broadcast); -1 where a move has no yorktown id.

    >>> to_yorktown([3141, 3141], [0, 1]).tolist()  # red B4-B5, blue I7-I6
    [477, 2997]
    """
    found: npt.NDArray[np.int16] = YORKTOWN_OF_ACTION[np.asarray(side_index), np.asarray(actions)]
    return found


def from_yorktown(actions: npt.ArrayLike, side_index: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Our ids of yorktown ``actions`` (the inverse of :func:`to_yorktown`); -1 for an id
    that leaves the board."""
    found: npt.NDArray[np.int16] = ACTION_OF_YORKTOWN[np.asarray(side_index), np.asarray(actions)]
    return found


# -- the action head: from square, direction, distance -----------------------------------

HEAD_DIRECTIONS: Final = ("forward", "back", "left", "right")
"""The directions of the action head, in the mover's view: towards the opponent's back row
(view row + 1), towards its own, to its left (view column - 1) and to its right."""
HEAD_DISTANCES: Final = 9
"""Distances 1..9 squares."""
HEAD_COUNT: Final = 100 * len(HEAD_DIRECTIONS) * HEAD_DISTANCES
"""The action head's size: 3,600 = 100 from squares x 4 directions x 9 distances."""
_STEPS: Final = ((1, 0), (-1, 0), (0, -1), (0, 1))
"""(row, column) step of each direction in the mover's view."""


def _head_tables() -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """Our id → head index (-1: not a straight move), and head index → our id (-1: off the
    board)."""
    of_action = np.full(ACTION_COUNT, -1, dtype=np.int16)
    of_head = np.full(HEAD_COUNT, -1, dtype=np.int16)
    for source in range(100):
        row, column = divmod(source, 10)
        for direction, (d_row, d_column) in enumerate(_STEPS):
            for distance in range(1, HEAD_DISTANCES + 1):
                to_row, to_column = row + d_row * distance, column + d_column * distance
                head = (source * len(_STEPS) + direction) * HEAD_DISTANCES + distance - 1
                if 0 <= to_row < 10 and 0 <= to_column < 10:
                    action = source * 100 + to_row * 10 + to_column
                    of_action[action], of_head[head] = head, action
    return of_action, of_head


HEAD_OF_ACTION, ACTION_OF_HEAD = _head_tables()
"""Lookup tables: ``HEAD_OF_ACTION[id]`` the head index of our action id (-1 for a move that
is not a straight line: the turning lightning captain's), ``ACTION_OF_HEAD[index]`` back
(-1 for a head index that leaves the board)."""


def action_heads(actions: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """The **action head index** of our action ids (any shape): ``(from * 4 + direction) * 9
    + distance - 1``, where ``from`` is the source square in the mover's view (0..99, the
    first square of the id), ``direction`` the index in :data:`HEAD_DIRECTIONS` (in the
    mover's view: 0 forward, 1 back, 2 left, 3 right) and ``distance`` 1..9 squares; -1 for a
    move that is not a straight line. Both are in the mover's view, so the same index means
    the same move from the player's seat whichever side plays it.

    >>> action_heads([3141, 3132, 9989]).tolist()  # B4-B5 (one forward), B4-C4, a corner
    [1116, 1143, 3573]
    >>> int(head_actions(1116)), int(head_actions(3599))  # back to the id; off the board
    (3141, -1)
    """
    found: npt.NDArray[np.int16] = HEAD_OF_ACTION[np.asarray(actions)]
    return found


def head_actions(heads: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Our action ids of head indices (any shape), the inverse of :func:`action_heads`; -1
    for an index that leaves the board."""
    found: npt.NDArray[np.int16] = ACTION_OF_HEAD[np.asarray(heads)]
    return found
