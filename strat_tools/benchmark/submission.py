"""A submission lined up with a split's rows and checked, row by row.

:func:`aligned_log_probs` puts a submission's rows (:mod:`strat_tools.benchmark.
submission_files`, which reads it) in the split's order and refuses, naming the first
offending rows (at most :data:`SHOWN`, with their file and row), a row of a game not in the
split or of a ply the game does not have, a repeated row, a missing row, a list of the
wrong length or with a null, a non-finite value, and a row whose probabilities do not sum
to 1 within :data:`TOLERANCE`: :class:`~strat_tools.benchmark.submission_files.
SubmissionError`, a usage error (exit 2).

The belief task's submission (``task="belief"``, ``docs/benchmark.md``) has a fourth key
column, ``square`` (the mover's view, as ``board_view``): one row per unidentified piece,
``log_probs`` over the 12 kinds; :func:`aligned_log_probs` refuses it as above and, where
the caller gives them, rows with mass (a probability above ``NO_MASS``) where none may be.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.benchmark.metrics import block_spans
from strat_tools.benchmark.submission_files import Submission, SubmissionError
from strat_tools.engine.information.beliefs import NO_MASS

__all__ = ["SHOWN", "TOLERANCE", "aligned_log_probs", "game_codes"]

TOLERANCE: Final = 1e-3
"""How far a row's probabilities may sum from 1."""
SHOWN: Final = 5
"""Offending rows named in a refusal, at most."""


def _rows_text(
    what: str,
    total: int,
    game_ids: npt.NDArray[Any],
    plies: npt.NDArray[Any],
    where: list[str],
    squares: npt.NDArray[Any] | None = None,
) -> str:
    """``what`` and the first offending rows (of ``total``): ``game G ply P`` (``square S``
    for a belief; with where each is)."""
    shown = [
        f"game {game_ids[i]!s} ply {int(plies[i])}"
        + (f" square {int(squares[i])}" if squares is not None else "")
        + (f" ({where[i]})" if where else "")
        for i in range(min(total, SHOWN))
    ]
    more = f" and {total - SHOWN:,} more" if total > SHOWN else ""
    return f"{what}: {total:,} row(s): {'; '.join(shown)}{more}"


def _place(sub: Submission, rows: npt.NDArray[np.int64]) -> list[str]:
    return [f"{sub.files[sub.file_of_row[r]]} row {int(sub.row_in_file[r])}" for r in rows[:SHOWN]]


def _refuse_rows(sub: Submission, what: str, rows: npt.NDArray[np.int64]) -> None:
    if len(rows):
        ids = sub.table.column("game_id").to_numpy(zero_copy_only=False)
        plies = sub.table.column("ply").to_numpy()
        first = rows[:SHOWN]
        squares = _squares(sub)
        raise SubmissionError(
            _rows_text(
                what,
                len(rows),
                ids[first],
                plies[first],
                _place(sub, rows),
                None if squares is None else squares[first],
            )
        )


def _squares(sub: Submission) -> npt.NDArray[np.int64] | None:
    """A belief submission's squares (None for a move submission)."""
    if "square" not in sub.table.column_names:
        return None
    return np.asarray(sub.table.column("square").to_numpy(), np.int64)


