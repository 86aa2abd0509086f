"""Per-ply observations of real games, for imitation learning, belief and opponent models.

For every ply of every valid game, one row from the view of the side to move: the position
as that side knows it, with the hidden truth beside it, in one 100-byte observation board
(see :mod:`strat_tools.engine.information.planes` for the byte layout and
:func:`~strat_tools.engine.information.planes.to_planes`
for the dense planes), plus the counters, the last moves, the move played and every legal
move, and the game's result. :data:`OBSERVATIONS_SCHEMA` declares the columns once.

Every square and every action id in a row is in the mover's own view (blue's turned by 180 degrees;
:mod:`strat_tools.engine.encodings.actions`), so a row reads the same whichever side moves.

:class:`ObservationsWork` is the per-batch work (replay, observe) that the input driver
(:func:`strat_tools.run.driver.map_records`) runs in the workers, with its one treatment of
rules, ids, batch sizes, the pool or Dask, game filters and a failing game (an invalid
``games`` row with an ``internal.observations`` reason); :func:`iter_observations` streams
the batches of any input in order, and
:func:`strat_tools.exports.observation_files.export_observations` writes them as zstd Parquet
shards with a ``games`` table that accounts for every game read (valid, invalid with the
reason, or unreadable). The games a :class:`~strat_tools.run.filters.GameFilter` leaves out
are not in ``games``; the summary counts them (``dropped``), as ``validate`` and
``export`` do. Memory stays flat: each batch is written as it arrives, and a game longer
than a window (:data:`~strat_tools.exports.observation_rows.WINDOW_PLIES` plies) is made and
kept a window at a time (:func:`~strat_tools.exports.observation_rows.packed_game`), its
windows given back one at a time (:func:`unpacked`).

This module knows no XML (the readers do) and no rules (the engine does).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.core.errors import OptionError
from strat_tools.core.records import GameRecord, Severity, Status, Termination
from strat_tools.engine.information.knowledge import Knowledge
from strat_tools.engine.information.mover_rows import LAST_MOVES
from strat_tools.engine.moves import Moves, compiled_pays
from strat_tools.engine.moves.games import games_legal_ids_of
from strat_tools.engine.replays.replay import Replay, replay_safely
from strat_tools.exports.observation_rows import (
    OBSERVATIONS_SCHEMA,
    WINDOW_PLIES,
    GameObservations,
    PackedRows,
    game_columns,
    observations_table,
    packed_game,
    unpacked_windows,
)
from strat_tools.io.reached import estimated_games
from strat_tools.run.batch_work import failure_of
from strat_tools.run.driver import map_records
from strat_tools.run.filters import GameFilter
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg
from strat_tools.setups.identity import SetupIdentity
from strat_tools.tables.game_ids import GameIds

__all__ = [
    "ENDINGS",
    "FAILED",
    "FINGERPRINT_COLUMNS",
    "GAMES",
    "GAMES_FILE",
    "GAMES_SCHEMA",
    "OLD_GAMES_FILE",
    "PACKED_SCHEMA",
    "SHARDS",
    "SHARD_ROWS",
    "ObservationsWork",
    "Observed",
    "boards_of",
    "ending_of",
    "iter_observations",
    "observations_for_records",
    "observe",
    "observe_game",
    "observe_games",
    "unpacked",
]

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

PACKED: Final = "packed"
"""The key of a batch's packed windows (a game longer than a window), beside its games and
observations, in what the workers give back; :func:`unpacked` takes it out."""
PACKED_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("at", pa.int64(), nullable=False),
        pa.field("window", pa.large_binary(), nullable=False),
    ]
)
"""A batch's packed windows: the game, the batch's observation row before which its rows
go, and one window's table (:func:`~strat_tools.exports.observation_rows.packed_game`)."""

