"""The corpus report: one self-contained HTML (or Markdown) file from a GameSet.

:func:`report_text` builds the report as text, :func:`write_report` writes it atomically.
Its sections, in reading order, are the entries of :data:`REPORT_SECTIONS` (a new section
is one entry: its anchor, title, what it needs and the function that fills it): the corpus
(games per variant and period, validity, diagnostics by code), endings and game lengths,
flag and bomb placement, all pieces, scout usage, repeated setups, win rates with Wilson 95%
and clustered intervals, one section per registered statistic with a ``report`` title, and
the rulebooks' setup tips put to the test, and what pieces and secrecy are worth with the
win model's score (:mod:`strat_tools.report.values`). Ranks are written in either numbering
(``numbering='modern'``: 10 = marshal, 1 = spy; ``'classic'``: 1 = marshal, 9 = scout,
S = spy) in the figures, the tables that list pieces and the captions; the report's opening
line says which. Every table names its sample size; every figure is embedded as a base64 PNG
``data:`` URI, so the file needs nothing else (no scripts, fonts, styles or images from
anywhere).

This module arranges what :mod:`strat_tools.stats` and :mod:`strat_tools.stats.advice` compute
and :mod:`strat_tools.views.plots` draws; the corpus sections are in
:mod:`strat_tools.report.corpus`, the advice in :mod:`strat_tools.report.advice`, the
repeated setups in :mod:`strat_tools.report.setups`. What the sections show is reduced batch
by batch where the games are read (:mod:`strat_tools.report.inputs`), so the report of any
number of games needs no more memory than that of a few.

>>> [entry.anchor for entry in REPORT_SECTIONS]  # doctest: +NORMALIZE_WHITESPACE
['corpus', 'endings', 'placement', 'pieces', 'scouts', 'repeats', 'wins', 'statistics',
 'advice', 'values']
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from strat_tools.core.choices import REPORT_FORMATS
from strat_tools.core.errors import InputError, OptionError
from strat_tools.core.pieces import KINDS, Numbering, PieceKind, check_numbering, rank_label
from strat_tools.core.records import DEFAULT_VARIANT
from strat_tools.core.text import count_of
from strat_tools.io.output import write_file_atomically
from strat_tools.io.sources import Paths
from strat_tools.report.advice import advice_section
from strat_tools.report.corpus import (
    by_variant_size,
    corpus_section,
    endings_section,
    select_variant,
    side_win_rates,
)
from strat_tools.report.inputs import ReportData, ReportInputs, report_inputs
from strat_tools.report.setups import finding, repeated_setups_section
from strat_tools.report.values import values_section
from strat_tools.stats.differences import SIGNIFICANCE_LEVEL
from strat_tools.stats.registry import get_statistic
from strat_tools.stats.setups import SETUP_FEATURES
from strat_tools.stats.traffic import Traffic
from strat_tools.views import board_plots, charts, plots
from strat_tools.views.document import Section, render_html, render_markdown
from strat_tools.views.plots import PlacementRequest
from strat_tools.views.setup_area import PIECE_ORDER, piece_label

ReportFormat = Literal["html", "md"]

__all__ = [
    "REPORT_SECTIONS",
    "ReportSection",
    "SectionInputs",
    "build_sections",
    "numbering_note",
    "report_text",
    "write_report",
]


@dataclass(frozen=True)
class SectionInputs:
    """What a section is filled from: the reduced inputs, the main variant (the one with the
    most setups; ``None`` when no valid game has a fixed-army setup) and the numbering."""

    data: ReportInputs
    variant: str | None
    numbering: Numbering

    @property
    def main_variant(self) -> str:
        """The main variant, for the sections that need setups (:attr:`ReportSection.needs`)."""
        assert self.variant is not None, "a section that needs setups ran without any"
        return self.variant


Needs = Literal["games", "valid games", "setups"]
"""What a section needs to say anything: any game, a valid game, or a setup of a fixed army."""


@dataclass(frozen=True)
class ReportSection:
    """One section of the report: its anchor (id in the page), title, what it needs, and
    ``fill``, which adds its paragraphs, tables and figures to the section (returning
    ``False`` leaves the section out). ``each`` instead makes several sections, one per
    entry of another registry (the registered statistics)."""

    anchor: str
    title: str
    needs: Needs
    fill: Callable[[Section, SectionInputs], bool | None] | None = None
    each: Callable[[SectionInputs], list[Section]] | None = None

    def build(self, inputs: SectionInputs) -> list[Section]:
        """The section(s) this entry adds to the report."""
        if self.each is not None:
            return self.each(inputs)
        assert self.fill is not None
        section = Section(self.title, self.anchor)
        return [] if self.fill(section, inputs) is False else [section]


_NUMBERING_NAMES = {
    "modern": "modern numbering (10 = marshal, 1 = spy)",
    "classic": "classic numbering (1 = marshal, 9 = scout, S = spy)",
}


def numbering_note(numbering: Numbering = "modern") -> str:
    """The sentence saying which rank numbering the report uses, with every rank spelt out."""
    strongest_first = sorted((k for k in KINDS if k.movable), reverse=True)
    ranks = ", ".join(f"{kind.label} {rank_label(kind, numbering)}" for kind in strongest_first)
    return f"Ranks in the {_NUMBERING_NAMES[numbering]}: {ranks}; bomb B, flag F."


def _axes_titles(fig: Figure) -> list[str]:
    """The titles of a figure's panels, in drawing order (colour bars have none)."""
    return [ax.get_title() for ax in fig.axes if ax.get_title()]


