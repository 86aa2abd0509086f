"""Arrow tables of games, setups, moves and diagnostics, built column-wise from records.

One schema per table, declared here once (:data:`SCHEMAS`); everything else (the Parquet and
CSV export, reading back, pandas frames, statistics) takes its columns and types from these.
:func:`tables_for_units` is the per-batch work of an export: read, check, replay, and return
the four tables for that batch (Arrow, never decoded move lists), so it can run on a process
pool or on Dask through :func:`strat_tools.pipeline.map_batches`.

Every input unit becomes exactly one ``games`` row, unreadable ones included (status
``invalid``, with their diagnostics). Columns are built with numpy and ``pa.array`` over whole
batches, never row by row. Small label columns (side, piece, squares, outcome) are dictionary
encoded with a fixed dictionary, so they become pandas categoricals with the same categories
in every batch and after any round trip.

Setups-only tables (``setups_only=True``) skip the replay entirely: ``moves`` is empty, a
game's ``status`` is ``invalid`` when the record checks found an error and ``unchecked``
otherwise (its moves were never judged, so it is never called ``valid``), ``rules`` is null
and ``replayed`` is false.

This module does not write files (see :mod:`strat_tools.dataset`) and computes no statistics
(see :mod:`strat_tools.stats`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from hashlib import blake2b
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.board import COLUMNS
from strat_tools.identity import (
    GAME_IDENTITY_COLUMNS,
    SetupIdentity,
    fingerprint_rows,
    game_fingerprint,
)
from strat_tools.pieces import CODE_KIND, CODE_SIDE, KIND_LABELS
from strat_tools.readers import read_units
from strat_tools.records import Diagnostic, GameRecord, Severity, Status
from strat_tools.replay import Replay, replay_safely
from strat_tools.rules import resolve_rules
from strat_tools.sources import Unit

TABLE_NAMES: Final = ("games", "setups", "moves", "diagnostics")
"""The tables of a dataset, in export order."""

SIDE_LABELS: Final = ("red", "blue")
"""Dictionary of the ``side`` columns (index 0 red, 1 blue)."""
SQUARE_NAMES: Final = tuple(COLUMNS[sq % 10] + str(sq // 10 + 1) for sq in range(100))
"""Dictionary of the square columns: index = square (0 = ``A1`` .. 99 = ``K10``)."""
OUTCOME_LABELS: Final = ("attacker", "defender", "both", "flag")
"""Dictionary of ``moves.outcome``: the engine's outcome codes 1..4, minus one."""

_LABEL = pa.string()


def _dict_type() -> pa.DataType:
    return pa.dictionary(pa.int8(), _LABEL)


GAMES_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("member", pa.string()),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("year", pa.int16()),
        pa.field("month", pa.int8()),
        pa.field("period", pa.string()),
        pa.field("number", pa.int64()),
        pa.field("rules", pa.string()),
        pa.field("status", pa.string(), nullable=False),
        pa.field("result_type", pa.int8()),
        pa.field("winner", pa.int8()),
        pa.field("termination", pa.string()),
        pa.field("replay_termination", pa.string()),
        pa.field("replay_winner", pa.int8()),
        pa.field("plies", pa.int32(), nullable=False),
        pa.field("plies_replayed", pa.int32(), nullable=False),
        pa.field("n_errors", pa.int32(), nullable=False),
        pa.field("n_warnings", pa.int32(), nullable=False),
        pa.field("has_setup", pa.bool_(), nullable=False),
        pa.field("readable", pa.bool_(), nullable=False),
        pa.field("replayed", pa.bool_(), nullable=False),
        pa.field("synthetic", pa.bool_(), nullable=False),
        *(pa.field(name, pa.string()) for name in GAME_IDENTITY_COLUMNS),
    ],
    metadata={
        "doc": "One row per input game file. month is the calendar month 1..12; "
        "termination is the recorded result's label, replay_termination the engine's; "
        "synthetic marks games made by strat-tools generate; "
        "the fingerprints are strat_tools.identity's (null without a setup)."
    },
)
"""``games``: one row per input game file (unreadable ones too)."""

