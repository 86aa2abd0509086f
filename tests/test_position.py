"""Position in python-chess's shape: Move, legal_moves, push/pop/peek/move_stack, copy,
outcome, ==; the one ply convention; impossible StraDos3 boards refused; clear errors."""

from __future__ import annotations

import itertools
import zipfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest

import strat_tools as st
from conftest import WHOLE_ARCHIVE
from strat_tools.core.errors import StratToolsError
from strat_tools.core.move import Move, MoveError
from strat_tools.core.records import GameRecord, Status, Termination
from strat_tools.engine.encodings.strados3 import (
    EMPTY_FIELD,
    parse_strados3,
    strados3_at,
    to_strados3,
)
from strat_tools.engine.position.move import Battle
from strat_tools.engine.position.position import Position
from strat_tools.engine.rules.board_check import PositionError
from strat_tools.engine.rules.outcome import Outcome
from strat_tools.formats.readers import read_records
from tests.hand_games import put, scout_chain_game

DATA = Path(__file__).resolve().parent.parent / "data"
GAME = Path(__file__).resolve().parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"


def python_chess_loop(records: Iterable[GameRecord], *, batch_every: int = 0) -> tuple[int, int]:
    """Step every valid game as python-chess users write it (``for m in record.moves: assert
    m in pos.legal_moves; pos.push(m)``) and hold it against the replay at every ply: the
    battles, pop and push again, the record's moves as moves (``str``, ``Move.of``). The
    last position equals ``board_at`` with the same outcome; the record's ending is the
    replay's. With ``batch_every``, every that many plies the legal moves (the engine's
    scalar search) equal the batch generator's. (games, plies) checked."""
    games = plies = 0
    for record in records:
        result = st.replay(record)
        if result.status is not Status.VALID or record.setup is None:
            continue
        problems = {d.code for d in result.diagnostics}
        pos = st.Position(record.setup, result.rules)
        for m in record.moves:
            assert m in pos.legal_moves, (record.game_id, m.ply)
            assert not pos.is_game_over() and st.Move.of(m) == m, (record.game_id, m.ply)
            assert str(m) == m.uci() == str(st.Move.of(m))
            if batch_every and m.ply % batch_every == 1:
                assert list(pos.legal_moves) == [st.Move(*p) for p in pos.legal_pairs()]
            before = pos.copy()
            battle = pos.push(m)
            assert battle == result.outcomes[m.ply - 1] and isinstance(battle, Battle)
            assert pos.peek() == m
            if m.ply % 7 == 0:  # pop and push again: the same position
                assert pos.pop() == m and pos == before
                pos.push(m)
            plies += 1
        last = st.board_at(record)
        assert pos == last and len(pos.move_stack) == record.plies, record.game_id
        assert pos.outcome() == last.outcome(), record.game_id  # equal positions, equal ends
        if record.result is not None and not any(c.startswith("result.") for c in problems):
            outcome = result.outcome()
            assert outcome is not None and outcome.result == record.result, record.game_id
            board = pos.outcome()
            assert board is None or board == outcome, record.game_id
        games += 1
    return games, plies


def test_a_python_chess_loop_agrees_with_the_replay_on_the_sample() -> None:
    """The first 60 games of the sample month (about a second)."""
    games, plies = python_chess_loop(itertools.islice(read_records([DATA]), 60), batch_every=25)
    assert games > 40 and plies > 3_000


@pytest.mark.slow
@pytest.mark.archive
def test_a_python_chess_loop_agrees_with_the_replay_across_the_archive(
    gravon_dir: Path,
) -> None:
    """About 100 games spread over the archive (every 150th, and the first three of each
    variant: every month, period and variant; about 10 s, mostly reading the archive to
    choose them); the replay under the loop is held against the outside referee on every
    ply elsewhere. ``STRAT_TOOLS_WHOLE_ARCHIVE=1`` walks every game (13,979, under 3
    minutes a core)."""
    whole = WHOLE_ARCHIVE
    seen: Counter[str] = Counter()
    taken: Counter[str] = Counter()

    def sample(records: Iterable[GameRecord]) -> Iterable[GameRecord]:
        for k, record in enumerate(records):
            seen[record.variant] += 1
            if whole or k % 150 == 0 or seen[record.variant] <= 3:
                taken[record.variant] += 1
                yield record

    games, plies = python_chess_loop(sample(read_records([str(gravon_dir)])))
    assert sum(seen.values()) > 13_000 and len(taken) >= 3, taken
    assert games > (13_000 if whole else 80) and plies > 10_000, (games, plies)
    print(f"python-chess loop: {games:,} games, {plies:,} plies agree with the replay")


