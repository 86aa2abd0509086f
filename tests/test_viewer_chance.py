"""Who is winning in the viewer (issue 38): red's chance at every ply in each view, and in
red's view nothing blue kept hidden can move it."""

from __future__ import annotations

import pytest
from long_classic_game import sample_game

from strat_tools.core.pieces import CODE_KIND, CODE_SIDE
from strat_tools.core.records import GameRecord
from strat_tools.engine.information.knowledge import KNOWN
from strat_tools.engine.replays.replay import replay
from strat_tools.views.viewer import game_data


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


def _silent_game(defender: str, other: str) -> GameRecord:
    """Red's marshal walks up the A file and takes a blue piece that, under silent defense,
    is never shown; blue's scout steps to and fro meanwhile."""
    from strat_tools.core.pieces import letter_code

    field = ["A"] * 100
    for lake in (42, 43, 46, 47, 52, 53, 56, 57):
        field[lake] = "_"
    field[0], field[30], field[60], field[69] = "M", "L", defender, other
    field[97], field[99] = "P", "Y"
    setup = tuple(letter_code(c) for c in field)
    return GameRecord(
        "silent.xml",
        variant="classicfree",
        setup=setup,
        sources=[30, 97, 40, 87, 50],
        targets=[40, 87, 50, 97, 60],
    )


def test_a_piece_taken_unseen_stays_unseen_in_reds_view() -> None:
    """Blue has a sergeant and a lieutenant; red's marshal takes the sergeant in one game
    and the lieutenant in the other, neither shown (silent defense): the truth differs
    after the capture, red's view cannot."""
    from strat_tools.core.board import Side
    from strat_tools.engine.information.material import material_rows, view_materials
    from strat_tools.stats.win_model import red_chances
    from strat_tools.stats.win_model_file import shipped_win_model

    knows = [replay(_silent_game(*d), "classic+silent").knowledge() for d in ("RS", "SR")]
    assert all(k.plies == 5 for k in knows)
    truths = [material_rows(k, range(6)) for k in knows]
    assert truths[0][5].tolist() != truths[1][5].tolist()  # which one is left
    views = [view_materials(k, Side.RED) for k in knows]
    assert views[0].tolist() == views[1].tolist()
    model = shipped_win_model()
    assert model is not None
    chances = [red_chances(model, v, range(6)).tolist() for v in views]
    assert chances[0] == chances[1]
    assert red_chances(model, truths[0], range(6)).tolist() != chances[0]  # the truth knows


def test_each_variant_gets_its_own_model_or_none() -> None:
    """Issue 46.1: barrage by the barrage model, duell (no model shipped) by none, with a
    note; never the classic model's chance for another variant's game."""
    from long_classic_game import DATA

    from strat_tools.engine.information.material import material_rows
    from strat_tools.formats.readers import read_records
    from strat_tools.stats.win_model import red_chances
    from strat_tools.stats.win_model_file import shipped_win_model

    games = {}
    for record in read_records([DATA]):
        games.setdefault(record.variant, record)
    barrage = games["barrage"]
    data = game_data(barrage, replay(barrage))
    model = shipped_win_model("barrage")
    assert model is not None and model.variant == "barrage"
    know = replay(barrage).knowledge()
    plies = list(range(know.plies + 1))
    truth = red_chances(model, material_rows(know, plies), plies)
    assert data["chance"]["all"] == [round(p * 1000) for p in truth.tolist()]
    duell = games["duell"]
    data = game_data(duell, replay(duell))
    assert data["chance"] is None and data["swings"] == {}
    assert data["chance_note"].startswith("No calibrated chance for duell")
