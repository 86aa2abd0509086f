"""The shipped baselines: uniform over the legal moves, and two count models.

- ``uniform``: every legal move alike (the mean log of the number of legal moves).
- ``counts``: how often a kind of move (:mod:`strat_tools.benchmark.move_kinds`) is chosen
  when it is legal, counted on train: a move's weight is ``(chosen + a * r) / (legal +
  a)``, the kind's rate smoothed towards the overall rate ``r`` with ``a =``
  :data:`SMOOTHING` pseudo-rows, and a row's probabilities are the weights normalised over
  its legal moves.
- ``counts-last``: the same, with each kind split by whether the move moves the piece the
  mover moved on its previous turn (:func:`~strat_tools.benchmark.move_kinds.same_piece`).

Both count models read only the truth-free board and ``last_moves``, are fitted on train
alone (:func:`fit_counts`), and ship as ``benchmark/data/counts.json`` with their
provenance (months, games, rows, the benchmark's version, the strat-tools version that
fitted them); :func:`load_counts` checks every field when reading one back.

>>> [p.name for p in shipped_policies()]
['uniform', 'counts', 'counts-last']
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.metadata import version as package_version
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.benchmark.batches import BATCH_ROWS, split_batches
from strat_tools.benchmark.bench_folder import BenchFolder, open_bench
from strat_tools.benchmark.definition import NAME, VERSION
from strat_tools.benchmark.human_model import SHIPPED_MODELS, HumanPolicy, load_model
from strat_tools.benchmark.move_kinds import KINDS, KINDS_VERSION, move_kinds, same_piece
from strat_tools.core.errors import InputError, UsageError
from strat_tools.engine.information.move_policy import MovePolicy
from strat_tools.io.output import write_file_atomically
from strat_tools.io.own_files import FieldError, load_json_or_shipped

__all__ = [
    "POLICIES",
    "SHIPPED_COUNTS",
    "SMOOTHING",
    "CountPolicy",
    "CountTable",
    "UniformPolicy",
    "count_batch",
    "fit_count_tables",
    "fit_counts",
    "load_counts",
    "policy_by_name",
    "save_counts",
    "shipped_policies",
]

_MONTH: Final = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
SMOOTHING: Final = 1.0
"""Pseudo-rows pulling a kind's rate towards the overall rate (a kind seldom legal)."""
SHIPPED_COUNTS: Final = "counts.json"
MAX_OWN_BYTES: Final = 1 << 24
"""Count tables written by ``save_counts`` are about 50 KB; a file over 16 MiB is refused
unread."""
"""The shipped count tables, in ``strat_tools/benchmark/data/``."""
POLICIES: Final = ("uniform", "counts", "counts-last", *SHIPPED_MODELS)
"""The shipped policies' names: the baselines and the human-move model
(:mod:`strat_tools.benchmark.human_model`)."""
FORMS: Final = {"counts": KINDS, "counts-last": 2 * KINDS}
"""Each count model's number of cells: the kinds, or the kinds times same piece or not."""
PROVENANCE: Final = ("benchmark", "version", "split", "months", "games", "rows", "strat_tools")
"""The provenance a shipped table carries: the benchmark, its version, the split (train),
its calendar months, games and rows, and the strat-tools version that counted it."""


class UniformPolicy:
    """Every legal move alike."""

    name = "uniform"
    fields: tuple[str, ...] = ()

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        """``-log(legal_count)`` at every legal move."""
        counts = np.asarray(batch["legal_count"], dtype=np.float64)
        width = np.shape(batch["legal_ids"])[1]
        return np.repeat(-np.log(counts)[:, None], width, axis=1)

    def card(self) -> dict[str, Any]:
        """No parameters, no data."""
        return {
            "model": self.name,
            "parameters": 0,
            "training_data": "none",
            "training_months": [],
            "external_data": "none",
            "compute": "none",
            "seed": None,
            "trained_on_val": False,
        }


@dataclass(frozen=True)
class CountTable:
    """A count model's table: per cell, how often a move of it was legal and how often
    chosen, and where the counts come from (:data:`PROVENANCE`)."""

    form: str
    legal: npt.NDArray[np.int64]
    chosen: npt.NDArray[np.int64]
    provenance: dict[str, Any] = field(default_factory=dict)

    def log_weights(self) -> npt.NDArray[np.float64]:
        """Each cell's log weight: its smoothed rate of being chosen when legal."""
        overall = self.chosen.sum() / max(int(self.legal.sum()), 1)
        rate = (self.chosen + SMOOTHING * overall) / (self.legal + SMOOTHING)
        weights: npt.NDArray[np.float64] = np.log(np.maximum(rate, 1e-12))
        return weights

    def to_json(self) -> dict[str, Any]:
        """The table as JSON (lists of ints)."""
        return {
            "form": self.form,
            "kinds_version": KINDS_VERSION,
            "smoothing": SMOOTHING,
            "legal": self.legal.tolist(),
            "chosen": self.chosen.tolist(),
            "provenance": self.provenance,
        }