def _placement(data: ReportInputs, piece: str, variant: str) -> dict[PlacementRequest, Any]:
    """One variant's placement of ``piece``, keyed as plots.setup_heatmap_requests names it."""
    return {(piece, ()): select_variant(data.stats[f"placement:{piece}"], variant)}


def placement_section(section: Section, inputs: SectionInputs) -> None:
    """Flag and bomb heatmaps, flag by variant, and the flag's bomb cover."""
    data, variant, numbering = inputs.data, inputs.main_variant, inputs.numbering
    section.text(
        "Owner's view: the owner's back row at the bottom, the owner's left at the left, so "
        "red and blue setups pool (for blue, owner-view A1 is the board's K10). Each cell is "
        "the percentage of setups with that piece on that square. Classicfree games (any "
        "army anywhere) and invalid games are left out."
    )
    for piece in ("flag", "bomb"):
        fig = plots.setup_heatmap(
            _placement(data, piece, variant),
            piece,
            variant=variant,
            title=f"variant: {variant}",
            numbering=numbering,
        )
        section.figure(f"{piece.capitalize()} placement, {variant}", fig, f"{piece} heatmap")
    per_variant: dict[PlacementRequest, Any] = {
        ("flag", ("variant",)): data.stats["placement:flag"]
    }
    by_variant = plots.setup_heatmap(
        per_variant,
        "flag",
        by="variant",
        numbering=numbering,
    )
    section.figure(
        "Flag placement per variant (one shared scale; a variant with fewer than "
        f"{plots.MIN_PANEL_SETUPS} setups is drawn as too few)",
        by_variant,
        "flag by variant",
    )
    section.text(
        "Winners minus losers: each cell is the share of winners' setups with the piece there "
        "minus the share of losers' (decided games only), in percentage points. A square is "
        "outlined and starred when the gap is unlikely to be chance: a two-proportion z-test "
        "per square, with Holm's correction for testing 40 squares at once, so the chance of "
        f"marking even one square by luck stays below {SIGNIFICANCE_LEVEL:.0%}. Each setup "
        "counts once; repeated setups are not clustered here, so the marks are somewhat "
        "hopeful where setups repeat."
    )
    for piece in ("flag", "bomb"):
        won: dict[PlacementRequest, Any] = {
            (piece, ("won",)): select_variant(data.stats[f"placement:{piece}:won"], variant)
        }
        fig = plots.setup_heatmap(won, piece, by="won", variant=variant, numbering=numbering)
        note = " ".join(fig.get_supxlabel().split())  # one line in the caption
        section.figure(
            f"{piece.capitalize()}: winners minus losers, {variant}. {note}.",
            fig,
            f"difference map of {piece} placement between winners and losers",
        )
    section.table(
        "Bombs on the squares next to the flag (setups = n per variant)",
        by_variant_size(data.stats["bombs-next-to-flag"], data.games),
    )
    section.table(
        "Flag fully enclosed by bombs, board edges and lakes (setups = n)",
        by_variant_size(data.stats["flag-enclosed"], data.games),
    )


def pieces_section(section: Section, inputs: SectionInputs) -> None:
    """Twelve small heatmaps of the main variant, each titled with its piece and rank."""
    data, variant, numbering = inputs.data, inputs.main_variant, inputs.numbering
    section.text("Same view and meaning as the flag map; one shared colour scale, whole percent.")
    placements: dict[PlacementRequest, Any] = {}
    for piece in PIECE_ORDER:
        placements.update(_placement(data, piece, variant))
    fig = plots.setup_heatmap(
        placements, "all", variant=variant, title=f"variant: {variant}", numbering=numbering
    )
    alt = "twelve piece heatmaps: " + ", ".join(_axes_titles(fig))
    section.figure(f"Where each piece stands, {variant}", fig, alt)


