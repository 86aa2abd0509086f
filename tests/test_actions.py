"""Action ids (ours and OpenSpiel yorktown's) and the legal-move generator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from strat_tools.core.board import Side, parse_square, view_square
from strat_tools.core.diagrams import parse_board
from strat_tools.core.records import Status
from strat_tools.engine.encodings.actions import (
    ACTION_COUNT,
    HEAD_COUNT,
    HEAD_DIRECTIONS,
    YORKTOWN_ACTION_COUNT,
    action_heads,
    action_id,
    action_squares,
    from_yorktown,
    head_actions,
    legal_actions,
    to_yorktown,
    yorktown_action,
    yorktown_move,
)
from strat_tools.engine.information.mover_view import view_keys
from strat_tools.engine.moves import legal_ids
from strat_tools.engine.moves.games import two_squares_bans
from strat_tools.engine.position.position import Position, play_known
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import read_units
from strat_tools.io.sources import iter_units

DATA = Path(__file__).resolve().parent.parent / "data"

# Red scout on E4 next to its own bomb on F4, a red sergeant on A1, blue pieces to hit.
SCOUT_LANE = """
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .  b4   .   .   .   .  bF
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .  r2  rB   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  r4   .   .   .   .   .   .   .   .  rF
"""


def names(actions: list[int], side: Side) -> set[str]:
    """Actions as 'E4-E10' text, for readable assertions."""
    from strat_tools.core.board import square_name

    out = set()
    for action in actions:
        source, target = action_squares(action, side)
        out.add(f"{square_name(source)}-{square_name(target)}")
    return out


def test_our_ids_round_trip_for_every_id_and_side() -> None:
    for side in (Side.RED, Side.BLUE):
        for action in range(ACTION_COUNT):
            assert action_id(*action_squares(action, side), side) == action


def test_blue_ids_are_the_board_turned() -> None:
    # Blue's I7-I6 is its B4-B5 seen from its own seat: the same id as red's B4-B5.
    assert action_id(parse_square("I7"), parse_square("I6"), Side.BLUE) == action_id(
        parse_square("B4"), parse_square("B5"), Side.RED
    )
    assert [view_square(s, Side.BLUE) for s in (0, 9, 90, 99)] == [99, 90, 9, 0]


def test_yorktown_ids_by_hand() -> None:
    # (file * 10 + rank) * 36 + destination; destination 0..17 along the file, 18..35 along
    # the rank, offsets -9..-1 then +1..+9; blue's rank reflected, its files not.
    cases = {
        ("B4", "B5", Side.RED): 13 * 36 + 9,
        ("A1", "K1", Side.RED): 0 * 36 + 18 + 17,
        ("A4", "A3", Side.RED): 3 * 36 + 8,
        ("I7", "I6", Side.BLUE): 83 * 36 + 9,
        ("K10", "K1", Side.BLUE): 90 * 36 + 17,
        ("A7", "B7", Side.BLUE): 3 * 36 + 27,
    }
    for (source, target, side), expected in cases.items():
        s, t = parse_square(source), parse_square(target)
        assert yorktown_action(s, t, side) == expected
        assert yorktown_move(expected, side) == (s, t)


def test_yorktown_ids_round_trip_and_tables_agree() -> None:
    seen = {Side.RED: set(), Side.BLUE: set()}
    for side in (Side.RED, Side.BLUE):
        for source in range(100):
            for target in range(100):
                theirs = yorktown_action(source, target, side)
                straight = source != target and (
                    source // 10 == target // 10 or source % 10 == target % 10
                )
                assert (theirs is not None) == straight
                if theirs is None:
                    continue
                assert 0 <= theirs < YORKTOWN_ACTION_COUNT
                assert yorktown_move(theirs, side) == (source, target)
                seen[side].add(theirs)
                ours = action_id(source, target, side)
                index = 0 if side is Side.RED else 1
                assert to_yorktown(ours, index) == theirs
                assert from_yorktown(theirs, index) == ours
    # 100 squares x 18 straight targets each: 1,800 of the 3,600 ids lie on the board.
    assert len(seen[Side.RED]) == len(seen[Side.BLUE]) == 1800
    off_board = [a for a in range(YORKTOWN_ACTION_COUNT) if a not in seen[Side.RED]]
    assert all(from_yorktown(a, 0) == -1 for a in off_board)
    with pytest.raises(ValueError, match="leaves the board"):
        yorktown_move(off_board[0], Side.RED)


def test_a_turning_captain_has_no_yorktown_id() -> None:
    assert yorktown_action(parse_square("E4"), parse_square("F5"), Side.RED) is None
    assert to_yorktown(action_id(parse_square("E4"), parse_square("F5"), Side.RED), 0) == -1


def test_legal_actions_of_a_scout_lane() -> None:
    pos = Position(parse_board(SCOUT_LANE), "gravon-2013")
    moves = names(legal_actions(pos), Side.RED)
    scout = {m for m in moves if m.startswith("E4")}
    assert scout == {f"E4-E{row}" for row in range(1, 11) if row != 4} | {
        f"E4-{col}4" for col in "ABCD"
    }
    assert {m for m in moves if m.startswith("A1")} == {"A1-A2", "A1-B1"}
    assert len(moves) == len(scout) + 2  # the bomb and the flag never move


def test_legal_actions_keep_the_two_squares_limit() -> None:
    pos = Position(parse_board(SCOUT_LANE), "gravon-2013")  # limit 3
    a1, a2, e10, e9 = (parse_square(n) for n in ("A1", "A2", "E10", "E9"))
    for source, target in [(a1, a2), (e10, e9), (a2, a1), (e9, e10), (a1, a2), (e10, e9)]:
        pos.push(source, target)
    moves = names(legal_actions(pos), Side.RED)
    assert "A2-A1" not in moves  # a fourth move back and forth
    assert {"A2-A3", "A2-B2"} <= moves
    assert sorted(legal_actions(pos)) == sorted(
        action_id(s, t, pos.side) for s, t in pos.reference_pairs()
    )


def test_no_legal_actions_after_the_flag_fell() -> None:
    board = parse_board(SCOUT_LANE)
    board[parse_square("E10")], board[parse_square("K10")] = 24, 17  # blue flag, sergeant
    pos = Position(board, "gravon-2013")
    assert legal_actions(pos)
    pos.push(parse_square("E4"), parse_square("E10"))  # the scout takes the flag
    assert pos.winner == Side.RED
    assert legal_actions(pos) == []


def _valid_replays(paths: list[Path]):  # type: ignore[no-untyped-def]
    for record in read_units(list(iter_units(paths))):
        if record.setup is None:
            continue
        result = replay(record)
        if result.status is Status.VALID:
            yield record, result


def _walk(record, result):  # type: ignore[no-untyped-def]
    """Yield (position before the ply, ply index), playing the record as the replay did."""
    pos = Position(record.setup, result.rules)
    for index in range(result.plies_replayed):
        yield pos, index
        rescue = None
        if index + 1 in result.rescued:
            rescue = (record.rescues[index + 1].square, result.rescued[index + 1])
        play_known(pos, record.sources[index], record.targets[index], rescue)


@pytest.mark.slow
def test_legal_actions_agree_with_the_engine_on_the_sample() -> None:
    games = 0
    for record, result in _valid_replays([DATA]):
        games += 1
        for pos, index in _walk(record, result):
            ids = legal_actions(pos)
            if index % 5 == 0:
                assert ids == sorted(action_id(s, t, pos.side) for s, t in pos.reference_pairs())
            played = action_id(record.sources[index], record.targets[index], pos.side)
            assert played in ids, (record.game_id, index + 1)
    assert games > 100


def _fast_masks(result):  # type: ignore[no-untyped-def]
    """The export's legal masks of a replayed game, as it computes them: ``(offsets, ids)``
    of :func:`legal_ids` over the boards before each ply, less the two-squares bans."""
    n = result.plies_replayed
    boards = result.knowledge().boards[:n]
    sides = np.where(np.arange(n) % 2 == 0, 1, 2).astype(np.uint8)
    return legal_ids(boards, sides, result.rules, two_squares_bans(result, n, boards))


def _played_ids(record, n):  # type: ignore[no-untyped-def]
    """Our id of each of the first ``n`` moves played, in its mover's view."""
    keys = np.asarray(record.sources[:n], np.int64) * 100 + np.asarray(record.targets[:n])
    return view_keys(keys, np.arange(n) % 2 == 1)


