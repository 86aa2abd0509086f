"""Write a belief submission: any belief model over a split (``bench predict --task belief``).

:func:`predict_beliefs` reads the split's plies a chunk at a time (only ``game_id``,
``ply``, ``board_view`` and ``unseen``: never the ``board`` label), asks the model
(:class:`~strat_tools.engine.information.beliefs.BeliefModel`; None: the counts left) for its
beliefs through :func:`~strat_tools.engine.information.beliefs.model_beliefs` (renormalised over the
kinds each piece may be), and writes one row per unidentified piece: ``game_id``, ``ply``,
``square`` (the mover's view) and ``log_probs`` (12 float32 over
:data:`~strat_tools.engine.information.beliefs.BELIEF_KINDS`; a kind given no mass is written as
:data:`NO_MASS_LOG`, finite). ``PRED/card.json`` as for the move task.

>>> from strat_tools.benchmark.belief_baselines import CountsLeftBelief
>>> predict_beliefs("bench-v1", "test", CountsLeftBelief(), "pred")  # doctest: +SKIP
PredictSummary(rows=22..., files=2, ...)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from strat_tools.benchmark.belief_baselines import CountsLeftBelief
from strat_tools.benchmark.belief_rows import iter_belief_chunks
from strat_tools.benchmark.bench_folder import BenchFolder, open_bench, split_export
from strat_tools.benchmark.predict import PredictSummary
from strat_tools.benchmark.submission_files import CARD, check_card
from strat_tools.engine.information.beliefs import BeliefModel, model_beliefs, unidentified
from strat_tools.engine.information.history import HISTORY_FIELDS
from strat_tools.io.output import atomic_folder

__all__ = ["BELIEF_SCHEMA", "NO_MASS_LOG", "predict_beliefs"]

NO_MASS_LOG: Final = float(np.float32(np.log(1e-30)))
"""The log-probability written for a kind given no mass (finite, as the checks ask)."""
BELIEF_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        pa.field("square", pa.int8(), nullable=False),
        pa.field("log_probs", pa.list_(pa.float32()), nullable=False),
    ]
)
"""A belief submission file's columns (``log_probs`` a list of 12 float32)."""


def predict_beliefs(
    bench: str | os.PathLike[str] | BenchFolder,
    split: str,
    model: BeliefModel | None,
    output: str | os.PathLike[str],
    *,
    card: Mapping[str, Any] | None = None,
) -> PredictSummary:
    """Write ``model``'s belief submission for ``split`` of ``bench`` to the new folder
    ``output`` (``model`` None: the counts left); ``card`` adds to the model's card."""
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    folder.check_split(split)
    chosen = model or CountsLeftBelief()
    about = chosen.card() if hasattr(chosen, "card") else {"model": chosen.name}
    the_card = check_card({**about, **(card or {})}, f"the card of {chosen.name!r}")
    rows = 0
    with atomic_folder(output) as building:
        with pq.ParquetWriter(
            building / "part-00000.parquet", BELIEF_SCHEMA, compression="zstd"
        ) as writer:
            wants = bool(set(HISTORY_FIELDS) & set(chosen.fields))
            for ids, arrays in iter_belief_chunks(split_export(folder, split), history=wants):
                probs = model_beliefs(chosen, arrays)
                row, square = np.nonzero(unidentified(arrays["board_view"])[0])
                with np.errstate(divide="ignore"):
                    logs = np.log(probs[row, square])
                values = np.maximum(logs, NO_MASS_LOG).astype(np.float32)
                part = pa.table(
                    [
                        ids.column("game_id").cast(pa.string()).take(row),
                        ids.column("ply").cast(pa.int32()).take(row),
                        pa.array(square.astype(np.int8), pa.int8()),
                        pa.ListArray.from_arrays(
                            pa.array(np.arange(len(row) + 1, dtype=np.int32) * 12, pa.int32()),
                            pa.array(values.ravel(), pa.float32()),
                        ),
                    ],
                    schema=BELIEF_SCHEMA,
                )
                writer.write_table(part)
                rows += part.num_rows
        (building / CARD).write_text(json.dumps(the_card, indent=2) + "\n", encoding="utf-8")
    return PredictSummary(rows, 1, os.fspath(Path(output)), the_card)
