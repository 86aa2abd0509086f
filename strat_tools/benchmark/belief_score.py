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

A submission whose rows come in the split's order (as ``bench predict`` writes them) is
scored a chunk of plies at a time (:class:`~strat_tools.benchmark.submission_files.SubmissionStream`
beside :func:`~strat_tools.benchmark.belief_rows.iter_belief_rows`): each chunk checked, its
metrics added to per-game sums in the split's order, so the numbers are those of the whole
to the last digit, in bounded memory (about 0.4 GB on the test split's 22 million pieces,
against 7 to 8 GB read whole). Any other submission is read whole, as is one to refuse (so
that the refusal names the first offending rows of all).

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

from strat_tools.benchmark.belief_rows import (
    CHUNK_ROWS,
    BeliefRows,
    belief_rows,
    iter_belief_rows,
)
from strat_tools.benchmark.bench_folder import BenchFolder, SplitGames, open_bench, split_export
from strat_tools.benchmark.metrics import REPLICATES, SEED, bootstrap_draws, summarise
from strat_tools.benchmark.score import PLY_BANDS, BenchScore, band_labels
from strat_tools.benchmark.submission import aligned_log_probs
from strat_tools.benchmark.submission_files import Submission, SubmissionStream, read_submission
from strat_tools.core.errors import StratToolsError
from strat_tools.core.pieces import PieceKind

__all__ = [
    "BELIEF_METRICS",
    "SUMS",
    "PieceMetrics",
    "add_belief_sums",
    "belief_sums",
    "score_beliefs",
]

BELIEF_METRICS: Final = ("ce", "ce_moved", "ce_unmoved", "top1", "true_prob", "flag_prob")
"""The belief task's metrics (each with ``_low`` and ``_high``)."""
SUMS: Final = (
    "rows",
    "ce",
    "top1",
    "true_prob",
    "rows_moved",
    "ce_moved",
    "flag_rows",
    "flag_prob",
)
"""The per-game sums the belief metrics are ratios of (:func:`belief_sums`)."""
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
    sums = {name: np.zeros((n_games, size)) for name in SUMS}
    add_belief_sums(sums, metrics, games, groups)
    return sums


def add_belief_sums(
    sums: dict[str, Floats],
    metrics: PieceMetrics,
    games: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64],
) -> None:
    """Add the pieces' metrics to ``sums`` (:func:`belief_sums`' arrays, ``[games, size]``),
    piece by piece in order: chunks of pieces added in the split's order give the very sums
    of the whole (each cell summed in the same order from 0; ``numpy.bincount`` sums so)."""
    size = sums["rows"].shape[1]
    cell = games * size + groups
    m = metrics
    weights: dict[str, Callable[[], npt.NDArray[Any] | float]] = {
        "rows": lambda: 1.0,
        "ce": lambda: m.ce,
        "top1": lambda: m.top1,
        "true_prob": lambda: np.exp(-m.ce),
        "rows_moved": lambda: m.moved,
        "ce_moved": lambda: np.where(m.moved, m.ce, 0.0),
        "flag_rows": lambda: m.flag,
        "flag_prob": lambda: np.where(m.flag, m.flag_prob, 0.0),
    }
    for name, weight in weights.items():
        np.add.at(sums[name].reshape(-1), cell, weight())


def _forbidden(rows: BeliefRows) -> list[tuple[str, npt.NDArray[np.bool_]]]:
    """The masks of the kinds a piece's belief may give no mass (flat, 12 a piece)."""
    moved_rule = rows.moved[:, None] & _BOMB_FLAG[None, :]
    return [
        ("on a bomb or the flag for a piece that has moved", moved_rule.ravel()),
        (
            "on a kind of which the opponent has no unidentified piece left",
            (~rows.allowed & ~moved_rule).ravel(),
        ),
    ]


class _NotStreamed(Exception):
    """The submission cannot be scored a chunk at a time (rows in another order than the
    split's, or anything to refuse): it is read whole instead."""


