"""The benchmark's metrics over scored rows, with 95% intervals from a bootstrap over games.

Per row (a position and the move played), from the submission's log-probabilities over
the row's legal moves (:func:`row_metrics`):

- ``nll``: minus the log-probability of the played move (nats); the mean is the primary
  metric, ``perplexity`` is ``exp`` of the mean;
- ``top1``: 1 when the played move has the highest probability, ties split (a tie of
  ``t`` moves at the top gives ``1/t``); ``top3`` likewise, the moves ranked by
  probability: ``clip((3 - above) / tied, 0, 1)`` with ``above`` the moves of higher
  probability and ``tied`` those of equal probability, the played one included;
- ``ece``: the expected calibration error of the top choice over 15 equal bins of its
  probability, ``sum over bins (rows in bin / rows) * |mean top1 - mean probability|``.

Intervals (:func:`summarise`): a view's games are drawn with replacement, as many as it
has, :data:`REPLICATES` times from :data:`SEED` (the same draws for every metric and group
of a view: one count matrix, ``[replicates, games]``, multiplied into per-game sums,
:func:`game_sums`), and the 2.5th and 97.5th percentiles of each metric over the draws are
its interval. Whole games are drawn because a game's plies are not independent.

>>> import numpy as np
>>> values = np.log(np.array([0.5, 0.25, 0.25, 0.5, 0.5]))
>>> m = row_metrics(values, np.array([0, 3, 5]), np.array([1, 1]))
>>> m.nll.round(3).tolist(), m.top1.tolist(), m.top3.tolist(), m.confidence.tolist()
([1.386, 0.693], [0.0, 0.5], [1.0, 1.0], [0.5, 0.5])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

import numpy as np
import numpy.typing as npt

__all__ = [
    "BINS",
    "BLOCK_ROWS",
    "METRICS",
    "REPLICATES",
    "SEED",
    "RowMetrics",
    "block_spans",
    "bootstrap_draws",
    "calibration_error",
    "calibration_sums",
    "draw_percentile",
    "game_sums",
    "row_metrics",
    "spread_by_game",
    "summarise",
]

BLOCK_ROWS: Final = 32_768
"""Rows worked at a time (about 750,000 values, 3 MB of float32: within the cache)."""
BINS: Final = 15
"""Bins of the expected calibration error."""
REPLICATES: Final = 1000
"""Bootstrap draws of games."""
SEED: Final = 20141001
"""The bootstrap's seed (the first day of the test months)."""
METRICS: Final = ("nll", "top1", "top3", "perplexity", "ece")

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RowMetrics:
    """Per row: the played move's NLL, top-1 and top-3 credit (ties split), and the top
    choice's probability (``confidence``)."""

    nll: Floats
    top1: Floats
    top3: Floats
    confidence: Floats

    @cached_property
    def confidence_bin(self) -> npt.NDArray[np.int64]:
        """Each row's calibration bin (``0 .. BINS-1``) of its top choice's probability:
        worked out once for every breakdown."""
        return np.minimum((self.confidence * BINS).astype(np.int64), BINS - 1)


