"""The shipped move model beside the tables: the probability and rank of every move played.

Two library calls, both run per game in the workers through the one input driver
(:func:`~strat_tools.run.driver.map_records`) and both reading a game's model the one way,
:func:`~strat_tools.benchmark.game_models.game_move_model`:

* :func:`read_move_model`: one row per replayed ply of every classic game
  (:data:`MOVE_MODEL_SCHEMA`: ``game_id``, ``ply``, ``side``, ``legal_moves``,
  ``move_prob``, ``move_rank``), joinable on ``game_id`` and ``ply`` to the ``moves`` table
  of ``export``: what the notebooks' accuracy by ply band reads;
* :func:`iter_model_events`: the ``events`` table with those three columns added
  (:data:`MODEL_COLUMNS`, ``strat-tools events --with-model``): how likely the move that
  made each battle, capture or end was.

The model is the registry's (:func:`~strat_tools.benchmark.policies.load`, by name, loaded
once per worker); it was trained on classic games (``docs/benchmark.md``), so games of
other variants, plies past the last replayed one and rows without a move (an unreadable
game's ``end``) have no model row: their columns are **null**, never a made-up zero.

>>> table = read_move_model("tests/fixtures/gravon/classic-2014.4-17.xml", policy="uniform", run=1)
>>> table.column_names
['game_id', 'ply', 'side', 'legal_moves', 'move_prob', 'move_rank']
>>> row = table.slice(0, 1).to_pylist()[0]
>>> row["ply"], row["side"], row["move_rank"], round(row["move_prob"] * row["legal_moves"], 6)
(1, 'red', 1, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.benchmark.game_models import game_move_model
from strat_tools.benchmark.policies import DEFAULTS, chosen, loaded
from strat_tools.core.records import GameRecord
from strat_tools.core.rules import resolve_rules
from strat_tools.engine.information.move_policy import MovePolicy
from strat_tools.engine.replays.replay import replay_safely
from strat_tools.exports.event_table import EventsWork, iter_events
from strat_tools.run.batch_work import failure_of
from strat_tools.run.driver import map_records
from strat_tools.run.inputs import InputsArg
from strat_tools.run.options import RunArg
from strat_tools.tables.game_ids import GameIds

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter

__all__ = [
    "MODEL_COLUMNS",
    "MOVE_MODEL_SCHEMA",
    "ModelEventsWork",
    "MoveModelWork",
    "iter_model_events",
    "move_policy",
    "read_move_model",
]

MODEL_COLUMNS: Final = pa.schema(
    [
        pa.field("legal_moves", pa.int16()),
        pa.field("move_prob", pa.float64()),
        pa.field("move_rank", pa.int16()),
    ]
)
"""The model's columns: how many legal moves the mover had, the probability the model gave
the move played, and its rank among them (1: the model's likeliest; ties share the better
rank). Null where the ply has no model row."""
MOVE_MODEL_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        pa.field("side", pa.string(), nullable=False),
        *MODEL_COLUMNS,
    ],
    metadata={"doc": "One row per replayed ply of a classic game: the shipped move model's view"},
)
"""``read_move_model``'s table: one row per replayed ply of each classic game."""
MODELLED_VARIANT: Final = "classic"
"""The variant the shipped move models were trained on: the only one given model rows."""


def move_policy(name: str | None = None) -> str:
    """The name of a move policy of the registry (None: ``DEFAULTS["move"]``), checked
    before any work: a usage error for a belief model's or an unknown name."""
    return chosen("move", name, "policy")


def _loaded(name: str) -> MovePolicy:
    policy = loaded(name)
    assert isinstance(policy, MovePolicy)
    return policy


@dataclass(frozen=True, slots=True)
class _GameRows:
    """One game's model rows: plies 1..n in order."""

    legal: npt.NDArray[np.int16]
    prob: npt.NDArray[np.float64]
    rank: npt.NDArray[np.int16]
    blue: npt.NDArray[np.bool_]


def _game_rows(record: GameRecord, rules: str | None, code: str, policy: str) -> _GameRows | None:
    """The model rows of one record (None: a stand-in, unreadable, not classic, no rows)."""
    if failure_of(record, code) is not None or not record.readable:
        return None
    if record.variant != MODELLED_VARIANT:
        return None
    result = replay_safely(record, resolve_rules(rules, record))
    if result is None:
        return None
    model = game_move_model(result, _loaded(policy))
    if model is None:
        return None
    return _GameRows(
        legal=np.diff(model.offsets).astype(np.int16),
        prob=np.exp(model.played_log_probs()),
        rank=model.ranks().astype(np.int16),
        blue=model.blue,
    )


