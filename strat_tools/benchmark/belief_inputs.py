"""The inputs of the learned belief model (``belief-v1``), one vector per unidentified piece.

Made in NumPy from the truth-free belief fields
(:data:`~strat_tools.engine.information.beliefs.BELIEF_FIELDS`) of a batch of rows, the
same for training (PyTorch reads them as they are) and for inference. For each square
holding an opponent piece the mover has not identified (in ascending row, square order),
:data:`WIDTH` floats (:data:`INPUTS_VERSION` 1):

- 40: the square it started on, in its owner's setup (one-hot; the mover's view square
  ``v`` is the owner's ``99 - v``);
- 20: its row and its column now, in the mover's view (one-hot each);
- 6: whether it has moved, and ``log1p`` of its moves, plies idle, moves toward its own
  back row and moves ending next to a mover's piece, and whether it ever did that;
- 16: each of its four neighbours (up, down, left, right in the mover's view) as one of
  edge or lake, empty, a mover's piece, an opponent's piece (one-hot);
- 12: ``unseen / army``, the share of each kind the mover has not identified;
- 3: the opponent's unidentified pieces never seen moving and seen moving, and the
  mover's own pieces, each over 40.

The model adds ``log unseen[k]`` to its logits (:func:`piece_inputs` gives it as
``offset``): a kind's weight is proportional to how many of it are left unidentified.

>>> WIDTH
97
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.pieces import ARMIES
from strat_tools.engine.information.beliefs import BELIEF_FIELDS, kinds_allowed, unidentified
from strat_tools.engine.information.planes import KIND_BITS, LAKE_KIND, OPPONENT

__all__ = ["INPUTS_VERSION", "INPUT_FIELDS", "WIDTH", "PieceInputs", "piece_inputs"]

INPUTS_VERSION: Final = 1
"""The version of the inputs' layout; a model card names the one it was trained on."""
INPUT_FIELDS: Final = BELIEF_FIELDS
"""The fields the inputs read: all the truth-free belief fields."""
WIDTH: Final = 40 + 20 + 6 + 16 + 12 + 3
_ARMY: Final = np.array(ARMIES["classic"], dtype=np.float32)
_SQUARES: Final = np.arange(100)
_NEIGHBOUR: Final = np.stack(
    [
        np.where(_SQUARES >= 90, -1, _SQUARES + 10),  # up: toward the opponent
        np.where(_SQUARES < 10, -1, _SQUARES - 10),
        np.where(_SQUARES % 10 == 0, -1, _SQUARES - 1),
        np.where(_SQUARES % 10 == 9, -1, _SQUARES + 1),
    ],
    axis=1,
)
"""``[100, 4]``: each square's neighbour up, down, left and right (-1 off the board)."""


class PieceInputs:
    """The inputs of a batch's unidentified pieces: their ``row`` and ``square``, the
    vectors ``x`` ``[m, WIDTH]``, the ``offset`` ``[m, 12]`` (``log unseen``) and the kinds
    each may be, ``allowed`` ``[m, 12]``."""

    def __init__(
        self,
        row: npt.NDArray[np.intp],
        square: npt.NDArray[np.intp],
        x: npt.NDArray[np.float32],
        offset: npt.NDArray[np.float32],
        allowed: npt.NDArray[np.bool_],
    ) -> None:
        self.row, self.square, self.x, self.offset, self.allowed = row, square, x, offset, allowed


def piece_inputs(batch: Mapping[str, Any]) -> PieceInputs:
    """The inputs of every unidentified piece of a batch holding :data:`INPUT_FIELDS`."""
    view = np.asarray(batch["board_view"], np.uint8)
    unseen = np.asarray(batch["unseen"], np.float32)
    hidden, moved = unidentified(view)
    row, square = np.nonzero(hidden)
    m = len(row)
    x = np.zeros((m, WIDTH), np.float32)
    at = np.arange(m)
    start = 99 - np.asarray(batch["piece_start"])[row, square].astype(np.int64)
    if m and ((start < 0) | (start >= 40)).any():
        start = np.clip(start, 0, 39)  # not a classic setup: the nearest setup square
    x[at, start] = 1.0
    x[at, 40 + square // 10] = 1.0
    x[at, 50 + square % 10] = 1.0
    counts = [np.asarray(batch[f])[row, square].astype(np.float32) for f in HISTORY_ORDER]
    x[:, 60] = moved[row, square]
    for i, value in enumerate(counts):
        x[:, 61 + i] = np.log1p(value)
    x[:, 65] = counts[3] > 0
    cell = np.full((len(view), 101), 0, np.int64)  # 0 edge/lake, 1 empty, 2 own, 3 theirs
    kind = view & KIND_BITS
    cell[:, :100] = np.where(
        kind == LAKE_KIND, 0, np.where(kind == 0, 1, np.where((view & OPPONENT) != 0, 3, 2))
    )
    neighbours = cell[row[:, None], np.where(_NEIGHBOUR[square] < 0, 100, _NEIGHBOUR[square])]
    x[at[:, None], 66 + 4 * np.arange(4)[None, :] + neighbours] = 1.0
    x[:, 82:94] = unseen[row] / _ARMY
    x[:, 94] = (hidden & ~moved).sum(axis=1)[row] / 40.0
    x[:, 95] = moved.sum(axis=1)[row] / 40.0
    own = ((view & OPPONENT) == 0) & (kind >= 1) & (kind <= 12)
    x[:, 96] = own.sum(axis=1)[row] / 40.0
    allowed = kinds_allowed(unseen[row], moved[row, square])
    with np.errstate(divide="ignore"):
        offset = np.where(allowed, np.log(np.maximum(unseen[row], 1.0)), -np.inf)
    return PieceInputs(row, square, x, offset.astype(np.float32), allowed)


HISTORY_ORDER: Final = ("piece_moves", "piece_idle", "piece_back", "piece_near")
"""The history counts of the inputs (``log1p`` each), in order."""
