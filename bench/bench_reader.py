#!/usr/bin/env python3
"""Reader benchmark: the fast and strict paths against the parse floor, in one run, one core.

    .venv/bin/python bench/bench_reader.py [ARCHIVE_DIR] [--repeat N]

ARCHIVE_DIR defaults to $STRAT_TOOLS_GRAVON or ../shared/gravon. The floor is
``../shared/tools/parse_floor.py`` (imported, so it runs in this process on the same
inputs). Each variant runs ``--repeat`` times, interleaved; the best run counts (the machine is
shared, so the minimum is the least disturbed). Prints games/s, MB/s and the ratio to the floor
in wall and CPU seconds; ``reader`` rows include the record checks.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.gravon import read_units  # noqa: E402
from strat_tools.sources import UnitReader, expand  # noqa: E402


def load_floor(archive: Path) -> ModuleType:
    """The parse floor script as a module."""
    path = archive.parent / "tools" / "parse_floor.py"
    spec = importlib.util.spec_from_file_location("parse_floor", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"parse floor not found at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(func: Callable[[], int]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, games) for one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    games = func()
    return time.perf_counter() - wall, time.process_time() - cpu, games


def main() -> None:
    """Run the reader section and print one line per variant."""
    default = os.environ.get("STRAT_TOOLS_GRAVON", str(REPO.parent / "shared" / "gravon"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=default)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    archive = Path(args.archive)
    floor = load_floor(archive)
    floor_units = floor._units([str(archive)])
    units = expand([str(archive)])
    with UnitReader() as reader:
        megabytes = sum(len(reader.read(u)) for u in units) / 1e6

    variants: dict[str, Callable[[], int]] = {
        "floor (parse_floor.py)": lambda: floor._count(floor_units)[1],
        "reader fast (default)": lambda: sum(1 for _ in read_units(units)),
        "reader strict (fast=False)": lambda: sum(1 for _ in read_units(units, fast=False)),
    }
    best: dict[str, tuple[float, float, int]] = {}
    for _ in range(args.repeat):
        for name, func in variants.items():
            run = timed(func)
            if name not in best or run[0] < best[name][0]:
                best[name] = run
    floor_wall, floor_cpu, _ = best["floor (parse_floor.py)"]
    print(f"reader benchmark: {len(units)} files, {megabytes:.1f} MB, best of {args.repeat}")
    for name, (wall, cpu, games) in best.items():
        print(
            f"  {name:28s} {wall:6.2f} s wall {cpu:6.2f} s cpu  {games / wall:7.0f} games/s "
            f"{megabytes / wall:6.1f} MB/s  x{wall / floor_wall:.2f} floor"
            f" (cpu x{cpu / floor_cpu:.2f})"
        )


if __name__ == "__main__":
    main()
