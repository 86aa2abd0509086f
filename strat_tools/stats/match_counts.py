"""A setup search's counts, which add up across batches: what ``search`` keeps of the games.

A pattern search (:func:`strat_tools.stats.repeats.search_setups`) answers with two rows,
the matching setups and the rest: setups, games, wins, draws, losses, distinct setups (as
drawn and up to a mirror image) and win rates with the clustered interval (clusters:
mirror fingerprints). Each is a sum over distinct setups, or over games counted where they
are read (a game never spans two batches), so a streamed search counts a batch at a time
(:func:`count_matches`), adds the counts (:func:`add_match_counts`) and finishes once
(:func:`match_summary`). Memory holds a row per distinct setup on each side of the
comparison, never one per game; only the listing of the matching setups (game, side,
through the mirror image), which the answer shows when asked for, grows with them.

This module matches nothing itself: it is given the setups' rows and which of them match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from strat_tools.stats.intervals import win_rates_of_clusters

GROUPS: Final = ("matching", "rest")
"""The two rows of a search's summary, in order."""
MATCH_KEYS: Final = ("match", "variant", "fingerprint", "mirror_fingerprint")
"""The keys of :attr:`MatchCounts.tally` (``match``: one of :data:`GROUPS`)."""
MATCH_COUNTS: Final = ("count", "wins", "draws", "losses")
"""Its counts, which add up across batches."""
LISTING_COLUMNS: Final = ("game_id", "side", "mirror")
"""Columns of :attr:`MatchCounts.matches`: a matching setup's game and side, and whether
only the pattern's mirror image matched it."""


@dataclass(frozen=True)
class MatchCounts:
    """A search's counts over some batches.

    ``tally`` has a row per distinct setup and group (:data:`MATCH_KEYS`,
    :data:`MATCH_COUNTS`); ``games`` the games with a setup in each group (a game whose two
    setups are in one group counts once); ``variants`` every variant among the setups
    looked at (before a side was chosen); ``matches`` the matching setups in input order
    (:data:`LISTING_COLUMNS`), or ``None`` when they were not kept.
    """

    tally: pd.DataFrame
    games: tuple[int, int]
    variants: frozenset[str]
    matches: pd.DataFrame | None


def count_matches(
    frame: pd.DataFrame,
    hit: np.ndarray[Any, np.dtype[np.bool_]],
    through_mirror: np.ndarray[Any, np.dtype[np.bool_]],
    *,
    variants: frozenset[str],
    listing: bool = True,
) -> MatchCounts:
    """The counts of the setup rows ``frame`` (``game_id``, ``side``, ``variant``,
    ``result``, ``fingerprint``, ``mirror_fingerprint``; each game's rows in one ``frame``),
    ``hit`` marking the matching ones and ``through_mirror`` those matched only as a mirror
    image; ``listing``: keep the matching rows' :data:`LISTING_COLUMNS` too.

    >>> frame = pd.DataFrame({"game_id": ["g1", "g1", "g2"], "side": ["red", "blue", "red"],
    ...     "variant": "classic", "result": ["win", "loss", None],
    ...     "fingerprint": ["a", "b", "a"], "mirror_fingerprint": ["a", "b", "a"]})
    >>> counts = count_matches(frame, np.array([True, False, True]), np.zeros(3, bool),
    ...     variants=frozenset({"classic"}))
    >>> counts.tally[["match", "fingerprint", "count", "wins", "losses"]]
          match fingerprint  count  wins  losses
    0  matching           a      2     1       0
    1      rest           b      1     0       1
    >>> counts.games, counts.matches["game_id"].tolist()
    ((2, 1), ['g1', 'g2'])
    """
    result = frame["result"].to_numpy(dtype=object, na_value="")
    keyed = pd.DataFrame(
        {
            "match": np.where(hit, GROUPS[0], GROUPS[1]).astype(object),
            "variant": frame["variant"].astype(str).to_numpy(dtype=object),
            "fingerprint": frame["fingerprint"].to_numpy(dtype=object),
            "mirror_fingerprint": frame["mirror_fingerprint"].to_numpy(dtype=object),
            "count": np.ones(len(frame), dtype=np.int64),
            "wins": (result == "win").astype(np.int64),
            "draws": (result == "draw").astype(np.int64),
            "losses": (result == "loss").astype(np.int64),
        }
    )
    tally = keyed.groupby(list(MATCH_KEYS), sort=True).sum().reset_index()
    game, _ = pd.factorize(frame["game_id"].to_numpy(dtype=object))
    games = (len(np.unique(game[hit])), len(np.unique(game[~hit])))
    matches = None
    if listing:
        matches = pd.DataFrame(
            {
                "game_id": frame["game_id"].astype(str).to_numpy(dtype=object)[hit],
                "side": frame["side"].astype(str).to_numpy(dtype=object)[hit],
                "mirror": np.asarray(through_mirror, dtype=bool)[hit],
            }
        )
    return MatchCounts(tally, games, variants, matches)


def add_match_counts(parts: Sequence[MatchCounts]) -> MatchCounts:
    """The counts of several batches (in input order) as one."""
    tally = pd.concat([part.tally for part in parts], ignore_index=True)
    tally = tally.groupby(list(MATCH_KEYS), sort=True)[list(MATCH_COUNTS)].sum().reset_index()
    games = (sum(part.games[0] for part in parts), sum(part.games[1] for part in parts))
    variants = frozenset().union(*(part.variants for part in parts))
    listed = [part.matches for part in parts]
    matches = None
    if listed and all(m is not None for m in listed):
        matches = pd.concat(listed, ignore_index=True)
    return MatchCounts(tally, games, variants, matches)


def match_summary(counts: MatchCounts) -> pd.DataFrame:
    """The search's summary, indexed by :data:`GROUPS`, but ``score_z``: setups, games,
    wins, draws, losses, distinct setups (as drawn, and up to a mirror image) and both
    win-rate intervals (clusters: mirror fingerprints)."""
    tally = counts.tally
    rows, per = [], []
    for name, games in zip(GROUPS, counts.games, strict=True):
        part = tally.loc[tally["match"] == name]
        decided = part.assign(setups=part["wins"] + part["losses"])
        clusters = decided.groupby("mirror_fingerprint", sort=True)[["setups", "wins"]].sum()
        clusters = clusters.loc[clusters["setups"] > 0]
        per.append(clusters.reset_index().assign(match=name))
        rows.append(
            {
                "match": name,
                "count": int(part["count"].sum()),
                "games": games,
                "wins": int(part["wins"].sum()),
                "draws": int(part["draws"].sum()),
                "losses": int(part["losses"].sum()),
                "distinct_setups": part["fingerprint"].nunique(),  # as drawn
                "mirror_distinct_setups": part["mirror_fingerprint"].nunique(),  # up to a mirror
            }
        )
    table = pd.DataFrame(rows).set_index("match").astype("int64")
    rates = win_rates_of_clusters(pd.concat(per, ignore_index=True), ["match"]).set_index("match")
    rates = rates.drop(columns=["setups", "wins", "distinct_setups"])
    return table.join(rates, how="left")
