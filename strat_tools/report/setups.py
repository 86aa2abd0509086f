"""The report's section on repeated setups, and findings stated with both intervals.

:func:`repeated_setups_section` says how many setups there are per variant, how many are
distinct and how many were played more than once, and shows the most played ones as a table
and as boards (:mod:`strat_tools.views.setup_boards`), from the report's setup tally
(:func:`strat_tools.stats.repeats.setup_tally`, added up over batches). :func:`verdict`
says whether a win-rate gap holds with the plain and with the clustered intervals (a value
to test), :func:`finding` says it in words; :func:`tip_tables` and :func:`tip_findings` do
the same for the rulebooks' tips (the advice section's tables and its findings).
Listed in :data:`strat_tools.report.page.REPORT_SECTIONS`. Draws nothing itself and reads no
files.
"""

from __future__ import annotations

from typing import Final

import pandas as pd

from strat_tools.core.text import count_of
from strat_tools.report.inputs import ReportInputs
from strat_tools.stats import intervals, repeats
from strat_tools.views import setup_boards
from strat_tools.views.document import Section

REPORT_TOP_SETUPS: Final = 6
"""How many of the most played setups the report draws."""

TIP_COLUMNS: Final[dict[str, str | tuple[str, str]]] = {
    "tip": "tip",
    "followed": "followed",
    "share": "share",
    "n_follow": "follow_n",
    "distinct_follow": "follow_distinct",
    "rate_follow": "follow_rate",
    "follow_ci": ("low_follow", "high_follow"),
    "follow_cluster_ci": ("cluster_ci_low_follow", "cluster_ci_high_follow"),
    "n_other": "other_n",
    "distinct_other": "other_distinct",
    "rate_other": "other_rate",
    "other_ci": ("low_other", "high_other"),
    "other_cluster_ci": ("cluster_ci_low_other", "cluster_ci_high_other"),
    "verdict": "verdict",
}
"""The report's win-rate table of the tips: advice.tip_summary column -> header, or header
-> (low, high) columns written as one interval cell (a trailing 'rate' makes the formatter
write a percentage). The setups a tip applies to, and how many are distinct, are the same
for every tip of a variant: the caption gives them."""
H2H_COLUMNS: Final[dict[str, str | tuple[str, str]]] = {
    "tip": "tip",
    "h2h_games": "games",
    "h2h_wins": "follower_wins",
    "h2h_rate": "win_rate",
    "ci": ("h2h_low", "h2h_high"),
}
"""The report's head-to-head table of the tips, as :data:`TIP_COLUMNS`."""


def tip_tables(summary: pd.DataFrame, variant: str) -> list[tuple[str, pd.DataFrame]]:
    """One variant's tips (:func:`strat_tools.stats.advice.tip_summary`), most followed first:
    followers' and the others' win rates with both intervals and the verdict, then the
    head-to-head games; each as caption and table.

    >>> summary = pd.DataFrame({"low_follow": [0.471, None], "high_follow": [0.493, None]})
    >>> _interval(summary, "low_follow", "high_follow").tolist()
    ['47.1–49.3%', '–']
    """
    rows = summary[summary["variant"] == variant]
    rows = rows.sort_values("share", ascending=False, kind="stable").reset_index(drop=True)
    setups = int(rows["setups"].max())
    distinct = int(rows["distinct_setups"].max())
    decided = int((rows["n_follow"] + rows["n_other"]).max())
    rates = (
        f"Tips followed and win rates, {variant}, most followed first (n = {setups:,} "
        f"setups, {distinct:,} distinct up to a mirror image; {decided:,} of them in decided "
        "games; ci: Wilson 95%, cluster ci: counting a setup and its mirror image once)"
    )
    duels = int(rows["h2h_games"].max())
    head_to_head = (
        f"Head to head, {variant}: decided games where exactly one side follows the tip, and "
        f"how often that side won (up to {count_of(duels, 'game')} per tip; ci: Wilson 95%)"
    )
    return [(rates, _columns(rows, TIP_COLUMNS)), (head_to_head, _columns(rows, H2H_COLUMNS))]


def _columns(rows: pd.DataFrame, columns: dict[str, str | tuple[str, str]]) -> pd.DataFrame:
    table = pd.DataFrame(index=rows.index)
    for name, source in columns.items():
        if isinstance(source, tuple):
            table[name] = _interval(rows, *source)
        else:
            table[source] = rows[name]
    return table


def _interval(rows: pd.DataFrame, low: str, high: str) -> pd.Series:
    """``'47.1–49.3%'`` per row; ``'–'`` where there is no interval."""
    return pd.Series(
        [intervals.interval_label(a, b) for a, b in zip(rows[low], rows[high], strict=True)],
        index=rows.index,
        dtype=object,
    )


