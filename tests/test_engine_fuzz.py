"""Fuzzing the engine: legal games replay clean, one illegal move is always caught at its
ply, and mutated files go through read + replay + tables without raising.

Games come from two players: the generator's policy (human-like) and a uniformly random
player over :meth:`Position.legal_pairs` that likes to step straight back (so games run
into the two-squares limit, scouts included). Random setups cover every variant with a
fixed army, ultimate lightning too (captains' two steps, one-time bombs, aggressor ties).

Hypothesis runs with a fixed budget and ``derandomize=True``: the same examples every run,
well under a minute in all.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mutation import mutate

from strat_tools.core.board import LAKES, NEIGHBOURS, RAYS
from strat_tools.core.pieces import ARMIES, CODE_KIND, CODE_SIDE, EMPTY, PieceKind
from strat_tools.core.records import Diagnostic, GameRecord, Result, Severity, Status, Termination
from strat_tools.core.rules import RuleSet, resolve_rules, rules_for
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import Replay, replay
from strat_tools.formats.readers import parse_record, read_units
from strat_tools.formats.xml_writer import game_file_name, record_to_xml
from strat_tools.generate.games import generate_game
from strat_tools.generate.setups import setup_field
from strat_tools.io.sources import Unit
from strat_tools.tables.build import tables_for_units

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
VARIANTS = ("classic", "barrage", "duell", "ultimate lightning")
POLICY_VARIANTS = ("classic", "barrage", "duell")
"""Variants the generator's policy plays."""
YEARS = (2004, 2014)
"""One year per Gravon rule era: two-squares limit 5, and limit 3."""
MAX_PLIES = 400


# --- making legal games ----------------------------------------------------------------------


def random_area(variant: str, rng: random.Random) -> list[int]:
    """One side's setup (owner's view, 40 kind values, -1 empty): the army shuffled."""
    army = [kind for kind, count in enumerate(ARMIES[variant]) for _ in range(count)]
    area = army + [-1] * (40 - len(army))
    rng.shuffle(area)
    return area


def ending(position: Position, mover: int, outcome: int) -> Result | None:
    """Gravon's check after each move: flag taken, or a side (or both) left without a move."""
    if outcome == 4:
        return Result(int(Termination.FLAG_CAPTURED), mover)
    mover_can = position.has_legal_move(mover)
    other_can = position.has_legal_move(3 - mover)
    if not (mover_can or other_can):
        return Result(int(Termination.BOTH_NO_MOVES), 3)
    if not other_can:
        return Result(int(Termination.NO_MOVES), mover)
    if not mover_can:
        return Result(int(Termination.NO_MOVES), 3 - mover)
    return None


def play_randomly(record: GameRecord, rng: random.Random, back: float) -> GameRecord:
    """Fill ``record`` with uniformly random legal moves; ``back`` is the chance to step
    straight back when that is legal (to meet the two-squares limit often)."""
    assert record.setup is not None
    position = Position(record.setup, rules_for(record))
    record.result = ending(position, 2, 0)
    last: dict[int, tuple[int, int]] = {}
    while record.result is None and record.plies < MAX_PLIES:
        mover = position.side
        moves = position.legal_pairs()
        reverse = last.get(mover, (-1, -1))[::-1]
        move = reverse if reverse in moves and rng.random() < back else rng.choice(moves)
        outcome = position.push(*move)  # push checks again: it must agree with legal_pairs
        last[mover] = move
        record.sources.append(move[0])
        record.targets.append(move[1])
        record.result = ending(position, mover, outcome)
    if record.result is None:
        record.result = Result(int(Termination.RESIGNED), rng.choice((1, 2)))
    return record


def blank_record(variant: str, year: int, number: int, setup: tuple[int, ...]) -> GameRecord:
    """A record with a setup and no moves, named like a Gravon file."""
    record = GameRecord(
        source="",
        variant=variant,
        year=year,
        month=5,
        number=number,
        setup=setup,
        players=("Player 1", "Player 2"),
    )
    record.source = game_file_name(record)
    return record


