#!/usr/bin/env python3
"""``bench score`` against reading the split's observations: the target is at most 2x.

    python bench/bench_score.py BENCH_DIR [--split test] [--rounds 5]

BENCH_DIR is a built benchmark (``strat-tools bench build ../shared/gravon -o BENCH_DIR``).
The script writes a shipped policy's submission of the split once, into a temporary
folder (``--policy``; by default ``counts-last``, whose float32 lists, unlike the uniform
ones, hardly compress: 88 MB on test against 2.5 MB). Then it alternates, in one process,
``read_observations`` of the split (every column, the marker check included) and
``strat_tools.benchmark.score.score`` of the submission (the manifest, the submission and
the split checked, every metric and every bootstrap), and prints the best wall and CPU
seconds of each and their ratios (the target met when both are at most 2): the best of
several alternated rounds, because the machine may be shared. A third timing, alternated
with them, is the scorer's reading alone (the manifest checked, the split's folder
verified and its scored columns read, the submission hashed and decoded: what ``score``
reads, nothing computed): the floor no arithmetic can go under, and what is left of the
score above it.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _timed(work: object) -> tuple[float, float]:
    cpu, wall = _cpu_s(), time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - wall, _cpu_s() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench_dir")
    parser.add_argument("--split", default="test")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--policy", default="counts-last", help="the shipped policy scored")
    args = parser.parse_args()

    from strat_tools.benchmark.baselines import policy_by_name
    from strat_tools.benchmark.bench_folder import open_bench, open_split
    from strat_tools.benchmark.predict import predict
    from strat_tools.benchmark.score import score, scored_rows
    from strat_tools.benchmark.submission_files import read_submission
    from strat_tools.exports.observation_files import read_observations

    def reading(pred: Path) -> None:
        export, _ = open_split(open_bench(args.bench_dir), args.split)
        scored_rows(export, args.split)
        read_submission(pred, threads=False)

    split_dir = Path(args.bench_dir) / args.split
    with tempfile.TemporaryDirectory() as tmp:
        pred = Path(tmp) / "pred"
        predict(args.bench_dir, args.split, policy_by_name(args.policy), pred)
        reads, scores, floors = [], [], []
        for _ in range(args.rounds):
            reads.append(_timed(lambda: read_observations(split_dir)))
            scores.append(_timed(lambda: score(args.bench_dir, pred, args.split)))
            floors.append(_timed(lambda: reading(pred)))
    read_wall, read_cpu = min(r[0] for r in reads), min(r[1] for r in reads)
    score_wall, score_cpu = min(s[0] for s in scores), min(s[1] for s in scores)
    floor_wall, floor_cpu = min(f[0] for f in floors), min(f[1] for f in floors)
    print(f"read_observations({args.split}): {read_wall:.2f} s wall, {read_cpu:.2f} s CPU")
    print(f"bench score ({args.split}):      {score_wall:.2f} s wall, {score_cpu:.2f} s CPU")
    print(
        f"its reading alone:      {floor_wall:.2f} s wall, {floor_cpu:.2f} s CPU "
        f"({floor_cpu / read_cpu:.2f}x a read; the rest, {score_cpu - floor_cpu:.2f} s CPU, "
        f"is {(score_cpu - floor_cpu) / read_cpu:.2f}x a read)"
    )
    ratio, cpu_ratio = score_wall / read_wall, score_cpu / read_cpu
    # both: on a shared machine a slow read's wall time alone can make a miss look met
    verdict = "meets" if max(ratio, cpu_ratio) <= 2 else "misses"
    print(f"ratio (wall): {ratio:.2f}x, CPU {cpu_ratio:.2f}x; {verdict} the 2x target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
