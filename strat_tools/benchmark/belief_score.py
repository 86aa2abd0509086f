"""The belief task's scorer: a belief submission's metrics on a split of a built benchmark.

A belief submission (``docs/benchmark.md``, *Task 2*) has one row per ply and opponent piece
the mover has not identified (:mod:`strat_tools.benchmark.belief_rows`): ``game_id``,
``ply``, ``square`` (the mover's view) and ``log_probs``, 12 values over
:data:`~strat_tools.engine.information.beliefs.BELIEF_KINDS`. :func:`score_beliefs` checks it
with the move task's checks (:func:`~strat_tools.benchmark.submission.aligned_log_probs`: every row
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
from collections.abc import Callable
from dataclasses import dataclass
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

__all__ = ["BELIEF_METRICS", "PieceMetrics", "belief_sums", "score_beliefs"]

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


@dataclass(frozen=True)
class PieceMetrics:
    """Per piece: minus the log-probability of its true kind, its top-1 credit (ties
    split), whether it moved, whether it is the flag, and the probability of ``flag``."""

    ce: Floats
    top1: npt.NDArray[np.float32]
    moved: npt.NDArray[np.bool_]
    flag: npt.NDArray[np.bool_]
    flag_prob: npt.NDArray[np.float32]

    @classmethod
    def of(cls, values: npt.NDArray[np.floating[Any]], rows: BeliefRows) -> PieceMetrics:
        """From the flat log-probabilities (12 a piece, in ``rows``' order)."""
        table = values.reshape(-1, 12)
        mine = table[np.arange(len(table)), rows.truth]
        above = (table > mine[:, None]).sum(axis=1, dtype=np.int8)
        tied = (table == mine[:, None]).sum(axis=1, dtype=np.int8)
        top1 = np.clip((1 - above) / tied, 0, 1).astype(np.float32)
        flag = rows.truth == PieceKind.FLAG
        flag_prob = np.exp(table[:, PieceKind.FLAG], dtype=np.float32)
        return cls(-mine.astype(np.float64), top1, rows.moved, flag, flag_prob)


def belief_sums(
    metrics: PieceMetrics, games: npt.NDArray[np.int64], groups: npt.NDArray[np.int64], size: int
) -> dict[str, Floats]:
    """Per (game, group), ``[games, size]``: the pieces and the sums of each metric's
    numerator (each weight made only when it is counted)."""
    n_games = int(games.max()) + 1 if len(games) else 0
    cell = games * size + groups
    m = metrics
    weights: dict[str, Callable[[], npt.NDArray[Any] | None]] = {
        "rows": lambda: None,
        "ce": lambda: m.ce,
        "top1": lambda: m.top1,
        "true_prob": lambda: np.exp(-m.ce),
        "rows_moved": lambda: m.moved,
        "ce_moved": lambda: np.where(m.moved, m.ce, 0.0),
        "flag_rows": lambda: m.flag,
        "flag_prob": lambda: np.where(m.flag, m.flag_prob, 0.0),
    }
    return {
        name: np.bincount(cell, weights=w(), minlength=n_games * size)
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
    metrics = PieceMetrics.of(values, rows)
    whole = belief_sums(metrics, game_of_row, np.zeros(len(game_of_row), np.int64), 1)
    bands = belief_sums(metrics, game_of_row, np.searchsorted(PLY_BANDS, rows.ply), 4)
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
