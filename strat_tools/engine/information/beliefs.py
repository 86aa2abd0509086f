"""Beliefs about the opponent's unidentified pieces, from what the side to move knows.

A **belief** is, for each square holding an opponent piece the mover has not identified, a
distribution over the opponent's 12 kinds in :data:`BELIEF_KINDS`' order (bomb, spy, scout,
miner, sergeant, lieutenant, captain, major, colonel, general, marshal, flag: the kind
order of ``PieceKind``, of the observations' ``captured`` and ``unseen`` and of the board
code). It reads only truth-free inputs (:data:`BELIEF_FIELDS`): the mover's board view
(``planes.board_views``: an unidentified piece keeps only "moved / not moved"),
``unseen``, the opponent's pieces of each kind the mover has not identified (under classic
rules the army is public, so this is a count the mover knows), and how each piece has
moved (:mod:`~strat_tools.engine.information.history`: both players see every move).

Two rules bind every belief (:func:`allowed_kinds`): no mass on a kind of which no
unidentified piece is left (``unseen == 0``), and none on a bomb or the flag for a piece
seen moving. "No mass" is a probability of at most :data:`NO_MASS`.

:func:`counts_left` is the belief with no model (Ataraxos' ``uniform_belief``): every
unidentified piece the same distribution, proportional to ``unseen``, a moved piece's with
bomb and flag left out. A learned model is an object the caller passes in
(:class:`BeliefModel`, e.g. the benchmark's ``belief-prior``): this floor defines the
protocol and never imports a model, so the engine imports nothing above it.

>>> view = np.zeros((1, 100), np.uint8)
>>> view[0, 90], view[0, 60] = OPPONENT | UNKNOWN_KIND, OPPONENT | MOVED | UNKNOWN_KIND
>>> unseen = np.array([[1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]])
>>> probs = counts_left(view, unseen)
>>> probs[0, 90].round(3).tolist()  # bomb, scout or flag alike
[0.333, 0.0, 0.333, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.333]
>>> probs[0, 60].tolist()[2]  # it moved: the scout
1.0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side, view_square
from strat_tools.core.errors import UsageError
from strat_tools.core.pieces import CODE_SIDE, KIND_LABELS, PieceKind
from strat_tools.engine.information.history import HISTORY_FIELDS, game_histories
from strat_tools.engine.information.knowledge import Knowledge
from strat_tools.engine.information.planes import (
    KIND_BITS,
    MOVED,
    OPPONENT,
    UNKNOWN_KIND,
    board_views,
    encode_boards,
)

__all__ = [
    "BASE_FIELDS",
    "BELIEF_FIELDS",
    "BELIEF_KINDS",
    "NO_MASS",
    "BeliefModel",
    "allowed_kinds",
    "belief_batch",
    "belief_map",
    "counts_left",
    "kinds_allowed",
    "known_beliefs",
    "model_beliefs",
    "unidentified",
]

BELIEF_KINDS: Final = KIND_LABELS
"""The 12 kinds of a belief, in order: ``bomb``, ``spy``, ``scout``, ..., ``marshal``,
``flag`` (the names the tables use)."""
BASE_FIELDS: Final = ("board_view", "unseen")
"""The truth-free inputs every belief has: ``board_view`` uint8 ``[n, 100]`` (mover's
view) and ``unseen`` uint8 ``[n, 12]`` (the rules of a belief read only these)."""
BELIEF_FIELDS: Final = (*BASE_FIELDS, *HISTORY_FIELDS)
"""The truth-free inputs a belief may read: :data:`BASE_FIELDS` and how each piece has
moved (:data:`~strat_tools.engine.information.history.HISTORY_FIELDS`, uint8 ``[n, 100]``
each, mover's view)."""
NO_MASS: Final = 1e-6
"""A probability at most this is "no mass" (a kind that cannot be there)."""
_STILL: Final = np.array([k.movable for k in PieceKind])
"""Per kind, whether a piece seen moving may be of it (not bomb, not flag)."""


def unidentified(board_view: npt.ArrayLike) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Per square of board views ``[n, 100]``: whether an opponent piece the mover has not
    identified stands there, and whether that piece has been seen moving."""
    view = np.asarray(board_view, dtype=np.uint8)
    hidden = ((view & KIND_BITS) == UNKNOWN_KIND) & ((view & OPPONENT) != 0)
    return hidden, hidden & ((view & MOVED) != 0)


def kinds_allowed(unseen: npt.ArrayLike, moved: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """The rules of a belief, per piece (``unseen`` ``[..., 12]`` its row's counts, ``moved``
    ``[...]``): a kind with an unidentified piece left, and not bomb or flag once it moved."""
    left = np.asarray(unseen) > 0
    return np.asarray(left & (~np.asarray(moved, bool)[..., None] | _STILL))


def allowed_kinds(board_view: npt.ArrayLike, unseen: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """``[n, 100, 12]``: the kinds each unidentified piece may be (:func:`kinds_allowed`);
    all False where no unidentified piece stands."""
    hidden, moved = unidentified(board_view)
    allowed = kinds_allowed(np.asarray(unseen)[:, None, :], moved) & hidden[:, :, None]
    return np.asarray(allowed)


def counts_left(board_view: npt.ArrayLike, unseen: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The counts-left belief, ``[n, 100, 12]`` probabilities (zero rows where no
    unidentified piece stands): ``unseen`` normalised over :func:`allowed_kinds`."""
    allowed = allowed_kinds(board_view, unseen)
    weights = np.where(allowed, np.asarray(unseen, np.float64)[:, None, :], 0.0)
    total = weights.sum(axis=2, keepdims=True)
    probs: npt.NDArray[np.float64] = np.divide(
        weights, total, out=np.zeros_like(weights), where=total > 0
    )
    return probs


@runtime_checkable
class BeliefModel(Protocol):
    """A learned belief, passed in by the caller (``Position.beliefs(model=...)``, the
    benchmark's ``bench predict --task belief``): log-probabilities ``[n, 100, 12]`` over
    :data:`BELIEF_KINDS` for every square of a batch of rows (only the squares of
    unidentified pieces are read), from the truth-free fields it names in ``fields``."""

    name: str
    fields: tuple[str, ...]

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.floating[Any]]:
        """``[n, 100, 12]`` log-probabilities (normalised again over the allowed kinds)."""
        ...


