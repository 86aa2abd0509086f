#!/usr/bin/env python3
"""Observation benchmark: dense planes per second from stored boards, and the export.

    .venv/bin/python bench/bench_planes.py [PATHS...] [--repeat N] [--export-jobs N]

PATHS default to one archive month ($STRAT_TOOLS_GRAVON or ../shared/gravon,
strados2014-5.zip), or ``data/`` when the archive is absent. Steps:

1. ``export``: :func:`strat_tools.exports.observation_files.export_observations` of PATHS with
   ``--export-jobs`` (default 1) into a temporary folder: observations per second, bytes
   on disk per observation.
2. ``to_planes``: the stored boards are read back and turned into ``[plies, 32, 10, 10]``
   planes on one core (the process is pinned to one CPU), best of ``--repeat`` runs:
   in minibatches of 1,024 plies (the way a data loader asks for them), and in one call
   over up to 200,000 boards (bound by memory bandwidth: 3,200 bytes of output a ply).

``--from-export DIR`` skips step 1 and reads the boards of an existing export.

The target (issue 18) is one million plies a second or more on one core; each line prints
the rate per CPU second of this process (what one core does, however busy the machine) and
its ratio to that target, and the wall-clock rate beside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.engine.information.planes import to_planes  # noqa: E402
from strat_tools.exports.observation_files import export_observations, read_observations  # noqa: E402
from strat_tools.exports.observations import boards_of  # noqa: E402

TARGET = 1_000_000
"""Planes per second on one core (issue 18)."""


def default_paths() -> list[str]:
    archive = Path(os.environ.get("STRAT_TOOLS_GRAVON", REPO.parent / "shared" / "gravon"))
    month = archive / "strados2014-5.zip"
    return [str(month)] if month.is_file() else [str(REPO / "data")]


def best_rate(func, plies: int, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Plies per wall-clock second and per CPU second of the fastest of ``repeat`` runs of
    ``func`` (on a shared machine the CPU rate is the one to compare with the target)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        func()
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    return plies / wall, plies / max(cpu, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--export-jobs", type=int, default=1)
    parser.add_argument("--from-export", metavar="DIR", default=None)
    args = parser.parse_args()
    if args.from_export:
        boards = boards_of(read_observations(args.from_export)).copy()
        print(f"boards of the export in {args.from_export}")
    else:
        boards = export_and_read(args.paths or default_paths(), args.export_jobs)
    measure(boards, args.repeat)


def export_and_read(paths: list[str], jobs: int):  # type: ignore[no-untyped-def]
    """Export ``paths`` into a temporary folder, print its rate and size, return its boards."""
    with tempfile.TemporaryDirectory() as tmp:
        summary = export_observations(paths, Path(tmp) / "obs", jobs=jobs)
        print(f"input: {' '.join(paths)}")
        print(
            f"export, {jobs} job(s): {summary.observations:,} observations of "
            f"{summary.valid:,} games in {summary.seconds:.1f} s "
            f"({summary.observations / summary.seconds:,.0f} observations/s), "
            f"{summary.bytes / 1e6:.1f} MB on disk "
            f"({summary.bytes / max(1, summary.observations):.1f} bytes/observation)"
        )
        return boards_of(read_observations(Path(tmp) / "obs")).copy()


def measure(boards, repeat: int) -> None:  # type: ignore[no-untyped-def]
    """Print the planes rates of ``boards`` on one core against the target."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    plies = len(boards)

    def minibatches() -> None:
        for start in range(0, plies, 1024):
            to_planes(boards[start : start + 1024])

    for label, func in (
        ("to_planes, minibatches of 1,024", minibatches),
        ("to_planes, one call over 200,000", lambda: to_planes(boards[:200_000])),
    ):
        count = plies if func is minibatches else min(plies, 200_000)
        wall, cpu = best_rate(func, count, repeat)
        verdict = "ok" if cpu >= TARGET else "MISSED"
        print(
            f"{label}: {cpu / 1e6:.2f} M plies per CPU second on one core "
            f"({cpu / TARGET:.2f}x the 1 M/s target: {verdict}; wall clock {wall / 1e6:.2f} M/s; "
            f"{count:,} plies, best of {repeat})"
        )


if __name__ == "__main__":
    main()
