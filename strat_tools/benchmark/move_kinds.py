"""The kind of a move, from what the mover knows: the count baselines' one definition.

A legal move's kind combines four things read off the truth-free board (``board_view``,
oriented from the mover's own back row, ``docs/observations.md``) and the action id
(``source * 100 + target`` in the mover's view):

- the **own piece's rank** (bits 0-3 of the source byte: 12 kinds, bomb .. flag; only the
  movable ten occur);
- whether the own piece **has moved before** (bit 6 of the source byte: the opponent has
  seen it move);
- **step or multi-square** (a scout's long move: more than one square away);
- the **direction** in the mover's view: forward (towards the opponent's back row), back,
  or sideways;
- the **target** as the mover knows it: empty; an unidentified opponent piece never seen
  moving; an unidentified one seen moving; or an identified one: a bomb, a flag, or a
  movable piece of lower, equal or higher rank than the mover's (ranks compared as
  numbers, spy 1 .. marshal 10: no battle rule is applied).

``12 * 2 * 2 * 3 * 8 =`` :data:`KINDS` codes, ``code = (((rank * 2 + moved) * 2 + multi)
* 3 + direction) * 8 + target``. The opponent's rank is read only where bit 5 (*known*)
says the mover has identified the piece; an unidentified piece is told apart only by bit 6
(*moved*). So the kinds never depend on the hidden truth, whichever board they are given.

:func:`same_piece` marks the moves of the piece the mover moved on its previous turn (the
target of the second last entry of ``last_moves``, the latest being the opponent's ply).

>>> import numpy as np
>>> board = np.zeros((1, 100), np.uint8)
>>> board[0, 30] = 2 + 1                 # own scout on A4 (byte 30)
>>> board[0, 60] = 16 | 32 | (5 + 1)     # identified opponent lieutenant on A7
>>> kind_name(int(move_kinds(board, np.array([[3040, 3060, 3031]], np.int16))[0, 1]))
'scout unmoved multi forward known-higher'
>>> board[0, 30] |= 64                   # the opponent has seen it move
>>> [kind_name(int(k)) for k in move_kinds(board, np.array([[3040, 3031]], np.int16))[0]]
['scout moved step forward empty', 'scout moved step side empty']
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.pieces import KIND_LABELS

__all__ = [
    "DIRECTIONS",
    "KINDS",
    "KINDS_VERSION",
    "RANKS",
    "TARGETS",
    "kind_name",
    "move_kinds",
    "same_piece",
]

KINDS_VERSION: Final = 2
"""The version of this definition; a fitted count table names the one it was counted with
(version 1 had no "moved before": ``counts`` scored 2.847 nats and 14.0% top-1 on test,
against 2.569 and 19.0% with it)."""

RANKS: Final = KIND_LABELS
"""The mover's piece kinds, in the order of ``PieceKind`` (bomb ... marshal, flag)."""
DIRECTIONS: Final = ("forward", "back", "side")
TARGETS: Final = (
    "empty",
    "unknown-unmoved",
    "unknown-moved",
    "known-bomb",
    "known-lower",
    "known-equal",
    "known-higher",
    "known-flag",
)
KINDS: Final = len(RANKS) * 2 * 2 * len(DIRECTIONS) * len(TARGETS)
"""The number of move kinds (1,152)."""

_OPPONENT, _KNOWN, _MOVED = 16, 32, 64


def kind_name(code: int) -> str:
    """A kind's words: ``'captain moved step forward unknown-moved'``."""
    if not 0 <= code < KINDS:
        raise ValueError(f"not a move kind: {code}")
    rest, target = divmod(code, len(TARGETS))
    rest, direction = divmod(rest, len(DIRECTIONS))
    rest, multi = divmod(rest, 2)
    rank, moved = divmod(rest, 2)
    return (
        f"{RANKS[rank]} {('unmoved', 'moved')[moved]} {('step', 'multi')[multi]} "
        f"{DIRECTIONS[direction]} {TARGETS[target]}"
    )


def _targets(own: npt.NDArray[np.int64], byte: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Each move's target class (:data:`TARGETS`) from its target square's byte."""
    opponent = (byte & _OPPONENT) != 0
    known = opponent & ((byte & _KNOWN) != 0)
    rank = (byte & 15) - 1  # read only where known
    target = np.where((byte & _MOVED) != 0, 2, 1)
    bomb, flag = RANKS.index("bomb"), RANKS.index("flag")
    by_rank = np.select(
        [rank == bomb, rank == flag, rank < own, rank == own],
        [3, 7, 4, 5],
        default=6,
    )
    target = np.where(known, by_rank, target)
    return np.where(opponent, target, 0)


def move_kinds(
    board_view: npt.NDArray[np.uint8], legal_ids: npt.NDArray[np.integer[Any]]
) -> npt.NDArray[np.int64]:
    """The kind code (:func:`kind_name`) of every legal move of a batch, ``[n, L]`` like
    ``legal_ids`` (-1 where it is padding)."""
    ids = np.asarray(legal_ids, dtype=np.int64)
    pad = ids < 0
    ids = np.where(pad, 0, ids)
    source, target = ids // 100, ids % 100
    rows = np.arange(len(ids))[:, None] * 100
    flat = np.asarray(board_view, dtype=np.uint8).reshape(-1).astype(np.int64)
    mover = flat[rows + source]
    own = np.clip((mover & 15) - 1, 0, len(RANKS) - 1)
    moved = (mover & _MOVED) != 0
    rise = target // 10 - source // 10
    multi = (np.abs(rise) + np.abs(target % 10 - source % 10)) > 1
    direction = np.where(rise > 0, 0, np.where(rise < 0, 1, 2))
    code = (((own * 2 + moved) * 2 + multi) * len(DIRECTIONS) + direction) * len(TARGETS)
    code = code + _targets(own, flat[rows + target])
    return np.where(pad, -1, code)


def same_piece(
    legal_ids: npt.NDArray[np.integer[Any]], last_moves: npt.NDArray[np.integer[Any]]
) -> npt.NDArray[np.bool_]:
    """``[n, L]``: whether each legal move moves the piece the mover moved on its previous
    turn (its source is that move's target; ``last_moves`` left-padded with -1, the
    latest ply last, so the mover's own previous ply is the second last entry)."""
    moves = np.asarray(last_moves, dtype=np.int64)
    if moves.shape[1] < 2:
        return np.zeros(np.shape(legal_ids), dtype=bool)
    previous = moves[:, -2]
    landed = np.where(previous >= 0, previous % 100, -1)
    ids = np.asarray(legal_ids, dtype=np.int64)
    same: npt.NDArray[np.bool_] = (ids >= 0) & (ids // 100 == landed[:, None])
    return same
