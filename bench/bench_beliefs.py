#!/usr/bin/env python3
"""``Position.beliefs()`` against ``Position.move_probabilities()`` (the issue's target: a
belief costs at most the human-move model's probabilities for the same position) and
against ``Position.observe()`` (the floor both pay).

    python bench/bench_beliefs.py [--rounds 7] [--plies 50,100,200,400]

Takes the sample month's classic games (``data/strados2026-10.zip``) long enough, pushes
each to every ply asked for, and alternates, in one process, ``observe()`` (the truth-free
view: one knowledge model of the moves pushed) with ``beliefs()`` (the counts left) and
``beliefs(model=SetupPriorBelief)`` (the shipped setup prior) and ``beliefs(belief-v1)``
(the learned model, which reads the pieces' histories: kept by the position's knowledge
cursor, so a second call at the same position, like a game loop's next ply, pays only
what is new) and ``move_probabilities()`` (human-v1) at those positions. Prints the best
mean milliseconds a call of each over the rounds and each one's ratio to
``move_probabilities()`` and to ``observe()`` (the best of alternated rounds, because the
machine may be shared). Run it as the command line runs, with one BLAS thread
(``OPENBLAS_NUM_THREADS=1``; the script sets it when the caller did not).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--plies", default="50,100,200,400")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads
    from strat_tools.benchmark.belief_baselines import SetupPriorBelief, load_belief_prior
    from strat_tools.benchmark.policies import load
    from strat_tools.engine.position.position import Position
    from strat_tools.engine.replays.replay import replay
    from strat_tools.formats.readers import read_records

    plies = [int(p) for p in args.plies.split(",")]
    positions = []
    for record in read_records(REPO / "data" / "strados2026-10.zip"):
        if record.variant != "classic" or len(record.moves) < max(plies) + 1:
            continue
        rules = replay(record).rules
        for ply in plies:
            position = Position(record.setup or (), rules)
            for move in record.moves[:ply]:
                position.push(move)
            positions.append(position)
        if len(positions) >= 20:
            break
    prior = SetupPriorBelief(load_belief_prior())
    learned = load("belief-v1")
    human = load("human-v1")
    work = {
        "observe()": lambda p: p.observe(),
        "beliefs()": lambda p: p.beliefs(),
        "beliefs(prior)": lambda p: p.beliefs(prior),
        "beliefs(belief-v1)": lambda p: p.beliefs(learned),
        "move_probabilities()": lambda p: p.move_probabilities(human),
    }
    best = dict.fromkeys(work, float("inf"))
    for _ in range(args.rounds):
        for name, call in work.items():
            start = time.perf_counter()
            for position in positions:
                call(position)
            best[name] = min(best[name], (time.perf_counter() - start) / len(positions))
    print(f"{len(positions)} positions (plies {args.plies}), best of {args.rounds} rounds")
    for name, seconds in best.items():
        moves = seconds / best["move_probabilities()"]
        ratio = seconds / best["observe()"]
        print(
            f"{name:>22}: {seconds * 1000:.3f} ms a call, {moves:.2f}x move_probabilities(), "
            f"{ratio:.2f}x observe()"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
