"""Train the human-move model (:mod:`strat_tools.benchmark.human_model`) with PyTorch.

PyTorch is an optional extra (``pip install -r requirements-torch.lock``); only this
module imports it, and nothing in the package's plain paths imports this module
(``strat-tools bench train`` does, when run). One command::

    strat-tools bench train BENCH_DIR -o human-v1.npz

The recipe (docs/human-model.md): the benchmark's train split through the project's loader
(:func:`~strat_tools.exports.observation_batches.observation_batches`, shuffled across
the shards, seeded), the inputs of :func:`~strat_tools.benchmark.human_inputs.model_inputs`,
the cross-entropy of the move played over the row's legal moves, AdamW with a linear
warm-up and a cosine decay over ``steps``; every ``eval_every`` steps the model is scored
on ``val_rows`` rows of val (drawn once, seeded) and written when it is the best so far,
so a run stopped early (``max_minutes``) still leaves the best model. Test is never read.

``init`` continues the training of a model file (or a shipped model, by name): its weights
are the start, its size the network's, and a model is written only when it beats the start
on val (scored on the same val rows at step 0); the card counts steps, rows and seconds of
both runs together and names the start (``continued_from``).
"""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import version as package_version
from typing import Any, cast

import numpy as np
import torch
from torch import nn

from strat_tools.benchmark.bench_folder import BenchFolder, open_bench, split_export
from strat_tools.benchmark.definition import NAME, VERSION
from strat_tools.benchmark.human_inputs import (
    INPUT_FIELDS,
    PLANES,
    SCALARS,
    legal_heads,
    mirrored,
    model_inputs,
)
from strat_tools.benchmark.human_model import (
    SHIPPED_MODELS,
    HumanModel,
    load_model,
    save_model,
    weight_shapes,
)
from strat_tools.core.errors import InputError, OptionError, RunError, UsageError
from strat_tools.exports.observation_batches import observation_batches

__all__ = [
    "HumanNet",
    "TrainSummary",
    "continued_from",
    "hardware_of",
    "network_log_probs",
    "provenance",
    "refuse_existing",
    "row_losses",
    "to_torch",
    "train",
]

TRAIN_FIELDS = (*INPUT_FIELDS, "legal_ids", "legal_count", "action")


