"""The corpus report: one self-contained HTML (or Markdown) file from a GameSet.

:func:`report_text` builds the report as text, :func:`write_report` writes it atomically.
Sections: the corpus (games per variant and period, validity, diagnostics by code), endings
and game lengths, flag and bomb placement, bombs around the flag, all pieces, scout usage,
win rates with Wilson 95% intervals, and the rulebooks' setup tips put to the test (from
:mod:`strat_tools.advice`). Ranks are written in either numbering
(``numbering='modern'``: 10 = marshal, 1 = spy; ``'classic'``: 1 = marshal, 9 = scout,
S = spy) in the figures, the tables that list pieces and the captions; the report's opening
line says which. Every table names its sample size; every figure is embedded as a base64 PNG
``data:`` URI, so the file needs nothing else (no scripts, fonts, styles or images from
anywhere).

This module arranges what :mod:`strat_tools.stats` and :mod:`strat_tools.advice` compute
and :mod:`strat_tools.plots` draws; it computes no statistic of its own beyond counting the
``games`` and ``diagnostics`` tables for the corpus section. Everything it shows adds up
over batches of games: :func:`reduce_report` reduces a batch (or a whole GameSet) to a
:class:`ReportPart`, :class:`ReportCombiner` adds parts up, and
:func:`report_inputs_of_paths` does both over game records or an exported dataset, a batch
at a time in the workers (through :func:`strat_tools.stats.stream.reduce_batches`), so the
report of any number of games needs no more memory than that of a few.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from strat_tools import advice, board_plots, plots, stats
from strat_tools.document import Section, render_html, render_markdown
from strat_tools.errors import InputError, OptionError
from strat_tools.output import write_file_atomically
from strat_tools.pieces import (
    KINDS,
    Numbering,
    PieceKind,
    check_numbering,
    rank_label,
)
from strat_tools.plots import PlacementRequest
from strat_tools.records import VARIANTS
from strat_tools.report_inputs import (
    ReportData,
    ReportInputs,
    report_inputs,
)
from strat_tools.report_setups import finding, repeated_setups_section
from strat_tools.stats.traffic import Traffic
from strat_tools.text import count_of
from strat_tools.tips import tip_catalogue

ReportFormat = Literal["html", "md"]
REPORT_FORMATS: tuple[str, ...] = ("html", "md")


# --- ranks in the chosen numbering --------------------------------------------------------


def piece_label(piece: str, numbering: Numbering = "modern") -> str:
    """A piece name with its rank: ``piece_label('marshal', 'classic') == 'marshal (1)'``.

    Text that names no piece (a placeholder such as ``'–'``) comes back unchanged.
    """
    try:
        kind = PieceKind.from_label(piece)
    except ValueError:
        return piece
    return f"{kind.label} ({rank_label(kind, numbering)})"


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


def _select(table: pd.DataFrame, variant: str) -> pd.DataFrame:
    """One variant's rows of a per-variant table, without the variant column."""
    rows = table[table["variant"].astype(str) == variant]
    return rows.drop(columns="variant").reset_index(drop=True)


def _main_variant(games: pd.DataFrame) -> str | None:
    """The variant with the most setups (placement pictures are drawn for it)."""
    candidates = games.loc[
        games["has_setup"].astype(bool)
        & (games["variant"].astype(str) != "classicfree")
        & (games["status"].astype(str) != "invalid")
    ]
    if candidates.empty:
        return None
    return str(candidates["variant"].astype(str).value_counts().idxmax())


