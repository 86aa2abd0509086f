#!/usr/bin/env python3
"""Setup questions on an exported folder: the whole command's wall time against ``--version``.

    .venv/bin/python bench/bench_search.py [ARCHIVE_DIR] [--export DIR] [--repeat N]

Exports ARCHIVE_DIR (default $STRAT_TOOLS_GRAVON or ../shared/gravon; ``data/`` when it is
absent) once with ``strat-tools export`` into a temporary folder, untimed (or uses the
export given by ``--export``). Then runs each command of :data:`QUESTIONS` and
``strat-tools --version`` in fresh processes, taking turns (version, then each question,
``--repeat`` rounds), so that a busy machine slows all of them alike, and keeps the best
time of each. Prints seconds and the ratio to ``--version``: the target of issue 27 is a
ratio of at most 2 (the same answer as on the zips, within twice the time the command line
takes to start).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

REPO = Path(__file__).resolve().parent.parent
CLI: Final = [sys.executable, "-m", "strat_tools"]

QUESTIONS: Final = {
    "search --anywhere SG --mirror": ["search", "{folder}", "--anywhere", "SG", "--mirror"],
    "search --pattern (flag in a corner)": [
        "search",
        "{folder}",
        "--pattern",
        "........../........../B........./FB........",
        "--mirror",
    ],
    "search --anywhere B/F --side red --both": [
        "search",
        "{folder}",
        "--anywhere",
        "B/F",
        "--side",
        "red",
        "--both",
        "--format",
        "json",
    ],
    "setups --top 5": ["setups", "{folder}", "--top", "5"],
    "setups, games filtered by --anywhere SG": [
        "setups",
        "{folder}",
        "--top",
        "3",
        "--anywhere",
        "SG",
        "--mirror",
    ],
}
TARGET: Final = 2.0


def wall(args: list[str]) -> float:
    """Seconds one run of the command line takes, start to exit (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run([*CLI, *args], capture_output=True, cwd=REPO, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.decode()[-400:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("STRAT_TOOLS_GRAVON", str(REPO.parent / "shared" / "gravon"))
    parser.add_argument("archive", nargs="?", default=default)
    parser.add_argument("--export", default=None, help="an export of the archive to reuse")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        folder = args.export
        if folder is None:
            source = args.archive if Path(args.archive).is_dir() else str(REPO / "data")
            folder = str(Path(tmp) / "export")
            print(f"exporting {source} to {folder} (not timed) ...", flush=True)
            wall(["export", source, "-o", folder])
        runs = {"--version": ["--version"]} | {
            name: [part.replace("{folder}", folder) for part in question]
            for name, question in QUESTIONS.items()
        }
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(args.repeat):
            for name, command in runs.items():
                best[name] = min(best[name], wall(command))
    floor = best.pop("--version")
    print(f"{'strat-tools --version':44s} {floor:6.3f} s   1.00x")
    worst = 0.0
    for name, seconds in best.items():
        ratio = seconds / floor
        worst = max(worst, ratio)
        verdict = "ok" if ratio <= TARGET else "OVER"
        print(f"{name:44s} {seconds:6.3f} s  {ratio:5.2f}x  {verdict}")
    print(f"slowest {worst:.2f}x --version (target {TARGET:.0f}x), best of {args.repeat}")


if __name__ == "__main__":
    main()