def tip_findings(summary: pd.DataFrame, variant: str) -> str:
    """Which tips' followers win more, and which win less, than the rest with the clustered
    intervals too, and which gaps are no clear difference once repeated setups count once
    (from the summary's ``verdict``), in words.

    >>> summary = pd.DataFrame({"variant": ["classic"] * 4, "title": ["A", "B", "C", "D"],
    ...     "verdict": ["followers win more", "followers win less",
    ...                 "no clear difference once repeats count once", "no clear difference"]})
    >>> tip_findings(summary, "classic")
    'Findings, classic: followers win more than the rest, with the clustered intervals too, \
for A; followers win less for B; no clear difference once repeated setups count once for C; \
for the other 1 tip the intervals overlap (the gap may be chance).'
    """
    rows = summary[summary["variant"] == variant]
    named = {
        found: [str(title) for title in rows.loc[rows["verdict"] == found, "title"]]
        for found in intervals.VERDICTS
    }
    more, less = named[intervals.WIN_MORE], named[intervals.WIN_LESS]
    lost = named[intervals.NO_LONGER_HOLDS]
    chance = len(named[intervals.NOT_SIGNIFICANT])
    if not more and not less and not lost:
        if not chance:
            return (
                f"Findings, {variant}: no tip could be compared (no decided games on both sides)."
            )
        return (
            f"Findings, {variant}: for {count_of(chance, 'tip')} the intervals of followers and "
            "the rest overlap, so no gap stands out from chance."
        )
    parts = []
    if more:
        parts.append(
            "followers win more than the rest, with the clustered intervals too, for "
            + ", ".join(more)
        )
    if less:
        than = "" if more else " than the rest, with the clustered intervals too,"
        parts.append(f"followers win less{than} for " + ", ".join(less))
    if lost:
        parts.append("no clear difference once repeated setups count once for " + ", ".join(lost))
    if chance:
        parts.append(
            f"for the other {count_of(chance, 'tip')} the intervals overlap (the gap may be chance)"
        )
    return f"Findings, {variant}: " + "; ".join(parts) + "."


def repeated_setups_section(section: Section, data: ReportInputs, variant: str) -> None:
    """How often setups repeat, per variant, and the most played ones as boards; when no
    setup of ``variant`` was played twice, one sentence says so instead of boards of setups
    played once each."""
    counts = repeats.setup_counts(data.setups)
    section.text(
        "A setup is its owner's 40 squares; two games have the same setup when every square "
        "matches (its fingerprint), and the same setup up to a mirror image when one is the "
        "other reflected left to right. Repeated setups are setups played more than once "
        "(probably mostly by the same player): their games are not independent samples, so "
        "every win rate below also gets a clustered interval that counts each setup once."
    )
    section.table("Setups, distinct setups and repeats per variant", counts)
    row = counts.set_index("variant").loc[variant] if variant in set(counts["variant"]) else None
    if row is not None and row["setups"]:
        n_setups, top_count = (int(value) for value in row[["setups", "top_count"]].to_numpy())
        section.text(
            f"In {variant}, {row['repeated']:,} of {count_of(n_setups, 'setup')} "
            f"({row['repeated'] / row['setups']:.1%}) were played more than once; "
            f"{row['distinct_setups']:,} are distinct ({row['mirror_distinct_setups']:,} "
            f"counting a mirror image as the same), and "
            + (
                f"the most played setup was played {count_of(top_count, 'time')}."
                if top_count > 1
                else "no setup was played twice, so there is no list of most played setups "
                "(it would only show setups played once each)."
            )
        )
    tally = data.setups.loc[data.setups["variant"] == variant]
    top = repeats.common_setups(tally, top=REPORT_TOP_SETUPS)
    if len(top) and int(top["count"].max()) > 1:
        columns = ["rank", "fingerprint", "count", "wins", "draws", "losses", "win_rate"]
        columns += ["ci_low", "ci_high", "first_period", "last_period"]
        section.table(f"The most played {variant} setups", top[columns])
        section.figure(
            f"The {len(top)} most played {variant} setups, as their owners see them",
            setup_boards.common_setups_figure(
                top, title=f"Most played {variant} setups (owner's view, back row at the bottom)"
            ),
            f"the {len(top)} most played {variant} setups drawn as boards",
        )


def verdict(table: pd.DataFrame) -> str | None:
    """Whether a feature's yes/no gap holds, and which way: one of
    :data:`~strat_tools.stats.intervals.VERDICTS` (``followers win more`` or ``followers win
    less``: the setups with the feature, with the clustered intervals too; ``no clear
    difference once repeats count once``: only while repeated setups count as independent;
    ``no clear difference``), or None without exactly two rows (no, then yes) with
    intervals. What the report and the notebook test, not the sentence.

    >>> rows = pd.DataFrame({"win_rate": [0.4, 0.6], "ci_low": [0.35, 0.55],
    ...                      "ci_high": [0.45, 0.65], "cluster_ci_low": [0.3, 0.44],
    ...                      "cluster_ci_high": [0.5, 0.76]})
    >>> verdict(rows)
    'no clear difference once repeats count once'
    """
    if len(table) != 2:
        return None
    found = intervals.gap_verdicts(table.iloc[[1]], table.iloc[[0]]).iloc[0]
    return None if pd.isna(found) else str(found)


def finding(feature: str, table: pd.DataFrame) -> str | None:
    """:func:`verdict` in words: a feature's yes/no gap with the plain and the clustered
    intervals."""
    found = verdict(table)
    if found is None:
        return None
    no, yes = table.iloc[0], table.iloc[1]
    name = feature.replace("_", " ")
    gap = f"{yes['win_rate']:.1%} with, {no['win_rate']:.1%} without"
    if found in intervals.HOLDS:
        way = "more" if found == intervals.WIN_MORE else "less"
        return f"{name}: {gap}; setups with it win {way}, with the clustered intervals too."
    if found == intervals.NO_LONGER_HOLDS:
        return (
            f"{name}: {gap}; the plain intervals do not overlap, but the clustered ones do: "
            "no clear difference once repeated setups count once."
        )
    return f"{name}: {gap}; the intervals overlap, so the gap may be chance."
