"""What a python-chess user writes, on a Stratego game: one Move (a record's move carries
it), the rule state as one value saved and restored whole, the python-chess habits
(docs/position.md), equal positions with equal outcomes, a board of another variant refused
without its rules, and one side convention for action ids (0 red, 1 blue, or a Side)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import strat_tools as st
from strat_tools.core.board import Side, parse_square
from strat_tools.core.move import Move, MoveError
from strat_tools.core.pieces import ARMIES, PieceKind, piece_code
from strat_tools.core.records import RecordedMove, Status, Termination
from strat_tools.engine.rules.board_check import PositionError
from strat_tools.engine.rules.outcome import Outcome
from strat_tools.engine.rules.rule_state import Chain, RuleState
from strat_tools.exports.observations import observe
from strat_tools.formats.readers import read_records

DATA = Path(__file__).resolve().parent.parent / "data"
GAME = Path(__file__).resolve().parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"


def sample(count: int) -> list[st.GameRecord]:
    return list(itertools.islice(read_records([DATA]), count))


def test_a_records_move_is_a_move() -> None:
    """``str(record.moves[0])`` is ``I4-I5``, ``Move.of(m) == m``, ``m in legal_moves``, and
    a record's move and a Move hash alike (a set or dict key finds either)."""
    record = st.read_game(GAME)
    m = record.moves[0]
    assert isinstance(m, RecordedMove) and isinstance(m.move, Move)
    assert str(m) == "I4-I5" == m.uci() and (m.ply, m.line) == (1, m.line)
    assert st.Move.of(m) == m and m == st.Move.from_uci("I4-I5") and m != Move.parse("I4-I6")
    assert hash(m) == hash(Move.parse("I4-I5")) and Move.parse("I4-I5") in {m}
    pos = st.Position(record.setup, st.replay(record).rules)
    for m in record.moves:
        assert m in pos.legal_moves
        pos.push(m)
    assert pos.move_stack == list(record.moves)


def test_the_rule_state_is_one_value_that_push_and_pop_keep_whole() -> None:
    """Push keeps the state before it (the very value) and pop puts it back; a copy shares
    it; nothing writes a field of it or of the position's view of it."""
    record = next(r for r in sample(20) if r.plies > 40)
    pos = st.Position(record.setup, st.replay(record).rules)
    states = [pos.state]
    for m in record.moves[:30]:
        pos.push(m)
        states.append(pos.state)
    assert isinstance(pos.state, RuleState) and pos.state.plies == 30
    assert pos.copy().state is pos.state
    for state in reversed(states[:-1]):
        pos.pop()
        assert pos.state is state
    with pytest.raises(AttributeError):
        pos.state.plies = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        pos.side = Side.BLUE  # type: ignore[misc]
    with pytest.raises(AttributeError):
        pos.state.chain(Side.RED).length = 3  # type: ignore[misc]


def test_python_chess_habits() -> None:
    """Each habit of docs/position.md's table answers as its chess name does."""
    record = st.read_game(GAME)
    pos = st.Position(record.setup)
    assert pos.legal_moves.count() == len(pos.legal_moves) == 6
    assert pos.turn is Side.RED and str(pos.side) == "red" and pos.ply() == 0
    assert pos.push_uci("I4-I5") == Move.from_uci("i4-i5") and str(pos.turn) == "blue"
    assert pos.ply() == pos.plies == 1 and pos.result() == "*"
    square = parse_square("I5")
    assert pos.piece_at(square) == pos.board[square] and pos.piece_at(parse_square("E5")) is None
    assert pos.piece_at(parse_square("C5")) is None  # a lake holds no piece
    assert not pos.is_capture("A7-A6")
    pos.push("A7-A6")
    assert list(map(str, pos.copy(stack=1).move_stack)) == ["A7-A6"]
    assert pos.copy(stack=1).pop() == Move.parse("A7-A6") and pos.pop() == Move.parse("A7-A6")
    bare = pos.copy(stack=False)
    assert (
        bare == pos and bare.move_stack == [] and list(map(str, pos.copy().move_stack)) == ["I4-I5"]
    )
    with pytest.raises(IndexError):
        bare.pop()
    again = st.Position(pos.strados3(exact=True))
    assert again == pos and st.Position.from_strados3(pos.strados3(exact=True)) == pos
    assert str(Termination.RESIGNED) == "resigned" and f"{Termination.RESIGNED:d}" == "3"
    assert str(Outcome(Termination.FLAG_CAPTURED, Side.BLUE)) == "flag_captured, blue wins"


def test_a_capture_and_a_result_on_the_board() -> None:
    board = st.Position(_two_flags_text())
    assert board.is_capture("A2-A3") and board.push("A2-A3") is st.Battle.FLAG_CAPTURED
    assert board.result() == "1-0" and board.outcome() == Outcome(
        Termination.FLAG_CAPTURED, Side.RED
    )


