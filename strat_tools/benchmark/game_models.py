"""A move policy over every ply of one game: what the model expected, and how likely the
move played was.

:func:`game_move_model` observes a replayed game once (the same truth-free rows as the
``observations`` export and the benchmark: :func:`~strat_tools.exports.observations.
observe_game`), runs the policy over all its plies in one batch, and keeps, per ply, the
legal moves in the benchmark's layout (our action ids, ascending, in the mover's view) with
their probabilities, the move played, its probability and its rank. The viewer, the
``--with-model`` columns of the tables and the notebooks read a game's model this way: one
definition of "the probability of the move played".

:func:`game_beliefs` is its twin for the belief task: one side's beliefs about the
opponent's unidentified pieces at every position of a game, from that side's knowledge at
each position whoever is to move (the batch the engine's belief functions make,
:func:`~strat_tools.engine.information.beliefs.model_beliefs`).

>>> from strat_tools.core.pieces import letter_code
>>> from strat_tools.core.records import GameRecord
>>> from strat_tools.engine.replays.replay import replay
>>> from strat_tools.benchmark.baselines import UniformPolicy
>>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8 + "Y"
>>> record = GameRecord("doc.xml", variant="classicfree",
...                     setup=tuple(letter_code(c) for c in field), sources=[9], targets=[39])
>>> model = game_move_model(replay(record), UniformPolicy())
>>> model.plies, len(model.legal(1)), round(model.played_prob(1), 4), model.rank(1)
(1, 17, 0.0588, 1)
>>> [(move, round(p, 4)) for move, p in model.top(1, 2)]
[('K1-B1', 0.0588), ('K1-C1', 0.0588)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from strat_tools.benchmark.policy import normalised_log_probs
from strat_tools.core.board import Side, square_name
from strat_tools.engine.information.beliefs import BeliefModel, belief_batch, model_beliefs
from strat_tools.engine.information.knowledge import Knowledge
from strat_tools.engine.information.move_policy import MovePolicy
from strat_tools.engine.information.mover_view import view_keys
from strat_tools.engine.replays.replay import Replay
from strat_tools.exports.observation_arrays import batch_arrays
from strat_tools.exports.observation_rows import observations_table
from strat_tools.exports.observations import observe_game

__all__ = ["GameMoveModel", "game_beliefs", "game_move_model"]


@dataclass(frozen=True)
class GameMoveModel:
    """A move policy's distribution at every ply of one game (plies counted from 1, as the
    tables count them). Flat arrays, row by row: ``offsets[i]:offsets[i + 1]`` are ply
    ``i + 1``'s legal moves."""

    policy: str
    """The policy's name."""
    offsets: npt.NDArray[np.int64]
    """``[plies + 1]``: where each ply's legal moves start in ``ids`` and ``log_probs``."""
    ids: npt.NDArray[np.int64]
    """Our action ids of the legal moves, in the mover's view, ascending within a ply."""
    log_probs: npt.NDArray[np.float64]
    """Their log-probabilities, normalised over each ply's legal moves."""
    played: npt.NDArray[np.int64]
    """``[plies]``: the action id of the move played (mover's view)."""
    blue: npt.NDArray[np.bool_]
    """``[plies]``: whether blue moved at that ply (its ids are turned by 180 degrees)."""

    @property
    def plies(self) -> int:
        """How many plies the game has a distribution for."""
        return len(self.played)

    def _span(self, ply: int) -> slice:
        if not 1 <= ply <= self.plies:
            raise IndexError(f"ply {ply} is not in 1..{self.plies}")
        return slice(int(self.offsets[ply - 1]), int(self.offsets[ply]))

    def legal(self, ply: int) -> npt.NDArray[np.int64]:
        """Ply ``ply``'s legal moves as ``source * 100 + target`` (Gravon squares)."""
        return view_keys(self.ids[self._span(ply)], self.blue[ply - 1])

    def probs(self, ply: int) -> npt.NDArray[np.float64]:
        """Ply ``ply``'s probabilities, aligned with :meth:`legal`."""
        return np.exp(self.log_probs[self._span(ply)])

    def played_log_probs(self) -> npt.NDArray[np.float64]:
        """``[plies]``: the log-probability of each move played."""
        at = np.empty(self.plies, np.int64)
        for index in range(self.plies):
            span = self._span(index + 1)
            found = np.searchsorted(self.ids[span], self.played[index])
            at[index] = span.start + found
        return self.log_probs[at]

    def ranks(self) -> npt.NDArray[np.int64]:
        """``[plies]``: each move played's rank among its ply's legal moves (1: the
        likeliest; ties share the better rank)."""
        played = self.played_log_probs()
        plies = np.repeat(np.arange(self.plies), np.diff(self.offsets))
        better = np.bincount(
            plies, weights=self.log_probs > played[plies], minlength=self.plies
        ).astype(np.int64)
        return better + 1

    def played_prob(self, ply: int) -> float:
        """The probability of the move played at ``ply``."""
        return float(np.exp(self.played_log_probs()[ply - 1]))

    def rank(self, ply: int) -> int:
        """The rank of the move played at ``ply`` (1: the likeliest)."""
        return int(self.ranks()[ply - 1])

    def best(self, ply: int, k: int = 3) -> list[tuple[int, float]]:
        """Ply ``ply``'s ``k`` likeliest moves as ``(source * 100 + target, probability)``
        (Gravon squares), likeliest first (ties in square order)."""
        keys, probs = self.legal(ply), self.probs(ply)
        order = np.lexsort((keys, -probs))[:k]
        return [(int(keys[i]), float(probs[i])) for i in order]

    def top(self, ply: int, k: int = 3) -> list[tuple[str, float]]:
        """Ply ``ply``'s ``k`` likeliest moves as ``("A4-A5", probability)``, likeliest
        first (ties in square order): :meth:`best`, named."""
        return [
            (f"{square_name(key // 100)}-{square_name(key % 100)}", p)
            for key, p in self.best(ply, k)
        ]

    def surprising(self, k: int = 5, side: Side | None = None) -> list[int]:
        """The ``k`` plies whose move played was the least likely, least likely first
        (``side``: among that side's moves only)."""
        played = self.played_log_probs()
        if side is not None:
            played = np.where(self.blue == (side == Side.BLUE), played, np.inf)
        order = np.argsort(played, kind="stable")[: min(k, int(np.isfinite(played).sum()))]
        return [int(i) + 1 for i in order]


