"""A split's rows as the batches a move policy (``MovePolicy``, the engine's protocol) reads.

:func:`split_batches` reads only the columns the fields need (and ``game_id``, ``ply``,
``legal_actions``), a shard at a time, and cuts each shard into batches of NumPy arrays
(:func:`~strat_tools.exports.observation_arrays.batch_arrays`): ``legal_ids``,
``legal_count`` and each truth-free field a policy names
(:data:`~strat_tools.benchmark.policy.POLICY_FIELDS`); a policy naming any other field is
refused. ``labels=True`` adds ``played`` (each row's played move's index among its legal
ids), for fitting on train only: the predictor never asks for it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

import numpy as np
import pyarrow as pa

from strat_tools.benchmark.bench_folder import BenchFolder, iter_split_rows, split_export
from strat_tools.benchmark.policy import POLICY_FIELDS
from strat_tools.core.errors import InputError, UsageError
from strat_tools.exports.observation_arrays import COLUMNS, batch_arrays

__all__ = ["BATCH_ROWS", "check_fields", "split_batches"]

BATCH_ROWS: Final = 65_536
"""Rows a batch, at most."""


def check_fields(fields: Sequence[str], who: str) -> None:
    """Refuse (usage error) a field that is not a truth-free input."""
    wrong = [f for f in fields if f not in POLICY_FIELDS]
    if wrong:
        raise UsageError(
            f"{who} asks for {', '.join(map(repr, wrong))}: a policy reads only the "
            f"truth-free fields ({', '.join(POLICY_FIELDS)})",
            option="policy",
        )


def split_batches(
    folder: BenchFolder,
    split: str,
    fields: Sequence[str],
    *,
    batch_rows: int = BATCH_ROWS,
    labels: bool = False,
) -> Iterator[tuple[pa.Table, dict[str, Any]]]:
    """Each batch of ``split``: its ``game_id`` and ``ply`` (a table) and the arrays."""
    check_fields(fields, "the policy")
    wanted = ["legal_ids", "legal_count", *fields, *(["action"] if labels else [])]
    columns = ["game_id", "ply", "legal_actions"]
    columns += [c for name in wanted for c in COLUMNS[name] if c not in columns]
    for shard in iter_split_rows(split_export(folder, split), columns):
        for start in range(0, shard.num_rows, batch_rows):
            part = shard.slice(start, batch_rows)
            batch = batch_arrays(part, wanted)
            if labels:
                hit = batch.pop("action")[:, None] == batch["legal_ids"]
                if not (hit.sum(axis=1) == 1).all():
                    raise InputError(
                        f"split {split!r}: a move played is not once in its legal moves"
                    )
                batch["played"] = np.argmax(hit, axis=1)
            yield part.select(["game_id", "ply"]), batch
