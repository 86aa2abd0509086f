"""The belief task's scorer: a belief submission's metrics on a split of a built benchmark.

A belief submission (``docs/benchmark.md``, *Task 2*) has one row per ply and opponent piece
the mover has not identified (:mod:`strat_tools.benchmark.belief_rows`): ``game_id``,
``ply``, ``square`` (the mover's view) and ``log_probs``, 12 values over
:data:`~strat_tools.engine.beliefs.BELIEF_KINDS`. :func:`score_beliefs` checks it with the
move task's checks (:func:`~strat_tools.benchmark.submission.aligned_log_probs`: every row
once, 12 finite values, normalised within 1e-3) and refuses mass (a probability above
``NO_MASS``, 1e-6) on a bomb or the flag for a piece that has moved, or on a kind of which
the opponent has no unidentified piece left. Per piece, from the true kind (the ``board``
label):

- ``ce``: minus the log-probability of the true kind (nats; Ataraxos' cross-entropy), over
  all pieces, and ``ce_moved`` / ``ce_unmoved`` over the pieces seen moving or not;
- ``top1``: 1 when the true kind has the highest probability, ties split;
- ``true_prob``: the probability of the true kind;
- ``flag_prob``: over the plies where the opponent's flag is unidentified, the probability
  of ``flag`` on the true flag's square.

Each with a 95% interval from the move task's bootstrap over games
(:func:`~strat_tools.benchmark.metrics.summarise`), for each view and by ply band.

>>> BELIEF_METRICS
('ce', 'ce_moved', 'ce_unmoved', 'top1', 'true_prob', 'flag_prob')
"""

from __future__ import annotations

import os
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from strat_tools.benchmark.belief_rows import BeliefRows, belief_rows
from strat_tools.benchmark.bench_folder import BenchFolder, open_bench, split_export
from strat_tools.benchmark.metrics import REPLICATES, SEED, bootstrap_draws, summarise
from strat_tools.benchmark.score import PLY_BANDS, BenchScore, band_labels
from strat_tools.benchmark.submission import Submission, aligned_log_probs, read_submission
from strat_tools.core.pieces import PieceKind

__all__ = ["BELIEF_METRICS", "belief_sums", "score_beliefs"]

BELIEF_METRICS: Final = ("ce", "ce_moved", "ce_unmoved", "top1", "true_prob", "flag_prob")
"""The belief task's metrics (each with ``_low`` and ``_high``)."""
_BOMB_FLAG: Final = np.array([not k.movable for k in PieceKind])
Floats = npt.NDArray[np.float64]


def _ratios(sums: dict[str, Any], size: int) -> dict[str, Floats]:
    """Each belief metric of summed per-game ``sums`` (any leading axes)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rows, moved = sums["rows"], sums["rows_moved"]
        return {
            "ce": sums["ce"] / rows,
            "ce_moved": sums["ce_moved"] / moved,
            "ce_unmoved": (sums["ce"] - sums["ce_moved"]) / (rows - moved),
            "top1": sums["top1"] / rows,
            "true_prob": sums["true_prob"] / rows,
            "flag_prob": sums["flag_prob"] / sums["flag_rows"],
        }


def belief_sums(
    values: npt.NDArray[np.floating[Any]],
    rows: BeliefRows,
    games: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64],
    size: int,
) -> dict[str, Floats]:
    """Per (game, group), ``[games, size]``: the pieces and the sums of each metric's
    numerator (``values``: the flat log-probabilities, 12 a piece, in ``rows``' order)."""
    table = values.reshape(-1, 12)
    at = np.arange(len(table))
    mine = table[at, rows.truth]
    above = (table > mine[:, None]).sum(axis=1)
    tied = (table == mine[:, None]).sum(axis=1)
    ce = -mine.astype(np.float64)
    flag = rows.truth == PieceKind.FLAG
    n_games = int(games.max()) + 1 if len(games) else 0
    cell = games * size + groups
    weights: dict[str, Floats | None] = {
        "rows": None,
        "ce": ce,
        "top1": np.clip((1 - above) / tied, 0, 1),
        "true_prob": np.exp(-ce),
        "rows_moved": rows.moved.astype(np.float64),
        "ce_moved": np.where(rows.moved, ce, 0.0),
        "flag_rows": flag.astype(np.float64),
        "flag_prob": np.where(flag, np.exp(table[:, PieceKind.FLAG].astype(np.float64)), 0.0),
    }
    return {
        name: np.bincount(cell, weights=w, minlength=n_games * size)
        .astype(np.float64)
        .reshape(n_games, size)
        for name, w in weights.items()
    }


def score_beliefs(
    bench: str | os.PathLike[str] | BenchFolder,
    predictions: str | os.PathLike[str] | Submission,
    split: str = "test",
    *,
    replicates: int = REPLICATES,
    seed: int = SEED,
) -> BenchScore:
    """Score the belief submission ``predictions`` on ``split`` of the benchmark ``bench``:
    ``views.<view>.{games, rows, ce, ce_low, ce_high, top1, true_prob, flag_prob, ...}``
    and the rows by ply band (:class:`~strat_tools.benchmark.score.BenchScore`)."""
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    listed = folder.games(split)
    games = pa.array(listed.game_ids.tolist(), pa.string())
    rows = belief_rows(split_export(folder, split), games, split)
    sub = (
        predictions
        if isinstance(predictions, Submission)
        else read_submission(predictions, "belief")
    )
    moved_rule = rows.moved[:, None] & _BOMB_FLAG[None, :]
    values = aligned_log_probs(
        sub,
        games,
        rows.codes,
        rows.ply,
        np.full(len(rows.codes), 12, np.int64),
        squares=rows.square,
        forbidden=[
            ("on a bomb or the flag for a piece that has moved", moved_rule.ravel()),
            (
                "on a kind of which the opponent has no unidentified piece left",
                (~rows.allowed & ~moved_rule).ravel(),
            ),
        ],
    )
    present, game_of_row = np.unique(rows.codes, return_inverse=True)
    labels = band_labels(PLY_BANDS)
    whole = belief_sums(values, rows, game_of_row, np.zeros(len(game_of_row), np.int64), 1)
    bands = belief_sums(values, rows, game_of_row, np.searchsorted(PLY_BANDS, rows.ply), 4)
    views = {"all": np.ones(len(present), bool)}
    if listed.has_views:
        for view in ("fresh", "seen"):
            views[view] = listed.views[present] == view
    result = BenchScore(split, sub.card, folder.sha256, sub.sha256, replicates, seed, task="belief")
    for view, keep in views.items():
        draws = bootstrap_draws(int(keep.sum()), replicates, seed)
        [found] = _summed(whole, keep, ["all"], draws)
        result.views[view] = {k: v for k, v in found.items() if k != "group"}
        result.rows.append({"view": view, "by": "all", **found})
        result.rows.extend(
            {"view": view, "by": "ply", **row}
            for row in _summed(bands, keep, labels, draws)
            if row["rows"]
        )
    return result


def _summed(
    sums: dict[str, Floats], keep: npt.NDArray[np.bool_], labels: list[str], draws: Floats
) -> list[dict[str, Any]]:
    """The groups' belief metrics and intervals over the games ``keep`` selects."""
    mine = {k: v[keep] for k, v in sums.items()}
    return summarise(mine, labels, draws, ratios=_ratios, names=BELIEF_METRICS)
