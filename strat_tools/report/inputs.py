"""What the report shows, reduced batch by batch where the games are read, then combined.

:func:`reduce_report` reduces a batch (or a whole GameSet) to a :class:`ReportPart`: the
counts of every statistic the report shows (:func:`report_requests`, from the statistics'
registry), the board maps, the tip, neighbour and placement counts of the advice, the
diagnostics by code and a few columns per game. :class:`ReportCombiner` adds parts up and
finishes them into :class:`ReportInputs`; :func:`report_inputs_of_paths` does both over game
records or an exported dataset, a batch at a time in the workers (through
:func:`strat_tools.run.driver.reduce_batches`), so the report of any number of games needs no
more memory than that of a few. Draws nothing and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, cast

import pandas as pd

from strat_tools.core.records import ALL_VARIANTS
from strat_tools.io.sources import Paths
from strat_tools.run.batch_work import Select
from strat_tools.run.driver import reduce_batches
from strat_tools.run.inputs import Inputs
from strat_tools.run.options import Run, RunArg
from strat_tools.setups.grid import setup_grid
from strat_tools.stats import arrangement, repeats, tip_rates
from strat_tools.stats.frames import JoinedTables, TableSet, move_frame, setup_frame
from strat_tools.stats.registry import STATISTICS
from strat_tools.stats.setups import SETUP_FEATURES, placement_counts
from strat_tools.stats.stream import Combiner, Request, reduce_requests, sum_counts
from strat_tools.stats.tips import features_from_grid, setup_features
from strat_tools.stats.traffic import Traffic, traffic_counts
from strat_tools.stats.value_rows import ValueRows, read_value_rows
from strat_tools.tables.dataset import empty_gameset
from strat_tools.views.setup_area import PIECE_ORDER

ReportData = TableSet
"""What a report reads: a :class:`~strat_tools.tables.dataset.GameSet` or anything alike."""

NO_VALUES_FROM_TABLES: Final = (
    "the piece values need what each side knew at every ply, which only a replay of the "
    "game records gives, and this report was made from tables (a GameSet or an exported "
    "dataset); make it from the records (`strat-tools report PATHS`, or "
    "`st.report.write_report(PATHS, ...)`) for this section"
)
NO_VALUES_FROM_SETUPS: Final = (
    "the piece values need the replay, which a setups-only report leaves out"
)


GAME_COLUMNS: tuple[str, ...] = (
    "source",
    "variant",
    "period",
    "status",
    "rules",
    "has_setup",
    "plies",
    "termination",
    "winner",
    "synthetic",
)
"""The per-game columns the report keeps (a few dozen bytes a game)."""


WON_PIECES: Final = ("flag", "bomb")
"""The pieces whose winners-minus-losers maps the report draws."""


def _report_requests() -> dict[str, Request]:
    """Every statistic the report shows, each per variant (the main variant is known only
    once every game has been counted, so each is counted for all and picked at the end)."""
    requests: dict[str, Request] = {
        f"placement:{piece}": ("placement", {"piece": piece, "by": ["variant"]})
        for piece in PIECE_ORDER
    }
    for piece in WON_PIECES:
        requests[f"placement:{piece}:won"] = (
            "placement",
            {"piece": piece, "by": ["variant", "won"]},
        )
    requests["bombs-next-to-flag"] = ("bombs-next-to-flag", {"by": ["variant"]})
    requests["flag-enclosed"] = ("flag-enclosed", {"by": ["variant"]})
    for feature in SETUP_FEATURES:
        requests[f"win-rate:{feature}"] = ("win-rate", {"feature": feature, "by": ["variant"]})
    for name in ("scouts", "scout-distances", "scout-attacks"):
        requests[name] = (name, {"by": ["variant"]})
    for name, statistic in STATISTICS.items():
        if statistic.report is not None:  # a registered statistic that asks for a section
            requests[f"extra:{name}"] = (name, {"by": ["variant"]})
    return requests


def report_requests() -> dict[str, Request]:
    """Every statistic the report shows, by key: the fixed ones of the sections below, and
    one for each registered statistic with a ``report`` title (read at each call, so a
    statistic registered later is in the next report)."""
    return _report_requests()


TRAFFIC: Final = {
    "scout": {"piece": "scout", "measure": "path", "view": "owner"},
    "battle": {"piece": None, "measure": "battle", "view": "board"},
}
"""The two board maps of the scouts section (stats.traffic_counts options)."""


@dataclass
class ReportPart:
    """What one batch of games contributes to the report: small, and it adds up."""

    games: pd.DataFrame
    diagnostics: pd.DataFrame
    stats: list[pd.DataFrame]
    moves: int
    traffic: dict[str, dict[str, Traffic]]
    tips: pd.DataFrame
    adjacency: pd.DataFrame
    cells: pd.DataFrame
    setups: pd.DataFrame
    """One row per distinct setup (:func:`strat_tools.stats.repeats.setup_tally`)."""


def reduce_report(data: ReportData) -> ReportPart:
    """Reduce games (a batch, or all of them) to what the report shows (top-level, so a
    process pool or Dask can run it on each batch where it is read)."""
    context = JoinedTables(data, _compact)  # joined once, text as categoricals
    moves = move_frame(context.moves, variant=ALL_VARIANTS)
    traffic: dict[str, dict[str, Traffic]] = {}
    for name, options in TRAFFIC.items():
        traffic[name] = {
            str(variant): traffic_counts(group, **options)  # type: ignore[arg-type]
            for variant, group in moves.groupby(moves["variant"].astype(str), sort=True)
        }
    setups = setup_frame(context.setups, None, ALL_VARIANTS)
    grid = setup_grid(setups)
    tips = tip_rates.tip_counts(features_from_grid(grid), ["variant"])
    return ReportPart(
        games=data.games[list(GAME_COLUMNS)],
        diagnostics=_diagnostic_counts(data.diagnostics),
        stats=_reduce_stats(context),
        moves=len(data.moves),
        traffic=traffic,
        tips=tips,
        adjacency=arrangement.adjacency_table(grid)[[*_ADJACENCY_KEYS, "setups", "observed"]],
        cells=arrangement.placement_cells(setups),
        setups=repeats.setup_tally(data, variant=None),
    )


def _reduce_stats(context: JoinedTables) -> list[pd.DataFrame]:
    """Every request of :func:`report_requests` on one batch, in order; the placements of
    all twelve pieces in one pass (they are most of the work)."""
    placed = placement_counts(context, PIECE_ORDER, ["variant"])
    placed_won = placement_counts(context, WON_PIECES, ["variant", "won"])
    requests = report_requests()
    rest = {key: request for key, request in requests.items() if not key.startswith("placement:")}
    computed = dict(zip(rest, reduce_requests(list(rest.values()), context), strict=True))
    computed.update({f"placement:{piece}:won": table for piece, table in placed_won.items()})
    computed.update({f"placement:{piece}": table for piece, table in placed.items()})
    return [computed[key] for key in requests]


_ADJACENCY_KEYS: Final = ("variant", "piece_a", "piece_b")
_CELL_KEYS: Final = ("variant", "piece", "row", "col")


@dataclass(frozen=True)
class ReportInputs:
    """Everything the report shows, combined from one or many :class:`ReportPart`."""

    games: pd.DataFrame
    diagnostics: pd.DataFrame
    stats: dict[str, pd.DataFrame]
    moves: int
    traffic: dict[str, dict[str, Traffic]]
    tips: pd.DataFrame
    adjacency: pd.DataFrame
    entropy: pd.DataFrame
    setups: pd.DataFrame
    """One row per distinct setup (:func:`strat_tools.stats.repeats.setup_tally`)."""
    values: ValueRows | None = None
    """The piece-value rows of the decided classic games (read from game records only:
    a second pass in the workers, with the replay's knowledge; None for a GameSet)."""
    values_absent: str = NO_VALUES_FROM_TABLES
    """Why :attr:`values` is None, in the report's words."""


class ReportCombiner:
    """Adds :class:`ReportPart` values up as they arrive; :meth:`result` finishes them."""

    def __init__(self) -> None:
        self.games: list[pd.DataFrame] = []
        self.diagnostics = _diagnostic_counts(None)
        self.requests = report_requests()
        self.stats = [Combiner(name, options) for name, options in self.requests.values()]
        self.moves = 0
        self.traffic: dict[str, dict[str, Traffic]] = {name: {} for name in TRAFFIC}
        self.tips: pd.DataFrame | None = None
        self.adjacency: pd.DataFrame | None = None
        self.cells: pd.DataFrame | None = None
        self.setups: list[pd.DataFrame] = []

    def add(self, part: ReportPart) -> None:
        """Take one batch's part."""
        self.games.append(part.games)
        self.diagnostics = _sum_diagnostics([self.diagnostics, part.diagnostics])
        for combiner, table in zip(self.stats, part.stats, strict=True):
            combiner.add(table)
        self.moves += part.moves
        for name, maps in part.traffic.items():
            for variant, counts in maps.items():
                known = self.traffic[name].get(variant)
                self.traffic[name][variant] = counts if known is None else known + counts
        self.tips = sum_counts(self.tips, part.tips, tip_rates.tip_count_keys(["variant"]))
        self.adjacency = sum_counts(self.adjacency, part.adjacency, _ADJACENCY_KEYS)
        self.cells = sum_counts(self.cells, part.cells, _CELL_KEYS)
        self.setups.append(part.setups)
        if len(self.setups) >= 8:
            self.setups = [repeats.add_tallies(self.setups)]

    def result(self) -> ReportInputs:
        """The report's inputs over every part so far."""
        games = pd.concat(self.games, ignore_index=True) if self.games else pd.DataFrame()
        tips = (
            self.tips
            if self.tips is not None
            else tip_rates.tip_counts(setup_features(empty_gameset()), ["variant"])
        )
        return ReportInputs(
            games=games,
            diagnostics=self.diagnostics,
            stats={
                key: combiner.result()
                for key, combiner in zip(self.requests, self.stats, strict=True)
            },
            moves=self.moves,
            traffic=self.traffic,
            tips=tips,
            adjacency=arrangement.adjacency_from_counts(
                arrangement.ordered_adjacency(self.adjacency)
            ),
            entropy=arrangement.entropy_from_cells(arrangement.ordered_cells(self.cells)),
            setups=repeats.add_tallies(self.setups)
            if self.setups
            else repeats.setup_tally(empty_gameset()),
        )


def report_inputs(data: ReportData | ReportInputs | Paths) -> ReportInputs:
    """The report's inputs from a GameSet (all of it as one batch), or from paths of game
    records or an exported dataset (:func:`report_inputs_of_paths`, every core)."""
    if isinstance(data, ReportInputs):
        return data
    if not hasattr(data, "games"):
        return report_inputs_of_paths(data)
    combiner = ReportCombiner()
    combiner.add(reduce_report(cast(ReportData, data)))
    return combiner.result()


def report_inputs_of_paths(
    paths: Paths,
    *,
    setups_only: bool = False,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
) -> ReportInputs:
    """The report's inputs from game records, reduced batch by batch where they are read:
    memory grows by a few dozen bytes a game (its row in the corpus tables), not by its
    setup and moves. Equal to ``report_inputs(read_games(paths))`` but for the piece values,
    which a GameSet cannot give (:data:`NO_VALUES_FROM_TABLES`)."""
    inputs = Inputs.of(paths)  # resolved once: both passes and the folder test take it
    combiner = ReportCombiner()
    for part in reduce_batches(
        reduce_report,
        inputs,
        setups_only=setups_only,
        rules=rules,
        select=select,
        run=run,
    ):
        combiner.add(part)
    done = combiner.result()
    if setups_only:
        return replace(done, values_absent=NO_VALUES_FROM_SETUPS)
    if any(item.kind == "dataset" for item in inputs):
        return done  # the piece values need the replay's knowledge, from game records
    quiet = Run.of(run).with_tally(None).with_progress(None)  # counted once, above
    rows = read_value_rows(inputs, rules=rules, select=select, run=quiet)
    return replace(done, values=rows)


def _compact(frame: pd.DataFrame) -> pd.DataFrame:
    """Repeated string columns as categoricals: row filters over millions of moves then
    copy small ints instead of strings (about ten times faster on the full archive)."""
    text = [
        name
        for name in frame.columns
        if pd.api.types.is_string_dtype(frame[name])
        and not isinstance(frame[name].dtype, pd.CategoricalDtype)
    ]
    return frame.astype({name: "category" for name in text}) if text else frame


def _diagnostic_counts(diagnostics: pd.DataFrame | None) -> pd.DataFrame:
    """Per (code, severity), in order of first appearance: count, games (with at least
    one) and the first message. Adds up across batches (:func:`_sum_diagnostics`)."""
    columns = ["code", "severity", "count", "games", "example"]
    if diagnostics is None or diagnostics.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    frame = diagnostics.astype({"code": str, "severity": str, "message": str})
    table: pd.DataFrame = (
        frame.groupby(["code", "severity"], sort=False)
        .agg(count=("game_id", "size"), games=("game_id", "nunique"), example=("message", "first"))
        .reset_index()
    )
    return table


def _sum_diagnostics(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Diagnostic counts of several batches added up (a game lies in one batch only)."""
    parts = [part for part in parts if len(part)]
    if len(parts) <= 1:
        return parts[0] if parts else _diagnostic_counts(None)
    table: pd.DataFrame = (
        pd.concat(parts, ignore_index=True)
        .groupby(["code", "severity"], sort=False)
        .agg(count=("count", "sum"), games=("games", "sum"), example=("example", "first"))
        .reset_index()
    )
    return table
