"""The models on the viewer's page (``views/viewer_models.py``, ``view --with-model``): the
page carries each ply's likeliest moves, the move played's probability and rank, the most
surprising moves per view and each side's beliefs, exactly as the benchmark's one
definition gives them (``benchmark/game_models.py``); red's part of it does not move when
two of blue's pieces red never identified are swapped, and does when red's own are."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from model_swaps import DATA, short_classic_game, swap_pair, swapped

from strat_tools.benchmark.game_models import game_beliefs, game_move_model
from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_KIND, PieceKind
from strat_tools.core.records import GameRecord
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import read_records
from strat_tools.views.viewer import game_data, write_viewer
from strat_tools.views.viewer_models import MOVE_SCALE, SURPRISES, TOP_MOVES, ViewerModels


@pytest.fixture(scope="module")
def models() -> ViewerModels:
    return ViewerModels()


def page_row(changes: list[list[int]], width: int, position: int) -> list[int]:
    """Position ``position``'s row of a page's change-coded table, as the script rebuilds it."""
    row = [0] * (100 * width)
    for entry in changes[: position + 1]:
        for at in range(0, len(entry), 1 + width):
            row[entry[at] * width : entry[at] * width + width] = entry[at + 1 : at + 1 + width]
    return row


def test_the_page_carries_the_one_definition_of_the_model(models: ViewerModels) -> None:
    record = short_classic_game()
    result = replay(record)
    data = game_data(record, result, models)
    policy, belief = models.load()
    moves = game_move_model(result, policy)
    assert moves is not None and len(data["model"]["top"]) == moves.plies == record.plies
    for ply in (1, 2, moves.plies):
        assert data["model"]["top"][ply - 1][::2] == [k for k, _ in moves.best(ply, TOP_MOVES)]
        assert data["model"]["played"][ply - 1] == round(moves.played_prob(ply) * MOVE_SCALE)
        assert data["model"]["rank"][ply - 1] == moves.rank(ply)
        assert data["model"]["legal"][ply - 1] == len(moves.legal(ply))
    assert data["model"]["surprising"]["all"] == moves.surprising(SURPRISES)
    assert all(p % 2 == 1 for p in data["model"]["surprising"]["red"])
    assert all(p % 2 == 0 for p in data["model"]["surprising"]["blue"])
    know = result.knowledge()
    for side in (Side.RED, Side.BLUE):
        probs = game_beliefs(result, belief, side, know=know)
        for position in (0, record.plies // 2, record.plies):
            row = page_row(data["beliefs"][side.name.lower()], 3, position)
            held = probs[position].sum(axis=1) > 0
            assert [row[3 * s] for s in range(100)] == np.where(
                held, probs[position].argmax(axis=1) + 1, 0
            ).tolist()
            flags = [row[3 * s + 2] for s in range(100)]
            assert flags == np.rint(1000 * probs[position][:, PieceKind.FLAG]).astype(int).tolist()


def test_the_full_view_s_score_is_the_belief_on_the_true_kind(models: ViewerModels) -> None:
    record = short_classic_game()
    result = replay(record)
    data = game_data(record, result, models)
    _, belief = models.load()
    know = result.knowledge()
    position = record.plies
    right = page_row(data["beliefs"]["right"], 1, position)
    red = game_beliefs(result, belief, Side.RED, know=know)[position]
    for square in range(100):
        code = int(know.boards[position, square])
        if red[square].sum() > 0:  # a blue piece red has not identified
            assert right[square] == 1 + round(100 * red[square, CODE_KIND[code]])
    assert sum(1 for v in right if v) == sum(
        1
        for s in (Side.RED, Side.BLUE)
        for p in game_beliefs(result, belief, s, know=know)[position]
        if p.sum() > 0
    )


def red_part(data: dict[str, Any]) -> dict[str, Any]:
    """Everything of the page's model data red's view reads: red's moves' entries, red's
    surprising moves, red's beliefs."""
    model = data["model"]
    return {
        key: [v for ply, v in enumerate(model[key], start=1) if ply % 2 == 1]
        for key in ("top", "played", "rank", "legal")
    } | {"surprising": model["surprising"]["red"], "beliefs": data["beliefs"]["red"]}


def test_red_s_part_is_the_same_whatever_blue_s_unidentified_pieces_are(
    models: ViewerModels,
) -> None:
    record = short_classic_game()
    pair = swap_pair(record, Side.BLUE)
    assert pair is not None
    other = swapped(record, pair)
    one, two = (game_data(r, replay(r), models) for r in (record, other))
    assert one["field"] != two["field"]  # the truth differs
    assert one["beliefs"]["right"] != two["beliefs"]["right"]  # and the full view says so
    assert red_part(one) == red_part(two)


def test_the_control_a_swap_red_sees_changes_red_s_part(models: ViewerModels) -> None:
    record = short_classic_game()
    pair = swap_pair(record, Side.RED)
    assert pair is not None
    one, two = (game_data(r, replay(r), models) for r in (record, swapped(record, pair)))
    assert red_part(one)["played"] != red_part(two)["played"]


def test_another_variant_gets_a_note_instead(models: ViewerModels) -> None:
    duell = next(r for r in read_records([DATA]) if r.variant == "duell")
    data = game_data(duell, replay(duell), models)
    assert "model" not in data and data["model_note"].startswith("No model for duell")


def test_the_page_is_made_in_the_workers(tmp_path: Any, models: ViewerModels) -> None:
    record = short_classic_game()
    plain, with_model = tmp_path / "plain.html", tmp_path / "model.html"
    write_viewer([str(DATA)], plain, game_id=record.game_id, run=1)
    summary = write_viewer([str(DATA)], with_model, game_id=record.game_id, run=2, models=models)
    assert summary.games == [record.game_id]
    assert '"surprising"' in with_model.read_text() and '"surprising"' not in plain.read_text()


def test_view_with_model_on_the_command_line(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    record = short_classic_game()
    page = tmp_path / "game.html"
    args = ["view", str(DATA), "--game", record.game_id, "-o", str(page), "--with-model"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert '"surprising"' in page.read_text() and "1 game in" in result.output
    assert "--with-model" in CliRunner().invoke(main, ["view", "--help"]).output


def test_a_game_too_long_for_the_models_gets_a_note(
    models: ViewerModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    import strat_tools.views.viewer_models as viewer_models

    record = short_classic_game()
    monkeypatch.setattr(viewer_models, "MAX_MODEL_PLIES", record.plies - 1)
    data = game_data(record, replay(record), models)
    assert "model" not in data and "beliefs" not in data
    assert data["model_note"] == (
        f"No model for a game of {record.plies} plies: the page runs the models on games of "
        f"up to {record.plies - 1} plies."
    )


def test_a_variant_s_name_from_the_file_is_shown_escaped(models: ViewerModels) -> None:
    duell = next(r for r in read_records([DATA]) if r.variant == "duell")
    hostile = GameRecord(
        duell.source,
        variant="duell\u202e<b>",
        setup=duell.setup,
        sources=list(duell.sources),
        targets=list(duell.targets),
    )
    note = game_data(hostile, replay(hostile, "auto"), models)["model_note"]
    assert "\u202e" not in note and note.startswith("No model for duell")
