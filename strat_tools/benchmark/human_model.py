"""The shipped human-move model (``human-v1``): its weights file and its NumPy inference.

A small residual convolutional network over the 10 x 10 board (docs/human-model.md):

- a stem: a 3 x 3 convolution of the input planes
  (:func:`~strat_tools.benchmark.human_inputs.model_inputs`) plus a linear map of the
  input scalars added to every square, then ReLU;
- ``blocks`` residual blocks, ``h = relu(h + conv(relu(conv(h))))`` (3 x 3, ``channels``
  wide);
- a policy head: a 1 x 1 convolution to 36 logits a square, the moves from that square
  (4 directions x 9 distances, the action head's order), and one learned logit for any move
  that is not a straight line; a row's log-probabilities are the log-softmax of its legal
  moves' logits.

A model file is ``NAME.npz`` (float32 arrays, :func:`weight_shapes`) and ``NAME.json``
(its card: the architecture, the inputs' version, the SHA-256 of the ``.npz`` and the
provenance, :data:`~strat_tools.benchmark.model_files.PROVENANCE`), written and read back
through :mod:`~strat_tools.benchmark.model_files`; :func:`load_model` checks every field of
both.
:class:`HumanPolicy` is the :class:`~strat_tools.benchmark.policy.MovePolicy` that
``bench predict --policy human-v1`` runs: NumPy only, no PyTorch.

>>> shapes = weight_shapes(8, 1)
>>> shapes["stem.weight"], shapes["head.weight"], shapes["other"]
((8, 40, 3, 3), (36, 8), (1,))
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.benchmark.human_inputs import (
    INPUT_FIELDS,
    INPUTS_VERSION,
    PLANES,
    SCALARS,
    legal_heads,
    mirrored,
    model_inputs,
)
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

__all__ = [
    "KIND",
    "SHIPPED",
    "SHIPPED_MODELS",
    "HumanModel",
    "HumanPolicy",
    "forward",
    "load_model",
    "save_model",
    "weight_shapes",
]

KIND: Final = "strat-tools human-move model"
"""The ``kind`` of a model card."""
SHIPPED_MODELS: Final = ("human-v1", "human-v2", "human-v3")
"""The shipped models' names (``strat_tools/benchmark/data/NAME.npz`` and ``.json``):
``human-v1``, the first (32 channels, 3 blocks), ``human-v2``, larger and trained longer,
and ``human-v3``, ``human-v2`` trained further and averaged over the mirror image
(docs/human-model.md); the registry's default is the best on val."""
SHIPPED: Final = SHIPPED_MODELS[0]
"""The model :func:`load_model` loads when given neither a file nor a name."""
CHUNK: Final = 64
"""Rows the NumPy forward pass works on at a time."""
SLICE: Final = 4096
"""Rows whose inputs :class:`HumanPolicy` makes at a time."""
HEAD_MOVES: Final = 36
"""Logits a square: 4 directions x 9 distances."""
CARD_FIELDS: Final = ("kind", "name", "channels", "blocks", "inputs_version", "parameters")


def weight_shapes(channels: int, blocks: int) -> dict[str, tuple[int, ...]]:
    """Every array of a model file and its shape."""
    shapes: dict[str, tuple[int, ...]] = {
        "stem.weight": (channels, PLANES, 3, 3),
        "stem.bias": (channels,),
        "scalars.weight": (channels, SCALARS),
    }
    for block in range(blocks):
        for conv in ("conv1", "conv2"):
            shapes[f"block{block}.{conv}.weight"] = (channels, channels, 3, 3)
            shapes[f"block{block}.{conv}.bias"] = (channels,)
    shapes["head.weight"] = (HEAD_MOVES, channels)
    shapes["head.bias"] = (HEAD_MOVES,)
    shapes["other"] = (1,)
    return shapes


@dataclass(frozen=True)
class HumanModel:
    """A model's weights (float32, by name) and its card."""

    weights: dict[str, npt.NDArray[np.float32]]
    card: dict[str, Any]

    @property
    def channels(self) -> int:
        return int(self.card["channels"])

    @property
    def blocks(self) -> int:
        return int(self.card["blocks"])

    @property
    def mirror_average(self) -> bool:
        """Whether the model's probabilities are the mean of the network's over the
        position and its mirror image (``mirror_average`` on the card; absent: no)."""
        return bool(self.card.get("mirror_average", False))