class HumanNet(nn.Module):
    """The PyTorch twin of :func:`strat_tools.benchmark.human_model.forward` (same
    weights' names and shapes: :func:`~strat_tools.benchmark.human_model.weight_shapes`)."""

    def __init__(self, channels: int, blocks: int) -> None:
        super().__init__()
        self.channels, self.blocks = channels, blocks
        self.stem = nn.Conv2d(PLANES, channels, 3, padding=1)
        self.scalars = nn.Linear(SCALARS, channels, bias=False)
        self.block = nn.ModuleList(
            nn.ModuleDict(
                {
                    "conv1": nn.Conv2d(channels, channels, 3, padding=1),
                    "conv2": nn.Conv2d(channels, channels, 3, padding=1),
                }
            )
            for _ in range(blocks)
        )
        self.head = nn.Linear(channels, 36)
        self.other = nn.Parameter(torch.full((1,), -5.0))
        for layers in self._layers():
            nn.init.zeros_(
                cast(nn.Conv2d, layers["conv2"]).weight
            )  # each block starts as the identity

    def _layers(self) -> list[nn.ModuleDict]:
        return [cast(nn.ModuleDict, layers) for layers in self.block]

    def forward(self, planes: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        """Logits ``[n, HEAD_COUNT + 1]``."""
        h = torch.relu(self.stem(planes) + self.scalars(scalars)[:, :, None, None])
        for layers in self._layers():
            h = torch.relu(h + layers["conv2"](torch.relu(layers["conv1"](h))))
        n = h.shape[0]
        heads = self.head(h.permute(0, 2, 3, 1)).reshape(n, -1)
        return torch.cat([heads, self.other.expand(n, 1)], dim=1)

    def numpy_weights(self) -> dict[str, np.ndarray]:
        """The weights by the model file's names (float32)."""
        names = {"block.": "block"}
        found = {}
        for key, value in self.state_dict().items():
            for old, new in names.items():
                if key.startswith(old):
                    key = new + key[len(old) :]
            found[key] = value.detach().cpu().numpy().astype(np.float32)
        expected = weight_shapes(self.channels, self.blocks)
        found["head.weight"] = found["head.weight"].reshape(expected["head.weight"])
        return found


def to_torch(model: HumanModel) -> HumanNet:
    """A :class:`HumanNet` holding a model file's weights."""
    net = HumanNet(model.channels, model.blocks)
    state = {}
    for key, value in model.weights.items():
        name = f"block.{key[len('block') :]}" if key.startswith("block") else key
        state[name] = torch.from_numpy(np.array(value))
    net.load_state_dict(state)
    return net


def network_log_probs(net: HumanNet, batch: Mapping[str, Any]) -> torch.Tensor:
    """The network's log-softmax over each row's legal moves (``-inf`` in the padding)."""
    planes, scalars = model_inputs(batch)
    logits = net(torch.from_numpy(planes), torch.from_numpy(scalars))
    ids = np.asarray(batch["legal_ids"])
    heads = torch.from_numpy(legal_heads(ids))
    legal = torch.from_numpy(np.arange(ids.shape[1]) < np.asarray(batch["legal_count"])[:, None])
    chosen = logits.gather(1, heads).masked_fill(~legal, -math.inf)
    return torch.log_softmax(chosen, dim=1)


def row_losses(
    net: HumanNet, batch: Mapping[str, Any], mirror_average: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's negative log-likelihood of the move played and whether it was the top
    move (ties split); ``mirror_average``: of the mean of the probabilities over the
    position and its mirror image (:func:`~strat_tools.benchmark.human_inputs.mirrored`),
    as the model file's NumPy inference does."""
    log_probs = network_log_probs(net, batch)
    if mirror_average:
        log_probs = torch.logaddexp(log_probs, network_log_probs(net, mirrored(batch)))
        log_probs = log_probs - math.log(2.0)
    ids = np.asarray(batch["legal_ids"])
    hit = np.asarray(batch["action"])[:, None] == ids
    if not (hit.sum(axis=1) == 1).all():
        raise InputError("a move played is not once among its row's legal moves")
    played = torch.from_numpy(np.argmax(hit, axis=1))
    nll = -log_probs.gather(1, played[:, None])[:, 0]
    best = log_probs.max(dim=1, keepdim=True).values
    ties = (log_probs == best).sum(dim=1)
    top = (log_probs.gather(1, played[:, None])[:, 0] == best[:, 0]).float() / ties
    return nll, top


@dataclass(frozen=True)
class TrainSummary:
    """What :func:`train` did: steps, rows seen, seconds, the best val score and where."""

    steps: int
    rows_seen: int
    seconds: float
    val_nll: float
    val_top1: float
    best_step: int
    path: str

    def __str__(self) -> str:
        return (
            f"trained {self.steps:,} steps ({self.rows_seen:,} rows) in {self.seconds / 60:.1f} "
            f"minutes; best val {self.val_nll:.4f} nats, top-1 {self.val_top1:.2%} at step "
            f"{self.best_step:,}; wrote {self.path}"
        )


def _val_batches(folder: BenchFolder, rows: int, batch: int, seed: int) -> list[dict[str, Any]]:
    """``rows`` rows of val, drawn once (shuffled across val's shards, seeded)."""
    found: list[dict[str, Any]] = []
    taken = 0
    reader = observation_batches(
        split_export(folder, "val").directory, batch, fields=TRAIN_FIELDS, shuffle=True, seed=seed
    )
    for part in reader:
        found.append(part)
        taken += len(part["action"])
        if taken >= rows:
            break
    return found


def _evaluate(
    net: HumanNet, batches: list[dict[str, Any]], mirror_average: bool
) -> tuple[float, float]:
    net.eval()
    total = top = 0.0
    rows = 0
    with torch.no_grad():
        for batch in batches:
            nll, hit = row_losses(net, batch, mirror_average)
            total += float(nll.double().sum())
            top += float(hit.double().sum())
            rows += len(nll)
    net.train()
    return total / rows, top / rows


def _endless(folder: BenchFolder, batch: int, seed: int) -> Iterator[dict[str, Any]]:
    reader = observation_batches(
        split_export(folder, "train").directory,
        batch,
        fields=TRAIN_FIELDS,
        shuffle=True,
        seed=seed,
        drop_last=True,
    )
    while True:
        yield from reader


def train(
    bench: str | os.PathLike[str] | BenchFolder,
    output: str | os.PathLike[str],
    *,
    name: str = "human-v1",
    channels: int | None = None,
    blocks: int | None = None,
    init: str | os.PathLike[str] | None = None,
    mirror_average: bool | None = None,
    steps: int = 4_000,
    batch_size: int = 256,
    learning_rate: float = 2e-3,
    weight_decay: float = 1e-4,
    warmup: int = 300,
    seed: int = 0,
    threads: int = 1,
    eval_every: int = 500,
    val_rows: int = 20_000,
    max_minutes: float | None = None,
    hardware: str | None = None,
    log: Callable[[str], None] | None = None,
) -> TrainSummary:
    """Train on ``bench``'s train split, choose on val, write the best model to
    ``output`` (``.npz`` and ``.json``, both new: an existing file is refused, a usage
    error); ``max_minutes`` stops early (the best model so far stays written). ``channels``
    and ``blocks``: 32 and 3 unless ``init`` (a model file or a shipped model's name) gives
    the start; a :class:`RunError` when no step of a continued run beats its start on val.
    ``mirror_average`` (None: the start's, else no) makes the model the mean of the
    network over the position and its mirror image: written on the card, and val scores
    that mean (training itself sees each position once, as it is)."""
    if steps < 1 or batch_size < 1 or eval_every < 1 or val_rows < 1 or threads < 1:
        raise OptionError("steps, batch_size, eval_every, val_rows and threads must be positive")
    refuse_existing(output)
    start_model = _start_model(init, channels, blocks)
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    if start_model is None:
        net = HumanNet(channels or 32, 3 if blocks is None else blocks)
    else:
        net = to_torch(start_model)
    before = continued_from(start_model)
    if mirror_average is None:
        mirror_average = start_model is not None and start_model.mirror_average
    optimiser = torch.optim.AdamW(net.parameters(), lr=learning_rate, weight_decay=weight_decay)

    def rate(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(steps - warmup, 1)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, rate)
    val = _val_batches(folder, val_rows, 4096, seed)
    val_count = sum(len(b["action"]) for b in val)
    best = (math.inf, 0.0, 0)
    if start_model is not None:
        best = (*_evaluate(net, val, mirror_average), 0)
        if log is not None:
            log(f"step 0 ({start_model.card['name']}): val {best[0]:.4f} nats, top-1 {best[1]:.2%}")
    start = time.monotonic()
    rows_seen = step = 0
    for step, batch in enumerate(_endless(folder, batch_size, seed), start=1):
        nll, _top = row_losses(net, batch)
        loss = nll.mean()
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()
        schedule.step()
        rows_seen += len(nll)
        elapsed = time.monotonic() - start
        late = max_minutes is not None and elapsed > max_minutes * 60
        if step % eval_every == 0 or step == steps or late:
            val_nll, val_top1 = _evaluate(net, val, mirror_average)
            if log is not None:
                log(
                    f"step {step:,} rows {rows_seen:,} {elapsed:.0f} s: train {loss.item():.4f}"
                    f", val {val_nll:.4f} nats, top-1 {val_top1:.2%}"
                )
            if val_nll < best[0]:
                best = (val_nll, val_top1, step)
                about = provenance(
                    folder,
                    rows_seen + (before["rows_seen"] if before else 0),
                    elapsed + (before["training_seconds"] if before else 0.0),
                    hardware or hardware_of(threads),
                    seed,
                    step + (before["steps"] if before else 0),
                    batch_size,
                    (val_count, val_nll, val_top1),
                )
                if before:
                    about["continued_from"] = before
                card = {
                    "name": name,
                    "channels": net.channels,
                    "blocks": net.blocks,
                    "mirror_average": mirror_average,
                    "provenance": about,
                }
                save_model(net.numpy_weights(), card, output)
        if step >= steps or late:
            break
    if best[2] == 0:
        raise RunError(
            f"no step bettered the start ({before['name'] if before else '-'}) on val "
            f"({best[0]:.4f} nats); nothing written"
        )
    return TrainSummary(
        step,
        rows_seen,
        time.monotonic() - start,
        best[0],
        best[1],
        best[2],
        os.fspath(output),
    )


def _start_model(
    init: str | os.PathLike[str] | None, channels: int | None, blocks: int | None
) -> HumanModel | None:
    if init is None:
        return None
    given = os.fspath(init)
    model = load_model(None, given) if given in SHIPPED_MODELS else load_model(given)
    for option, value, size in (
        ("channels", channels, model.channels),
        ("blocks", blocks, model.blocks),
    ):
        if value is not None and value != size:
            raise UsageError(f"{option} {value}: the start {given} has {size}", option=option)
    return model


def continued_from(model: HumanModel | None) -> dict[str, Any] | None:
    """What a continued model's card says of its start (``provenance.continued_from``):
    its name, weights' SHA-256, and the steps, rows and seconds of its training (None
    without a start)."""
    if model is None:
        return None
    about = model.card["provenance"]
    return {
        "name": model.card["name"],
        "weights_sha256": model.card["weights_sha256"],
        "steps": about["steps"],
        "rows_seen": about["rows_seen"],
        "training_seconds": about["training_seconds"],
    }


def refuse_existing(output: str | os.PathLike[str]) -> None:
    """A usage error when ``output``'s ``.npz`` or ``.json`` exists: training writes a new
    model, never over a file."""
    stem = os.fspath(output).removesuffix(".npz")
    for made in (f"{stem}.npz", f"{stem}.json"):
        if os.path.lexists(made):
            raise UsageError(
                f"{made} exists: bench train writes a new model (choose another name)",
                option="output",
            )


def provenance(
    folder: BenchFolder,
    seen: int,
    elapsed: float,
    hardware: str,
    seed: int,
    step: int,
    batch_size: int,
    val: tuple[int, float, float],
) -> dict[str, Any]:
    """A trained model's provenance (``model_files.PROVENANCE``): ``folder``'s train split,
    ``seen`` rows (or pieces) gone through, the time, hardware, seed, steps and batch, and
    ``val``: the val rows, and the model's mean NLL and top-1 there."""
    split = folder.manifest.splits["train"]
    return {
        "benchmark": NAME,
        "benchmark_version": VERSION,
        "split": "train",
        "months": folder.months("train"),
        "games": split.games,
        "rows": split.rows,
        "rows_seen": seen,
        "strat_tools": package_version("strat-tools"),
        "training_seconds": round(elapsed, 1),
        "hardware": hardware,
        "seed": seed,
        "steps": step,
        "batch_size": batch_size,
        "val_rows": val[0],
        "val_nll": round(val[1], 5),
        "val_top1": round(val[2], 5),
        "torch": torch.__version__,
    }


def hardware_of(threads: int) -> str:
    """The hardware a card names: the machine and the PyTorch threads."""
    return f"{platform.machine()} CPU, {threads} PyTorch thread(s)"
