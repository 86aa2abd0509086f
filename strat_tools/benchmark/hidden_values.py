"""How hidden a marshal really was: the secrecy values measured by a belief model.

The secrecy model of ``values`` (``docs/values.md``) splits a rank into pieces the opponent
has identified or not; "not identified" says nothing of how sure the opponent already was.
Here a belief model of the registry (:func:`~strat_tools.benchmark.policies.load`,
``DEFAULTS["belief"]`` unless named: a learned one plugs in by name) measures it: for
each side's marshal in a classic game that replays valid to its end (the secrecy model's
games), the probability the opponent's belief put on
"marshal" on its square at the opponent's last turn before the marshal's **first battle**
(when it attacked, the opponent's turn just before; when it was attacked, the attacker's own
turn: how sure the attacker was of what it attacked). :func:`marshal_beliefs` gives one row
per marshal, computed per game in the workers through the one input driver;
:func:`marshal_secrecy` sums them by how sure the belief was: the marshal's side's share of
the decided games and the marshal's survival of that battle, each with a Wilson interval.

>>> path = "tests/fixtures/gravon/classic-2014.4-17.xml"
>>> rows = marshal_beliefs(path, model="belief-prior", run=1)  # 3 plies: no battle
>>> rows[["side", "role", "won"]].to_dict("records")
[{'side': 'red', 'role': 'never fought', 'won': False}, \
{'side': 'blue', 'role': 'never fought', 'won': True}]
>>> rows["belief"].round(3).tolist()  # red's marshal in blue's eyes after ply 2, blue's after 3
[0.065, 0.075]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np
import pyarrow as pa

from strat_tools.benchmark.game_beliefs import game_beliefs
from strat_tools.benchmark.policies import chosen, loaded
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, PieceKind
from strat_tools.core.records import GameRecord, Status
from strat_tools.core.rules import resolve_rules
from strat_tools.engine.information.beliefs import BeliefModel
from strat_tools.engine.replays.replay import Replay, replay_safely
from strat_tools.run.driver import map_records
from strat_tools.run.inputs import InputsArg
from strat_tools.run.options import RunArg
from strat_tools.stats.formulas import wilson
from strat_tools.tables.game_ids import GameIds

if TYPE_CHECKING:
    import pandas as pd

    from strat_tools.run.filters import GameFilter

__all__ = [
    "BELIEF_BANDS",
    "MARSHAL_SCHEMA",
    "MarshalBeliefsWork",
    "belief_model",
    "marshal_beliefs",
    "marshal_secrecy",
]

MARSHAL: Final = int(PieceKind.MARSHAL)
BELIEF_BANDS: Final = (0.0, 0.1, 0.25, 0.5, 1.0)
"""The bands of the belief on "marshal" that :func:`marshal_secrecy` sums by (the last
closed)."""
MARSHAL_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("side", pa.string(), nullable=False),
        pa.field("battle_ply", pa.int32()),
        pa.field("role", pa.string(), nullable=False),
        pa.field("survived", pa.bool_()),
        pa.field("belief", pa.float64()),
        pa.field("won", pa.bool_()),
    ]
)
"""One row per marshal: its side, the ply of its first battle (null: it never fought),
``role`` (``attacked``, ``was attacked`` or ``never fought``), whether it survived that
battle, the opponent's belief on "marshal" for it (before the battle, or at the
opponent's last turn when it never fought; null when the opponent never saw it hidden),
and whether its side won (null for a draw or no recorded winner)."""


def belief_model(name: str | None = None) -> str:
    """A belief model's registry name (None: ``DEFAULTS["belief"]``), checked before any
    work: a usage error for a move policy's or an unknown name."""
    return chosen("belief", name, "belief-model")


def _loaded(name: str) -> BeliefModel:
    model = loaded(name)
    assert isinstance(model, BeliefModel)
    return model


def _first_battle(result: Replay, side: int) -> tuple[int, str, bool] | None:
    """``(ply, role, survived)`` of ``side``'s marshal's first battle, or None."""
    for at, (mover, defender) in enumerate(zip(result.movers, result.defenders, strict=False)):
        if defender == 0:
            continue
        attacking = CODE_SIDE[mover] == side and CODE_KIND[mover] == MARSHAL
        if not attacking and not (CODE_SIDE[defender] == side and CODE_KIND[defender] == MARSHAL):
            continue
        outcome = result.outcomes[at]
        survived = outcome in (1, 4) if attacking else outcome == 2
        return at + 1, "attacked" if attacking else "was attacked", survived
    return None


