#!/usr/bin/env python3
"""The environment at scale (issue 44): a random policy plays games to their end through
``strat_tools.env.env()``, each is written by the library's XML writer and the whole lot is
checked by ``validate``; prints how many were valid, their endings, and the time a ply.

    python bench/bench_env.py                  # 1,000 games
    python bench/bench_env.py --games 50 --keep games/   # keep the files

Needs the ``env`` extra. tests/test_env.py plays a handful of the same games in CI.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from strat_tools.env import env, play_random
from strat_tools.exports.validate import validate
from strat_tools.formats.xml_writer import game_file_name, record_to_xml


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="write the games here (default: a temp dir)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        plies, endings = 0, Counter[str]()
        started = time.perf_counter()
        for number in range(1, args.games + 1):
            game = env()
            game.reset(seed=number)
            plies += play_random(game, seed=number)
            record = game.unwrapped.record(year=2026, month=11, number=number)
            endings[game.unwrapped.outcome.termination.name.lower()] += 1
            (folder / game_file_name(record)).write_bytes(record_to_xml(record))
        played = time.perf_counter() - started
        report = validate(str(folder), run=1)
        checked = time.perf_counter() - started - played
    print(f"{args.games:,} games, {plies:,} plies through env(): {played:.1f} s")
    print(f"  {played / plies * 1e6:.0f} µs a ply (policy, step, observation, mask)")
    print(f"  endings: {dict(endings)}")
    print(f"validate: {report.summary.line()} ({checked:.1f} s)")
    return 0 if report.summary.by_status == {"valid": args.games} else 1


if __name__ == "__main__":
    sys.exit(main())
