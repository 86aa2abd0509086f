"""The shipped learned belief model (``belief-v1``): its files and its NumPy inference.

A small network over each unidentified piece's inputs
(:func:`~strat_tools.benchmark.belief_inputs.piece_inputs`: where it started, where it
stands, how it has moved, its neighbours, the kinds left): two hidden layers of
``hidden`` ReLU units and 12 logits, to which ``log unseen[k]`` is added; the belief is
their softmax over the kinds the piece may be
(:func:`~strat_tools.engine.information.beliefs.model_beliefs` renormalises it over them).

A model is ``NAME.npz`` (float32 arrays, :func:`weight_shapes`) and ``NAME.json`` (its
card: the architecture, the inputs' version, the SHA-256 of the ``.npz``, the provenance
of :data:`~strat_tools.benchmark.model_files.PROVENANCE`), written and read back through
:mod:`~strat_tools.benchmark.model_files` as the human-move model's are; :func:`load_belief_model`
checks every field of both. :class:`LearnedBelief` is the
:class:`~strat_tools.engine.information.beliefs.BeliefModel`: NumPy only, no PyTorch.

>>> weight_shapes(64)["l1.weight"], weight_shapes(64)["out.bias"]
((64, 97), (12,))
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.benchmark.belief_inputs import INPUT_FIELDS, INPUTS_VERSION, WIDTH, piece_inputs
from strat_tools.benchmark.model_files import (
    check_arrays,
    check_card_head,
    check_trained,
    model_bytes,
    read_arrays,
    read_model_files,
    submission_card,
    write_model_files,
)
from strat_tools.core.errors import InputError
from strat_tools.engine.information.beliefs import BELIEF_KINDS

__all__ = [
    "KIND",
    "SHIPPED",
    "BeliefNetwork",
    "LearnedBelief",
    "belief_logits",
    "load_belief_model",
    "save_belief_model",
    "weight_shapes",
]

KIND: Final = "strat-tools belief model"
"""The ``kind`` of a belief model card."""
SHIPPED: Final = "belief-v1"
"""The shipped model's name (``strat_tools/benchmark/data/belief-v1.npz`` and ``.json``)."""
KINDS: Final = len(BELIEF_KINDS)


def weight_shapes(hidden: int) -> dict[str, tuple[int, ...]]:
    """Every array of a belief model file and its shape."""
    return {
        "l1.weight": (hidden, WIDTH),
        "l1.bias": (hidden,),
        "l2.weight": (hidden, hidden),
        "l2.bias": (hidden,),
        "out.weight": (KINDS, hidden),
        "out.bias": (KINDS,),
    }


@dataclass(frozen=True)
class BeliefNetwork:
    """A belief model's weights (float32, by name) and its card."""

    weights: dict[str, npt.NDArray[np.float32]]
    card: dict[str, Any]

    @property
    def hidden(self) -> int:
        return int(self.card["hidden"])


def belief_logits(net: BeliefNetwork, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The 12 logits ``[m, 12]`` of inputs ``x`` ``[m, WIDTH]`` (before ``log unseen``)."""
    w = net.weights
    first: npt.NDArray[np.float32] = np.maximum(x @ w["l1.weight"].T + w["l1.bias"], 0.0)
    second: npt.NDArray[np.float32] = np.maximum(first @ w["l2.weight"].T + w["l2.bias"], 0.0)
    out: npt.NDArray[np.float32] = second @ w["out.weight"].T + w["out.bias"]
    return out


class LearnedBelief:
    """A learned belief model as a :class:`~strat_tools.engine.information.beliefs.BeliefModel`."""

    fields: tuple[str, ...] = INPUT_FIELDS

    def __init__(self, net: BeliefNetwork) -> None:
        self.net = net
        self.name = str(net.card["name"])

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        """``[n, 100, 12]``: each unidentified piece's log-softmax over the kinds it may be
        (0 on the other squares, which nothing reads)."""
        n = len(batch["board_view"])
        found = np.zeros((n, 100, KINDS), np.float64)
        pieces = piece_inputs(batch)
        if not len(pieces.row):
            return found
        logits = belief_logits(self.net, pieces.x).astype(np.float64) + pieces.offset
        top = logits.max(axis=1, keepdims=True)
        with np.errstate(under="ignore"):
            total = np.log(np.exp(logits - top).sum(axis=1, keepdims=True))
        found[pieces.row, pieces.square] = logits - top - total
        return found

    def card(self) -> dict[str, Any]:
        """The submission card: the model, its size and its training data."""
        about = self.net.card["provenance"]
        return submission_card(self.name, self.net.card, f"{about['rows_seen']:,} pieces seen")


def _need(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise InputError(f"{where} is not a belief model: {what}")


def _check_card(card: Any, where: str) -> None:
    check_card_head(card, where, _need, KIND, ("hidden", "parameters"), INPUTS_VERSION)
    _need(1 <= card["hidden"] <= 4096, where, "its size")
    _need(card.get("kinds") == list(BELIEF_KINDS), where, "the kinds or their order")
    check_trained(card.get("provenance"), where, _need)


def _checked(arrays: Mapping[str, Any], card: dict[str, Any], where: str) -> BeliefNetwork:
    shapes = weight_shapes(card["hidden"])
    weights = check_arrays(arrays, shapes, where, _need)
    count = sum(int(np.prod(shape)) for shape in shapes.values())
    _need(card["parameters"] == count, where, f"parameters is not {count}")
    return BeliefNetwork(weights, card)


def load_belief_model(path: str | os.PathLike[str] | None = None) -> BeliefNetwork:
    """A belief model from ``PATH.npz`` and ``PATH.json`` (None: the shipped
    ``belief-v1``), every field of both checked; :class:`InputError` names what is wrong."""
    raw, card, where = read_model_files(path, SHIPPED, "belief model")
    _check_card(card, where)
    return _checked(read_arrays(raw, card["weights_sha256"], where, _need), card, where)


def save_belief_model(
    weights: Mapping[str, npt.ArrayLike], card: Mapping[str, Any], path: str | os.PathLike[str]
) -> BeliefNetwork:
    """Write ``PATH.npz`` and ``PATH.json`` (atomically); ``card`` without ``kind``,
    ``kinds``, ``inputs_version``, ``parameters`` and ``weights_sha256``, which this adds.
    The written model is read back and checked."""
    import hashlib

    stem = os.fspath(path).removesuffix(".npz")
    arrays, raw = model_bytes(weights)
    full = {
        "kind": KIND,
        **card,
        "kinds": list(BELIEF_KINDS),
        "inputs_version": INPUTS_VERSION,
        "parameters": sum(int(a.size) for a in arrays.values()),
        "weights_sha256": hashlib.sha256(raw).hexdigest(),
    }
    _check_card(full, stem)
    _checked(arrays, full, stem)
    write_model_files(raw, full, stem)
    return load_belief_model(stem)
