#!/usr/bin/env python3
"""Position benchmark: ``pos.legal_moves`` of one position as a ratio to the engine's own
search of it (target: at most 1.5x), one core.

    .venv/bin/python bench/bench_position.py [PATHS ...] [--every N] [--repeat N]

PATHS default to the project's sample month (``data/``); give the archive folder for more
positions. The positions are every ``--every``-th (default 10) of every valid game, made
first (not timed); then each way of listing their moves runs ``--repeat`` times (default
5, the garbage collector off as in ``timeit``) and the best run counts (the machine is
shared: CPU seconds decide the ratio). Lines:

- ``search``: :meth:`Position.reference_pairs`, the engine's own scalar search of one
  position, (source, target) pairs in the engine's order: the yardstick;
- ``legal_moves``: ``list(pos.legal_moves)``, the moves as :class:`~strat_tools.core.move.Move`
  values in square order, what a python-chess loop iterates;
- ``count``: ``pos.legal_moves.count()``, the moves counted only;
- ``batch of one``: :meth:`Position.legal_pairs`, the NumPy batch generator
  (``engine/moves/``) run on the one position (what ``legal_moves`` was before; the batch
  generator is for many positions at once).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.engine.position.position import Position  # noqa: E402
from strat_tools.engine.replays.replay import replay  # noqa: E402
from strat_tools.engine.replays.steps import walk  # noqa: E402
from strat_tools.formats.readers import read_records  # noqa: E402

TARGET = 1.5
"""``legal_moves`` of one position at most this many times the engine's own search."""


def positions(paths: list[str], every: int) -> list[Position]:
    """Every ``every``-th position of every valid game of ``paths``."""
    found: list[Position] = []
    for record in read_records(paths):
        result = replay(record)
        if record.setup is None or result.status.value != "valid":
            continue
        found += [pos for ply, pos in enumerate(walk(result)) if ply % every == 0]
    return found


def best_of(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The fastest of ``repeat`` runs: (wall seconds, CPU seconds), with the cyclic garbage
    collector off as ``timeit`` has it (thousands of positions held at once, each with its
    move stack, would otherwise be walked whenever the moves made allocate enough)."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        finally:
            gc.enable()
    return best_wall, best_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(REPO / "data")])
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sample = positions(args.paths, args.every)
    n = len(sample)
    moves = sum(len(p.reference_pairs()) for p in sample)
    print(f"{n:,} positions, {moves / n:.1f} legal moves a position ({', '.join(args.paths)})")
    ways: dict[str, Callable[[], object]] = {
        "search": lambda: [p.reference_pairs() for p in sample],
        "legal_moves": lambda: [list(p.legal_moves) for p in sample],
        "count": lambda: [p.legal_moves.count() for p in sample],
        "batch of one": lambda: [p.legal_pairs() for p in sample],
    }
    times = {name: best_of(run, args.repeat) for name, run in ways.items()}
    base_cpu = times["search"][1]
    for name, (wall, cpu) in times.items():
        print(
            f"{name:<13} us_per_position={wall / n * 1e6:6.1f} "
            f"us_per_cpu_position={cpu / n * 1e6:6.1f} ratio_to_search={cpu / base_cpu:5.2f}x"
        )
    ratio = times["legal_moves"][1] / base_cpu
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"legal_moves / search: {ratio:.2f}x (target at most {TARGET}x): {verdict}")


if __name__ == "__main__":
    main()