@dataclass(frozen=True, slots=True)
class MoveModelWork:
    """The per-ply model rows of a batch of records (a ``RecordWork``)."""

    policy: str = DEFAULTS["move"]
    rules: str | None = "auto"
    code: str = "internal.model"
    check: bool = True

    def __call__(self, records: Iterable[GameRecord]) -> pa.Table:
        ids = GameIds()
        names: list[str] = []
        blue: list[npt.NDArray[np.bool_]] = []
        parts: list[_GameRows] = []
        for record in records:
            name = ids.claim(record.game_id)
            rows = _game_rows(record, self.rules, self.code, self.policy)
            if rows is None:
                continue
            names.extend([name] * len(rows.prob))
            blue.append(rows.blue)
            parts.append(rows)
        if not parts:
            return MOVE_MODEL_SCHEMA.empty_table()
        plies = np.concatenate([np.arange(1, len(p.prob) + 1) for p in parts])
        return pa.table(
            [
                pa.array(names, pa.string()),
                pa.array(plies, pa.int32()),
                pa.array(np.where(np.concatenate(blue), "blue", "red"), pa.string()),
                pa.array(np.concatenate([p.legal for p in parts]), pa.int16()),
                pa.array(np.concatenate([p.prob for p in parts]), pa.float64()),
                pa.array(np.concatenate([p.rank for p in parts]), pa.int16()),
            ],
            schema=MOVE_MODEL_SCHEMA,
        )

    def combine(self, parts: list[pa.Table]) -> pa.Table:
        return pa.concat_tables(parts) if parts else MOVE_MODEL_SCHEMA.empty_table()

    def renumber(self, ids: GameIds, table: pa.Table) -> pa.Table:
        games = pa.table({"game_id": pc.unique(table.column("game_id"))})
        return ids.renumber({"games": games, "moves": table})["moves"]


def read_move_model(
    paths: InputsArg,
    *,
    policy: str | None = None,
    rules: str | None = "auto",
    select: GameFilter | None = None,
    run: RunArg = None,
) -> pa.Table:
    """The shipped move model (``policy``: a registry name, None the default) over every
    replayed ply of every classic game under ``paths`` that ``select`` keeps, one table
    (:data:`MOVE_MODEL_SCHEMA`), in input order."""
    work = MoveModelWork(move_policy(policy), rules)
    return work.combine(list(map_records(work, paths, select=select, run=run)))


@dataclass(frozen=True, slots=True)
class ModelEventsWork:
    """The events of a batch of records with :data:`MODEL_COLUMNS` for each row's ply
    (the move played at that ply): :class:`~strat_tools.exports.event_table.EventsWork`'s
    table, joined in the worker."""

    policy: str = DEFAULTS["move"]
    rules: str | None = "auto"
    code: str = "internal.model"
    check: bool = True

    def __call__(self, records: Iterable[GameRecord]) -> pa.Table:
        held = list(records)
        events = EventsWork(self.rules, self.code, self.check)(held)
        ids = GameIds()
        by_game = {
            ids.claim(record.game_id): _game_rows(record, self.rules, self.code, self.policy)
            for record in held
        }
        legal: list[int | None] = []
        prob: list[float | None] = []
        rank: list[int | None] = []
        games = events.column("game_id").to_pylist()
        plies = events.column("ply").to_pylist()
        for game, ply in zip(games, plies, strict=True):
            rows = by_game.get(game)
            if rows is None or not 1 <= ply <= len(rows.prob):
                legal.append(None)
                prob.append(None)
                rank.append(None)
                continue
            legal.append(int(rows.legal[ply - 1]))
            prob.append(float(rows.prob[ply - 1]))
            rank.append(int(rows.rank[ply - 1]))
        for field, values in zip(MODEL_COLUMNS, (legal, prob, rank), strict=True):
            events = events.append_column(field, pa.array(values, field.type))
        return events

    def combine(self, parts: list[pa.Table]) -> pa.Table:
        return pa.concat_tables(parts) if parts else model_events_schema().empty_table()

    def renumber(self, ids: GameIds, table: pa.Table) -> pa.Table:
        return EventsWork(self.rules, self.code, self.check).renumber(ids, table)


def model_events_schema() -> pa.Schema:
    """The ``events`` table's schema with :data:`MODEL_COLUMNS` after its own."""
    from strat_tools.tables.schemas import EVENTS_SCHEMA

    schema: pa.Schema = EVENTS_SCHEMA
    for field in MODEL_COLUMNS:
        schema = schema.append(field)
    return schema


def iter_model_events(
    paths: InputsArg,
    *,
    policy: str | None = None,
    rules: str | None = "auto",
    kinds: Iterable[str] | None = None,
    select: GameFilter | None = None,
    run: RunArg = None,
) -> Iterator[pa.Table]:
    """:func:`~strat_tools.exports.event_table.iter_events` with the shipped move model's
    columns (:data:`MODEL_COLUMNS`; ``policy`` a registry name, None the default): what
    ``strat-tools events --with-model`` writes, one Arrow table per batch."""
    work = ModelEventsWork(move_policy(policy), rules)
    return iter_events(paths, rules=rules, kinds=kinds, select=select, run=run, work=work)
