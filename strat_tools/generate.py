"""Generate synthetic Stratego games: human-like setups and a simple randomised playing policy.

:func:`generate_games` yields :class:`GameRecord` values that look like Gravon records: a
setup drawn from :class:`SetupModel` (where people put their flag, bombs and pieces, with
weights measured on the real archive; see docs/generator.md), then moves chosen by a
short-sighted policy (take what is known to be weaker, probe with cheap pieces, keep strong
pieces away from unknown bombs and known stronger pieces, advance on the enemy), randomised
from one seed. Every move comes from the engine's ``Position.legal_moves``, and every game is
replayed by the engine and must come out valid before it is yielded.

This module does not know the XML format (``writer.py`` writes the records) and has no rules
of its own: moves, battles and repetition limits are the engine's (``rules.py``,
``replay.py``). Its games are synthetic: they show the statistics of setups, not of real play.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Final

from strat_tools.board import LAKES, NEIGHBOURS, Side, from_owner_view
from strat_tools.engine.position import DISTANCE
from strat_tools.errors import OptionError, RunError
from strat_tools.pieces import ARMIES, CODE_KIND, CODE_SIDE, EMPTY, LAKE, PieceKind, piece_code
from strat_tools.pipeline import map_batches
from strat_tools.readers import parse_record
from strat_tools.records import GameRecord, Result, Severity, Status, Termination
from strat_tools.replay import Position, replay
from strat_tools.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_NONE,
    RuleSet,
    rules_for,
)
from strat_tools.writer import game_file_name, record_to_xml

B, SPY, SC, MI, SE, LT, CA, MA, CO, GE, MS, FL = PieceKind

Weights = tuple[float, ...]


@dataclass(frozen=True, slots=True)
class SetupModel:
    """How one variant's players set up, as weights for a sequential draw.

    The flag is placed first (``flag_rows`` x ``flag_cols``); then guard bombs on the flag's
    neighbours (one of three styles chosen with ``guard_styles``: all neighbours, each
    neighbour with probability ``guard_partial``, or none); then, with chance ``cover``, a
    movable piece right in front of it; then every other piece, kind by kind in ``order``,
    on a free square drawn with weight ``rows[kind][row] * cols[kind][col]``.
    Rows are 1..4 from the owner's back row, columns 1..10 from the owner's left.
    """

    variant: str
    flag_rows: Weights
    flag_cols: Weights
    guard_styles: Weights
    """Probabilities of the fortress, partial and open styles of guarding the flag."""
    guard_partial: float
    guard_front_first: bool
    """Try the square in front of the flag first (classic); else the neighbours in random order."""
    cover: float
    """Chance that a movable piece stands right in front of the flag if no bomb does."""
    rows: dict[PieceKind, Weights]
    cols: dict[PieceKind, Weights]
    order: tuple[PieceKind, ...]

    @property
    def army(self) -> tuple[int, ...]:
        """Counts per kind value of the variant's army."""
        return ARMIES[self.variant]


_EVEN: Final = (1.0,) * 10
_CLASSIC_ORDER: Final = (MS, GE, SPY, CO, MA, CA, LT, B, MI, SE, SC)
_SMALL_ORDER: Final = (MS, GE, SPY, B, MI, SC)