SETUPS_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("side", _dict_type(), nullable=False),
        pa.field("row", pa.int8(), nullable=False),
        pa.field("col", pa.int8(), nullable=False),
        pa.field("square", _dict_type(), nullable=False),
        pa.field("piece", _dict_type(), nullable=False),
        pa.field("fingerprint", pa.string(), nullable=False),
        pa.field("mirror_fingerprint", pa.string(), nullable=False),
    ],
    metadata={
        "doc": "One row per piece on the board at the start. row/col in the owner's view: "
        "row 1 = that side's back row, col 1 = that player's left; square is the board name; "
        "fingerprint/mirror_fingerprint name the whole setup (strat_tools.identity)."
    },
)
"""``setups``: one row per piece of each side's starting position, in the owner's view."""

MOVES_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        pa.field("side", _dict_type(), nullable=False),
        pa.field("piece", _dict_type()),
        pa.field("source", _dict_type()),
        pa.field("target", _dict_type()),
        pa.field("distance", pa.int8()),
        pa.field("defender", _dict_type()),
        pa.field("outcome", _dict_type()),
        pa.field("rescued", _dict_type()),
    ],
    metadata={
        "doc": "One row per recorded move. piece/defender/outcome come from the replay "
        "(null past the last replayed ply); source/target are null for a bad square name; "
        "rescued is the piece an ultimate lightning rescue brought back on that ply."
    },
)
"""``moves``: one row per recorded move, with what the replay saw."""

DIAGNOSTICS_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("code", pa.string(), nullable=False),
        pa.field("severity", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
        pa.field("line", pa.int32()),
        pa.field("ply", pa.int32()),
    ],
    metadata={"doc": "One row per diagnostic, the reader's, the checks' and the engine's."},
)
"""``diagnostics``: one row per problem found in a game."""

SCHEMAS: Final[dict[str, pa.Schema]] = {
    "games": GAMES_SCHEMA,
    "setups": SETUPS_SCHEMA,
    "moves": MOVES_SCHEMA,
    "diagnostics": DIAGNOSTICS_SCHEMA,
}
"""Every table's schema by name."""

DICTIONARIES: Final[dict[str, tuple[str, ...]]] = {
    "side": SIDE_LABELS,
    "piece": KIND_LABELS,
    "defender": KIND_LABELS,
    "square": SQUARE_NAMES,
    "source": SQUARE_NAMES,
    "target": SQUARE_NAMES,
    "outcome": OUTCOME_LABELS,
    "rescued": KIND_LABELS,
}
"""The fixed dictionary of each dictionary-encoded column (same name in every table)."""

_DICT_ARRAYS: Final = {name: pa.array(values, _LABEL) for name, values in DICTIONARIES.items()}

# Per board code 0..25: side index (0 red, 1 blue, -1 none) and kind index (-1 none).
_SIDE_INDEX: Final = np.array([s - 1 for s in CODE_SIDE], dtype=np.int8)
_KIND_INDEX: Final = np.array(CODE_KIND, dtype=np.int8)

IntArray = npt.NDArray[np.int64]


def dictionary_column(
    name: str, indices: npt.NDArray[Any], mask: npt.NDArray[np.bool_] | None = None
) -> pa.DictionaryArray:
    """A dictionary column over the fixed dictionary of ``name``; ``mask`` marks nulls."""
    values = indices.astype(np.int8, copy=False)
    if mask is not None:
        values = np.where(mask, 0, values).astype(np.int8, copy=False)
    index = pa.array(values, pa.int8(), mask=mask)
    return pa.DictionaryArray.from_arrays(index, _DICT_ARRAYS[name])