@functools.lru_cache(maxsize=256)
def random_game(variant: str, year: int, seed: int, back: float) -> GameRecord:
    """A game of random legal moves from a random setup (cached: tests copy it)."""
    rng = random.Random(f"engine-fuzz/{variant}/{year}/{seed}/{back}")
    setup = setup_field(random_area(variant, rng), random_area(variant, rng))
    return play_randomly(blank_record(variant, year, seed + 1, setup), rng, back)


@functools.lru_cache(maxsize=256)
def policy_game(variant: str, year: int, seed: int) -> GameRecord:
    """A game by the generator's policy (not verified by the generator: that is our job)."""
    return generate_game(seed + 1, variant, seed, year=year, month=5, max_plies=MAX_PLIES)


def copy_of(record: GameRecord) -> GameRecord:
    """An independent copy of a move list (records are mutable)."""
    return GameRecord(
        source=record.source,
        variant=record.variant,
        year=record.year,
        month=record.month,
        number=record.number,
        setup=record.setup,
        sources=record.sources[:],
        targets=record.targets[:],
        players=record.players,
        result=record.result,
    )


games = st.one_of(
    st.builds(
        random_game,
        st.sampled_from(VARIANTS),
        st.sampled_from(YEARS),
        st.integers(0, 30),
        st.sampled_from((0.0, 0.5, 0.9)),
    ),
    st.builds(
        policy_game,
        st.sampled_from(POLICY_VARIANTS),
        st.sampled_from(YEARS),
        st.integers(0, 30),
    ),
)


def problems(*diagnostic_lists: Iterable[Diagnostic]) -> list[str]:
    """Errors and warnings, as text for assertion messages."""
    return [
        str(d)
        for ds in diagnostic_lists
        for d in ds
        if d.severity in (Severity.ERROR, Severity.WARNING)
    ]


# --- legal games replay clean ------------------------------------------------------------------


@pytest.mark.slow
@settings(FUZZ, max_examples=120)
@given(game=games)
def test_legal_games_replay_clean_in_memory_and_through_xml(game: GameRecord) -> None:
    direct = replay(game)
    assert direct.status is Status.VALID, problems(direct.diagnostics)
    assert direct.plies_replayed == game.plies and not problems(direct.diagnostics)
    parsed = parse_record(record_to_xml(game), game.source)
    assert (parsed.setup, parsed.sources, parsed.targets) == (
        game.setup,
        game.sources,
        game.targets,
    )
    again = replay(parsed)
    assert again.status is Status.VALID, problems(parsed.diagnostics, again.diagnostics)
    assert not problems(parsed.diagnostics, again.diagnostics)
    assert (again.movers, again.defenders, again.outcomes, again.distances) == (
        direct.movers,
        direct.defenders,
        direct.outcomes,
        direct.distances,
    )
    assert again.final_board == direct.final_board
    if game.result is not None and game.result.type in (0, 1, 2):
        assert again.termination == Termination(game.result.type)
        assert again.winner == game.result.winner


def test_random_player_reaches_the_two_squares_limit() -> None:
    """The fuzzing above is only worth something if games run into the repetition rule."""
    hits = 0
    for seed in range(6):
        game = random_game("barrage", 2014, seed, 0.9)
        position = Position(game.setup or (), rules_for(game))
        for source, target in zip(game.sources, game.targets, strict=True):
            side = position.side
            position.push(source, target)
            hits += position.rep_count[side] == position.limit
    assert hits > 0


# --- one illegal move is caught at its ply -----------------------------------------------------

KINDS = (
    "random",
    "diagonal",
    "lake",
    "own_piece",
    "immovable",
    "too_far",
    "turn",
    "empty",
    "back",
)


