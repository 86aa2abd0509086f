"""The report's corpus sections: what was read, how valid it is, how games end and last.

:func:`corpus_section` counts games per period and variant, validity, rule sets and
diagnostics by code; :func:`endings_section` shows how games end and how long they last;
:func:`side_win_rates` is red's win rate against blue per variant. Also the two helpers every
section uses on per-variant tables (:func:`select_variant`, :func:`by_variant_size`). Counts
the ``games`` and ``diagnostics`` tables only; the sections are listed in
:data:`strat_tools.report.page.REPORT_SECTIONS`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from strat_tools.core.records import VARIANTS
from strat_tools.report.inputs import ReportInputs
from strat_tools.stats.formulas import wilson
from strat_tools.stats.play import endings, game_lengths
from strat_tools.views import charts
from strat_tools.views.document import Section


def corpus_section(section: Section, data: ReportInputs) -> None:
    """Games per variant and period, validity, and diagnostics by code."""
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


def endings_section(section: Section, data: ReportInputs) -> None:
    """How games end and how long they last."""
    section.text("Invalid games are left out; a ply is one player's move.")
    ends = endings(data.games, by="variant")
    ends = by_variant_size(ends.sort_values("games", ascending=False), data.games)
    section.table("How games end, per variant (games = n in that row)", ends)
    lengths = game_lengths(data.games, by="variant").sort_values("games", ascending=False)
    section.table("Game length in plies, per variant (games = n)", lengths)
    section.figure(
        "Game lengths (histogram per variant)",
        charts.game_length_histogram(data.games),
        "histogram of game lengths in plies",
    )


def side_win_rates(games: pd.DataFrame) -> pd.DataFrame:
    """Per variant: decided games, red wins, red's win rate and its Wilson interval."""
    decided = games.loc[(games["status"] != "invalid") & games["winner"].notna()]
    rows = []
    for variant, group in decided.groupby(decided["variant"].astype(str), sort=True):
        n, k = len(group), int((group["winner"] == "red").sum())
        low, high = (float(x) for x in wilson(k, n))
        rows.append(
            {
                "variant": variant,
                "games": n,
                "red_wins": k,
                "red_win_rate": k / n,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(
        rows, columns=["variant", "games", "red_wins", "red_win_rate", "ci_low", "ci_high"]
    )


def select_variant(table: pd.DataFrame, variant: str) -> pd.DataFrame:
    """One variant's rows of a per-variant table, without the variant column."""
    rows = table[table["variant"].astype(str) == variant]
    return rows.drop(columns="variant").reset_index(drop=True)


def by_variant_size(table: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Rows ordered by their variant's number of games (classic first), stably."""
    order = {v: i for i, v in enumerate(games["variant"].astype(str).value_counts().index)}
    rank = table["variant"].astype(str).map(order).fillna(len(order))
    return table.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)
