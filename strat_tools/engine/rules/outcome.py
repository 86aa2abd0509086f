"""The end of a game, stated once: what the replay infers from the final board, what the game
generator checks after every move and what :meth:`Position.outcome
<strat_tools.engine.position.position.Position.outcome>` says.

Gravon's rule (docs/rules-findings.md): a game ends when a flag is captured (its capturer
wins) or when a side has no legal move: if neither side can move it is a draw, else the side
that can still move wins. Any other ending (a resignation, a clock, a draw agreed) is not on
the board: it is the record's, and a replayed game's last position carries it
(:meth:`Outcome.of_result`).

This module knows no XML; it asks a position only for its winner and whether a side can move.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from strat_tools.core.board import Side
from strat_tools.core.records import Result, Termination

__all__ = ["Outcome", "board_ending"]


class Playable(Protocol):
    """What :func:`board_ending` needs of a position."""

    @property
    def winner(self) -> int: ...

    def has_legal_move(self, side: int | None = None) -> bool: ...


class Outcome(NamedTuple):
    """How a game ended: the ``termination`` (Gravon's result type) and the ``winner``
    (``None`` for a draw or a winner nobody knows).

    >>> Outcome(Termination.FLAG_CAPTURED, Side.BLUE).result
    Result(type=1, winner=2)
    >>> print(Outcome(Termination.RESIGNED, Side.RED))
    resigned, red wins
    """

    termination: Termination
    winner: Side | None

    def __str__(self) -> str:
        """The termination's name and the winner: ``'flag_captured, red wins'``,
        ``'both_no_moves, a draw'``."""
        who = "a draw" if self.winner is None else f"{self.winner} wins"
        return f"{self.termination}, {who}"

    @property
    def result(self) -> Result:
        """As a record writes it: ``winner`` 1 red, 2 blue, 3 a draw."""
        return Result(int(self.termination), 3 if self.winner is None else int(self.winner))

    @classmethod
    def of_result(cls, result: Result) -> Outcome:
        """The outcome a record's result names."""
        return cls(result.termination, result.winner_side)


def board_ending(position: Playable) -> Outcome | None:
    """The ending the board shows (flag captured, no legal move for one side or both), or
    ``None`` while both sides can move."""
    if position.winner:
        return Outcome(Termination.FLAG_CAPTURED, Side(position.winner))
    red_can = position.has_legal_move(Side.RED)
    blue_can = position.has_legal_move(Side.BLUE)
    if red_can and blue_can:
        return None
    if not red_can and not blue_can:
        return Outcome(Termination.BOTH_NO_MOVES, None)
    return Outcome(Termination.NO_MOVES, Side.RED if red_can else Side.BLUE)
