"""``strat-tools bench predict`` and ``bench score``: a shipped policy's submission, and the
scorer (``docs/benchmark.md``). The work is the library's
(:mod:`strat_tools.benchmark.predict`, :mod:`strat_tools.benchmark.score`); this module
parses options and renders."""

from __future__ import annotations

import click

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import format_option
from strat_tools.cli.outputs import check_output
from strat_tools.cli.render import message, render

POLICY_NAMES = ("uniform", "counts", "counts-last", "human-v1", "human-v2", "human-v3")
"""The shipped policies (:data:`strat_tools.benchmark.baselines.POLICIES`, repeated here
so that ``--help`` loads no NumPy; a test holds the two equal)."""
BELIEF_POLICY_NAMES = ("belief-counts", "belief-prior", "belief-v1")
"""The shipped belief baselines (:data:`strat_tools.benchmark.belief_baselines.
BELIEF_POLICIES`, repeated for the same reason; a test holds the two equal)."""
TRAINED_NAMES = (*POLICY_NAMES[3:], BELIEF_POLICY_NAMES[2])
"""The shipped policies that are trained models, which ``--model`` may replace: the move
models after the three baselines, and the learned belief model."""
TASK_OPTION = click.option(
    "--task",
    type=click.Choice(("move", "belief")),
    default="move",
    show_default=True,
    help="move: the move played; belief: each unidentified opponent piece's kind.",
)
BELIEF_SHOWN = (
    "view",
    "by",
    "group",
    "games",
    "rows",
    "ce",
    "ce_low",
    "ce_high",
    "ce_moved",
    "ce_unmoved",
    "top1",
    "true_prob",
    "flag_prob",
)
"""The columns the table format shows for the belief task."""

SHOWN = (
    "view",
    "by",
    "group",
    "games",
    "rows",
    "nll",
    "nll_low",
    "nll_high",
    "top1",
    "top3",
    "ece",
)
"""The columns the table format shows (csv and jsonl give every column)."""


@click.command("predict")
@click.argument("bench_dir", type=click.Path(file_okay=False))
@click.option("--split", default="test", show_default=True, help="A split of the manifest.")
@TASK_OPTION
@click.option(
    "--policy",
    type=click.Choice(POLICY_NAMES + BELIEF_POLICY_NAMES),
    required=True,
    help="A shipped policy: uniform, counts (a kind of move's rate of being chosen when "
    "legal), counts-last (the same, split by 'moves the piece it moved last turn') or "
    "human-v1, human-v2 or human-v3 (the shipped human-move models, docs/human-model.md); for "
    "--task belief: "
    "belief-counts (the counts left), belief-prior (a setup prior by square) or belief-v1 "
    "(the learned belief model, which also reads how each piece has moved).",
)
@click.option(
    "--counts",
    "counts_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Count tables to use instead of the shipped ones (the library's save_counts).",
)
@click.option(
    "--model",
    "model_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --policy human-v1, human-v2, human-v3 or belief-v1: a model file written by "
    "bench train "
    "(MODEL.npz and its MODEL.json card) instead of the shipped one.",
)
@click.option("-o", "--output", required=True, help="The new folder of the submission.")
@library_errors
def predict(
    bench_dir: str,
    split: str,
    task: str,
    policy: str,
    counts_path: str | None,
    model_path: str | None,
    output: str,
) -> None:
    """Write the submission of a shipped policy for a split: PRED/part-00000.parquet
    (game_id, ply, log_probs over the row's legal moves, ascending ids; for --task belief
    one row per unidentified opponent piece: game_id, ply, square, log_probs over the 12
    kinds) and PRED/card.json. Any model does the same through the library's MovePolicy
    (a belief: BeliefModel).

    \b
    Example:
      strat-tools bench predict bench-v1 --split test --policy counts -o pred
      strat-tools bench score bench-v1 pred --split test
      strat-tools bench predict bench-v1 --task belief --policy belief-prior -o bpred
    """
    if counts_path is not None and policy == "uniform":
        raise click.UsageError("--counts is for the count policies (counts, counts-last)")
    check_output([bench_dir], output, folder=True)
    if (task == "belief") != (policy in BELIEF_POLICY_NAMES):
        raise click.UsageError(
            f"--policy {policy} is not a policy of --task {task} (belief: "
            f"{', '.join(BELIEF_POLICY_NAMES)}; move: {', '.join(POLICY_NAMES)})"
        )
    if task == "belief" and counts_path is not None:
        raise click.UsageError("--counts is the move task's count tables: not for --task belief")
    if model_path is not None and policy not in TRAINED_NAMES:
        raise click.UsageError(f"--model is for the trained models ({', '.join(TRAINED_NAMES)})")
    if task == "belief":
        from strat_tools.benchmark.belief_baselines import belief_by_name
        from strat_tools.benchmark.belief_predict import predict_beliefs

        model = belief_by_name(policy, model_path)
        message(str(predict_beliefs(bench_dir, split, model, output)))
        return
    from strat_tools.benchmark.baselines import policy_by_name
    from strat_tools.benchmark.predict import predict as write_predictions

    chosen = policy_by_name(policy, counts_path, model_path)
    summary = write_predictions(bench_dir, split, chosen, output)
    message(str(summary))


@click.command("score")
@click.argument("bench_dir", type=click.Path(file_okay=False))
@click.argument("pred", type=click.Path(file_okay=False))
@click.option("--split", default="test", show_default=True, help="A split of the manifest.")
@TASK_OPTION
@format_option()
@library_errors
def score(bench_dir: str, pred: str, split: str, task: str, fmt: str) -> None:
    """Score a submission on a split: mean NLL of the move played (the primary metric),
    top-1 (ties split), top-3, perplexity and calibration error (15 bins), each with a
    95% interval from a bootstrap over games; for each view (all, and fresh and seen for a
    test split) and by ply band, side, legal moves, plies since the last battle and
    ending. A malformed submission is refused (exit 2) naming its first offending rows.
    --format json gives views.<view>.{games, rows, nll, nll_low, ...} and the SHA-256 of
    the manifest and of the predictions. --task belief scores a belief submission: mean
    cross-entropy of the true kind (all, moved, unmoved pieces), top-1, probability of
    the true kind and the flag score, by view and ply band (views.<view>.{games, rows,
    ce, ce_low, ce_high, top1, true_prob, flag_prob}).

    \b
    Example:
      strat-tools bench score bench-v1 pred --split test
      strat-tools bench score bench-v1 pred --split val --format json
    """
    from strat_tools.benchmark.belief_score import score_beliefs
    from strat_tools.benchmark.score import score as score_submission

    result = (score_beliefs if task == "belief" else score_submission)(bench_dir, pred, split)
    if fmt == "json":
        render(result.to_json(), fmt)
        return
    rows = result.rows
    if fmt == "table":
        shown = BELIEF_SHOWN if task == "belief" else SHOWN
        rows = [{k: _short(row[k]) for k in shown} for row in rows]
        message(
            f"{result.card['model']} on {split}: manifest {result.manifest_sha256[:12]}, "
            f"predictions {result.predictions_sha256[:12]}"
        )
    render(rows, fmt)


def _short(value: object) -> object:
    """A float to four decimals for the table (csv and json keep every digit)."""
    return round(value, 4) if isinstance(value, float) else value