def score_beliefs(
    bench: str | os.PathLike[str] | BenchFolder,
    predictions: str | os.PathLike[str] | Submission,
    split: str = "test",
    *,
    replicates: int = REPLICATES,
    seed: int = SEED,
    chunk_rows: int = CHUNK_ROWS,
) -> BenchScore:
    """Score the belief submission ``predictions`` on ``split`` of the benchmark ``bench``:
    ``views.<view>.{games, rows, ce, ce_low, ce_high, top1, true_prob, flag_prob, ...}``
    and the rows by ply band (:class:`~strat_tools.benchmark.score.BenchScore`).

    A submission folder whose rows come in the split's order (as ``bench predict`` writes
    them) is scored a chunk of ``chunk_rows`` plies at a time, in bounded memory; any other
    (rows in another order, a submission to refuse, a :class:`Submission` already read) is
    read whole and checked at once, which names the first offending rows of all. Both give
    the same numbers to the last digit."""
    folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
    listed = folder.games(split)
    games = pa.array(listed.game_ids.tolist(), pa.string())
    if not isinstance(predictions, Submission):
        try:
            return _streamed(
                folder, listed, games, predictions, split, chunk_rows, replicates, seed
            )
        except (_NotStreamed, StratToolsError, pa.ArrowException, OSError):
            pass  # read whole: the same score, or the refusal naming the rows of all
    export = split_export(folder, split)
    rows = belief_rows(export, games, split)
    sub = (
        predictions
        if isinstance(predictions, Submission)
        else read_submission(predictions, "belief")
    )
    twelve = np.full(len(rows.codes), 12, np.int64)
    values = aligned_log_probs(
        sub, games, rows.codes, rows.ply, twelve, squares=rows.square, forbidden=_forbidden(rows)
    )
    present, game_of_row = np.unique(rows.codes, return_inverse=True)
    metrics = PieceMetrics.of(values, rows)
    whole = belief_sums(metrics, game_of_row, np.zeros(len(game_of_row), np.int64), 1)
    bands = belief_sums(metrics, game_of_row, np.searchsorted(PLY_BANDS, rows.ply), 4)
    found = BenchScore(split, sub.card, folder.sha256, sub.sha256, replicates, seed, task="belief")
    return _result(found, listed, present, whole, bands)


def _streamed(
    folder: BenchFolder,
    listed: SplitGames,
    games: pa.Array,
    predictions: str | os.PathLike[str],
    split: str,
    chunk_rows: int,
    replicates: int,
    seed: int,
) -> BenchScore:
    """:func:`score_beliefs` a chunk of the split's plies at a time, the submission's rows
    taken in step (:class:`~strat_tools.benchmark.submission_files.SubmissionStream`): the sums
    per game of the manifest's game indices, kept for the games with pieces."""
    export = split_export(folder, split)
    whole = {name: np.zeros((len(games), 1)) for name in SUMS}
    bands = {name: np.zeros((len(games), len(PLY_BANDS) + 1)) for name in SUMS}
    seen = np.zeros(len(games), bool)
    chunks = 0
    stream = SubmissionStream(predictions, "belief", batch_rows=chunk_rows * 16)
    try:
        for rows in iter_belief_rows(export, games, split, chunk_rows):
            chunks += 1
            if not len(rows.codes):
                continue
            part = stream.take(len(rows.codes))
            if part is None:
                raise _NotStreamed("rows missing")
            twelve = np.full(len(rows.codes), 12, np.int64)
            values = aligned_log_probs(
                part,
                games,
                rows.codes,
                rows.ply,
                twelve,
                squares=rows.square,
                forbidden=_forbidden(rows),
            )
            metrics = PieceMetrics.of(values, rows)
            add_belief_sums(whole, metrics, rows.codes, np.zeros(len(rows.codes), np.int64))
            add_belief_sums(bands, metrics, rows.codes, np.searchsorted(PLY_BANDS, rows.ply))
            seen[rows.codes] = True
        if not chunks or not stream.finished():
            raise _NotStreamed("no rows, or rows the split does not have")
    finally:
        stream.close()
    present = np.flatnonzero(seen)
    found = BenchScore(
        split, stream.card, folder.sha256, stream.sha256, replicates, seed, task="belief"
    )
    return _result(
        found,
        listed,
        present,
        {k: v[present] for k, v in whole.items()},
        {k: v[present] for k, v in bands.items()},
    )


def _result(
    result: BenchScore,
    listed: SplitGames,
    present: npt.NDArray[np.int64],
    whole: dict[str, Floats],
    bands: dict[str, Floats],
) -> BenchScore:
    """The score of the per-game sums of the games ``present`` (the manifest's indices of
    the games with pieces, ascending): each view's overall metrics and ply bands."""
    labels = band_labels(PLY_BANDS)
    views = {"all": np.ones(len(present), bool)}
    if listed.has_views:
        for view in ("fresh", "seen"):
            views[view] = listed.views[present] == view
    for view, keep in views.items():
        draws = bootstrap_draws(int(keep.sum()), result.replicates, result.seed)
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
