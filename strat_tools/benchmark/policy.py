"""The move-policy protocol: what any model implements to be scored on the benchmark.

A :class:`MovePolicy` is given a batch of observation rows as NumPy arrays (a ``dict``):
``legal_ids`` (int16 ``[n, L]``, each row's legal action ids ascending, padded with -1),
``legal_count`` (int64 ``[n]``) and the truth-free columns it names in ``columns``
(:data:`TRUTH_FREE_COLUMNS`); it returns ``[n, L]`` log-probabilities aligned with
``legal_ids`` (anything at the padding is ignored). A user's own PyTorch or JAX model
implements it with a few lines around its forward pass and plugs into
:func:`strat_tools.benchmark.predict.predict`::

    class MyModel:
        name = "my-net"
        columns = ("board_view", "last_moves")

        def log_probs(self, batch):
            logits = net(torch.from_numpy(batch["board_view"]))  # [n, 10000]
            ids = torch.from_numpy(batch["legal_ids"].clip(0).astype("int64"))
            return torch.log_softmax(logits.gather(1, ids), 1).numpy()  # padding ignored

        def card(self):
            return {"model": "my-net", "parameters": 91_000, ...}

The batch never holds the hidden truth: a policy can only name truth-free columns, and the
observation board is given as ``board_view`` (an opponent piece the mover has not
identified keeps "moved / not moved", never its rank).

>>> import numpy as np
>>> ids, counts = padded_lists(np.array([0, 2, 5]), np.array([3, 7, 1, 4, 8], np.int16))
>>> ids.tolist(), counts.tolist()
([[3, 7, -1], [1, 4, 8]], [2, 3])
>>> flat_values(np.array([[0.1, 0.2, 9.0], [1.0, 2.0, 3.0]]), counts).tolist()
[0.1, 0.2, 1.0, 2.0, 3.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = [
    "TRUTH_FREE_COLUMNS",
    "MovePolicy",
    "flat_values",
    "last_moves_array",
    "padded_lists",
    "row_of_entries",
]

TRUTH_FREE_COLUMNS: Final = (
    "board_view",
    "side",
    "ply",
    "captured",
    "unseen",
    "own_repetition",
    "opponent_repetition",
    "plies_since_battle",
    "last_moves",
)
"""The observation columns a policy may read (besides the legal ids): what the mover knew.
The hidden-truth board (``board``) and the labels (``action``, ``winner``, ``value``) are
never in a batch."""


@runtime_checkable
class MovePolicy(Protocol):
    """A model of the move a player chooses: log-probabilities over each row's legal moves."""

    name: str
    """A short name (``uniform``, ``counts``, ``my-net``)."""
    columns: tuple[str, ...]
    """The truth-free columns it reads (:data:`TRUTH_FREE_COLUMNS`)."""

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.floating[Any]]:
        """``[n, L]`` log-probabilities aligned with ``batch["legal_ids"]`` (padding ignored;
        each row is normalised again over its legal moves before it is written)."""
        ...

    def card(self) -> dict[str, Any]:
        """The submission card's fields (:data:`strat_tools.benchmark.submission.CARD_FIELDS`)."""
        ...


def padded_lists(
    offsets: npt.NDArray[np.integer[Any]], values: npt.NDArray[np.integer[Any]]
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int64]]:
    """A list column's (``offsets``, ``values``) as an int16 ``[n, L]`` array padded with -1
    (``L`` the longest list) and each list's length."""
    offsets = np.asarray(offsets, dtype=np.int64)
    counts = np.diff(offsets)
    width = int(counts.max()) if len(counts) else 0
    out = np.full((len(counts), width), -1, dtype=np.int16)
    out[np.arange(width) < counts[:, None]] = values[offsets[0] : offsets[-1]]
    return out, counts


def flat_values(array: npt.NDArray[Any], counts: npt.NDArray[np.integer[Any]]) -> npt.NDArray[Any]:
    """The entries of ``[n, L]`` ``array`` before each row's ``counts``, row by row (the
    inverse of :func:`padded_lists`)."""
    return np.asarray(array)[np.arange(array.shape[1]) < np.asarray(counts)[:, None]]


def row_of_entries(counts: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int64]:
    """For a flat list column with these lengths, the row of each entry.

    >>> row_of_entries(np.array([2, 0, 3])).tolist()
    [0, 0, 2, 2, 2]
    """
    return np.repeat(np.arange(len(counts), dtype=np.int64), counts)


def last_moves_array(
    offsets: npt.NDArray[np.integer[Any]], values: npt.NDArray[np.integer[Any]], width: int
) -> npt.NDArray[np.int16]:
    """The ``last_moves`` list column as int16 ``[n, width]``, left-padded with -1 (the
    latest ply last), as :mod:`strat_tools.exports.observation_batches` gives it.

    >>> last_moves_array(np.array([0, 1, 4]), np.array([5, 6, 7, 8], np.int16), 2).tolist()
    [[-1, 5], [7, 8]]
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    counts = np.diff(offsets)
    out = np.full((len(counts), width), -1, dtype=np.int16)
    for back in range(1, width + 1):
        has = counts >= back
        out[has, width - back] = values[offsets[1:][has] - back]
    return out
