"""The scorer: a submission's metrics on a split of a built benchmark.

:func:`score` reads the split's rows (only :data:`SCORED_COLUMNS`: ``game_id``, ``ply``,
``side``, ``plies_since_battle``, ``legal_count`` and the label ``action_index``, never the
legal lists; a folder built before they were written has them worked out from ``action``
and ``legal_actions``, the same values: :func:`scored_rows`), the split's games' views
(the manifest) and endings (the split's games table), and the submission
(:mod:`strat_tools.benchmark.submission_files` reads it, :mod:`strat_tools.benchmark.
submission` refuses a malformed one naming the rows),
then gives each metric (:mod:`strat_tools.benchmark.metrics`) with its 95% interval from a
bootstrap over games, for each view (``all``; ``fresh`` and ``seen`` for a test or extra
split) and, within each view, by ply band, side, number of legal moves, plies since the
last battle and ending. Everything is vectorised over the rows (NumPy passes over the flat
values, one matrix product per view for the bootstrap), on two worker threads
(:data:`WORKERS`) beside the calling thread: the test split's million rows are scored in
under half a second, 1.6 to 1.9 times the wall time and 1.5 to 1.7 times the CPU of a
read of its observations (``bench/bench_score.py``; the issue's target is 2x: docs/
benchmark.md, *Speed*).

>>> from strat_tools.benchmark.score import band_labels
>>> band_labels(PLY_BANDS)
['1-10', '11-50', '51-200', '>200']
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from strat_tools.benchmark.bench_folder import (
    BenchFolder,
    open_bench,
    open_split,
)
from strat_tools.benchmark.definition import NAME, VERSION
from strat_tools.benchmark.metrics import (
    BINS,
    REPLICATES,
    SEED,
    Floats,
    RowMetrics,
    bootstrap_draws,
    calibration_error,
    calibration_sums,
    game_sums,
    row_metrics,
    spread_by_game,
    summarise,
)
from strat_tools.benchmark.submission import aligned_log_probs, game_codes
from strat_tools.benchmark.submission_files import Submission, read_submission
from strat_tools.core.errors import InputError
from strat_tools.exports.observation_files import ObservationExport
from strat_tools.exports.observation_rows import action_indices

__all__ = [
    "BATTLE_BANDS",
    "ENDING_ORDER",
    "LEGAL_BANDS",
    "PLY_BANDS",
    "SCORED_COLUMNS",
    "WORKERS",
    "BenchScore",
    "band_indices",
    "band_labels",
    "score",
    "scored_rows",
]

PLY_BANDS: Final = (10, 50, 200)
"""Upper ends of the ply bands: 1-10, 11-50, 51-200, >200."""
LEGAL_BANDS: Final = (10, 20, 30, 50)
"""Upper ends of the bands of the number of legal moves."""
BATTLE_BANDS: Final = (1, 4, 10, 30)
"""Upper ends of the bands of plies since the last battle (0 and 1 together)."""
ENDING_ORDER: Final = ("board", "resigned", "agreed", "clock", "missing", "unknown")
"""How games end (the games table's ``ending``): decided on the board, resigned, a draw
agreed, on the clock, a player gone, unknown."""
WORKERS: Final = 2
"""Threads of the scorer's arithmetic (blocks of rows, sums, views): NumPy's passes leave
the interpreter's lock, so two cores share them."""
VIEW_CODE: Final = {"fresh": 0, "seen": 1}
"""A test game's view as a number (a split without views: all 0)."""
SCORED_COLUMNS: Final = [
    "game_id",
    "ply",
    "side",
    "plies_since_battle",
    "legal_count",
    "action_index",
]
"""The only observation columns the scorer reads (from a shard of observations schema 3 or
before, without the last two: ``action`` and ``legal_actions`` in their place,
:func:`scored_rows`)."""
_DERIVED: Final = ("legal_count", "action_index")
"""The scored columns an older shard lacks (observations schema version 4 added them)."""


def band_labels(uppers: Sequence[int], first: int = 1) -> list[str]:
    """The labels of bands with these upper ends: ``1-10``, ..., ``>200``."""
    lows = [first, *(u + 1 for u in uppers)]
    return [f"{lo}-{hi}" for lo, hi in zip(lows, uppers, strict=False)] + [f">{uppers[-1]}"]


@dataclass
class BenchScore:
    """A submission's score on a split: ``views`` (per view, the overall metrics and
    intervals), ``rows`` (every view's groups: ``view``, ``by``, ``group`` and the
    metrics), and what was scored (the manifest's and the predictions' SHA-256)."""

    split: str
    card: dict[str, Any]
    manifest_sha256: str
    predictions_sha256: str
    replicates: int
    seed: int
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    task: str = "move"
    """``move``, or ``belief`` (:mod:`strat_tools.benchmark.belief_score`)."""

    def to_json(self) -> dict[str, Any]:
        """The score as JSON: benchmark, split, model, card, ``views.<view>.{games, rows,
        nll, nll_low, nll_high, top1, ..., ece}``, ``by`` (every group), the SHA-256s."""
        return {
            "benchmark": NAME,
            "version": VERSION,
            "task": self.task,
            "split": self.split,
            "model": self.card["model"],
            "card": self.card,
            "manifest_sha256": self.manifest_sha256,
            "predictions_sha256": self.predictions_sha256,
            "bootstrap": {"replicates": self.replicates, "seed": self.seed, "over": "games"},
            "views": self.views,
            "by": self.rows,
        }


def _submission(predictions: str | os.PathLike[str] | Submission) -> Submission:
    """The submission, decoded on one thread (pyarrow's threads saved no CPU: docs/
    benchmark.md, *Speed*) unless it was read already."""
    if isinstance(predictions, Submission):
        return predictions
    return read_submission(predictions, threads=False)


def _shard_rows(handle: Any, split: str) -> pa.Table:
    """One shard's :data:`SCORED_COLUMNS` (``game_id`` as a dictionary); a shard written
    before ``legal_count`` and ``action_index`` were (observations schema 3) has them
    worked out from its ``action`` and ``legal_actions`` (the export's own definition,
    :func:`~strat_tools.exports.observation_rows.action_indices`): the same values, a
    tenth of a second more on the test split."""
    shard = pq.ParquetFile(handle, read_dictionary=["game_id"])
    if set(_DERIVED) <= set(shard.schema_arrow.names):
        return shard.read(columns=SCORED_COLUMNS)
    scalar = SCORED_COLUMNS[: -len(_DERIVED)]
    table = shard.read(columns=[*scalar, "action", "legal_actions"])
    action = table.column("action").to_numpy()
    counts, played, start = [np.zeros(0, np.int16)], [np.zeros(0, np.int16)], 0
    for lists in table.column("legal_actions").chunks:  # a row group at a time, in the cache
        offsets = lists.offsets.to_numpy()
        found = action_indices(offsets, lists.flatten().to_numpy(), action[start:][: len(lists)])
        if found is None:
            raise InputError(
                f"split {split!r} has rows whose move played is not once among its legal moves"
            )
        counts.append(np.diff(offsets).astype(np.int16))
        played.append(found.astype(np.int16))
        start += len(lists)
    derived = [pa.array(np.concatenate(counts)), pa.array(np.concatenate(played))]
    return (
        table.select(scalar)
        .append_column("legal_count", derived[0])
        .append_column("action_index", derived[1])
    )


def scored_rows(export: ObservationExport, split: str) -> pa.Table:
    """The :data:`SCORED_COLUMNS` of a split's rows, a shard at a time through the very file
    checked (``game_id`` as a dictionary, never one string a row), whichever schema version
    wrote each shard (:func:`_shard_rows`)."""
    parts = [export.folder.read(name, lambda h: _shard_rows(h, split)) for name in export.shards]
    if not parts:
        raise InputError(f"{export.directory} holds no observation rows")
    return pa.concat_tables(parts)


def _truth(
    export: ObservationExport, split: str, games: pa.Array
) -> tuple[pa.Table, npt.NDArray[Any]]:
    """The split's rows and each one's game index in ``games`` (the manifest's)."""
    table = scored_rows(export, split)
    codes = game_codes(table.column("game_id"), games)
    if (codes < 0).any():
        first = table.column("game_id")[int(np.flatnonzero(codes < 0)[0])]
        raise InputError(f"split {split!r} has rows of game {first} the manifest does not list")
    return table, codes


def _played(table: pa.Table, split: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The legal lists' offsets (from ``legal_count``) and each row's played move's index
    among its legal moves (the label ``action_index``), both checked: a row has a legal
    move, and its played one is one of them."""
    counts = table.column("legal_count").to_numpy().astype(np.int64)
    played = table.column("action_index").to_numpy().astype(np.int64)
    if not ((played >= 0) & (played < counts)).all():
        raise InputError(f"split {split!r} has rows whose move played is not among its legal moves")
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets, played


def _endings(table: pa.Table, games: pa.Array) -> npt.NDArray[np.int64]:
    """Each game's ending as an index into :data:`ENDING_ORDER` (``unknown`` where the
    split's games table ``table`` has none)."""
    out = np.full(len(games), ENDING_ORDER.index("unknown"), dtype=np.int64)
    if "ending" not in table.column_names:
        return out
    at = pc.index_in(table.column("game_id"), value_set=games).to_numpy(zero_copy_only=False)
    kinds = pc.index_in(table.column("ending"), value_set=pa.array(ENDING_ORDER))
    kind = kinds.fill_null(ENDING_ORDER.index("unknown")).to_numpy(zero_copy_only=False)
    known = ~np.isnan(at.astype(np.float64))
    out[at[known].astype(np.int64)] = kind[known]
    return out


def _games_present(
    codes: npt.NDArray[np.int64], games: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``numpy.unique(codes, return_inverse=True)`` of game indices below ``games``: the
    games with rows, ascending, and each row's game among them (counted, not sorted)."""
    present = np.flatnonzero(np.bincount(codes, minlength=games))
    rank = np.zeros(games, np.int64)
    rank[present] = np.arange(len(present))
    return present, rank[codes]


def band_indices(values: npt.NDArray[Any], uppers: Sequence[int]) -> npt.NDArray[np.int64]:
    """Each value's band, an index into :func:`band_labels` of ``uppers``
    (``numpy.searchsorted(uppers, values)``: the upper ends below it counted, a pass each,
    ten times faster over a million rows; counted in bytes, then widened once: a third of
    the time of counting in int64).

    >>> band_indices(np.array([1, 10, 11, 51, 500]), PLY_BANDS).tolist()
    [0, 0, 1, 2, 3]
    """
    out = np.zeros(len(values), np.int8)  # (fewer than 128 bands)
    for upper in uppers:
        out += values > upper
    return out.astype(np.int64)


def _groupings(
    table: pa.Table,
    ply: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    endings: npt.NDArray[np.int64],
) -> list[tuple[str, npt.NDArray[np.int64], list[str]]]:
    """Each breakdown: its name, each row's group and the groups' labels (``ply``: the
    rows' plies, read from ``table`` once)."""
    blue = pc.equal(table.column("side"), "blue")  # (a dictionary: each chunk's two words)
    since = table.column("plies_since_battle").to_numpy()
    return [
        ("all", np.zeros(len(ply), np.int64), ["all"]),
        ("ply", band_indices(ply, PLY_BANDS), band_labels(PLY_BANDS)),
        ("side", blue.to_numpy().astype(np.int64), ["red", "blue"]),
        ("legal_moves", band_indices(counts, LEGAL_BANDS), band_labels(LEGAL_BANDS)),
        ("plies_since_battle", band_indices(since, BATTLE_BANDS), band_labels(BATTLE_BANDS, 0)),
        ("ending", endings, list(ENDING_ORDER)),
    ]


def score(
    bench: str | os.PathLike[str] | BenchFolder,
    predictions: str | os.PathLike[str] | Submission,
    split: str = "test",
    *,
    replicates: int = REPLICATES,
    seed: int = SEED,
) -> BenchScore:
    """Score the submission ``predictions`` (a folder: :mod:`~strat_tools.benchmark.
    submission_files`) on ``split`` of the benchmark folder ``bench``.

    >>> result = score("bench-v1", "pred", "test")  # doctest: +SKIP
    >>> result.views["fresh"]["nll"], result.to_json()["predictions_sha256"]  # doctest: +SKIP
    (2.59..., '...')
    """
    with (
        ThreadPoolExecutor(1, thread_name_prefix="submission") as beside,
        ThreadPoolExecutor(WORKERS, thread_name_prefix="score") as workers,
    ):
        # the submission read (its file hashed, its lists decoded: pyarrow and hashlib, off
        # the interpreter's lock) beside the manifest's and the split's checks (Python,
        # mostly) and the split's own arithmetic; its refusal, if any, raised after the
        # split's. (Dropped once when the split's rows held the legal lists: two readers
        # faulting pages at once cost a tenth more CPU. Its rows are now a few scalar
        # columns: the same CPU, less wall time.)
        reading = beside.submit(_submission, predictions)
        try:
            folder = bench if isinstance(bench, BenchFolder) else open_bench(bench)
            listed = folder.games(split)
            games = pa.array(listed.game_ids.tolist(), pa.string())
            export, games_table = open_split(folder, split)
            table, codes = _truth(export, split, games)
            offsets, played = _played(table, split)
            present, game_of_row = _games_present(codes, len(games))
            views = {"all": np.ones(len(present), bool)}
            if listed.has_views:
                for view in ("fresh", "seen"):
                    views[view] = listed.views[present] == view
            # each view's bootstrap draws (the random stream) on the workers, first
            drawing = {
                view: workers.submit(bootstrap_draws, int(keep.sum()), replicates, seed)
                for view, keep in views.items()
            }
            counts = np.diff(offsets)
            ply = table.column("ply").to_numpy().astype(np.int64)
            ending_of_game = _endings(games_table, games)[present]
            # the breakdowns' bands on the workers too: this thread is the longer one here
            grouping = workers.submit(_groupings, table, ply, counts, ending_of_game[game_of_row])
        except BaseException:
            reading.cancel()
            raise
        sub = reading.result()
        # the submission's rows lined up and checked on this thread, the blocks of rows and
        # the sums on the workers (NumPy's passes leave the interpreter's lock)
        values = aligned_log_probs(sub, games, codes, ply, counts, workers=workers)
        metrics = row_metrics(values, offsets, played, workers=workers)
        result = BenchScore(split, sub.card, folder.sha256, sub.sha256, replicates, seed)
        games_of = (ending_of_game, listed.views[present])
        groupings = grouping.result()
        sums = _sums(metrics, game_of_row, groupings, games_of, workers)
        return _summarised(result, sums, groupings, views, drawing, workers)


@dataclass(frozen=True)
class _Sums:
    """The sums :func:`_summarised` needs: by game (``overall``: one group), every
    breakdown's by game and group side by side (``together``), and the breakdowns'
    calibration per view of the row's game (``[3, 2, groups, BINS]``, fresh 0, seen 1)."""

    overall: dict[str, Floats]
    together: dict[str, Floats]
    calibration: Floats


def _sums(
    metrics: RowMetrics,
    game_of_row: npt.NDArray[np.int64],
    groupings: list[tuple[str, npt.NDArray[np.int64], list[str]]],
    games_of: tuple[npt.NDArray[np.int64], npt.NDArray[Any]],
    workers: Executor,
) -> _Sums:
    """Each breakdown's sums by game and its calibration sums, a pass over the rows each,
    on ``workers`` (``games_of``: each game's ending and view)."""
    ending_of_game, view_of_game = games_of
    (_, whole, _), *breakdowns = groupings
    metrics.confidence_bin  # noqa: B018 (worked out once here, not by two threads at once)
    whole_sums = workers.submit(game_sums, metrics, game_of_row, whole, 1)
    by_game = {
        name: workers.submit(game_sums, metrics, game_of_row, g, len(n), bins=False)
        for name, g, n in breakdowns
        if name != "ending"
    }
    # the breakdowns' calibration per view of the row's game (fresh 0, seen 1; 0 without)
    view_of_row = (view_of_game == "seen").astype(np.int64)[game_of_row]
    calibrating = [
        workers.submit(calibration_sums, metrics, view_of_row * len(n) + g, 2 * len(n))
        for _, g, n in breakdowns
    ]
    overall = whole_sums.result()
    parts = [
        # a game's ending is the same in each of its rows: its sums are the game's own
        spread_by_game(overall, ending_of_game, len(n))
        if name == "ending"
        else by_game[name].result()
        for name, _, n in breakdowns
    ]
    # every breakdown's groups side by side: one product with the draws for all of them
    together = {name: np.hstack([part[name] for part in parts]) for name in parts[0]}
    calibration = np.concatenate(
        [
            found.result().reshape(3, 2, len(n), BINS)
            for found, (_, _, n) in zip(calibrating, breakdowns, strict=True)
        ],
        axis=2,
    )
    return _Sums(overall, together, calibration)


def _summarised(
    result: BenchScore,
    sums: _Sums,
    groupings: list[tuple[str, npt.NDArray[np.int64], list[str]]],
    views: dict[str, npt.NDArray[np.bool_]],
    drawing: dict[str, Future[Floats]],
    workers: Executor,
) -> BenchScore:
    """``result`` with each view's metrics and intervals, whole and by every breakdown:
    the products of the sums by game (``sums``) with the view's bootstrap draws
    (``drawing``), a view at a time on ``workers``."""
    _, *breakdowns = groupings
    labels = [label for _, _, names in breakdowns for label in names]
    by = [name for name, _, names in breakdowns for _ in names]

    def view_rows(view: str, keep: npt.NDArray[np.bool_]) -> list[dict[str, Any]]:
        """The view's rows: its whole (first) and every breakdown's groups with rows."""
        draws = drawing[view].result()
        [found] = summarise({k: v[keep] for k, v in sums.overall.items()}, ["all"], draws)
        mine = {name: values[keep] for name, values in sums.together.items()}
        calibration = sums.calibration
        which = calibration.sum(axis=1) if view == "all" else calibration[:, VIEW_CODE[view]]
        rows = summarise(mine, labels, draws, ece_interval=False, ece=calibration_error(which))
        return [{"view": view, "by": "all", **found}] + [
            {"view": view, "by": name, **row}
            for name, row in zip(by, rows, strict=True)
            if row["rows"]
        ]

    summaries = {view: workers.submit(view_rows, view, keep) for view, keep in views.items()}
    for view, summary in summaries.items():
        rows = summary.result()
        result.views[view] = {k: v for k, v in rows[0].items() if k not in ("view", "by", "group")}
        result.rows.extend(rows)
    return result
