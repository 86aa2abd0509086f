"""``strat-tools bench``: the benchmark of human play (``docs/benchmark.md``).

``bench build`` writes the benchmark folder from a Gravon folder; ``bench predict`` writes a
submission of a shipped policy; ``bench score`` checks and scores a submission; ``bench
train`` trains the human-move model (PyTorch, optional). The work is
the library's (:mod:`strat_tools.benchmark`); this module parses options and renders.
"""

from __future__ import annotations

import click

from strat_tools.cli import bench_score
from strat_tools.cli.bench_build import build
from strat_tools.cli.bench_train import train_command


@click.group()
def bench() -> None:
    """The benchmark of human play: build it, predict with a policy, score a submission.

    \b
    Example:
      strat-tools bench build ../gravon -o bench-v1
      strat-tools bench predict bench-v1 --split test --policy counts -o pred
      strat-tools bench score bench-v1 pred --split test
    """


# bench build: added here.
bench.add_command(build)


# bench predict, bench score: added here.
bench.add_command(bench_score.predict)
bench.add_command(bench_score.score)


# bench train: added here.
bench.add_command(train_command)