def _marshal_rows(record: GameRecord, name: str, rules: str | None) -> list[dict[str, Any]]:
    if not record.readable or record.variant != "classic":
        return []
    result = replay_safely(record, resolve_rules(rules, record))
    if result is None or result.status != Status.VALID or result.stopped_at is not None:
        return []  # the secrecy model's games: those that replay valid to their end
    beliefs = game_beliefs(result, _loaded(name))
    if beliefs is None:
        return []
    winner = record.result.winner if record.result is not None else None
    rows = []
    for side, label in ((1, "red"), (2, "blue")):
        # the opponent's beliefs about this side's marshal: blue's rows hold red's pieces
        about = (beliefs.blue == (side == 1)) & (beliefs.truth == MARSHAL)
        battle = _first_battle(result, side)
        limit = battle[0] if battle is not None else np.iinfo(np.int32).max
        before = np.flatnonzero(about & (beliefs.ply <= limit))
        rows.append(
            {
                "game_id": record.game_id,
                "side": label,
                "battle_ply": None if battle is None else battle[0],
                "role": "never fought" if battle is None else battle[1],
                "survived": None if battle is None else battle[2],
                "belief": float(beliefs.probs[before[-1], MARSHAL]) if len(before) else None,
                "won": None if winner not in (1, 2) else winner == side,
            }
        )
    return rows


@dataclass(frozen=True, slots=True)
class MarshalBeliefsWork:
    """The marshal rows (:data:`MARSHAL_SCHEMA`) of a batch of records (a ``RecordWork``)."""

    model: str = "belief-prior"
    rules: str | None = "auto"
    code: str = "internal.beliefs"
    check: bool = True

    def __call__(self, records: Iterable[GameRecord]) -> pa.Table:
        ids = GameIds()
        rows = []
        for record in records:
            name = ids.claim(record.game_id)
            for row in _marshal_rows(record, self.model, self.rules):
                rows.append({**row, "game_id": name})
        return pa.Table.from_pylist(rows, schema=MARSHAL_SCHEMA)

    def combine(self, parts: list[pa.Table]) -> pa.Table:
        return pa.concat_tables(parts) if parts else MARSHAL_SCHEMA.empty_table()

    def renumber(self, ids: GameIds, table: pa.Table) -> pa.Table:
        games = pa.table({"game_id": table.column("game_id").unique()})
        return ids.renumber({"games": games, "marshals": table})["marshals"]


def marshal_beliefs(
    paths: InputsArg,
    *,
    model: str | None = None,
    rules: str | None = "auto",
    select: GameFilter | None = None,
    run: RunArg = None,
) -> pd.DataFrame:
    """One row per marshal (:data:`MARSHAL_SCHEMA`) of every classic game under ``paths``
    that ``select`` keeps and that replays valid to its end (the secrecy model's games), the
    belief from ``model`` (a registry name; None: the default belief model)."""
    work = MarshalBeliefsWork(belief_model(model), rules)
    table = work.combine(list(map_records(work, paths, select=select, run=run)))
    frame: pd.DataFrame = table.to_pandas()
    frame["battle_ply"] = frame["battle_ply"].astype("Int32")
    frame["survived"] = frame["survived"].astype("boolean")
    frame["won"] = frame["won"].astype("boolean")
    return frame


def marshal_secrecy(rows: pd.DataFrame, bands: tuple[float, ...] = BELIEF_BANDS) -> pd.DataFrame:
    """:func:`marshal_beliefs`' rows summed by ``role`` and band of the belief: marshals,
    their mean belief, the marshal's side's share of the decided games it was in (``won``,
    with a Wilson interval, ``won_low``/``won_high``) and the share that survived their first
    battle (``survived``, likewise). Rows without a belief are left out (counted nowhere)."""
    import pandas as pd

    have = rows[rows["belief"].notna()].copy()
    have["band"] = pd.cut(have["belief"], list(bands), include_lowest=True, right=False)
    have.loc[have["belief"] >= bands[-1], "band"] = have["band"].cat.categories[-1]
    out = []
    for (role, band), group in have.groupby(["role", "band"], observed=True, sort=True):
        decided = group["won"].dropna()
        fought = group["survived"].dropna()
        won_low, won_high = wilson(int(decided.sum()), len(decided))
        sur_low, sur_high = wilson(int(fought.sum()), len(fought))
        interval = cast("pd.Interval[float]", band)
        out.append(
            {
                "role": role,
                "belief": f"{interval.left:.2f}-{interval.right:.2f}",
                "marshals": len(group),
                "mean_belief": float(group["belief"].mean()),
                "decided": len(decided),
                "won": float(decided.mean()) if len(decided) else float("nan"),
                "won_low": float(won_low),
                "won_high": float(won_high),
                "survived": float(fought.mean()) if len(fought) else float("nan"),
                "survived_low": float(sur_low),
                "survived_high": float(sur_high),
            }
        )
    return pd.DataFrame(out)
