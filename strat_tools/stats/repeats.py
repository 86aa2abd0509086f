"""Statistics that know setups repeat: which setups, how often, how they did, and search.

Every function takes a :class:`~strat_tools.tables.dataset.GameSet` (or anything with ``games``
and ``setups`` frames) and works on its setups as ``[n, 40]`` codes
(:func:`strat_tools.setups.identity.setup_array`): one row per setup (a game and a side), in the
owner's view. Variants are never pooled silently: the default is ``variant="classic"``,
and ``variant=None`` keeps every variant but classicfree, with a ``variant`` column.
Invalid games are left out, as in every statistic.

- :func:`setup_outcomes`: one row per setup with its fingerprints and its result;
- :func:`setup_counts`: setups, distinct setups and mirror-distinct setups per variant;
- :func:`common_setups`: the most played setups with wins, draws, losses and intervals;
- :func:`search_setups`: the setups a :class:`~strat_tools.setups.patterns.Pattern` matches, and
  their win rate against the rest's (streamed: :func:`search_counts` a batch at a time,
  counts per distinct setup that add up, and :func:`finish_search` once).

Win rates count decided games only (draws apart) and carry both intervals of
:mod:`strat_tools.stats.intervals`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from strat_tools.core.errors import OptionError
from strat_tools.core.records import DEFAULT_VARIANT
from strat_tools.setups.identity import (
    OTHER,
    SetupArray,
    canonical,
    codes_of_strings,
    draw_setup,
    fingerprints,
    mirror_fingerprints,
    setup_array,
    setup_letters,
)
from strat_tools.setups.patterns import Pattern, SetupPattern
from strat_tools.setups.strings import SETUP_FORMATS, code_strings, setup_columns
from strat_tools.stats.frames import TableSet
from strat_tools.stats.intervals import score_z, two_proportion_z, win_rates_of_clusters
from strat_tools.stats.match_counts import MatchCounts, count_matches, match_summary

Variant = str | Sequence[str] | None

OUTCOME_COLUMNS: Final = (
    "game_id",
    "side",
    "variant",
    "period",
    "result",
    "fingerprint",
    "mirror_fingerprint",
)
"""Columns of :attr:`SetupOutcomes.frame`; ``result`` is ``win``/``draw``/``loss`` from the
setup owner's side, NA where the record names no result."""


@dataclass(frozen=True)
class SetupOutcomes:
    """Setups (``codes``, ``[n, 40]``) and, row for row, their :data:`OUTCOME_COLUMNS`."""

    codes: np.ndarray[Any, np.dtype[np.uint8]]
    frame: pd.DataFrame

    def __len__(self) -> int:
        return len(self.frame)

    def take(self, rows: Any) -> SetupOutcomes:
        """The setups at ``rows`` (a boolean mask or indices)."""
        index = np.asarray(rows)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        return SetupOutcomes(self.codes[index], self.frame.iloc[index].reset_index(drop=True))


def _variants(variant: Variant) -> list[str] | None:
    if variant is None:
        return None
    return [variant] if isinstance(variant, str) else list(variant)


def setup_outcomes(data: TableSet, variant: Variant = DEFAULT_VARIANT) -> SetupOutcomes:
    """Every setup of ``variant`` (a name, a list, or None: all but classicfree) with its
    fingerprints and its owner's result; invalid games left out."""
    return _outcomes(setup_array(data.setups), data.games, variant)


def concat_outcomes(
    parts: Sequence[SetupOutcomes], variant: Variant = DEFAULT_VARIANT
) -> SetupOutcomes:
    """The setups of several batches as one, in order (``variant`` only shapes the empty
    answer): what a streamed read keeps, a setup's codes and its context, never a
    batch's tables."""
    if not parts:
        from strat_tools.tables.dataset import empty_gameset

        return setup_outcomes(empty_gameset(), variant)
    codes = np.concatenate([part.codes for part in parts])
    return SetupOutcomes(codes, pd.concat([part.frame for part in parts], ignore_index=True))