def scouts_section(section: Section, inputs: SectionInputs) -> None:
    """Scout moves, distances, targets, and where scouts and battles go on the board."""
    data, variant, numbering = inputs.data, inputs.main_variant, inputs.numbering
    if not data.moves:
        section.text("No moves in this data set (read with setups only): nothing to show.")
        return
    section.text(
        f"Scouts, rank {rank_label(PieceKind.SCOUT, numbering)} in the {numbering} numbering, "
        "are the one piece that may move more than one square in a move."
    )
    section.table(
        "Scout moves per variant (moves = replayed moves)",
        by_variant_size(data.stats["scouts"], data.games),
    )
    distances = select_variant(data.stats["scout-distances"], variant)
    section.table(f"How far scouts move, {variant} (count = scout moves)", distances)
    attacks = select_variant(data.stats["scout-attacks"], variant)
    attacks["defender"] = [piece_label(str(v), numbering) for v in attacks["defender"]]
    section.table(f"What scouts attack, {variant} (defender with its rank)", attacks)
    none = Traffic(np.zeros(100, dtype=np.int64), 0, 0)
    scout = data.traffic["scout"].get(variant, none)
    section.figure(
        f"Squares scouts enter, {variant}, each mover's own view",
        board_plots.traffic_figure(
            scout, piece="scout", view="owner", title=f"variant: {variant}", numbering=numbering
        ),
        "board heatmap of scout paths",
    )
    battles = data.traffic["battle"].get(variant, none)
    section.figure(
        f"Where battles happen, {variant}",
        board_plots.traffic_figure(
            battles, piece=None, measure="battle", title=f"variant: {variant}"
        ),
        "board heatmap of battles",
    )


def win_rates_section(section: Section, inputs: SectionInputs) -> None:
    """Red against blue, and setup features, with Wilson 95% intervals (no ranks)."""
    data, variant = inputs.data, inputs.main_variant
    section.text(
        "Decided games only (draws and unknown results left out); ci low..ci high is the "
        "Wilson 95% interval, cluster ci low..high the interval that counts the games of one "
        "setup (up to a mirror image) as one cluster. Where two intervals do not overlap, "
        "the gap is unlikely to be chance; these are still correlations: a setup habit may "
        "go with stronger players rather than cause wins."
    )
    section.table(
        "Red (moves first) against blue, per variant (games = decided games)",
        by_variant_size(side_win_rates(data.games), data.games),
    )
    tables = {
        feature: select_variant(data.stats[f"win-rate:{feature}"], variant)
        for feature in SETUP_FEATURES
    }
    chart = pd.concat(
        [
            table.assign(
                label=[f"{feature.replace('_', ' ')}: {_yes_no(v)}" for v in table[feature]]
            )
            for feature, table in tables.items()
        ],
        ignore_index=True,
    )
    section.figure(
        f"Win rate by setup feature, {variant}",
        charts.win_rate_chart(chart, title=f"Win rate by setup feature, {variant} (decided games)"),
        "win rates with confidence intervals per setup feature",
    )
    findings = [f for feature, table in tables.items() if (f := finding(feature, table))]
    if findings:
        section.text("Findings, " + variant + ": " + " ".join(findings))
    for feature, table in tables.items():
        section.table(f"Win rate by {feature.replace('_', ' ')}, {variant} (setups = n)", table)


def _yes_no(value: object) -> str:
    """Feature values as labels: booleans as yes/no, counts as they are."""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    return str(value)


def registered_sections(inputs: SectionInputs) -> list[Section]:
    """One table section per registered statistic with a ``report`` title (see
    :class:`~strat_tools.stats.registry.Statistic`), for the main variant."""
    data, variant = inputs.data, inputs.main_variant
    sections = []
    for key, table in data.stats.items():
        if not key.startswith("extra:"):
            continue
        statistic = get_statistic(key.removeprefix("extra:"))
        assert statistic.report is not None
        section = Section(statistic.report, statistic.name)
        section.text(f"{statistic.help[:1].upper()}{statistic.help[1:]}.")
        section.table(f"{statistic.report}, {variant}", select_variant(table, variant))
        sections.append(section)
    return sections


def _corpus(section: Section, inputs: SectionInputs) -> None:
    corpus_section(section, inputs.data)


def _endings(section: Section, inputs: SectionInputs) -> None:
    endings_section(section, inputs.data)