FINGERPRINT_COLUMNS: Final = (
    "red_fingerprint",
    "red_mirror_fingerprint",
    "blue_fingerprint",
    "blue_mirror_fingerprint",
)
"""The games table's setup fingerprints: each side's setup as drawn, and up to a mirror
image (equal for a setup and its left-right mirror), in its owner's view, as the tables'
games table has them (:class:`~strat_tools.setups.identity.SetupIdentity`)."""

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
        pa.field("period", pa.string()),
        pa.field("termination", pa.string()),
        pa.field("ending", pa.string()),
        *(pa.field(name, pa.string()) for name in FINGERPRINT_COLUMNS),
    ],
    metadata={
        "doc": "One row per input: how many observation rows it gave, or why none; its "
        "calendar month, how it ended, and both setups' fingerprints (as drawn and up to a "
        "mirror image)."
    },
)
"""The ``games`` table of an observations export: every input, with its status, the rows
it gave and, when it gave none, the reason (the first error, or "no moves"); ``period``
(the calendar month ``YYYY-MM``, as in the tables' games table), ``termination`` (the
recorded ending's name, ``resigned``, ``flag_captured`` ...) and ``ending`` (its kind,
:data:`ENDINGS`), and both setups' fingerprints as drawn and up to a mirror image
(:mod:`strat_tools.setups.identity`; null without a setup)."""

ENDINGS: Final[dict[str, tuple[Termination, ...]]] = {
    "board": (Termination.FLAG_CAPTURED, Termination.NO_MOVES, Termination.BOTH_NO_MOVES),
    "resigned": (Termination.RESIGNED,),
    "agreed": (Termination.DRAW_AGREED,),
    "clock": (Termination.CLOCK, Termination.GAME_CLOCK, Termination.CLOCK_WHILE_MISSING),
    "missing": (Termination.OPPONENT_MISSING, Termination.BOTH_MISSING),
}
"""The ``ending`` of a game by its recorded termination: decided on the board (a flag
taken, a side left without moves), resigned, a draw agreed, on the clock, a player gone;
``unknown`` for anything else.

>>> ending_of(Termination.RESIGNED), ending_of(Termination.FLAG_CAPTURED), ending_of(None)
('resigned', 'board', 'unknown')
"""
_ENDING_OF: Final = {t: name for name, kinds in ENDINGS.items() for t in kinds}


def ending_of(termination: Termination | None) -> str:
    """The kind of ending (a key of :data:`ENDINGS`, or ``unknown``) of a termination."""
    return _ENDING_OF.get(termination, "unknown") if termination is not None else "unknown"


def observe(result: Replay, game_id: str, last_moves: int = LAST_MOVES) -> pa.Table:
    """The observation rows of one replayed game (every replayed ply; none without moves).

    >>> from strat_tools.core.pieces import letter_code
    >>> from strat_tools.engine.replays.replay import replay
    >>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8 + "Y"
    >>> record = GameRecord("doc.xml", variant="classicfree",
    ...                     setup=tuple(letter_code(c) for c in field), sources=[9], targets=[39])
    >>> row = observe(replay(record), "doc").to_pylist()[0]
    >>> row["ply"], row["side"], row["action"], len(row["legal_actions"])
    (1, 'red', 939, 17)
    """
    game = observe_game(result, last_moves)
    return observations_table([] if game is None else [(game_id, game)])


def observe_game(result: Replay, last_moves: int = LAST_MOVES) -> GameObservations | None:
    """The observation columns of one replayed game; ``None`` when it gives no rows (no
    moves replayed, or no setup). Raises on a game it cannot observe (the callers turn
    that into an invalid ``games`` row). :func:`observe_games` does many at once."""
    (game,) = observe_games([result], last_moves)  # no window: the columns whole
    if isinstance(game, Exception):
        raise game
    assert not isinstance(game, PackedRows)
    return game


Observed = GameObservations | PackedRows | Exception | None
"""What :func:`observe_games` gives per game: its columns (or, for a game longer than a
window, its packed rows), the error it failed with, or ``None`` when it gives no rows."""


