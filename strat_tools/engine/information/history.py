"""How each piece has moved: a truth-free history per piece, the same for both players.

Both players see every move (its squares, never a hidden rank) and every battle's
outcome (which square is left holding whose piece), so each can follow every piece from
its setup square: where it started, how often and which way it has moved. A belief model
reads this (``belief-v1``: "that piece has not moved for 80 plies and never came near
my pieces" is evidence about what it is). :class:`PieceHistory` is the one definition:
``Position.beliefs`` plays a position's move stack through it and the benchmark's belief
rows (:mod:`strat_tools.benchmark.belief_rows`) play each game's rows through it, so both
give a model exactly the same inputs.

A history is brought forward one ply at a time from the squares' **owners** (0 none,
1 red, 2 blue; Gravon squares): :meth:`PieceHistory.start` with the owners before the
first ply, :meth:`PieceHistory.play` with each ply's source, target and the owners after
it. A piece is named by the square it started on; a battle's target keeps the piece whose
owner holds it afterwards. :meth:`PieceHistory.fields` gives, in a side's view, one
``uint8`` array of 100 squares per name of :data:`HISTORY_FIELDS` (0 where no piece
stands; counts capped at 255):

- ``piece_start``: the square (in that side's view) the piece started on;
- ``piece_moves``: how many moves it has made;
- ``piece_idle``: plies since its last move (since the first position if it never moved);
- ``piece_back``: its moves toward its own back row;
- ``piece_near``: its moves that ended next to (orthogonally) a piece of its opponent.

>>> owners = np.zeros(100, np.uint8)
>>> owners[:40], owners[60:] = 1, 2
>>> history = PieceHistory(owners)
>>> after = owners.copy()
>>> after[[31, 41]] = 0, 1  # red's piece from 31 steps forward to 41
>>> history.play(31, 41, after)
>>> after2 = after.copy()
>>> after2[[61, 51]] = 0, 2  # blue's from 61 to 51, next to red's on 41
>>> history.play(61, 51, after2)
>>> fields = history.fields(1)  # red's view: Gravon squares as they are
>>> [int(fields["piece_start"][51]), int(fields["piece_moves"][51]), int(fields["piece_near"][51])]
[61, 1, 1]
>>> int(fields["piece_idle"][41]), int(fields["piece_idle"][0])
(1, 2)
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.errors import InputError

__all__ = [
    "HISTORY_FIELDS",
    "PieceHistory",
    "RowHistory",
    "game_histories",
    "owners_of_view",
    "stack_history",
]

HISTORY_FIELDS: Final = ("piece_start", "piece_moves", "piece_idle", "piece_back", "piece_near")
"""The per-piece history fields, each ``uint8`` ``[n, 100]`` in the mover's view."""
_CAP: Final = 255
_NEIGHBOURS: Final = tuple(
    tuple(
        s + d for d, ok in ((-10, s >= 10), (10, s < 90), (-1, s % 10 > 0), (1, s % 10 < 9)) if ok
    )
    for s in range(100)
)
_TURN: Final = np.arange(99, -1, -1)


def owners_of_view(board_view: npt.ArrayLike, side: int) -> npt.NDArray[np.uint8]:
    """The owners (0 none, 1 red, 2 blue; Gravon squares) of a board view ``[100]`` of
    ``side`` (1 red, 2 blue): what both players see of who stands where."""
    view = np.asarray(board_view, np.uint8)
    kind = view & 0x0F
    occupied = ((kind >= 1) & (kind <= 12)) | (kind == 14)
    theirs = (view & 0x10) != 0
    owner = np.where(occupied, np.where(theirs, 3 - side, side), 0).astype(np.uint8)
    return owner[::-1].copy() if side == 2 else owner