# Weights measured on the 24,798 classic setups of the Gravon archive (2004-2014), owner's
# view, rounded; see docs/generator.md for the table and how the model reproduces it.
CLASSIC_MODEL: Final = SetupModel(
    variant="classic",
    flag_rows=(0.88, 0.09, 0.02, 0.01),
    flag_cols=(0.10, 0.03, 0.07, 0.15, 0.12, 0.09, 0.19, 0.09, 0.03, 0.13),
    guard_styles=(0.40, 0.32, 0.28),
    guard_partial=0.5,
    guard_front_first=True,
    cover=0.0,
    rows={
        B: (0.30, 0.36, 0.20, 0.14),
        SPY: (0.05, 0.33, 0.50, 0.12),
        SC: (0.17, 0.21, 0.27, 0.35),
        MI: (0.45, 0.32, 0.15, 0.09),
        SE: (0.27, 0.22, 0.20, 0.31),
        LT: (0.16, 0.20, 0.23, 0.41),
        CA: (0.13, 0.25, 0.29, 0.33),
        MA: (0.11, 0.30, 0.31, 0.28),
        CO: (0.04, 0.34, 0.41, 0.20),
        GE: (0.01, 0.12, 0.55, 0.32),
        MS: (0.03, 0.15, 0.50, 0.33),
    },
    cols={
        B: _EVEN,
        SPY: (0.02, 0.03, 0.17, 0.22, 0.06, 0.06, 0.25, 0.15, 0.03, 0.02),
        SC: (0.13, 0.12, 0.08, 0.07, 0.11, 0.11, 0.07, 0.07, 0.13, 0.12),
        MI: (0.09, 0.09, 0.11, 0.12, 0.09, 0.09, 0.12, 0.11, 0.09, 0.09),
        SE: (0.14, 0.11, 0.07, 0.08, 0.09, 0.10, 0.07, 0.08, 0.11, 0.14),
        LT: (0.11, 0.13, 0.08, 0.07, 0.11, 0.12, 0.07, 0.08, 0.13, 0.11),
        CA: (0.10, 0.10, 0.09, 0.09, 0.12, 0.11, 0.08, 0.09, 0.11, 0.10),
        MA: (0.08, 0.10, 0.11, 0.11, 0.10, 0.11, 0.12, 0.11, 0.09, 0.08),
        CO: (0.06, 0.08, 0.14, 0.14, 0.08, 0.08, 0.12, 0.16, 0.07, 0.06),
        GE: (0.06, 0.07, 0.13, 0.13, 0.09, 0.10, 0.12, 0.17, 0.07, 0.07),
        MS: (0.07, 0.06, 0.17, 0.14, 0.08, 0.07, 0.15, 0.16, 0.06, 0.05),
    },
    order=_CLASSIC_ORDER,
)

# Barrage: 1,440 games, 2,880 setups. The pieces stand in the open lanes (columns 1-2, 5-6,
# 9-10), the movable ones mostly on the front row.
_LANES: Final = (0.14, 0.15, 0.02, 0.03, 0.13, 0.13, 0.03, 0.03, 0.19, 0.15)
BARRAGE_MODEL: Final = SetupModel(
    variant="barrage",
    flag_rows=(0.78, 0.12, 0.03, 0.07),
    flag_cols=(0.27, 0.05, 0.01, 0.10, 0.02, 0.04, 0.08, 0.02, 0.05, 0.36),
    guard_styles=(0.55, 0.0, 0.45),
    guard_partial=0.0,
    guard_front_first=False,
    cover=0.45,
    rows={
        B: (0.40, 0.25, 0.05, 0.30),
        SPY: (0.08, 0.15, 0.12, 0.66),
        SC: (0.23, 0.23, 0.10, 0.43),
        MI: (0.20, 0.18, 0.11, 0.51),
        GE: (0.12, 0.10, 0.11, 0.68),
        MS: (0.07, 0.10, 0.07, 0.76),
    },
    cols={B: _LANES, SPY: _LANES, SC: _LANES, MI: _LANES, GE: _LANES, MS: _LANES},
    order=_SMALL_ORDER,
)

# Duell: only 31 real games (62 setups), too few to copy; the flag is drawn between the
# barrage and classic habits, the rest as measured with the lane preference of barrage.
DUELL_MODEL: Final = SetupModel(
    variant="duell",
    flag_rows=(0.75, 0.13, 0.07, 0.05),
    flag_cols=(0.15, 0.06, 0.04, 0.10, 0.10, 0.06, 0.10, 0.08, 0.06, 0.25),
    guard_styles=(0.35, 0.45, 0.20),
    guard_partial=0.5,
    guard_front_first=False,
    cover=0.4,
    rows={
        B: (0.30, 0.25, 0.20, 0.25),
        SPY: (0.21, 0.13, 0.40, 0.26),
        SC: (0.18, 0.23, 0.23, 0.36),
        MI: (0.17, 0.20, 0.15, 0.48),
        GE: (0.11, 0.13, 0.26, 0.50),
        MS: (0.07, 0.10, 0.30, 0.53),
    },
    cols={B: _LANES, SPY: _LANES, SC: _LANES, MI: _LANES, GE: _LANES, MS: _LANES},
    order=_SMALL_ORDER,
)

SETUP_MODELS: Final[dict[str, SetupModel]] = {
    m.variant: m for m in (CLASSIC_MODEL, BARRAGE_MODEL, DUELL_MODEL)
}
"""The setup model of each variant the generator plays."""


