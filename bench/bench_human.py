#!/usr/bin/env python3
"""The human-move model's NumPy inference against its PyTorch forward pass, one thread
each: the target is at most 2x the CPU time, for one position and for a batch of 1,024.

    python bench/bench_human.py BENCH_DIR [--split val] [--rounds 7] [--model PATH]

BENCH_DIR is a built benchmark (``strat-tools bench build ../shared/gravon -o BENCH_DIR``);
1,024 rows of the split are read once and made into the model's inputs once
(:func:`strat_tools.benchmark.human_inputs.model_inputs`, shared by both). Then, in one
process, alternately: :func:`strat_tools.benchmark.human_model.forward` (NumPy, BLAS on
one thread) and the same weights' :class:`strat_tools.benchmark.train.HumanNet` under
``torch.no_grad()`` (``torch.set_num_threads(1)``), on the batch and on each of 64 single
positions; it prints the best CPU seconds of each over the rounds (the machine may be
shared) and their ratio, and the largest difference of the logits. PyTorch is optional:
without it the script says so and exits (status 0) having measured nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections.abc import Callable

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _best(work: Callable[[], object], rounds: int) -> float:
    found = []
    for _ in range(rounds):
        cpu = _cpu_s()
        work()
        found.append(_cpu_s() - cpu)
    return min(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("bench_dir")
    parser.add_argument("--split", default="val")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--model", default=None, help="a model file (default: human-v1)")
    args = parser.parse_args()

    import numpy as np

    try:
        import torch
    except ImportError:
        print(
            "PyTorch is not installed: the ratio needs the same model's PyTorch forward pass "
            "(pip install --require-hashes -r requirements-torch.lock); nothing measured",
            file=sys.stderr,
        )
        return 0

    from strat_tools.benchmark.human_inputs import INPUT_FIELDS, model_inputs
    from strat_tools.benchmark.human_model import forward, load_model
    from strat_tools.benchmark.train import to_torch
    from strat_tools.exports.observation_batches import observation_batches

    torch.set_num_threads(1)
    model = load_model(args.model)
    net = to_torch(model).eval()
    fields = (*INPUT_FIELDS, "legal_ids", "legal_count")
    batch = next(iter(observation_batches(f"{args.bench_dir}/{args.split}", 1024, fields=fields)))
    planes, scalars = model_inputs(batch)
    singles = [(planes[i : i + 1], scalars[i : i + 1]) for i in range(64)]
    tp, ts = torch.from_numpy(planes), torch.from_numpy(scalars)
    tsingles = [(torch.from_numpy(p), torch.from_numpy(s)) for p, s in singles]

    def numpy_batch() -> object:
        return forward(model, planes, scalars)

    def torch_batch() -> object:
        with torch.no_grad():
            return net(tp, ts)

    def numpy_singles() -> object:
        return [forward(model, p, s) for p, s in singles]

    def torch_singles() -> object:
        with torch.no_grad():
            return [net(p, s) for p, s in tsingles]

    with torch.no_grad():
        gap = float(np.abs(numpy_batch() - net(tp, ts).numpy()).max())  # type: ignore[operator]
    numpy_batch(), torch_batch(), numpy_singles(), torch_singles()  # warm up
    rows = []
    for label, mine, theirs, count in (
        ("batch of 1,024", numpy_batch, torch_batch, 1),
        ("one position", numpy_singles, torch_singles, len(singles)),
    ):
        np_s = torch_s = float("inf")
        for _ in range(args.rounds):
            np_s = min(np_s, _best(mine, 1))
            torch_s = min(torch_s, _best(theirs, 1))
        rows.append((label, np_s / count, torch_s / count))
    print(f"model: {model.card['name']}, {model.card['parameters']:,} parameters")
    print(f"largest logit difference NumPy - PyTorch: {gap:.2e}")
    print(f"{'':16} {'NumPy ms':>10} {'PyTorch ms':>11} {'ratio':>6}  (CPU, one thread)")
    worst = 0.0
    for label, np_s, torch_s in rows:
        ratio = np_s / torch_s
        worst = max(worst, ratio)
        print(f"{label:16} {np_s * 1e3:10.3f} {torch_s * 1e3:11.3f} {ratio:6.2f}x")
    print(f"{time.strftime('%Y-%m-%d')}: target at most 2x: {'met' if worst <= 2 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
