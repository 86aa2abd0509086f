"""The vectorised move generator (engine/moves/) against the pure-Python reference
(:meth:`Position.reference_pairs`), on hand-made boards and on real games."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from strat_tools.core.board import Side, parse_square, square_name
from strat_tools.core.diagrams import parse_board
from strat_tools.core.records import Status
from strat_tools.core.rules import get_rules
from strat_tools.engine.encodings.actions import action_id, action_squares
from strat_tools.engine.moves import game_sides, games_legal_ids, legal_ids, position_ids
from strat_tools.engine.moves.bans import repetition_bans
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import Replay, replay
from strat_tools.engine.replays.steps import walk
from strat_tools.formats.readers import read_records

DATA = Path(__file__).resolve().parent.parent / "data"

# Blue to move: a blue scout on F7 with an open file down to red's lines, a blue captain
# on B9 that may turn corners under ultimate lightning, red pieces to hit.
BLUE_LANES = """
      A   B   C   D   E   F   G   H   I   K
10  bF  bB   .   .   .   .   .   .   .   .
 9   .  b6   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .  b2   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .  r5   .   .   .   .
 1  rF   .   .   .   .   .   .   .   .   .
"""


def reference_ids(pos: Position) -> list[int]:
    return sorted(action_id(s, t, pos.side) for s, t in pos.reference_pairs())


def names(pos: Position) -> set[str]:
    return {
        f"{square_name(s)}-{square_name(t)}"
        for s, t in (action_squares(a, pos.side) for a in position_ids(pos).tolist())
    }


def test_a_blue_scout_and_captain_in_blues_own_view() -> None:
    pos = Position(parse_board(BLUE_LANES), "gravon-2013", Side.BLUE)
    moves = names(pos)
    assert {m for m in moves if m.startswith("F7")} == {
        "F7-F8",
        "F7-F9",
        "F7-F10",
        "F7-F6",
        "F7-F5",
        "F7-F4",
        "F7-F3",
        "F7-F2",
        "F7-E7",
        "F7-D7",
        "F7-C7",
        "F7-B7",
        "F7-A7",
        "F7-G7",
        "F7-H7",
        "F7-I7",
        "F7-K7",
    }
    assert {m for m in moves if m.startswith("B9")} == {"B9-A9", "B9-C9", "B9-B8"}
    assert position_ids(pos).tolist() == reference_ids(pos)


def test_a_lightning_captain_turns_corners_and_moves_two() -> None:
    pos = Position(parse_board(BLUE_LANES), "ultimate-lightning-2004", Side.BLUE)
    captain = {m for m in names(pos) if m.startswith("B9")}
    assert captain == {"B9-A9", "B9-C9", "B9-D9", "B9-B8", "B9-B7", "B9-A8", "B9-C8", "B9-C10"}
    assert position_ids(pos).tolist() == reference_ids(pos)


def test_the_two_squares_limit_bans_only_the_move_back() -> None:
    pos = Position(parse_board(BLUE_LANES), "gravon-2013", Side.BLUE)  # limit 3
    for move in ["B9-B8", "F2-F1", "B8-B9", "F1-F2", "B9-B8", "F2-F1"]:
        pos.push(move)
    assert repetition_bans(pos) == [parse_square("B8") * 100 + parse_square("B9")]
    assert "B8-B9" not in names(pos) and {"B8-B7", "B8-A8"} <= names(pos)
    assert position_ids(pos).tolist() == reference_ids(pos)


def test_a_scout_under_the_clause_is_banned_its_whole_span() -> None:
    pos = Position(parse_board(BLUE_LANES), "gravon-2013", Side.BLUE)
    for move in ["F7-F9", "F2-F1", "F9-F8", "F1-F2", "F8-F10", "F2-F1"]:
        pos.push(move)
    assert pos.rep_count[Side.BLUE] == 3
    banned = {f"{square_name(k // 100)}-{square_name(k % 100)}" for k in repetition_bans(pos)}
    # The chain shares F8-F9: every move back down over it would be the fourth; one square
    # back (F10-F9) leaves that span and starts a chain of two.
    assert banned == {f"F10-F{row}" for row in range(1, 9)}
    assert not banned & names(pos) and "F10-F9" in names(pos)
    assert position_ids(pos).tolist() == reference_ids(pos)


def test_no_moves_under_a_limit_below_one_or_after_the_flag() -> None:
    board = parse_board(BLUE_LANES)
    assert legal_ids([board], [2], get_rules("classic").with_options())[1].size
    silly = get_rules("classic")
    from dataclasses import replace

    offsets, ids = legal_ids([board, board], [1, 2], replace(silly, two_squares_limit=0))
    assert offsets.tolist() == [0, 0, 0] and ids.size == 0
    with pytest.raises(ValueError, match="1 \\(red\\) or 2 \\(blue\\)"):
        legal_ids([board], [3], silly)


def test_one_call_over_a_game_equals_one_call_per_position() -> None:
    records = [r for r in read_records([DATA]) if r.setup is not None][:40]
    games = 0
    for record in records:
        result = replay(record)
        if result.status is not Status.VALID or not result.plies_replayed:
            continue
        games += 1
        n = result.plies_replayed
        boards = result.knowledge().boards[:n]
        sides = np.where(np.arange(n) % 2 == 0, 1, 2)
        bans: list[tuple[int, int]] = []
        each: list[list[int]] = []
        for index, pos in enumerate(walk(result, n - 1)):
            bans += [(index, key) for key in repetition_bans(pos)]
            each.append(position_ids(pos).tolist())
            if index % 3 == 0:
                assert each[-1] == reference_ids(pos), (record.game_id, index + 1)
        offsets, ids = legal_ids(boards, sides, result.rules, bans)
        assert [ids[a:b].tolist() for a, b in itertools.pairwise(offsets)] == each
    assert games > 20


def test_one_call_over_many_games_equals_a_call_per_game() -> None:
    """games_legal_ids (the observation export's one call a batch) over games of odd and
    even lengths, whose sides do not alternate across the joins, with their bans: each
    game's lists are those of its own call."""
    games = []
    for record in read_records([DATA]):
        result = replay(record)
        if result.status is not Status.VALID or record.setup is None or not result.plies_replayed:
            continue
        n = result.plies_replayed
        boards = result.knowledge().boards[:n]
        bans = [
            (i, key) for i, pos in enumerate(walk(result, n - 1)) for key in repetition_bans(pos)
        ]
        games.append((boards, bans))
        if len(games) == 30:
            break
    assert {len(b) % 2 for b, _ in games} == {0, 1} and any(bans for _, bans in games)
    together = games_legal_ids(games, get_rules("classic"))
    for (boards, bans), (offsets, ids) in zip(games, together, strict=True):
        alone = legal_ids(boards, game_sides(len(boards)), get_rules("classic"), bans)
        assert offsets.tolist() == alone[0].tolist() and ids.tolist() == alone[1].tolist()
        assert offsets.dtype == np.int32 and ids.dtype == np.int16
    assert games_legal_ids([], get_rules("classic")) == []
    nothing = np.zeros((0, 100), np.uint8)
    ((offsets, ids),) = games_legal_ids([(nothing, [])], get_rules("classic"))
    assert offsets.tolist() == [0] and ids.size == 0


def test_rows_taken_in_chunks_give_the_same_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many rows are taken CHUNK_ROWS at a time: with chunks of 7 rows (bans falling in
    several chunks, and a last short chunk) the lists are those of one piece."""
    import strat_tools.engine.moves as moves

    boards, sides, bans = [], [], []
    for record in read_records([DATA]):
        result = replay(record)
        if result.status is not Status.VALID or record.setup is None or not result.plies_replayed:
            continue
        n = result.plies_replayed
        start = len(boards)
        bans += [
            (start + i, k)
            for i, pos in enumerate(walk(result, n - 1))
            for k in repetition_bans(pos)
        ]
        boards += list(result.knowledge().boards[:n])
        sides += game_sides(n).tolist()
        if len(bans) > 5 and len(boards) % 7:
            break
    whole = legal_ids(boards, sides, get_rules("classic"), bans)
    monkeypatch.setattr(moves, "CHUNK_ROWS", 7)
    chunked = legal_ids(boards, sides, get_rules("classic"), bans)
    assert len({row // 7 for row, _ in bans}) > 1
    assert chunked[0].tolist() == whole[0].tolist() and chunked[1].tolist() == whole[1].tolist()
    assert chunked[0].dtype == np.int32 and chunked[1].dtype == np.int16


SCOUT_RAYS = """
      A   B   C   D   E   F   G   H   I   K
10  bF   .   .   .   .   .   .   .   .   .
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .  b4   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~  r2   .  ~~  ~~   .   .
 4   .   .   .   .  r3   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  rF   .   .   .   .   .   .   .   .   .
"""
"""A red scout on E5 beside a lake: up to the blue sergeant it may strike, down not at all
(its own miner), left not at all (a lake), right one square (F5, then a lake)."""


def test_a_scout_stops_at_lakes_and_own_pieces_and_strikes_the_first_enemy() -> None:
    pos = Position(parse_board(SCOUT_RAYS), "gravon-2013")
    assert {m for m in names(pos) if m.startswith("E5")} == {"E5-E6", "E5-E7", "E5-E8", "E5-F5"}
    assert position_ids(pos).tolist() == reference_ids(pos)


@pytest.mark.archive
@pytest.mark.parametrize("month", ["strados2005-3.zip", "strados2014-5.zip"])
def test_the_generator_agrees_with_the_reference_on_real_months(
    gravon_dir: Path, month: str
) -> None:
    """Every 4th ply of (up to) the first 40 valid games of a month under each period's limit (5,
    then 3): the fast ids equal the pure-Python reference's."""
    games = plies = 0
    for record in read_records([gravon_dir / month]):
        result = replay(record)
        if result.status is not Status.VALID or record.setup is None:
            continue
        games += 1
        for index, pos in enumerate(walk(result, result.plies_replayed - 1)):
            if index % 4 == 0:
                assert position_ids(pos).tolist() == reference_ids(pos), (record.game_id, index)
                plies += 1
        if games == 40:
            break
    assert games >= 10 and plies > 300