def _two_flags_text() -> str:
    """Red's marshal on A2 below blue's flag on A3; red's flag on K1."""
    from strat_tools.engine.encodings.strados3 import to_strados3
    from tests.hand_games import put

    return to_strados3(put({"A2": "r10", "A3": "bF", "K1": "rF", "K10": "b3"}), 1, 0)


def test_equal_positions_have_equal_outcomes() -> None:
    """A resigned game pushed to its end equals ``board_at`` and has its outcome (none on
    the board); the resignation is the replay's ending (it used to be board_at's only)."""
    resigned = 0
    for record in sample(80):
        result = st.replay(record)
        if result.status is not Status.VALID or record.result is None:
            continue
        pos = st.Position(record.setup, result.rules)
        for m in record.moves:
            pos.push(m)
        last = st.board_at(record)
        assert pos == last and hash(pos) == hash(last) and pos.outcome() == last.outcome()
        outcome = result.outcome()
        assert outcome is not None and outcome.result == record.result
        if record.result.termination is Termination.RESIGNED:
            assert last.outcome() is None and outcome.termination is Termination.RESIGNED
            resigned += 1
    assert resigned > 5


def army_board(variant: str) -> list[int]:
    """Both sides' whole ``variant`` army on their two back rows (red rows 1-2, blue 9-10),
    captains in front."""
    board = st.Position(st.read_game(GAME).setup).board[:]
    board[:40] = [0] * 40
    board[60:] = [0] * 40
    kinds = sorted(
        (k for k, n in enumerate(ARMIES[variant]) for _ in range(n)),
        key=lambda k: k != PieceKind.CAPTAIN,
    )
    for square, kind in zip([*range(10, 20), *range(10)], kinds, strict=False):
        board[square] = piece_code(Side.RED, PieceKind(kind))
    for square, kind in zip(range(80, 100), kinds, strict=False):
        board[square] = piece_code(Side.BLUE, PieceKind(kind))
    return board


def test_a_board_of_another_variant_needs_its_rules() -> None:
    """Without rules, a lightning army is refused, naming the variant (a captain's two
    squares used to fail as classic's one, without a word of why); with them it plays."""
    board = army_board("ultimate lightning")
    captain = board.index(piece_code(Side.RED, PieceKind.CAPTAIN))
    with pytest.raises(PositionError, match="ultimate lightning army: give its rules"):
        st.Position(board)
    pos = st.Position(board, "ultimate-lightning")
    two = Move(captain, captain + 20)
    assert two in pos.legal_moves and pos.push(two) is st.Battle.NONE
    with pytest.raises(PositionError, match="barrage army"):
        st.Position(army_board("barrage"))
    assert st.Position(army_board("barrage"), "classic").legal_moves.count() > 0
    st.Position(army_board("classic"))  # the default's own army


def test_a_blue_action_from_a_real_game_decodes_as_blue() -> None:
    """The observation export's ``side`` is 0 red, 1 blue: its blue rows' actions decode to
    the moves blue made (``Move.from_action(id, 1)`` read 1 as red before)."""
    record = next(r for r in sample(10) if r.plies > 10)
    table = observe(st.replay(record), record.game_id)
    sides = table.column("side").combine_chunks().indices.to_numpy()
    actions = table.column("action").to_numpy()
    plies = table.column("ply").to_numpy()
    blue = np.flatnonzero(sides == 1)
    assert len(blue) > 3
    for row in blue:
        m = record.moves[int(plies[row]) - 1]
        assert Move.from_action(int(actions[row]), int(sides[row])) == m
        assert Move.from_action(int(actions[row]), sides[row]) == m  # a NumPy integer too
        assert Move.from_action(int(actions[row]), Side.BLUE) == m
        assert Move.of(m).action(1) == Move.of(m).action(Side.BLUE) == actions[row]
    red = int(np.flatnonzero(sides == 0)[0])
    assert Move.from_action(int(actions[red]), 0) == record.moves[int(plies[red]) - 1]


@pytest.mark.parametrize("side", [2, -1, True, 1.0, "1", None, Side])
def test_an_action_side_outside_the_convention_is_refused(side: object) -> None:
    with pytest.raises(MoveError, match=r"0 \(red\) or 1 \(blue\)"):
        Move.from_action(3141, side)  # type: ignore[arg-type]
    with pytest.raises(MoveError, match=r"0 \(red\) or 1 \(blue\)"):
        Move(31, 41).action(side)  # type: ignore[arg-type]


def test_chains_print_and_read_back_in_the_exact_string() -> None:
    pos = st.Position(st.read_game(GAME).setup)
    for text in ("I4-I5", "A7-A6", "I5-I4", "A6-A7", "I4-I5"):
        pos.push(text)
    assert pos.state.chain(Side.RED) == Chain(3848, 3, 38, 48, (38, 48, 38, 48))
    assert st.Position(pos.strados3(exact=True)) == pos
