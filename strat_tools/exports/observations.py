"""Per-ply observations of real games, for imitation learning, belief and opponent models.

For every ply of every valid game, one row from the view of the side to move: the position
as that side knows it, with the hidden truth beside it, in one 100-byte observation board
(see :mod:`strat_tools.engine.planes` for the byte layout and
:func:`~strat_tools.engine.planes.to_planes`
for the dense planes), plus the counters, the last moves, the move played and every legal
move, and the game's result. :data:`OBSERVATIONS_SCHEMA` declares the columns once.

Every square and every action id in a row is in the mover's own view (blue's turned by
180 degrees; :mod:`strat_tools.engine.actions`), so a row reads the same whichever side moves.

:class:`ObservationsWork` is the per-batch work (replay, observe) that the input driver
(:func:`strat_tools.run.driver.map_records`) runs in the workers, with its one treatment of
rules, ids, batch sizes, the pool or Dask, game filters and a failing game (an invalid
``games`` row with an ``internal.observations`` reason); :func:`iter_observations` streams
the batches of any input in order, and
:func:`strat_tools.exports.observation_files.export_observations` writes them as zstd Parquet
shards with a ``games`` table that accounts for every game read (valid, invalid with the
reason, or unreadable). The games a :class:`~strat_tools.run.filters.GameFilter` leaves out
are not in ``games``; the summary counts them (``dropped``), as ``validate`` and
``export`` do. Memory stays flat: each batch is written as it arrives.

This module knows no XML (the readers do) and no rules (the engine does).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from strat_tools.core.errors import OptionError
from strat_tools.core.records import GameRecord, Severity, Status
from strat_tools.engine.game_bans import games_legal_ids_of
from strat_tools.engine.knowledge import Knowledge
from strat_tools.engine.movegen import Moves, compiled_pays, game_sides
from strat_tools.engine.mover_view import view_keys
from strat_tools.engine.planes import CHANNELS, CHANNELS_VERSION, CODE_VERSION, encode_boards
from strat_tools.engine.replay import Replay, replay_safely
from strat_tools.io.sources import Paths, estimated_games, path_list
from strat_tools.run.batch_work import failure_of
from strat_tools.run.driver import map_records
from strat_tools.run.filters import GameFilter
from strat_tools.run.options import Run, RunArg
from strat_tools.tables.game_ids import GameIds
from strat_tools.tables.schemas import dictionary_column, labels_column

OBSERVATIONS_VERSION: Final = 2
"""Version of :data:`OBSERVATIONS_SCHEMA` (and of the files an export writes)."""
LAST_MOVES: Final = 8
"""Default number of earlier plies kept in ``last_moves``."""
SHARD_ROWS: Final = 1_000_000
"""Default rows per Parquet shard of an export."""
SHARDS: Final = "observations"
"""The sub-folder of an export that holds the observation shards."""
GAMES: Final = "games"
"""The sub-folder of an export that holds its games table (every input, with the rows it
gave or why none), beside the shards' folder, so that reading either reads it alone."""
GAMES_FILE: Final = f"{GAMES}/part-00000.parquet"
"""The games table's one part (a row per game, so one part at any scale)."""
OLD_GAMES_FILE: Final = "games.parquet"
"""Where exports before the folder per table put the games table (still read)."""

FAILED: Final = "internal.observations"
"""The error code of a game the observations step failed on (its ``games`` row says so)."""

_ACTIONS = pa.list_(pa.int16())