def string_outcomes(games: pd.DataFrame, variant: Variant = DEFAULT_VARIANT) -> SetupOutcomes:
    """:func:`setup_outcomes` from a ``games`` frame alone, through its ``red_setup`` and
    ``blue_setup`` strings (no setups table): the same rows in the same order (game by
    game, red before blue), for any variant whose setups all have a string (every one but
    classicfree)."""
    table = pa.Table.from_pandas(games[["red_setup", "blue_setup"]], preserve_index=False)
    red, red_known = codes_of_strings(table.column("red_setup"))
    blue, blue_known = codes_of_strings(table.column("blue_setup"))
    ids = games["game_id"].astype(str).to_numpy(dtype=object)
    known = np.stack([red_known, blue_known], axis=1).ravel()
    found = SetupArray(
        np.repeat(ids, 2)[known],
        np.tile(np.array(["red", "blue"], dtype=object), len(ids))[known],
        np.stack([red, blue], axis=1).reshape(-1, 40)[known],
    )
    return _outcomes(found, games, variant)


def _outcomes(found: SetupArray, games_frame: pd.DataFrame, variant: Variant) -> SetupOutcomes:
    """The setups ``found`` with their games' context: the shared part of both readers.
    Each context column is converted once for the games and then taken row by row with
    NumPy indices (not a frame indexed per setup)."""
    at = pd.Index(games_frame["game_id"]).get_indexer(pd.Index(found.game_id))
    known = at >= 0
    found, at = found.take(known), at[known]
    variants = games_frame["variant"].astype(str)
    wanted = _variants(variant)
    names = variants.to_numpy(dtype=object)[at]
    keep = np.isin(names, wanted) if wanted is not None else names != "classicfree"
    keep &= games_frame["status"].astype(str).to_numpy(dtype=object)[at] != "invalid"
    found, at = found.take(keep), at[keep]
    winner = games_frame["winner"].astype("string").fillna("").to_numpy(dtype=object)[at]
    draw = games_frame["draw"].astype("boolean").fillna(False).to_numpy(dtype=bool)[at]
    result = np.select(
        [draw, winner == np.asarray(found.side, dtype=object), winner != ""],
        ["draw", "win", "loss"],
        default="",
    )
    period = games_frame["period"].astype("string").to_numpy(dtype=object)
    frame = pd.DataFrame(
        {
            "game_id": found.game_id.astype(str),
            "side": found.side.astype(str),
            "variant": variants.to_numpy()[at],
            "period": period[at],
            "result": pd.Series(result, dtype="string").replace("", pd.NA).to_numpy(),
            "fingerprint": fingerprints(found.codes),
            "mirror_fingerprint": mirror_fingerprints(found.codes),
        }
    )
    return SetupOutcomes(found.codes, frame)


TALLY_KEYS: Final = ("variant", "fingerprint", "mirror_fingerprint", "setup")
"""The keys of a setup tally (``setup``: 40 red letters, back row first)."""
TALLY_COUNTS: Final = ("count", "games", "wins", "draws", "losses")
"""Its counts, which add up across batches (a game never spans two batches)."""


def setup_tally(data: TableSet | SetupOutcomes, variant: Variant = None) -> pd.DataFrame:
    """One row per distinct setup: :data:`TALLY_KEYS`, :data:`TALLY_COUNTS` and
    ``first_period``/``last_period``. Tallies of batches add up with :func:`add_tallies`,
    so a streamed run needs one row per distinct setup, not one per game."""
    outcomes = data if isinstance(data, SetupOutcomes) else setup_outcomes(data, variant)
    frame = outcomes.frame.assign(setup=setup_letters(outcomes.codes))
    result = frame["result"]
    flags = {
        name: (result == value).fillna(False).astype("int64")
        for name, value in (("wins", "win"), ("draws", "draw"), ("losses", "loss"))
    }
    grouped = frame.assign(**flags).groupby(list(TALLY_KEYS), sort=True)
    table = grouped.agg(
        count=("game_id", "size"),
        games=("game_id", "nunique"),
        wins=("wins", "sum"),
        draws=("draws", "sum"),
        losses=("losses", "sum"),
        first_period=("period", "min"),
        last_period=("period", "max"),
    )
    return table.reset_index()


