"""The belief task's shipped baselines: the counts left, and a setup prior by square.

- ``belief-counts`` (:class:`CountsLeftBelief`): every unidentified piece the same
  distribution, the opponent's pieces not yet identified (``unseen``) in proportion, a
  piece seen moving never a bomb or the flag (Ataraxos' ``uniform_belief``;
  :func:`~strat_tools.engine.information.beliefs.counts_left`, the engine's own, which
  ``Position.beliefs()`` gives without a model).
- ``belief-prior`` (:class:`SetupPriorBelief`): a piece never seen moving stands on its
  setup square, so its belief is the setup prior of that square, learned from train's
  setups: ``prior[s, k]``, with ``s`` the square in its owner's view (0 = the owner's back
  row's left end: the mover's view square ``v`` is the owner's ``99 - v``), is
  ``(count[s, k] + a * army[k] / 40) / (setups + a)`` (``count``: train's setups, red's
  and blue's, each in its owner's view, with a piece of kind ``k`` on ``s``; ``a =``
  :data:`PRIOR_SMOOTHING` pseudo-setups of the army spread evenly); at each ply it is
  weighted by the share of each kind not yet identified, ``w[k] = prior[s, k] * unseen[k]
  / army[k]``, and normalised over the kinds the piece may be. A piece seen moving is no
  longer on its setup square: it gets the counts left (bomb and flag excluded).

The prior is fitted on train only (:func:`fit_belief_prior`) and ships as
``benchmark/data/belief_prior.json`` (480 counts) with its provenance;
:func:`load_belief_prior` checks every field when reading one back. Both read only
``board_view`` and ``unseen``, so ``Position.beliefs(model=...)`` takes them as they are.

>>> [m.name for m in belief_baselines()]  # belief-v1 is belief_by_name's too
['belief-counts', 'belief-prior']
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.metadata import version as package_version
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.benchmark.belief_model import LearnedBelief, load_belief_model
from strat_tools.benchmark.bench_folder import (
    BenchFolder,
    iter_split_rows,
    open_bench,
    split_export,
)
from strat_tools.benchmark.definition import NAME, VERSION
from strat_tools.core.errors import InputError, UsageError
from strat_tools.core.pieces import ARMIES
from strat_tools.engine.information.beliefs import (
    BASE_FIELDS,
    BELIEF_KINDS,
    counts_left,
    unidentified,
)
from strat_tools.engine.information.planes import KIND_BITS, OPPONENT
from strat_tools.io.output import write_file_atomically
from strat_tools.io.own_files import FieldError, load_json_or_shipped

__all__ = [
    "BELIEF_POLICIES",
    "PRIOR_SMOOTHING",
    "SHIPPED_PRIOR",
    "BeliefPrior",
    "CountsLeftBelief",
    "SetupPriorBelief",
    "belief_baselines",
    "belief_by_name",
    "fit_belief_prior",
    "load_belief_prior",
    "save_belief_prior",
]

BELIEF_POLICIES: Final = ("belief-counts", "belief-prior", "belief-v1")
"""The shipped belief models' names: the two baselines and the learned model
(:mod:`~strat_tools.benchmark.belief_model`)."""
SHIPPED_PRIOR: Final = "belief_prior.json"
MAX_OWN_BYTES: Final = 1 << 24
"""A belief prior is a few kilobytes; a file over 16 MiB is refused unread."""
"""The shipped setup prior, in ``strat_tools/benchmark/data/``."""
PRIOR_SMOOTHING: Final = 1.0
"""Pseudo-setups (the army spread evenly over the 40 squares) added to the counts."""
SETUP_SQUARES: Final = 40
"""A setup's squares in its owner's view: 0 .. 39."""
ARMY: Final = np.array(ARMIES["classic"], dtype=np.float64)
"""The classic army, per kind (6 bombs, 1 spy, 8 scouts, ..., 1 flag)."""
PROVENANCE: Final = ("benchmark", "version", "split", "months", "games", "setups", "strat_tools")
"""The provenance a shipped prior carries."""
KIND_TAG: Final = "strat-tools belief setup prior"


def _card(name: str, parameters: int, about: Mapping[str, Any] | None) -> dict[str, Any]:
    return {
        "model": name,
        "parameters": parameters,
        "training_data": "none"
        if about is None
        else f"{about['benchmark']} {about['split']}: {about['games']:,} games, "
        f"{about['setups']:,} setups",
        "training_months": [] if about is None else list(about["months"]),
        "external_data": "none",
        "compute": "none" if about is None else "one pass over train's first plies",
        "seed": None,
        "trained_on_val": False,
    }


class CountsLeftBelief:
    """``belief-counts``: the counts left
    (:func:`~strat_tools.engine.information.beliefs.counts_left`)."""

    name = "belief-counts"
    fields: tuple[str, ...] = BASE_FIELDS

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        """``log`` of the counts left (-inf where a kind has no mass)."""
        with np.errstate(divide="ignore"):
            out: npt.NDArray[np.float64] = np.log(counts_left(batch["board_view"], batch["unseen"]))
        return out

    def card(self) -> dict[str, Any]:
        """No parameters, no data (the army and what the mover has identified)."""
        return _card(self.name, 0, None)


@dataclass(frozen=True)
class BeliefPrior:
    """Train's setups counted: per square of a setup in its owner's view (0 .. 39) and kind,
    how many setups had a piece of that kind there; and where the counts come from."""

    counts: npt.NDArray[np.int64]
    provenance: dict[str, Any] = field(default_factory=dict)

    def probabilities(self) -> npt.NDArray[np.float64]:
        """``[40, 12]``: the smoothed prior of each square."""
        setups = self.counts.sum(axis=1, keepdims=True)
        even = PRIOR_SMOOTHING * ARMY[None, :] / SETUP_SQUARES
        prior: npt.NDArray[np.float64] = (self.counts + even) / (setups + PRIOR_SMOOTHING)
        return prior

    def to_json(self) -> dict[str, Any]:
        """The prior as JSON."""
        return {
            "kind": KIND_TAG,
            "kinds": list(BELIEF_KINDS),
            "smoothing": PRIOR_SMOOTHING,
            "counts": self.counts.tolist(),
            "provenance": self.provenance,
        }


class SetupPriorBelief:
    """``belief-prior``: the setup prior by square for a piece never seen moving, the
    counts left for one seen moving (the module's docstring)."""

    name = "belief-prior"
    fields: tuple[str, ...] = BASE_FIELDS

    def __init__(self, prior: BeliefPrior) -> None:
        self.prior = prior
        self._by_view = np.ones((100, len(BELIEF_KINDS)))  # the mover's view square v
        self._by_view[100 - SETUP_SQUARES :] = prior.probabilities()[::-1]  # owner's 99 - v

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        """Log weights ``[n, 100, 12]`` (normalised over the allowed kinds by the caller)."""
        view, unseen = batch["board_view"], np.asarray(batch["unseen"], np.float64)
        _, moved = unidentified(view)
        share = unseen / ARMY
        weights = self._by_view[None, :, :] * share[:, None, :]
        weights = np.where(moved[:, :, None], counts_left(view, unseen), weights)
        with np.errstate(divide="ignore"):
            out: npt.NDArray[np.float64] = np.log(weights)
        return out

    def card(self) -> dict[str, Any]:
        """The prior's provenance as a submission card."""
        return _card(self.name, int(self.prior.counts.size), self.prior.provenance)


def fit_belief_prior(bench: str | os.PathLike[str] | BenchFolder) -> BeliefPrior:
    """The setup prior counted over train's setups (both of each game's, from the ``board``
    label of its first ply: the mover's own pieces and the opponent's, each turned into its
    owner's view), with its provenance."""
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    counts = np.zeros((SETUP_SQUARES, len(BELIEF_KINDS)), np.int64)
    games: set[str] = set()
    for shard in iter_split_rows(split_export(folder, "train"), ["game_id", "ply", "board"]):
        first = shard.filter(np.asarray(shard.column("ply").to_numpy() == 1))
        if not first.num_rows:
            continue
        games.update(first.column("game_id").to_pylist())
        column = first.column("board").combine_chunks()
        board = np.frombuffer(column.buffers()[1], np.uint8)[
            column.offset * 100 : (column.offset + len(column)) * 100
        ].reshape(-1, 100)
        own = board[:, :SETUP_SQUARES]  # the mover's own setup, already in its view
        theirs = board[:, ::-1][:, :SETUP_SQUARES]  # the opponent's, turned: 99 - v
        for part, opponent in ((own, False), (theirs, True)):
            if not (((part & OPPONENT) != 0) == opponent).all():
                raise InputError("a first ply's board is not two setups in their halves")
            kind = (part & KIND_BITS).astype(np.int64) - 1
            if (kind < 0).any() or (kind > 11).any():
                raise InputError("a first ply's setup has a square without a piece")
            np.add.at(counts, (np.broadcast_to(np.arange(SETUP_SQUARES), kind.shape), kind), 1)
    about = {
        "benchmark": NAME,
        "version": VERSION,
        "split": "train",
        "months": folder.months("train"),
        "games": len(games),
        "setups": 2 * len(games),
        "strat_tools": package_version("strat-tools"),
    }
    return BeliefPrior(counts, about)


def save_belief_prior(prior: BeliefPrior, path: str | os.PathLike[str]) -> None:
    """Write the prior as one JSON file (atomically)."""
    write_file_atomically(path, (json.dumps(prior.to_json(), indent=1) + "\n").encode())


def _need(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise InputError(f"{where} is not a belief setup prior: {what}")


def load_belief_prior(path: str | os.PathLike[str] | None = None) -> BeliefPrior:
    """A setup prior from a file (None: the shipped one), every field checked."""
    where = "the shipped belief prior" if path is None else os.fspath(path)
    shipped = resources.files("strat_tools.benchmark").joinpath("data", SHIPPED_PRIOR)
    try:  # a file of ours read back as every input is: regular, bounded, strict JSON
        mine = None if path is None else os.fspath(path)
        data = load_json_or_shipped(mine, shipped, limit=MAX_OWN_BYTES)
    except FieldError as exc:
        raise InputError(f"cannot read the belief prior {where}: {exc}") from None
    _need(isinstance(data, dict) and data.get("kind") == KIND_TAG, where, "kind")
    _need(data.get("kinds") == list(BELIEF_KINDS), where, "the kinds or their order")
    _need(data.get("smoothing") == PRIOR_SMOOTHING, where, "another smoothing")
    rows = data.get("counts")
    _need(isinstance(rows, list) and len(rows) == SETUP_SQUARES, where, "not 40 squares")
    for row in rows:
        _need(isinstance(row, list) and len(row) == len(BELIEF_KINDS), where, "not 12 kinds")
        _need(
            all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in row),
            where,
            "a value that is not a count",
        )
    counts = np.array(rows, dtype=np.int64)
    about = data.get("provenance")
    _need(isinstance(about, dict) and set(PROVENANCE) <= set(about), where, "no provenance")
    _need(
        about["benchmark"] == NAME and about["version"] == VERSION and about["split"] == "train",
        where,
        f"not counted on {NAME} train",
    )
    _need(isinstance(about["strat_tools"], str), where, "no strat-tools version")
    _need(isinstance(about["months"], list) and bool(about["months"]), where, "no months")
    for count in ("games", "setups"):
        _need(isinstance(about[count], int) and about[count] > 0, where, f"no count of {count}")
    setups = about["setups"]
    _need(setups == 2 * about["games"], where, "setups are not two a game")
    _need(bool((counts.sum(axis=1) == setups).all()), where, "a square not counted once a setup")
    _need(
        bool((counts.sum(axis=0) == setups * ARMY.astype(np.int64)).all()),
        where,
        "the kinds are not the classic army once a setup",
    )
    return BeliefPrior(counts, about)


def belief_baselines() -> list[CountsLeftBelief | SetupPriorBelief]:
    """The shipped belief baselines: the counts left and the setup prior fitted on train."""
    return [CountsLeftBelief(), SetupPriorBelief(load_belief_prior())]


def belief_by_name(
    name: str, path: str | os.PathLike[str] | None = None
) -> CountsLeftBelief | SetupPriorBelief | LearnedBelief:
    """A shipped belief model by name (:data:`BELIEF_POLICIES`); ``path`` a file to use
    instead of the shipped one: a prior for ``belief-prior``, ``MODEL.npz`` (with its
    card) for ``belief-v1``."""
    if name not in BELIEF_POLICIES:
        raise UsageError(
            f"unknown belief policy {name!r} (the shipped ones: {', '.join(BELIEF_POLICIES)})",
            option="policy",
        )
    if name == "belief-counts":
        if path is not None:
            raise UsageError("belief-counts reads no file", option="policy")
        return CountsLeftBelief()
    if name == "belief-v1":
        return LearnedBelief(load_belief_model(path))
    return SetupPriorBelief(load_belief_prior(path))