OBSERVATIONS_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        pa.field("side", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("variant", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("rules", pa.string(), nullable=False),
        pa.field("winner", pa.dictionary(pa.int8(), pa.string())),
        pa.field("value", pa.int8()),
        pa.field("board", pa.binary(100), nullable=False),
        pa.field("captured", pa.binary(24), nullable=False),
        pa.field("unseen", pa.binary(12), nullable=False),
        pa.field("own_repetition", pa.int8(), nullable=False),
        pa.field("opponent_repetition", pa.int8(), nullable=False),
        pa.field("plies_since_battle", pa.int32(), nullable=False),
        pa.field("last_moves", _ACTIONS, nullable=False),
        pa.field("action", pa.int16(), nullable=False),
        pa.field("legal_actions", _ACTIONS, nullable=False),
    ],
    metadata={
        "version": str(OBSERVATIONS_VERSION),
        "board_code_version": str(CODE_VERSION),
        "channels_version": str(CHANNELS_VERSION),
        "channels": ",".join(CHANNELS),
        "doc": "One row per ply of a valid game, from the side to move's view; squares and "
        "action ids in that side's own view. See docs/observations.md.",
    },
)
"""The observations table:

- ``game_id``; ``ply`` (1 = the first move: the row is the position before it); ``side``
  (``red``/``blue``, the side to move); ``variant``; ``rules`` (the rule set replayed);
- ``winner`` (recorded: ``red``, ``blue``, null for a draw or unknown, as in the games
  table, :mod:`strat_tools.tables.schemas`; version 1 had Gravon's codes) and ``value`` (from
  the mover's side: 1 won, -1 lost, 0 draw, null unknown), for value targets;
- ``board``: the observation board (100 bytes, :mod:`strat_tools.engine.planes`), with the hidden
  truth of every opponent piece the mover cannot identify;
- ``captured``: 24 counts, the mover's pieces removed so far by kind (bomb, spy ... flag),
  then the opponent's; ``unseen``: 12 counts, the opponent's pieces of each kind the mover
  has not identified yet (on the board or captured);
- ``own_repetition``/``opponent_repetition``: the two-squares counter of each side, how
  many moves in a row its last-moved piece has gone back and forth (0 before its first
  move, 1 when the last move started no chain);
- ``plies_since_battle``: plies since the last battle (since the start if none);
- ``last_moves``: the ids of the last plies of both sides (up to ``last_moves``, oldest
  first); ``action``: the id of the move played; ``legal_actions``: the ids of every legal
  move, ascending.
"""

GAMES_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("member", pa.string()),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("rules", pa.string()),
        pa.field("status", pa.string(), nullable=False),
        pa.field("readable", pa.bool_(), nullable=False),
        pa.field("plies", pa.int32(), nullable=False),
        pa.field("observations", pa.int32(), nullable=False),
        pa.field("reason", pa.string()),
    ],
    metadata={"doc": "One row per input: how many observation rows it gave, or why none."},
)
"""The ``games`` table of an observations export: every input, with its status, the rows
it gave and, when it gave none, the reason (the first error, or "no moves")."""

_SIDE_INDEX: Final = {1: 0, 2: 1}


def observe(result: Replay, game_id: str, last_moves: int = LAST_MOVES) -> pa.Table:
    """The observation rows of one replayed game (every replayed ply; none without moves).

    >>> from strat_tools.core.pieces import letter_code
    >>> from strat_tools.engine.replay import replay
    >>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8 + "Y"
    >>> record = GameRecord("doc.xml", variant="classicfree",
    ...                     setup=tuple(letter_code(c) for c in field), sources=[9], targets=[39])
    >>> row = observe(replay(record), "doc").to_pylist()[0]
    >>> row["ply"], row["side"], row["action"], len(row["legal_actions"])
    (1, 'red', 939, 17)
    """
    game = observe_game(result, last_moves)
    return observations_table([] if game is None else [(game_id, game)])


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

    @property
    def plies(self) -> int:
        """How many rows the game gives."""
        return len(self.actions)


def observe_game(result: Replay, last_moves: int = LAST_MOVES) -> GameObservations | None:
    """The observation columns of one replayed game; ``None`` when it gives no rows (no
    moves replayed, or no setup). Raises on a game it cannot observe (the callers turn
    that into an invalid ``games`` row). :func:`observe_games` does many at once."""
    (game,) = observe_games([result], last_moves)
    if isinstance(game, Exception):
        raise game
    return game


