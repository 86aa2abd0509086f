"""The observation rows of one game, column by column: what each row holds
(:data:`OBSERVATIONS_SCHEMA`), a game's columns from its replay, knowledge and legal moves
(:func:`game_columns`, a window of plies at a time if asked), and a batch's columns as one
Arrow table (:func:`observations_table`).

A game longer than :data:`WINDOW_PLIES` plies is never held whole: :func:`packed_game`
makes its rows a window at a time (the knowledge pass and the legal moves too) and keeps
each window's table compressed, and :func:`unpacked_windows` gives them back one at a time
where they are written, so the memory a game costs is a window's, however long it is (a
legal game may be as long as anyone likes: a 1,000,000-ply one took 1.1 GB whole).

This module knows no files (:mod:`strat_tools.exports.observation_files`) and no rules
(the engine does); the batches, the games table and the run are
:mod:`strat_tools.exports.observations`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from strat_tools.engine.information.knowledge import Knowledge, knowledge_windows
from strat_tools.engine.information.mover_rows import LAST_MOVES, mover_rows
from strat_tools.engine.information.mover_view import view_keys
from strat_tools.engine.information.planes import (
    CHANNELS,
    CHANNELS_VERSION,
    CODE_VERSION,
    board_views,
)
from strat_tools.engine.moves import Moves
from strat_tools.engine.moves.games import ReplayWalk, game_legal_ids
from strat_tools.engine.replays.replay import Replay
from strat_tools.tables.columns import dictionary_column, labels_column

OBSERVATIONS_VERSION: Final = 4
"""Version of :data:`OBSERVATIONS_SCHEMA` (and of the files an export writes; 4 added
``legal_count`` and ``action_index``)."""
WINDOW_PLIES: Final = 65_536
"""A game of more plies than this is observed and kept a window of this many plies at a
time (:func:`packed_game`); the games of the archive are far shorter (their rows are made
and written as before)."""

_ACTIONS = pa.list_(pa.int16())

LABEL_COLUMNS: Final = ("winner", "value", "board", "action", "action_index")
"""The columns that carry what the mover could not know: the result, the hidden truth, the
move played (its id and its index among the legal moves)."""

OBSERVATIONS_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        pa.field("side", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("variant", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("rules", pa.string(), nullable=False),
        pa.field("winner", pa.dictionary(pa.int8(), pa.string())),
        pa.field("value", pa.int8()),
        pa.field("board_view", pa.binary(100), nullable=False),
        pa.field("board", pa.binary(100), nullable=False),
        pa.field("captured", pa.binary(24), nullable=False),
        pa.field("unseen", pa.binary(12), nullable=False),
        pa.field("own_repetition", pa.int8(), nullable=False),
        pa.field("opponent_repetition", pa.int8(), nullable=False),
        pa.field("plies_since_battle", pa.int32(), nullable=False),
        pa.field("last_moves", _ACTIONS, nullable=False),
        pa.field("action", pa.int16(), nullable=False),
        pa.field("legal_actions", _ACTIONS, nullable=False),
        pa.field("legal_count", pa.int16(), nullable=False),
        pa.field("action_index", pa.int16(), nullable=False),
    ],
    metadata={
        "version": str(OBSERVATIONS_VERSION),
        "board_code_version": str(CODE_VERSION),
        "channels_version": str(CHANNELS_VERSION),
        "channels": ",".join(CHANNELS),
        "doc": "One row per ply of a valid game, from the side to move's view; squares and "
        "action ids in that side's own view. See docs/observations.md.",
        "labels": ",".join(LABEL_COLUMNS),
    },
)
"""The observations table:

- ``game_id``; ``ply`` (1 = the first move: the row is the position before it); ``side``
  (``red``/``blue``, the side to move); ``variant``; ``rules`` (the rule set replayed);