def _area_neighbours(index: int) -> list[int]:
    row, col = divmod(index, 10)
    out = []
    for dr, dc in ((1, 0), (0, -1), (0, 1), (-1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < 4 and 0 <= c < 10:
            out.append(r * 10 + c)
    return out


def _guard_flag(
    model: SetupModel, area: list[int], flag: int, bombs: int, rng: random.Random
) -> int:
    """Put guard bombs next to the flag; returns how many bombs are left to place."""
    style = rng.choices(range(3), model.guard_styles)[0]
    if style == 2 or bombs == 0:
        return bombs
    around = _area_neighbours(flag)
    rng.shuffle(around)
    if model.guard_front_first:
        around.sort(key=lambda sq: sq != flag + 10)
    for square in around:
        if bombs == 0:
            break
        if style == 0 or rng.random() < model.guard_partial:
            area[square] = B
            bombs -= 1
    return bombs


def _place(
    area: list[int], kind: PieceKind, rows: Weights, cols: Weights, rng: random.Random
) -> None:
    free = [i for i in range(40) if area[i] < 0]
    weights = [rows[i // 10] * cols[i % 10] for i in free]
    if not any(weights):
        weights = [1.0] * len(free)
    area[rng.choices(free, weights)[0]] = kind


def draw_setup(model: SetupModel, rng: random.Random) -> list[int]:
    """One side's setup in the owner's view: 40 kind values (-1 for empty), back row first.

    Index ``i`` is row ``i // 10 + 1`` (1 = the owner's back row), column ``i % 10 + 1``
    (1 = the owner's left), as in the ``setups`` table.
    """
    area = [-1] * 40
    flag_row = rng.choices(range(4), model.flag_rows)[0]
    flag_col = rng.choices(range(10), model.flag_cols)[0]
    flag = flag_row * 10 + flag_col
    area[flag] = FL
    counts = list(model.army)
    counts[B] = _guard_flag(model, area, flag, counts[B], rng)
    if flag < 30 and area[flag + 10] < 0 and rng.random() < model.cover:
        # Small armies leave lanes open: people often put a piece in front of the flag.
        movable = [k for k in model.order if k != B for _ in range(counts[k])]
        kind = rng.choice(movable)
        area[flag + 10] = kind
        counts[kind] -= 1
    for kind in model.order:
        for _ in range(counts[kind]):
            _place(area, kind, model.rows[kind], model.cols[kind], rng)
    return area


def setup_field(red: Sequence[int], blue: Sequence[int]) -> tuple[int, ...]:
    """The 100 board codes of a game from both sides' owner-view setups (see :func:`draw_setup`)."""
    board = [EMPTY] * 100
    for square in LAKES:
        board[square] = LAKE
    for side, area in ((Side.RED, red), (Side.BLUE, blue)):
        for index, kind in enumerate(area):
            if kind >= 0:
                square = from_owner_view(index // 10 + 1, index % 10 + 1, side)
                board[square] = piece_code(side, PieceKind(kind))
    return tuple(board)


# -- playing ---------------------------------------------------------------------------

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


class Knowledge:
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
        # A battle shows both pieces; a scout moving more than one square shows itself.
        shown = revealed[source] or defender != EMPTY or DISTANCE[source * 100 + target] > 1
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
        know: Knowledge,
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
    know: Knowledge,
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
            shown = revealed[source] or DISTANCE[source * 100 + target] > 1
            score += turn.danger(source, piece, revealed[source])
            score -= turn.danger(target, piece, shown)
        score += noise * rng.random()
        if score > best_score:
            best, best_score = (source, target), score
    return best


# -- games -----------------------------------------------------------------------------

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


def _ending(position: Position, mover: int, outcome: int) -> Result | None:
    """Gravon's check after every move: flag taken, or a player (or both) unable to move."""
    if outcome == OUTCOME_FLAG:
        return Result(int(Termination.FLAG_CAPTURED), mover)
    other = 3 - mover
    other_can = position.has_legal_move(other)
    mover_can = position.has_legal_move(mover)
    if not other_can and not mover_can:
        return Result(int(Termination.BOTH_NO_MOVES), 3)
    if not other_can:
        return Result(int(Termination.NO_MOVES), mover)
    if not mover_can:
        return Result(int(Termination.NO_MOVES), other)
    return None


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
    """Play one game from ``setup``: (sources, targets, result). Every move is a legal one."""
    position = Position(setup, rules)
    know = Knowledge()
    sources: list[int] = []
    targets: list[int] = []
    start = _ending(position, 2, OUTCOME_NONE)  # a setup may leave a side without a move
    if start is not None:
        return sources, targets, start
    quiet = 0
    while len(sources) < max_plies and quiet < policy.patience:
        mover = position.side
        if policy.resign_chance and _resigns(position.board, mover, policy, rng):
            return sources, targets, Result(int(Termination.RESIGNED), 3 - mover)
        moves = position.legal_moves()
        source, target = choose_move(position, know, moves, rng, policy, len(sources))
        defender = position.board[target]
        outcome = position.apply(source, target)
        know.observe(source, target, defender, outcome, position.board)
        sources.append(source)
        targets.append(target)
        quiet = 0 if defender != EMPTY else quiet + 1
        result = _ending(position, mover, outcome)
        if result is not None:
            return sources, targets, result
    return sources, targets, _cap_result(position, policy.values)


def _variant_weights(variant: str | Mapping[str, float]) -> tuple[list[str], list[float]]:
    mix = {variant: 1.0} if isinstance(variant, str) else dict(variant)
    unknown = [name for name in mix if name not in SETUP_MODELS]
    if unknown or not mix:
        known = ", ".join(SETUP_MODELS)
        names = ", ".join(map(repr, unknown)) or "(none)"
        raise OptionError(f"cannot generate variant {names}; expected {known}")
    if any(weight < 0 for weight in mix.values()) or sum(mix.values()) <= 0:
        raise OptionError(f"variant weights must be >= 0 with a positive sum, got {mix!r}")
    return list(mix), list(mix.values())


def parse_variant_mix(text: str) -> str | dict[str, float]:
    """Read ``'classic'`` or a weighted mix ``'classic=8,barrage=1,duell=1'``.

    >>> parse_variant_mix("classic=8,barrage=2")
    {'classic': 8.0, 'barrage': 2.0}
    """
    if "=" not in text:
        _variant_weights(text.strip())
        return text.strip()
    mix: dict[str, float] = {}
    for part in text.split(","):
        name, sep, weight = part.partition("=")
        try:
            mix[name.strip()] = float(weight)
        except ValueError:
            raise OptionError(f"not a variant weight: {part!r} (expected like classic=8)") from None
        if not sep:
            raise OptionError(f"not a variant weight: {part!r} (expected like classic=8)")
    _variant_weights(mix)
    return mix


def parse_period(text: str) -> tuple[int, int]:
    """Read a calendar period ``'2026-11'`` as (year, month)."""
    year, sep, month = text.partition("-")
    if not (sep and year.isdigit() and month.isdigit() and 1 <= int(month) <= 12):
        raise OptionError(f"not a period: {text!r} (expected YYYY-MM, e.g. 2026-11)")
    return int(year), int(month)


def generate_game(
    number: int,
    variant: str,
    seed: int,
    *,
    year: int = 2026,
    month: int = 11,
    policy: Policy = DEFAULT_POLICY,
    max_plies: int = MAX_PLIES,
) -> GameRecord:
    """Game ``number`` of a generated month, drawn from its own seed (``seed``, ``number``)."""
    rng = random.Random(f"strat-tools/{seed}/{number}")
    model = SETUP_MODELS[variant]
    setup = setup_field(draw_setup(model, rng), draw_setup(model, rng))
    record = GameRecord(
        source=f"{variant}-{year}.{month - 1}-{number}.xml",
        variant=variant,
        year=year,
        month=month,
        number=number,
        setup=setup,
        players=("Player 1", "Player 2"),
        synthetic=True,
    )
    sources, targets, result = play_game(
        setup, rules_for(record), rng, policy=policy, max_plies=max_plies
    )
    record.sources, record.targets, record.result = sources, targets, result
    return record


class GenerationError(RunError):
    """A generated game failed its own checks: a bug in the generator or the engine."""


def verify_game(record: GameRecord) -> bytes:
    """Write ``record``, read it back and replay it; return the XML if all is well.

    Raises :class:`GenerationError` unless the file reads back as the same game, neither
    reader nor engine has anything to say (no error, no warning) and the engine finds it
    valid.
    """
    name = game_file_name(record)
    data = record_to_xml(record)
    parsed = parse_record(data, name)
    same = (
        parsed.setup == record.setup
        and parsed.sources == record.sources
        and parsed.targets == record.targets
        and parsed.result == record.result
        and (parsed.variant, parsed.year, parsed.month, parsed.number)
        == (record.variant, record.year, record.month, record.number)
    )
    checked = replay(parsed)
    problems = [
        str(d)
        for d in (*parsed.diagnostics, *checked.diagnostics)
        if d.severity in (Severity.ERROR, Severity.WARNING)
    ]
    if not same:
        problems.append("the written file reads back as a different game")
    if problems or checked.status is not Status.VALID:
        raise GenerationError(f"generated game {name} is not valid: " + "; ".join(problems))
    return data


def plan_games(
    n: int, variant: str | Mapping[str, float], seed: int, first_number: int = 1
) -> list[tuple[int, str]]:
    """(number, variant) of each game to generate: the variant of a mix drawn from the seed."""
    if n < 0:
        raise OptionError(f"the number of games must be >= 0, got {n}")
    names, weights = _variant_weights(variant)
    picker = random.Random(f"strat-tools/{seed}/variants")
    return [
        (first_number + index, names[0] if len(names) == 1 else picker.choices(names, weights)[0])
        for index in range(n)
    ]


def generate_games(
    n: int,
    *,
    variant: str | Mapping[str, float] = "classic",
    seed: int = 0,
    year: int = 2026,
    month: int = 11,
    first_number: int = 1,
    policy: Policy = DEFAULT_POLICY,
    max_plies: int = MAX_PLIES,
    verify: bool = True,
) -> Iterator[GameRecord]:
    """Yield ``n`` generated games numbered from ``first_number``, all dated ``year``-``month``.

    ``variant`` is one variant or a mix such as ``{'classic': 8, 'barrage': 1, 'duell': 1}``
    (each game's variant drawn with those weights). The same arguments always give the same
    games. With ``verify`` (the default) each game is written, read back and replayed by the
    engine before it is yielded (see :func:`verify_game`).

    >>> games = list(generate_games(3, variant="barrage", seed=7))
    >>> [g.game_id for g in games]
    ['barrage-2026.10-1', 'barrage-2026.10-2', 'barrage-2026.10-3']
    """
    if not 1 <= month <= 12:
        raise OptionError(f"month must be 1..12, got {month}")
    for number, chosen in plan_games(n, variant, seed, first_number):
        record = generate_game(
            number, chosen, seed, year=year, month=month, policy=policy, max_plies=max_plies
        )
        if verify:
            verify_game(record)
        yield record


def _generate_batch(
    plan: list[tuple[int, str]],
    *,
    seed: int,
    year: int,
    month: int,
    policy: Policy,
    max_plies: int,
    verify: bool,
) -> list[tuple[str, bytes]]:
    """Worker: generate the planned games and return them as (file name, XML) pairs."""
    out = []
    for number, variant in plan:
        record = generate_game(
            number, variant, seed, year=year, month=month, policy=policy, max_plies=max_plies
        )
        data = verify_game(record) if verify else record_to_xml(record)
        out.append((game_file_name(record), data))
    return out


def generate_files(
    n: int,
    *,
    variant: str | Mapping[str, float] = "classic",
    seed: int = 0,
    year: int = 2026,
    month: int = 11,
    first_number: int = 1,
    policy: Policy = DEFAULT_POLICY,
    max_plies: int = MAX_PLIES,
    verify: bool = True,
    jobs: int | None = 1,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[str, bytes]]:
    """The games of :func:`generate_games` as (file name, XML) pairs, made by ``jobs`` worker
    processes (``None``: all cores) and yielded in order, for :func:`writer.write_files`.

    Each game depends only on the seed and its number, so the output is the same for any
    number of jobs. Workers ship XML bytes, never records.

    >>> files = generate_files(10_000, seed=1, jobs=None)
    >>> write_files(files, "strados2026-10.zip")  # doctest: +SKIP
    10000
    """
    if not 1 <= month <= 12:
        raise OptionError(f"month must be 1..12, got {month}")
    plan = plan_games(n, variant, seed, first_number)
    work = partial(
        _generate_batch,
        seed=seed,
        year=year,
        month=month,
        policy=policy,
        max_plies=max_plies,
        verify=verify,
    )
    for batch in map_batches(work, plan, jobs=jobs, batch_size=20, progress=progress):
        yield from batch