def observe_games(
    results: Sequence[Replay],
    last_moves: int = LAST_MOVES,
    *,
    compiled: bool = False,
    window: int | None = None,
) -> list[Observed]:
    """The observation columns of each replayed game (see :data:`Observed`): the legal
    moves of all their plies come from one :func:`~strat_tools.engine.moves.legal_ids`
    call per rule set (a call per game would cost more than the moves; ``compiled`` as
    there), the rest game by game (:func:`game_columns`). A game of more than ``window``
    plies is observed a window at a time and its rows kept packed (:func:`packed_game`),
    so its memory is a window's. A game that fails is its own entry, never the others'."""
    found: list[Observed] = []
    ready: list[tuple[int, Replay, Knowledge]] = []
    for result in results:
        try:
            if result.plies_replayed == 0 or result.record.setup is None:
                found.append(None)
                continue
            if window is not None and result.plies_replayed > window:
                found.append(packed_game(result, window, last_moves, compiled))
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
    bans and all, :func:`~strat_tools.engine.moves.games.games_legal_ids_of`)."""
    return games_legal_ids_of(
        [(result, know.boards[: result.plies_replayed]) for result, know in games],
        compiled=compiled,
    )


def observations_for_records(
    records: Iterable[GameRecord],
    *,
    rules: str | None = "auto",
    last_moves: int = LAST_MOVES,
    compiled: bool = False,
    window: int | None = WINDOW_PLIES,
) -> dict[str, pa.Table]:
    """``{"observations": ..., "games": ...}`` for already-read records (replays them),
    and, when a game is longer than ``window`` plies, its rows packed window by window
    under ``"packed"`` (:data:`PACKED_SCHEMA`; :func:`unpacked` gives them back)."""
    observed: list[tuple[str, GameObservations]] = []
    packed: dict[str, list[Any]] = {name: [] for name in PACKED_SCHEMA.names}
    at = 0
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
    columns = iter(observe_games(valid, last_moves, compiled=compiled, window=window))
    for record, game_id, result, status in read:
        rows = 0
        failure = None
        if result is not None and status is Status.VALID:
            game = next(columns)
            if isinstance(game, Exception):
                status = Status.INVALID
                failure = f"[internal.observations] {type(game).__name__}: {game}"
            elif isinstance(game, PackedRows):
                rows = game.plies
                for one in game.windows:
                    for name, value in zip(PACKED_SCHEMA.names, (game_id, at, one), strict=True):
                        packed[name].append(value)
            elif game is not None:
                rows = game.plies
                at += rows
                observed.append((game_id, game))
        termination = record.result.termination if record.result is not None else None
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
            "period": f"{record.year:04d}-{record.month:02d}"
            if record.year is not None and record.month is not None
            else None,
            "termination": termination.label if termination is not None else None,
            "ending": ending_of(termination),
        }
        for name, value in row.items():
            games[name].append(value)
    with_setup = [i for i, (record, *_rest) in enumerate(read) if _has_field(record)]
    fields = [read[i][0].setup or () for i in with_setup]
    identity = SetupIdentity(
        np.array(fields, np.int16) if fields else np.zeros((0, 100), np.int16),
        with_setup,
        len(read),
    )
    for name in FINGERPRINT_COLUMNS:
        games[name] = identity.games[name]
    observations = observations_table(observed)
    games_table = pa.table(
        [pa.array(games[f.name], f.type) for f in GAMES_SCHEMA], schema=GAMES_SCHEMA
    )
    tables = {"games": games_table, "observations": observations}
    if packed["window"]:
        tables[PACKED] = pa.table(packed, schema=PACKED_SCHEMA)
    return tables


def unpacked(tables: dict[str, pa.Table]) -> Iterator[dict[str, pa.Table]]:
    """A batch's tables as :func:`iter_observations` gives them: as they are, or, when the
    batch holds packed windows (a long game), its rows in order a part at a time (the
    games table with the first part), no part longer than a window."""
    packed = tables.get(PACKED)
    if packed is None:
        yield tables
        return
    observations, games = tables["observations"], tables["games"]
    done = 0
    for game_id, at, index in zip(
        packed.column("game_id").to_pylist(),
        packed.column("at").to_pylist(),
        range(packed.num_rows),
        strict=True,
    ):
        if at > done:
            yield {"games": games, "observations": observations.slice(done, at - done)}
            games, done = GAMES_SCHEMA.empty_table(), at
        window = packed.column("window")[index].as_py()
        for table in unpacked_windows([window], game_id):
            yield {"games": games, "observations": table}
            games = GAMES_SCHEMA.empty_table()
    if done < observations.num_rows:
        yield {"games": games, "observations": observations.slice(done)}


def _has_field(record: GameRecord) -> bool:
    """Whether a record has a whole 100-square field (its setups get fingerprints)."""
    return record.setup is not None and len(record.setup) == 100


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
    window: int | None = WINDOW_PLIES
    """A game longer than this is observed and packed a window at a time."""

    def __call__(self, records: Iterable[GameRecord]) -> dict[str, pa.Table]:
        return observations_for_records(
            records,
            rules=self.rules,
            last_moves=self.last_moves,
            compiled=self.compiled,
            window=self.window,
        )

    def combine(self, parts: list[dict[str, pa.Table]]) -> dict[str, pa.Table]:
        empty = {"games": GAMES_SCHEMA, "observations": OBSERVATIONS_SCHEMA}
        tables = {
            name: pa.concat_tables([p[name] for p in parts]) if parts else schema.empty_table()
            for name, schema in empty.items()
        }
        packed, before = [], 0
        for part in parts:  # each part's windows go before rows counted from its start
            if PACKED in part:
                shifted = pc.add(part[PACKED].column("at"), before)
                packed.append(part[PACKED].set_column(1, PACKED_SCHEMA.field("at"), shifted))
            before += part["observations"].num_rows
        if packed:
            tables[PACKED] = pa.concat_tables(packed)
        return tables

    def renumber(self, ids: GameIds, tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
        return ids.renumber(tables)


def iter_observations(
    paths: InputsArg,
    *,
    rules: str | None = "auto",
    last_moves: int = LAST_MOVES,
    select: GameFilter | None = None,
    run: RunArg = None,
    compiled: bool | None = None,
) -> Iterator[dict[str, pa.Table]]:
    """Stream the observation and games tables of every input that ``select`` keeps,
    batch by batch, in input order; game ids stay unique across batches. A batch holding a
    game longer than a window comes in parts, none longer than a window (the games table
    with the first, empty ones after; :func:`unpacked`).

    ``compiled`` chooses the legal-move path for the whole run: ``True`` the compiled loop
    (where numba is installed), ``False`` NumPy's stages, ``None`` (the default) by the
    size of the input, once, before any work: compiled from
    :data:`~strat_tools.engine.moves.COMPILED_FROM_GAMES` games on, estimated from the
    files' sizes (:func:`~strat_tools.io.reached.estimated_games`: no zip is read twice;
    :func:`~strat_tools.engine.moves.compiled_pays`). The ids are the same either way.

    >>> for batch in iter_observations(["data/"], run=1):  # doctest: +SKIP
    ...     planes = to_planes(np.frombuffer(...))
    """
    if last_moves < 0:
        raise OptionError(f"last_moves must be 0 or more, got {last_moves}")
    inputs = Inputs.of(paths)
    run = Run.of(run)
    if compiled is None:
        compiled = compiled_pays(estimated_games(inputs.given))
    work = ObservationsWork(rules, last_moves, compiled=compiled, window=WINDOW_PLIES)
    for tables in map_records(work, inputs, select=select, run=run):
        yield from unpacked(tables)


def boards_of(table: pa.Table, column_name: str = "board") -> npt.NDArray[np.uint8]:
    """A board column of an observations table (``board``, the label with the hidden truth,
    or ``board_view``, the truth-free board) as a ``[rows, 100]`` uint8 array (no copy when
    the column is one chunk), ready for :func:`~strat_tools.engine.information.planes.to_planes`."""
    column = table.column(column_name).combine_chunks()
    buffer = column.buffers()[1]
    start = column.offset * 100
    data = np.frombuffer(buffer, dtype=np.uint8)[start : start + len(column) * 100]
    return data.reshape(len(column), 100)
