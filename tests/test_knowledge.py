"""The knowledge model: what each side knew at every ply, checked move by move on hand-made
games drawn as boards, and on the real archive against an independent piece tracker."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hand_games import game, lightning

from strat_tools.core.board import Side, parse_square
from strat_tools.core.pieces import ARMIES, CODE_KIND, CODE_SIDE
from strat_tools.core.records import GameRecord, Rescue, Status
from strat_tools.engine.information.knowledge import (
    KNOWN,
    LONG,
    MOVED,
    RESCUED,
    REVEALED,
    knowledge,
)
from strat_tools.engine.replays.replay import Replay, replay
from strat_tools.formats.readers import read_records
from strat_tools.views.svg import knowledge_svg

DATA = Path(__file__).resolve().parent.parent / "data"
BOMB, SPY, SCOUT, MINER, SERGEANT, LIEUTENANT, CAPTAIN, MAJOR, COLONEL, GENERAL, MARSHAL = range(11)


def army_less(*kinds: int, variant: str = "classic") -> list[int]:
    """The unseen row of a side that has identified ``kinds`` of the opponent's: the army the
    rules show for ``variant``, less those."""
    counts = list(ARMIES[variant])
    for kind in kinds:
        counts[kind] -= 1
    return counts


SCOUT_BATTLE = game(
    {"B2": "r2", "E4": "r10", "F1": "rB", "E7": "b4", "B9": "b2", "F10": "bB"},
    "B2-B6 E7-E6 E4-E5 E6-E5 B6-B9",
)
"""A scout's long move, a one-square move, a battle both ranks show, scouts trading."""


def test_a_long_move_shows_a_scout_and_a_short_one_only_that_it_moved() -> None:
    know = replay(SCOUT_BATTLE).knowledge()
    assert know.diagram(2, 1) == (
        """\
      A   B   C   D   E   F   G   H   I   K
10  b?   .   .   .   .  b?   .   .   .  b?
 9   .  b?   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .  r2  ~~  ~~  bm   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   . r10   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  rF   .   .   .   .  rB   .   .   .  r3"""
    )
    assert know.flags[2][parse_square("B6")] == MOVED | LONG | KNOWN
    assert know.flags[2][parse_square("E6")] == MOVED
    # Red has identified nothing of blue's, blue only red's scout: unseen counts down from
    # the army the rules show (classic), never from the pieces actually set up.
    assert know.unseen[2].tolist() == [army_less(), army_less(SCOUT)]
    assert know.known_field(2, 1)[60:70] == "AAAAAAAAAA"
    assert know.known_field(2, 1)[50:60] == "AD__?A__AA"
    assert know.known_field(0, 2) == know.field(0).translate(
        str.maketrans("BCDEFGHIJKLM", "?" * 12)
    )


def test_a_side_view_picture_hides_exactly_what_the_diagram_hides() -> None:
    know = replay(SCOUT_BATTLE).knowledge()
    diagram = know.diagram(2, Side.RED)
    red_view = knowledge_svg(know, 2, Side.RED)
    # Blue's four unmoved pieces and its moved miner (E6) show "?"; only the miner has a dot.
    assert red_view.count(">?</text>") == diagram.count("b?") + diagram.count("bm") == 5
    assert red_view.count("<circle") == diagram.count("bm") == 1
    assert knowledge_svg(know, 2, 1) == red_view
    assert knowledge_svg(know, 2).count(">?</text>") == 0
    # Blue sees the board from its own seat: column K on the left, row 1 at the top.
    blue_view = knowledge_svg(know, 2, Side.BLUE)
    assert blue_view.index(">K</text>") < blue_view.index(">A</text>")
    assert red_view.index(">A</text>") < red_view.index(">K</text>")
    assert blue_view.count(">?</text>") == know.diagram(2, Side.BLUE).count("r?") == 4


