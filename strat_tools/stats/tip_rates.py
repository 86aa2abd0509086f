"""The rulebooks' tips counted: adoption, win rates and head-to-head, with plain intervals and
intervals that know setups repeat.

One count, :func:`tip_counts`, per group, tip and *setup cluster* (the mirror fingerprint,
:data:`~strat_tools.stats.tips.CLUSTER`: a setup and its mirror image are one cluster, however
often they were played). Counts of separate batches add up (a game's two setups are in one
batch; a cluster may span batches and its rows add), so a streamed run keeps one row per
group, tip and distinct setup, in integer columns, never one per game. Everything else is
finished from those counts (:func:`tip_summary_from_counts`):

- adoption: ``setups`` (where the tip applies), ``distinct_setups`` (clusters among them),
  ``followed``, ``share``;
- win rates of followers and of the rest over decided games (draws and unknown results
  left out): ``n_*``, ``distinct_*``, ``wins_*``, ``rate_*``, the Wilson interval
  ``low_*``/``high_*`` and the clustered one ``cluster_ci_low_*``/``cluster_ci_high_*``
  (:func:`strat_tools.stats.intervals.win_rates_of_clusters`, the one clustered interval),
  their ``difference`` and its ``verdict`` (:func:`~strat_tools.stats.intervals.gap_verdicts`:
  followers win more / followers win less / no clear difference once repeats count once /
  no clear difference);
- head-to-head: games where exactly one side follows, clustered by the follower's setup.

:func:`tip_adoption`, :func:`tip_win_rates` and :func:`tip_head_to_head` are columns of that
one summary; :func:`tip_digest` is its short form for reading (``strat-tools advice``'s
table). Reads no files, draws nothing, and claims no cause (docs/advice.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import pandas as pd

from strat_tools.stats.intervals import gap_verdicts, rate_label, win_rates_of_clusters
from strat_tools.stats.tips import CLUSTER, TIP_NAMES, TIPS

TIP_COUNTS: Final = (
    "setups",
    "followed",
    "n_follow",
    "wins_follow",
    "n_other",
    "wins_other",
    "h2h_games",
    "h2h_wins",
)
"""The count columns of :func:`tip_counts`: they add up across batches of games."""


def tip_count_keys(by: Sequence[str] = ("variant",)) -> list[str]:
    """The key columns of :func:`tip_counts`: ``[*by, "tip", CLUSTER]``."""
    return [*by, "tip", CLUSTER]


def _long_tips(features: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Melt the tip columns: one row per (setup, applicable tip) with ``follows``."""
    present = [name for name in TIP_NAMES if name in features.columns]
    keep = [*by, "won"] if "won" in features.columns else list(by)
    long = features.melt(id_vars=keep, value_vars=present, var_name="tip", value_name="follows")
    return long[long["follows"].notna()]


