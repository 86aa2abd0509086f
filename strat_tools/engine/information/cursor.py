"""What the side to move knows now, kept up to date as moves are pushed: a game loop that
pushes a move and observes costs a constant time a ply, not the length of its move stack.

A :class:`Position` keeps a :class:`KnowledgeCursor` (``pos.seen``): the knowledge model's
resumable state (:class:`~strat_tools.engine.information.knowledge.KnowledgeState`, the one
statement of what a move, a battle and a rescue show) after the moves on its stack, the
last battle's ply and the history entry it stands on. :func:`advanced` brings it past the
moves pushed since (those only); after a :meth:`~Position.pop`, a copy without its stack or
anything else it does not recognise, it starts again from the oldest position on the stack,
so it always equals :meth:`Position.knowledge`'s last row (a test on every ply of the
sample's games).

:func:`position_rows` is the position's truth-free row, made by
:func:`~strat_tools.engine.information.mover_rows.mover_rows` as the export makes its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side
from strat_tools.core.defaults import default_model
from strat_tools.core.errors import UsageError
from strat_tools.core.move import Move
from strat_tools.core.pieces import CODE_SIDE
from strat_tools.core.rules import RuleSet
from strat_tools.engine.information.beliefs import BeliefModel, known_beliefs
from strat_tools.engine.information.history import HISTORY_FIELDS, PieceHistory
from strat_tools.engine.information.knowledge import Knowledge, KnowledgeState
from strat_tools.engine.information.move_policy import (
    MovePolicy,
    MoveProbabilities,
    normalised_rows,
)
from strat_tools.engine.information.mover_rows import (
    LAST_MOVES,
    ROW_FIELDS,
    MoverRows,
    mover_rows,
    row_batch,
)
from strat_tools.engine.information.mover_view import view_keys
from strat_tools.engine.information.planes import encode_boards, view_row
from strat_tools.engine.rules.rule_state import History, RuleState

__all__ = [
    "KnowledgeCursor",
    "advanced",
    "cursor_beliefs",
    "cursor_board",
    "cursor_knowledge",
    "move_probabilities",
    "position_rows",
    "with_history",
]

_CODE_SIDE = np.asarray(CODE_SIDE, np.uint8)


class StackedPosition(Protocol):
    """What the cursor reads of a position (``engine/position/position.Position``, which
    imports this module: a protocol keeps the imports one way)."""

    @property
    def board(self) -> list[int]: ...
    @property
    def rules(self) -> RuleSet: ...
    @property
    def history(self) -> History | None: ...
    @property
    def state(self) -> RuleState: ...
    @property
    def side(self) -> Side: ...
    @property
    def legal_moves(self) -> Sequence[Move]: ...


class KnowledgeCursor:
    """The knowledge after a position's moves (see the module docstring)."""

    __slots__ = ("depth", "entry", "history", "last_battle", "state")

    def __init__(self, state: KnowledgeState, entry: History | None) -> None:
        self.state = state
        self.entry = entry
        """The history entry of the last move played into ``state`` (None: none)."""
        self.depth = 0
        """How many moves were played into ``state``."""
        self.last_battle = -1
        """The index (0-based, from the oldest position) of the last battle, -1 if none."""
        self.history: PieceHistory | None = None
        """The pieces' histories after the same moves, once a belief model asked for them
        (:func:`with_history`; None until then: a plain game loop does not pay for them)."""

    def copy(self) -> KnowledgeCursor:
        """An independent copy (a position's copy gets one)."""
        other = KnowledgeCursor(self.state.copy(), self.entry)
        other.depth, other.last_battle = self.depth, self.last_battle
        other.history = self.history.copy() if self.history is not None else None
        return other

    def brought_to(self, pos: StackedPosition) -> KnowledgeCursor:
        """:func:`advanced` of this cursor: what a position calls each time it is asked
        what it knows (a method: the position's module loads this one only on first use)."""
        return advanced(self, pos)

    def view(self, side: Side | int) -> npt.NDArray[np.uint8]:
        """``side``'s board view now (``Position.observe``: the board view of
        :func:`cursor_board`, one row of
        :func:`~strat_tools.engine.information.planes.encode_views`), from the state's bytes
        without NumPy but for the array returned."""
        state = self.state
        return np.frombuffer(bytearray(view_row(state.board, state.flags, int(side))), np.uint8)

    def play(self, entries: list[History]) -> None:
        """Bring the state past ``entries`` (oldest first), pushed after :attr:`entry`."""
        for entry in entries:
            self.step(entry)

    def step(self, entry: History) -> None:
        """Bring the state past ``entry``, the move pushed after :attr:`entry` (a game
        loop's ply: one call)."""
        move, event = entry.move, entry.event
        self.state.play_plies(((move.source, move.target, *event, move.rescue),))
        if self.history is not None:  # each history step reads who stands where after it
            self.history.play(move.source, move.target, _owners(self.state.board))
        if event[1]:
            self.last_battle = self.depth
        self.depth += 1
        self.entry = entry


