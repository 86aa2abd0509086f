"""The human-move model's inputs, made from the truth-free fields of a batch (NumPy).

One definition of what the model sees, used by the trainer (PyTorch) and by the NumPy
inference alike, so the two see the same numbers:

- **planes** ``float32 [n, 40, 10, 10]``: the 32 planes of ``board_view``
  (:func:`~strat_tools.engine.information.planes.to_planes`: an opponent piece the mover has not
  identified shows "moved / not moved", never its rank), then the :data:`LAST_PLIES`
  latest earlier plies (``last_moves``, mover's view), each a plane of its from square and
  one of its to square, the latest first;
- **scalars** ``float32 [n, 16]``: the opponent's unidentified pieces of each kind
  (``unseen``) over the kind's count in a classic army, both sides' two-squares counters
  (``/ 5``), plies since the last battle (``/ 50``) and the ply (``/ 500``), each clipped
  at 2.

:func:`mirrored` is the same batch seen in a mirror (the board's files reversed, the lakes
and both armies' rules unchanged: Stratego's one symmetry a side's view keeps); a model
with ``mirror_average`` on its card averages its probabilities over the two.

And the rows' legal moves as indices of the action head
(:data:`~strat_tools.engine.encodings.actions.HEAD_COUNT` logits: from square, direction, distance
in the mover's view), :data:`OTHER_HEAD` for a move that is not a straight line.

>>> import numpy as np
>>> legal_heads(np.array([[3141, 3132, -1]], np.int16)).tolist()
[[1116, 1143, 3600]]
>>> mirror_ids(np.array([[3141, 3132, -1]], np.int16)).tolist()
[[3848, 3837, -1]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.engine.encodings.actions import HEAD_COUNT, HEAD_OF_ACTION
from strat_tools.engine.information.planes import CHANNELS, to_planes

__all__ = [
    "ARMY",
    "INPUTS_VERSION",
    "INPUT_FIELDS",
    "LAST_PLIES",
    "MIRRORED_FIELDS",
    "OTHER_HEAD",
    "PLANES",
    "SCALARS",
    "legal_heads",
    "mirror_ids",
    "mirrored",
    "model_inputs",
]

INPUTS_VERSION: Final = 1
"""Version of the inputs' layout (a model file names the one it was trained on)."""
LAST_PLIES: Final = 4
"""Earlier plies shown as planes (from and to square each)."""
PLANES: Final = len(CHANNELS) + 2 * LAST_PLIES
"""Input planes: the board's and the last plies'."""
ARMY: Final = np.array([6, 1, 8, 5, 4, 4, 4, 3, 2, 1, 1, 1], dtype=np.float32)
"""A classic army's pieces of each kind (bomb, spy, scout .. marshal, flag)."""
SCALARS: Final = len(ARMY) + 4
"""Input scalars: unseen per kind, the two repetition counters, plies since battle, ply."""
OTHER_HEAD: Final = HEAD_COUNT
"""The logit index of a legal move that is not a straight line (and of padding)."""
INPUT_FIELDS: Final = (
    "board_view",
    "last_moves",
    "unseen",
    "own_repetition",
    "opponent_repetition",
    "plies_since_battle",
    "ply",
)
"""The truth-free batch fields the model reads."""
MIRRORED_FIELDS: Final = ("board_view", "last_moves", "legal_ids", "action")
"""The fields :func:`mirrored` turns (squares or moves); the model's other inputs are
counts and counters, the same in the mirror."""
MIRROR_SQUARE: Final = np.array([row * 10 + 9 - col for row in range(10) for col in range(10)])
"""Each square's mirror image (its file reversed: A1 <-> K1)."""


def model_inputs(
    batch: Mapping[str, Any],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """``(planes [n, PLANES, 10, 10], scalars [n, SCALARS])`` of a batch's truth-free fields
    (:data:`INPUT_FIELDS`)."""
    boards = np.asarray(batch["board_view"], dtype=np.uint8)
    n = boards.shape[0]
    planes = np.zeros((n, PLANES, 100), dtype=np.float32)
    planes[:, : len(CHANNELS)] = to_planes(boards).reshape(n, len(CHANNELS), 100)
    last = np.asarray(batch["last_moves"], dtype=np.int64)
    rows = np.arange(n)
    for back in range(min(LAST_PLIES, last.shape[1])):
        ids = last[:, last.shape[1] - 1 - back]
        played = ids >= 0
        source, target = np.divmod(np.where(played, ids, 0), 100)
        base = len(CHANNELS) + 2 * back
        planes[rows[played], base, source[played]] = 1.0
        planes[rows[played], base + 1, target[played]] = 1.0
    scalars = np.empty((n, SCALARS), dtype=np.float32)
    scalars[:, : len(ARMY)] = np.asarray(batch["unseen"], dtype=np.float32) / ARMY
    columns = (
        ("own_repetition", 5.0),
        ("opponent_repetition", 5.0),
        ("plies_since_battle", 50.0),
        ("ply", 500.0),
    )
    for offset, (name, scale) in enumerate(columns):
        scalars[:, len(ARMY) + offset] = np.asarray(batch[name], dtype=np.float32) / scale
    np.minimum(scalars, 2.0, out=scalars)
    return planes.reshape(n, PLANES, 10, 10), scalars


def legal_heads(legal_ids: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The action-head logit index of each legal id (``[n, L]``; padding -1 and a move that
    is not a straight line give :data:`OTHER_HEAD`)."""
    ids = np.asarray(legal_ids)
    heads: npt.NDArray[np.int64] = HEAD_OF_ACTION[np.clip(ids, 0, None)].astype(np.int64)
    heads[(ids < 0) | (heads < 0)] = OTHER_HEAD
    return heads


def mirror_ids(ids: npt.ArrayLike) -> npt.NDArray[Any]:
    """Move ids (``source * 100 + target``, the mover's view) of the mirror image; -1
    (padding, no move) stays -1; the dtype is kept."""
    found = np.asarray(ids)
    wide = found.astype(np.int64)
    source, target = np.divmod(np.where(wide >= 0, wide, 0), 100)
    turned = np.where(wide >= 0, MIRROR_SQUARE[source] * 100 + MIRROR_SQUARE[target], wide)
    return turned.astype(found.dtype)


def mirrored(batch: Mapping[str, Any]) -> dict[str, Any]:
    """``batch`` seen in a mirror: :data:`MIRRORED_FIELDS` turned (each row's legal ids
    keep their places, so a log-probability of the mirror lines up with the original's
    move), the other fields as they are."""
    found = dict(batch)
    if "board_view" in found:
        boards = np.asarray(found["board_view"])
        found["board_view"] = boards[:, MIRROR_SQUARE]
    for name in MIRRORED_FIELDS[1:]:
        if name in found:
            found[name] = mirror_ids(found[name])
    return found