def add_tallies(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Tallies of several batches as one."""
    frame = pd.concat(parts, ignore_index=True)
    how = dict.fromkeys(TALLY_COUNTS, "sum") | {"first_period": "min", "last_period": "max"}
    return frame.groupby(list(TALLY_KEYS), sort=True).agg(how).reset_index()


def setup_counts(
    data: TableSet | SetupOutcomes | pd.DataFrame, variant: Variant = None
) -> pd.DataFrame:
    """Per variant: ``setups``, ``distinct_setups``, ``mirror_distinct_setups``, the most
    played setup's ``top_count`` and the ``repeated`` setups (those whose setup was played
    more than once), so a reader sees at once how far setups repeat. ``data`` may be a
    tally (:func:`setup_tally`)."""
    tally = data if isinstance(data, pd.DataFrame) else setup_tally(data, variant)
    rows = []
    for name, group in tally.groupby("variant", sort=True):
        counts = group["count"]
        rows.append(
            {
                "variant": name,
                "setups": int(counts.sum()),
                "distinct_setups": len(group),
                "mirror_distinct_setups": group["mirror_fingerprint"].nunique(),
                "top_count": int(counts.max()),
                "repeated": int(counts[counts > 1].sum()),
            }
        )
    columns = ["variant", "setups", "distinct_setups", "mirror_distinct_setups"]
    return pd.DataFrame(rows, columns=[*columns, "top_count", "repeated"])


def _summarise(tally: pd.DataFrame, group: str) -> pd.DataFrame:
    """Per ``group`` of tally rows: the summed counts, first and last period, the most
    played member's variant and setup, and both win-rate intervals (clusters: mirror
    fingerprints)."""
    ordered = tally.sort_values(["count", "fingerprint"], ascending=[False, True], kind="stable")
    grouped = ordered.groupby(group, sort=False)
    how = dict.fromkeys(TALLY_COUNTS, "sum") | {"first_period": "min", "last_period": "max"}
    table = grouped.agg(how | {"variant": "first", "setup": "first"})
    table["distinct_setups"] = grouped["fingerprint"].nunique()  # as drawn
    table["mirror_distinct_setups"] = grouped["mirror_fingerprint"].nunique()  # up to a mirror
    clusters = ordered.assign(setups=ordered["wins"] + ordered["losses"])
    clusters = clusters.loc[clusters["setups"] > 0]
    per = clusters.groupby([group, "mirror_fingerprint"], sort=True)[["setups", "wins"]].sum()
    rates = win_rates_of_clusters(per.reset_index(), [group]).set_index(group)
    rates = rates.drop(columns=["setups", "wins", "distinct_setups"])
    return table.join(rates, how="left").reset_index(names=group)


def common_setups(
    data: TableSet | SetupOutcomes | pd.DataFrame,
    *,
    variant: Variant = DEFAULT_VARIANT,
    mirror: bool = False,
    top: int = 20,
    min_count: int = 1,
    near: int = 0,
    setup_format: str | None = None,
) -> pd.DataFrame:
    """The most played setups, most played first.

    One row per setup (``mirror=True``: per setup-or-its-mirror; ``near=K``: per group of
    setups that differ from the group's most played one in at most ``K`` squares), with
    ``fingerprint`` (the setup's; with ``mirror``, the mirror fingerprint), ``count``
    (setups), ``games`` (summed over the row's setups: a game whose two sides both played
    one of a group's setups counts twice), ``wins``/``draws``/``losses``, ``win_rate`` of
    the decided ones with ``ci_low``/``ci_high`` and ``cluster_ci_low``/``cluster_ci_high``,
    ``distinct_setups`` (distinct setups in the row, as drawn: 1 unless ``mirror`` or
    ``near``) and ``mirror_distinct_setups`` (distinct up to a mirror image: 1 unless ``near``),
    ``first_period``/``last_period``, ``variant``, ``setup`` (the most played member as 40
    red letters, back row first) and ``board`` (its 4x10 drawing). ``top=0`` lists every
    one. ``data`` may be a tally (:func:`setup_tally`) of any number of batches.
    ``setup_format`` (a name of :data:`~strat_tools.setups.strings.SETUP_FORMATS`) adds,
    after ``fingerprint``, the column ``setup_<name>``: the most played member in that
    40-character encoding (``ataraxos``: a line of Ataraxos' human setups); for a format
    whose string depends on the colour, one column per colour, ``setup_<name>_red`` and
    ``setup_<name>_blue`` (``stratego_env``: its player 1 and player 2 strings;
    :func:`~strat_tools.setups.strings.setup_columns`).

    >>> from strat_tools.run.driver import read_games
    >>> table = common_setups(read_games("data/", setups_only=True, run=1), top=1)
    >>> table[["rank", "fingerprint", "count", "wins", "draws", "losses"]]
       rank       fingerprint  count  wins  draws  losses
    0     1  0136785bf52a0e43      1     0      0       1
    """
    if top < 0 or min_count < 1 or near < 0:
        raise ValueError("top must be >= 0, min_count >= 1 and near >= 0")
    if setup_format is not None and setup_format not in SETUP_FORMATS:
        raise OptionError(
            f"unknown setup format {setup_format!r}; choose from {', '.join(SETUP_FORMATS)}"
        )
    tally = data if isinstance(data, pd.DataFrame) else setup_tally(data, variant)
    key = "mirror_fingerprint" if mirror else "fingerprint"
    tally = tally.assign(group=tally[key])
    if near:
        tally = tally.assign(group=_near_groups(tally, key, near, top, mirror))
        tally = tally.loc[tally["group"].notna()]
    table = _summarise(tally, "group").rename(columns={"group": "fingerprint"})
    table = table.loc[table["count"] >= min_count]
    table = table.sort_values(["count", "fingerprint"], ascending=[False, True], kind="stable")
    if top:
        table = table.head(top)
    codes = _codes_of_letters(table["setup"])
    table = table.assign(board=[draw_setup(code) for code in codes])
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    columns = ["rank", "fingerprint"]
    if setup_format is not None:
        for encoded, side in setup_columns(setup_format).items():
            strings = code_strings(codes, setup_format, side)
            table[encoded] = pd.array(strings, dtype="string")
            columns.append(encoded)
    columns += [*TALLY_COUNTS, "win_rate", "ci_low", "ci_high"]
    columns += ["cluster_ci_low", "cluster_ci_high", "distinct_setups", "mirror_distinct_setups"]
    columns += ["first_period"]
    return table[[*columns, "last_period", "variant", "setup", "board"]].reset_index(drop=True)


def _codes_of_letters(letters: Any) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """Setup codes of 40-letter setups (``_`` for a square not the owner's)."""
    text = "".join(letters).encode()
    raw = np.frombuffer(text, dtype=np.uint8).reshape(-1, 40).astype(np.int16) - ord("A")
    return np.where(raw == ord("_") - ord("A"), OTHER, raw).astype(np.uint8)


def _near_groups(
    tally: pd.DataFrame, key: str, near: int, top: int, mirror: bool
) -> np.ndarray[Any, Any]:
    """Each tally row's group: the most played distinct ``key`` (in count order) within
    ``near`` squares of it, taken greedily; with ``top``, only the first ``top`` groups are
    formed (the rest stay NA)."""
    per_key = tally.groupby(key, sort=True).agg(count=("count", "sum"), setup=("setup", "first"))
    per_key = per_key.sort_values("count", ascending=False, kind="stable")
    reps = _codes_of_letters(per_key["setup"])
    if mirror:
        reps = canonical(reps)
    group = np.full(len(per_key), None, dtype=object)
    open_ = np.ones(len(per_key), dtype=bool)
    names = per_key.index.to_numpy()
    formed = 0
    for i in range(len(per_key)):
        if not open_[i]:
            continue
        members = open_ & ((reps != reps[i]).sum(axis=1) <= near)
        group[members] = names[i]
        open_ &= ~members
        formed += 1
        if top and formed >= top:
            break
    return pd.Series(group, index=names).loc[tally[key]].to_numpy()


@dataclass(frozen=True)
class SearchResult:
    """What :func:`search_setups` found.

    ``summary`` has two rows, ``matching`` and ``rest``: setups, ``distinct_setups`` (as
    drawn) and ``mirror_distinct_setups`` (distinct up to a mirror image), games,
    wins/draws/losses, win rate with both intervals, and ``score_z`` (rhalbersma/gravon's
    z of the score against an even 0.5); ``z`` compares the two win rates. ``matches`` has
    one row per matching setup, in input order: ``game_id``, ``side`` and ``mirror`` (true
    when only the pattern's mirror image matched it); ``None`` when the search was asked
    not to keep them (``listing=False``: a streamed search that shows only the summary).
    """

    pattern: SetupPattern
    mirror: bool
    variant: str
    matches: pd.DataFrame | None
    summary: pd.DataFrame
    z: float
    impossible: str | None
    side: str | None = None
    both: bool = False

    def _listed(self) -> pd.DataFrame:
        if self.matches is None:
            raise OptionError("this search kept no listing of its matches (listing=False)")
        return self.matches

    @property
    def game_ids(self) -> list[str]:
        """The games with a matching setup, in input order, each once."""
        return list(dict.fromkeys(self._listed()["game_id"]))

    def listing(self) -> list[tuple[str, str, bool]]:
        """``(game_id, side, mirror)`` of each matching setup, in input order: which side's
        setup matched, and whether only through the pattern's mirror image."""
        frame = self._listed()
        return list(
            zip(
                frame["game_id"].astype(str).tolist(),
                frame["side"].astype(str).tolist(),
                frame["mirror"].astype(bool).tolist(),
                strict=True,
            )
        )


SIDES: Final = ("red", "blue")
"""The values of ``side``."""


def match_setups(
    outcomes: SetupOutcomes,
    pattern: SetupPattern,
    *,
    mirror: bool = False,
    both: bool = False,
) -> tuple[np.ndarray[Any, np.dtype[np.bool_]], np.ndarray[Any, np.dtype[np.bool_]]]:
    """Which setups match (``mirror``: the pattern or its mirror image; ``both``: only
    where the game's other setup matches too), and which of those only through the mirror
    image. Whole arrays: the pattern is tested once per view over every setup."""
    if mirror:
        plain, mirrored = pattern.match_views(outcomes.codes)
    else:
        plain = pattern.match(outcomes.codes)
        mirrored = np.zeros(len(plain), dtype=bool)
    hit = plain | mirrored
    if both and len(hit):
        game, _ = pd.factorize(outcomes.frame["game_id"])
        hits = np.bincount(game, weights=hit, minlength=game.max() + 1)
        hit &= hits[game] >= 2
    return hit, hit & ~plain


def _names(column: pd.Series) -> list[str]:
    """The distinct values of a string column, sorted (without a Python loop over rows)."""
    return sorted(str(name) for name in pd.unique(column.to_numpy(dtype=object)))


def search_setups(
    data: TableSet | SetupOutcomes,
    pattern: SetupPattern | str,
    *,
    variant: Variant = DEFAULT_VARIANT,
    mirror: bool = False,
    side: str | None = None,
    both: bool = False,
) -> SearchResult:
    """The setups ``pattern`` matches (with ``mirror``, it or its mirror image), and the win
    rate of matching setups against the rest, within one variant (several are an
    :class:`~strat_tools.core.errors.OptionError`: armies differ, so they never pool).

    ``pattern`` is a :class:`~strat_tools.setups.patterns.Pattern`, an
    :class:`~strat_tools.setups.patterns.AnywherePattern` or a whole-setup pattern's text. ``side``
    (``red``/``blue``) looks at that side's setups only (the rest are that side's others);
    ``both`` counts a setup as matching only when its game's other setup matches too (so
    without ``side`` the matching win rate is one half by construction: each such game
    counts once as a win and once as a loss).

    >>> from strat_tools.run.driver import read_games
    >>> games = read_games("data/", setups_only=True, run=1)
    >>> found = search_setups(games, "........../........../........../F.........", mirror=True)
    >>> found.summary[["match", "count", "wins", "draws", "losses"]]
          match  count  wins  draws  losses
    0  matching    108    55      2      51
    1      rest    498   239     16     243
    """
    if isinstance(pattern, str):
        pattern = Pattern.parse(pattern)
    outcomes = data if isinstance(data, SetupOutcomes) else setup_outcomes(data, variant)
    counts = search_counts(outcomes, pattern, mirror=mirror, side=side, both=both)
    return finish_search(counts, pattern, variant=variant, mirror=mirror, side=side, both=both)


def search_counts(
    outcomes: SetupOutcomes,
    pattern: SetupPattern,
    *,
    mirror: bool = False,
    side: str | None = None,
    both: bool = False,
    listing: bool = True,
) -> MatchCounts:
    """One batch's part of :func:`search_setups` (the same arguments; ``listing``: keep
    the matching setups' games too, what ``--list-games`` and ``--format json`` show):
    counts that add up across batches (:func:`~strat_tools.stats.match_counts.add_match_counts`),
    a row per distinct setup. Each game's setups must be in the one batch (``both``)."""
    if side is not None and side not in SIDES:
        raise OptionError(f"unknown side {side!r}; choose red or blue")
    variants = frozenset(_names(outcomes.frame["variant"]))
    hit, through_mirror = match_setups(outcomes, pattern, mirror=mirror, both=both)
    if side is not None:
        mine = outcomes.frame["side"].to_numpy(dtype=object) == side
        outcomes, hit, through_mirror = outcomes.take(mine), hit[mine], through_mirror[mine]
    return count_matches(outcomes.frame, hit, through_mirror, variants=variants, listing=listing)


def finish_search(
    counts: MatchCounts,
    pattern: SetupPattern,
    *,
    variant: Variant = DEFAULT_VARIANT,
    mirror: bool = False,
    side: str | None = None,
    both: bool = False,
) -> SearchResult:
    """The :class:`SearchResult` of the counts :func:`search_counts` made (of one batch or
    of all of them added), for the same arguments."""
    found = sorted(counts.variants)
    if len(found) > 1:
        # Matching and the rest would pool different armies: never silently.
        raise OptionError(
            f"a pattern search compares setups of one variant; these are {', '.join(found)}"
        )
    table = match_summary(counts)
    table["score_z"] = [
        score_z(w, d, w + d + lo)
        for w, d, lo in zip(table["wins"], table["draws"], table["losses"], strict=True)
    ]
    decided = table["wins"] + table["losses"]
    wins = table["wins"].astype(float)
    z = two_proportion_z(wins["matching"], decided["matching"], wins["rest"], decided["rest"])
    names = _names(counts.tally["variant"])
    label = ", ".join(names) if names else (variant if isinstance(variant, str) else "none")
    impossible = next((why for v in names if (why := pattern.impossible(v))), None)
    return SearchResult(
        pattern=pattern,
        mirror=mirror,
        variant=label,
        matches=counts.matches,
        summary=table.reset_index(),
        z=z,
        impossible=impossible,
        side=side,
        both=both,
    )
