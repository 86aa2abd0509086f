"""A side's view is computed from that side's knowledge alone (issues 45.6 and 46.2).

Each test changes something the rules really hide from red and checks that nothing red's
view is made of moves: the knowledge counts (``unseen``, the losses as red knew them), the
board red knew, the win chance's inputs and red's chance, the page's data for red, the
observation rows of red's moves (their board carries the hidden truth beside what the mover
knew, by design: docs/observations.md; its other columns are what the mover knew). The
changes are ones that can show a leak: the rank of a
never-seen blue piece in free setup (a bomb made a marshal: another army, which the rules do
not show), the same in classic (a wrong army the rules do not show either), and the rank of
a blue piece taken unidentified under silent defense. Swapping two unseen pieces of a
classic army changes no count and so could prove nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hand_games import free_setup_game, with_piece

from strat_tools.core.board import Side
from strat_tools.core.records import GameRecord
from strat_tools.core.rules import OPTIONS
from strat_tools.engine.information.knowledge import Knowledge
from strat_tools.engine.information.material import view_materials
from strat_tools.engine.moves.games import game_legal_ids
from strat_tools.engine.replays.replay import replay
from strat_tools.exports.observation_rows import game_columns
from strat_tools.views.viewer import game_data

RULE_CHOICES = ["auto", *(f"auto+{option}" for option in sorted(OPTIONS))]
"""Every rule option on top of the record's own rules."""


def side_view(record: GameRecord, rules: str, side: Side = Side.RED) -> dict[str, Any]:
    """Everything ``side``'s view is made of, per ply, as plain values."""
    result = replay(record, rules)
    know: Knowledge = result.knowledge()
    plies = range(know.plies + 1)
    data = game_data(record, result)
    columns = game_columns(result, know, game_legal_ids(result, know.boards[:-1]))
    mine = slice(side - 1, None, 2)  # the observation rows of this side's moves
    own, other = (side - 1) * 12, (side.other - 1) * 12
    return {
        "plies": know.plies,
        "known_board": [know.known_field(p, side) for p in plies],
        "unseen": know.unseen[:, side - 1].tolist(),
        "army_shown": know.army_shown,
        "their_lost": [know.lost_as_known(p, side, side.other) for p in plies],
        "own_lost": [know.lost_as_known(p, side, side) for p in plies],
        "materials": view_materials(know, side).tolist(),
        # A variant with no shipped win model (classicfree) draws no chance: its inputs, the
        # materials above, are still compared.
        "chance": data["chance"] and data["chance"][side.name.lower()],
        "swings": data["swings"].get(side.name.lower()),
        "page_unseen": [
            _page_row(data, "unseen", data["unseen0"], p)[own : own + 12] for p in plies
        ],
        "page_their_lost": [_lost_on_page(data, p, other) for p in plies],
        "observed_captured": columns.captured[mine].tolist(),
        "observed_unseen": columns.unseen[mine].tolist(),
    }


def _page_row(data: dict[str, Any], key: str, start: list[int], ply: int) -> list[int]:
    """Row ``ply`` of one of the page's delta-coded arrays, rebuilt as the page's script does."""
    row = list(start)
    for changes in data[key][:ply]:
        for at in range(0, len(changes), 2):
            row[changes[at]] = changes[at + 1]
    return row


def _lost_on_page(data: dict[str, Any], ply: int, at: int) -> tuple[list[int], int]:
    """A side's "... has lost:" panel in the other side's view, as the page's script computes
    it from the page's data (``at``: 0 red's losses, 12 blue's)."""
    captured = _page_row(data, "captured", [0] * 24, ply)[at : at + 12]
    unnamed = _page_row(data, "lostUnseen", [0] * 24, ply)[at : at + 12]
    return [c - u for c, u in zip(captured, unnamed, strict=True)], sum(unnamed)


def assert_side_cannot_tell(
    first: GameRecord, second: GameRecord, rules: str, side: Side = Side.RED
) -> None:
    truth = [replay(r, rules).knowledge() for r in (first, second)]
    assert not np.array_equal(truth[0].boards, truth[1].boards)  # the truth differs
    one, two = side_view(first, rules, side), side_view(second, rules, side)
    assert one["plies"] == two["plies"] == first.plies
    for key in one:
        assert one[key] == two[key], key


@pytest.mark.parametrize("rules", RULE_CHOICES)
def test_free_setup_a_never_seen_bomb_made_a_marshal_changes_nothing_red_knew(rules: str) -> None:
    record = free_setup_game()
    assert_side_cannot_tell(record, with_piece(record, "K7", "X"), rules)
    assert side_view(record, rules)["army_shown"] is False


@pytest.mark.parametrize("rules", RULE_CHOICES)
def test_classic_a_never_seen_bomb_made_a_marshal_changes_nothing_red_knew(rules: str) -> None:
    """Red counts blue's pieces from the army the rules show, not from blue's setup: a
    record whose blue army is not the variant's does not tell red so."""
    record = free_setup_game()
    classic = GameRecord(
        record.source,
        variant="classic",
        year=record.year,
        month=record.month,
        setup=record.setup,
        sources=list(record.sources),
        targets=list(record.targets),
    )
    assert_side_cannot_tell(classic, with_piece(classic, "K7", "X"), rules)


@pytest.mark.parametrize("variant", ["classic", "classicfree"])
def test_silent_defense_a_piece_taken_unidentified_changes_nothing_red_knew(variant: str) -> None:
    """Red's marshal takes blue's piece on A7 under silent defense: red saw a blue piece go,
    not its rank. A sergeant or a lieutenant there: red's view is the same."""
    record = free_setup_game()
    record = with_piece(record, "A7", "R")
    record = GameRecord(
        record.source,
        variant=variant,
        year=record.year,
        month=record.month,
        setup=record.setup,
        sources=list(record.sources),
        targets=list(record.targets),
    )
    assert_side_cannot_tell(record, with_piece(record, "A7", "S"), "auto+silent")
    view = side_view(record, "auto+silent")
    assert view["their_lost"][-1] == ([0] * 12, 1)  # one blue piece gone, rank unknown
    assert view["page_their_lost"][-1] == ([0] * 12, 1)


@pytest.mark.parametrize("rules", ["auto", "auto+silent"])
def test_blues_view_the_same_for_a_red_piece_blue_never_met(rules: str) -> None:
    """The mirror case: red's miner on K1 never moves and is never attacked; made a
    marshal, nothing of blue's view moves."""
    record = free_setup_game()
    assert_side_cannot_tell(record, with_piece(record, "K1", "L"), rules, Side.BLUE)