def test_a_battle_shows_both_ranks_and_the_winner_stays_known() -> None:
    know = replay(SCOUT_BATTLE).knowledge()
    assert know.diagram(5, 2) == (
        """\
      A   B   C   D   E   F   G   H   I   K
10  b3   .   .   .   .  bB   .   .   .  bF
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~ r10   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  r?   .   .   .   .  r?   .   .   .  r?"""
    )
    assert know.flags[5][parse_square("E5")] == MOVED | REVEALED | KNOWN
    assert know.captured[4].tolist() == [[0] * 12, [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]]
    assert know.captured[5].tolist() == [
        [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0],
    ]
    assert know.unseen[5].tolist() == [army_less(SCOUT, SERGEANT), army_less(SCOUT, MARSHAL)]
    assert know.captured_unseen[5].sum() == 0  # every battle showed both ranks


def test_silent_defense_shows_only_the_attacker() -> None:
    # Red's colonel takes blue's major, red's lieutenant dies on blue's general: neither
    # defender's rank is shown, so red has still not seen a major nor a general.
    record = game(
        {"E5": "r8", "E6": "b7", "I4": "r5", "I7": "b9"},
        "E5-E6 I7-I6 I4-I5 A10-A9 I5-I6",
    )
    result = replay(record, "auto+silent")
    assert result.outcomes == [1, 0, 0, 0, 2]
    know = result.knowledge()
    assert know.diagram(5, 1) == (
        """\
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .   .   .   .   .   .  b?
 9  bm   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~  r8   .  ~~  ~~  bm   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  rF   .   .   .   .   .   .   .   .  r3"""
    )
    assert know.unseen[5][0].tolist() == army_less()
    assert know.unseen[5][1].tolist() == army_less(COLONEL, LIEUTENANT)
    # Blue's major fell unseen: red saw a blue piece go, not which.
    assert know.captured_unseen[5].tolist() == [[0] * 12, [0] * 7 + [1] + [0] * 4]
    assert know.lost_as_known(5, Side.RED, Side.BLUE) == ([0] * 12, 1)
    assert know.lost_as_known(5, Side.BLUE, Side.BLUE) == ([0] * 7 + [1] + [0] * 4, 0)
    assert know.lost_as_known(5, Side.BLUE, Side.RED) == ([0] * 5 + [1] + [0] * 6, 0)
    # Without silent defense the same battles show both ranks.
    shown = replay(record).knowledge()
    assert shown.unseen[5][0].tolist() == army_less(MAJOR, GENERAL)
    assert shown.lost_as_known(5, Side.RED, Side.BLUE) == ([0] * 7 + [1] + [0] * 4, 0)


def test_lightning_captain_two_squares_is_ambiguous_until_it_turns() -> None:
    know = replay(lightning({"E3": "r6"}, "E3-E5 A10-A9 E5-F6")).knowledge()
    assert know.flags[1][parse_square("E5")] == MOVED | LONG
    assert know.known_field(1, 2)[parse_square("E5")] == "?"
    assert know.flags[3][parse_square("F6")] == MOVED | LONG | KNOWN
    assert know.known_field(3, 2)[parse_square("F6")] == "H"


def test_lightning_rescue_brings_back_a_known_piece() -> None:
    # Red's major dies on blue's colonel; red's general reaches row 10 and rescues it on E4.
    rescue = Rescue(parse_square("E4"), 8, "E4", "8")
    record = lightning({"E8": "r7", "E9": "b8", "D9": "r9", "B2": "b5"}, "E8-E9 B2-B1 D9-D10")
    record.rescues = {3: rescue}
    result = replay(record)
    assert result.status is Status.VALID
    know = result.knowledge()
    assert know.diagram(3, 2) == (
        """\
      A   B   C   D   E   F   G   H   I   K
10  b3   .   .  rm   .   .   .   .   .  bF
 9   .   .   .   .  b8   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .  r7   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  r?  b5   .   .   .   .   .   .   .  r?"""
    )
    assert know.flags[3][parse_square("E4")] == REVEALED | KNOWN | RESCUED
    assert know.captured[2][0][7] == 1 and know.captured[3][0][7] == 0
    # Seen when it fell, the major is not counted as unseen again when it comes back.
    assert know.unseen[3][1].tolist() == army_less(MAJOR, variant="ultimate lightning")