def row_metrics(
    values: npt.NDArray[np.floating[Any]],
    offsets: npt.NDArray[np.int64],
    played: npt.NDArray[np.int64],
    *,
    workers: Executor | None = None,
) -> RowMetrics:
    """The per-row metrics of flat log-probabilities ``values`` (row ``i`` is
    ``values[offsets[i]:offsets[i + 1]]``, every row non-empty) and each row's played
    move's index within its row. Worked :data:`BLOCK_ROWS` rows at a time, so that each
    pass over a block's values finds them in the cache (a third faster than whole); the
    blocks on ``workers`` where given (NumPy's passes leave the interpreter's lock: the
    same numbers, in the same order, on two cores)."""

    def block(span: tuple[int, int]) -> tuple[Floats, Floats, Floats, Floats]:
        a, b = span
        return _block_metrics(
            values[offsets[a] : offsets[b]], offsets[a : b + 1] - offsets[a], played[a:b]
        )

    spans = block_spans(len(offsets) - 1)
    parts = list(workers.map(block, spans) if workers is not None else map(block, spans))
    if not parts:
        empty = np.zeros(0)
        return RowMetrics(empty, empty, empty, empty)
    return RowMetrics(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def block_spans(rows: int) -> list[tuple[int, int]]:
    """The spans of :data:`BLOCK_ROWS` rows (the last one shorter) that cover ``rows``."""
    return [(a, min(a + BLOCK_ROWS, rows)) for a in range(0, rows, BLOCK_ROWS)]


def _block_metrics(
    values: npt.NDArray[np.floating[Any]],
    offsets: npt.NDArray[np.int64],
    played: npt.NDArray[np.int64],
) -> tuple[Floats, Floats, Floats, Floats]:
    counts = np.diff(offsets)
    starts = offsets[:-1]
    mine = values[starts + played]
    against = np.repeat(mine, counts)
    above = _counted(values > against, offsets)
    tied = _counted(values == against, offsets)
    top = np.maximum.reduceat(values, starts)
    return (
        -mine.astype(np.float64),
        np.clip((1 - above) / tied, 0, 1),
        np.clip((3 - above) / tied, 0, 1),
        np.exp(top.astype(np.float64)),
    )


def _counted(flags: npt.NDArray[np.bool_], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
    """Each row's count of set ``flags`` (row ``i``: ``flags[offsets[i]:offsets[i + 1]]``),
    from one running sum: ``numpy.add.reduceat``'s numbers in a third of its time."""
    running = np.empty(len(flags) + 1, np.int32)  # (not zeros: a fresh page each block)
    running[0] = 0
    np.cumsum(flags, dtype=np.int32, out=running[1:])
    counted: npt.NDArray[np.int32] = running[offsets[1:]] - running[offsets[:-1]]
    return counted


def game_sums(
    metrics: RowMetrics,
    games: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64],
    size: int,
    *,
    bins: bool = True,
) -> dict[str, Floats]:
    """Per (game, group): rows and the sums of each metric, ``[games, groups]``; and per
    (game, group, bin) the rows, probabilities and top-1 credit, ``[games, groups * BINS]``.
    ``games`` numbers each row's game ``0 .. G-1``; ``groups`` each row's group ``0 ..
    size-1``. A view (a subset of the games) takes the rows of these arrays. ``bins=False``
    leaves the bins out (their ECE then comes from :func:`calibration_sums`)."""
    n_games = int(games.max()) + 1 if len(games) else 0
    cell = games if size == 1 else games * size + groups  # (one group: every row's is 0)
    cells = n_games * size

    def total(weights: Floats | None, where: npt.NDArray[np.int64], length: int) -> Floats:
        return np.bincount(where, weights=weights, minlength=length).astype(np.float64)

    per_row: list[tuple[str, Floats | None]] = [("rows", None), ("nll", metrics.nll)]
    per_row += [("top1", metrics.top1), ("top3", metrics.top3)]
    out = {name: total(v, cell, cells).reshape(n_games, size) for name, v in per_row}
    if not bins:
        return out
    binned = cell * BINS + metrics.confidence_bin
    per_bin = (("bin_rows", None), ("bin_conf", metrics.confidence), ("bin_acc", metrics.top1))
    for name, values in per_bin:
        out[name] = total(values, binned, cells * BINS).reshape(n_games, size * BINS)
    return out


def spread_by_game(
    sums: dict[str, Floats], group_of_game: npt.NDArray[np.int64], size: int
) -> dict[str, Floats]:
    """:func:`game_sums` (``bins=False``) of a grouping that is the same in all of a game's
    rows (``group_of_game``: each game's group), from the games' own sums (``sums``:
    :func:`game_sums` with one group): each game's sums in its group's column, zeros in
    the others. The very numbers (the same rows summed in the same order), without a pass
    over the rows."""
    games = np.arange(len(group_of_game))
    out = {}
    for name in ("rows", "nll", "top1", "top3"):
        spread = np.zeros((len(group_of_game), size))
        spread[games, group_of_game] = sums[name][:, 0]
        out[name] = spread
    return out


def calibration_sums(metrics: RowMetrics, cells: npt.NDArray[np.int64], size: int) -> Floats:
    """Per cell (``cells``: each row's, ``0 .. size-1``) and bin: rows, summed top-choice
    probability and summed top-1 credit, ``[3, size, BINS]`` (:func:`calibration_error`)."""
    binned = cells * BINS + metrics.confidence_bin
    weights = (None, metrics.confidence, metrics.top1)
    sums = [np.bincount(binned, weights=w, minlength=size * BINS) for w in weights]
    return np.stack(sums).astype(np.float64).reshape(3, size, BINS)


def calibration_error(sums: Floats) -> Floats:
    """The ECE of each cell of :func:`calibration_sums` (summed over any cells first)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        error: Floats = np.abs(sums[2] - sums[1]).sum(axis=-1) / sums[0].sum(axis=-1)
    return error


def _metric_values(sums: dict[str, Any], size: int) -> dict[str, Floats]:
    """Each metric of summed ``sums`` (the last axis the groups; any leading axes); the
    ECE only where the bins' sums are given."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = sums["rows"]
        nll = sums["nll"] / rows
        out = {
            "nll": nll,
            "top1": sums["top1"] / rows,
            "top3": sums["top3"] / rows,
            "perplexity": np.exp(nll),
        }
        if "bin_rows" in sums:
            shape = (*rows.shape[:-1], size, BINS)
            gap = np.abs(sums["bin_acc"].reshape(shape) - sums["bin_conf"].reshape(shape))
            out["ece"] = gap.sum(axis=-1) / rows
        return out


def bootstrap_draws(games: int, replicates: int = REPLICATES, seed: int = SEED) -> Floats:
    """How often each of ``games`` games is drawn in each bootstrap replicate,
    ``[replicates, games]`` (each row sums to ``games``: ``games`` draws with
    replacement), from ``seed``.

    >>> bootstrap_draws(3, replicates=2, seed=1).sum(axis=1).tolist()
    [3.0, 3.0]
    """
    # int32 draws are the int64 ones (the same 32-bit stream below 2**32 games), in half
    # the memory; each replicate counted into its own row of the result
    rng = np.random.default_rng(seed)
    picked = rng.integers(0, max(games, 1), size=(replicates, games), dtype=np.int32)
    counts = np.empty((replicates, games))
    for row, drawn in zip(counts, picked, strict=True):
        row[:] = np.bincount(drawn, minlength=games)
    return counts


def draw_percentile(values: Floats, q: float | Sequence[float]) -> Floats:
    """The ``q``-th percentile over the draws (axis 0) of ``[draws, groups]``, leaving out
    draws without the group (NaN): ``numpy.nanpercentile``'s numbers, made with one sort
    and one ``numpy.percentile`` per count of draws with the group (nanpercentile works a
    column at a time in Python: many times slower). ``q`` a sequence: one row per
    percentile (both ends of an interval from one sort).

    >>> draw_percentile(np.array([[1.0, np.nan], [3.0, 2.0]]), (0, 100)).tolist()
    [[1.0, 2.0], [3.0, 2.0]]
    """
    missing = np.isnan(values)
    if not missing.any():
        return np.percentile(values, q, axis=0)
    have = values.shape[0] - missing.sum(axis=0)
    ordered = np.sort(values, axis=0)  # NaN last: a column's first ``have`` are its draws
    out = np.full(np.shape(q) + values.shape[1:], np.nan)
    for count in np.unique(have[have > 0]):
        columns = have == count
        out[..., columns] = np.percentile(ordered[:count, columns], q, axis=0)
    return out


def summarise(
    sums: dict[str, Floats],
    labels: Sequence[str],
    draws: Floats,
    *,
    ece_interval: bool = True,
    ece: Floats | None = None,
    ratios: Callable[[dict[str, Any], int], dict[str, Floats]] | None = None,
    names: Sequence[str] = METRICS,
) -> list[dict[str, Any]]:
    """Each group's metrics and 95% intervals (one dict a group, in ``labels``' order):
    ``games`` (with a row in the group), ``rows``, and per metric its value, ``_low`` and
    ``_high``, from the per-game ``sums`` (:func:`game_sums`, the rows of a view's games)
    and ``draws``, the bootstrap's ``[replicates, games]`` counts (:func:`bootstrap_draws`),
    the same for every grouping of the same games. ``ece_interval=False`` leaves the
    ECE's interval out (``None``): its bootstrap multiplies 45 columns a group; ``ece``
    gives each group's ECE where ``sums`` has no bins. Another task's metrics: ``ratios``
    (its metrics of summed ``sums``, as :func:`_metric_values`) and their ``names``."""
    size = len(labels)
    metric_values = ratios or _metric_values
    point = metric_values({k: v.sum(axis=0) for k, v in sums.items()}, size)
    if ece is not None:
        point["ece"] = ece
    drawn = {k: v for k, v in sums.items() if ece_interval or not k.startswith("bin_")}
    if sums["rows"].shape[0]:
        # one product for every sum: the draws are read once, not once a sum
        product = draws @ np.hstack(list(drawn.values()))
        ends = np.cumsum([v.shape[1] for v in drawn.values()])
        pieces = np.split(product, ends[:-1], axis=1)
        spread = metric_values(dict(zip(drawn, pieces, strict=True)), size)
    else:
        spread = {k: np.full((1, size), np.nan) for k in metric_values(drawn, size)}
    ends_of = {k: draw_percentile(v, (2.5, 97.5)) for k, v in spread.items()}
    low = {k: v[0] for k, v in ends_of.items()}
    high = {k: v[1] for k, v in ends_of.items()}
    played = (sums["rows"] > 0).sum(axis=0)
    out = []
    for i, label in enumerate(labels):
        row: dict[str, Any] = {"group": label, "games": int(played[i])}
        row["rows"] = int(sums["rows"][:, i].sum())
        for name in names:
            row[name] = float(point[name][i])
            row[f"{name}_low"] = float(low[name][i]) if name in low else None
            row[f"{name}_high"] = float(high[name][i]) if name in high else None
        out.append(row)
    return out