Observed = GameObservations | Exception | None
"""What :func:`observe_games` gives per game: its columns, the error it failed with, or
``None`` when it gives no rows."""


def observe_games(
    results: Sequence[Replay], last_moves: int = LAST_MOVES, *, compiled: bool = False
) -> list[Observed]:
    """The observation columns of each replayed game (see :data:`Observed`): the legal
    moves of all their plies come from one :func:`~strat_tools.engine.movegen.legal_ids`
    call per rule set (a call per game would cost more than the moves; ``compiled`` as
    there), the rest game by game (:func:`game_columns`). A game that fails is its own
    entry, never the others'."""
    found: list[Observed] = []
    ready: list[tuple[int, Replay, Knowledge]] = []
    for result in results:
        try:
            if result.plies_replayed == 0 or result.record.setup is None:
                found.append(None)
                continue
            ready.append((len(found), result, result.knowledge()))
            found.append(None)
        except Exception as exc:  # one bad game must never stop a run
            found.append(exc)
    legal = _legal_of([(result, know) for _, result, know in ready], compiled)
    for (index, result, know), moves in zip(ready, legal, strict=True):
        try:
            if isinstance(moves, Exception):
                raise moves
            found[index] = game_columns(result, know, moves, last_moves)
        except Exception as exc:  # one bad game must never stop a run
            found[index] = exc
    return found


def _legal_of(games: Sequence[tuple[Replay, Knowledge]], compiled: bool) -> list[Moves | Exception]:
    """Each game's legal moves before each of its plies (the engine's batch generator,
    bans and all, :func:`~strat_tools.engine.game_bans.games_legal_ids_of`)."""
    return games_legal_ids_of(
        [(result, know.boards[: result.plies_replayed]) for result, know in games],
        compiled=compiled,
    )


