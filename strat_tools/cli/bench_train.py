"""``strat-tools bench train``: train the human-move model (or, with ``--task belief``, the
learned belief model) on a benchmark's train split (options only; the work is
:func:`strat_tools.benchmark.train.train` or
:func:`strat_tools.benchmark.belief_train.train_belief`, which need the optional PyTorch:
``pip install -r requirements-torch.lock``)."""

from __future__ import annotations

import click

from strat_tools.cli.bench_score import TASK_OPTION
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
@TASK_OPTION
@click.option("--name", default=None, help="The model's name  [default: human-v1, belief-v1].")
@click.option("--channels", default=None, type=click.IntRange(1, 1024), help="[default: 32].")
@click.option("--blocks", default=None, type=click.IntRange(0, 64), help="[default: 3].")
@click.option(
    "--init",
    default=None,
    help="Continue training this model (MODEL.npz, or a shipped model's name: human-v3): "
    "its weights start, its size is kept, and a model is written only when it beats the "
    "start on val.",
)
@click.option(
    "--mirror-average/--no-mirror-average",
    default=None,
    help="The model's probabilities the mean over the position and its mirror image (val "
    "scores that mean)  [default: the --init model's, else no].",
)
@click.option(
    "--hidden", default=128, show_default=True, type=click.IntRange(1, 4096), help="belief."
)
@click.option(
    "--train-share",
    default=0.15,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True),
    help="belief: the share of train's plies whose pieces are the examples.",
)
@click.option("--steps", default=None, type=click.IntRange(1), help="[default: 4000; 120000].")
@click.option(
    "--batch-size", default=None, type=click.IntRange(1), help="[default: 256; 1024 pieces]."
)
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
    task: str,
    name: str | None,
    channels: int | None,
    blocks: int | None,
    init: str | None,
    mirror_average: bool | None,
    hidden: int,
    train_share: float,
    steps: int | None,
    batch_size: int | None,
    learning_rate: float,
    warmup: int,
    seed: int,
    threads: int,
    eval_every: int,
    val_rows: int,
    max_minutes: float | None,
    hardware: str | None,
) -> None:
    """Train the human-move model (--task belief: the learned belief model) on BENCH_DIR's
    train split (val chooses the model; test is never read) and write MODEL.npz and
    MODEL.json, the best model on val so far, each time it improves. Needs PyTorch (pip
    install -r requirements-torch.lock). --channels and --blocks are the move model's,
    --hidden and --train-share the belief model's.

    \b
    Example:
      strat-tools bench train bench-v1 -o my-model.npz --max-minutes 45
      strat-tools bench train bench-v1 --init human-v2 --lr 0.001 -o longer.npz
      strat-tools bench train bench-v1 --task belief -o my-beliefs.npz --max-minutes 20
      strat-tools bench predict bench-v1 --split test --policy human-v1 \\
          --model my-model.npz -o pred
    """
    check_output([bench_dir], output)
    try:
        from strat_tools.benchmark.belief_train import train_belief
        from strat_tools.benchmark.train import train
    except ImportError as exc:
        raise click.UsageError(
            f"bench train needs PyTorch ({exc}): pip install -r requirements-torch.lock"
        ) from None

    if task == "belief":
        summary = train_belief(
            bench_dir,
            output,
            name=name or "belief-v1",
            hidden=hidden,
            steps=steps or 120_000,
            batch_size=batch_size or 1024,
            learning_rate=learning_rate,
            train_share=train_share,
            seed=seed,
            threads=threads,
            eval_every=eval_every,
            max_minutes=max_minutes,
            hardware=hardware,
            log=message,
        )
        message(str(summary))
        return
    summary = train(
        bench_dir,
        output,
        name=name or "human-v1",
        channels=channels,
        blocks=blocks,
        init=init,
        mirror_average=mirror_average,
        steps=steps or 4_000,
        batch_size=batch_size or 256,
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