def _conv3(
    x: npt.NDArray[np.float32], weight: npt.NDArray[np.float32], bias: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """A 3 x 3 convolution, zero padding 1, of ``x`` ``[n, 10, 10, c]`` (channels last):
    the nine shifted boards side by side, times the weights as one matrix."""
    n, _h, _w, c = x.shape
    padded = np.zeros((n, 12, 12, c), dtype=np.float32)
    padded[:, 1:11, 1:11] = x
    patches = np.empty((n, 10, 10, 9, c), dtype=np.float32)
    for dy in range(3):
        for dx in range(3):
            patches[:, :, :, dy * 3 + dx] = padded[:, dy : dy + 10, dx : dx + 10]
    matrix = weight.transpose(2, 3, 1, 0).reshape(9 * c, -1)
    out: npt.NDArray[np.float32] = patches.reshape(n * 100, 9 * c) @ matrix
    out += bias
    return out.reshape(n, 10, 10, -1)


def forward(
    model: HumanModel, planes: npt.NDArray[np.float32], scalars: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """The logits ``[n, HEAD_COUNT + 1]`` of the inputs (the action head's, then the one
    for any other move), :data:`CHUNK` rows at a time (so each layer's work stays in the
    processor's cache)."""
    n = planes.shape[0]
    logits = np.empty((n, 100 * HEAD_MOVES + 1), dtype=np.float32)
    logits[:, -1] = model.weights["other"][0]
    for start in range(0, n, CHUNK):
        rows = slice(start, start + CHUNK)
        logits[rows, :-1] = _head_logits(model, planes[rows], scalars[rows])
    return logits


def _head_logits(
    model: HumanModel, planes: npt.NDArray[np.float32], scalars: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    w = model.weights
    x = np.ascontiguousarray(planes.transpose(0, 2, 3, 1))
    h = _conv3(x, w["stem.weight"], w["stem.bias"])
    h += (scalars @ w["scalars.weight"].T)[:, None, None, :]
    np.maximum(h, 0.0, out=h)
    for block in range(model.blocks):
        inner = _conv3(h, w[f"block{block}.conv1.weight"], w[f"block{block}.conv1.bias"])
        np.maximum(inner, 0.0, out=inner)
        h += _conv3(inner, w[f"block{block}.conv2.weight"], w[f"block{block}.conv2.bias"])
        np.maximum(h, 0.0, out=h)
    n = h.shape[0]
    found: npt.NDArray[np.float32] = (h.reshape(n * 100, -1) @ w["head.weight"].T).reshape(n, -1)
    found += np.tile(w["head.bias"], 100)
    return found


class HumanPolicy:
    """The human-move model as a :class:`~strat_tools.benchmark.policy.MovePolicy`."""

    fields: tuple[str, ...] = INPUT_FIELDS

    def __init__(self, model: HumanModel) -> None:
        self.model = model
        self.name = str(model.card["name"])

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        """Log-softmax (in float64) of the model's logits over each row's legal moves
        (the inputs made :data:`SLICE` rows at a time: memory stays small whatever the
        batch); a ``mirror_average`` model's the log of the mean of the probabilities of
        the position and of its mirror image."""
        found = self._network_log_probs(batch)
        if self.model.mirror_average:
            other = self._network_log_probs(mirrored(batch))
            with np.errstate(invalid="ignore"):
                found = np.logaddexp(found, other) - np.log(2.0)
        return found

    def _network_log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        ids = np.asarray(batch["legal_ids"])
        chosen = np.empty(ids.shape, dtype=np.float32)
        for start in range(0, len(ids), SLICE):
            rows = slice(start, start + SLICE)
            planes, scalars = model_inputs({name: batch[name][rows] for name in self.fields})
            logits = forward(self.model, planes, scalars)
            chosen[rows] = np.take_along_axis(logits, legal_heads(ids[rows]), axis=1)
        legal = np.arange(ids.shape[1]) < np.asarray(batch["legal_count"])[:, None]
        wide = np.where(legal, chosen.astype(np.float64), -np.inf)
        top = wide.max(axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(under="ignore", divide="ignore"):
            total = np.log(np.exp(wide - top).sum(axis=1, keepdims=True))
        result: npt.NDArray[np.float64] = wide - top - total
        return result

    def card(self) -> dict[str, Any]:
        """The submission card: the model, its size and its training data."""
        about = self.model.card["provenance"]
        return submission_card(self.name, self.model.card, f"{about['rows']:,} rows")


def _need(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise InputError(f"{where} is not a human-move model: {what}")


def _check_card(card: Any, where: str) -> None:
    check_card_head(card, where, _need, KIND, ("channels", "blocks", "parameters"), INPUTS_VERSION)
    _need(1 <= card["channels"] <= 1024 and 0 <= card["blocks"] <= 64, where, "its size")
    _need(isinstance(card.get("mirror_average", False), bool), where, "mirror_average not a bool")
    check_trained(card.get("provenance"), where, _need)


def _check_weights(data: Mapping[str, Any], card: dict[str, Any], where: str) -> dict[str, Any]:
    shapes = weight_shapes(card["channels"], card["blocks"])
    weights = check_arrays(data, shapes, where, _need)
    count = sum(int(np.prod(shape)) for shape in shapes.values())
    _need(card["parameters"] == count, where, f"parameters is not {count}")
    return weights


def load_model(path: str | os.PathLike[str] | None = None, name: str = SHIPPED) -> HumanModel:
    """A model from ``PATH.npz`` and ``PATH.json`` (None: the shipped model ``name``, one
    of :data:`SHIPPED_MODELS`), every field of both checked; :class:`InputError` names
    what is wrong."""
    if name not in SHIPPED_MODELS:
        raise InputError(f"no shipped human-move model {name!r} ({', '.join(SHIPPED_MODELS)})")
    raw, card, where = read_model_files(path, name, "human-move model")
    _check_card(card, where)
    arrays = read_arrays(raw, card["weights_sha256"], where, _need)
    return HumanModel(_check_weights(arrays, card, where), card)


def save_model(
    weights: Mapping[str, npt.ArrayLike],
    card: Mapping[str, Any],
    path: str | os.PathLike[str],
) -> HumanModel:
    """Write ``PATH.npz`` and ``PATH.json`` (atomically); ``card`` without ``kind``,
    ``inputs_version``, ``parameters`` and ``weights_sha256``, which this adds. The written
    model is read back and checked."""
    stem = os.fspath(path).removesuffix(".npz")
    arrays, raw = model_bytes(weights)
    full = {
        "kind": KIND,
        **card,
        "inputs_version": INPUTS_VERSION,
        "parameters": sum(int(a.size) for a in arrays.values()),
        "weights_sha256": hashlib.sha256(raw).hexdigest(),
    }
    _check_card(full, stem)
    _check_weights(arrays, full, stem)
    write_model_files(raw, full, stem)
    return load_model(stem)
