"""``strat-tools bench train``: train the human-move model on a benchmark's train split
(options only; the work is :func:`strat_tools.benchmark.train.train`, which needs the
optional PyTorch: ``pip install -r requirements-torch.lock``)."""

from __future__ import annotations

import click

from strat_tools.cli.errors import library_errors
from strat_tools.cli.outputs import check_output
from strat_tools.cli.render import message


@click.command("train")
@click.argument("bench_dir", type=click.Path(file_okay=False))
@click.option(
    "-o",
    "--output",
    required=True,
    help="The model file: MODEL.npz (float32 weights) and its card MODEL.json.",
)
@click.option("--name", default="human-v1", show_default=True, help="The model's name.")
@click.option("--channels", default=32, show_default=True, type=click.IntRange(1, 1024))
@click.option("--blocks", default=3, show_default=True, type=click.IntRange(0, 64))
@click.option("--steps", default=4_000, show_default=True, type=click.IntRange(1))
@click.option("--batch-size", default=256, show_default=True, type=click.IntRange(1))
@click.option("--lr", "learning_rate", default=2e-3, show_default=True, type=float)
@click.option("--warmup", default=300, show_default=True, type=click.IntRange(0))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1))
@click.option("--eval-every", default=500, show_default=True, type=click.IntRange(1), help="Steps.")
@click.option("--val-rows", default=20_000, show_default=True, type=click.IntRange(1))
@click.option(
    "--max-minutes",
    default=None,
    type=click.FloatRange(0, min_open=True),
    help="Stop after this long (the best model on val so far stays written).",
)
@click.option("--hardware", default=None, help="The hardware, as the card will say it.")
@library_errors
def train_command(
    bench_dir: str,
    output: str,
    name: str,
    channels: int,
    blocks: int,
    steps: int,
    batch_size: int,
    learning_rate: float,
    warmup: int,
    seed: int,
    threads: int,
    eval_every: int,
    val_rows: int,
    max_minutes: float | None,
    hardware: str | None,
) -> None:
    """Train the human-move model on BENCH_DIR's train split (val chooses the model; test
    is never read) and write MODEL.npz and MODEL.json, the best model on val so far, each
    time it improves. Needs PyTorch (pip install -r requirements-torch.lock).

    \b
    Example:
      strat-tools bench train bench-v1 -o my-model.npz --max-minutes 45
      strat-tools bench predict bench-v1 --split test --policy human-v1 \\
          --model my-model.npz -o pred
    """
    check_output([bench_dir], output)
    try:
        from strat_tools.benchmark.train import train
    except ImportError as exc:
        raise click.UsageError(
            f"bench train needs PyTorch ({exc}): pip install -r requirements-torch.lock"
        ) from None

    summary = train(
        bench_dir,
        output,
        name=name,
        channels=channels,
        blocks=blocks,
        steps=steps,
        batch_size=batch_size,
        learning_rate=learning_rate,
        warmup=warmup,
        seed=seed,
        threads=threads,
        eval_every=eval_every,
        val_rows=val_rows,
        max_minutes=max_minutes,
        hardware=hardware,
        log=message,
    )
    message(str(summary))