def _cells(form: str, batch: Mapping[str, Any]) -> npt.NDArray[np.int64]:
    """Each legal move's cell of a ``form`` table, ``[n, L]`` (-1 at padding)."""
    kinds = move_kinds(batch["board_view"], batch["legal_ids"])
    if form == "counts":
        return kinds
    same = same_piece(batch["legal_ids"], batch["last_moves"])
    return np.where(kinds < 0, -1, kinds * 2 + same)


class CountPolicy:
    """A count model (``counts`` or ``counts-last``) from its fitted table."""

    def __init__(self, table: CountTable) -> None:
        self.table = table
        self.name = table.form
        self.fields: tuple[str, ...] = (
            ("board_view",) if table.form == "counts" else ("board_view", "last_moves")
        )
        self._log_weights = table.log_weights()

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
        """Each legal move's weight, normalised over the row's legal moves."""
        cells = _cells(self.name, batch)
        weights = np.where(cells < 0, -np.inf, self._log_weights[np.maximum(cells, 0)])
        top = weights.max(axis=1, keepdims=True)
        out: npt.NDArray[np.float64] = weights - top
        out -= np.log(np.exp(out).sum(axis=1, keepdims=True))
        return out

    def card(self) -> dict[str, Any]:
        """The table's provenance as a submission card."""
        about = self.table.provenance
        return {
            "model": self.name,
            "parameters": len(self.table.legal),
            "training_data": f"{about['benchmark']} {about['split']}: "
            f"{about['games']:,} games, {about['rows']:,} rows",
            "training_months": list(about["months"]),
            "external_data": "none",
            "compute": "one pass of counting over train (minutes on one CPU core)",
            "seed": None,
            "trained_on_val": False,
        }


def count_batch(form: str, batch: Mapping[str, Any]) -> tuple[npt.NDArray[np.int64], ...]:
    """A batch's counts for a ``form`` table: per cell, moves legal and moves chosen
    (``batch["played"]``: each row's played move's index among its legal ids)."""
    cells = _cells(form, batch)
    size = FORMS[form]
    legal = np.bincount(cells[cells >= 0], minlength=size)
    chosen = np.bincount(cells[np.arange(len(cells)), batch["played"]], minlength=size)
    return legal.astype(np.int64), chosen.astype(np.int64)


def fit_counts(
    batches: Iterable[Mapping[str, Any]], provenance: Mapping[str, Any]
) -> dict[str, CountTable]:
    """Both count tables, counted over ``batches`` (rows of train, with ``played``)."""
    totals = {
        form: [np.zeros(size, np.int64), np.zeros(size, np.int64)] for form, size in FORMS.items()
    }
    for batch in batches:
        for form, (legal, chosen) in totals.items():
            more_legal, more_chosen = count_batch(form, batch)
            legal += more_legal
            chosen += more_chosen
    about = dict(provenance)
    return {
        form: CountTable(form, legal, chosen, about) for form, (legal, chosen) in totals.items()
    }


def fit_count_tables(
    bench: str | os.PathLike[str] | BenchFolder, *, batch_rows: int = BATCH_ROWS
) -> dict[str, CountTable]:
    """Both count tables fitted on the train split of the benchmark folder ``bench``, with
    their provenance (the benchmark, train's calendar months, its games and rows, the
    strat-tools version)."""
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    seen: set[str] = set()
    rows = 0

    def batches() -> Iterable[Mapping[str, Any]]:
        nonlocal rows
        fields = ("board_view", "last_moves")
        for ids, batch in split_batches(
            folder, "train", fields, batch_rows=batch_rows, labels=True
        ):
            seen.update(ids.column("game_id").unique().to_pylist())
            rows += ids.num_rows
            yield batch

    tables = fit_counts(batches(), {})
    about = {
        "benchmark": NAME,
        "version": VERSION,
        "split": "train",
        "months": folder.months("train"),
        "games": len(seen),
        "rows": rows,
        "strat_tools": package_version("strat-tools"),
    }
    return {form: CountTable(form, t.legal, t.chosen, about) for form, t in tables.items()}