class PieceHistory:
    """The history of every piece of one game, brought forward ply by ply (the module's
    docstring). ``owners``: who stands where before the first ply (Gravon squares)."""

    def __init__(self, owners: npt.ArrayLike) -> None:
        self.owners = np.array(owners, np.uint8)
        if self.owners.shape != (100,):
            raise InputError("a piece history starts from the owners of 100 squares")
        self.piece = np.where(self.owners > 0, np.arange(100), -1)
        self.moves = np.zeros(100, np.int64)
        self.last = np.zeros(100, np.int64)  # the ply of its last move (0: never moved)
        self.back = np.zeros(100, np.int64)
        self.near = np.zeros(100, np.int64)
        self.ply = 0

    def copy(self) -> PieceHistory:
        """An independent copy (a position's copy gets one)."""
        other = PieceHistory.__new__(PieceHistory)
        other.owners, other.piece = self.owners.copy(), self.piece.copy()
        other.moves, other.last = self.moves.copy(), self.last.copy()
        other.back, other.near, other.ply = self.back.copy(), self.near.copy(), self.ply
        return other

    def play(self, source: int, target: int, owners: npt.ArrayLike) -> None:
        """One ply: the piece on ``source`` moved to ``target``; ``owners`` after it."""
        after = np.asarray(owners, np.uint8)
        mover = int(self.piece[source])
        side = int(self.owners[source])
        if mover < 0 or side == 0 or not (0 <= target < 100):
            raise InputError(f"a move from {source} to {target}, where no piece stands")
        self.ply += 1
        self.moves[mover] += 1
        self.last[mover] = self.ply
        toward_back = (target // 10 < source // 10) if side == 1 else (target // 10 > source // 10)
        self.back[mover] += int(toward_back)
        self.piece[source] = -1
        if after[target] == side:
            self.piece[target] = mover
            if any(after[n] == 3 - side for n in _NEIGHBOURS[target]):
                self.near[mover] += 1
        elif after[target] == 0:
            self.piece[target] = -1
        self.piece[after == 0] = -1
        self.owners = after.copy()

    def fields(self, side: int) -> dict[str, npt.NDArray[np.uint8]]:
        """:data:`HISTORY_FIELDS` in ``side``'s view (1 red, 2 blue), 100 squares each."""
        piece = self.piece if side == 1 else self.piece[_TURN]
        here = piece >= 0
        which = np.where(here, piece, 0)
        start = which if side == 1 else 99 - which
        idle = self.ply - self.last[which]
        values = {
            "piece_start": start,
            "piece_moves": self.moves[which],
            "piece_idle": idle,
            "piece_back": self.back[which],
            "piece_near": self.near[which],
        }
        return {
            name: np.where(here, np.minimum(value, _CAP), 0).astype(np.uint8)
            for name, value in values.items()
        }


class RowHistory:
    """The histories of observation rows (``board_view``, ``side``, ``ply`` and the
    latest of ``last_moves``, all truth-free), a game's rows in ply order, brought forward
    across calls: a game's row of ply 1 starts a :class:`PieceHistory` from its board
    view, each later row plays the ply before it (its latest ``last_moves`` entry, in the
    row's view) with the owners its board view shows. So the benchmark's batches get, row by
    row, what :meth:`PieceHistory.fields` gives ``Position.beliefs`` for the same moves."""

    def __init__(self) -> None:
        self.history: PieceHistory | None = None
        self.ply = 0

    def rows(
        self,
        board_view: npt.ArrayLike,
        side: npt.ArrayLike,
        ply: npt.ArrayLike,
        latest_move: npt.ArrayLike,
        wanted: npt.ArrayLike | None = None,
    ) -> dict[str, npt.NDArray[np.uint8]]:
        """:data:`HISTORY_FIELDS` ``[n, 100]`` of ``n`` consecutive rows (``side`` 1 red
        or 2 blue, ``latest_move`` the move id of the ply before, in the row's view; -1 on
        a first ply); ``wanted`` (bool ``[n]``) computes only those rows' (the others 0)."""
        views = np.asarray(board_view, np.uint8)
        sides, plies = np.asarray(side, np.int64), np.asarray(ply, np.int64)
        moves = np.asarray(latest_move, np.int64)
        keep = np.ones(len(views), bool) if wanted is None else np.asarray(wanted, bool)
        out = {name: np.zeros((len(views), 100), np.uint8) for name in HISTORY_FIELDS}
        for row in range(len(views)):
            side_, ply_ = int(sides[row]), int(plies[row])
            owners = owners_of_view(views[row], side_)
            if ply_ == 1:
                self.history = PieceHistory(owners)
            elif self.history is None or ply_ != self.ply + 1 or moves[row] < 0:
                raise InputError(
                    f"a game's rows are not in ply order (ply {ply_} after {self.ply})"
                )
            else:
                source, target = divmod(int(moves[row]), 100)
                if side_ == 2:
                    source, target = 99 - source, 99 - target
                self.history.play(source, target, owners)
            self.ply = ply_
            if keep[row]:
                for name, value in self.history.fields(side_).items():
                    out[name][row] = value
        return out


def stack_history(
    boards: npt.ArrayLike, moves: list[tuple[int, int]], side: int
) -> dict[str, npt.NDArray[np.uint8]]:
    """:data:`HISTORY_FIELDS` ``[1, 100]`` in ``side``'s view after ``moves`` (Gravon
    source and target of each ply) from ``boards`` (``[len(moves) + 1, 100]`` owners:
    row 0 before the first ply, row ``p`` after ply ``p``): ``Position.beliefs``'s."""
    return game_histories(boards, moves, side, [len(moves)])


def game_histories(
    boards: npt.ArrayLike,
    moves: list[tuple[int, int]],
    side: int,
    positions: npt.ArrayLike | None = None,
) -> dict[str, npt.NDArray[np.uint8]]:
    """:data:`HISTORY_FIELDS` ``[len(positions), 100]`` in ``side``'s view at each of
    ``positions`` (0: before the first ply, ``p``: after ply ``p``; None: every one), from
    ``boards`` and ``moves`` as :func:`stack_history` takes them: one pass over the game,
    whoever is to move at each position (the viewer's beliefs of one side at every ply)."""
    owners = np.asarray(boards, np.uint8)
    wanted = np.arange(len(moves) + 1) if positions is None else np.asarray(positions, np.int64)
    out = {name: np.zeros((len(wanted), 100), np.uint8) for name in HISTORY_FIELDS}
    rows: dict[int, list[int]] = {}
    for row, position in enumerate(wanted.tolist()):
        if not 0 <= position <= len(moves):
            raise InputError(f"position {position} is not in 0..{len(moves)}")
        rows.setdefault(position, []).append(row)
    history = PieceHistory(owners[0])
    for ply in range(len(moves) + 1):
        if ply:
            history.play(*moves[ply - 1], owners[ply])
        if ply in rows:
            for name, value in history.fields(side).items():
                out[name][rows[ply]] = value
        if ply >= max(rows, default=-1):
            break
    return out