FULL_MONTHS = ("strados2004-11.zip", "strados2005-5.zip", "strados2014-4.zip")
"""Months whose valid games hold every variant (classic, barrage, duell, classicfree,
ultimate lightning) under both rule periods (2004-05: limit 5 and the scout clause;
2013-14: limit 3, some games under limit 5)."""


@pytest.mark.slow
@pytest.mark.archive
def test_every_ply_of_months_of_every_variant_agrees_with_the_reference(gravon_dir: Path) -> None:
    """Every ply of every valid game of :data:`FULL_MONTHS`, batched as the observation
    export batches them (one games_legal_ids call per 100 games of a rule set, with the
    two-squares bans), equals the pure-Python reference, and one call per game."""
    from strat_tools.engine.moves.games import two_squares_bans

    variants: set[str] = set()
    rule_sets: set[str] = set()
    plies = 0
    for month in FULL_MONTHS:
        by_rules: dict[str, list[tuple[Replay, np.ndarray, list[tuple[int, int]]]]] = {}
        for record in read_records([gravon_dir / month]):
            result = replay(record)
            n = result.plies_replayed
            if result.status is not Status.VALID or record.setup is None or not n:
                continue
            boards = result.knowledge().boards[:n]
            by_rules.setdefault(result.rules.name, []).append(
                (result, boards, two_squares_bans(result, n, boards))
            )
            variants.add(record.variant)
        for name, games in by_rules.items():
            rule_sets.add(name)
            for start in range(0, len(games), 100):
                part = games[start : start + 100]
                batch = games_legal_ids([(b, bans) for _, b, bans in part], get_rules(name))
                for (result, boards, bans), (offsets, ids) in zip(part, batch, strict=True):
                    alone = legal_ids(boards, game_sides(len(boards)), get_rules(name), bans)
                    assert offsets.tolist() == alone[0].tolist()
                    assert ids.tolist() == alone[1].tolist()
                    for index, pos in enumerate(walk(result, result.plies_replayed - 1)):
                        want = reference_ids(pos)
                        got = ids[offsets[index] : offsets[index + 1]].tolist()
                        assert got == want, (month, result.record.game_id, index)
                        plies += 1
    assert variants == {"classic", "barrage", "duell", "classicfree", "ultimate lightning"}
    assert {"gravon-2004", "gravon-2013", "ultimate-lightning"} <= rule_sets
    assert plies > 200_000