def candidates(position: Position, kind: str) -> list[tuple[int, int]]:
    """Moves of one illegal kind in this position (may include legal ones: filter them)."""
    board, side = position.board, position.side
    own = [sq for sq in range(100) if CODE_SIDE[board[sq]] == side]
    movable = [sq for sq in own if CODE_KIND[board[sq]] not in (PieceKind.BOMB, PieceKind.FLAG)]
    if kind == "diagonal":
        return [
            (s, (r + dr) * 10 + c + dc)
            for s in movable
            for r, c in [divmod(s, 10)]
            for dr in (-1, 1)
            for dc in (-1, 1)
            if 0 <= r + dr < 10 and 0 <= c + dc < 10
        ]
    if kind == "lake":  # onto a lake, or a scout's line across one
        return [
            (s, t)
            for s in movable
            for step in (1, -1, 10, -10)
            for t in line(s, step)
            if t in LAKES or any(sq in LAKES for sq in line(s, step)[: line(s, step).index(t)])
        ]
    if kind == "own_piece":
        return [(s, t) for s in movable for t in NEIGHBOURS[s] if CODE_SIDE[board[t]] == side]
    if kind == "immovable":
        immovable = [sq for sq in own if sq not in movable]
        return [(s, t) for s in immovable for t in NEIGHBOURS[s]]
    if kind == "too_far":
        return [(s, t) for s in movable for ray in RAYS[s] for t in ray[1:]]
    if kind == "turn":
        enemy = [sq for sq in range(100) if CODE_SIDE[board[sq]] == 3 - side]
        return [(s, t) for s in enemy for t in NEIGHBOURS[s] if board[t] == EMPTY]
    if kind == "empty":
        return [(s, t) for s in range(100) if board[s] == EMPTY for t in NEIGHBOURS[s]]
    return [(s, t) for s in range(100) for t in range(100)]