def advanced(cursor: KnowledgeCursor | None, pos: StackedPosition) -> KnowledgeCursor:
    """``cursor`` brought to ``pos``'s last move (a new one when ``cursor`` is None or is
    not on ``pos``'s move stack)."""
    entry = pos.history
    if cursor is not None:  # a game loop's ply: nothing or one move pushed since
        if entry is cursor.entry:
            return cursor
        if entry is not None and entry.previous is cursor.entry:
            cursor.step(entry)
            return cursor
    newer: list[History] = []
    target = cursor.entry if cursor is not None else None
    while entry is not None and entry is not target:
        newer.append(entry)
        entry = entry.previous
    newer.reverse()
    if cursor is None or entry is not target:
        start = newer[0].board if newer else pos.board
        cursor = KnowledgeCursor(KnowledgeState(start, pos.rules), None)
    cursor.play(newer)
    return cursor


def _owners(board: bytes | bytearray | memoryview) -> npt.NDArray[np.uint8]:
    return _CODE_SIDE[np.frombuffer(bytes(board), np.uint8)]


def with_history(cursor: KnowledgeCursor, pos: StackedPosition) -> KnowledgeCursor:
    """``cursor`` brought to ``pos`` (:func:`advanced`) and keeping the pieces' histories
    (:class:`~strat_tools.engine.information.history.PieceHistory`): the first time, a new
    cursor played from the oldest position on the stack (the game's length once); later,
    only the moves pushed since. ``Position.beliefs`` of a model that reads them."""
    cursor = advanced(cursor, pos)
    if cursor.history is not None:
        return cursor
    entries: list[History] = []
    entry = pos.history
    while entry is not None:
        entries.append(entry)
        entry = entry.previous
    entries.reverse()
    start = entries[0].board if entries else pos.board
    fresh = KnowledgeCursor(KnowledgeState(start, pos.rules), None)
    fresh.history = PieceHistory(_owners(fresh.state.board))
    fresh.play(entries)
    return fresh


def cursor_beliefs(
    pos: StackedPosition, cursor: KnowledgeCursor, model: BeliefModel | None
) -> tuple[KnowledgeCursor, dict[int, dict[str, float]]]:
    """``pos.beliefs(model)``: the side to move's beliefs from its knowledge ``cursor``,
    and the cursor to keep (one keeping the pieces' histories when ``model`` reads them,
    :func:`with_history`: a game loop's beliefs cost a constant time a ply too)."""
    histories = None
    if model is not None and set(HISTORY_FIELDS) & set(model.fields):
        cursor = with_history(cursor, pos)
        assert cursor.history is not None
        histories = {k: v[None] for k, v in cursor.history.fields(int(pos.side)).items()}
    know = cursor_knowledge(cursor)
    return cursor, known_beliefs(know, pos.side, model, histories=histories)


def cursor_knowledge(cursor: KnowledgeCursor) -> Knowledge:
    """The cursor's state as a :class:`Knowledge` of one row."""
    state = cursor.state

    def row(data: bytes | bytearray | memoryview, shape: tuple[int, ...]) -> npt.NDArray[np.uint8]:
        return np.frombuffer(bytes(data), np.uint8).reshape(shape)

    return Knowledge(
        row(state.board, (1, 100)),
        row(state.flags, (1, 100)),
        row(state.captured, (1, 2, 12)),
        row(state.unseen, (1, 2, 12)),
        row(state.hidden, (1, 2, 12)),
        state.army_shown,
    )