def corpus_section(data: ReportInputs) -> Section:
    """Games per variant and period, validity, and diagnostics by code."""
    section = Section("The corpus", "corpus")
    unreadable = data.games["status"] == "unreadable"  # inputs that are not games
    games = data.games[~unreadable]
    if unreadable.any():
        section.text(
            f"{int(unreadable.sum()):,} unreadable input(s) (not counted as games; "
            "see the diagnostics)."
        )
    section.text(
        f"{len(games):,} games from {games['source'].nunique():,} input file(s); "
        f"{int(games['has_setup'].astype(bool).sum()):,} with a setup, "
        f"{int((games['plies'] == 0).sum()):,} without any move."
    )
    variant = games["variant"].astype(object).fillna("unknown")  # a type Gravon lacks: null
    counts = pd.crosstab(games["period"].fillna("unknown"), variant)
    counts = counts.reindex(columns=[v for v in (*VARIANTS, "unknown") if v in counts.columns])
    counts["all"] = counts.sum(axis=1)
    counts = counts.reset_index().rename(columns={"period": "period (YYYY-MM)"})
    section.table("Games per period and variant (n = games)", counts)
    section.table("Validity per variant (n = games)", _validity(games))
    rules = games.assign(rules=games["rules"].astype(object).fillna("(not replayed)"))
    used = rules.groupby(["rules", "variant"], sort=True).size().rename("games").reset_index()
    section.table(
        "Rule sets the games were replayed under (auto: by variant and period)",
        used.sort_values(["games", "rules"], ascending=[False, True]).reset_index(drop=True),
    )
    section.table(
        "Diagnostics by code, most frequent first (games = games with at least one)",
        _diagnostics_by_code(data.diagnostics),
    )
    return section


def _validity(games: pd.DataFrame) -> pd.DataFrame:
    """Per variant: games, valid, invalid, unchecked, and the valid share."""
    table = pd.crosstab(games["variant"].astype(object).fillna("unknown"), games["status"])
    for status in ("valid", "invalid", "unchecked"):
        if status not in table:
            table[status] = 0
    table = table[["valid", "invalid", "unchecked"]]
    table.insert(0, "games", table.sum(axis=1))
    table["valid_pct"] = table["valid"] / table["games"]
    return table.sort_values("games", ascending=False).reset_index()


def _diagnostics_by_code(counts: pd.DataFrame) -> pd.DataFrame:
    """code, severity, count, games, and one example message per code."""
    columns = ["code", "severity", "count", "games", "example"]
    if counts.empty:
        return pd.DataFrame([{c: "–" for c in columns}]).assign(code="(no diagnostics)")
    table = counts.sort_values(["count", "code"], ascending=[False, True])
    long = table["example"].astype(str).str.len() > 120
    table = table.assign(
        example=table["example"]
        .astype(str)
        .str.slice(0, 120)
        .where(~long, table["example"].astype(str).str.slice(0, 119) + "…")
    )
    return table[columns].reset_index(drop=True)


def endings_section(data: ReportInputs) -> Section:
    """How games end and how long they last."""
    section = Section("Endings and game lengths", "endings")
    section.text("Invalid games are left out; a ply is one player's move.")
    ends = stats.endings(data.games, by="variant")
    ends = _by_variant_size(ends.sort_values("games", ascending=False), data.games)
    section.table("How games end, per variant (games = n in that row)", ends)
    lengths = stats.game_lengths(data.games, by="variant").sort_values("games", ascending=False)
    section.table("Game length in plies, per variant (games = n)", lengths)
    section.figure(
        "Game lengths (histogram per variant)",
        plots.game_length_histogram(data.games),
        "histogram of game lengths in plies",
    )
    return section


def _placement(data: ReportInputs, piece: str, variant: str) -> dict[PlacementRequest, Any]:
    """One variant's placement of ``piece``, keyed as plots.setup_heatmap_requests names it."""
    return {(piece, ()): _select(data.stats[f"placement:{piece}"], variant)}