def game_codes(column: pa.ChunkedArray | pa.Array, games: pa.Array) -> npt.NDArray[np.int64]:
    """Each row's game as its index in ``games`` (-1 for a game not there), from a column
    of game ids read as a dictionary (each chunk's few distinct ids looked up once)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = []
    for chunk in chunks:
        if not pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_encode()
        found = pc.index_in(chunk.dictionary, value_set=games).fill_null(-1)
        index = np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int64)
        out.append(index[chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)])
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _keys(
    codes: npt.NDArray[np.int64],
    plies: npt.NDArray[np.int64],
    squares: npt.NDArray[np.integer[Any]] | None = None,
) -> npt.NDArray[np.int64]:
    """One int64 per (game, ply): the game's index in the high bits, the ply below; per
    (game, ply, square) for a belief: the game, 32 bits of ply, then 7 of square."""
    if squares is None:
        return (codes << 32) | (plies & 0xFFFFFFFF)
    return (codes << 39) | ((plies & 0xFFFFFFFF) << 7) | (squares & 0x7F)


def _key_parts(
    keys: npt.NDArray[np.int64], belief: bool
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64] | None]:
    """:func:`_keys` undone: the game index, the ply and (a belief's) the square."""
    if not belief:
        return keys >> 32, keys & 0xFFFFFFFF, None
    return keys >> 39, (keys >> 7) & 0xFFFFFFFF, keys & 0x7F


def _order(sub: Submission, games: pa.Array, truth: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each of the split's rows (``truth`` keys, games indexed in ``games``) the
    submission's row that predicts it; every row not accounted for refused."""
    codes = game_codes(sub.table.column("game_id"), games)
    plies = sub.table.column("ply").to_numpy()
    _refuse_rows(sub, "rows of games that are not in the split", np.flatnonzero(codes < 0))
    squares = _squares(sub)
    if squares is not None:
        outside = np.flatnonzero((squares < 0) | (squares > 99))
        _refuse_rows(sub, "rows of a square outside 0..99", outside)
    keys = _keys(codes, plies, squares)
    if len(keys) == len(truth) and (keys == truth).all():
        return np.arange(len(keys))  # in the split's order, each row once: nothing to sort
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    known = np.sort(truth)
    near = np.minimum(np.searchsorted(known, ordered), max(len(known) - 1, 0))
    extra = order[known[near] != ordered] if len(known) else order
    what = "plies" if squares is None else "plies or squares (pieces)"
    _refuse_rows(sub, f"rows of {what} the split does not have", np.sort(extra))
    again = order[1:][ordered[1:] == ordered[:-1]]
    _refuse_rows(sub, "repeated rows", np.sort(again))
    at = np.minimum(np.searchsorted(ordered, truth), max(len(ordered) - 1, 0))
    found = ordered[at] == truth if len(ordered) else np.zeros(len(truth), bool)
    if not found.all():
        missing = np.flatnonzero(~found)
        game, ply, square = _key_parts(truth[missing[:SHOWN]], squares is not None)
        raise SubmissionError(
            _rows_text(
                f"the predictions miss rows of the split (of {len(truth):,})",
                len(missing),
                games.to_numpy(zero_copy_only=False)[game],
                ply,
                [],
                square,
            )
        )
    return order[at]


def _probability_sums(
    values: npt.NDArray[np.floating[Any]],
    ends: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    workers: Executor | None = None,
) -> npt.NDArray[np.floating[Any]]:
    """Each row's sum of probabilities (``exp`` of its values; row ``i`` ends at
    ``ends[i]`` after ``counts[i]`` values), a block of rows at a time (the metrics'
    ``block_spans``, on ``workers`` where given): each block's exponentials in the cache,
    never an array as large as the values. Summed in the values' own precision: float32
    errs by ~1e-5 on a row's ~100 terms, far inside the tolerance, and a conversion to
    float64 would cost ten times the sum."""
    starts = ends - counts

    def block(span: tuple[int, int]) -> npt.NDArray[np.floating[Any]]:
        a, b = span
        with np.errstate(over="ignore", invalid="ignore"):
            exponentials = np.exp(values[starts[a] : ends[b - 1]])
        summed: npt.NDArray[np.floating[Any]] = np.add.reduceat(
            exponentials, starts[a:b] - starts[a]
        )
        return summed

    spans = block_spans(len(counts))
    parts = list(workers.map(block, spans) if workers is not None else map(block, spans))
    return np.concatenate([np.zeros(0, values.dtype), *parts])


def aligned_log_probs(
    sub: Submission,
    games: pa.Array,
    codes: npt.NDArray[np.int64],
    plies: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    *,
    squares: npt.NDArray[np.integer[Any]] | None = None,
    forbidden: Sequence[tuple[str, npt.NDArray[np.bool_]]] = (),
    workers: Executor | None = None,
) -> npt.NDArray[np.floating[Any]]:
    """The submission's log-probabilities in the split's row order, flat (row ``i``'s
    ``counts[i]`` values after the rows before it), once every row is checked: the split's
    rows are ``codes`` (each row's game, an index into ``games``), ``plies`` and
    ``counts`` (its number of legal moves; a belief's: 12, and ``squares`` its piece's
    square). ``forbidden``: (what, flat mask aligned with the values) pairs, each refusing
    the rows with a probability above :data:`NO_MASS` where the mask is set;
    ``workers``: the rows' probability sums made on them, a block at a time.
    :class:`SubmissionError` for the first offending rows (see the module's docstring)."""
    rows = _order(sub, games, _keys(codes, plies, squares))
    column = sub.table.column("log_probs")
    lists = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if lists.null_count:
        nulls = np.flatnonzero(lists.is_null().to_numpy(zero_copy_only=False))
        _refuse_rows(sub, "rows with a null log_probs", nulls)
    offsets = lists.offsets.to_numpy().astype(np.int64)
    lengths = np.diff(offsets)
    wrong = np.flatnonzero(lengths[rows] != counts)
    _refuse_rows(
        sub,
        "rows whose log_probs are not as long as their legal moves (the first one: "
        + (f"{lengths[rows[wrong[0]]]} for {counts[wrong[0]]})" if len(wrong) else ")"),
        np.sort(rows[wrong]),
    )
    ends = np.cumsum(counts)
    flat = (
        lists.values.slice(offsets[0], offsets[-1] - offsets[0]) if len(offsets) else lists.values
    )
    offsets = offsets - offsets[0]
    in_order = bool((rows == np.arange(len(rows))).all())
    take = None
    if not in_order:
        take = np.arange(int(ends[-1]) if len(ends) else 0)
        take += np.repeat(offsets[rows] - (ends - counts), counts)
    if flat.null_count:
        holes = flat.is_null().to_numpy(zero_copy_only=False)
        bad = np.unique(
            np.searchsorted(
                ends, np.flatnonzero(holes if take is None else holes[take]), side="right"
            )
        )
        _refuse_rows(sub, "rows with a null value in log_probs", np.sort(rows[bad]))
    raw = flat.to_numpy(zero_copy_only=False)
    values = raw if take is None else raw[take]
    total = _probability_sums(values, ends, counts, workers)
    # a NaN or +inf makes its row's sum so, a -inf the minimum: only then are they looked for
    if not np.isfinite(total).all() or (len(values) and np.isneginf(values.min())):
        strange = np.unique(
            np.searchsorted(ends, np.flatnonzero(~np.isfinite(values)), side="right")
        )
        _refuse_rows(sub, "rows with a non-finite value in log_probs", np.sort(rows[strange]))
    off = np.flatnonzero(np.abs(total - 1) > TOLERANCE)
    _refuse_rows(
        sub,
        f"rows whose probabilities do not sum to 1 within {TOLERANCE:g} (the first one sums "
        + (f"to {total[off[0]]:.6g})" if len(off) else ")"),
        np.sort(rows[off]),
    )
    for what, mask in forbidden:
        heavy = np.flatnonzero(mask & (values > np.log(NO_MASS)))
        bad = np.unique(np.searchsorted(ends, heavy, side="right"))
        _refuse_rows(sub, f"rows with mass (above {NO_MASS:g}) {what}", np.sort(rows[bad]))
    out: npt.NDArray[np.floating[Any]] = values
    return out
