"""Traffic maps: per square of the board, what the moves did there (counted, not drawn).

:func:`square_traffic` counts, per square (100 ints, the Gravon field index), the squares a
moving piece entered (``path``: a scout's squares passed over and its end square), the end
squares (``target``) or the squares of battles (``battle``); :class:`Traffic` adds the
number of moves and games, and adds up across batches, so :func:`traffic_of_paths` counts a
map of any size batch by batch in the workers. :func:`strat_tools.views.board_plots.traffic_figure`
draws one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np
import pandas as pd

from strat_tools.core.board import parse_square
from strat_tools.core.choices import TRAFFIC_MEASURES, TRAFFIC_VIEWS
from strat_tools.core.errors import choice
from strat_tools.io.sources import Paths
from strat_tools.run.batch_work import Select
from strat_tools.run.driver import reduce_batches
from strat_tools.run.options import RunArg
from strat_tools.stats.frames import TableSet, move_frame

TrafficMeasure = Literal["path", "target", "battle"]
TrafficView = Literal["board", "owner"]
Variants = str | Sequence[str] | None


def square_traffic(
    moves: pd.DataFrame,
    *,
    piece: str | None = "scout",
    measure: TrafficMeasure = "path",
    view: TrafficView = "board",
) -> np.ndarray:
    """Count per square (100 ints) of what the ``moves`` table says happened there.

    ``measure='path'``: every square a moving piece entered (a scout's squares passed over
    and its end square); ``'target'``: end squares only; ``'battle'``: squares where an
    attack took place (moves with an ``outcome``). ``piece=None`` counts every mover.
    ``view='owner'`` turns blue's moves 180 degrees, so both sides move "up the board".
    """
    choice("traffic measure", measure, TRAFFIC_MEASURES)
    choice("traffic view", view, TRAFFIC_VIEWS)
    frame = moves
    if piece is not None:
        frame = frame[frame["piece"] == piece]
    if measure == "battle":
        frame = frame[frame["outcome"].notna()]
    source, target = _square_index(frame["from_square"]), _square_index(frame["to_square"])
    known = (source >= 0) & (target >= 0)
    source, target = source[known], target[known]
    if view == "owner":
        blue = (frame["side"] == "blue").to_numpy(dtype=bool)[known]
        source = np.where(blue, 99 - source, source)
        target = np.where(blue, 99 - target, target)
    if measure != "path":
        return np.bincount(target, minlength=100)[:100]
    return np.bincount(_path_squares(source, target), minlength=100)[:100]


def _square_index(names: pd.Series) -> np.ndarray:
    """Square names ('A1'..'K10') as ints 0..99, -1 for null or bad names, vectorised.

    The tables store squares as a categorical over a fixed dictionary, so this maps the few
    categories and indexes by code, never parsing a name per row.
    """
    if isinstance(names.dtype, pd.CategoricalDtype):
        categories = np.array([_parse_or_minus(str(c)) for c in names.cat.categories] + [-1])
        return np.asarray(categories[names.cat.codes.to_numpy()], dtype=np.int64)
    lookup = {name: _parse_or_minus(str(name)) for name in names.dropna().unique()}
    return np.asarray(names.map(lookup).fillna(-1).to_numpy(dtype=np.int64))


def _parse_or_minus(name: str) -> int:
    """``parse_square`` that returns -1 instead of raising."""
    try:
        return parse_square(name)
    except ValueError:
        return -1


def _path_squares(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Every square entered by straight moves source→target (excluding each source)."""
    row0, col0 = np.divmod(source, 10)
    row1, col1 = np.divmod(target, 10)
    step_row, step_col = np.sign(row1 - row0), np.sign(col1 - col0)
    length = np.maximum(np.abs(row1 - row0), np.abs(col1 - col0))
    straight = (row0 == row1) | (col0 == col1)
    step_row, step_col, length = step_row[straight], step_col[straight], length[straight]
    row0, col0 = row0[straight], col0[straight]
    repeats = np.repeat(np.arange(len(length)), length)
    # k = 1..length for each move, built without a Python loop per move
    starts = np.cumsum(length) - length
    k = np.arange(int(length.sum())) - np.repeat(starts, length) + 1
    rows = row0[repeats] + k * step_row[repeats]
    cols = col0[repeats] + k * step_col[repeats]
    return np.asarray(rows * 10 + cols, dtype=np.int64)


@dataclass(frozen=True)
class Traffic:
    """What a traffic map counts: per square (100 ints), and how many moves and games.

    Counts of separate batches of games add up (``a + b``), so a map of any number of games
    can be counted batch by batch (:func:`traffic_of_paths`)."""

    counts: np.ndarray
    moves: int
    games: int

    def __add__(self, other: Traffic) -> Traffic:
        return Traffic(
            self.counts + other.counts, self.moves + other.moves, self.games + other.games
        )


def traffic_counts(
    moves: pd.DataFrame,
    *,
    piece: str | None = "scout",
    measure: TrafficMeasure = "path",
    view: TrafficView = "board",
) -> Traffic:
    """:func:`square_traffic` plus the number of moves (or attacks) and games it counts."""
    counts = square_traffic(moves, piece=piece, measure=measure, view=view)
    frame = moves if piece is None else moves[moves["piece"] == piece]
    if measure == "battle":
        frame = frame[frame["outcome"].notna()]
    games = frame["game_id"].nunique() if "game_id" in frame else 0
    return Traffic(np.asarray(counts, dtype=np.int64), len(frame), int(games))


def _batch_traffic(
    games: TableSet,
    *,
    variant: Variants,
    side: str | None,
    piece: str | None,
    measure: TrafficMeasure,
    view: TrafficView,
) -> Traffic:
    """One batch's traffic counts (top-level: shipped to the workers)."""
    moves = move_frame(games, variant=variant)
    if side in ("red", "blue"):
        moves = moves[moves["side"] == side]
    return traffic_counts(moves, piece=piece, measure=measure, view=view)


def traffic_of_paths(
    paths: Paths,
    *,
    variant: Variants = None,
    side: str | None = None,
    piece: str | None = "scout",
    measure: TrafficMeasure = "path",
    view: TrafficView = "board",
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
) -> Traffic:
    """:func:`traffic_counts` of the game records under ``paths``, counted batch by batch
    in the workers (each replays its batch and sends back 100 counts): memory does not grow
    with the number of games. Equal to counting the moves of ``read_games(paths)``."""
    total = Traffic(np.zeros(100, dtype=np.int64), 0, 0)
    work = partial(
        _batch_traffic, variant=variant, side=side, piece=piece, measure=measure, view=view
    )
    for part in reduce_batches(work, paths, rules=rules, select=select, run=run):
        total = total + part
    return total
