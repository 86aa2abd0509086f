"""What a position's side to move sees, three ways that must agree byte for byte (issue 47):
the game loop's ``pos.observe()`` after each push (the knowledge cursor brought forward one
move at a time, the view read from its bytes), the whole game at once (its knowledge pass
and :func:`encode_views`, the fused lookup; ``Replay.views()``, the one call for it) and the
observation export's ``board_view`` column; that ``Replay.views()`` keeps no rank of a
piece its mover never identified; and the fused tables against the byte layout they
compose."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import numpy as np
import pytest
from model_swaps import short_classic_game, swap_pair, swapped

from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, LAKE
from strat_tools.core.records import GameRecord, RecordError, Status
from strat_tools.engine.information.knowledge import (
    KNOWN,
    LONG,
    MOVED,
    RESCUED,
    REVEALED,
    ROW_LAYOUT,
    Rows,
)
from strat_tools.engine.information.mover_view import view_boards
from strat_tools.engine.information.planes import KNOWN as BYTE_KNOWN
from strat_tools.engine.information.planes import (
    LAKE_KIND,
    OPPONENT,
    VIEW_OF_BYTE,
    board_views,
    encode_boards,
    encode_views,
    game_views,
)
from strat_tools.engine.information.planes import MOVED as BYTE_MOVED
from strat_tools.engine.information.planes import REVEALED as BYTE_REVEALED
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.exports.observations import observe
from strat_tools.formats.readers import read_records

DATA = Path(__file__).resolve().parent.parent / "data"


def _three_ways(record: GameRecord, *, export: bool) -> int:
    """Assert the three paths agree on every ply of ``record`` (with ``export``, the export
    too, and the observation boards with the hidden truth); return its plies."""
    result = replay(record)
    n = result.plies_replayed
    if result.status is not Status.VALID or not n or record.setup is None:
        return 0
    know = result.knowledge()
    sides = (np.arange(n) % 2) + 1
    whole = encode_views(know.boards[:n], know.flags[:n], sides)
    truth = encode_boards(know.boards[:n], know.flags[:n], sides)
    assert (whole == board_views(truth)).all(), record.game_id  # fused = composed
    assert result.views().tobytes() == whole.tobytes(), record.game_id  # the one call
    pos = Position(record.setup, result.rules)
    for ply, move in enumerate(record.moves[:n]):
        seen = pos.observe()
        assert seen.tobytes() == whole[ply].tobytes(), (record.game_id, ply)
        if export:
            assert pos.observation_with_truth().tobytes() == truth[ply].tobytes()
        pos.push(move)
    if export:
        rows = observe(result, record.game_id)
        assert b"".join(rows.column("board_view").to_pylist()) == whole.tobytes()
        assert b"".join(rows.column("board").to_pylist()) == truth.tobytes()
    return n


def test_the_game_loop_the_whole_game_and_the_export_see_the_same_every_ply() -> None:
    """Every ply of every valid game of the sample month (every variant); the export, which
    costs the most, on every fourth game."""
    plies = games = 0
    for index, record in enumerate(read_records([DATA])):
        found = _three_ways(record, export=index % 4 == 0)
        plies += found
        games += bool(found)
    assert games >= 390 and plies > 80_000


@pytest.mark.archive
def test_rescues_are_seen_the_same_three_ways(gravon_dir: Path) -> None:
    """Ultimate lightning games that made rescues (a piece comes back, revealed), from the
    real archive: the cursor's path through a rescue is the whole game's."""
    records = [
        r
        for r in read_records([str(gravon_dir / "strados2005-5.zip")])
        if r.variant == "ultimate lightning" and r.rescues
    ]
    assert sum(_three_ways(r, export=True) > 0 for r in records) >= 2


def _eventful(record: GameRecord) -> bool:
    """Whether ``record`` has battles and a scout's long move (what the knowledge pass
    treats apart from a plain step)."""
    moves = list(zip(record.sources, record.targets, strict=True))
    long = any(abs(s - t) not in (1, 10) for s, t in moves if s >= 0 and t >= 0)
    return long and record.setup is not None and record.plies > 20


def _stopped(record: GameRecord, at: int) -> GameRecord:
    """``record``'s first ``at`` plies, then a move onto its own square (illegal)."""
    source = record.sources[at]
    lines = record.lines[: at + 1] if record.lines else record.lines
    return dataclasses.replace(
        record,
        sources=[*record.sources[:at], source],
        targets=[*record.targets[:at], source],
        lines=lines,
        result=None,
    )


def test_views_are_observe_at_every_ply_of_games_with_battles_and_scouts() -> None:
    """``Replay.views()`` row by row against a game loop's ``observe()``, on three sample
    games with battles and a scout's long move, and on one stopped by an illegal move
    (rows for the plies replayed only)."""
    games = [r for r in itertools.islice(read_records([DATA]), 40) if _eventful(r)][:3]
    results = [replay(r) for r in (*games, _stopped(games[0], 31))]
    assert [r.status for r in results] == [Status.VALID] * 3 + [Status.INVALID]
    assert results[3].plies_replayed == 31
    for result in results:
        record, n = result.record, result.plies_replayed
        assert record.setup is not None
        views = result.views()
        assert views.shape == (n, 100) and views.dtype == np.uint8
        pos = Position(record.setup, result.rules)
        for ply, move in enumerate(record.moves[:n]):
            assert views[ply].tobytes() == pos.observe().tobytes(), (record.game_id, ply)
            pos.push(move)
    assert sum(1 for r in results[:3] for d in r.defenders if d) > 10


def test_views_of_a_record_without_a_setup_are_refused() -> None:
    record = GameRecord("nosetup.xml", variant="classic", sources=[31], targets=[41])
    with pytest.raises(RecordError, match="no setup"):
        replay(record).views()


