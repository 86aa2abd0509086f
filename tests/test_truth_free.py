"""Truth-free inputs: two opponent pieces the mover never identified, swapped in a real
game, change no truth-free column of any of the mover's rows (and do change the ``board``
label, so the test can fail); the board view and ``Position.observe()`` keep no rank of
an unidentified piece.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from strat_tools.core.pieces import CODE_SIDE
from strat_tools.core.records import GameRecord, Status, Termination
from strat_tools.engine.information.planes import (
    KIND_BITS,
    OPPONENT,
    UNKNOWN_KIND,
    board_diagram,
    board_views,
    to_planes,
)
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.exports.observation_arrays import FIELDS, LABEL_FIELDS, batch_arrays
from strat_tools.exports.observation_rows import LABEL_COLUMNS, TRUTH_FREE_COLUMNS
from strat_tools.exports.observations import observe
from strat_tools.formats.readers import read_records

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"


def never_identified_pair(record: GameRecord) -> tuple[int, int] | None:
    """Two of blue's squares whose pieces (of different kinds) never move and are never
    attacked in the game: red can never identify them, and swapping them changes no move."""
    assert record.setup is not None
    touched = set(record.sources) | set(record.targets)
    quiet = [sq for sq in range(60, 100) if CODE_SIDE[record.setup[sq]] == 2 and sq not in touched]
    for a in quiet:
        for b in quiet:
            if record.setup[a] != record.setup[b]:
                return a, b
    return None


def swapped_game() -> tuple[GameRecord, GameRecord]:
    """The first resigned classic game of the sample with such a pair, and its twin."""
    for record in read_records(SAMPLE):
        if record.variant != "classic" or record.result is None:
            continue
        if record.result.termination is not Termination.RESIGNED:
            continue
        pair = never_identified_pair(record)
        if pair is None:
            continue
        a, b = pair
        setup = list(record.setup or ())
        setup[a], setup[b] = setup[b], setup[a]
        return record, dataclasses.replace(record, setup=tuple(setup))
    raise AssertionError("no game of the sample has two quiet blue pieces")


def test_swapping_two_pieces_red_never_identified_changes_none_of_reds_inputs() -> None:
    record, twin = swapped_game()
    first, second = replay(record), replay(twin)
    assert first.status is second.status is Status.VALID
    assert first.plies_replayed == second.plies_replayed > 10
    rows, twin_rows = observe(first, "g"), observe(second, "g")
    red = np.flatnonzero(np.asarray(rows.column("side").to_pylist()) == "red")
    rows, twin_rows = rows.take(red), twin_rows.take(red)
    for name in TRUTH_FREE_COLUMNS:
        assert rows.column(name).equals(twin_rows.column(name)), name
    assert not rows.column("board").equals(twin_rows.column("board"))  # the label does change
    inputs = [name for name in FIELDS if name not in LABEL_FIELDS]
    arrays, twin_arrays = batch_arrays(rows, inputs), batch_arrays(twin_rows, inputs)
    for name in inputs:
        assert np.array_equal(arrays[name], twin_arrays[name]), name
    truth = batch_arrays(rows, ["kinds"])["kinds"]
    assert not np.array_equal(truth, batch_arrays(twin_rows, ["kinds"])["kinds"])
    # one position, as a player of red would ask for it
    positions = []
    for game in (record, twin):
        position = Position(game.setup or (), first.rules)
        for move in game.moves[:10]:
            position.push(move)
        positions.append(position)
    assert positions[0].observe().tobytes() == positions[1].observe().tobytes()
    truths = [p.observation_with_truth().tobytes() for p in positions]
    assert truths[0] != truths[1]


def test_the_label_columns_are_the_only_ones_that_carry_truth() -> None:
    assert set(LABEL_COLUMNS) == {"winner", "value", "board", "action", "action_index"}
    assert "board_view" in TRUTH_FREE_COLUMNS and "board" not in TRUTH_FREE_COLUMNS


def test_a_board_view_keeps_no_rank_of_an_unidentified_piece() -> None:
    """Every byte an observation board can hold: in the view, an opponent piece the mover
    has not identified is UNKNOWN_KIND whatever its rank, and the planes are the board's."""
    codes = np.arange(256, dtype=np.uint8)[None, :].repeat(1, axis=0)
    view = board_views(codes)[0]
    hidden = ((codes[0] & OPPONENT) != 0) & ((codes[0] & 0x20) == 0)
    ranked = hidden & ((codes[0] & KIND_BITS) >= 1) & ((codes[0] & KIND_BITS) <= 12)
    assert ((view[ranked] & KIND_BITS) == UNKNOWN_KIND).all()
    assert len({int(b) for b in view[ranked]}) == 2  # moved or not: nothing else
    board = np.zeros((1, 100), np.uint8)
    board[0, [5, 95, 96]] = [0x10 | 12, 0x10 | 0x40 | 11, 0x10 | 0x20 | 11]
    assert (to_planes(board_views(board)) == to_planes(board)).all()
    assert board_diagram(board_views(board)[0]) == board_diagram(board[0])
    assert board_diagram(board_views(board)[0]).splitlines()[0].split()[6:8] == ["-m", "-10"]
