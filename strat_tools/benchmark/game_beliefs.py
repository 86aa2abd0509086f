"""A belief model over every ply of one game, scored against the hidden truth.

:func:`game_beliefs` asks the belief model for each side's beliefs at every one of its
turns in one batch (:func:`~strat_tools.benchmark.game_models.game_beliefs`: the batch a
belief model reads, the pieces' histories included, the rules of a belief enforced
whatever the model gives) and keeps one entry per ply and opponent piece the side
to move has not identified: whose belief it is, the piece's square, whether it moved, its
true kind (from the game's knowledge, never an input) and the belief over the 12 kinds. The
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

from strat_tools.benchmark.game_models import game_beliefs as side_beliefs
from strat_tools.core.board import Side, view_square
from strat_tools.core.errors import InputError
from strat_tools.engine.information.beliefs import BeliefModel, unidentified
from strat_tools.engine.information.planes import board_views, encode_boards, hidden_truth
from strat_tools.engine.replays.replay import Replay

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
    ``result``, each the side to move's before its move (None when the game has no setup or
    no replayed ply): each side's beliefs come from
    :func:`~strat_tools.benchmark.game_models.game_beliefs` (the one batch a belief model
    reads, the pieces' histories included), the true kinds from the game's knowledge. A
    usage error for a model that reads more than the truth-free inputs."""
    n = result.plies_replayed
    if n == 0 or result.record.setup is None:
        return None
    know = result.knowledge()
    parts = []
    for side in (Side.RED, Side.BLUE):
        positions = np.arange(int(side) - 1, n, 2)
        if not len(positions):
            continue
        probs = side_beliefs(result, model, side, know=know, positions=slice(int(side) - 1, n, 2))
        board = encode_boards(
            know.boards[positions], know.flags[positions], [int(side)] * len(positions)
        )
        mask, kinds = hidden_truth(board)
        row, view = np.nonzero(mask)
        square = _SQUARES[int(side) - 1][view]
        found = probs[row, square]
        if found.size and not (found.sum(axis=1) > 0).all():
            raise InputError("a hidden piece of the board label has no belief: the views disagree")
        parts.append(
            (
                positions[row] + 1,
                np.full(len(row), side == Side.BLUE),
                square,
                unidentified(board_views(board))[1][row, view],
                kinds[row, view].astype(np.int8),
                found,
            )
        )
    columns = [np.concatenate(c) for c in zip(*parts, strict=True)]
    order = np.argsort(columns[0], kind="stable")
    ply, blue, square, moved, truth, probs = (c[order] for c in columns)
    return GameBeliefs(
        model="counts-left" if model is None else model.name,
        ply=ply.astype(np.int32),
        blue=blue.astype(np.bool_),
        square=square.astype(np.int16),
        moved=moved.astype(np.bool_),
        truth=truth,
        probs=probs.astype(np.float64),
    )
