"""The one registry of the shipped models, by name: the move policies of task 1 and the
belief models of task 2 of the benchmark of human play (``docs/benchmark.md``).

In a notebook::

    import strat_tools as st
    human = st.policies.load("human-v1")        # a MovePolicy, NumPy inference
    prior = st.policies.load("belief-prior")    # a BeliefModel
    beliefs = st.policies.load("belief-v1")     # the learned one, NumPy inference
    st.policies.names("belief")                 # what bench predict --task belief takes

:func:`load` is the one way from a name to a model: ``bench predict --policy``, the
``Position`` API's default models and the viewer all go through it, so a model shipped
here is usable everywhere at once. A user's own model needs no registration: anything that
implements :class:`~strat_tools.engine.information.move_policy.MovePolicy` (or
:class:`~strat_tools.engine.information.beliefs.BeliefModel`) is passed in directly.

>>> names("move")
('uniform', 'counts', 'counts-last', 'human-v1', 'human-v2', 'human-v3')
>>> task_of("belief-prior"), DEFAULTS["move"]
('belief', 'human-v3')
"""

from __future__ import annotations

import functools
import os
from typing import Final, Literal

from strat_tools.benchmark.baselines import POLICIES, policy_by_name
from strat_tools.benchmark.belief_baselines import BELIEF_POLICIES, belief_by_name
from strat_tools.core.errors import UsageError
from strat_tools.engine.information.beliefs import BeliefModel
from strat_tools.engine.information.move_policy import MovePolicy

__all__ = ["DEFAULTS", "TASKS", "Task", "chosen", "load", "loaded", "names", "task_of"]

Task = Literal["move", "belief"]
TASKS: Final[dict[Task, tuple[str, ...]]] = {"move": POLICIES, "belief": BELIEF_POLICIES}
"""Each task's shipped models, in the order the docs list them (baselines first)."""
DEFAULTS: Final[dict[Task, str]] = {"move": "human-v3", "belief": "belief-v1"}
"""The model a caller gets when it names none: the best shipped one of each task on the
benchmark's val split, which chose it (its test scores: ``docs/benchmark.md``)."""


def names(task: Task | None = None) -> tuple[str, ...]:
    """The shipped models of ``task`` (None: of both tasks)."""
    if task is None:
        return TASKS["move"] + TASKS["belief"]
    if task not in TASKS:
        raise UsageError(f"unknown task {task!r} (move or belief)", option="task")
    return TASKS[task]


def task_of(name: str) -> Task:
    """The task a shipped model is for."""
    for task, known in TASKS.items():
        if name in known:
            return task
    raise UsageError(
        f"unknown model {name!r} (the shipped ones: {', '.join(names())})", option="policy"
    )


def load(name: str, path: str | os.PathLike[str] | None = None) -> MovePolicy | BeliefModel:
    """The shipped model ``name``; ``path`` a file of the same kind to load instead of the
    shipped one (count tables for ``counts``/``counts-last``, ``MODEL.npz`` with its card
    for a trained model, ``human-v1`` .. ``human-v3`` or ``belief-v1``; a prior for
    ``belief-prior``), every field checked."""
    if task_of(name) == "belief":
        return belief_by_name(name, path)
    if name in ("counts", "counts-last"):
        return policy_by_name(name, counts=path)
    return policy_by_name(name, model=path)


_NAMED: Final[dict[Task, str]] = {"move": "move policy", "belief": "belief model"}


def chosen(task: Task, name: str | None = None, option: str = "policy") -> str:
    """``name`` (None: ``DEFAULTS[task]``) checked, before any work, to be a shipped model
    of ``task``: a usage error naming ``option`` for an unknown name or another task's.

    >>> chosen("move"), chosen("belief", "belief-prior")
    ('human-v3', 'belief-prior')
    """
    picked = DEFAULTS[task] if name is None else name
    found = task_of(picked)
    if found != task:
        raise UsageError(f"{picked!r} is a {_NAMED[found]}, not a {_NAMED[task]}", option=option)
    return picked


@functools.lru_cache(maxsize=8)
def loaded(name: str) -> MovePolicy | BeliefModel:
    """The shipped model ``name`` (:func:`load`), loaded once a process: a worker running
    a model over game after game reads its file once."""
    return load(name)
