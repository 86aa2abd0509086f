"""The report's section on repeated setups, and findings stated with both intervals.

:func:`repeated_setups_section` says how many setups there are per variant, how many are
distinct and how many were played more than once, and shows the most played ones as a table
and as boards (:mod:`strat_tools.setup_boards`), from the report's setup tally
(:func:`strat_tools.stats.repeats.setup_tally`, added up over batches). :func:`finding`
says in words whether a win-rate gap holds with the plain and with the clustered intervals.
Listed in :data:`strat_tools.report.REPORT_SECTIONS`. Draws nothing itself and reads no
files.
"""

from __future__ import annotations

from typing import Final

import pandas as pd

from strat_tools import setup_boards
from strat_tools.document import Section
from strat_tools.report_inputs import ReportInputs
from strat_tools.stats import repeats
from strat_tools.text import count_of

REPORT_TOP_SETUPS: Final = 6
"""How many of the most played setups the report draws."""


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
                else "no setup was played twice."
            )
        )
    tally = data.setups.loc[data.setups["variant"] == variant]
    top = repeats.common_setups(tally, top=REPORT_TOP_SETUPS)
    if len(top) and int(top["count"].max()) < 2:
        section.text(
            f"No {variant} setup was played more than once, so there is no list of most "
            "played setups: it would only show setups played once each."
        )
    elif len(top):
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


def finding(feature: str, table: pd.DataFrame) -> str | None:
    """Whether a feature's yes/no gap holds with the plain and the clustered intervals."""
    if len(table) != 2:
        return None
    no, yes = table.iloc[0], table.iloc[1]
    plain = no["ci_high"] < yes["ci_low"] or yes["ci_high"] < no["ci_low"]
    clustered = no["cluster_ci_high"] < yes["cluster_ci_low"] or (
        yes["cluster_ci_high"] < no["cluster_ci_low"]
    )
    name = feature.replace("_", " ")
    gap = f"{yes['win_rate']:.1%} with, {no['win_rate']:.1%} without"
    if plain and clustered:
        return f"{name}: {gap}; the gap holds with the clustered intervals too."
    if plain:
        return (
            f"{name}: {gap}; the plain intervals do not overlap, but the clustered ones do: "
            "once repeated setups count once, the gap no longer holds."
        )
    return f"{name}: {gap}; the intervals overlap, so the gap may be chance."
