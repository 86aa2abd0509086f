"""OpenSpiel yorktown's state string, "StraDos3": a position as one line of text.

A StraDos3 string has three parts separated by one space: the 100-character field, the side
to move (``r`` or ``b``) and the number of plies played. The field is a Gravon field string
(index = Gravon square, ``A`` empty, ``_`` lake, ``B``-``M`` red, ``N``-``Y`` blue) with
every *revealed* piece in lower case; in a player's view (OpenSpiel's information state
string) each opponent piece that player has not seen is written ``?``. A position after
20 plies, red to move, ends ``... r 20``; docs/observations.md shows one from a real game.

OpenSpiel marks a piece visible when it takes part in a battle; which pieces are revealed
here is the caller's choice (``visible``), e.g. the knowledge model's. Empty squares are
written ``A`` (OpenSpiel's initial string and example; its writer lower-cases them, and its
reader takes either), and both cases are read here.

:func:`strados3_at` writes the string of any ply of a replayed game, with the pieces the
knowledge model says were shown (in a battle or a rescue) in lower case.

The string itself is written and read in :mod:`strat_tools.engine.strados3` (so that
:meth:`Position.strados3 <strat_tools.engine.position.Position.strados3>` shares it); this
module places a replayed game's positions in it. It converts text: it knows no rules and
replays nothing itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_SIDE
from strat_tools.engine.knowledge import KNOWN, REVEALED, Knowledge
from strat_tools.engine.strados3 import (
    to_strados3,
)

if TYPE_CHECKING:
    from strat_tools.engine.replay import Replay

__all__ = ["strados3_at"]


def strados3_at(
    result: Replay,
    ply: int,
    view: Side | int | None = None,
    know: Knowledge | None = None,
) -> str:
    """The StraDos3 string after ``ply`` plies of a replayed game: pieces shown in a battle
    or a rescue in lower case (as OpenSpiel shows battle pieces); with ``view``, that side's
    information state (the opponent's pieces it has identified, by a battle or by a move
    only a scout can make, in lower case, the others ``?``). Pass ``know``
    (``result.knowledge()``) when writing many plies of one game.
    """
    know = know if know is not None else result.knowledge()
    if not 0 <= ply <= know.plies:
        raise ValueError(f"ply must be 0..{know.plies}, got {ply}")
    board, flags = know.boards[ply].tolist(), know.flags[ply].tolist()
    side = Side.RED if ply % 2 == 0 else Side.BLUE
    opponent = 0 if view is None else 3 - int(view)
    visible = [
        bool(bits & REVEALED) or (CODE_SIDE[code] == opponent and bool(bits & KNOWN))
        for code, bits in zip(board, flags, strict=True)
    ]
    return to_strados3(board, side, ply, visible, view)
