"""The scout clause after a break: the chain is the longest run of the latest moves that
still share two squares, not a restart at the last two.

The position is the one an outside referee found in ``classic-2006.7-357`` (rules
``gravon-2004``, limit 5; that month is not in the project's archive, so the game is rebuilt
here with the same scout moves): blue's scout plays I9-E9, E9-H9, H9-B9, B9-H9, H9-C9, C9-D9,
D9-C9. Each move starts where the last ended and reverses on row 9; the last five (H9-B9 ..
D9-C9) all pass over C9 and D9, a chain of 5, so at the next move every move back along the
row (C9-D9 .. C9-K9) is barred, and the referee's game went on with C9-C8. The engine used to
restart the count at H9-C9 (a chain of 3) once the first two moves stopped sharing squares.
"""

from __future__ import annotations

from strat_tools.core.board import parse_square, square_name
from strat_tools.core.records import Status
from strat_tools.engine.encodings.actions import legal_actions
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.rules.chains import scout_chain
from strat_tools.exports.observations import observe
from tests.hand_games import BEFORE_THE_NEXT_MOVE, scout_chain_game


def test_the_scout_chain_after_a_break_counts_its_five_latest_moves() -> None:
    record = scout_chain_game("C9-C8")
    pos = Position(record.setup or (), "gravon-2004")
    for source, target in zip(record.sources[:15], record.targets[:15], strict=True):
        pos.push(source, target)
    assert str(pos) == BEFORE_THE_NEXT_MOVE
    assert pos.rep_count[2] == 5
    scout = parse_square("C9")
    targets = sorted(square_name(t) for s, t in pos.legal_pairs() if s == scout)
    # Every move back along row 9 (D9 .. K9) would be the sixth: barred. The rest stay.
    assert targets == ["A9", "B9", "C10", "C7", "C8"]
    assert sorted(k % 100 for k in (9999 - a for a in legal_actions(pos)) if k // 100 == scout) == [
        parse_square(s) for s in ("C7", "C8", "A9", "B9", "C10")
    ]


def test_the_game_stays_valid_and_the_sixth_move_is_refused_fast_and_slow() -> None:
    assert replay(scout_chain_game("C9-C8"), "gravon-2004").status is Status.VALID
    for target in ("D9", "E9", "K9"):
        result = replay(scout_chain_game(f"C9-{target}"), "gravon-2004")
        assert [(d.code, d.ply) for d in result.diagnostics] == [("rule.two_squares", 16)]
        # The hot loop stops at the same ply the slow path refuses.
        record = scout_chain_game(f"C9-{target}")
        pos = Position(record.setup or (), "gravon-2004")
        n = record.plies
        columns = ([0] * n, [0] * n, [0] * n, [1] * n, [0] * n, [1] * n)
        assert pos.play_span(record.sources, record.targets, 0, n, columns) == 15
        assert pos.rep_count[2] == 5


def test_the_observation_counters_say_five() -> None:
    rows = observe(replay(scout_chain_game("C9-C8"), "gravon-2004"), "g").to_pylist()
    counters = [(r["ply"], r["own_repetition"], r["opponent_repetition"]) for r in rows]
    # Before blue's ply 16 blue's chain is 5; before red's ply 17 it is blue's C9-C8: 1.
    assert counters[13:17] == [(14, 4, 1), (15, 1, 5), (16, 5, 1), (17, 1, 1)]


def test_scout_chain_recounts_only_the_latest_moves_that_share_two_squares() -> None:
    path = [parse_square(s) for s in ("I9", "E9", "H9", "B9", "H9", "C9", "D9")]
    count, lo, hi = scout_chain(path, parse_square("C9"), 1)
    assert (count, square_name(lo), square_name(hi)) == (5, "C9", "D9")
    # Two moves always share two squares: the last move and this one.
    assert scout_chain(path[-2:], parse_square("C9"), 1)[0] == 2
    # Along a column the step is 10.
    column = [parse_square(s) for s in ("A1", "A4", "A2")]
    assert scout_chain(column, parse_square("A3"), 10)[0] == 3