- ``winner`` (recorded: ``red``, ``blue``, null for a draw or unknown, as in the games
  table, :mod:`strat_tools.tables.schemas`; version 1 had Gravon's codes) and ``value`` (from
  the mover's side: 1 won, -1 lost, 0 draw, null unknown), for value targets;
- ``board_view``: the **truth-free** observation board (100 bytes,
  :func:`~strat_tools.engine.information.planes.board_views`): an opponent piece the mover has not
  identified keeps only "moved / not moved", never its rank; what a model of the mover reads;
- ``board``: a **label** (the belief task's): the same board with the hidden truth of every
  opponent piece the mover cannot identify (:mod:`strat_tools.engine.information.planes`);
- ``captured``: 24 counts, the mover's pieces removed so far by kind (bomb, spy ... flag),
  then the opponent's; ``unseen``: 12 counts, the opponent's pieces of each kind the mover
  has not identified yet (on the board or captured);
- ``own_repetition``/``opponent_repetition``: the two-squares counter of each side, how
  many moves in a row its last-moved piece has gone back and forth (0 before its first
  move, 1 when the last move started no chain);
- ``plies_since_battle``: plies since the last battle (since the start if none);
- ``last_moves``: the ids of the last plies of both sides (up to ``last_moves``, oldest
  first); ``action``: the id of the move played; ``legal_actions``: the ids of every legal
  move, ascending; ``legal_count``: how many (the length of ``legal_actions``);
- ``action_index``: a **label**, the index of ``action`` in ``legal_actions`` (0 the
  smallest id; :func:`action_indices`): the position of the played move in a prediction
  aligned with the legal moves, what the scorer reads instead of the lists (version 4).

The label columns (:data:`LABEL_COLUMNS`: what the scorer and the belief task read, never a
model's input) are ``winner``, ``value``, ``board``, ``action`` and ``action_index``; every
other column is what the mover could know at that ply (:data:`TRUTH_FREE_COLUMNS`).
"""

TRUTH_FREE_COLUMNS: Final = tuple(n for n in OBSERVATIONS_SCHEMA.names if n not in LABEL_COLUMNS)
"""The columns a model of the mover may read (``captured`` counts opponent pieces removed,
each shown in its battle under every rule set without silent defense)."""


@dataclass(frozen=True, slots=True)
class GameObservations:
    """One game's observation columns as NumPy arrays, one row a ply (see
    :data:`OBSERVATIONS_SCHEMA`); :func:`observations_table` turns the games of a batch into
    one Arrow table at once (Arrow's per-call cost is paid once a batch, not once a game)."""

    variant: str
    rules: str
    winner: int | None
    boards: npt.NDArray[np.uint8]
    captured: npt.NDArray[np.uint8]
    unseen: npt.NDArray[np.uint8]
    own_repetition: npt.NDArray[np.int64]
    opponent_repetition: npt.NDArray[np.int64]
    plies_since_battle: npt.NDArray[np.int32]
    last_moves: tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]
    """``(offsets, ids)`` of each row's ``last_moves`` list."""
    actions: npt.NDArray[np.int16]
    legal: tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]
    """``(offsets, ids)`` of each row's ``legal_actions`` list."""
    action_index: npt.NDArray[np.int64]
    """Each row's ``action_index`` (:func:`action_indices`)."""

    @property
    def plies(self) -> int:
        """How many rows the game gives."""
        return len(self.actions)


@dataclass(frozen=True, slots=True)
class PackedRows:
    """A long game's observation rows, window by window: each window's table (at most
    :data:`WINDOW_PLIES` rows) as a zstd-compressed Arrow IPC stream (a few bytes a row
    where the table holds a few hundred), unpacked one at a time where they are written
    (:func:`unpacked`)."""

    windows: tuple[bytes, ...]
    plies: int


def game_columns(
    result: Replay,
    know: Knowledge,
    legal: Moves,
    last_moves: int = LAST_MOVES,
    *,
    start: int = 0,
    last_battle: int = -1,
) -> GameObservations:
    """The observation columns of one replayed game (with moves and a setup), from its
    knowledge and its legal moves before each ply. With ``start``, of a window of it: the
    plies ``start + 1`` on, as many as ``legal`` has rows (``know``'s first rows are the
    positions before them; ``last_battle`` the index of the last ply before ``start`` that
    was a battle, -1 if none). The truth-free columns are
    :func:`~strat_tools.engine.information.mover_rows.mover_rows`' (the one definition a
    ``Position``'s row shares); this adds the record's labels."""
    record = result.record
    n = len(legal[0]) - 1
    stop = start + n
    first = max(start - last_moves, 0)
    absolute = np.asarray(record.sources[first:stop], np.int64) * 100 + np.asarray(
        record.targets[first:stop], np.int64
    )
    battles = np.flatnonzero(np.asarray(result.defenders[start:stop]) != 0) + start
    rows = mover_rows(
        know,
        legal,
        absolute,
        result.chains[max(start - 2, 0) : stop],
        battles,
        start=start,
        last_battle=last_battle,
        last_moves=last_moves,
    )
    blue = rows.sides == 2
    actions = view_keys(absolute[start - first :], blue).astype(np.int16)
    index = action_indices(legal[0], legal[1], actions)
    if index is None:  # a valid game's move is legal: the replay and its legal moves disagree
        raise ValueError("a move played is not once among the legal moves of its ply")
    return GameObservations(
        variant=record.variant,
        rules=result.rules.name,
        winner=record.result.winner if record.result is not None else None,
        boards=rows.boards,
        captured=rows.captured,
        unseen=rows.unseen,
        own_repetition=rows.own_repetition,
        opponent_repetition=rows.opponent_repetition,
        plies_since_battle=rows.plies_since_battle,
        last_moves=rows.last_moves,
        actions=actions,
        legal=legal,
        action_index=index,
    )


def observations_table(games: Sequence[tuple[str, GameObservations]]) -> pa.Table:
    """One observations table of the games of a batch, ``(game_id, columns)`` each, in
    order: every column built once for all of them."""
    if not games:
        return OBSERVATIONS_SCHEMA.empty_table()
    parts = [game for _, game in games]
    counts = np.fromiter((game.plies for game in parts), np.int64, len(parts))
    total = int(counts.sum())
    which = np.repeat(np.arange(len(parts), dtype=np.int32), counts)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    ply = (np.arange(total) - np.repeat(starts, counts) + 1).astype(np.int32)
    side_index = ((ply - 1) % 2).astype(np.int8)  # 0 red, 1 blue
    winners = np.fromiter((g.winner or 0 for g in parts), np.int64, len(parts))[which]
    known = (winners == 1) | (winners == 2)
    value = np.where(winners == 3, 0, np.where(side_index + 1 == winners, 1, -1))
    boards = np.concatenate([g.boards for g in parts])
    legal = _lists([g.legal for g in parts])
    columns: list[Any] = [
        _repeated([game_id for game_id, _ in games], which),
        pa.array(ply),
        dictionary_column("side", side_index),
        labels_column("variant", _repeated([g.variant for g in parts], which, labels=True)),
        _repeated([g.rules for g in parts], which),
        dictionary_column("winner", winners - 1, mask=~known),
        pa.array(value.astype(np.int8), pa.int8(), mask=~(known | (winners == 3))),
        _fixed(board_views(boards), 100),
        _fixed(boards, 100),
        _fixed(np.concatenate([g.captured for g in parts]), 24),
        _fixed(np.concatenate([g.unseen for g in parts]), 12),
        pa.array(np.concatenate([g.own_repetition for g in parts]), pa.int8()),
        pa.array(np.concatenate([g.opponent_repetition for g in parts]), pa.int8()),
        pa.array(np.concatenate([g.plies_since_battle for g in parts])),
        _lists([g.last_moves for g in parts]),
        pa.array(np.concatenate([g.actions for g in parts])),
        legal,
        pa.array(np.diff(legal.offsets.to_numpy()).astype(np.int16)),
        pa.array(np.concatenate([g.action_index for g in parts]).astype(np.int16)),
    ]
    return pa.Table.from_arrays(columns, schema=OBSERVATIONS_SCHEMA)


def action_indices(
    offsets: npt.NDArray[Any], ids: npt.NDArray[Any], actions: npt.NDArray[Any]
) -> npt.NDArray[np.int64] | None:
    """Each row's ``action_index``: the index of its ``actions[i]`` among its legal ids
    ``ids[offsets[i] - offsets[0] : offsets[i + 1] - offsets[0]]`` (a list column's
    offsets and flat values), or None unless every row holds its action exactly once.

    >>> action_indices(np.array([0, 3, 5]), np.array([4, 7, 9, 1, 2]), np.array([9, 1]))
    array([2, 0])
    >>> action_indices(np.array([0, 3, 5]), np.array([4, 7, 9, 1, 2]), np.array([9, 5])) is None
    True
    """
    offsets = np.asarray(offsets, np.int64)
    offsets = offsets - offsets[0]
    count = np.diff(offsets)
    hit = np.flatnonzero(ids == np.repeat(np.asarray(actions).astype(ids.dtype), count))
    # once in each row: as many hits as rows, the i-th inside row i
    once = len(hit) == len(count) and bool(((hit >= offsets[:-1]) & (hit < offsets[1:])).all())
    return hit - offsets[:-1] if once else None


def _repeated(values: list[str], which: npt.NDArray[np.int32], *, labels: bool = False) -> pa.Array:
    """``values[which]`` as a string column (as a dictionary array with ``labels``, which
    :func:`labels_column` maps without per-row string work)."""
    unique = sorted(set(values))
    if len(unique) == 1:
        codes = np.zeros(len(which), np.int32)
    else:
        position = {value: i for i, value in enumerate(unique)}
        codes = np.fromiter((position[v] for v in values), np.int32, len(values))[which]
    column = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(unique, pa.string()))
    return column if labels else column.cast(pa.string())


