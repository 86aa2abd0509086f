"""The report's advice section: the rulebooks' setup tips put to the test.

:func:`advice_section` fills the section with the tips (one line each), how many setups
follow each and how they fare, which pieces stand side by side against chance, and how
predictable each piece's square is, as :mod:`strat_tools.stats.advice` computes them from the
counts :mod:`strat_tools.report.inputs` adds up. Listed in
:data:`strat_tools.report.page.REPORT_SECTIONS`; computes nothing itself.
"""

from __future__ import annotations

import re

import pandas as pd

from strat_tools.core.pieces import Numbering
from strat_tools.report.inputs import ReportInputs
from strat_tools.report.setups import tip_findings, tip_tables
from strat_tools.stats import arrangement, tip_rates
from strat_tools.stats.tips import tip_catalogue
from strat_tools.views import charts
from strat_tools.views.document import Section
from strat_tools.views.setup_area import piece_label

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


def advice_section(section: Section, data: ReportInputs, numbering: Numbering) -> bool:
    """The rulebooks' setup tips tested: adoption, win rates, neighbours, predictability.

    Computed as :func:`strat_tools.stats.advice.advice_section_data` computes it (from the
    per-setup tip features, the neighbour counts and the placement counts); ``False`` (the
    section is left out) when there is no setup of a fixed-army variant.
    """
    summary = tip_rates.tip_summary_from_counts(data.tips, ["variant"])
    if summary.empty:
        return False
    sizes = summary.groupby("variant", sort=False)["setups"].max().sort_values(ascending=False)
    main = "classic" if "classic" in sizes.index else str(sizes.index[0])
    tables = {
        "catalogue": tip_catalogue(),
        "adjacency": data.adjacency,
        "adjacency_matrix": arrangement.adjacency_matrix(data.adjacency, main),
        "entropy": data.entropy,
    }
    shown = [main, *(str(v) for v in sizes.index if v != main and sizes[v] >= ADVICE_MIN_SETUPS)]
    section.text(
        f"The seed rule texts (Greek and Finnish) give {len(tables['catalogue'])} concrete "
        "setup tips. Each is one exact test on a setup in the owner's view (row 1 = back "
        "row); below, how many setups follow it and whether followers win more often than "
        "the rest, with Wilson 95% and clustered intervals. " + _ADVICE_NOTE
    )
    section.table("The tips, in the rulebooks' order (one line each)", _tip_definitions(tables))
    left_out = [f"{v} ({int(sizes[v]):,} setups)" for v in sizes.index if v not in shown]
    if left_out:
        section.text(
            f"Left out for fewer than {ADVICE_MIN_SETUPS} setups: {', '.join(left_out)}; "
            "classicfree has no fixed army to test."
        )
    section.text(
        "Per tip: share = followed / setups where the tip applies; follow and other = the "
        "setups following the tip and the rest: n setups (in decided games), distinct ones "
        "up to a mirror image, win rate, Wilson 95% interval (ci) and the clustered one "
        "(cluster ci, counting a setup and its mirror image once); verdict: followers win "
        "more, followers win less (both with the clustered intervals too), no clear "
        "difference once repeats count once, or no clear difference. The "
        "second table pits followers against the rest in the same game (head to head)."
    )
    for variant in shown:
        for caption, table in tip_tables(summary, variant):
            section.table(caption, table)
        section.text(tip_findings(summary, variant))
    matrix_n = _variant_setups(tables["adjacency"], main)
    section.figure(
        f"Which pieces stand next to each other, {main}: observed / expected neighbour pairs; "
        "expected = the same army shuffled at random over the 40 squares; colours saturate "
        f"beyond {1 / charts.ADJACENCY_LIMIT:g} and {charts.ADJACENCY_LIMIT:g} times chance",
        charts.adjacency_figure(
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
    return True


def _tip_definitions(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """tip, title, the definition's first sentence and the variants it applies to."""
    catalogue = tables["catalogue"]
    first = [re.split(r"(?<=\.)\s", str(text), maxsplit=1)[0] for text in catalogue["definition"]]
    return pd.DataFrame(
        {
            "tip": catalogue["tip"],
            "title": catalogue["title"],
            "definition": first,
            "applies to": catalogue["variants"],
        }
    )


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