def placement_section(data: ReportInputs, variant: str, numbering: Numbering = "modern") -> Section:
    """Flag and bomb heatmaps, flag by variant, and the flag's bomb cover."""
    section = Section("Flag and bomb placement", "placement")
    section.text(
        "Owner's view: the owner's back row at the bottom, the owner's left at the left, so "
        "red and blue setups pool (for blue, owner-view A1 is the board's K10). Each cell is "
        "the percentage of setups with that piece on that square. Classicfree games (any "
        "army anywhere) and invalid games are left out."
    )
    for piece in ("flag", "bomb"):
        fig = plots.setup_heatmap_from_placements(
            _placement(data, piece, variant), piece, variant=variant,
            title=f"variant: {variant}", numbering=numbering,
        )  # fmt: skip
        section.figure(f"{piece.capitalize()} placement, {variant}", fig, f"{piece} heatmap")
    per_variant: dict[PlacementRequest, Any] = {
        ("flag", ("variant",)): data.stats["placement:flag"]
    }
    by_variant = plots.setup_heatmap_from_placements(
        per_variant, "flag", by="variant",
        numbering=numbering,
    )  # fmt: skip
    section.figure("Flag placement per variant (shared scale)", by_variant, "flag by variant")
    won: dict[PlacementRequest, Any] = {
        ("flag", ("won",)): _select(data.stats["placement:flag:won"], variant)
    }
    section.figure(
        f"Flag: winners minus losers, {variant}",
        plots.setup_heatmap_from_placements(
            won, "flag", by="won", variant=variant, numbering=numbering
        ),
        "difference map of flag placement between winners and losers",
    )
    section.table(
        "Bombs on the squares next to the flag (setups = n per variant)",
        _by_variant_size(data.stats["bombs-next-to-flag"], data.games),
    )
    section.table(
        "Flag fully enclosed by bombs, board edges and lakes (setups = n)",
        _by_variant_size(data.stats["flag-enclosed"], data.games),
    )
    return section


def pieces_section(data: ReportInputs, variant: str, numbering: Numbering = "modern") -> Section:
    """Twelve small heatmaps of the main variant, each titled with its piece and rank."""
    section = Section("All pieces", "pieces")
    section.text("Same view and meaning as the flag map; one shared colour scale, whole percent.")
    placements: dict[PlacementRequest, Any] = {}
    for piece in plots.PIECE_ORDER:
        placements.update(_placement(data, piece, variant))
    fig = plots.setup_heatmap_from_placements(
        placements, "all", variant=variant, title=f"variant: {variant}", numbering=numbering
    )
    alt = "twelve piece heatmaps: " + ", ".join(_axes_titles(fig))
    section.figure(f"Where each piece stands, {variant}", fig, alt)
    return section


def scouts_section(data: ReportInputs, variant: str, numbering: Numbering = "modern") -> Section:
    """Scout moves, distances, targets, and where scouts and battles go on the board."""
    section = Section("Scout usage", "scouts")
    if not data.moves:
        section.text("No moves in this data set (read with setups only): nothing to show.")
        return section
    section.text(
        f"Scouts, rank {rank_label(PieceKind.SCOUT, numbering)} in the {numbering} numbering, "
        "are the one piece that may move more than one square in a move."
    )
    section.table(
        "Scout moves per variant (moves = replayed moves)",
        _by_variant_size(data.stats["scouts"], data.games),
    )
    distances = _select(data.stats["scout-distances"], variant)
    section.table(f"How far scouts move, {variant} (count = scout moves)", distances)
    attacks = _select(data.stats["scout-attacks"], variant)
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
    return section