def _lists(parts: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]]) -> pa.ListArray:
    """One ``list<int16>`` column of the ``(offsets, values)`` lists of consecutive games."""
    sizes = np.fromiter((len(values) for _, values in parts), np.int64, len(parts))
    bases = np.concatenate(([0], np.cumsum(sizes)))
    offsets = np.concatenate(
        [offsets[:-1] + base for (offsets, _), base in zip(parts, bases, strict=False)]
        + [bases[-1:]]
    ).astype(np.int32)
    values = np.concatenate([values for _, values in parts]).astype(np.int16, copy=False)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values), type=_ACTIONS)


def _fixed(rows: npt.NDArray[np.uint8], width: int) -> pa.Array:
    """A ``binary(width)`` column of the rows of a ``[n, width]`` uint8 array."""
    data = np.ascontiguousarray(rows, dtype=np.uint8)
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), len(data), [None, pa.py_buffer(data.tobytes())]
    )


def packed_game(
    result: Replay, window: int, last_moves: int = LAST_MOVES, compiled: bool = False
) -> PackedRows:
    """The rows of one replayed game (with moves and a setup), made ``window`` plies at a
    time (an even number: each window starts with red to move) from
    :func:`~strat_tools.engine.information.knowledge.knowledge_windows` and
    :func:`~strat_tools.engine.moves.games.game_legal_ids` of that window, each window's
    table kept as a zstd-compressed Arrow IPC stream (its ``game_id`` empty: the one the
    game gets is set when it is unpacked, :func:`unpacked_windows`). Raises as
    :func:`game_columns` does, before any row is given: a game is whole or not at all."""
    if window < 2 or window % 2:
        raise ValueError(f"an observation window is an even number of plies, got {window}")
    n = result.plies_replayed
    packed: list[bytes] = []
    start, last_battle = 0, -1
    walk = ReplayWalk(result)  # the scout-clause bans of every window, one play of the game
    for know in knowledge_windows(result, window):
        rows = min(len(know.boards), n - start)
        if rows <= 0:
            break
        boards = know.boards[:rows]
        legal = game_legal_ids(result, boards, start, compiled=compiled, walk=walk)
        game = game_columns(result, know, legal, last_moves, start=start, last_battle=last_battle)
        table = observations_table([("", game)])  # its plies counted from the window's
        at = table.schema.get_field_index("ply")
        plies = pa.array(np.arange(start + 1, start + rows + 1, dtype=np.int32))
        packed.append(_pack(table.set_column(at, table.schema.field(at), plies)))
        battles = np.flatnonzero(np.asarray(result.defenders[start : start + rows]) != 0)
        last_battle = int(battles[-1]) + start if len(battles) else last_battle
        start += rows
    return PackedRows(tuple(packed), n)


def _pack(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue())


def unpacked_windows(windows: Sequence[bytes], game_id: str) -> Iterator[pa.Table]:
    """The tables of a game's packed windows (:func:`packed_game`), one at a time, each
    with the game's ``game_id``."""
    for packed in windows:
        table = pa.ipc.open_stream(pa.py_buffer(packed)).read_all()
        which = np.zeros(table.num_rows, np.int32)
        at = table.schema.get_field_index("game_id")
        yield table.set_column(at, table.schema.field(at), _repeated([game_id], which))
