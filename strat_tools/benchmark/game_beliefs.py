"""A belief model over every ply of one game, scored against the hidden truth.

:func:`game_beliefs` observes a replayed game once (the truth-free rows of the
``observations`` export, as :func:`~strat_tools.benchmark.game_models.game_move_model`
does), asks the belief model for every ply in one batch
(:func:`~strat_tools.engine.information.beliefs.model_beliefs`: the rules of a belief
enforced whatever the model gives) and keeps one entry per ply and opponent piece the side
to move has not identified: whose belief it is, the piece's square, whether it moved, its
true kind (from the ``board`` label, never an input) and the belief over the 12 kinds. The
calibration plots of the notebooks and the belief-based secrecy values
(:mod:`strat_tools.benchmark.hidden_values`) read a game's beliefs this way.

>>> from strat_tools.engine.information.beliefs import BELIEF_KINDS
>>> from strat_tools.formats.readers import read_records
>>> from strat_tools.engine.replays.replay import replay
>>> (record,) = read_records("tests/fixtures/gravon/classic-2014.4-17.xml")
>>> beliefs = game_beliefs(replay(record), None)  # the counts left
>>> len(beliefs.truth), int(beliefs.ply[0]), int(beliefs.square[0])  # 3 plies, 40 a ply
(120, 1, 60)
>>> BELIEF_KINDS[beliefs.truth[0]], round(float(beliefs.true_probs()[0]), 3)  # 8 of 40
('scout', 0.2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side, view_square
from strat_tools.core.errors import InputError
from strat_tools.engine.information.beliefs import (
    BELIEF_FIELDS,
    BeliefModel,
    model_beliefs,
    unidentified,
)
from strat_tools.engine.information.planes import hidden_truth
from strat_tools.engine.replays.replay import Replay
from strat_tools.exports.observation_arrays import batch_arrays
from strat_tools.exports.observation_rows import observations_table
from strat_tools.exports.observations import observe_game

__all__ = ["GameBeliefs", "game_beliefs"]

_SQUARES: Final = np.array(
    [[view_square(v, side) for v in range(100)] for side in (Side.RED, Side.BLUE)], np.int16
)
"""``[blue, v]``: the Gravon square of view square ``v`` in red's (0) or blue's (1) view."""


@dataclass(frozen=True)
class GameBeliefs:
    """One entry per ply and opponent piece the side to move had not identified, in ply
    order, then by the mover's view square."""

    model: str
    """The belief model's name (``counts-left`` for none)."""
    ply: npt.NDArray[np.int32]
    """The ply whose mover holds the belief (the position before its move; from 1)."""
    blue: npt.NDArray[np.bool_]
    """Whether the belief is blue's (about a red piece)."""
    square: npt.NDArray[np.int16]
    """The piece's Gravon square."""
    moved: npt.NDArray[np.bool_]
    """Whether the mover had seen the piece move."""
    truth: npt.NDArray[np.int8]
    """Its true kind, an index into the belief's kinds (0 bomb .. 10 marshal, 11 flag)."""
    probs: npt.NDArray[np.float64]
    """``[m, 12]``: the belief over the kinds, in ``BELIEF_KINDS``' order."""

    def true_probs(self) -> npt.NDArray[np.float64]:
        """``[m]``: the probability each belief put on the piece's true kind."""
        return self.probs[np.arange(len(self.truth)), self.truth]


def game_beliefs(result: Replay, model: BeliefModel | None) -> GameBeliefs | None:
    """``model``'s beliefs (None: the counts left) at every ply of the replayed game
    ``result`` (None when the game gives no observation rows). Raises as the
    ``observations`` export does on a game it cannot observe, and a usage error for a
    model that reads more than the truth-free inputs or gives a piece no allowed kind."""
    game = observe_game(result)
    if game is None:
        return None
    table = observations_table([("", game)])
    fields = dict.fromkeys((*BELIEF_FIELDS, *(model.fields if model else ()), "ply", "side"))
    batch = batch_arrays(table, tuple(fields))
    probs = model_beliefs(model, batch)
    mask, kinds = hidden_truth(batch_arrays(table, ("board",))["board"])
    row, view = np.nonzero(mask)
    blue = batch["side"].astype(np.bool_)[row]
    truth = kinds[row, view].astype(np.int8)
    found = probs[row, view]
    if found.size and not (found.sum(axis=1) > 0).all():
        raise InputError("a hidden piece of the board label has no belief: the views disagree")
    moved = unidentified(batch["board_view"])[1][row, view]
    return GameBeliefs(
        model="counts-left" if model is None else model.name,
        ply=batch["ply"].astype(np.int32)[row],
        blue=blue,
        square=_SQUARES[blue.astype(np.int64), view],
        moved=moved,
        truth=truth,
        probs=found,
    )
