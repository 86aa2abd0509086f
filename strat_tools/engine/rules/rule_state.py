"""A position's rule state as one immutable value: what the board alone does not say.

:class:`RuleState` is the side to move, the plies played, the flag's capturer, each side's
two-squares :class:`Chain`, the pieces each side lost, the rescues each side made and the
squares of the pieces that rescued. A :class:`~strat_tools.engine.position.position.Position` is a
board and one of these: ``copy`` shares it, ``==`` and ``hash`` compare it (less the pieces
lost, which a StraDos3 string cannot tell from pieces never set up), and ``push`` keeps it in
the :class:`History` whole and ``pop`` puts it back whole, as python-chess's ``_BoardState``.
A new rule option with a state of its own adds a field here, and nothing else needs a change
to copy, compare, save or restore it.

This module knows no boards, moves or rules: only the values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from strat_tools.core.board import Side

if TYPE_CHECKING:
    from strat_tools.core.move import Move

__all__ = ["NO_CHAIN", "OTHER_SIDE", "Chain", "History", "RuleState", "StateView"]

OTHER_SIDE: Final = (Side.RED, Side.BLUE, Side.RED)
"""The opponent of side 1 or 2 (index 0 unused)."""


class Chain(NamedTuple):
    """One side's two-squares chain: its last move (``key`` = ``source * 100 + target``, -1
    before its first), how many moves in a row went back and forth (``length``), the span
    ``lo..hi`` all of them share (the scout clause) and the chain's squares (``path``,
    oldest first, at most :data:`~strat_tools.engine.rules.chains.CHAIN_KEPT`): a scout's chain
    that stops sharing two squares is recounted over them."""

    key: int = -1
    length: int = 0
    lo: int = 0
    hi: int = 0
    path: tuple[int, ...] = ()


NO_CHAIN: Final = Chain()
"""A side that has not moved."""


class RuleState(NamedTuple):
    """Everything a position holds besides its board, immutable: a push makes a new one.

    ``chains``, ``captured`` and ``rescued`` hold red's then blue's (:meth:`chain`,
    :meth:`lost` and :meth:`rescues` take a side).

    >>> state = RuleState()
    >>> state.side, state.plies, state.chain(Side.BLUE) == NO_CHAIN
    (<Side.RED: 1>, 0, True)
    """

    side: Side = Side.RED
    plies: int = 0
    """Plies played since the setup (or since the position a StraDos3 string gave)."""
    winner: int = 0
    """The side that captured the flag, 0 while the game is open."""
    chains: tuple[Chain, Chain] = (NO_CHAIN, NO_CHAIN)
    captured: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    """Codes of red's and of blue's pieces removed so far, in order of removal."""
    rescued: tuple[int, int] = (0, 0)
    """Rescues red and blue made."""
    rescuers: frozenset[int] = frozenset()
    """Squares of pieces that have made a rescue (a piece may rescue only once)."""

    def chain(self, side: int) -> Chain:
        """``side``'s two-squares chain."""
        return self.chains[side - 1]

    def lost(self, side: int) -> tuple[int, ...]:
        """Codes of ``side``'s pieces removed so far."""
        return self.captured[side - 1]

    def rescues(self, side: int) -> int:
        """Rescues ``side`` made."""
        return self.rescued[side - 1]

    def key(self) -> tuple[object, ...]:
        """What ``==`` and ``hash`` of a position compare besides its board and rules:
        every field but the pieces lost."""
        return (self.side, self.plies, self.winner, self.chains, self.rescued, self.rescuers)


class History(NamedTuple):
    """The position before one :meth:`Position.push
    <strat_tools.engine.position.position.Position.push>`, whole (its board and rule state), the
    move pushed and what it did, and the history before that."""

    move: Move
    board: list[int]
    state: RuleState
    event: tuple[int, int, int, int, int]
    """What the move did, as a replay keeps it: mover, defender, outcome, distance and
    revealed bits (:class:`~strat_tools.engine.replays.replay.Replay`)."""
    previous: History | None


class StateView:
    """A position's rule state read field by field, read-only (a mixin of
    :class:`~strat_tools.engine.position.position.Position`): :attr:`side` (python-chess's
    :attr:`turn`), :attr:`plies` (:meth:`ply`), :attr:`winner`, and copies of the
    captures, rescues and chains indexed by side as the engine kept them before the state
    was one value. Nothing writes through them: a position changes by a push or a pop."""

    __slots__ = ()

    state: RuleState

    @property
    def side(self) -> Side:
        """The side to move."""
        return self.state.side

    @property
    def turn(self) -> Side:
        """python-chess's name for :attr:`side`: the side to move (prints ``red``)."""
        return self.state.side

    @property
    def plies(self) -> int:
        """Plies played since the setup (or since the position a StraDos3 string gave)."""
        return self.state.plies

    def ply(self) -> int:
        """python-chess's ``board.ply()``: :attr:`plies`."""
        return self.state.plies

    @property
    def winner(self) -> int:
        """The side that captured the flag, 0 while the game is open."""
        return self.state.winner

    @property
    def captured(self) -> tuple[list[int], list[int], list[int]]:
        """Codes of each side's pieces removed so far (index = side; a copy)."""
        red, blue = self.state.captured
        return ([], list(red), list(blue))

    @property
    def rescued(self) -> list[int]:
        """Rescues made per side (index = side; a copy)."""
        return [0, *self.state.rescued]

    @property
    def rescuers(self) -> frozenset[int]:
        """Squares of pieces that have made a rescue (a piece may rescue only once)."""
        return self.state.rescuers

    @property
    def rep_key(self) -> list[int]:
        """Each side's last move as ``source * 100 + target`` (index = side, -1 before its
        first move; a copy of :attr:`state`'s chains)."""
        red, blue = self.state.chains
        return [-1, red.key, blue.key]

    @property
    def rep_count(self) -> list[int]:
        """Each side's two-squares count (index = side; a copy)."""
        red, blue = self.state.chains
        return [0, red.length, blue.length]

    @property
    def rep_lo(self) -> list[int]:
        """The low end of the span each side's chain shares (index = side; a copy)."""
        red, blue = self.state.chains
        return [0, red.lo, blue.lo]

    @property
    def rep_hi(self) -> list[int]:
        """The high end of the span each side's chain shares (index = side; a copy)."""
        red, blue = self.state.chains
        return [0, red.hi, blue.hi]

    @property
    def rep_path(self) -> list[tuple[int, ...]]:
        """Each side's chain as its squares, oldest first (index = side; a copy)."""
        red, blue = self.state.chains
        return [(), red.path, blue.path]