def save_counts(tables: Mapping[str, CountTable], path: str | os.PathLike[str]) -> None:
    """Write count tables as one JSON file (atomically)."""
    data = {"kind": "strat-tools count tables", "tables": [t.to_json() for t in tables.values()]}
    write_file_atomically(path, (json.dumps(data, indent=1) + "\n").encode())


def _need(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise InputError(f"{where} is not a count table file: {what}")


def _int_list(values: Any, size: int, where: str, name: str) -> npt.NDArray[np.int64]:
    _need(isinstance(values, list) and len(values) == size, where, f"{name} is not {size} counts")
    _need(
        all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values),
        where,
        f"{name} holds a value that is not a count",
    )
    return np.array(values, dtype=np.int64)


def _table(entry: Any, where: str) -> CountTable:
    _need(isinstance(entry, dict), where, "a table is not a mapping")
    form = entry.get("form")
    _need(form in FORMS, where, f"unknown form {form!r}")
    _need(entry.get("kinds_version") == KINDS_VERSION, where, f"{form}: another kinds version")
    _need(entry.get("smoothing") == SMOOTHING, where, f"{form}: another smoothing")
    legal = _int_list(entry.get("legal"), FORMS[form], where, f"{form} legal")
    chosen = _int_list(entry.get("chosen"), FORMS[form], where, f"{form} chosen")
    _need(bool((chosen <= legal).all()), where, f"{form}: a kind chosen more often than legal")
    about = entry.get("provenance")
    _need(isinstance(about, dict) and set(PROVENANCE) <= set(about), where, "no provenance")
    _need(
        about["benchmark"] == NAME and about["version"] == VERSION and about["split"] == "train",
        where,
        f"{form}: not counted on {NAME} train",
    )
    _need(isinstance(about["strat_tools"], str), where, f"{form}: no strat-tools version")
    months = about["months"]
    _need(isinstance(months, list) and bool(months), where, f"{form}: no months")
    _need(
        all(isinstance(m, str) and _MONTH.match(m) for m in months),
        where,
        f"{form}: a month that is not YYYY-MM in {months!r}",
    )
    for count in ("games", "rows"):
        _need(isinstance(about[count], int) and about[count] > 0, where, f"no count of {count}")
    _need(int(chosen.sum()) == about["rows"], where, f"{form}: chosen moves are not the rows")
    return CountTable(form, legal, chosen, about)


def load_counts(path: str | os.PathLike[str] | None = None) -> dict[str, CountTable]:
    """Count tables from a file (None: the shipped ones), every field checked."""
    where = "the shipped count tables" if path is None else os.fspath(path)
    shipped = resources.files("strat_tools.benchmark").joinpath("data", SHIPPED_COUNTS)
    try:  # a file of ours read back as every input is: regular, bounded, strict JSON
        mine = None if path is None else os.fspath(path)
        data = load_json_or_shipped(mine, shipped, limit=MAX_OWN_BYTES)
    except FieldError as exc:
        raise InputError(f"cannot read the count tables {where}: {exc}") from None
    _need(isinstance(data, dict) and data.get("kind") == "strat-tools count tables", where, "kind")
    entries = data.get("tables")
    _need(isinstance(entries, list), where, "no list of tables")
    tables = {t.form: t for t in (_table(entry, where) for entry in entries)}
    _need(sorted(tables) == sorted(FORMS) and len(entries) == len(FORMS), where, "forms")
    return tables


def shipped_policies() -> list[MovePolicy]:
    """The shipped baselines: uniform and the two count models fitted on train."""
    tables = load_counts()
    return [UniformPolicy(), CountPolicy(tables["counts"]), CountPolicy(tables["counts-last"])]


def policy_by_name(
    name: str,
    counts: str | os.PathLike[str] | None = None,
    model: str | os.PathLike[str] | None = None,
) -> MovePolicy:
    """A shipped policy by name (:data:`POLICIES`); ``counts`` a count table file to use
    instead of the shipped one, ``model`` a human-move model file (``.npz`` with its
    ``.json`` card, as ``bench train`` writes) instead of a shipped human-move model."""
    if name not in POLICIES:
        raise UsageError(
            f"unknown policy {name!r} (the shipped ones: {', '.join(POLICIES)})", option="policy"
        )
    if model is not None and name not in SHIPPED_MODELS:
        raise UsageError(
            f"a model file is for a human-move policy ({', '.join(SHIPPED_MODELS)}), not {name!r}",
            option="model",
        )
    if counts is not None and name not in FORMS:
        raise UsageError(f"count tables are for a count policy, not {name!r}", option="counts")
    if name == "uniform":
        return UniformPolicy()
    if name in SHIPPED_MODELS:
        return HumanPolicy(load_model(model, name))
    return CountPolicy(load_counts(counts)[name])
