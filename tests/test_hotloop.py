"""Tests for the replay engine's hot loop (``engine/rules/hotloop.py``): it must play exactly what
:class:`Position` plays, ply by ply, and stop where Position would refuse a move.

The reference is the replay's slow path (``_slow``: :meth:`Position.check` and
:meth:`Position.apply` for every ply). Games are random legal games biased to move the same
piece again and to step straight back, so chains reach the two-squares limit (scouts under
the scout clause too), with a random move spliced in to make some of them illegal.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from strat_tools.core.board import LAKES, NEIGHBOURS, parse_square
from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.core.pieces import ARMIES, CODE_SIDE, LAKE, PieceKind
from strat_tools.core.records import GameRecord
from strat_tools.core.rules import RuleSet, get_rules
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import Replay, _play_all, _slow
from strat_tools.engine.rules.hotloop import ADJACENT, DISTANCE_128, PATH_128, STEP_128
from strat_tools.engine.rules.rule_tables import ADJACENT_ROWS, DISTANCE, PATH, STEP

LIMIT_ONE = replace(get_rules("gravon-2013"), name="limit1", two_squares_limit=1)
LIMIT_TWO_CLASSIC = replace(get_rules("classic"), name="classic-limit2", two_squares_limit=2)

RULES: list[tuple[RuleSet | str, str]] = [
    ("gravon-2013+strict", "classic"),
    ("gravon-2004", "barrage"),
    (LIMIT_ONE, "barrage"),
    (LIMIT_TWO_CLASSIC, "duell"),
    ("classic+aggressor+silent", "classic"),
    ("ultimate-lightning", "ultimate lightning"),
]


def random_setup(rng: random.Random, army: tuple[int, ...]) -> list[int]:
    """Both armies placed at random in their four rows, lakes marked."""
    board = [LAKE if square in LAKES else 0 for square in range(100)]
    for side, rows in ((1, range(0, 40)), (2, range(60, 100))):
        pieces = [kind for kind, n in enumerate(army) for _ in range(n)]
        for kind, square in zip(pieces, rng.sample(list(rows), len(pieces)), strict=False):
            board[square] = kind + (1 if side == 1 else 13)
    return board


def random_game(
    rng: random.Random, rules: RuleSet | str, variant: str, plies: int = 300
) -> GameRecord:
    """A legal game that likes to move the same piece again (so back and forth); now and
    then it ends with an illegal move (:func:`wrong_move`), or a random move is spliced in."""
    setup = random_setup(rng, ARMIES[variant])
    pos = Position(setup, rules)
    sources: list[int] = []
    targets: list[int] = []
    for _ in range(plies):
        moves = pos.legal_pairs()
        if not moves or pos.winner:
            break
        wrong = wrong_move(rng, pos) if rng.random() < 0.01 else None
        if wrong is not None:
            sources.append(wrong[0])
            targets.append(wrong[1])
            break
        last = pos.rep_key[pos.side]
        again = [m for m in moves if last >= 0 and m[0] == last % 100]
        source, target = rng.choice(again if again and rng.random() < 0.7 else moves)
        pos.push(source, target)
        sources.append(source)
        targets.append(target)
    if sources and rng.random() < 0.3:
        at = rng.randrange(len(sources) + 1)
        sources.insert(at, rng.randrange(-1, 100))
        targets.insert(at, rng.randrange(-1, 100))
    return GameRecord(
        source="random",
        variant=variant,
        year=2014,
        setup=tuple(setup),
        sources=sources,
        targets=targets,
        lines=list(range(len(sources))),
    )


def wrong_move(rng: random.Random, pos: Position) -> tuple[int, int] | None:
    """An illegal move that looks like a real one, or None: straight back once too often,
    too far along a line, over or onto a piece, onto a neighbour, or two random squares."""
    last = pos.rep_key[pos.side]
    own = [sq for sq in range(100) if CODE_SIDE[pos.board[sq]] == pos.side]
    far = [sq for sq in own if pos.steps[pos.board[sq]] > 1]  # scouts, lightning captains
    source = rng.choice(far if far and rng.random() < 0.6 else own)
    unit = rng.choice((1, -1, 10, -10))
    candidates = [
        (last % 100, last // 100) if last >= 0 else (0, 0),
        (source, source + unit * rng.choice((2, 3, rng.randrange(1, 10)))),
        (source, rng.choice([n for n in NEIGHBOURS[source] if n in own] or [source])),
        (rng.randrange(-1, 100), rng.randrange(-1, 100)),
    ]
    rng.shuffle(candidates)
    for move in candidates:
        if -1 <= move[1] < 100 and pos.illegal_reason(*move) is not None:
            return move
    return None


def fresh(record: GameRecord, rules: RuleSet | str) -> tuple[Position, Replay]:
    """A start position and an empty replay with its per-ply columns."""
    assert record.setup is not None
    pos = Position(record.setup, rules)
    out = Replay(record, pos.rules)
    n = record.plies
    out.movers, out.defenders, out.outcomes = [0] * n, [0] * n, [0] * n
    out.distances, out.revealed, out.chains = [1] * n, [0] * n, [1] * n
    return pos, out


def state(pos: Position, out: Replay, played: int) -> tuple[object, ...]:
    """Everything the replay keeps: position, rule state, per-ply columns, diagnostics."""
    return (
        played,
        pos.board,
        pos.side,
        pos.winner,
        pos.rep_key,
        pos.rep_count,
        pos.rep_lo,
        pos.rep_hi,
        pos.rep_path,
        pos.captured,
        out.movers[:played],
        out.defenders[:played],
        out.outcomes[:played],
        out.distances[:played],
        out.revealed[:played],
        out.chains[:played],
        [(d.code, d.ply, d.message) for d in out.diagnostics],
    )


def slow_only(record: GameRecord, rules: RuleSet | str) -> tuple[object, ...]:
    """Replay every ply with Position alone (the reference)."""
    pos, out = fresh(record, rules)
    played = 0
    while played < record.plies and _slow(record, pos, played, out):
        played += 1
    return state(pos, out, played)


def with_loop(record: GameRecord, rules: RuleSet | str) -> tuple[object, ...]:
    """Replay with the hot loop, as ``replay`` does."""
    pos, out = fresh(record, rules)
    return state(pos, out, _play_all(record, pos, out))


@pytest.mark.parametrize(("rules", "variant"), RULES)
def test_hot_loop_plays_what_position_plays(rules: RuleSet | str, variant: str) -> None:
    rng = random.Random(f"hotloop/{rules}/{variant}")
    stopped = 0
    for _ in range(25):
        record = random_game(rng, rules, variant)
        reference = slow_only(record, rules)
        assert with_loop(record, rules) == reference
        played = reference[0]
        assert isinstance(played, int)
        stopped += played < record.plies
    assert stopped  # some spliced moves were illegal: the loop stopped where Position did


@pytest.mark.parametrize(("rules", "variant"), RULES[:3])
def test_spans_split_anywhere_give_the_same_game(rules: RuleSet | str, variant: str) -> None:
    rng = random.Random(f"split/{rules}")
    for _ in range(6):
        record = random_game(rng, rules, variant)
        whole = with_loop(record, rules)
        pos, out = fresh(record, rules)
        columns = (out.movers, out.defenders, out.outcomes, out.distances, out.revealed, out.chains)
        cut = rng.randrange(record.plies + 1)
        index = pos.play_span(record.sources, record.targets, 0, cut, columns)
        index = _play_all_from(record, pos, out, index)
        assert state(pos, out, index) == whole


def _play_all_from(record: GameRecord, pos: Position, out: Replay, index: int) -> int:
    """Go on from ``index`` like ``_play_all``: the loop, and Position for what it leaves."""
    columns = (out.movers, out.defenders, out.outcomes, out.distances, out.revealed, out.chains)
    while index < record.plies:
        index = pos.play_span(record.sources, record.targets, index, record.plies, columns)
        if index < record.plies:
            if not _slow(record, pos, index, out):
                return index
            index += 1
    return index


CORNER = """
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .   .   .   .   .   .  b2
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  r5   .   .   .   .   .   .   .   .  bF
"""


@pytest.mark.parametrize("corner", ["b2", "b4"])
@pytest.mark.parametrize(
    ("sources", "targets", "stop_at"),
    [
        ([-1], [parse_square("A2")], 0),  # unreadable source (index -1 would be K10)
        ([parse_square("A1")], [-1], 0),  # unreadable target
        # blue's unreadable source would read the piece on K10, next to K9: no move
        ([parse_square("A1"), -1], [parse_square("A2"), parse_square("K9")], 1),
        ([parse_square("A1")], [parse_square("A2")], 1),  # odd span: the padding stops it
    ],
)
def test_unreadable_squares_stop_the_loop_before_the_ply(
    sources: list[int], targets: list[int], stop_at: int, corner: str
) -> None:
    start = parse_board(CORNER.replace("b2", corner))
    pos = Position(start, "classic")
    n = len(sources)
    columns = ([0] * n, [0] * n, [0] * n, [1] * n, [0] * n, [1] * n)
    assert pos.play_span(sources, targets, 0, n, columns) == stop_at
    expected = start[:]
    if stop_at:
        expected[parse_square("A1")], expected[parse_square("A2")] = 0, expected[0]
    assert render_board(pos.board) == render_board(expected)
    assert pos.side == (2 if stop_at % 2 else 1)


def test_stride_tables_agree_with_the_position_tables() -> None:
    for source in range(100):
        for target in range(100):
            old, new = source * 100 + target, source * 128 + target
            assert DISTANCE_128[new] == DISTANCE[old]
            assert STEP_128[new] == STEP[old]
            assert PATH_128[new] == PATH[old]
            assert ADJACENT[new] == ADJACENT_ROWS[source][target] == (DISTANCE[old] == 1)
    for square in range(100):
        assert ADJACENT_ROWS[square][-1] == ADJACENT_ROWS[-1][square] == 0
        assert DISTANCE_128[square * 128 - 1] == DISTANCE_128[-128 + square] == 0


def test_scout_clause_chain_over_shared_squares_is_counted_in_the_loop() -> None:
    # A red scout shuttles A1-A4, A4-A2, A2-A4: each reverses on one line and shares A2..A4
    # with the chain, so under the clause the third is move 3 of a chain (limit 3 allows it)
    # and a fourth, A4-A3, is one too many; blue's piece steps aside and back meanwhile.
    board = parse_board(CORNER)
    board[parse_square("A1")] = PieceKind.SCOUT + 1
    plies = ["A1-A4", "K10-K9", "A4-A2", "K9-K10", "A2-A4", "K10-K9", "A4-A3"]
    sources = [parse_square(p.split("-")[0]) for p in plies]
    targets = [parse_square(p.split("-")[1]) for p in plies]
    for rules, played in (("gravon-2013+strict", 6), ("gravon-2004", 7)):
        pos = Position(board, rules)
        n = len(plies)
        columns = ([0] * n, [0] * n, [0] * n, [1] * n, [0] * n, [1] * n)
        assert pos.play_span(sources, targets, 0, n, columns) == played
        assert pos.rep_count[1] == (3 if played == 6 else 4)
        assert columns[3][:5] == [3, 1, 2, 1, 2]
