"""What the shipped models say about one game, as the viewer's page carries it (``view
--with-model``).

:func:`game_models` runs, for one replayed classic game, the move policy over every ply
(:func:`~strat_tools.benchmark.game_models.game_move_model`: each ply's likeliest moves,
the move played's probability and rank, the game's most surprising moves overall and per
side) and each side's beliefs about the other's unidentified pieces at every position
(:func:`~strat_tools.benchmark.game_models.game_beliefs`: from that side's own knowledge,
whoever is to move). Both read only what the side in question knew: the page shows red's
moves' probabilities and red's beliefs in red's view, never blue's. The full view adds how
right each belief was: the probability it put on the piece's true kind.

Probabilities travel as whole numbers: a move's in hundred-thousandths, a belief's
likeliest kind and the probability on the true kind in hundredths, "is it the flag" in
thousandths; the beliefs per position as changes from the position before (as the
page's board), so a piece that stands still costs nothing.

The models are for classic games (the benchmark of human play is classic's): another
variant gets ``model_note`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np

from strat_tools.benchmark.game_models import game_beliefs, game_move_model
from strat_tools.benchmark.policies import DEFAULTS, load, task_of
from strat_tools.core.board import Side
from strat_tools.core.errors import UsageError
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, PieceKind
from strat_tools.core.text import printable
from strat_tools.engine.information.beliefs import BeliefModel
from strat_tools.engine.information.move_policy import MovePolicy
from strat_tools.views.page_deltas import changes

if TYPE_CHECKING:
    from strat_tools.engine.information.knowledge import Knowledge
    from strat_tools.engine.replays.replay import Replay

__all__ = [
    "MAX_MODEL_PLIES",
    "MODEL_VARIANTS",
    "MOVE_SCALE",
    "SURPRISES",
    "TOP_MOVES",
    "ViewerModels",
    "game_models",
]

TOP_MOVES: Final = 3
"""The likeliest moves the page carries per ply."""
SURPRISES: Final = 5
"""The most surprising moves listed per view."""
MODEL_VARIANTS: Final = ("classic",)
"""The variants the shipped models are for."""
MOVE_SCALE: Final = 100_000
"""A move's probability on the page: hundred-thousandths."""
MAX_MODEL_PLIES: Final = 20_000
"""A game longer than this gets no models (``model_note`` says so): the move model's rows of
a game are observed whole, so its memory grows with the game (the longest archive game
has a few thousand plies)."""
WINDOW: Final = 4096
"""Positions whose beliefs are held in memory at once (a long game stays bounded)."""
_KIND: Final = np.asarray(CODE_KIND, np.int64)
_OWNER: Final = np.asarray(CODE_SIDE, np.int64)
_FLAG: Final = int(PieceKind.FLAG)


@dataclass(frozen=True, slots=True)
class ViewerModels:
    """The shipped models a page shows, by name (the registry's,
    :func:`~strat_tools.benchmark.policies.load`; each task's default unless named), so a
    worker loads them once (:meth:`load`)."""

    policy: str = DEFAULTS["move"]
    belief: str = DEFAULTS["belief"]

    def load(self) -> tuple[MovePolicy, BeliefModel]:
        """The move policy and the belief model (loaded once per process)."""
        return _load(self.policy, self.belief)


@lru_cache(maxsize=4)
def _load(policy: str, belief: str) -> tuple[MovePolicy, BeliefModel]:
    if task_of(policy) != "move":
        raise UsageError(f"{policy!r} is a belief model, not a move policy", option="policy")
    if task_of(belief) != "belief":
        raise UsageError(f"{belief!r} is a move policy, not a belief model", option="belief")
    return cast("MovePolicy", load(policy)), load(belief)


def game_models(
    result: Replay,
    know: Knowledge,
    variant: str,
    policy: MovePolicy,
    belief: BeliefModel | None,
) -> dict[str, Any]:
    """``{"model": ..., "beliefs": ...}`` for the page, or ``{"model_note": why}`` for a
    variant the models are not for."""
    if variant not in MODEL_VARIANTS:
        why = f"No model for {printable(variant)}: the shipped models are for classic games."
        return {"model_note": why}  # the variant as the file spells it, shown escaped
    if know.plies > MAX_MODEL_PLIES:
        return {
            "model_note": f"No model for a game of {know.plies:,} plies: the page runs the "
            f"models on games of up to {MAX_MODEL_PLIES:,} plies."
        }
    moves = game_move_model(result, policy)
    out: dict[str, Any] = {"model": None, "beliefs": _beliefs(result, know, belief)}
    if moves is None:
        return out
    played = np.exp(moves.played_log_probs())
    out["model"] = {
        "policy": moves.policy,
        "belief": belief.name if belief is not None else "belief-counts",
        "top": [
            [value for key, p in moves.best(ply, TOP_MOVES) for value in (key, _scaled(p))]
            for ply in range(1, moves.plies + 1)
        ],
        "played": np.rint(played * MOVE_SCALE).astype(int).tolist(),
        "rank": moves.ranks().tolist(),
        "legal": np.diff(moves.offsets).tolist(),
        "surprising": {
            "all": moves.surprising(SURPRISES),
            "red": moves.surprising(SURPRISES, Side.RED),
            "blue": moves.surprising(SURPRISES, Side.BLUE),
        },
    }
    return out


def _scaled(p: float) -> int:
    return round(p * MOVE_SCALE)


def _beliefs(result: Replay, know: Knowledge, belief: BeliefModel | None) -> dict[str, Any]:
    """Per side, per position, per unidentified opponent piece: the likeliest kind (plus 1;
    0 where no such piece stands), its probability and the flag's (``[kind, pct, flag
    permille]`` changes from the position before, the first entry from nothing); and, for
    the full view, the probability the owner's opponent put on each piece's true kind."""
    positions = know.plies + 1
    right = np.zeros((positions + 1, 100), np.int16)
    out: dict[str, Any] = {}
    for side in (Side.RED, Side.BLUE):
        likeliest = np.zeros((positions + 1, 100), np.int16)
        chance = np.zeros_like(likeliest)
        flag = np.zeros_like(likeliest)
        for start in range(0, positions, WINDOW):
            window = slice(start, min(start + WINDOW, positions))
            probs = game_beliefs(result, belief, side, know=know, positions=window)
            rows = slice(window.start + 1, window.stop + 1)
            held = probs.sum(axis=2) > 0
            top = probs.argmax(axis=2)
            likeliest[rows] = np.where(held, top + 1, 0)
            chance[rows] = np.rint(100 * probs.max(axis=2))
            flag[rows] = np.rint(1000 * probs[:, :, _FLAG])
            codes = know.boards[window].astype(np.int64)
            theirs = held & (_OWNER[codes] == int(side.other))
            truth = np.take_along_axis(probs, np.maximum(_KIND[codes], 0)[:, :, None], 2)[..., 0]
            right[rows] = np.where(theirs, 1 + np.rint(100 * truth), right[rows])
        out[side.name.lower()] = changes(likeliest, chance, flag)
    out["right"] = changes(right)
    return out
