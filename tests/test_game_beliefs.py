"""A belief model over every ply of one game (``benchmark/game_beliefs.py``) and the
marshal's secrecy it measures (``benchmark/hidden_values.py``): the beliefs read only what
the mover knew (two hidden pieces swapped: the same beliefs, other truths), each entry's
true kind is the board's, and a marshal's belief is the opponent's at the right turn."""

from __future__ import annotations

import dataclasses
import zipfile
from pathlib import Path

import numpy as np
import pytest

from strat_tools.benchmark.game_beliefs import game_beliefs
from strat_tools.benchmark.hidden_values import marshal_beliefs, marshal_secrecy
from strat_tools.benchmark.policies import load
from strat_tools.core.errors import UsageError
from strat_tools.engine.information.beliefs import BELIEF_KINDS, BeliefModel
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import parse_record, read_records

REPO = Path(__file__).resolve().parent.parent
SHORT = REPO / "tests" / "fixtures" / "gravon" / "classic-2014.4-17.xml"
SAMPLE = REPO / "data" / "strados2026-10.zip"
# Blue's back rows of the 3-ply fixture, from blue's seat (square 99 first):
#   square  99 98 97 ...
#   letter   Q  N  P ...      (Gravon's blue letters: Q a miner, N a scout)
# Neither moves in the game's 3 plies: swapping them changes the hidden truth and nothing
# red could know.
MINER_SQUARE, SCOUT_SQUARE = 99, 98


@pytest.fixture(scope="module")
def prior() -> BeliefModel:
    model = load("belief-prior")
    assert isinstance(model, BeliefModel)
    return model


def test_red_s_beliefs_do_not_see_two_hidden_blue_pieces_swapped(prior: BeliefModel) -> None:
    (record,) = read_records(SHORT)
    setup = list(record.setup)
    assert setup[MINER_SQUARE] != setup[SCOUT_SQUARE]
    setup[MINER_SQUARE], setup[SCOUT_SQUARE] = setup[SCOUT_SQUARE], setup[MINER_SQUARE]
    swapped = dataclasses.replace(record, setup=tuple(setup))
    for model in (None, prior):
        one, two = game_beliefs(replay(record), model), game_beliefs(replay(swapped), model)
        assert one is not None and two is not None
        red = ~one.blue
        assert np.array_equal(one.probs[red], two.probs[red])
        assert not np.array_equal(one.truth[red], two.truth[red])  # the truth did change
        at = red & (one.square == MINER_SQUARE)
        assert [BELIEF_KINDS[k] for k in one.truth[at]] == ["miner", "miner"]
        assert [BELIEF_KINDS[k] for k in two.truth[at]] == ["scout", "scout"]


def test_each_entry_is_a_belief_over_the_kinds_left(prior: BeliefModel) -> None:
    (record,) = read_records(SHORT)
    beliefs = game_beliefs(replay(record), prior)
    assert beliefs is not None and beliefs.model == "belief-prior"
    assert np.allclose(beliefs.probs.sum(axis=1), 1.0)
    assert (beliefs.true_probs() > 0).all()
    assert sorted(set(beliefs.ply.tolist())) == [1, 2, 3]
    assert (beliefs.square[~beliefs.blue] >= 50).all()  # red's rows: blue's pieces (one on F6)


def test_a_marshal_s_belief_is_the_opponent_s_before_its_first_battle(tmp_path: Path) -> None:
    with zipfile.ZipFile(SAMPLE) as archive:
        name = "classic-2026.10-1.xml"
        (tmp_path / name).write_bytes(archive.read(name))
        record = parse_record(archive.read(name), name)
    rows = marshal_beliefs(tmp_path, model="belief-prior", run=1)
    rows = rows[rows["game_id"] == record.game_id].set_index("side")
    model = load("belief-prior")
    assert isinstance(model, BeliefModel)
    beliefs = game_beliefs(replay(record), model)
    assert beliefs is not None
    for side, blue_believes in (("red", True), ("blue", False)):
        row = rows.loc[side]
        ply = int(row["battle_ply"])
        # it attacked at ply: the opponent's last turn was the ply before
        assert row["role"] == "attacked"
        at = (beliefs.blue == blue_believes) & (beliefs.truth == BELIEF_KINDS.index("marshal"))
        at &= beliefs.ply == ply - 1
        assert at.sum() == 1
        assert row["belief"] == pytest.approx(beliefs.probs[at, BELIEF_KINDS.index("marshal")][0])
    table = marshal_secrecy(rows.reset_index())
    assert table["marshals"].sum() == 2


def test_a_move_policy_is_no_belief_model() -> None:
    with pytest.raises(UsageError, match="not a belief model"):
        marshal_beliefs(SHORT, model="human-v1", run=1)


def test_values_prints_the_marshals_by_belief_and_refuses_other_jobs(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    with zipfile.ZipFile(SAMPLE) as archive:
        for name in ("classic-2026.10-1.xml", "classic-2026.10-2.xml"):
            (tmp_path / name).write_bytes(archive.read(name))
    runner = CliRunner()
    args = ["values", str(tmp_path), "--secrecy", "--belief-model", "belief-prior"]
    done = runner.invoke(main, [*args, "-j", "1", "--format", "csv"])
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines()[0].startswith("role,belief,marshals,mean_belief")
    lone = runner.invoke(main, ["values", str(tmp_path), "--belief-model", "belief-prior"])
    assert lone.exit_code == 2 and lone.stdout == ""
    wrong = runner.invoke(main, ["values", str(tmp_path), "--secrecy", "--belief-model", "x"])
    assert wrong.exit_code == 2 and wrong.stdout == ""
