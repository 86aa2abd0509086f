#!/usr/bin/env python3
"""Benchmark build and loader timings (issue 43), as ratios; not a test.

    .venv/bin/python bench/bench_benchmark.py [--archive DIR] [--jobs N] [--skip-build]

1. **build**: ``strat-tools bench build ARCHIVE -o DIR`` of the 23 months against
   ``strat-tools observations`` of the same 23 zips (all variants), each a fresh process
   with the same ``--jobs``: wall seconds and the CPU seconds of the process and its
   workers. Goal: the build at most 1.5x the export.
2. **loader**: one epoch of ``observation_batches`` with ``board_view``, ``action``,
   ``legal_ids``, ``legal_count``, shuffled across the shards (the default ``mix`` and
   buffer), against the same fields read in order, each in a fresh process (its CPU
   seconds and peak RSS), on an export of two months (about 600,000 rows) written twice:
   shards of 1,000,000 rows (one shard) and of 50,000 (a dozen). Goal: the shuffled read
   within 1.2x the CPU of the ordered one and at most 1.5x its peak memory, whatever the
   shard size.

The machine is shared: run it when it is quiet, more than once, and read the ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.benchmark.definition import SPLITS  # noqa: E402

LOADER_MONTHS = ("strados2014-7.zip", "strados2014-8.zip")
FIELDS = ("board_view", "action", "legal_ids", "legal_count")


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


EPOCH = """
import resource, sys, time
from strat_tools.exports.observation_batches import observation_batches
shuffle = sys.argv[2] == "shuffled"
batches = observation_batches(sys.argv[1], 1024, fields={fields!r}, shuffle=shuffle, seed=0)
best = float("inf")
for _ in range(3):  # the least CPU of three epochs: the machine is shared
    cpu = time.process_time()
    rows = sum(len(b["action"]) for b in batches)
    best = min(best, time.process_time() - cpu)
print(rows, best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def epoch(folder: Path, how: str) -> tuple[int, float, float]:
    """(rows, the least CPU seconds of three epochs, peak RSS in MB of the process)."""
    done = subprocess.run(
        [sys.executable, "-c", EPOCH.format(fields=FIELDS), str(folder), how],
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    rows, cpu, peak = done.stdout.split()
    return int(rows), float(cpu), int(peak) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.environ.get("STRAT_TOOLS_GRAVON", str(REPO.parent / "shared" / "gravon"))
    parser.add_argument("--archive", type=Path, default=Path(default))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    tool = str(Path(sys.executable).parent / "strat-tools")
    zips = [str(args.archive / z.name) for split in SPLITS for z in split.zips]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        jobs = ["--jobs", str(args.jobs)]
        if not args.skip_build:
            build = timed([tool, "bench", "build", str(args.archive), "-o", str(root / "b"), *jobs])
            export = timed([tool, "observations", *zips, "-o", str(root / "o"), *jobs])
            print(
                f"build of the 23 months ({args.jobs} jobs): wall {build[0]:.1f} s, "
                f"CPU {build[1]:.1f} s"
            )
            print(
                f"observations of the same zips:      wall {export[0]:.1f} s, CPU {export[1]:.1f} s"
            )
            print(
                f"build / observations: wall {build[0] / export[0]:.2f}x, "
                f"CPU {build[1] / export[1]:.2f}x"
            )
        months = [str(args.archive / name) for name in LOADER_MONTHS]
        for shard_rows in (1_000_000, 50_000):
            folder = root / f"loader-{shard_rows}"
            timed(
                [
                    tool,
                    "observations",
                    *months,
                    "-o",
                    str(folder),
                    "--shard-rows",
                    str(shard_rows),
                    *jobs,
                ]
            )
            rows, cpu, peak = epoch(folder, "ordered")
            rows2, cpu2, peak2 = epoch(folder, "shuffled")
            assert rows == rows2
            print(
                f"loader, shards of {shard_rows:,} rows ({rows:,} rows): ordered CPU {cpu:.2f} s, "
                f"peak {peak:.0f} MB; shuffled CPU {cpu2:.2f} s, peak {peak2:.0f} MB; "
                f"ratios CPU {cpu2 / cpu:.2f}x, peak memory {peak2 / peak:.2f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