def game_columns(
    result: Replay, know: Knowledge, legal: Moves, last_moves: int = LAST_MOVES
) -> GameObservations:
    """The observation columns of one replayed game (with moves and a setup), from its
    knowledge and its legal moves before each ply."""
    record = result.record
    n = result.plies_replayed
    sides = game_sides(n)
    blue = sides == 2
    captured = know.captured[:n].copy()
    captured[blue] = captured[blue, ::-1]
    absolute = np.asarray(record.sources[:n], np.int64) * 100 + np.asarray(
        record.targets[:n], np.int64
    )
    own_rep, opp_rep = _counters(result, n)
    if max(int(own_rep.max()), int(opp_rep.max())) > 127:
        raise OverflowError("a two-squares counter past 127 does not fit the int8 column")
    battles = np.flatnonzero(np.asarray(result.defenders[:n]) != 0)
    return GameObservations(
        variant=record.variant,
        rules=result.rules.name,
        winner=record.result.winner if record.result is not None else None,
        boards=encode_boards(know.boards[:n], know.flags[:n], sides),
        captured=captured.reshape(n, 24),
        unseen=np.ascontiguousarray(know.unseen[np.arange(n), sides - 1]),
        own_repetition=own_rep,
        opponent_repetition=opp_rep,
        plies_since_battle=_plies_since(battles, n),
        last_moves=_last_moves(absolute, blue, last_moves),
        actions=view_keys(absolute, blue).astype(np.int16),
        legal=legal,
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
    columns: list[Any] = [
        _repeated([game_id for game_id, _ in games], which),
        pa.array(ply),
        dictionary_column("side", side_index),
        labels_column("variant", _repeated([g.variant for g in parts], which, labels=True)),
        _repeated([g.rules for g in parts], which),
        dictionary_column("winner", winners - 1, mask=~known),
        pa.array(value.astype(np.int8), pa.int8(), mask=~(known | (winners == 3))),
        _fixed(np.concatenate([g.boards for g in parts]), 100),
        _fixed(np.concatenate([g.captured for g in parts]), 24),
        _fixed(np.concatenate([g.unseen for g in parts]), 12),
        pa.array(np.concatenate([g.own_repetition for g in parts]), pa.int8()),
        pa.array(np.concatenate([g.opponent_repetition for g in parts]), pa.int8()),
        pa.array(np.concatenate([g.plies_since_battle for g in parts])),
        _lists([g.last_moves for g in parts]),
        pa.array(np.concatenate([g.actions for g in parts])),
        _lists([g.legal for g in parts]),
    ]
    return pa.Table.from_arrays(columns, schema=OBSERVATIONS_SCHEMA)


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


def _counters(result: Replay, n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Both sides' two-squares counters before each of the first ``n`` plies, from the
    replay's own :attr:`~strat_tools.engine.replay.Replay.chains` (a side's counter before
    ply ``i`` is its chain after ply ``i - 2``)."""
    chains = np.asarray(result.chains[:n], np.int64)
    own = np.zeros(n, np.int64)
    opponent = np.zeros(n, np.int64)
    own[2:] = chains[:-2]
    opponent[1:] = chains[:-1]
    return own, opponent


def _fixed(rows: npt.NDArray[np.uint8], width: int) -> pa.Array:
    """A ``binary(width)`` column of the rows of a ``[n, width]`` uint8 array."""
    data = np.ascontiguousarray(rows, dtype=np.uint8)
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), len(data), [None, pa.py_buffer(data.tobytes())]
    )


def _plies_since(battles: npt.NDArray[np.intp], n: int) -> npt.NDArray[np.int32]:
    """Per row (position before ply ``i + 1``): plies since the last battle before it."""
    last = np.full(n, -1, dtype=np.int64)
    last[battles[battles + 1 < n] + 1] = battles[battles + 1 < n]
    last = np.maximum.accumulate(last)
    rows = np.arange(n)
    return np.where(last < 0, rows, rows - last - 1).astype(np.int32)


def _last_moves(
    absolute: npt.NDArray[np.int64], blue: npt.NDArray[np.bool_], k: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """Per row: the ids of up to ``k`` earlier plies, oldest first, in the mover's view."""
    n = len(absolute)
    counts = np.minimum(np.arange(n), k)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    row = np.repeat(np.arange(n), counts)
    earlier = row - counts[row] + (np.arange(len(row)) - offsets[row])
    ids = absolute[earlier]
    return offsets, view_keys(ids, blue[row]).astype(np.int16)


def observations_for_records(
    records: Iterable[GameRecord],
    *,
    rules: str | None = "auto",
    last_moves: int = LAST_MOVES,
    compiled: bool = False,
) -> dict[str, pa.Table]:
    """``{"observations": ..., "games": ...}`` for already-read records (replays them)."""
    observed: list[tuple[str, GameObservations]] = []
    games: dict[str, list[Any]] = {name: [] for name in GAMES_SCHEMA.names}
    ids = GameIds()
    read: list[tuple[GameRecord, str, Replay | None, Status]] = []
    for record in records:
        result = replay_safely(record, rules)
        status = result.status if result is not None else Status.INVALID
        read.append((record, ids.claim(record.game_id), result, status))
    valid = [
        result for _, _, result, status in read if result is not None and status is Status.VALID
    ]
    columns = iter(observe_games(valid, last_moves, compiled=compiled))
    for record, game_id, result, status in read:
        rows = 0
        failure = None
        if result is not None and status is Status.VALID:
            game = next(columns)
            if isinstance(game, Exception):
                status = Status.INVALID
                failure = f"[internal.observations] {type(game).__name__}: {game}"
            elif game is not None:
                rows = game.plies
                observed.append((game_id, game))
        row = {
            "game_id": game_id,
            "source": record.source,
            "member": record.member,
            "variant": record.variant,
            "rules": result.rules.name if result is not None else None,
            "status": status.value,
            "readable": record.readable,
            "plies": record.plies,
            "observations": rows,
            "reason": failure or (None if rows else _reason(record, result)),
        }
        for name, value in row.items():
            games[name].append(value)
    observations = observations_table(observed)
    games_table = pa.table(
        [pa.array(games[f.name], f.type) for f in GAMES_SCHEMA], schema=GAMES_SCHEMA
    )
    return {"games": games_table, "observations": observations}


def _reason(record: GameRecord, result: Replay | None) -> str:
    """Why a game gave no observations: the driver's failure, its first error, or that it
    has no moves."""
    failure = failure_of(record, FAILED)
    if failure is not None:
        return failure
    diagnostics = list(record.diagnostics) + (result.diagnostics if result is not None else [])
    for diag in diagnostics:
        if diag.severity is Severity.ERROR:
            return f"[{diag.code}] {diag.message}"
    if record.setup is None:
        return "no setup"
    return "no moves"


@dataclass(frozen=True, slots=True)
class ObservationsWork:
    """The observations of a batch of records (a
    :class:`~strat_tools.run.batch_work.RecordWork`)."""

    rules: str | None = "auto"
    last_moves: int = LAST_MOVES
    code: str = FAILED
    check: bool = True
    compiled: bool = False
    """Whether the legal moves go through the compiled loop (decided once, before the run:
    :func:`iter_observations`)."""

    def __call__(self, records: Iterable[GameRecord]) -> dict[str, pa.Table]:
        return observations_for_records(
            records, rules=self.rules, last_moves=self.last_moves, compiled=self.compiled
        )

    def combine(self, parts: list[dict[str, pa.Table]]) -> dict[str, pa.Table]:
        empty = {"games": GAMES_SCHEMA, "observations": OBSERVATIONS_SCHEMA}
        return {
            name: pa.concat_tables([p[name] for p in parts]) if parts else schema.empty_table()
            for name, schema in empty.items()
        }

    def renumber(self, ids: GameIds, tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
        return ids.renumber(tables)


def iter_observations(
    paths: Paths,
    *,
    rules: str | None = "auto",
    last_moves: int = LAST_MOVES,
    select: GameFilter | None = None,
    run: RunArg = None,
    compiled: bool | None = None,
) -> Iterator[dict[str, pa.Table]]:
    """Stream the observation and games tables of every input that ``select`` keeps,
    batch by batch, in input order; game ids stay unique across batches.

    ``compiled`` chooses the legal-move path for the whole run: ``True`` the compiled loop
    (where numba is installed), ``False`` NumPy's stages, ``None`` (the default) by the
    size of the input, once, before any work: compiled from
    :data:`~strat_tools.engine.movegen.COMPILED_FROM_GAMES` games on, estimated from the
    files' sizes (:func:`~strat_tools.io.sources.estimated_games`: no zip is read twice;
    :func:`~strat_tools.engine.movegen.compiled_pays`). The ids are the same either way.

    >>> for batch in iter_observations(["data/"], run=1):  # doctest: +SKIP
    ...     planes = to_planes(np.frombuffer(...))
    """
    if last_moves < 0:
        raise OptionError(f"last_moves must be 0 or more, got {last_moves}")
    inputs = path_list(paths)
    run = Run.of(run)
    if compiled is None:
        compiled = compiled_pays(estimated_games(inputs))
    work = ObservationsWork(rules, last_moves, compiled=compiled)
    yield from map_records(work, inputs, select=select, run=run)


def boards_of(table: pa.Table) -> npt.NDArray[np.uint8]:
    """The ``board`` column of an observations table as a ``[rows, 100]`` uint8 array
    (no copy when the column is one chunk), ready for
    :func:`~strat_tools.engine.planes.to_planes`."""
    column = table.column("board").combine_chunks()
    buffer = column.buffers()[1]
    start = column.offset * 100
    data = np.frombuffer(buffer, dtype=np.uint8)[start : start + len(column) * 100]
    return data.reshape(len(column), 100)
