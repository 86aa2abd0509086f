"""The move-policy protocol: what any model implements to be scored on the benchmark.

A :class:`MovePolicy` is given a batch of observation rows as NumPy arrays (a ``dict``, as
:func:`~strat_tools.exports.observation_arrays.batch_arrays` makes them): ``legal_ids``
(int16 ``[n, L]``, each row's legal action ids ascending, padded with -1), ``legal_count``
(int64 ``[n]``) and the truth-free fields it names in ``fields``
(:data:`POLICY_FIELDS`); it returns ``[n, L]`` log-probabilities aligned with
``legal_ids`` (anything at the padding is ignored). A user's own PyTorch or JAX model
implements it with a few lines around its forward pass and plugs into
:func:`strat_tools.benchmark.predict.predict`::

    class MyModel:
        name = "my-net"
        fields = ("board_view", "last_moves")

        def log_probs(self, batch):
            logits = net(torch.from_numpy(batch["board_view"]))  # [n, 10000]
            ids = torch.from_numpy(batch["legal_ids"].clip(0).astype("int64"))
            return torch.log_softmax(logits.gather(1, ids), 1).numpy()  # padding ignored

        def card(self):
            return {"model": "my-net", "parameters": 91_000, ...}

The batch never holds the hidden truth: a policy can only name truth-free fields (never a
label, :data:`~strat_tools.exports.observation_arrays.LABEL_FIELDS`, nor the game's id),
and the observation board is given as ``board_view`` (an opponent piece the mover has not
identified keeps "moved / not moved", never its rank).

>>> import numpy as np
>>> flat_values(np.array([[0.1, 0.2, 9.0], [1.0, 2.0, 3.0]]), np.array([2, 3])).tolist()
[0.1, 0.2, 1.0, 2.0, 3.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.engine.information.move_policy import MovePolicy, normalised_rows
from strat_tools.exports.observation_arrays import FIELDS, LABEL_FIELDS

__all__ = ["POLICY_FIELDS", "flat_values", "normalised_log_probs"]

POLICY_FIELDS: Final = tuple(
    name
    for name in FIELDS
    if name not in LABEL_FIELDS and name not in ("game_id", "legal_ids", "legal_count")
)
"""The batch fields a policy may ask for besides ``legal_ids`` and ``legal_count`` (always
given): what the mover knew. The labels (the move played, the result, the hidden-truth
board) and the game's id are never in a batch."""


def flat_values(array: npt.NDArray[Any], counts: npt.NDArray[np.integer[Any]]) -> npt.NDArray[Any]:
    """The entries of ``[n, L]`` ``array`` before each row's ``counts``, row by row (the
    inverse of :func:`padded_lists`)."""
    return np.asarray(array)[np.arange(array.shape[1]) < np.asarray(counts)[:, None]]


def normalised_log_probs(policy: MovePolicy, batch: Mapping[str, Any]) -> np.ndarray:
    """``policy``'s log-probabilities of a batch, flat (row by row, each row's legal moves
    in ``legal_ids`` order), normalised over each row in float64 (the engine's
    :func:`~strat_tools.engine.information.move_policy.normalised_rows`, which
    ``pos.move_probabilities`` uses too); a usage error when the policy gives the wrong
    shape, a row no finite value or a legal move no probability."""
    return flat_values(normalised_rows(policy, batch), batch["legal_count"])
