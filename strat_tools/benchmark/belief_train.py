"""Train the learned belief model (:mod:`strat_tools.benchmark.belief_model`) with PyTorch.

PyTorch is an optional extra (``pip install -r requirements-torch.lock``); only this
module and :mod:`~strat_tools.benchmark.train` import it, and nothing in the package's
plain paths imports either (``strat-tools bench train --task belief`` does, when run)::

    strat-tools bench train BENCH_DIR --task belief -o belief-v1.npz

The recipe (docs/benchmark.md, "belief-v1"): a seeded share (``train_share``) of train's
plies, walked in order through the benchmark's loader
(:func:`~strat_tools.benchmark.belief_rows.iter_belief_chunks`, which follows each
piece's history), every unidentified piece of those plies one example
(:func:`~strat_tools.benchmark.belief_inputs.piece_inputs`; its true kind from the
``board`` label only); the cross-entropy of the true kind over the kinds the piece may
be; AdamW with a cosine decay over ``steps``. Every ``eval_every`` steps the model is
scored on a seeded share of val's plies (``val_share``) and written when it is the best so
far, so a run stopped early (``max_minutes``) still leaves the best model. Test is never
read.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from strat_tools.benchmark.belief_inputs import WIDTH, piece_inputs
from strat_tools.benchmark.belief_model import BeliefNetwork, save_belief_model
from strat_tools.benchmark.belief_rows import iter_belief_chunks
from strat_tools.benchmark.bench_folder import BenchFolder, open_bench, split_export
from strat_tools.benchmark.train import TrainSummary, hardware_of, provenance, refuse_existing
from strat_tools.core.errors import InputError, OptionError

__all__ = ["BeliefNet", "Examples", "examples", "to_torch_belief", "train_belief"]


class BeliefNet(nn.Module):
    """The PyTorch twin of :func:`~strat_tools.benchmark.belief_model.belief_logits` (same
    weights' names and shapes)."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.hidden = hidden
        self.l1 = nn.Linear(WIDTH, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The 12 logits of each piece (before ``log unseen``)."""
        return self.out(torch.relu(self.l2(torch.relu(self.l1(x)))))  # type: ignore[no-any-return]

    def numpy_weights(self) -> dict[str, np.ndarray]:
        """The weights by the model file's names (float32)."""
        return {
            k: v.detach().cpu().numpy().astype(np.float32) for k, v in self.state_dict().items()
        }


def to_torch_belief(net: BeliefNetwork) -> BeliefNet:
    """A :class:`BeliefNet` holding a model file's weights."""
    model = BeliefNet(net.hidden)
    model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in net.weights.items()})
    return model


@dataclass(frozen=True)
class Examples:
    """Pieces to learn from: inputs ``x`` (float16), ``offset`` (``log unseen``, -inf
    where a kind is not allowed), the true kind, and how many plies and games they came
    from."""

    x: npt.NDArray[np.float16]
    offset: npt.NDArray[np.float32]
    truth: npt.NDArray[np.int64]
    plies: int
    games: int


def examples(folder: BenchFolder, split: str, share: float, seed: int) -> Examples:
    """Every unidentified piece of a seeded ``share`` of ``split``'s plies (each game's
    rows are still all walked, in order, so each piece's history is whole)."""
    rng = np.random.default_rng(seed)
    parts: dict[str, list[np.ndarray]] = {"x": [], "offset": [], "truth": []}
    plies = 0
    games: set[str] = set()
    for ids, arrays in iter_belief_chunks(split_export(folder, split), labels=True, history=True):
        keep = rng.random(len(arrays["board_view"])) < share
        if not keep.any():
            continue
        chosen = {k: v[keep] for k, v in arrays.items()}
        pieces = piece_inputs(chosen)
        truth = chosen["kinds"][pieces.row, pieces.square].astype(np.int64)
        if not pieces.allowed[np.arange(len(truth)), truth].all():
            raise InputError(f"split {split!r}: a piece's true kind is not among those left")
        parts["x"].append(pieces.x.astype(np.float16))
        parts["offset"].append(pieces.offset)
        parts["truth"].append(truth)
        plies += int(keep.sum())
        games.update(ids.column("game_id").filter(keep).to_pylist())
    if not parts["x"]:
        raise InputError(f"split {split!r}: no plies drawn")
    joined = {k: np.concatenate(v) for k, v in parts.items()}
    return Examples(joined["x"], joined["offset"], joined["truth"], plies, len(games))