def win_rates_section(data: ReportInputs, variant: str) -> Section:
    """Red against blue, and setup features, with Wilson 95% intervals."""
    section = Section("Win rates", "wins")
    section.text(
        "Decided games only (draws and unknown results left out); ci low..ci high is the "
        "Wilson 95% interval, cluster ci low..high the interval that counts the games of one "
        "setup (up to a mirror image) as one cluster. Where two intervals do not overlap, "
        "the gap is unlikely to be chance; these are still correlations: a setup habit may "
        "go with stronger players rather than cause wins."
    )
    section.table(
        "Red (moves first) against blue, per variant (games = decided games)",
        _by_variant_size(side_win_rates(data.games), data.games),
    )
    tables = {
        feature: _select(data.stats[f"win-rate:{feature}"], variant)
        for feature in stats.SETUP_FEATURES
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
        plots.win_rate_chart(chart, title=f"Win rate by setup feature, {variant} (decided games)"),
        "win rates with confidence intervals per setup feature",
    )
    findings = [f for feature, table in tables.items() if (f := finding(feature, table))]
    if findings:
        section.text("Findings, " + variant + ": " + " ".join(findings))
    for feature, table in tables.items():
        section.table(f"Win rate by {feature.replace('_', ' ')}, {variant} (setups = n)", table)
    return section


ADVICE_MIN_SETUPS = 100
"""Variants other than classic get their own advice tables from this many setups on."""

_ADVICE_NOTE = (
    "Read these as associations, not causes: players who follow a tip may simply be stronger "
    "or more experienced, and skill is not in the records. Win rates count decided games "
    "only (draws and unknown results excluded); resignations, timeouts and disconnections "
    "count as recorded, the side that did not resign or run out of time winning. "
    "Head-to-head = games where exactly one side follows the tip, and how often that side "
    "won (both setups of such a game share its clock, server and ending). The source "
    "sentences, the exact definitions and what this comparison can and cannot show are in "
    "docs/advice.md in the strat-tools repository."
)

_TIP_COLUMNS = {
    "tip": "tip", "followed": "followed", "setups": "setups",
    "share": "share", "n_follow": "follow_n", "wins_follow": "follow_wins",
    "rate_follow": "follow_rate", "low_follow": "follow_ci_low",
    "high_follow": "follow_ci_high", "n_other": "other_n", "wins_other": "other_wins",
    "rate_other": "other_rate", "low_other": "other_ci_low", "high_other": "other_ci_high",
    "h2h_games": "h2h_games", "h2h_wins": "h2h_wins", "h2h_rate": "h2h_rate",
    "h2h_low": "h2h_ci_low", "h2h_high": "h2h_ci_high",
}  # fmt: skip
"""advice.tip_summary columns → the report's headers (a trailing 'rate' or 'ci low' makes
the formatter write a percentage)."""