def labels_column(name: str, labels: pa.Array | pa.ChunkedArray | Sequence[str | None]) -> Any:
    """Encode label strings (``'red'``, ``'K10'``...) over the fixed dictionary of ``name``.

    Takes plain strings or a dictionary array with any dictionary (as read back from a
    Parquet file). Nulls stay null; a label outside the dictionary raises ``ValueError``.
    """
    values = labels if isinstance(labels, pa.Array | pa.ChunkedArray) else pa.array(labels, _LABEL)
    if isinstance(values, pa.ChunkedArray):
        chunks = [labels_column(name, chunk) for chunk in values.chunks]
        if not chunks:
            return pa.DictionaryArray.from_arrays(pa.array([], pa.int8()), _DICT_ARRAYS[name])
        return pa.chunked_array(chunks, _dict_type())
    if pa.types.is_dictionary(values.type):
        # Map the (small) dictionary, then gather: no per-row string work.
        mapping = _fixed_indices(name, values.dictionary.cast(_LABEL))
        indices = pc.take(mapping, values.indices)
    else:
        indices = _fixed_indices(name, values)
    return pa.DictionaryArray.from_arrays(indices, _DICT_ARRAYS[name])


def _fixed_indices(name: str, values: pa.Array) -> pa.Array:
    """int8 positions of ``values`` in the fixed dictionary of ``name`` (null stays null)."""
    indices = pc.index_in(values, value_set=_DICT_ARRAYS[name])
    unknown = pc.and_(pc.is_null(indices), pc.is_valid(values))
    if pc.any(unknown).as_py():
        bad = pc.filter(values, unknown)[0].as_py()
        raise ValueError(f"unknown {name} label {bad!r}; expected one of {DICTIONARIES[name]}")
    return indices.cast(pa.int8())


