"""The registry of shipped models (``benchmark/policies.py``): every name loads a model of
its task, the command line offers exactly those names, and a wrong name or a file given to
a model that takes none is a usage error."""

from __future__ import annotations

import pytest

import strat_tools as st
from strat_tools.benchmark.policies import DEFAULTS, TASKS, load, names, task_of
from strat_tools.cli.bench_score import BELIEF_POLICY_NAMES, POLICY_NAMES
from strat_tools.core.errors import UsageError
from strat_tools.engine.information.beliefs import BeliefModel
from strat_tools.engine.information.move_policy import MovePolicy


@pytest.mark.parametrize("name", names())
def test_every_shipped_name_loads_a_model_of_its_task(name: str) -> None:
    model = load(name)
    assert model.name == name
    kind = MovePolicy if task_of(name) == "move" else BeliefModel
    assert isinstance(model, kind)


def test_the_command_line_offers_the_registry_s_names() -> None:
    assert TASKS["move"] == POLICY_NAMES and TASKS["belief"] == BELIEF_POLICY_NAMES
    assert all(DEFAULTS[task] in TASKS[task] for task in TASKS)


def test_the_face_reaches_the_registry() -> None:
    assert st.policies.load is load


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: load("human-v9"), "unknown model 'human-v9'"),
        (lambda: load("uniform", "x.npz"), "a model file is for a human-move policy"),
        (lambda: names("play"), "unknown task 'play'"),  # type: ignore[arg-type]
    ],
)
def test_a_wrong_name_is_a_usage_error(call: object, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        call()  # type: ignore[operator]