def _repeats(section: Section, inputs: SectionInputs) -> None:
    repeated_setups_section(section, inputs.data, inputs.main_variant)


def _advice(section: Section, inputs: SectionInputs) -> bool:
    return advice_section(section, inputs.data, inputs.numbering)


def _values(section: Section, inputs: SectionInputs) -> bool:
    return values_section(section, inputs.data)


REPORT_SECTIONS: Final[tuple[ReportSection, ...]] = (
    ReportSection("corpus", "The corpus", "games", _corpus),
    ReportSection("endings", "Endings and game lengths", "valid games", _endings),
    ReportSection("placement", "Flag and bomb placement", "setups", placement_section),
    ReportSection("pieces", "All pieces", "setups", pieces_section),
    ReportSection("scouts", "Scout usage", "setups", scouts_section),
    ReportSection("repeats", "Repeated setups", "setups", _repeats),
    ReportSection("wins", "Win rates", "setups", win_rates_section),
    ReportSection(
        "statistics", "(one per registered statistic)", "setups", each=registered_sections
    ),
    ReportSection("advice", "What the rulebooks advise, tested", "setups", _advice),
    ReportSection("values", "What a piece is worth, and who is winning", "valid games", _values),
)
"""The report's sections in reading order (see :class:`ReportSection`)."""


def _main_variant(games: pd.DataFrame) -> str | None:
    """The variant shown in detail: DEFAULT_VARIANT if it has setups, else the most played."""
    candidates = games.loc[
        games["has_setup"].astype(bool)
        & (games["variant"].astype(str) != "classicfree")
        & (games["status"].astype(str) != "invalid")
    ]
    if candidates.empty:
        return None
    sizes = candidates["variant"].astype(str).value_counts()
    return DEFAULT_VARIANT if DEFAULT_VARIANT in sizes.index else str(sizes.idxmax())


def build_sections(
    source: ReportData | ReportInputs | Paths, numbering: Numbering = "modern"
) -> list[Section]:
    """Every section of the report, in reading order (:data:`REPORT_SECTIONS`), ranks in
    ``numbering``; ``source`` is a GameSet, the inputs already reduced
    (:func:`strat_tools.report.inputs.report_inputs_of_paths`) or the paths to reduce."""
    check_numbering(numbering)
    data = report_inputs(source)
    if len(data.games) == 0:
        raise InputError("no games to report on")
    inputs = SectionInputs(data, _main_variant(data.games), numbering)
    valid = not (data.games["status"].astype(str) == "invalid").all()
    sections: list[Section] = []
    for entry in REPORT_SECTIONS:
        if entry.needs != "games" and not valid:
            sections[0].text(
                "Every game is invalid: the statistics below the corpus need valid ones."
            )
            break
        if entry.needs == "setups" and inputs.variant is None:
            continue
        sections += entry.build(inputs)
    return sections


def report_text(
    source: ReportData | ReportInputs | Paths,
    format: ReportFormat = "html",
    *,
    title: str = "Stratego game records",
    numbering: Numbering = "modern",
) -> str:
    """The report as text, ranks in ``numbering`` ('modern' or 'classic'). Example::

    html = report_text("../shared/gravon", "html", numbering="classic")  # every section
    html = report_text(strat_tools.read_games("data/"), "md")  # tables: no piece values
    """
    if format not in REPORT_FORMATS:
        raise OptionError(f"unknown report format {format!r}; expected html or md")
    data = report_inputs(source)
    sections = build_sections(data, numbering)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    n = len(data.games)
    meta = f"{count_of(n, 'game')}; generated {when} by strat-tools. {numbering_note(numbering)}"
    synthetic = int(data.games["synthetic"].sum()) if "synthetic" in data.games else 0
    if synthetic:
        meta += (
            f" {count_of(synthetic, 'game')} of {n:,} are synthetic: made by strat-tools "
            "generate, not played by people; the figures and tables show them, not real play."
        )
    if format == "html":
        return render_html(sections, title, meta)
    return render_markdown(sections, title, meta)


def write_report(
    data: ReportData | ReportInputs | Paths,
    path: str | os.PathLike[str],
    format: ReportFormat | None = None,
    *,
    title: str = "Stratego game records",
    numbering: Numbering = "modern",
) -> Path:
    """Write the report to ``path`` atomically; the format defaults to the suffix (.md → md)."""
    target = Path(path)
    chosen: ReportFormat = format or ("md" if target.suffix.lower() == ".md" else "html")
    text = report_text(data, chosen, title=title, numbering=numbering)
    write_file_atomically(target, text.encode("utf-8"))
    return target