def cursor_board(cursor: KnowledgeCursor, side: Side | int) -> npt.NDArray[np.uint8]:
    """``side``'s observation board now, *with the hidden truth*
    (``Position.observation_with_truth``; its board view is :meth:`KnowledgeCursor.view`)."""
    board = np.frombuffer(cursor.state.board, np.uint8)
    flags = np.frombuffer(cursor.state.flags, np.uint8)
    found: npt.NDArray[np.uint8] = encode_boards(board, flags, (int(side),))[0]
    return found


def position_rows(pos: StackedPosition, cursor: KnowledgeCursor) -> MoverRows:
    """``pos``'s truth-free row (the export's row of the ply about to be played), from its
    knowledge ``cursor`` and its last moves. The position must be reached from a game's
    start: its move stack goes back to ply 0 (a record's position, or one set up and
    pushed), as the benchmark's rows do; else a :class:`UsageError` says so."""
    depth = cursor.depth
    if pos.state.plies != depth or int(pos.side) != 1 + depth % 2:
        raise UsageError(
            f"this position's move stack holds {depth} moves but it is at ply "
            f"{pos.state.plies}, {pos.side} to move: a move policy reads the moves since the "
            "game's start (a record's position, or one set up and pushed)"
        )
    recent: list[History] = []
    entry = pos.history
    while entry is not None and len(recent) < LAST_MOVES:
        recent.append(entry)
        entry = entry.previous
    recent.reverse()
    keys = [e.move.source * 100 + e.move.target for e in recent]
    mover = pos.state.chains[pos.side - 1].length
    opponent = pos.state.chains[Side(pos.side).other - 1].length
    chains = [mover, opponent][-min(depth, 2) :] if depth else []
    absolute = np.array([m.source * 100 + m.target for m in pos.legal_moves], np.int64)
    ids = np.sort(view_keys(absolute, pos.side == Side.BLUE)).astype(np.int16)
    legal = (np.array([0, len(ids)], np.int32), ids)
    return mover_rows(
        cursor_knowledge(cursor),
        legal,
        keys,
        chains,
        [],
        start=depth,
        last_battle=cursor.last_battle,
    )


def move_probabilities(
    pos: StackedPosition, cursor: KnowledgeCursor, policy: MovePolicy | None = None
) -> MoveProbabilities:
    """``pos.move_probabilities(policy)``: ``policy``'s distribution (None: the shipped
    default, :func:`~strat_tools.core.defaults.default_model`) over ``pos``'s legal moves,
    from its truth-free row (:func:`position_rows`) as a one-row batch."""
    chosen = default_model("move") if policy is None else policy
    if not isinstance(chosen, MovePolicy):
        raise UsageError(
            f"{type(chosen).__name__} is not a move policy (name, fields, log_probs, card)",
            option="policy",
        )
    wrong = [name for name in chosen.fields if name not in ROW_FIELDS]
    if wrong:
        raise UsageError(
            f"policy {chosen.name!r} asks for {', '.join(map(repr, wrong))}: a policy reads "
            f"only the truth-free fields ({', '.join(ROW_FIELDS)})",
            option="policy",
        )
    if pos.state.winner or not len(pos.legal_moves):
        raise UsageError("the game is over here: no legal move to give a probability")
    rows = position_rows(pos, cursor)
    batch = row_batch(rows, chosen.fields)
    count = int(batch["legal_count"][0])
    ids = batch["legal_ids"][0, :count]
    log_probs = normalised_rows(chosen, batch)[0, :count]
    keys = view_keys(ids.astype(np.int64), pos.side == Side.BLUE)
    moves = tuple(Move(int(key) // 100, int(key) % 100) for key in keys)
    return MoveProbabilities(moves, ids, log_probs, chosen.name, Side(pos.side))