def line(square: int, step: int) -> list[int]:
    """Every square from ``square`` in one direction to the edge, lakes included."""
    assert step in (1, -1, 10, -10)
    out: list[int] = []
    row, col = divmod(square, 10)
    while True:
        row, col = (
            row + (step // 10 if abs(step) == 10 else 0),
            col + (step if abs(step) == 1 else 0),
        )
        if not (0 <= row < 10 and 0 <= col < 10):
            return out
        out.append(row * 10 + col)


def position_before(game: GameRecord, ply: int, rules: RuleSet) -> Position:
    """The position just before ``ply`` (1-based), played with the engine's own checks."""
    assert game.setup is not None
    position = Position(game.setup, rules)
    for source, target in zip(game.sources[: ply - 1], game.targets[: ply - 1], strict=True):
        position.push(source, target)
    return position


def first_error(result: Replay) -> tuple[str, int | None]:
    """(code, ply) of the replay's first error."""
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    assert errors, "no error reported"
    return errors[0].code, errors[0].ply


@settings(FUZZ, max_examples=400)
@given(
    game=games,
    where=st.floats(0, 1, exclude_max=True),
    kind=st.sampled_from(KINDS),
    pick=st.integers(0, 10_000),
)
@pytest.mark.slow
def test_one_illegal_move_is_caught_at_its_ply(
    game: GameRecord, where: float, kind: str, pick: int
) -> None:
    if not game.plies:
        return
    ply = 1 + int(where * game.plies)
    strict = resolve_rules("auto+strict", game)  # no looser limit to fall back on
    position = position_before(game, ply, strict)
    legal = set(position.legal_pairs())
    illegal = [m for m in candidates(position, kind) if m not in legal]
    if not illegal:
        illegal = [m for m in candidates(position, "random") if m not in legal]
        kind += "->random"
    event(f"{game.variant}, {kind}")
    source, target = illegal[pick % len(illegal)]
    reason = position.illegal_reason(source, target)
    assert reason is not None, f"{source}-{target} is not in legal_pairs() but check() allows it"
    mutated = copy_of(game)
    mutated.sources[ply - 1], mutated.targets[ply - 1] = source, target
    result = replay(mutated, strict)
    assert result.status is Status.INVALID
    assert first_error(result) == (reason[0], ply), (kind, str(position))
    assert result.plies_replayed == ply - 1 and result.stopped_at == ply
    if reason[0] != "rule.two_squares":  # 'auto' may fall back to a looser limit for those
        assert first_error(replay(mutated)) == (reason[0], ply)


def back_again(position: Position) -> list[tuple[int, int]]:
    """Moves of the piece that just moved (side to move) back along its line that break the
    two-squares limit now (the scout clause included)."""
    last = position.rep_key[position.side]
    if last < 0:
        return []
    came_from, now = divmod(last, 100)
    if came_from // 10 == now // 10:
        step = 1 if came_from > now else -1
    elif came_from % 10 == now % 10:
        step = 10 if came_from > now else -10
    else:
        return []  # a lightning captain's turn: no line to come back along
    moves = [(now, t) for t in line(now, step)]
    return [m for m in moves if (position.illegal_reason(*m) or ("",))[0] == "rule.two_squares"]


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
@settings(FUZZ, max_examples=120)
@given(game=games, where=st.floats(0, 1, exclude_max=True))
def test_a_move_past_the_two_squares_limit_is_caught_at_its_ply(
    game: GameRecord, where: float
) -> None:
    strict = resolve_rules("auto+strict", game)
    assert game.setup is not None
    position = Position(game.setup, strict)
    chances: list[tuple[int, tuple[int, int]]] = []
    for index, (source, target) in enumerate(zip(game.sources, game.targets, strict=True)):
        chances += [(index + 1, move) for move in back_again(position)]
        position.push(source, target)
    event(f"{game.variant}: {'a' if chances else 'no'} move past the limit to make")
    if not chances:
        return
    ply, (source, target) = chances[int(where * len(chances))]
    mutated = copy_of(game)
    mutated.sources[ply - 1], mutated.targets[ply - 1] = source, target
    result = replay(mutated, strict)
    assert first_error(result) == ("rule.two_squares", ply)
    assert result.plies_replayed == ply - 1
    loose = replay(mutated)  # 'auto' of 2013-14 replays such a game under a limit of 5
    if loose.rules.two_squares_limit == strict.two_squares_limit:
        assert first_error(loose) == ("rule.two_squares", ply)
    elif loose.status is Status.VALID:
        assert loose.diagnostics[0].code == "rules.two_squares_fallback"
        assert loose.diagnostics[0].ply == ply


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
@settings(FUZZ, max_examples=150)
@given(game=games, where=st.floats(0, 1, exclude_max=True), pick=st.integers(0, 10_000))
def test_any_legal_move_is_accepted_in_place_of_the_recorded_one(
    game: GameRecord, where: float, pick: int
) -> None:
    if not game.plies:
        return
    ply = 1 + int(where * game.plies)
    rules = resolve_rules("auto+strict", game)
    moves = position_before(game, ply, rules).legal_pairs()
    mutated = copy_of(game)
    del mutated.sources[ply:], mutated.targets[ply:]
    mutated.sources[ply - 1], mutated.targets[ply - 1] = moves[pick % len(moves)]
    mutated.result = None
    result = replay(mutated, rules)
    assert result.plies_replayed == ply, problems(result.diagnostics)
    assert result.status is Status.VALID, problems(result.diagnostics)


# --- mutated files never make the pipeline raise ---------------------------------------------

SQUARE_BYTES = b"ABCDEFGHIJK0123456789:"
XML_BYTES = b'<>"/=&; \n\x00\xff'
byte = st.one_of(
    st.sampled_from(list(SQUARE_BYTES)), st.sampled_from(list(XML_BYTES)), st.integers(0, 255)
)
edit = st.tuples(
    st.sampled_from(["replace", "insert", "delete", "swap"]),
    st.floats(0, 1, exclude_max=True),
    st.lists(byte, min_size=1, max_size=3),
).map(lambda e: (*e, len(e[2])))  # delete as many bytes as the edit carries


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the mutated files (one at a time)."""
    return tmp_path_factory.mktemp("engine-fuzz")


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
@settings(FUZZ, max_examples=300)
@given(game=games, edits=st.lists(edit, min_size=1, max_size=4))
def test_mutated_files_go_through_read_replay_and_tables_without_raising(
    scratch: Path, game: GameRecord, edits: list[tuple[str, float, list[int], int]]
) -> None:
    data = mutate(record_to_xml(game), edits)
    path = scratch / game.source
    path.write_bytes(data)
    unit = Unit(str(path))
    try:
        (record,) = read_units([unit])
        result = replay(record) if record.readable else None
        tables = tables_for_units([unit])
    except Exception as exc:  # any exception is the failure looked for
        pytest.fail(f"{type(exc).__name__}: {exc} on {data!r}")
    assert tables["games"].num_rows == 1
    status = tables["games"].column("status")[0].as_py()
    if result is None:
        assert record.errors and status == "invalid"
        return
    errors = [*record.errors, *(d for d in result.diagnostics if d.severity is Severity.ERROR)]
    assert (result.status is Status.INVALID) == bool(errors)
    assert status == result.status.value
