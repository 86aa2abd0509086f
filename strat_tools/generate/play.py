"""The playing policy of the synthetic game generator: a short-sighted, randomised player.

:func:`choose_move` scores the legal moves of the side to move (take what is known to be
weaker, probe with cheap pieces, keep strong pieces away from unknown bombs and known
stronger pieces, advance on the enemy) and :func:`play_game` plays a whole game from a setup
with it, ending it as Gravon would (flag taken, no move left) or by resignation or a draw.
Every move comes from the engine's ``Position.reference_pairs`` (its order fixes which game
a seed gives); the rules are the engine's.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from strat_tools.core.board import NEIGHBOURS
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, EMPTY, PieceKind
from strat_tools.core.records import Result, Termination
from strat_tools.core.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    RuleSet,
)
from strat_tools.engine.position.position import Position, play_known
from strat_tools.engine.rules.outcome import board_ending

B, FL = PieceKind.BOMB, PieceKind.FLAG


PIECE_VALUES: Final = (2.0, 3.0, 1.0, 2.5, 1.5, 2.0, 3.0, 4.5, 6.0, 8.0, 10.0, 15.0)
"""What the policy thinks each kind is worth (index = kind value; the flag wins the game)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """The weights of the playing policy (see docs/generator.md for how a move is scored)."""

    noise: float = 1.2
    """Uniform random noise added to every move's score: the players' whims."""
    opening: int = 40
    """Plies over which players come to hope that an unmoved piece is the flag (from 0)."""
    advance: float = 0.5
    """Per square a move brings a piece closer to the nearest enemy piece."""
    probe: float = 0.8
    """Worth of revealing an unknown enemy piece by attacking it."""
    danger: float = 0.9
    """Share of a piece's value at stake next to an enemy known to beat it."""
    resign_below: float = 0.4
    """A player whose movable army is worth less than this share of the enemy's may resign..."""
    resign_chance: float = 0.05
    """...with this chance on each of its turns (0 turns resignation off)."""
    patience: int = 300
    """Plies without a battle after which the players stop: the weaker resigns, or a draw."""
    values: tuple[float, ...] = PIECE_VALUES


DEFAULT_POLICY: Final = Policy()


class SeenPieces:
    """What both players have seen: which pieces were revealed in battle and which moved.

    Indexed by square; the flags move with their pieces. A moved piece is neither a bomb nor
    the flag; a revealed piece's kind is known to the opponent.
    """

    __slots__ = ("moved", "revealed")

    def __init__(self) -> None:
        self.revealed = [False] * 100
        self.moved = [False] * 100

    def observe(
        self, source: int, target: int, defender: int, outcome: int, board: list[int]
    ) -> None:
        """Update after ``source``→``target`` was played (``board`` is the board after it)."""
        revealed, moved = self.revealed, self.moved
        # A battle shows both pieces; a scout moving more than one square shows itself (the
        # variants played here have no captain, so a move to a non-neighbour is a scout's).
        shown = revealed[source] or defender != EMPTY or target not in NEIGHBOURS[source]
        revealed[source] = moved[source] = False
        if board[target] == EMPTY:
            revealed[target] = moved[target] = False
        elif outcome != OUTCOME_DEFENDER:
            revealed[target], moved[target] = shown, True
        else:
            revealed[target] = True


def _battle_value(outcome: int, kind: int, defender_kind: int, values: Sequence[float]) -> float:
    """What a battle is worth to the attacker, in piece values."""
    if outcome in (OUTCOME_ATTACKER, OUTCOME_FLAG):
        return values[defender_kind]
    if outcome == OUTCOME_DEFENDER:
        return -values[kind]
    return values[defender_kind] - values[kind]


def _distance_map(board: list[int], enemy: int, revealed: list[bool]) -> list[int]:
    """Squares to the nearest enemy piece worth walking to (known bombs are not), lakes aside."""
    dist = [99] * 100
    frontier = [
        sq
        for sq in range(100)
        if CODE_SIDE[board[sq]] == enemy and not (revealed[sq] and CODE_KIND[board[sq]] == B)
    ]
    for sq in frontier:
        dist[sq] = 0
    step = 0
    while frontier:
        step += 1
        reached = []
        for sq in frontier:
            for near in NEIGHBOURS[sq]:
                if dist[near] > step:
                    dist[near] = step
                    reached.append(near)
        frontier = reached
    return dist