def tip_counts(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """The counts behind :func:`tip_summary`: :func:`tip_count_keys` then :data:`TIP_COUNTS`,
    one row per group, tip and setup cluster.

    ``setups``/``followed``: the cluster's setups where the tip applies, and those following
    it; ``n_follow``/``wins_follow`` and ``n_other``/``wins_other``: its decided ones;
    ``h2h_games``/``h2h_wins``: decided games where exactly one side follows the tip and
    this cluster is the follower's setup, and how many of them it won. Rows of separate
    batches add up per key (:func:`strat_tools.stats.stream.sum_counts`).
    """
    keys = tip_count_keys(by)
    long = _long_tips(features, [*by, "game_id", CLUSTER])
    follow = long["follows"].astype(bool).to_numpy()
    decided = long["won"].notna().to_numpy()
    won = long["won"].fillna(False).astype(bool).to_numpy() & decided
    # Head-to-head: per game and tip, both sides decided and exactly one following.
    per_game = long.assign(_decided=decided, _follow=follow & decided).groupby(
        [*by, "tip", "game_id"], sort=False, observed=True
    )
    sides = per_game["_decided"].transform("sum").to_numpy()
    followers = per_game["_follow"].transform("sum").to_numpy()
    duel = decided & follow & (sides == 2) & (followers == 1)
    flags = {
        "setups": np.ones(len(long), dtype=np.int64),
        "followed": follow,
        "n_follow": follow & decided,
        "wins_follow": follow & won,
        "n_other": ~follow & decided,
        "wins_other": ~follow & won,
        "h2h_games": duel,
        "h2h_wins": duel & won,
    }
    counted = long[keys].assign(**{name: np.asarray(v, np.int64) for name, v in flags.items()})
    table = counted.groupby(keys, sort=False, observed=True)[list(TIP_COUNTS)].sum()
    table = table.reset_index()
    return table.astype({CLUSTER: np.uint64, **dict.fromkeys(TIP_COUNTS, np.int64)})


def _rates(counts: pd.DataFrame, keys: list[str], n: str, wins: str, suffix: str) -> pd.DataFrame:
    """Both intervals of ``wins`` in ``n`` per group of ``keys``, from the clusters with
    ``n > 0``; columns renamed with ``suffix`` (``low_follow``, ``cluster_ci_low_follow``)."""
    per = counts.loc[counts[n] > 0, [*keys, CLUSTER, n, wins]]
    rates = win_rates_of_clusters(per.rename(columns={n: "setups", wins: "wins"}), keys)
    return rates.rename(
        columns={
            "setups": n,
            "distinct_setups": f"distinct_{suffix}",
            "wins": wins,
            "win_rate": f"rate_{suffix}",
            "ci_low": f"low_{suffix}",
            "ci_high": f"high_{suffix}",
            "cluster_ci_low": f"cluster_ci_low_{suffix}",
            "cluster_ci_high": f"cluster_ci_high_{suffix}",
        }
    )


def _sides(table: pd.DataFrame, suffix: str) -> pd.DataFrame:
    """One side's interval columns under the names :func:`gap_verdicts` reads."""
    names = {
        f"low_{suffix}": "ci_low",
        f"high_{suffix}": "ci_high",
        f"cluster_ci_low_{suffix}": "cluster_ci_low",
        f"cluster_ci_high_{suffix}": "cluster_ci_high",
    }
    return table[list(names)].rename(columns=names)


def tip_summary_from_counts(counts: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """:func:`tip_summary` from :func:`tip_counts` (of one batch, or summed over many).

    Rate columns are NA for a tip without decided games; head-to-head ones without a game
    where exactly one side follows it (``h2h_games`` 0).
    """
    keys = [*by, "tip"]
    grouped = counts.assign(_distinct=(counts["setups"] > 0).astype(np.int64)).groupby(
        keys, sort=False, observed=True
    )
    adoption = grouped[["setups", "_distinct", "followed"]].sum().reset_index()
    adoption = adoption.rename(columns={"_distinct": "distinct_setups"})
    adoption["share"] = adoption["followed"] / adoption["setups"]
    follow = _rates(counts, keys, "n_follow", "wins_follow", "follow")
    other = _rates(counts, keys, "n_other", "wins_other", "other")
    rates = follow.merge(other, on=keys, how="outer")
    for column in (
        "n_follow",
        "wins_follow",
        "distinct_follow",
        "n_other",
        "wins_other",
        "distinct_other",
    ):
        rates[column] = rates[column].fillna(0).astype(np.int64)
    rates["difference"] = rates["rate_follow"] - rates["rate_other"]
    rates["verdict"] = gap_verdicts(_sides(rates, "follow"), _sides(rates, "other")).to_numpy()
    duels = _rates(counts, keys, "h2h_games", "h2h_wins", "h2h").rename(
        columns={
            "distinct_h2h": "h2h_distinct",
            "rate_h2h": "h2h_rate",
            "low_h2h": "h2h_low",
            "high_h2h": "h2h_high",
            "cluster_ci_low_h2h": "h2h_cluster_ci_low",
            "cluster_ci_high_h2h": "h2h_cluster_ci_high",
        }
    )
    table = adoption.merge(rates, on=keys, how="left").merge(duels, on=keys, how="left")
    for column in ("h2h_games", "h2h_distinct", "h2h_wins"):
        table[column] = table[column].fillna(0).astype(np.int64)
    titles = {tip.name: tip.title for tip in TIPS}
    table["title"] = table["tip"].map(titles)
    return _order_tips(table[[*keys, *SUMMARY_COLUMNS]], by)


SUMMARY_COLUMNS: Final = (
    "title",
    "setups",
    "distinct_setups",
    "followed",
    "share",
    "n_follow",
    "distinct_follow",
    "wins_follow",
    "rate_follow",
    "low_follow",
    "high_follow",
    "cluster_ci_low_follow",
    "cluster_ci_high_follow",
    "n_other",
    "distinct_other",
    "wins_other",
    "rate_other",
    "low_other",
    "high_other",
    "cluster_ci_low_other",
    "cluster_ci_high_other",
    "difference",
    "verdict",
    "h2h_games",
    "h2h_distinct",
    "h2h_wins",
    "h2h_rate",
    "h2h_low",
    "h2h_high",
    "h2h_cluster_ci_low",
    "h2h_cluster_ci_high",
)
"""The columns of :func:`tip_summary` after ``[*by, tip]``."""


def tip_summary(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Adoption, win rates and head-to-head side by side: one row per tip (and group),
    columns ``[*by, tip, *SUMMARY_COLUMNS]`` (see the module docstring), the finish of
    :func:`tip_counts`."""
    return tip_summary_from_counts(tip_counts(features, by), by)


def tip_adoption(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """How many setups follow each tip: columns [*by, tip, setups, distinct_setups,
    followed, share] (``setups``: where the tip applies; ``share = followed / setups``)."""
    columns = [*by, "tip", "setups", "distinct_setups", "followed", "share"]
    return tip_summary(features, by)[columns]


def tip_win_rates(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Win rate of setups following each tip against those that do not, with Wilson and
    clustered 95% intervals, the difference and its verdict; tips with decided games only.

    Only setups with a known winner count (``won`` not NA): draws and unknown results are
    excluded; resignations, timeouts and disconnections count as the record says.
    """
    summary = tip_summary(features, by)
    start, stop = SUMMARY_COLUMNS.index("n_follow"), SUMMARY_COLUMNS.index("verdict") + 1
    decided = summary["rate_follow"].notna() | summary["rate_other"].notna()
    table = summary.loc[decided, [*by, "tip", *SUMMARY_COLUMNS[start:stop]]]
    return table.reset_index(drop=True)


def tip_head_to_head(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Games where exactly one side follows a tip: how often that side wins, with Wilson and
    clustered (by the follower's setup) 95% intervals.

    Both setups of a game meet the same ending, clock and server, so this within-game view
    is less exposed to game-level noise than :func:`tip_win_rates`; it still cannot tell the
    tip from the skill of the players who choose it. Decided games only (no draws).
    Columns: [*by, tip, games, distinct_setups, follower_wins, rate, low, high,
    cluster_ci_low, cluster_ci_high].
    """
    summary = tip_summary(features, by)
    names = {
        "h2h_games": "games",
        "h2h_distinct": "distinct_setups",
        "h2h_wins": "follower_wins",
        "h2h_rate": "rate",
        "h2h_low": "low",
        "h2h_high": "high",
        "h2h_cluster_ci_low": "cluster_ci_low",
        "h2h_cluster_ci_high": "cluster_ci_high",
    }
    table = summary.loc[summary["h2h_games"] > 0, [*by, "tip", *names]]
    return table.rename(columns=names).reset_index(drop=True)


def _order_tips(table: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    order = {name: i for i, name in enumerate(TIP_NAMES)}
    table = table.assign(_order=table["tip"].map(order))
    return table.sort_values([*by, "_order"]).drop(columns="_order").reset_index(drop=True)


DIGEST_COLUMNS: Final = ("tip", "followed", "win_rate_following", "win_rate_rest", "verdict")
"""The columns of :func:`tip_digest` after ``variant``."""


def tip_digest(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary (:func:`tip_summary`) in short, to read: per variant and tip, the share of
    setups following it, the win rate of those that do and of the rest, each with its
    clustered 95% interval (every distinct setup counted once), and the verdict
    (:data:`~strat_tools.stats.intervals.VERDICTS`; ``–`` where one side has no decided
    game). Text cells: the full record, every count and both intervals, is the summary.

    >>> summary = pd.DataFrame({"variant": ["classic"], "tip": ["flag_bombed_in"],
    ...     "share": [0.508], "rate_follow": [0.556], "cluster_ci_low_follow": [0.498],
    ...     "cluster_ci_high_follow": [0.611], "rate_other": [0.443],
    ...     "cluster_ci_low_other": [0.387], "cluster_ci_high_other": [0.501],
    ...     "verdict": ["no clear difference"]})
    >>> tip_digest(summary).iloc[0].tolist()
    ['classic', 'flag_bombed_in', '50.8%', '55.6% (49.8–61.1%)', '44.3% (38.7–50.1%)', \
'no clear difference']
    """

    def rates(side: str) -> list[str]:
        columns = (f"rate_{side}", f"cluster_ci_low_{side}", f"cluster_ci_high_{side}")
        return [rate_label(*row) for row in zip(*(summary[c] for c in columns), strict=True)]

    return pd.DataFrame(
        {
            "variant": summary["variant"].astype(str),
            "tip": summary["tip"].astype(str),
            "followed": [
                f"{share * 100:.1f}%" if pd.notna(share) else "–" for share in summary["share"]
            ],
            "win_rate_following": rates("follow"),
            "win_rate_rest": rates("other"),
            "verdict": summary["verdict"].astype(object).where(summary["verdict"].notna(), "–"),
        }
    )
