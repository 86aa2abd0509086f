"""Record values: moves, results, terminations, diagnostics."""

from __future__ import annotations

import pytest

from strat_tools.core.board import Side
from strat_tools.core.records import (
    Diagnostic,
    GameRecord,
    RecordedMove,
    Result,
    Severity,
    Termination,
)


def test_move_from_str_round_trips_and_reads_gravon_row_ten() -> None:
    move = RecordedMove.from_str("D4-D5", ply=3)
    assert move.to_str() == "D4-D5" == str(move) and move.ply == 3
    assert RecordedMove.from_str("K9-K:").to_str() == "K9-K10"
    with pytest.raises(ValueError):
        RecordedMove.from_str("D4D5")


def test_termination_from_every_known_result_type() -> None:
    for t in (0, 1, 2, 3, 4, 10, 11, 12, 13, 14):
        assert Termination.from_type(t).value == t
    assert Termination.from_type(7) is Termination.UNKNOWN
    assert Termination.from_type(None) is Termination.UNKNOWN
    assert Termination.FLAG_CAPTURED.label == "flag_captured"


def test_result_winner_side_and_draw() -> None:
    assert Result(1, 2).winner_side is Side.BLUE
    assert Result(2, 3).is_draw and Result(2, 3).winner_side is None


def test_game_id_and_moves_from_the_flat_lists() -> None:
    record = GameRecord(
        source="x/strados2014-5.zip",
        member="classic-2014.5-2245.xml",
        sources=[31, 61],
        targets=[41, 51],
        lines=[6, 7],
    )
    assert record.game_id == "classic-2014.5-2245"
    assert [m.to_str() for m in record.moves] == ["B4-B5", "B7-B6"]
    assert record.moves[1].line == 7 and record.plies == 2


def test_diagnostics_are_collected_with_their_location() -> None:
    record = GameRecord(source="a.zip", member="m.xml")
    diag = record.add("move.square", Severity.ERROR, "bad square 'Z9'", line=12, ply=4)
    assert record.errors == [diag]
    assert str(diag) == "a.zip!m.xml:12: ply 4 error [move.square] bad square 'Z9'"
    assert isinstance(diag, Diagnostic) and diag.location == "a.zip!m.xml:12"