FLAG_BELIEF: Final = (0.0, 1.2, 0.4, 0.1, 0.05)
"""How much likelier than average the flag is behind an unmoved piece, by the owner's row
(1 = back row; index 0 for a piece that moved, which is never the flag)."""


def _depth(square: int, side: int) -> int:
    """The owner's row of ``square`` for ``side`` (1 = back row), 0 outside its home rows."""
    row = square // 10 + 1 if side == 1 else 10 - square // 10
    return row if row <= 4 else 0


class _Turn:
    """The per-move view of one player: what it knows and what it expects of hidden pieces."""

    __slots__ = (
        "battle",
        "board",
        "enemy",
        "expected",
        "flag_hope",
        "hidden",
        "know",
        "policy",
        "watched",
    )

    def __init__(
        self,
        board: list[int],
        side: int,
        know: SeenPieces,
        battle: Sequence[int],
        policy: Policy,
        ply: int,
    ) -> None:
        self.board, self.enemy, self.know = board, 3 - side, know
        self.battle, self.policy = battle, policy
        # Early on, players take an unmoved piece for a bluff or a bomb rather than the flag.
        self.flag_hope = min(1.0, ply / policy.opening) if policy.opening > 0 else 1.0
        self.hidden: tuple[list[int], list[int]] | None = None
        self.expected: dict[tuple[int, int], float] = {}
        # Squares next to a revealed enemy piece, with those pieces: most squares have none.
        self.watched: dict[int, list[int]] = {}
        revealed, enemy = know.revealed, self.enemy
        for square in range(100):
            if revealed[square] and CODE_SIDE[board[square]] == enemy:
                for near in NEIGHBOURS[square]:
                    self.watched.setdefault(near, []).append(board[square])

    def _hidden_counts(self) -> tuple[list[int], list[int]]:
        """Counts per board code of the enemy's unrevealed pieces: all, and movable only.

        This is what a player can deduce (the army minus what was captured or shown), not
        a look at the hidden board.
        """
        every = [0] * 26
        for sq in range(100):
            code = self.board[sq]
            if CODE_SIDE[code] == self.enemy and not self.know.revealed[sq]:
                every[code] += 1
        movable = [n if CODE_KIND[code] not in (B, FL) else 0 for code, n in enumerate(every)]
        return every, movable

    def attack_unknown(self, piece: int, square: int, defender_moved: bool) -> float:
        """Expected worth of ``piece`` attacking the unrevealed piece on ``square``.

        The odds are the enemy's hidden pieces (movable ones only if it has moved), except
        that the flag is believed to stand where people put it: mostly on the back row.
        """
        depth = 0 if defender_moved else _depth(square, self.enemy)
        key = (piece, depth)
        if key not in self.expected:
            if self.hidden is None:
                self.hidden = self._hidden_counts()
            counts = self.hidden[1] if defender_moved else self.hidden[0]
            total = sum(counts) or 1
            kind, values, battle = CODE_KIND[piece], self.policy.values, self.battle
            worth = 0.0
            for code, n in enumerate(counts):
                if n:
                    value = _battle_value(battle[piece * 26 + code], kind, CODE_KIND[code], values)
                    if CODE_KIND[code] == FL:
                        value *= FLAG_BELIEF[depth] * self.flag_hope
                    worth += n * value
            self.expected[key] = worth / total + self.policy.probe
        return self.expected[key]

    def danger(self, square: int, piece: int, shown: bool) -> float:
        """What ``piece`` risks standing on ``square``: the worst known enemy next to it."""
        enemies = self.watched.get(square)
        if enemies is None:
            return 0.0
        for code in enemies:
            if self.battle[code * 26 + piece] in (OUTCOME_ATTACKER, OUTCOME_BOTH):
                scale = 1.0 if shown else 0.4
                return self.policy.danger * scale * self.policy.values[CODE_KIND[piece]]
        return 0.0