def advice_section(data: ReportInputs, numbering: Numbering = "modern") -> Section | None:
    """The rulebooks' setup tips tested: adoption, win rates, neighbours, predictability.

    Computed as :func:`strat_tools.advice.advice_section_data` computes it (from the
    per-setup tip features, the neighbour counts and the placement counts);
    ``None`` when there is no setup of a fixed-army variant.
    """
    summary = advice.tip_summary_from_counts(data.tips, ["variant"])
    if summary.empty:
        return None
    sizes = summary.groupby("variant", sort=False)["setups"].max().sort_values(ascending=False)
    main = "classic" if "classic" in sizes.index else str(sizes.index[0])
    tables = {
        "catalogue": tip_catalogue(),
        "adjacency": data.adjacency,
        "adjacency_matrix": advice.adjacency_matrix(data.adjacency, main),
        "entropy": data.entropy,
    }
    shown = [main, *(str(v) for v in sizes.index if v != main and sizes[v] >= ADVICE_MIN_SETUPS)]
    section = Section("What the rulebooks advise, tested", "advice")
    section.text(
        f"The seed rule texts (Greek and Finnish) give {len(tables['catalogue'])} concrete "
        "setup tips. Each is one exact test on a setup in the owner's view (row 1 = back "
        "row); below, how many setups follow it and whether followers win more often than "
        "the rest, with Wilson 95% intervals. " + _ADVICE_NOTE
    )
    section.table("The tips, in the rulebooks' order (one line each)", _tip_definitions(tables))
    left_out = [f"{v} ({int(sizes[v]):,} setups)" for v in sizes.index if v not in shown]
    if left_out:
        section.text(
            f"Left out for fewer than {ADVICE_MIN_SETUPS} setups: {', '.join(left_out)}; "
            "classicfree has no fixed army to test."
        )
    section.text(
        "Per tip: share = followed / setups where the tip applies; follow and other = win "
        "rate (with its Wilson 95% interval ci low..ci high, n setups, wins) of the setups "
        "that follow the tip and of the rest; h2h = head-to-head."
    )
    for variant in shown:
        section.table(*_tip_table(summary, variant))
    matrix_n = _variant_setups(tables["adjacency"], main)
    section.figure(
        f"Which pieces stand next to each other, {main}: observed / expected neighbour pairs; "
        "expected = the same army shuffled at random over the 40 squares; colours saturate "
        f"beyond {1 / plots.ADJACENCY_LIMIT:g} and {plots.ADJACENCY_LIMIT:g} times chance",
        plots.adjacency_figure(
            tables["adjacency_matrix"],
            title=f"Neighbours against chance, {main}, n = {matrix_n:,} setups",
            numbering=numbering,
        ),
        "heatmap of neighbour ratios between piece kinds, centred at chance",
    )
    section.text(
        "Placement entropy: how many bits it takes to name the square of a piece of that "
        "kind, over all setups; 40 equally likely squares give log2 40 = 5.32 bits (max "
        "bits), so the lower, the more predictable. Corrected bits add the Miller-Madow "
        "correction for small samples; of max = entropy bits / max bits."
    )
    for variant in shown:
        section.table(*_entropy_table(tables["entropy"], variant, numbering))
    return section