def model_beliefs(model: BeliefModel | None, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
    """``[n, 100, 12]`` probabilities of ``model`` (None: :func:`counts_left`) for a batch
    holding :data:`BELIEF_FIELDS`, renormalised over :func:`allowed_kinds` so that no rule
    of a belief is broken whatever the model gives."""
    view, unseen = batch["board_view"], batch["unseen"]
    if model is None:
        return counts_left(view, unseen)
    wrong = [f for f in model.fields if f not in BELIEF_FIELDS]
    if wrong:
        raise UsageError(
            f"belief model {model.name!r} asks for {', '.join(map(repr, wrong))}: a belief "
            f"reads only {', '.join(BELIEF_FIELDS)}"
        )
    found = np.asarray(model.log_probs({f: batch[f] for f in model.fields}), np.float64)
    if found.shape != (len(view), 100, len(BELIEF_KINDS)):
        raise UsageError(f"belief model {model.name!r} gave an array of shape {found.shape}")
    allowed = allowed_kinds(view, unseen)
    found = np.where(allowed & np.isfinite(found), found, -np.inf)
    top = found.max(axis=2, keepdims=True)
    with np.errstate(invalid="ignore", under="ignore"):
        weights = np.where(allowed, np.exp(found - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = weights.sum(axis=2, keepdims=True)
    empty = allowed.any(axis=2) & (total[:, :, 0] <= 0)
    if empty.any():
        raise UsageError(f"belief model {model.name!r} gave a piece no allowed kind any mass")
    probs: npt.NDArray[np.float64] = np.divide(
        weights, total, out=np.zeros_like(weights), where=total > 0
    )
    return probs


def belief_map(
    probs: npt.NDArray[np.float64], board_view: npt.ArrayLike, squares: npt.ArrayLike
) -> dict[int, dict[str, float]]:
    """One row's beliefs ``[100, 12]`` as ``{square: {kind: probability}}`` for each
    unidentified piece, keyed by ``squares[v]`` (the square each view square names)."""
    hidden, _ = unidentified(np.asarray(board_view)[None])
    names = np.asarray(squares)
    return {
        int(names[v]): {kind: float(p) for kind, p in zip(BELIEF_KINDS, probs[v], strict=True)}
        for v in np.flatnonzero(hidden[0])
    }


def belief_batch(
    know: Knowledge,
    side: Side,
    model: BeliefModel | None,
    moves: list[tuple[int, int]] | None,
    rows: npt.ArrayLike | None = None,
    histories: Mapping[str, npt.NDArray[np.uint8]] | None = None,
) -> dict[str, Any]:
    """The batch a belief model reads for ``side`` at positions ``rows`` of ``know`` (0:
    before the first ply; None: every one), whoever is to move there: ``side``'s board
    view and unidentified counts, and the pieces' histories
    (:func:`~strat_tools.engine.information.history.game_histories`) when ``model`` asks for
    them (``moves``: the Gravon source and target of each ply of ``know``; or
    ``histories``, those fields already made for ``rows``)."""
    at = np.arange(know.plies + 1) if rows is None else np.asarray(rows, np.int64)
    view = board_views(encode_boards(know.boards[at], know.flags[at], [int(side)] * len(at)))
    batch: dict[str, Any] = {"board_view": view, "unseen": know.unseen[at, int(side) - 1]}
    if model is not None and set(HISTORY_FIELDS) & set(model.fields) and histories is not None:
        batch.update(histories)
    elif model is not None and set(HISTORY_FIELDS) & set(model.fields):
        played = moves or []
        if len(played) != know.plies:
            raise UsageError(f"{len(played)} moves for a knowledge of {know.plies} plies")
        owners = np.asarray(CODE_SIDE, np.uint8)[know.boards]
        batch.update(game_histories(owners, played, int(side), at))
    return batch


def known_beliefs(
    know: Knowledge,
    side: Side,
    model: BeliefModel | None = None,
    moves: list[tuple[int, int]] | None = None,
    histories: Mapping[str, npt.NDArray[np.uint8]] | None = None,
) -> dict[int, dict[str, float]]:
    """``Position.beliefs``: ``side``'s beliefs after the last row of ``know`` (its board
    view, as ``Position.observe()``, and its unidentified counts; Gravon squares), from
    ``model`` (None: the counts left). ``moves``: the Gravon source and target of each ply
    of ``know`` (its pieces' histories, read only when ``model`` asks for them; None: no
    ply played; or ``histories``, those fields made already). The knowledge model is
    asked once."""
    batch = belief_batch(know, side, model, moves, [know.plies], histories)
    view = batch["board_view"]
    probs = model_beliefs(model, batch)
    return belief_map(probs[0], view[0], [view_square(v, side) for v in range(100)])
