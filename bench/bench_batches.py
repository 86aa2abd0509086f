#!/usr/bin/env python3
"""Batch benchmark: an observation export read as NumPy batches, against row by row.

    .venv/bin/python bench/bench_batches.py [PATHS...] [--from-export DIR] [--batch-size N]

PATHS default to one archive month ($STRAT_TOOLS_GRAVON or ../shared/gravon,
strados2014-5.zip), or ``data/`` when the archive is absent; they are exported into a
temporary folder first (``--from-export DIR`` reads an existing export instead). Then, on
one core (the process is pinned to one CPU), rows per CPU second of:

1. ``observation_batches`` with the default fields (board, action, legal_mask), with
   planes instead of boards, and shuffled: one whole epoch each;
2. row by row, the way an item-by-item ``Dataset.__getitem__`` works (one row's planes,
   legal mask and label at a time) on the first ``--item-rows`` rows.

The line that matters is the ratio of the batched rate (planes, mask, label: the same
arrays) to the row-by-row one.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.engine.planes import to_planes  # noqa: E402
from strat_tools.exports.observation_batches import observation_batches  # noqa: E402
from strat_tools.exports.observation_files import export_observations, read_observations  # noqa: E402
from strat_tools.exports.observations import boards_of  # noqa: E402


def default_paths() -> list[Path]:
    archive = Path(os.environ.get("STRAT_TOOLS_GRAVON", REPO.parent / "shared" / "gravon"))
    month = archive / "strados2014-5.zip"
    return [month] if month.is_file() else [REPO / "data"]


def cpu_rate(rows: int, run: object) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()  # type: ignore[operator]
    return rows / (time.process_time() - cpu), rows / (time.perf_counter() - wall)


def epoch(folder: Path, **options: object) -> None:
    for batch in observation_batches(folder, **options):  # type: ignore[arg-type]
        assert batch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--from-export", type=Path, default=None)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--item-rows", type=int, default=20_000)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.from_export
        if folder is None:
            folder = Path(scratch) / "obs"
            summary = export_observations(args.paths or default_paths(), folder, run=1)
            print(f"export: {summary}")
        rows = observation_batches(folder).rows
        size = args.batch_size
        print(f"{rows:,} rows; batches of {size:,}, rows per CPU second (wall beside it)")
        runs = {
            "board+action+legal_mask": {"fields": ("board", "action", "legal_mask")},
            "planes+action+legal_mask": {"fields": ("planes", "action", "legal_mask")},
            "shuffled, board+action+legal_mask": {
                "fields": ("board", "action", "legal_mask"),
                "shuffle": True,
                "seed": 0,
            },
        }
        rates = {}
        for name, options in runs.items():
            cpu, wall = cpu_rate(rows, lambda o=options: epoch(folder, batch_size=size, **o))
            rates[name] = cpu
            print(f"  batches, {name:34} {cpu:>12,.0f} /s   (wall {wall:,.0f} /s)")

        table = read_observations(folder).slice(0, args.item_rows)
        boards = boards_of(table)
        actions = table.column("action").to_numpy()
        legal = table.column("legal_actions").to_pylist()

        def by_item() -> None:
            for i in range(table.num_rows):
                planes = to_planes(boards[i : i + 1])[0].astype(np.float32)
                mask = np.zeros(10_000, bool)
                mask[legal[i]] = True
                assert planes.shape and int(actions[i]) >= 0

        cpu, wall = cpu_rate(table.num_rows, by_item)
        print(f"  row by row (planes, mask, label)  {cpu:>12,.0f} /s   (wall {wall:,.0f} /s)")
        same = rates["planes+action+legal_mask"]  # the same arrays as row by row makes
        print(f"batched (planes+action+legal_mask) / row by row: {same / cpu:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