def game_move_model(result: Replay, policy: MovePolicy) -> GameMoveModel | None:
    """``policy`` over every ply of the replayed game ``result`` (None when the game gives
    no observation rows: no moves replayed, or no setup). Raises as the ``observations``
    export does on a game it cannot observe, and a usage error when the policy gives
    a wrong row (:func:`~strat_tools.benchmark.policy.normalised_log_probs`)."""
    game = observe_game(result)
    if game is None:
        return None
    table = observations_table([("", game)])
    batch = batch_arrays(table, ("legal_ids", "legal_count", "side", "action", *policy.fields))
    counts = batch["legal_count"].astype(np.int64)
    ids = batch["legal_ids"]
    flat = ids[np.arange(ids.shape[1]) < counts[:, None]].astype(np.int64)
    return GameMoveModel(
        policy=policy.name,
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        ids=flat,
        log_probs=normalised_log_probs(policy, batch),
        played=batch["action"].astype(np.int64),
        blue=batch["side"].astype(np.bool_),
    )


def game_beliefs(
    result: Replay,
    model: BeliefModel | None,
    side: Side,
    *,
    know: Knowledge | None = None,
    positions: slice | None = None,
) -> npt.NDArray[np.float64]:
    """``side``'s beliefs about the opponent's unidentified pieces at every position of the
    replayed game ``result`` (position ``p``: after ply ``p``, 0 the setup), whoever is to
    move there: ``[positions, 100, 12]`` probabilities over
    :data:`~strat_tools.engine.information.beliefs.BELIEF_KINDS` by Gravon square, zero
    rows where no such piece stands. Each position's batch is ``side``'s own board view and
    unidentified counts there, as ``Position.beliefs`` makes it for the side to move
    (``model`` None: the counts left). ``know``: the game's knowledge when the caller
    has it; ``positions``: a window of positions (the default all of them)."""
    know = result.knowledge() if know is None else know
    rows = np.arange(know.plies + 1)[positions if positions is not None else slice(None)]
    record = result.record
    played = list(zip(record.sources[: know.plies], record.targets[: know.plies], strict=True))
    batch = belief_batch(know, side, model, played, rows)
    probs = model_beliefs(model, batch)
    return probs[:, ::-1] if side == Side.BLUE else probs  # blue's view squares: 99 - square
