#!/usr/bin/env python3
"""How long the command line takes to start: ``--version`` and every ``--help`` against
``python -c "import click"``.

    .venv/bin/python bench/bench_startup.py [--repeat N] [--only version,help,...]

Each measurement is a fresh process running this tree's code (``PYTHONPATH`` is the
repository): ``python -c "import click"`` (the floor: the interpreter and click, which
every command needs), ``python -c pass`` (the interpreter alone, for reference),
``python -m strat_tools --version``, ``--help`` and each command's ``--help``. They take
turns, ``--repeat`` rounds (default 20), so a busy machine slows all of them alike, and
each keeps its best wall time and its best CPU time (user + system, from ``wait4``: the
steadier number on a shared machine). Prints both and each one's ratio to the floor; the
goal of issue 36 is ``--version`` within 3 times ``import click``. The exit status is 0
whatever the numbers (a benchmark, not a test); 3 when a run fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

REPO = Path(__file__).resolve().parent.parent
CLI: Final = [sys.executable, "-m", "strat_tools"]
FLOOR: Final = "python -c 'import click'"
TARGET: Final = 3.0
COMMANDS: Final = (
    "validate",
    "generate",
    "export",
    "stats",
    "advice",
    "heatmap",
    "report",
    "show",
    "rules",
    "observations",
    "convert",
    "events",
    "view",
    "setups",
    "search",
    "openings",
    "explore",
    "filter",
)


def measurements() -> dict[str, list[str]]:
    """Every process timed, by name: the floor, the bare interpreter, and the CLI's starts."""
    runs = {
        FLOOR: [sys.executable, "-c", "import click"],
        "python -c pass": [sys.executable, "-c", "pass"],
        "strat-tools --version": [*CLI, "--version"],
        "strat-tools --help": [*CLI, "--help"],
    }
    runs |= {f"strat-tools {name} --help": [*CLI, name, "--help"] for name in COMMANDS}
    return runs


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run, which must succeed."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    err = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if process.returncode != 0:
        print(f"{' '.join(argv)} failed ({process.returncode}): {err[-400:]}", file=sys.stderr)
        raise SystemExit(3)
    return seconds, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="rounds (best of them is kept)")
    parser.add_argument(
        "--only", default="", help="comma-separated parts of names to time (besides the floor)"
    )
    args = parser.parse_args()
    runs = measurements()
    if args.only:
        wanted = [part.strip() for part in args.only.split(",") if part.strip()]
        runs = {
            name: argv
            for name, argv in runs.items()
            if name == FLOOR or any(part in name for part in wanted)
        }
    best_wall = dict.fromkeys(runs, float("inf"))
    best_cpu = dict.fromkeys(runs, float("inf"))
    for round_ in range(args.repeat):
        order = list(runs) if round_ % 2 == 0 else list(reversed(runs))
        for name in order:
            seconds, cpu = timed(runs[name])
            best_wall[name] = min(best_wall[name], seconds)
            best_cpu[name] = min(best_cpu[name], cpu)
    floor_wall, floor_cpu = best_wall[FLOOR], best_cpu[FLOOR]
    print(f"{'':34s} {'wall s':>7s} {'ratio':>6s} {'CPU s':>7s} {'ratio':>6s}")
    for name in runs:
        wall_ratio = best_wall[name] / floor_wall
        cpu_ratio = best_cpu[name] / floor_cpu if floor_cpu else float("nan")
        print(
            f"{name:34s} {best_wall[name]:7.3f} {wall_ratio:5.2f}x "
            f"{best_cpu[name]:7.3f} {cpu_ratio:5.2f}x"
        )
    if "strat-tools --version" in runs:
        ratio = best_wall["strat-tools --version"] / floor_wall
        verdict = "ok" if ratio <= TARGET else "OVER"
        print(
            f"--version: {ratio:.2f}x {FLOOR} by wall time, "
            f"{best_cpu['strat-tools --version'] / floor_cpu:.2f}x by CPU "
            f"(goal {TARGET:.0f}x: {verdict}), best of {args.repeat}"
        )


if __name__ == "__main__":
    main()