def test_a_record_without_setup_has_no_rows() -> None:
    know = replay(GameRecord(source="t.xml", variant="classic")).knowledge()
    assert know.boards.shape == (0, 100) and know.plies == -1


# -- the archive, against an independent tracker -----------------------------------------


def tracked_facts(result: Replay) -> tuple[list[list[int]], list[set[int]], list[set[int]]]:
    """Per ply: piece ids on the board (-1 none), ids that have moved, ids seen in a battle
    (or rescued). Ids follow pieces from square to square; nothing of knowledge.py is used."""
    record = result.record
    assert record.setup is not None
    ids = [sq if CODE_SIDE[c] else -1 for sq, c in enumerate(record.setup)]
    moved: set[int] = set()
    seen: set[int] = set()
    rows, moved_rows, seen_rows = [ids[:]], [set(moved)], [set(seen)]
    for index in range(result.plies_replayed):
        source, target = record.sources[index], record.targets[index]
        mover, defender = ids[source], ids[target]
        moved.add(mover)
        if result.defenders[index]:
            shows_defender = not result.rules.silent_defense or result.movers[index] in (3, 15)
            seen.add(mover)
            if shows_defender:
                seen.add(defender)
        ids[source] = -1
        outcome = result.outcomes[index]
        if outcome in (0, 1, 4):
            ids[target] = mover
        elif outcome == 3:
            ids[target] = -1
        rescue = record.rescues.get(index + 1)
        if index + 1 in result.rescued and rescue is not None and rescue.square is not None:
            ids[rescue.square] = 1000 + index
            seen.add(1000 + index)
        rows.append(ids[:])
        moved_rows.append(set(moved))
        seen_rows.append(set(seen))
    return rows, moved_rows, seen_rows


def check_against_tracker(result: Replay) -> None:
    know = knowledge(result)
    rows, moved_rows, seen_rows = tracked_facts(result)
    for ply, ids in enumerate(rows):
        flags = know.flags[ply]
        for square, piece in enumerate(ids):
            bits = int(flags[square])
            where = f"{result.record.game_id} ply {ply} square {square}"
            if piece < 0:
                assert bits == 0, where
                continue
            assert bool(bits & REVEALED) == (piece in seen_rows[ply]), where
            assert bool(bits & MOVED) == (piece in moved_rows[ply]), where
            if bits & KNOWN and not bits & REVEALED:
                assert CODE_KIND[int(know.boards[ply][square])] in (2, 6), where
    final = np.array(result.final_board, dtype=np.uint8)
    assert (know.boards[-1] == final).all()


@pytest.mark.archive
@pytest.mark.slow
def test_knowledge_agrees_with_a_piece_tracker_on_every_variant(gravon_dir: Path) -> None:
    zips = sorted(gravon_dir.glob("strados*.zip"))
    checked: dict[str, int] = {}
    for record in read_records(zips):
        quota = 40 if record.variant == "classic" else 25
        if checked.get(record.variant, 0) >= quota or record.setup is None:
            continue
        result = replay(record)
        check_against_tracker(result)
        check_against_tracker(replay(record, "auto+silent"))
        checked[record.variant] = checked.get(record.variant, 0) + 1
    assert set(checked) == {"classic", "barrage", "duell", "ultimate lightning", "classicfree"}


@pytest.mark.parametrize("rows", [1, 7, 64])
def test_knowledge_windows_cut_the_knowledge_into_consecutive_rows(rows: int) -> None:
    """The windows of a long game (the observation export's) are its knowledge's rows, in
    order, ``rows`` at a time (the state carried over each edge: captures, unseen counts,
    flags)."""
    from strat_tools.engine.information.knowledge import knowledge_windows

    records = [r for r in read_records([DATA]) if r.setup is not None and r.plies > 100][:8]
    for record in records:
        result = replay(record)
        whole = knowledge(result)
        windows = list(knowledge_windows(result, rows))
        assert all(len(w.boards) == rows for w in windows[:-1]) and len(windows[-1].boards)
        for name in ("boards", "flags", "captured", "unseen"):
            joined = np.concatenate([getattr(w, name) for w in windows])
            assert np.array_equal(joined, getattr(whole, name)), (record.game_id, name)
