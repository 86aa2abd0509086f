"""The stepping API: st.positions, Position.legal_moves/push/pop/copy, StraDos3 round trips."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

import strat_tools as st
from strat_tools.core.move import MoveError
from strat_tools.core.records import RecordError, Status
from strat_tools.engine.encodings.actions import action_id
from strat_tools.engine.position.position import Position
from strat_tools.exports.observations import observe
from strat_tools.formats.readers import read_records

DATA = Path(__file__).resolve().parent.parent / "data"
GAME = Path(__file__).resolve().parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"


def long_game() -> st.GameRecord:
    return next(r for r in read_records([DATA]) if r.plies > 150 and st.replay(r).plies_replayed)


def test_positions_start_at_the_setup_and_follow_the_record() -> None:
    record = st.read_game(GAME)
    steps = list(st.positions(record))
    assert [p.plies for p in steps] == [0, 1, 2, 3]
    assert steps[0].board == list(record.setup or ())
    for pos, source, target in zip(steps, record.sources, record.targets, strict=False):
        assert f"{st.board.square_name(source)}-{st.board.square_name(target)}" in (pos.legal_moves)
    assert str(steps[1]) == str(st.board_at(record, 1))
    assert st.replay(record).position(1).strados3() == steps[1].strados3()


def test_push_names_the_rule_a_move_breaks() -> None:
    pos = next(st.positions(st.read_game(GAME)))
    with pytest.raises(st.IllegalMove, match="A2 holds an own piece") as info:
        pos.push("A1-A2")
    assert info.value.code == "rule.own_piece"
    with pytest.raises(st.IllegalMove, match="the move crosses a lake"):
        pos.push("C4-C7")
    with pytest.raises(MoveError, match="not a move: 'B4B5'"):
        pos.push("B4B5")
    with pytest.raises(ValueError, match=r"not a move: .J4-J5."):
        pos.push("J4-J5")
    with pytest.raises(IndexError, match="nothing was pushed"):
        Position(pos.board).pop()


def test_a_record_without_a_setup_cannot_be_stepped() -> None:
    record = st.GameRecord("none.xml", variant="classic")
    with pytest.raises(RecordError, match="no setup"):
        list(st.positions(record))
    with pytest.raises(ValueError, match=r"ply must be 0\.\.3"):
        st.replay(st.read_game(GAME)).position(9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ply=hst.integers(0, 150), picks=hst.lists(hst.integers(0, 999), min_size=1, max_size=12))
def test_pop_undoes_push_exactly(ply: int, picks: list[int]) -> None:
    """From any position of a real game, a run of random legal moves pushed and popped
    gives back the same position (string, rule state, legal moves), move for move."""
    start = next(itertools.islice(st.positions(long_game()), ply, None))
    pos = start.copy()
    seen = []
    for pick in picks:
        moves = list(pos.legal_moves)
        if not moves:
            break
        seen.append((pos.strados3(), moves, list(pos.captured[1]), list(pos.captured[2])))
        pos.push(moves[pick % len(moves)])
    for text, moves, red, blue in reversed(seen):
        pos.pop()
        assert (pos.strados3(), list(pos.legal_moves)) == (text, moves)
        assert (pos.captured[1], pos.captured[2]) == (red, blue)
    assert pos.strados3() == start.strados3()
    assert (
        start.strados3() == next(itertools.islice(st.positions(long_game()), ply, None)).strados3()
    )


def test_copies_share_history_but_not_state() -> None:
    steps = list(st.positions(long_game()))
    later = steps[40].copy()
    for _ in range(40):
        later.pop()
    assert later.strados3() == steps[0].strados3()
    assert steps[40].plies == 40  # the copy it came from is untouched


def test_strados3_keeps_the_two_squares_state() -> None:
    pos = Position(st.read_game(GAME).setup or [], "gravon-2013")
    text = pos.strados3(exact=True)
    assert text.endswith(" r 0 -")
    assert pos.strados3() == text.removesuffix(" -")
    pos.push("A4-A5")
    pos.push("K7-K6")
    pos.push("A5-A4")
    assert pos.strados3(exact=True).endswith(" b 3 r:A5-A4x2/A4.A5.A4,b:K7-K6x1")
    again = Position.from_strados3(pos.strados3(exact=True))
    assert again.strados3(exact=True) == pos.strados3(exact=True)
    assert list(again.legal_moves) == list(pos.legal_moves) and again == pos
    with pytest.raises(ValueError, match="needs every piece"):
        Position.from_strados3("?" + text[1:])
    with pytest.raises(ValueError, match="3 or 4 parts"):
        Position.from_strados3(text + " x y")
    with pytest.raises(ValueError, match="reads like r:B4-B5x2"):
        Position.from_strados3(text.removesuffix("-") + "r:A4-A5")


@pytest.mark.slow
@pytest.mark.archive
def test_positions_list_exactly_the_exports_legal_moves(gravon_dir: Path) -> None:
    """150 games of a real month: at every ply, st.positions + legal_moves (the engine's
    scalar search of one position) are the export's legal ids (the batch generator over the
    whole game): two implementations agree; and the position read back from its StraDos3
    string lists the same moves (a few seconds on a busy shared machine)."""
    games = plies = 0
    for record in read_records([gravon_dir / "strados2014-5.zip"]):
        result = st.replay(record)
        if result.status is not Status.VALID or not result.plies_replayed:
            continue
        table = observe(result, record.game_id)
        exported = table.column("legal_actions").to_pylist()
        for index, pos in enumerate(st.positions(record)):
            if index == len(exported):
                break
            moves = list(pos.legal_moves)
            ids = sorted(action_id(m.source, m.target, pos.side) for m in moves)
            assert ids == exported[index], (record.game_id, index + 1)
            again = Position.from_strados3(pos.strados3(exact=True), pos.rules)
            assert list(again.legal_moves) == moves, (record.game_id, index + 1)
            plies += 1
        games += 1
        if games == 150:
            break
    assert games == 150 and plies > 15_000