LEGAL_MASK_SHARDS = 2
"""The archive's zips, largest first, dealt round-robin into this many tests, so that xdist
runs them side by side on a 2-core machine (the whole archive is about 15 CPU seconds on the
vectorised generator; it was 380 with one single-position call a ply)."""


def legal_mask_shard(gravon_dir: Path, shard: int) -> list[Path]:
    """The zips of one shard of the legal-mask check."""
    zips = sorted(gravon_dir.glob("*.zip"), key=lambda z: (-z.stat().st_size, z.name))
    return zips[shard::LEGAL_MASK_SHARDS]


@pytest.mark.slow
@pytest.mark.archive
@pytest.mark.parametrize("shard", range(LEGAL_MASK_SHARDS))
def test_every_move_played_is_in_its_legal_mask(gravon_dir: Path, shard: int) -> None:
    """Every ply of every valid game of the shard's zips (all shards together: every game,
    checked by test_the_legal_mask_shards_cover_the_archive): the move played is among the
    legal ids the observation export lists for that ply (the vectorised generator, one call
    a game). test_the_fast_masks_equal_the_single_position_reference checks those masks
    against the pure-Python reference."""
    zips = legal_mask_shard(gravon_dir, shard)
    assert zips, f"shard {shard} has no zip: the archive has {LEGAL_MASK_SHARDS} or more"
    plies = games = 0
    sizes = []
    for record, result in _valid_replays(zips):
        games += 1
        n = result.plies_replayed
        offsets, ids = _fast_masks(result)
        rows = np.repeat(np.arange(n), np.diff(offsets))
        keys = rows * 10_000 + ids  # ascending: rows in order, ids ascending in each
        wanted = np.arange(n) * 10_000 + _played_ids(record, n)
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        missing = np.flatnonzero(keys[at] != wanted)
        assert not len(missing), (record.game_id, int(missing[0]) + 1)
        assert (np.diff(keys) > 0).all(), record.game_id  # each row ascending, no repeat
        sizes.append(np.diff(offsets))
        plies += n
    # Each shard holds about half the archive: thousands of games, 300 plies or so each.
    assert games > 5_000 and plies > 1_500_000, (games, plies)
    assert 10 < float(np.mean(np.concatenate(sizes))) < 60


