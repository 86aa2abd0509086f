"""The five tables of a batch of games, built column-wise from records and their replays.

:func:`tables_for_units` is the per-batch work of an export: read, check, replay, and return
the ``games``, ``setups``, ``moves``, ``diagnostics`` and ``events`` tables for that batch
(Arrow, never decoded move lists), so it can run on a process pool or on Dask through
:func:`strat_tools.run.pipeline.map_batches`. The columns, their types and their fixed categories
are :mod:`strat_tools.tables.schemas`'; unique game ids are
:mod:`strat_tools.tables.game_ids`'.

Every input unit becomes exactly one ``games`` row, unreadable ones included (status
``invalid`` or ``unreadable``, with their diagnostics), and one ``end`` row in ``events``.
Columns are built with numpy and ``pa.array`` over whole batches, never row by row.

Setups-only tables (``setups_only=True``) skip the replay entirely: ``moves`` and ``events``
are empty, a game's ``status`` is ``invalid`` when the record checks found an error and
``unchecked`` otherwise (its moves were never judged, so it is never called ``valid``),
``rules`` is null and ``replayed`` is false.

This module does not write files (see :mod:`strat_tools.tables.dataset`) and computes no statistics
(see :mod:`strat_tools.stats`).

>>> from strat_tools.io.sources import iter_units
>>> from strat_tools.tables.columns import to_frame
>>> from strat_tools.tables.schemas import TABLE_NAMES
>>> tables = tables_for_units(list(iter_units(["tests/fixtures/gravon/classic-2014.4-17.xml"])))
>>> sorted(tables) == sorted(TABLE_NAMES)
True
>>> game = to_frame(tables["games"]).iloc[0]
>>> game["winner"], bool(game["draw"]), game["termination"]
('blue', False, 'resigned')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.core.pieces import CODE_KIND, CODE_SIDE
from strat_tools.core.records import VARIANTS, Diagnostic, GameRecord, Severity, Status
from strat_tools.engine.events.key_events import End, Rescue, end_row, find_events, rescue_rows
from strat_tools.engine.replays.replay import Replay, replay_safely
from strat_tools.formats.readers import read_units
from strat_tools.io.sources import Unit
from strat_tools.setups.identity import SetupIdentity, game_fingerprint
from strat_tools.tables.columns import dictionary_column, empty_table, events_table, labels_column
from strat_tools.tables.game_ids import GameIds
from strat_tools.tables.schemas import BUILT_SCHEMAS, DIAGNOSTICS_SCHEMA, GAMES_SCHEMA, add_ranks

__all__ = ["tables_for_records", "tables_for_units"]

# Per board code 0..25: side index (0 red, 1 blue, -1 none) and kind index (-1 none).
_SIDE_INDEX: Final = np.array([s - 1 for s in CODE_SIDE], dtype=np.int8)
_KIND_INDEX: Final = np.array(CODE_KIND, dtype=np.int8)
_SIDE_OF_WINNER: Final = {1: "red", 2: "blue"}
"""Gravon's winner codes that name a side (3 is a draw; anything else no winner)."""


def tables_for_units(
    units: Sequence[Unit], *, rules: str | None = "auto", setups_only: bool = False
) -> dict[str, pa.Table]:
    """Read, check and (unless ``setups_only``) replay a batch; return its five tables.

    Top-level and picklable, for :func:`strat_tools.run.pipeline.map_batches`::

        from functools import partial
        parts = map_batches(partial(tables_for_units, rules="auto"), iter_units(["data/"]))
    """
    return tables_for_records(read_units(units), rules=rules, setups_only=setups_only)


def tables_for_records(
    records: Iterable[GameRecord], *, rules: str | None = "auto", setups_only: bool = False
) -> dict[str, pa.Table]:
    """The five tables of already-read (and checked) records; replays them unless told not to."""
    builder = _Builder(moves=not setups_only)
    for record in records:
        game_replay = None if setups_only else replay_safely(record, rules)
        builder.add(record, game_replay)
    return builder.finish()


