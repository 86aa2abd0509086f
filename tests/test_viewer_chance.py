"""Who is winning in the viewer (issue 38): red's chance at every ply in each view, and in
red's view nothing blue kept hidden can move it."""

from __future__ import annotations

from pathlib import Path

import pytest

from strat_tools.core.pieces import CODE_KIND, CODE_SIDE
from strat_tools.core.records import GameRecord
from strat_tools.engine.knowledge import KNOWN
from strat_tools.engine.replay import replay
from strat_tools.formats.readers import read_records
from strat_tools.views.viewer import game_data

DATA = Path(__file__).resolve().parent.parent / "data"


def sample_game(min_plies: int = 120) -> GameRecord:
    """The first long decided classic game of the shipped sample."""
    for record in read_records([DATA]):
        if record.variant == "classic" and record.plies >= min_plies:
            return record
    raise AssertionError("no long classic game in data/")


def untouched_blue_pair(record: GameRecord) -> tuple[int, int]:
    """Two blue squares of different kinds whose pieces never move, are never attacked,
    and so are never identified by red."""
    used = set(record.sources) | set(record.targets)
    setup = record.setup
    assert setup is not None
    know = replay(record).knowledge()
    squares = [
        sq
        for sq in range(100)
        if CODE_SIDE[setup[sq]] == 2 and sq not in used and not (know.flags[:, sq] & KNOWN).any()
    ]
    for a in squares:
        for b in squares:
            if CODE_KIND[setup[a]] != CODE_KIND[setup[b]]:
                return a, b
    raise AssertionError("no two untouched blue pieces of different kinds")


def test_every_view_has_a_chance_at_every_ply() -> None:
    record = sample_game()
    data = game_data(record, replay(record))
    for view in ("all", "red", "blue"):
        chances = data["chance"][view]
        assert len(chances) == data["plies"] + 1
        assert all(0 <= c <= 1000 for c in chances)
    # Every capture of classic shows the piece, and the army is known: how many of each kind
    # are left is no secret, so each side's view gives the chance the whole truth gives.
    assert data["chance"]["red"] == data["chance"]["all"] == data["chance"]["blue"]


def test_swapping_two_unseen_blue_pieces_changes_nothing_in_reds_view() -> None:
    record = sample_game()
    a, b = untouched_blue_pair(record)
    assert record.setup is not None
    setup = list(record.setup)
    setup[a], setup[b] = setup[b], setup[a]
    swapped = GameRecord(
        record.source,
        variant=record.variant,
        setup=tuple(setup),
        sources=list(record.sources),
        targets=list(record.targets),
        result=record.result,
    )
    first, second = game_data(record, replay(record)), game_data(swapped, replay(swapped))
    assert first["plies"] == second["plies"] == record.plies
    assert first["field"] != second["field"]  # the truth differs
    assert first["chance"]["red"] == second["chance"]["red"]
    assert first["swings"]["red"] == second["swings"]["red"]


@pytest.mark.parametrize("view", ["red", "blue"])
def test_a_swing_names_a_lost_piece_only_as_the_view_knew_it(view: str) -> None:
    record = sample_game()
    data = game_data(record, replay(record))
    swings = data["swings"][view]
    assert swings and all(text.startswith("red's chance ") for _, text in swings)
    assert all(isinstance(ply, int) and 1 <= ply <= data["plies"] for ply, _ in swings)
