"""Opening statistics: the most common lines of a game's first plies, and how they score.

A *line* is the first ``k`` moves of a game, each written ``FROM-TO`` with Gravon's square
names (columns ``A``..``K`` without ``J``, rows 1..10 from red's back row), separated by
single spaces: ``B4-B5 G7-G6`` is red's first move and blue's answer. A game with fewer
than ``k`` moves has no line of ``k`` plies (it counts in the shorter lines only).

Counted per batch and summed (:func:`opening_counts`, :func:`add_opening_counts`), so a run
over any number of games holds one row per line and setup, never the moves; finished once
(:func:`finish_openings`): per line its ``games``, ``red_wins``, ``blue_wins``, ``draws``
and the win rate of one ``side`` (red unless told: red moves first, so the lines are red's
openings) among the decided games, with the plain Wilson interval and the interval
clustered by that side's setup (its mirror fingerprint, as every setup statistic of the
project clusters: :mod:`strat_tools.stats.intervals`), because one player may open the
same way with the same setup a hundred times.

- :func:`openings`: a GameSet (with its moves) to an :class:`Openings`;
- :func:`openings_of_paths`: the same over game records or exported folders, streamed.

Only valid games of one variant count (classic unless told), as in every statistic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, Literal

import numpy as np
import pandas as pd

from strat_tools.core.errors import OptionError
from strat_tools.core.records import DEFAULT_VARIANT
from strat_tools.run.options import RunArg
from strat_tools.setups.identity import setup_array
from strat_tools.setups.patterns import Pattern, SetupPattern
from strat_tools.stats.frames import TableSet, game_frame
from strat_tools.stats.intervals import win_rates_of_clusters

Side = Literal["red", "blue"]
SIDES: Final = ("red", "blue")
MAX_DEPTH: Final = 20
"""The deepest line counted: past a few plies every line is nearly unique."""

COUNT_COLUMNS: Final = ("games", "red_wins", "blue_wins", "draws")
"""Counts of a line that add up across batches."""
KEY_COLUMNS: Final = ("line", "plies", "cluster")
"""Keys of :func:`opening_counts` (``cluster``: the side's setup mirror fingerprint)."""
LINE_COLUMNS: Final = (
    "line",
    "plies",
    *COUNT_COLUMNS,
    "share",
    "side",
    "win_rate",
    "ci_low",
    "ci_high",
    "cluster_ci_low",
    "cluster_ci_high",
    "distinct_setups",
)
"""Columns of :attr:`Openings.table` and :attr:`Openings.lines` (``share``: of the games
with a line of that length; ``distinct_setups``: the side's distinct setups, mirror images
as one, among the decided games)."""


def check_options(depth: int, side: str, variant: Any) -> str:
    """Check the options once (an :class:`~strat_tools.core.errors.OptionError` names the bad
    one); returns the one variant counted."""
    if not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise OptionError(f"depth must be a whole number of plies from 1 to {MAX_DEPTH}")
    if side not in SIDES:
        raise OptionError(f"side must be red or blue, not {side!r}")
    names = [variant] if isinstance(variant, str) else list(variant or [])
    if len(names) != 1:
        # Armies and so openings differ: never pooled silently.
        raise OptionError("openings are counted within one variant: name one")
    return str(names[0])


def _side_matches(data: TableSet, pattern: SetupPattern, mirror: bool, side: str) -> set[str]:
    """The games whose ``side`` setup matches ``pattern`` (or its mirror, with ``mirror``)."""
    found = setup_array(data.setups)
    hit = pattern.match(found.codes, mirror=mirror) & (np.asarray(found.side) == side)
    return set(np.asarray(found.game_id)[hit].astype(str))


def opening_counts(
    data: TableSet,
    *,
    depth: int = 2,
    side: Side = "red",
    variant: str = DEFAULT_VARIANT,
    pattern: SetupPattern | None = None,
    mirror: bool = False,
) -> pd.DataFrame:
    """One batch's lines of 1..``depth`` plies: :data:`KEY_COLUMNS` and
    :data:`COUNT_COLUMNS`, one row per line and cluster. With ``pattern``, only the games
    whose ``side`` setup matches it count (a game filter's pattern asks either side)."""
    check_options(depth, side, variant)
    games = game_frame(data, variant=variant)
    if pattern is not None:
        games = games.loc[games["game_id"].isin(_side_matches(data, pattern, mirror, side))]
    moves = data.moves
    moves = moves.loc[(moves["ply"] <= depth) & moves["game_id"].isin(games["game_id"])]
    moves = moves.loc[moves["from_square"].notna() & moves["to_square"].notna()]
    text = moves["from_square"].astype(str) + "-" + moves["to_square"].astype(str)
    wide = pd.DataFrame({"game_id": moves["game_id"], "ply": moves["ply"], "move": text})
    wide = wide.pivot(index="game_id", columns="ply", values="move")
    context = games.set_index("game_id").reindex(wide.index)
    winner = context["winner"].astype("string")
    draw = context["draw"].astype("boolean").fillna(False).to_numpy(dtype=bool)
    results = {
        "games": np.ones(len(wide), dtype=np.int64),
        "red_wins": (winner == "red").fillna(False).to_numpy(dtype=np.int64),
        "blue_wins": (winner == "blue").fillna(False).to_numpy(dtype=np.int64),
        "draws": draw.astype(np.int64),
    }
    cluster = context[f"{side}_mirror_fingerprint"].astype(object).to_numpy()
    parts = []
    line = pd.Series("", index=wide.index, dtype=object)
    for plies in range(1, depth + 1):
        if plies not in wide.columns:
            break
        step = wide[plies]
        line = line.str.cat(step, sep=" ") if plies > 1 else step.astype(object)
        present = step.notna().to_numpy() & line.notna().to_numpy()
        part = pd.DataFrame(
            {"line": line.to_numpy()[present], "plies": plies, "cluster": cluster[present]}
            | {name: values[present] for name, values in results.items()}
        )
        parts.append(part)
    return add_opening_counts(parts)


def add_opening_counts(parts: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Counts of several batches as one (summed per line and cluster)."""
    frames = [p for p in parts if len(p)]
    if not frames:
        empty = {name: pd.Series(dtype=object) for name in ("line", "cluster")}
        frame = pd.DataFrame(empty | {"plies": pd.Series(dtype=np.int64)})
        frame = frame.assign(**{name: pd.Series(dtype=np.int64) for name in COUNT_COLUMNS})
        return frame[[*KEY_COLUMNS, *COUNT_COLUMNS]]
    both = pd.concat(frames, ignore_index=True)
    summed = both.groupby(list(KEY_COLUMNS), sort=True, dropna=False)[list(COUNT_COLUMNS)].sum()
    return summed.reset_index()


def finish_openings(counts: pd.DataFrame, side: Side = "red") -> pd.DataFrame:
    """Per line: :data:`LINE_COLUMNS`, most played first (ties by line), shallow lines
    before deeper ones."""
    per_line = counts.groupby(["line", "plies"], sort=True)[list(COUNT_COLUMNS)].sum()
    per_line = per_line.reset_index()
    wins = counts[f"{side}_wins"]
    decided = counts.assign(setups=counts["red_wins"] + counts["blue_wins"], wins=wins)
    decided = decided.loc[decided["setups"] > 0]
    per = decided.groupby(["line", "cluster"], sort=True, dropna=False)[["setups", "wins"]]
    rates = win_rates_of_clusters(per.sum().reset_index(), ["line"])
    rates = rates.drop(columns=["setups", "wins"])
    table = per_line.merge(rates, on="line", how="left")
    table["distinct_setups"] = table["distinct_setups"].fillna(0).astype("int64")
    at_depth = table.groupby("plies")["games"].transform("sum")
    table["share"] = table["games"] / at_depth
    table["side"] = side
    table = table.sort_values(
        ["plies", "games", "line"], ascending=[True, False, True], kind="stable"
    )
    return table[list(LINE_COLUMNS)].reset_index(drop=True)


@dataclass(frozen=True)
class Openings:
    """What :func:`openings` found: ``table`` holds every line of 1..``depth`` plies
    (:data:`LINE_COLUMNS`), ``lines`` the ``top`` most played lines of ``depth`` plies."""

    table: pd.DataFrame
    depth: int
    side: Side
    variant: str
    top: int

    @property
    def lines(self) -> pd.DataFrame:
        """The most played lines of ``depth`` plies (every one with ``top=0``)."""
        deepest = self.table.loc[self.table["plies"] == self.depth]
        return (deepest.head(self.top) if self.top else deepest).reset_index(drop=True)

    @property
    def games(self) -> int:
        """Games counted (those with at least one move)."""
        first = self.table.loc[self.table["plies"] == 1, "games"]
        return int(first.sum())

    def tree(self) -> dict[str, Any]:
        """The :attr:`lines` as a tree: every node a move (``move``, ``line``, the counts and
        rates, ``children`` most played first); the root holds every counted game. A node's
        counts are of all its games, not only of the lines listed below it."""
        by_line = self.table.set_index("line")
        wanted: set[str] = set()
        for line in self.lines["line"]:
            moves = str(line).split(" ")
            wanted.update(" ".join(moves[:k]) for k in range(1, len(moves) + 1))
        root: dict[str, Any] = {"move": None, "line": "", "plies": 0}
        first = self.table.loc[self.table["plies"] == 1]
        root |= {name: int(first[name].sum()) for name in COUNT_COLUMNS}
        root |= {"side": self.side, "variant": self.variant, "children": []}
        nodes: dict[str, dict[str, Any]] = {"": root}
        for line in sorted(wanted, key=lambda text: (text.count(" "), text)):
            row = by_line.loc[line]
            node: dict[str, Any] = {"move": line.rsplit(" ", 1)[-1], "line": line}
            node |= {name: _plain(row[name]) for name in LINE_COLUMNS if name != "line"}
            node["children"] = []
            nodes[line] = node
            parent = line.rsplit(" ", 1)[0] if " " in line else ""
            nodes[parent]["children"].append(node)
        for node in nodes.values():
            node["children"].sort(key=lambda child: (-child["games"], child["line"]))
        return root


def _plain(value: Any) -> Any:
    """A JSON-ready value: numpy scalars as Python ones, NaN as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def openings(
    data: TableSet,
    *,
    depth: int = 2,
    side: Side = "red",
    variant: str = DEFAULT_VARIANT,
    pattern: SetupPattern | str | None = None,
    mirror: bool = False,
    top: int = 20,
) -> Openings:
    """The most common lines of ``depth`` plies of the games in ``data`` (a GameSet read
    with its moves), with ``side``'s win rate and both intervals; with ``pattern``, only
    games whose ``side`` setup matches it (or its mirror image, with ``mirror``).

    >>> from strat_tools.run.driver import read_games
    >>> found = openings(read_games("data/", run=1), depth=1, top=3)
    >>> found.lines[["line", "games", "red_wins", "blue_wins", "draws"]]
        line  games  red_wins  blue_wins  draws
    0  B4-B6     30        14         16      0
    1  F4-F6     28        11         13      4
    2  K4-K5     28         7         20      1
    """
    name = check_options(depth, side, variant)
    if top < 0:
        raise OptionError("top must be 0 (every line) or more")
    if isinstance(pattern, str):
        pattern = Pattern.parse(pattern)
    counts = opening_counts(
        data, depth=depth, side=side, variant=name, pattern=pattern, mirror=mirror
    )
    return Openings(finish_openings(counts, side), depth, side, name, top)


def openings_of_paths(
    paths: Sequence[str],
    *,
    depth: int = 2,
    side: Side = "red",
    variant: str = DEFAULT_VARIANT,
    pattern: SetupPattern | str | None = None,
    mirror: bool = False,
    top: int = 20,
    select: Any = None,
    rules: str | None = "auto",
    run: RunArg = None,
) -> Openings:
    """:func:`openings` of the game records (or exported folders) under ``paths``, counted
    batch by batch where they are read (``select``: the driver's per-game hook, e.g.
    a :class:`~strat_tools.run.filters.GameFilter`, the driver's select step): memory stays flat.

    Equal to ``openings(read_games(paths, select=select), ...)``.
    """
    from strat_tools.run.driver import reduce_batches

    name = check_options(depth, side, variant)
    if top < 0:
        raise OptionError("top must be 0 (every line) or more")
    if isinstance(pattern, str):
        pattern = Pattern.parse(pattern)
    count = partial(
        opening_counts, depth=depth, side=side, variant=name, pattern=pattern, mirror=mirror
    )
    held: list[pd.DataFrame] = []
    for part in reduce_batches(
        count,
        list(paths),
        rules=rules,
        select=select,
        run=run,
    ):
        held.append(part)
        if len(held) >= 8:
            held = [add_opening_counts(held)]
    return Openings(finish_openings(add_opening_counts(held), side), depth, side, name, top)