class _Builder:
    """Column lists for one batch; :meth:`finish` turns them into the five tables."""

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
        self.rescues: list[Rescue] = []
        self.ends: list[End] = []
        """Per game, its events' end row (with moves only)."""
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
            replayed = game_replay if record.readable else None
            if replayed is not None:
                self.rescues += rescue_rows(replayed, len(self.sources))
            self.ends.append(end_row(record, replayed))
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
        winner = result.winner if result is not None else None
        replay_winner = game_replay.winner if game_replay is not None else None
        values: dict[str, Any] = {
            "game_id": game_id,
            "source": record.source,
            "member": record.member,
            "variant": record.variant if record.variant in VARIANTS else None,
            "year": record.year,
            "month": record.month,
            "period": period,
            "number": record.number,
            "rules": game_replay.rules.name if game_replay is not None else None,
            "status": status.value,
            "result_type": result.type if result is not None else None,
            "termination": result.termination.label if result is not None else None,
            "winner": _SIDE_OF_WINNER.get(winner) if winner is not None else None,
            "draw": winner == 3,
            "replay_termination": ending.label if ending is not None else None,
            "replay_winner": _SIDE_OF_WINNER.get(replay_winner) if replay_winner else None,
            "replay_draw": replay_winner == 3,
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
        """The five tables of everything added."""
        game_ids = pa.array(self.games["game_id"], pa.string())
        self.fields = _fields(self.setup_rows)
        self.identity = SetupIdentity(self.fields, self.setup_games, len(game_ids))
        self.games.update(self.identity.games)
        plies = np.asarray(self.games["plies"], dtype=np.int64) if self.with_moves else None
        columns = (
            _small_ints(self.movers),
            _small_ints(self.defenders),
            _small_ints(self.outcomes),
            _small_ints(self.sources),
            _small_ints(self.targets),
        )
        events = (
            events_table(game_ids, find_events(plies, columns, self.rescues, self.ends))
            if plies is not None
            else empty_table("events")
        )
        return {
            "games": _table(GAMES_SCHEMA, self.games),
            "setups": self._setups(game_ids),
            "moves": self._moves(game_ids, columns),
            "diagnostics": _table(DIAGNOSTICS_SCHEMA, self.diagnostics),
            "events": events,
        }

    def _setups(self, game_ids: pa.Array) -> pa.Table:
        if not self.setup_rows:
            return empty_table("setups")
        codes = self.fields.astype(np.int8)
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
        table = pa.table(
            [
                pc.take(game_ids, pa.array(games)),
                dictionary_column("side", side),
                pa.array(row.astype(np.int8)),
                pa.array(col.astype(np.int8)),
                dictionary_column("square", squares),
                dictionary_column("piece", _KIND_INDEX[code]),
                *self.identity.setup_columns(rows_of_games, blue),
            ],
            schema=BUILT_SCHEMAS["setups"],
        )
        return add_ranks("setups", table)

    def _moves(self, game_ids: pa.Array, columns: tuple[npt.NDArray[np.int16], ...]) -> pa.Table:
        if not self.sources:
            return empty_table("moves")
        counts = np.array(self.move_games, dtype=np.int32)
        with_moves = np.flatnonzero(np.array(self.games["plies"], dtype=np.int64))
        games = np.repeat(with_moves, counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        ply = np.arange(len(games), dtype=np.int32) - starts + 1
        mover, defender, outcome, source, target = columns
        source_bad = (source < 0) | (source > 99)
        target_bad = (target < 0) | (target > 99)
        source_ok = np.where(source_bad, 0, source)
        target_ok = np.where(target_bad, 0, target)
        distance = np.abs(source_ok // 10 - target_ok // 10) + np.abs(
            source_ok % 10 - target_ok % 10
        )
        rescued = np.zeros(len(games), dtype=np.int64)
        if self.rescued:
            rescued[list(self.rescued)] = list(self.rescued.values())
        table = pa.table(
            [
                pc.take(game_ids, pa.array(games)),
                pa.array(ply.astype(np.int32)),
                dictionary_column("side", (ply + 1) % 2),
                dictionary_column("piece", _KIND_INDEX[mover], mover == 0),
                dictionary_column("from_square", source_ok, source_bad),
                dictionary_column("to_square", target_ok, target_bad),
                pa.array(distance.astype(np.int8), mask=source_bad | target_bad),
                dictionary_column("defender", _KIND_INDEX[defender], defender == 0),
                dictionary_column("outcome", np.maximum(outcome - 1, 0), outcome == 0),
                dictionary_column("rescued", _KIND_INDEX[rescued], rescued == 0),
            ],
            schema=BUILT_SCHEMAS["moves"],
        )
        return add_ranks("moves", table)


def _fields(fields: list[tuple[int, ...]]) -> npt.NDArray[np.int16]:
    """The batch's 100-square fields as one ``[k, 100]`` array; joined as bytes when every
    code is 0..255 (about ten times faster than ``np.array`` on the tuples)."""
    try:
        joined = np.frombuffer(b"".join(map(bytes, fields)), dtype=np.uint8)
        return joined.astype(np.int16).reshape(-1, 100)
    except ValueError:
        return np.array(fields, dtype=np.int16).reshape(-1, 100)


def _small_ints(values: list[int]) -> npt.NDArray[np.int16]:
    """A list of small ints as an int16 array; ``bytes()`` converts 0..255 three times faster
    than ``np.array`` does, and -1 (a bad square) sends it down the slow path."""
    try:
        return np.frombuffer(bytes(values), dtype=np.uint8).astype(np.int16)
    except ValueError:
        return np.array(values, dtype=np.int16)


def _table(schema: pa.Schema, columns: dict[str, list[Any]]) -> pa.Table:
    """A table from plain column lists (labels for the categorical ones), typed by ``schema``.
    A variant Gravon does not have becomes null (its ``game.variant`` diagnostic names it)."""
    return pa.table(
        [
            labels_column(f.name, columns[f.name], unknown_as_null=f.name == "variant")
            if pa.types.is_dictionary(f.type)
            else pa.array(columns[f.name], f.type)
            for f in schema
        ],
        schema=schema,
    )