def table_from_columns(name: str, columns: dict[str, Sequence[Any]]) -> pa.Table:
    """A table of schema ``name`` from plain Python columns (labels for dictionary columns).

    For tests, fixtures and small hand-made data; missing nullable columns become nulls.
    """
    schema = SCHEMAS[name]
    lengths = {len(v) for v in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    rows = lengths.pop() if lengths else 0
    arrays = []
    for f in schema:
        values = columns.get(f.name, [None] * rows)
        if pa.types.is_dictionary(f.type):
            arrays.append(labels_column(f.name, list(values)))
        else:
            arrays.append(pa.array(list(values), f.type))
    return pa.table(arrays, schema=schema)


def conform(name: str, table: pa.Table) -> pa.Table:
    """Cast a table read back from a file (CSV strings, other int widths) to schema ``name``."""
    schema = SCHEMAS[name]
    table = _with_identity(name, table)
    missing = [f.name for f in schema if f.name not in table.column_names]
    if missing:
        raise ValueError(f"{name} table lacks the columns {', '.join(missing)}")
    arrays = []
    for f in schema:
        column = table.column(f.name)
        if pa.types.is_dictionary(f.type):
            column = labels_column(f.name, column)
        elif column.type != f.type:
            column = column.cast(f.type)
        arrays.append(column)
    return pa.table(arrays, schema=schema)


def _with_identity(name: str, table: pa.Table) -> pa.Table:
    """Add the fingerprint columns to a table written before they existed: computed from the
    setup rows for ``setups``; null for ``games`` (the setups table has them)."""
    if name == "setups" and "fingerprint" not in table.column_names:
        if not {"game_id", "side", "row", "col", "piece"} <= set(table.column_names):
            return table
        plain, mirrored = fingerprint_rows(table)
        return table.append_column("fingerprint", plain).append_column(
            "mirror_fingerprint", mirrored
        )
    if name == "games":
        for column in GAME_IDENTITY_COLUMNS:
            if column not in table.column_names:
                table = table.append_column(column, pa.nulls(table.num_rows, pa.string()))
    return table


_PANDAS_TYPES: Final[dict[pa.DataType, Any]] = {
    pa.int8(): pd.Int8Dtype(),
    pa.int16(): pd.Int16Dtype(),
    pa.int32(): pd.Int32Dtype(),
    pa.int64(): pd.Int64Dtype(),
    pa.bool_(): pd.BooleanDtype(),
}


def to_frame(table: pa.Table) -> pd.DataFrame:
    """A pandas DataFrame of a table: nullable ints and booleans, categoricals for labels."""
    frame: pd.DataFrame = table.to_pandas(types_mapper=_PANDAS_TYPES.get)
    return frame


def empty_tables() -> dict[str, pa.Table]:
    """The four tables with no rows."""
    return {name: empty_table(name) for name in TABLE_NAMES}


def empty_table(name: str) -> pa.Table:
    """Table ``name`` with no rows (its label columns keep their fixed dictionaries)."""
    return table_from_columns(name, {})


def concat_tables(parts: Iterable[dict[str, pa.Table]]) -> dict[str, pa.Table]:
    """Concatenate per-batch tables, table by table (no copy of the columns)."""
    collected: dict[str, list[pa.Table]] = {name: [] for name in TABLE_NAMES}
    for part in parts:
        for name in TABLE_NAMES:
            collected[name].append(part[name])
    return {
        name: pa.concat_tables(tables) if tables else empty_table(name)
        for name, tables in collected.items()
    }


def check_rules(rules: str | None) -> None:
    """Raise ``ValueError`` now for a rule-set name the engine would refuse on every game."""
    resolve_rules(rules, GameRecord(source="", variant="classic"))


def tables_for_units(
    units: Sequence[Unit], *, rules: str | None = "auto", setups_only: bool = False
) -> dict[str, pa.Table]:
    """Read, check and (unless ``setups_only``) replay a batch; return its four tables.

    Top-level and picklable, for :func:`strat_tools.pipeline.map_batches`::

        from functools import partial
        parts = map_batches(partial(tables_for_units, rules="auto"), iter_units(["data/"]))
    """
    return tables_for_records(read_units(units), rules=rules, setups_only=setups_only)


def tables_for_records(
    records: Iterable[GameRecord], *, rules: str | None = "auto", setups_only: bool = False
) -> dict[str, pa.Table]:
    """The four tables of already-read (and checked) records; replays them unless told not to."""
    builder = _Builder(moves=not setups_only)
    for record in records:
        game_replay = None if setups_only else replay_safely(record, rules)
        builder.add(record, game_replay)
    return builder.finish()


class IdSet:
    """A set of strings (game ids) held as 128-bit BLAKE2b digests, 16 bytes an id.

    Keeping game ids unique over a run needs only membership, and a run over millions of games
    must not hold millions of Python strings (about 100 bytes each with the set's slots). The
    newest ids sit in a small set; every :data:`SPILL` of them are spilled as digests into a
    sorted NumPy run, and runs of similar size are merged (at most log2 n runs, as in a
    log-structured merge tree). Two different ids share a digest with probability about
    n²/2¹²⁹: 10⁻²¹ for a billion ids.
    """

    SPILL: Final = 8192

    def __init__(self, items: Iterable[str] = ()) -> None:
        self._recent: set[str] = set()
        self._runs: list[npt.NDArray[np.bytes_]] = []
        self.update(items)

    @staticmethod
    def _digests(items: Iterable[str]) -> npt.NDArray[np.bytes_]:
        return np.array(
            [blake2b(s.encode("utf-8", "surrogatepass"), digest_size=16).digest() for s in items],
            dtype="S16",
        )

    def __len__(self) -> int:
        return len(self._recent) + sum(len(run) for run in self._runs)

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and self.contains_many([item])[0]

    def contains_many(self, items: Sequence[str]) -> list[bool]:
        """Membership of each of ``items`` (one vectorised search per run)."""
        found = np.fromiter((s in self._recent for s in items), dtype=bool, count=len(items))
        if self._runs and len(items):
            keys = self._digests(items)
            for run in self._runs:
                at = np.minimum(np.searchsorted(run, keys), len(run) - 1)
                found |= run[at] == keys
        return [bool(f) for f in found]

    def add(self, item: str) -> None:
        """Add one id."""
        self.update((item,))

    def update(self, items: Iterable[str]) -> None:
        """Add every one of ``items`` (looked up in the runs all at once)."""
        new = [s for s in dict.fromkeys(items) if s not in self._recent]
        if self._runs and new:
            new = [s for s, found in zip(new, self.contains_many(new), strict=True) if not found]
        for item in new:
            self._recent.add(item)
            if len(self._recent) >= self.SPILL:
                self._spill()

    def _spill(self) -> None:
        run = np.sort(self._digests(self._recent))
        self._recent.clear()
        while self._runs and len(self._runs[-1]) <= 2 * len(run):
            run = np.sort(np.concatenate((self._runs.pop(), run)))
        self._runs.append(run)


class GameIds:
    """Keeps ``game_id`` a key: a second input with the same file name gets ``NAME#2``.

    ``game_id`` is the file name without ``.xml``, and two inputs (two folders, two zips)
    may hold files of the same name. The first keeps its name; later ones get ``#2``, ``#3``
    in input order (their ``source``/``member`` in ``games`` say where they came from).
    Batches are made unique here in the worker, then across batches by
    :meth:`renumber` in the process that collects them. The ids seen are kept compactly
    (:class:`IdSet`), so memory stays flat over millions of games.
    """

    def __init__(self) -> None:
        self.seen = IdSet()

    def claim(self, game_id: str, reserved: frozenset[str] = frozenset()) -> str:
        """``game_id``, or the first free ``game_id#k`` (k = 2, 3, ...); now taken."""
        candidate, k = game_id, 1
        while candidate in self.seen or (k > 1 and candidate in reserved):
            k += 1
            candidate = f"{game_id}#{k}"
        self.seen.add(candidate)
        return candidate

    def renumber(self, tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
        """One batch's tables with any id already taken by an earlier batch renamed."""
        ids = tables["games"].column("game_id").to_pylist()
        batch = frozenset(ids)
        # A batch's ids are unique and a claimed name is never one of them (``reserved``),
        # so membership can be looked up for the whole batch at once.
        taken = self.seen.contains_many(ids)
        renamed = {old: self.claim(old, batch) for old, t in zip(ids, taken, strict=True) if t}
        self.seen.update(i for i in ids if i not in renamed)
        if not renamed:
            return tables
        old = pa.array(list(renamed), pa.string())
        new = pa.array(list(renamed.values()), pa.string())
        out = {}
        for name, table in tables.items():
            at = table.schema.get_field_index("game_id")
            column = table.column(at)
            position = pc.index_in(column, value_set=old)
            replaced = pc.if_else(pc.is_null(position), column, pc.take(new, position))
            out[name] = table.set_column(at, table.schema.field(at), replaced)
        return out


class _Builder:
    """Column lists for one batch; :meth:`finish` turns them into the four tables."""

    def __init__(self, *, moves: bool = True) -> None:
        self.with_moves = moves
        self.games: dict[str, list[Any]] = {name: [] for name in GAMES_SCHEMA.names}
        self.setup_rows: list[tuple[int, ...]] = []
        self.setup_games: list[int] = []
        self.move_games: list[int] = []
        self.move_plies: list[int] = []
        self.sources: list[int] = []
        self.targets: list[int] = []
        self.movers: list[int] = []
        self.defenders: list[int] = []
        self.outcomes: list[int] = []
        self.rescued: dict[int, int] = {}
        """Row in the moves table → board code of the rescued piece."""
        self.diagnostics: dict[str, list[Any]] = {name: [] for name in DIAGNOSTICS_SCHEMA.names}
        self.ids = GameIds()

    def add(self, record: GameRecord, game_replay: Replay | None) -> None:
        """Take one game: its games row, setup, moves and diagnostics."""
        index = len(self.games["game_id"])
        game_id = self.ids.claim(record.game_id)
        diagnostics = list(record.diagnostics)
        if game_replay is not None:
            diagnostics += game_replay.diagnostics
        self._add_game(game_id, record, game_replay, diagnostics)
        if record.setup is not None and len(record.setup) == 100:
            self.setup_rows.append(record.setup)
            self.setup_games.append(index)
        if self.with_moves:
            self._add_moves(record, game_replay)
        columns = self.diagnostics
        for diag in diagnostics:
            columns["game_id"].append(game_id)
            columns["code"].append(diag.code)
            columns["severity"].append(diag.severity.value)
            columns["message"].append(diag.message)
            columns["line"].append(diag.line)
            columns["ply"].append(diag.ply)

    def _add_game(
        self,
        game_id: str,
        record: GameRecord,
        game_replay: Replay | None,
        diagnostics: list[Diagnostic],
    ) -> None:
        columns = self.games
        result = record.result
        n_errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
        if game_replay is not None:
            status = game_replay.status
        elif record.unreadable_input:
            status = Status.UNREADABLE
        elif n_errors or not record.readable:
            status = Status.INVALID
        else:
            status = Status.UNCHECKED
        period = (
            f"{record.year:04d}-{record.month:02d}"
            if record.year is not None and record.month is not None
            else None
        )
        ending = game_replay.termination if game_replay is not None else None
        values: dict[str, Any] = {
            "game_id": game_id,
            "source": record.source,
            "member": record.member,
            "variant": record.variant,
            "year": record.year,
            "month": record.month,
            "period": period,
            "number": record.number,
            "rules": game_replay.rules.name if game_replay is not None else None,
            "status": status.value,
            "result_type": result.type if result is not None else None,
            "winner": result.winner if result is not None else None,
            "termination": result.termination.label if result is not None else None,
            "replay_termination": ending.label if ending is not None else None,
            "replay_winner": game_replay.winner if game_replay is not None else None,
            "plies": record.plies,
            "plies_replayed": game_replay.plies_replayed if game_replay is not None else 0,
            "n_errors": n_errors,
            "n_warnings": sum(1 for d in diagnostics if d.severity is Severity.WARNING),
            "has_setup": record.setup is not None,
            "readable": record.readable,
            "replayed": game_replay is not None,
            "synthetic": record.synthetic,
            "game_fingerprint": game_fingerprint(record.setup, record.sources, record.targets)
            if record.readable
            else None,
        }
        for name, value in values.items():
            columns[name].append(value)

    def _add_moves(self, record: GameRecord, game_replay: Replay | None) -> None:
        plies = record.plies
        if not plies:
            return
        self.move_games.append(plies)
        if game_replay is not None and game_replay.rescued:
            first_row = len(self.sources)
            for ply, code in game_replay.rescued.items():
                if 1 <= code <= 24 and 1 <= ply <= plies:
                    self.rescued[first_row + ply - 1] = code
        self.sources += record.sources
        self.targets += record.targets
        done = game_replay.plies_replayed if game_replay is not None else 0
        if done:
            assert game_replay is not None
            for column, values in (
                (self.movers, game_replay.movers),
                (self.defenders, game_replay.defenders),
                (self.outcomes, game_replay.outcomes),
            ):
                column += values if len(values) == done else values[:done]
        if done < plies:
            padding = [0] * (plies - done)
            self.movers += padding
            self.defenders += padding
            self.outcomes += padding

    def finish(self) -> dict[str, pa.Table]:
        """The four tables of everything added."""
        game_ids = pa.array(self.games["game_id"], pa.string())
        self.identity = SetupIdentity(self.setup_rows, self.setup_games, len(game_ids))
        self.games.update(self.identity.games)
        return {
            "games": _table(GAMES_SCHEMA, self.games),
            "setups": self._setups(game_ids),
            "moves": self._moves(game_ids),
            "diagnostics": _table(DIAGNOSTICS_SCHEMA, self.diagnostics),
        }

    def _setups(self, game_ids: pa.Array) -> pa.Table:
        if not self.setup_rows:
            return empty_table("setups")
        codes = np.array(self.setup_rows, dtype=np.int8)
        pieces = (codes > 0) & (codes < 25)
        rows_of_games, squares = np.nonzero(pieces)
        code = codes[rows_of_games, squares]
        side = _SIDE_INDEX[code]
        blue = side == 1
        board_row = squares // 10
        board_col = squares % 10
        row = np.where(blue, 10 - board_row, board_row + 1)
        col = np.where(blue, 10 - board_col, board_col + 1)
        games = np.asarray(self.setup_games, dtype=np.int64)[rows_of_games]
        return pa.table(
            [
                pc.take(game_ids, pa.array(games)),
                dictionary_column("side", side),
                pa.array(row.astype(np.int8)),
                pa.array(col.astype(np.int8)),
                dictionary_column("square", squares),
                dictionary_column("piece", _KIND_INDEX[code]),
                *self.identity.setup_columns(rows_of_games, blue),
            ],
            schema=SETUPS_SCHEMA,
        )

    def _moves(self, game_ids: pa.Array) -> pa.Table:
        if not self.sources:
            return empty_table("moves")
        counts = np.array(self.move_games, dtype=np.int32)
        with_moves = np.flatnonzero(np.array(self.games["plies"], dtype=np.int64))
        games = np.repeat(with_moves, counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        ply = np.arange(len(games), dtype=np.int32) - starts + 1
        source = _small_ints(self.sources)
        target = _small_ints(self.targets)
        source_bad = (source < 0) | (source > 99)
        target_bad = (target < 0) | (target > 99)
        source_ok = np.where(source_bad, 0, source)
        target_ok = np.where(target_bad, 0, target)
        distance = np.abs(source_ok // 10 - target_ok // 10) + np.abs(
            source_ok % 10 - target_ok % 10
        )
        mover = _small_ints(self.movers)
        defender = _small_ints(self.defenders)
        outcome = _small_ints(self.outcomes)
        rescued = np.zeros(len(games), dtype=np.int64)
        if self.rescued:
            rescued[list(self.rescued)] = list(self.rescued.values())
        return pa.table(
            [
                pc.take(game_ids, pa.array(games)),
                pa.array(ply.astype(np.int32)),
                dictionary_column("side", (ply + 1) % 2),
                dictionary_column("piece", _KIND_INDEX[mover], mover == 0),
                dictionary_column("source", source_ok, source_bad),
                dictionary_column("target", target_ok, target_bad),
                pa.array(distance.astype(np.int8), mask=source_bad | target_bad),
                dictionary_column("defender", _KIND_INDEX[defender], defender == 0),
                dictionary_column("outcome", np.maximum(outcome - 1, 0), outcome == 0),
                dictionary_column("rescued", _KIND_INDEX[rescued], rescued == 0),
            ],
            schema=MOVES_SCHEMA,
        )


def _small_ints(values: list[int]) -> npt.NDArray[np.int16]:
    """A list of small ints as an int16 array; ``bytes()`` converts 0..255 three times faster
    than ``np.array`` does, and -1 (a bad square) sends it down the slow path."""
    try:
        return np.frombuffer(bytes(values), dtype=np.uint8).astype(np.int16)
    except ValueError:
        return np.array(values, dtype=np.int16)


def _table(schema: pa.Schema, columns: dict[str, list[Any]]) -> pa.Table:
    """A table from plain column lists, typed by ``schema``."""
    return pa.table([pa.array(columns[f.name], f.type) for f in schema], schema=schema)