def _losses(net: BeliefNet, x: np.ndarray, offset: np.ndarray, truth: np.ndarray) -> torch.Tensor:
    logits = net(torch.from_numpy(x.astype(np.float32))) + torch.from_numpy(offset)
    log_probs = torch.log_softmax(logits, dim=1)
    return -log_probs.gather(1, torch.from_numpy(truth)[:, None])[:, 0]


def _evaluate(net: BeliefNet, val: Examples) -> tuple[float, float]:
    net.eval()
    total = top = 0.0
    with torch.no_grad():
        for start in range(0, len(val.truth), 65536):
            rows = slice(start, start + 65536)
            logits = net(torch.from_numpy(val.x[rows].astype(np.float32)))
            logits = logits + torch.from_numpy(val.offset[rows])
            log_probs = torch.log_softmax(logits, dim=1)
            truth = torch.from_numpy(val.truth[rows])
            total += float(-log_probs.gather(1, truth[:, None]).double().sum())
            top += float((log_probs.argmax(dim=1) == truth).double().sum())
    net.train()
    return total / len(val.truth), top / len(val.truth)


def train_belief(
    bench: str | os.PathLike[str] | BenchFolder,
    output: str | os.PathLike[str],
    *,
    name: str = "belief-v1",
    hidden: int = 128,
    steps: int = 120_000,
    batch_size: int = 1024,
    learning_rate: float = 2e-3,
    weight_decay: float = 1e-4,
    train_share: float = 0.15,
    val_share: float = 0.05,
    seed: int = 0,
    threads: int = 1,
    eval_every: int = 5_000,
    max_minutes: float | None = None,
    hardware: str | None = None,
    log: Callable[[str], None] | None = None,
) -> TrainSummary:
    """Train on ``bench``'s train split, choose on val, write the best model to
    ``output`` (``.npz`` and ``.json``, both new: an existing file is refused, a usage
    error); ``max_minutes`` stops early (the best model so far stays written)."""
    if min(steps, batch_size, eval_every, threads, hidden) < 1:
        raise OptionError("steps, batch_size, eval_every, threads and hidden must be positive")
    if not (0 < train_share <= 1 and 0 < val_share <= 1):
        raise OptionError("train_share and val_share must be in (0, 1]")
    refuse_existing(output)
    stem = os.fspath(output).removesuffix(".npz")
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    start = time.monotonic()
    data = examples(folder, "train", train_share, seed)
    val = examples(folder, "val", val_share, seed + 1)
    if log is not None:
        log(
            f"{len(data.truth):,} pieces of {data.plies:,} train plies, {len(val.truth):,} "
            f"of val's, in {time.monotonic() - start:.0f} s"
        )
    net = BeliefNet(hidden)
    optimiser = torch.optim.AdamW(net.parameters(), lr=learning_rate, weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: 0.5 * (1 + math.cos(math.pi * min(step / steps, 1.0)))
    )
    rng = np.random.default_rng(seed)
    best = (math.inf, 0.0, 0)
    seen = step = 0
    order = rng.permutation(len(data.truth))
    cursor = 0
    for step in range(1, steps + 1):
        if cursor + batch_size > len(order):
            order, cursor = rng.permutation(len(data.truth)), 0
        rows = np.sort(order[cursor : cursor + batch_size])
        cursor += batch_size
        loss = _losses(net, data.x[rows], data.offset[rows], data.truth[rows]).mean()
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()
        schedule.step()
        seen += len(rows)
        elapsed = time.monotonic() - start
        late = max_minutes is not None and elapsed > max_minutes * 60
        if step % eval_every == 0 or step == steps or late:
            val_ce, val_top1 = _evaluate(net, val)
            if log is not None:
                log(
                    f"step {step:,} pieces {seen:,} {elapsed:.0f} s: train {loss.item():.4f}, "
                    f"val {val_ce:.4f} nats, top-1 {val_top1:.2%}"
                )
            if val_ce < best[0]:
                best = (val_ce, val_top1, step)
                about = provenance(
                    folder,
                    seen,
                    elapsed,
                    hardware or hardware_of(threads),
                    seed,
                    step,
                    batch_size,
                    (len(val.truth), val_ce, val_top1),
                )
                about.update(train_plies=data.plies, train_pieces=len(data.truth))
                card = {"name": name, "hidden": hidden, "provenance": about}
                save_belief_model(net.numpy_weights(), card, output)
        if late:
            break
    return TrainSummary(step, seen, time.monotonic() - start, best[0], best[1], best[2], stem)