@pytest.mark.parametrize("swapped_side", [Side.BLUE, Side.RED])
def test_views_keep_no_rank_the_mover_never_identified(swapped_side: Side) -> None:
    """Two of blue's pieces red never identified (they never move, nothing attacks them),
    swapped: none of red's rows of ``Replay.views()`` changes, and blue's do (blue sees its
    own pieces, so the test can fail); the control swaps two of red's: red's rows change."""
    record = short_classic_game()
    pair = swap_pair(record, swapped_side)
    assert pair is not None
    views, twin = replay(record).views(), replay(swapped(record, pair)).views()
    assert views.shape == twin.shape and len(views) >= 40
    unchanged, changed = (0, 1) if swapped_side is Side.BLUE else (1, 0)
    assert np.array_equal(views[unchanged::2], twin[unchanged::2])
    assert not np.array_equal(views[changed::2], twin[changed::2])


def _byte(code: int, flags: int, side: int) -> int:
    """The observation byte of the piece ``code`` with knowledge ``flags`` for ``side``
    to move, from the layout's definition (docs: planes.py)."""
    if code == 0:
        kind1 = 0
    elif code == LAKE:
        kind1 = LAKE_KIND
    else:
        kind1 = CODE_KIND[code] + 1
    other = CODE_SIDE[code] not in (0, side) and code != LAKE
    return (
        kind1
        | (OPPONENT if other else 0)
        | (BYTE_KNOWN if flags & KNOWN else 0)
        | (BYTE_MOVED if flags & MOVED else 0)
        | (BYTE_REVEALED if flags & REVEALED else 0)
    )


def test_the_fused_lookups_are_the_layout_for_every_code_and_knowledge() -> None:
    """Every board code with every combination of the knowledge bits, for both sides to
    move, many rows at once (the whole game's path) and one row (the game loop's)."""
    bits = [0, MOVED, LONG, KNOWN, REVEALED, RESCUED]
    combos = [sum(c) for r in range(len(bits) + 1) for c in itertools.combinations(bits, r)]
    cells = [(code, flags) for code in range(26) for flags in sorted(set(combos))]
    cells += [(0, 0)] * (-len(cells) % 100)
    boards = np.array([c for c, _ in cells], np.uint8).reshape(-1, 100)
    flags = np.array([f for _, f in cells], np.uint8).reshape(-1, 100)
    for side in (1, 2):
        sides = [side] * len(boards)
        expected = np.array([_byte(c, f, side) for c, f in cells], np.uint8).reshape(-1, 100)
        if side == 2:
            expected = expected[:, ::-1]  # blue's view: turned
        many = encode_boards(boards, flags, sides)
        assert (many == expected).all()
        assert (encode_views(boards, flags, sides) == VIEW_OF_BYTE[expected]).all()
        for row in range(len(boards)):
            one = encode_boards(boards[row : row + 1], flags[row : row + 1], [side])
            assert (one == expected[row]).all()
            views = encode_views(boards[row : row + 1], flags[row : row + 1], [side])
            assert (views == VIEW_OF_BYTE[expected[row]]).all()


def test_game_views_are_encode_views_for_every_code_and_knowledge() -> None:
    """The whole game's path from the knowledge pass's own bytes (``game_views``: the bits
    moved by one multiplication, two squares a lookup), red first then in turn, against
    ``encode_views``: every board code with every combination of the knowledge bits, on
    both sides' rows, for an even, an odd, one and no row."""
    bits = [0, MOVED, LONG, KNOWN, REVEALED, RESCUED]
    combos = sorted({sum(c) for r in range(len(bits) + 1) for c in itertools.combinations(bits, r)})
    cells = [(code, flags) for code in range(26) for flags in combos] * 2
    cells += [(0, 0)] * (-len(cells) % 100)
    cells += [(0, 0)] * (100 if len(cells) // 100 % 2 == 0 else 0)  # an odd number of rows
    boards = np.array([c for c, _ in cells], np.uint8).reshape(-1, 100)
    flags = np.array([f for _, f in cells], np.uint8).reshape(-1, 100)
    assert len(boards) % 2
    rows = Rows()
    for board, flag in zip(boards, flags, strict=True):
        rows.rows += board.tobytes() + flag.tobytes() + bytes(ROW_LAYOUT[0] - 200)
    rows.rows += bytes(ROW_LAYOUT[0])  # the row after the last ply
    sides = [1 + i % 2 for i in range(len(boards))]
    expected = encode_views(boards, flags, sides)
    for plies in (len(boards), len(boards) - 1, 1, 0):
        found = game_views(rows, plies)
        assert found.shape == (plies, 100) and found.dtype == np.uint8
        assert (found == expected[:plies]).all(), plies
    with pytest.raises(ValueError, match="rows"):
        game_views(rows, rows.count + 1)  # more plies than rows: refused, not garbage


def test_view_boards_turns_blue_rows_whatever_the_strides() -> None:
    """Blue's rows are turned four bytes at a time: rows read from a wider buffer, in
    Fortran order or backwards come out as a plain lookup and reversal gives them."""
    tables = np.stack([np.arange(256), (np.arange(256) + 7) % 256]).astype(np.uint8)
    wide = np.random.default_rng(47).integers(0, 256, (6, 101)).astype(np.uint8)
    for boards in (wide[:, :100], np.asfortranarray(wide[:, 1:]), wide[:, 100:0:-1]):
        for sides in ([1, 2, 1, 2, 1, 2], [2, 2, 1, 1, 2, 1], [2] * 6):
            side = np.array(sides, np.uint8)
            blue = (side == 2)[:, None]
            expected = np.where(blue, tables[1][boards][:, ::-1], tables[0][boards])
            assert (view_boards(tables, boards, side) == expected).all()
