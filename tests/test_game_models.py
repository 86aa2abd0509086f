"""A move policy over every ply of one game (``benchmark/game_models.py``): each ply's
legal moves are the engine's own (its positions, not the observation rows), its
probabilities sum to 1, the move played is the record's, and its rank counts the moves the
model liked better."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from strat_tools.benchmark.game_models import game_move_model
from strat_tools.benchmark.human_model import HumanPolicy, load_model
from strat_tools.core.records import GameRecord
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import positions
from strat_tools.formats.readers import parse_record

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"


def sample_games(count: int) -> list[GameRecord]:
    with zipfile.ZipFile(SAMPLE) as archive:
        names = sorted(archive.namelist())[:count]
        return [parse_record(archive.read(name), name) for name in names]


@pytest.fixture(scope="module")
def human() -> HumanPolicy:
    return HumanPolicy(load_model())


@pytest.mark.parametrize("record", sample_games(3), ids=lambda r: r.game_id)
def test_every_ply_s_moves_are_the_engine_s_and_the_probabilities_add_up(
    record: GameRecord, human: HumanPolicy
) -> None:
    result = replay(record)
    model = game_move_model(result, human)
    assert model is not None and model.plies == result.plies_replayed
    for ply, before in enumerate(positions(record), start=1):
        if ply > model.plies:
            break
        engine = sorted(m.source * 100 + m.target for m in before.legal_moves)
        assert sorted(model.legal(ply).tolist()) == engine, ply
        assert model.probs(ply).sum() == pytest.approx(1.0, abs=1e-9)
        played = record.sources[ply - 1] * 100 + record.targets[ply - 1]
        probs = model.probs(ply)
        at = model.legal(ply).tolist().index(played)
        assert model.played_prob(ply) == pytest.approx(probs[at], rel=1e-12)
        assert model.rank(ply) == 1 + int((probs > probs[at]).sum())


def test_the_most_surprising_moves_are_the_least_likely(human: HumanPolicy) -> None:
    model = game_move_model(replay(sample_games(1)[0]), human)
    assert model is not None
    worst = model.surprising(5)
    chances = np.exp(model.played_log_probs())
    assert [chances[p - 1] for p in worst] == sorted(chances)[:5]
    assert model.top(worst[0], 1)[0][1] >= chances[worst[0] - 1]


def test_surprising_by_side_keeps_that_side_s_moves(human: HumanPolicy) -> None:
    from strat_tools.core.board import Side

    model = game_move_model(replay(sample_games(1)[0]), human)
    assert model is not None
    chances = np.exp(model.played_log_probs())
    for side, first in ((Side.RED, 1), (Side.BLUE, 2)):
        plies = model.surprising(5, side)
        own = sorted(chances[first - 1 :: 2])[:5]
        assert all(p % 2 == first % 2 for p in plies)
        assert [chances[p - 1] for p in plies] == own


@pytest.mark.parametrize("name", ["belief-counts", "belief-prior", "belief-v1"])
def test_game_beliefs_are_each_position_s_beliefs_whoever_is_to_move(name: str) -> None:
    """A side's beliefs at every position of a game are ``known_beliefs`` of the position's
    knowledge for that side (``Position.beliefs`` for the side to move), at red's and at
    blue's turns alike; for a model reading the pieces' histories (belief-v1), with the
    histories of that position's own move stack."""
    from strat_tools.benchmark.game_models import game_beliefs
    from strat_tools.benchmark.policies import load
    from strat_tools.core.board import Side
    from strat_tools.engine.information.beliefs import BELIEF_KINDS, BeliefModel, known_beliefs

    record = sample_games(1)[0]
    result = replay(record)
    model = load(name)
    assert isinstance(model, BeliefModel)
    for side in (Side.RED, Side.BLUE):
        probs = game_beliefs(result, model, side)
        assert probs.shape == (result.plies_replayed + 1, 100, 12)
        for ply, position in enumerate(positions(record)):
            if ply % 25 not in (0, 1):  # a red and a blue turn every 25 plies
                continue
            moves = [(m.source, m.target) for m in position.move_stack]  # belief-v1's history
            expected = known_beliefs(position.knowledge(), side, model, moves)
            assert sorted(expected) == np.flatnonzero(probs[ply].sum(axis=1) > 0).tolist()
            for square, kinds in expected.items():
                # float32 inference, one position against a game's batch: 1e-6 apart at most
                assert probs[ply, square] == pytest.approx(
                    [kinds[k] for k in BELIEF_KINDS], abs=1e-6
                )
