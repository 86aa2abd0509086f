#!/usr/bin/env python3
"""Pattern-search benchmark: setups matched per second, as a ratio to a plain NumPy scan.

    .venv/bin/python bench/bench_patterns.py [ARCHIVE_DIR] [--setups N] [--repeat N]

Reads the classic setups of ARCHIVE_DIR (default $STRAT_TOOLS_GRAVON or ../shared/gravon;
``data/`` when it is absent) once, untimed, as ``[n, 40]`` setup codes, and tiles them to
``--setups`` rows (default 1,000,000). Then, one core, best of ``--repeat`` runs each:

- ``plain scan``: ``np.count_nonzero(codes == 12)``, one pass over the same bytes (where
  are the flags): the floor any search over the array pays;
- each pattern of :data:`PATTERNS`, through :meth:`strat_tools.setups.patterns.Pattern.match`
  (with and without ``mirror``);
- each anywhere pattern of :data:`ANYWHERE` (``search --anywhere``, issue 27), matched at
  every offset, with and without ``mirror``.

Prints seconds, millions of setups per second and the ratio to the plain scan, and whether
each match stays within the target of issue 27: a million setups in at most 0.2 s on one
core (NumPy runs these on one thread); the ratio says how far from the floor.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Final

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from strat_tools.run.driver import read_games  # noqa: E402
from strat_tools.setups.patterns import Pattern, parse_pattern  # noqa: E402
from strat_tools.stats.repeats import setup_outcomes  # noqa: E402

PATTERNS = {
    "flag back-left, bomb beside": "........../........../........../FB........",
    "no bomb on the front row": "!B!B!B!B!B!B!B!B!B!B/........../........../..........",
    "bombed flag, 3 squares": "........../........../B........./FB........",
    "scouts in front (10 squares)": "[2.][2.]2222[2.]2[2.]2/........../........../..........",
    "every square fixed": "5B778B6623/44252BX522/335 22BB6S2/33448BF976".replace(" ", ""),
}

ANYWHERE = {
    "spy beside the general (SG)": "SG",
    "bomb in front of the flag (B/F)": "B/F",
    "flag between bombs (BFB)": "BFB",
    "neither F nor B beside a 9": "[!FB]9",
    "two bombs over the flag (B.B/.F.)": "B.B/.F.",
    "eight kinds in a row (B2345678)": "B2345678",
}
TARGET: Final = 0.2
"""Seconds for a million setups (issue 27), scaled to ``--setups``."""


def best(func: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("STRAT_TOOLS_GRAVON", str(REPO.parent / "shared" / "gravon"))
    parser.add_argument("archive", nargs="?", default=default)
    parser.add_argument("--setups", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    source = args.archive if Path(args.archive).is_dir() else str(REPO / "data")
    codes = setup_outcomes(read_games(source, setups_only=True, jobs=1)).codes
    tiled = np.ascontiguousarray(np.resize(codes, (args.setups, 40)))
    print(f"{len(codes):,} classic setups of {source}, tiled to {len(tiled):,}")
    floor = best(lambda: np.count_nonzero(tiled == 12), args.repeat)
    rate = len(tiled) / floor / 1e6
    print(f"{'plain scan (codes == flag)':40s} {floor:8.4f} s  {rate:7.1f} M/s   1.00x")
    target = TARGET * len(tiled) / 1e6
    worst = 0.0
    patterns = [(name, Pattern.parse(text)) for name, text in PATTERNS.items()]
    patterns += [
        ("anywhere: " + name, parse_pattern(text, anywhere=True)) for name, text in ANYWHERE.items()
    ]
    worst_anywhere = 0.0
    for name, pattern in patterns:
        for mirror in (False, True):
            seconds = best(partial(pattern.match, tiled, mirror=mirror), args.repeat)
            worst = max(worst, seconds)
            if name.startswith("anywhere"):
                worst_anywhere = max(worst_anywhere, seconds)
            found = int(pattern.match(tiled, mirror=mirror).sum())
            label = name + (" +mirror" if mirror else "")
            verdict = "ok" if seconds <= target else "OVER"
            print(
                f"{label:48s} {seconds:8.4f} s  {len(tiled) / seconds / 1e6:7.1f} M/s  "
                f"{seconds / floor:5.2f}x  {verdict}  ({found:,} matches)"
            )
    print(f"slowest {worst:.4f} s for {len(tiled):,} setups; target {target:.3f} s")
    print(
        f"slowest anywhere {worst_anywhere:.4f} s = {worst_anywhere / floor:.2f}x the plain scan"
        f" ({worst_anywhere / len(tiled) * 1e6:.3f} s per million setups)"
    )


if __name__ == "__main__":
    main()