def choose_move(
    position: Position,
    know: SeenPieces,
    moves: Sequence[tuple[int, int]],
    rng: random.Random,
    policy: Policy = DEFAULT_POLICY,
    ply: int = 1000,
) -> tuple[int, int]:
    """The policy's pick among ``moves`` (legal moves of the side to move) at ``ply``.

    Attacks score their (expected) battle worth; other moves score the approach to the
    enemy plus the danger they leave minus the danger they walk into. See docs/generator.md.
    """
    board, revealed, moved = position.board, know.revealed, know.moved
    turn = _Turn(board, position.side, know, position.battle, policy, ply)
    dist = _distance_map(board, turn.enemy, revealed)
    values, advance, noise = policy.values, policy.advance, policy.noise
    best, best_score = moves[0], -1e9
    for source, target in moves:
        piece, defender = board[source], board[target]
        if defender != EMPTY:
            if revealed[target]:
                outcome = position.battle[piece * 26 + defender]
                score = _battle_value(outcome, CODE_KIND[piece], CODE_KIND[defender], values)
            else:
                score = turn.attack_unknown(piece, target, moved[target])
        else:
            score = advance * (dist[source] - dist[target])
            shown = revealed[source] or target not in NEIGHBOURS[source]
            score += turn.danger(source, piece, revealed[source])
            score -= turn.danger(target, piece, shown)
        score += noise * rng.random()
        if score > best_score:
            best, best_score = (source, target), score
    return best


MAX_PLIES: Final = 3000
"""Hard cap on a generated game's length (real classic games: median 323, longest 1,879)."""

RESIGN_RATIO: Final = 1.5
"""At the cap, the side whose movable army is worth this many times less resigns; else draw."""


def _army_worth(board: list[int], side: int, values: Sequence[float]) -> float:
    return sum(
        values[CODE_KIND[code]]
        for code in board
        if CODE_SIDE[code] == side and CODE_KIND[code] not in (B, FL)
    )


def _resigns(board: list[int], side: int, policy: Policy, rng: random.Random) -> bool:
    """Whether ``side``, clearly behind, gives up now."""
    if rng.random() >= policy.resign_chance:
        return False
    own = _army_worth(board, side, policy.values)
    return own < policy.resign_below * _army_worth(board, 3 - side, policy.values)


def _ending(position: Position) -> Result | None:
    """Gravon's check after every move (flag taken, a player or both unable to move): the
    engine's one statement of the end of a game, as a record's result."""
    ending = board_ending(position)
    return None if ending is None else ending.result


def _cap_result(position: Position, values: Sequence[float]) -> Result:
    """At the move cap or out of patience: the clearly weaker side resigns, else a draw."""
    red = _army_worth(position.board, 1, values)
    blue = _army_worth(position.board, 2, values)
    if red >= RESIGN_RATIO * blue:
        return Result(int(Termination.RESIGNED), 1)
    if blue >= RESIGN_RATIO * red:
        return Result(int(Termination.RESIGNED), 2)
    return Result(int(Termination.DRAW_AGREED), 3)


def play_game(
    setup: tuple[int, ...],
    rules: RuleSet,
    rng: random.Random,
    *,
    policy: Policy = DEFAULT_POLICY,
    max_plies: int = MAX_PLIES,
) -> tuple[list[int], list[int], Result]:
    """Play one game from ``setup``: (sources, targets, result). Every move is a legal one.

    >>> from strat_tools.generate.setups import CLASSIC_MODEL, draw_setup, setup_field
    >>> from strat_tools.core.rules import get_rules
    >>> rng = random.Random(2)
    >>> setup = setup_field(draw_setup(CLASSIC_MODEL, rng), draw_setup(CLASSIC_MODEL, rng))
    >>> sources, targets, result = play_game(setup, get_rules("gravon-2013"), rng)
    >>> len(sources) == len(targets) > 0, result.winner in (1, 2, 3)
    (True, True)
    """
    position = Position(setup, rules)
    know = SeenPieces()
    sources: list[int] = []
    targets: list[int] = []
    start = _ending(position)  # a setup may leave a side without a move
    if start is not None:
        return sources, targets, start
    quiet = 0
    while len(sources) < max_plies and quiet < policy.patience:
        mover = position.side
        if policy.resign_chance and _resigns(position.board, mover, policy, rng):
            return sources, targets, Result(int(Termination.RESIGNED), 3 - mover)
        moves = position.reference_pairs()
        source, target = choose_move(position, know, moves, rng, policy, len(sources))
        defender = position.board[target]
        outcome = play_known(position, source, target)
        know.observe(source, target, defender, outcome, position.board)
        sources.append(source)
        targets.append(target)
        quiet = 0 if defender != EMPTY else quiet + 1
        result = _ending(position)
        if result is not None:
            return sources, targets, result
    return sources, targets, _cap_result(position, policy.values)
