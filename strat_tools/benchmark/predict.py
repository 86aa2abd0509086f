"""Write a submission: any :class:`~strat_tools.benchmark.policy.MovePolicy` over a split.

:func:`predict` feeds the split's rows to the policy in batches
(:func:`~strat_tools.benchmark.batches.split_batches`: only the truth-free fields it
names), normalises each row's log-probabilities over its legal moves (in float64), and
writes ``PRED/part-00000.parquet`` (``game_id``, ``ply``, ``log_probs`` as a list of
float32; a row group a batch) and ``PRED/card.json`` (the policy's card, with
any fields the caller gives, checked before any work). ``PRED`` must be new or an empty
folder; it appears only when the whole submission is written.

>>> from strat_tools.benchmark.baselines import UniformPolicy
>>> predict("bench-v1", "test", UniformPolicy(), "pred")  # doctest: +SKIP
PredictSummary(rows=1018973, files=1, ...)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from strat_tools.benchmark.batches import BATCH_ROWS, check_fields, split_batches
from strat_tools.benchmark.bench_folder import BenchFolder, open_bench
from strat_tools.benchmark.policy import normalised_log_probs
from strat_tools.benchmark.submission_files import CARD, check_card
from strat_tools.engine.information.move_policy import MovePolicy
from strat_tools.io.output import atomic_folder

__all__ = ["PREDICTIONS_SCHEMA", "PredictSummary", "predict"]

PREDICTIONS_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        pa.field(
            "log_probs", pa.list_(pa.field("item", pa.float32(), nullable=False)), nullable=False
        ),
    ]
)
"""A submission file's columns. The probabilities' items are non-null (none ever is): a
reader decodes the lists a sixth faster than with nullable items (one definition level
less a value: 55 against 65 ms for counts-last on test), and a scorer reads both."""


@dataclass(frozen=True)
class PredictSummary:
    """What :func:`predict` wrote: rows, files, the folder and the card."""

    rows: int
    files: int
    directory: str
    card: dict[str, Any]

    def __str__(self) -> str:
        return (
            f"wrote {self.rows:,} rows of {self.card['model']} in {self.files} file(s) "
            f"and {CARD} to {self.directory}"
        )


def predict(
    bench: str | os.PathLike[str] | BenchFolder,
    split: str,
    policy: MovePolicy,
    output: str | os.PathLike[str],
    *,
    card: Mapping[str, Any] | None = None,
    batch_rows: int = BATCH_ROWS,
) -> PredictSummary:
    """Write ``policy``'s submission for ``split`` of the benchmark folder ``bench`` to the
    new folder ``output``; ``card`` adds to or replaces fields of the policy's card."""
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    folder.check_split(split)
    check_fields(policy.fields, f"policy {policy.name!r}")
    the_card = check_card({**policy.card(), **(card or {})}, f"the card of {policy.name!r}")
    rows = files = 0
    with atomic_folder(output) as building:
        writer: pq.ParquetWriter | None = None
        for ids, batch in split_batches(folder, split, policy.fields, batch_rows=batch_rows):
            values = pa.array(normalised_log_probs(policy, batch).astype(np.float32), pa.float32())
            offsets = np.concatenate([[0], np.cumsum(batch["legal_count"])]).astype(np.int32)
            lists = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)
            part = pa.table(
                [
                    ids.column("game_id").cast(pa.string()),
                    ids.column("ply").cast(pa.int32()),
                    lists,
                ],
                schema=PREDICTIONS_SCHEMA,
            )
            if writer is None:
                # Snappy (Parquet's default codec, which every reader has) and no
                # dictionary for the probabilities, which rarely repeat (game ids and plies
                # keep theirs): the scorer decodes the file in about two thirds of the time
                # zstd with dictionaries took, for a file an eighth larger (88 MB against
                # 78 for counts-last on test; docs/benchmark.md)
                writer = pq.ParquetWriter(
                    building / f"part-{files:05d}.parquet",
                    PREDICTIONS_SCHEMA,
                    compression="snappy",
                    use_dictionary=["game_id", "ply"],
                )
                files += 1
            writer.write_table(part)
            rows += part.num_rows
        if writer is not None:
            writer.close()
        (building / CARD).write_text(json.dumps(the_card, indent=2) + "\n", encoding="utf-8")
    return PredictSummary(rows, files, os.fspath(Path(output)), the_card)