def test_bans_come_off_one_square_pieces_and_far_pieces_alike() -> None:
    """Bans given directly, in a batch of both sides' rows: two on one lieutenant (two of
    its steps), one in the middle of a scout's ray, one of a move that is not there and one
    whose source holds no mover; each row loses exactly its banned moves."""
    board = parse_board(BLUE_LANES)
    rules = get_rules("gravon-2013")
    boards, sides = [board] * 40, [1, 2] * 20
    whole = legal_ids(boards, sides, rules)
    sq = parse_square
    bans = [
        (0, sq("F2") * 100 + sq("F3")),  # red lieutenant up
        (0, sq("F2") * 100 + sq("E2")),  # and left, the same row
        (1, sq("F7") * 100 + sq("F4")),  # blue scout, mid-ray
        (1, sq("B9") * 100 + sq("B7")),  # not a move (one square only)
        (2, sq("A5") * 100 + sq("A4")),  # no piece on A5
        (39, sq("F7") * 100 + sq("F8")),  # blue scout, its first square up
    ]
    banned = legal_ids(boards, sides, rules, bans)
    for row in range(40):
        want = set(whole[1][whole[0][row] : whole[0][row + 1]].tolist())
        want -= {action_id(k // 100, k % 100, Side(sides[row])) for r, k in bans if r == row}
        got = banned[1][banned[0][row] : banned[0][row + 1]].tolist()
        assert got == sorted(want), row
    assert np.diff(whole[0])[0] - np.diff(banned[0])[0] == 2
    assert np.diff(whole[0])[1] - np.diff(banned[0])[1] == 1


def test_a_window_of_a_game_has_the_bans_and_moves_of_its_plies() -> None:
    """``game_legal_ids`` of the boards from ply ``start`` on (a long game's window, the
    observation export's) gives the rows of the whole game's call from there, two-squares
    bans included, whichever side moves first in it."""
    from strat_tools.engine.moves.games import game_legal_ids, two_squares_bans

    banned = 0
    for record in [r for r in read_records([DATA]) if r.setup is not None][:60]:
        result = replay(record)
        n = result.plies_replayed
        if result.status is not Status.VALID or n < 10:
            continue
        boards = result.knowledge().boards[:n]
        whole = two_squares_bans(result, n, boards)
        offsets, ids = game_legal_ids(result, boards)
        for start in (1, n // 3, n // 2 + 1, n - 1):
            stop = min(start + 40, n)
            bans = two_squares_bans(result, stop, boards[start:stop], start)
            assert bans == [(i - start, k) for i, k in whole if start <= i < stop]
            banned += len(bans)
            window, window_ids = game_legal_ids(result, boards[start:stop], start)
            first = offsets[start]
            assert (window + first).tolist() == offsets[start : stop + 1].tolist()
            assert window_ids.tolist() == ids[first : offsets[stop]].tolist()
    assert banned > 0


def test_the_windows_of_a_game_share_one_walk_for_the_scout_clause_bans() -> None:
    """Windows in order, asking one :class:`ReplayWalk`, give the whole game's bans at the
    plies of a scout under the clause (the sample's games that have them), the game played
    once; a walk asked for a ply it has passed refuses."""
    from strat_tools.engine.moves.bans import chain_bans
    from strat_tools.engine.moves.games import ReplayWalk, two_squares_bans

    asked = 0
    for record in read_records([DATA]):
        result = replay(record)
        n = result.plies_replayed
        if record.setup is None or n < 3:
            continue
        boards = result.knowledge().boards[:n]
        if not chain_bans(result, n, boards)[1]:
            continue  # no ply of a scout under the clause
        whole, walk, windowed = two_squares_bans(result, n, boards), ReplayWalk(result), []
        for start in range(0, n, 16):
            stop = min(start + 16, n)
            bans = two_squares_bans(result, stop, boards[start:stop], start, walk)
            windowed += [(i + start, key) for i, key in bans]
        assert windowed == whole
        assert 0 < walk.index < n  # played to the last scout ply asked, once
        with pytest.raises(ValueError, match="this walk has passed ply 0"):
            walk.bans_before([0])
        asked += 1
    assert asked >= 10