@pytest.mark.slow
@pytest.mark.archive
def test_the_fast_masks_equal_the_single_position_reference(gravon_dir: Path) -> None:
    """On strados2014-4 (classic, barrage, duell, classicfree, ultimate lightning), every
    25th ply of every valid game: the export's mask equals both the single-position
    :func:`legal_actions` and the pure-Python :meth:`Position.reference_pairs`, so the
    whole-archive check above and the stepping API rest on the same, checked, moves."""
    compared = 0
    seen = set()
    for record, result in _valid_replays([gravon_dir / "strados2014-4.zip"]):
        offsets, ids = _fast_masks(result)
        seen.add(record.variant)
        for pos, index in _walk(record, result):
            if index % 25:
                continue
            fast = ids[offsets[index] : offsets[index + 1]].tolist()
            assert fast == legal_actions(pos), (record.game_id, index + 1)
            reference = sorted(action_id(s, t, pos.side) for s, t in pos.reference_pairs())
            assert fast == reference, (record.game_id, index + 1)
            compared += 1
    assert compared > 10_000 and len(seen) >= 5, (compared, seen)


@pytest.mark.archive
def test_the_legal_mask_shards_cover_the_archive(gravon_dir: Path) -> None:
    """The shards above, together, take every zip of the archive exactly once."""
    zips = sorted(gravon_dir.glob("*.zip"))
    dealt = [z for shard in range(LEGAL_MASK_SHARDS) for z in legal_mask_shard(gravon_dir, shard)]
    assert sorted(dealt) == zips and len(zips) == 23


@pytest.mark.archive
def test_every_move_of_a_real_month_maps_to_yorktown_and_back(gravon_dir: Path) -> None:
    """strados2014-4 (classic, barrage, duell, classicfree and ultimate lightning): every
    recorded move has our id and, unless it is a turning captain, a yorktown id, and both
    give the move back."""
    moves = turning = 0
    for record, result in _valid_replays([gravon_dir / "strados2014-4.zip"]):
        for index in range(result.plies_replayed):
            side = Side.RED if index % 2 == 0 else Side.BLUE
            source, target = record.sources[index], record.targets[index]
            ours = action_id(source, target, side)
            assert action_squares(ours, side) == (source, target)
            theirs = yorktown_action(source, target, side)
            if theirs is None:
                assert source // 10 != target // 10 and source % 10 != target % 10
                turning += 1
                continue
            assert yorktown_move(theirs, side) == (source, target)
            assert to_yorktown(ours, side - 1) == theirs
            assert from_yorktown(theirs, side - 1) == ours
            moves += 1
    assert moves > 250_000 and turning < moves / 1000


def test_the_action_head_is_from_square_direction_distance_in_the_movers_view() -> None:
    """Every id of a straight move has a head index and back; a turn has none; a head index
    off the board has no id; red's B4-B5 and blue's I7-I6 (one forward from each seat)
    share one index."""
    ids = np.arange(ACTION_COUNT)
    heads = action_heads(ids)
    straight = heads >= 0
    assert (head_actions(heads[straight]) == ids[straight]).all()
    assert straight.sum() == (head_actions(np.arange(HEAD_COUNT)) >= 0).sum()
    source, target = np.divmod(ids, 100)
    d_row, d_col = target // 10 - source // 10, target % 10 - source % 10
    assert (straight == ((d_row == 0) != (d_col == 0))).all()
    red, blue = action_id(31, 41, Side.RED), action_id(68, 58, Side.BLUE)
    assert int(action_heads(red)) == int(action_heads(blue)) == (31 * 4 + 0) * 9 + 0
    assert HEAD_DIRECTIONS[(int(action_heads(action_id(31, 30, Side.RED))) // 9) % 4] == "left"
    assert int(action_heads(action_id(31, 91, Side.RED))) % 9 == 5  # six squares: index 5