def _tip_definitions(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """tip, title, the definition's first sentence and the variants it applies to."""
    catalogue = tables["catalogue"]
    first = [re.split(r"(?<=\.)\s", str(text), maxsplit=1)[0] for text in catalogue["definition"]]
    return pd.DataFrame(
        {"tip": catalogue["tip"], "title": catalogue["title"], "definition": first,
         "applies to": catalogue["variants"]}
    )  # fmt: skip


def _tip_table(summary: pd.DataFrame, variant: str) -> tuple[str, pd.DataFrame]:
    """One variant's tips, most followed first: caption and table."""
    rows = summary[summary["variant"] == variant]
    table = rows[list(_TIP_COLUMNS)].rename(columns=_TIP_COLUMNS)
    table = table.sort_values("share", ascending=False, kind="stable").reset_index(drop=True)
    setups = int(rows["setups"].max())
    decided = int((rows["n_follow"] + rows["n_other"]).max())
    caption = (
        f"Tips followed and win rates, {variant}, most followed first (n = {setups:,} "
        f"setups, {decided:,} of them in decided games)"
    )
    return caption, table


def _variant_setups(adjacency: pd.DataFrame, variant: str) -> int:
    """How many setups a variant's neighbour counts come from."""
    rows = adjacency.loc[adjacency["variant"] == variant, "setups"]
    return int(rows.max()) if len(rows) else 0


def _entropy_table(
    entropy: pd.DataFrame, variant: str, numbering: Numbering
) -> tuple[str, pd.DataFrame]:
    """One variant's placement entropy, most predictable first: caption and table."""
    rows = entropy[entropy["variant"] == variant].sort_values("entropy_bits", kind="stable")
    table = pd.DataFrame(
        {
            "piece": [piece_label(str(p), numbering) for p in rows["piece"]],
            "setups": rows["setups"].to_numpy(),
            "pieces": rows["pieces"].to_numpy(),
            "entropy_bits": [f"{v:.2f}" for v in rows["entropy_bits"]],
            "corrected_bits": [f"{v:.2f}" for v in rows["corrected_bits"]],
            "max_bits": [f"{v:.2f}" for v in rows["max_bits"]],
            "of_max": [f"{v * 100:.1f}%" for v in rows["relative"]],
        }
    )
    top = float(rows["max_bits"].max()) if len(rows) else 0.0
    setups = int(rows["setups"].max()) if len(rows) else 0
    caption = (
        f"How predictable each piece's square is, {variant}, most predictable first "
        f"(n = {setups:,} setups; uniform: {top:.2f} bits)"
    )
    return caption, table


def _yes_no(value: object) -> str:
    """Feature values as labels: booleans as yes/no, counts as they are."""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    return str(value)


def _by_variant_size(table: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Rows ordered by their variant's number of games (classic first), stably."""
    order = {v: i for i, v in enumerate(games["variant"].astype(str).value_counts().index)}
    rank = table["variant"].astype(str).map(order).fillna(len(order))
    return table.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)


def registered_sections(data: ReportInputs, variant: str) -> list[Section]:
    """One table section per registered statistic with a ``report`` title (see
    :class:`~strat_tools.stats.registry.Statistic`), for the main variant."""
    sections = []
    for key, table in data.stats.items():
        if not key.startswith("extra:"):
            continue
        statistic = stats.get_statistic(key.removeprefix("extra:"))
        assert statistic.report is not None
        section = Section(statistic.report, statistic.name)
        section.text(f"{statistic.help[:1].upper()}{statistic.help[1:]}.")
        section.table(f"{statistic.report}, {variant}", _select(table, variant))
        sections.append(section)
    return sections


def side_win_rates(games: pd.DataFrame) -> pd.DataFrame:
    """Per variant: decided games, red wins, red's win rate and its Wilson interval."""
    decided = games.loc[(games["status"] != "invalid") & games["winner"].notna()]
    rows = []
    for variant, group in decided.groupby(decided["variant"].astype(str), sort=True):
        n, k = len(group), int((group["winner"] == "red").sum())
        low, high = stats.wilson_interval(k, n)
        rows.append(
            {"variant": variant, "games": n, "red_wins": k, "red_win_rate": k / n,
             "ci_low": low, "ci_high": high}
        )  # fmt: skip
    return pd.DataFrame(rows, columns=["variant", "games", "red_wins", "red_win_rate",
                                       "ci_low", "ci_high"])  # fmt: skip


def build_sections(
    source: ReportData | ReportInputs, numbering: Numbering = "modern"
) -> list[Section]:
    """Every section of the report, in reading order, ranks in ``numbering``; ``source`` is
    a GameSet or the inputs already reduced (:func:`report_inputs_of_paths`)."""
    check_numbering(numbering)
    if len(source.games) == 0:
        raise InputError("no games to report on")
    data = report_inputs(source)
    sections = [corpus_section(data)]
    if (data.games["status"].astype(str) == "invalid").all():
        sections[0].text("Every game is invalid: the statistics below the corpus need valid ones.")
        return sections
    sections.append(endings_section(data))
    variant = _main_variant(data.games)
    if variant is None:
        return sections
    sections += [
        placement_section(data, variant, numbering),
        pieces_section(data, variant, numbering),
        scouts_section(data, variant, numbering),
        repeated_setups_section(data, variant),
        win_rates_section(data, variant),  # setup features only: no ranks
        *registered_sections(data, variant),
    ]
    advice_part = advice_section(data, numbering)
    if advice_part is not None:
        sections.append(advice_part)
    return sections


def report_text(
    data: ReportData | ReportInputs,
    format: ReportFormat = "html",
    *,
    title: str = "Stratego game records",
    numbering: Numbering = "modern",
) -> str:
    """The report as text, ranks in ``numbering`` ('modern' or 'classic'). Example::

    games = strat_tools.read_games("../shared/gravon")
    html = report_text(games, "html", numbering="classic")
    """
    if format not in REPORT_FORMATS:
        raise OptionError(f"unknown report format {format!r}; expected html or md")
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
    data: ReportData | ReportInputs,
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