def test_one_ply_convention_over_the_sample() -> None:
    """Position n is after n plies, wherever it comes from."""
    checked = 0
    for record in list(read_records([DATA]))[:25]:
        result = st.replay(record)
        if record.setup is None or not result.plies_replayed:
            continue
        know = result.knowledge()
        walked = list(st.positions(record))
        assert len(walked) == result.plies_replayed + 1
        for n in sorted({0, 1, 2, result.plies_replayed // 2, result.plies_replayed}):
            pos = st.board_at(record, n)
            assert pos == walked[n] == result.position(n), (record.game_id, n)
            text = parse_strados3(strados3_at(result, n, know=know))
            assert (list(text.board), text.side, text.plies) == (pos.board, pos.side, n)
            assert pos.plies == n == len(pos.move_stack)
            if n:  # board_at's position takes its moves back (it used to raise IndexError)
                assert pos.copy().pop() == walked[n].peek() and pos.pop() is not None
                assert pos == walked[n - 1]
        checked += 1
    assert checked > 20


def test_move_reads_every_notation_the_project_prints() -> None:
    record = st.read_game(GAME)
    first = record.moves[0]
    source, target = str(Move(first.source, first.target)).split("-")
    assert (source, target) == ("I4", "I5")
    for text in ("I4-I5", "i4-i5", "I4×I5", "I4xI5", "I4 x I5"):
        assert Move.parse(text) == Move(first.source, first.target)
    assert str(Move.parse("K9-K10")) == "K9-K10" == str(Move.parse("K9-K:"))
    pos = next(st.positions(record))
    assert pos.push(first) is Battle.NONE and pos.peek() == Move.parse("I4-I5")
    assert Move.from_action(Move.parse("I7-I6").action(1), 1) == Move.parse("I7-I6")


def test_wrong_arguments_say_what_was_expected() -> None:
    pos = next(st.positions(st.read_game(GAME)))
    cases = [
        (lambda: pos.push("B4-B5", rescue=(5, 99)), "a rescued piece is a board code 1..24"),
        (lambda: pos.push(31.0, 41.0), "the source square is an int 0..99, got 31.0"),
        (lambda: pos.push(31, 141), "the target square is an int 0..99, got 141"),
        (lambda: pos.push(31), "a move is a Move, text like 'B4-B5' or two squares"),
        (lambda: st.replay(st.read_game(GAME)).position("3"), "a ply is an int 0..3, got '3'"),
        (lambda: Move.from_action(10_000, 1), "an action id is an int 0..9999"),
    ]
    for call, message in cases:
        with pytest.raises(MoveError, match=message) as info:
            call()
        assert isinstance(info.value, StratToolsError)


def start() -> list[int]:
    """Five pieces on an otherwise empty board: red's flag, a 5 and a 3; blue's flag, a 3."""
    return put({"A1": "rF", "E1": "r5", "K1": "r3", "A10": "b3", "K10": "bF"})


def test_impossible_boards_are_refused_with_what_is_wrong() -> None:
    assert len(Position.from_strados3(to_strados3(start(), 1, 0)).legal_moves) == 5
    cases = {
        "G5 is a lake, but it holds a red scout": (46, 3),
        "C5 is a lake, but it is empty": (42, 0),
        "F1 is no lake": (5, 25),
        "red has 2 flags": (1, 12),
        "red has no flag": (0, 0),
    }
    for message, (square, code) in cases.items():
        board = start()
        board[square] = code
        with pytest.raises(PositionError, match=message):
            Position.from_strados3(to_strados3(board, 1, 0))
    crowded = "C" * 42 + EMPTY_FIELD[42:99] + "Y"
    with pytest.raises(PositionError, match="red has 42 pieces; an army has at most 40"):
        Position.from_strados3(crowded + " r 0", "classic")


def test_a_finished_games_string_reads_back_finished() -> None:
    pos = Position.from_strados3(to_strados3(start(), 1, 0))
    for move in ("E1-E2", "A10-A9", "E2-E3", "A9-A8"):
        pos.push(move)
    captured = pos.copy()
    captured.board[captured.board.index(24)] = 0  # blue's flag gone: red took it
    text = to_strados3(captured.board, 2, 5)
    again = Position.from_strados3(text)
    assert len(again.legal_moves) == 0 and again.is_game_over()
    assert again.outcome() == Outcome(Termination.FLAG_CAPTURED, st.board.Side.RED)


def test_strados3_by_default_is_what_openspiel_loads() -> None:
    """OpenSpiel's yorktown loader takes exactly three parts (field, side, plies)."""
    pos = next(st.positions(st.read_game(GAME)))
    pos.push("A4-A5")
    assert len(pos.strados3().split(" ")) == 3
    assert pos.strados3() == pos.strados3(exact=True).rsplit(" ", 1)[0]
    assert Position.from_strados3(pos.strados3()) != pos  # the rule state is not in it
    assert Position.from_strados3(pos.strados3(exact=True)) == pos


def test_the_exact_round_trip_keeps_a_scout_chains_squares() -> None:
    """classic-2006.7-357 (rebuilt in test_scout_chain.py): read back before any ply and
    played on, the position equals the game at every later ply; the scout at C9 may then
    not move back along row 9 (the 5-move limit and the scout clause)."""
    record = scout_chain_game("C9-C8")
    steps = list(st.positions(record, "gravon-2004"))
    for start, pos in enumerate(steps):
        again = Position.from_strados3(pos.strados3(exact=True), "gravon-2004")
        assert again == pos, start
        for ply in range(start, record.plies):
            assert list(again.legal_moves) == list(steps[ply].legal_moves), (start, ply)
            again.push(record.sources[ply], record.targets[ply])
            assert again == steps[ply + 1], (start, ply)
    before = steps[15]
    scout = [str(m) for m in before.legal_moves if str(m).startswith("C9")]
    assert scout == ["C9-C8", "C9-C7", "C9-B9", "C9-A9", "C9-C10"] or sorted(scout) == sorted(
        ["C9-A9", "C9-B9", "C9-C10", "C9-C7", "C9-C8"]
    )


def test_positions_compare_and_hash_by_position_and_rule_state() -> None:
    text = st.replay(st.read_game(GAME)).position(2).strados3(exact=True)
    one, two = Position.from_strados3(text), Position.from_strados3(text)
    assert one == two and hash(one) == hash(two) and len({one, two}) == 1


@pytest.mark.archive
def test_board_at_takes_the_two_squares_fallback(gravon_dir: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(gravon_dir / "strados2013-10.zip") as zipped:
        data = zipped.read("classic-2013.10-2001.xml")
    path = tmp_path / "classic-2013.10-2001.xml"
    path.write_bytes(data)
    record = st.read_game(path)
    pos = st.board_at(record, None, "gravon-2013")
    assert pos.plies == record.plies == 652 and pos.rules.name == "gravon-2013+limit5"


def test_a_pushed_position_knows_what_the_export_observes() -> None:
    """Every ply of sample games: the knowledge kept as moves are pushed is the replay's,
    and the observation board and planes are the export's."""
    from strat_tools.engine.information.planes import to_planes
    from strat_tools.exports.observations import observe

    checked = 0
    for record in itertools.islice(read_records([DATA]), 12):
        result = st.replay(record)
        if result.status is not Status.VALID or not result.plies_replayed:
            continue
        know = result.knowledge()
        rows = observe(result, record.game_id)
        exported = rows.column("board").to_pylist()
        views = rows.column("board_view").to_pylist()
        board = Position(record.setup or (), result.rules)
        for ply, move in enumerate(record.moves[: result.plies_replayed]):
            mine = board.knowledge()
            assert (mine.flags[-1] == know.flags[ply]).all(), (record.game_id, ply)
            assert (mine.unseen[-1] == know.unseen[ply]).all(), (record.game_id, ply)
            observation = board.observation_with_truth()
            assert observation.tobytes() == bytes(exported[ply]), (record.game_id, ply)
            assert board.observe().tobytes() == bytes(views[ply]), (record.game_id, ply)
            assert (to_planes(board.observe()[None]) == to_planes(observation[None])).all()
            board.push(move)
        checked += 1
    assert checked > 5
