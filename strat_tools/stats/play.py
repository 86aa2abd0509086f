"""Game and move statistics: how games end and how long they last, and how scouts are used.

Games come from the games table; moves from the moves table with their game's context
(see :func:`strat_tools.stats.frames.move_context`). Only replayed moves count. Each
statistic is one :class:`~strat_tools.stats.registry.Statistic`, registered after its
functions: endings, lengths and first-scout are order statistics (their count is a row of
values per game or side), the scout statistics are counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import pandas as pd

from strat_tools.core.errors import OptionError
from strat_tools.stats.formulas import share_within
from strat_tools.stats.frames import (
    By,
    Data,
    TableSet,
    as_tuple,
    by_list,
    distribution_counts,
    game_frame,
    group_by,
    move_frame,
    setup_frame,
)
from strat_tools.stats.registry import Options, Statistic, register

# --- games: lengths and endings -------------------------------------------------------------


def endings(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How games end: [*by, termination, games, share, mean_plies, median_plies, max_plies]."""
    keys = by_list(by)
    frame = game_frame(data, keys, variant, **options)
    frame = frame.assign(termination=frame["termination"].astype(object).fillna("none").astype(str))
    table: pd.DataFrame = (
        group_by(frame, [*keys, "termination"])
        .agg(
            games=("plies", "size"),
            mean_plies=("plies", "mean"),
            median_plies=("plies", "median"),
            max_plies=("plies", "max"),
        )
        .reset_index()
    )
    table.insert(len(keys) + 2, "share", share_within(table, keys, "games"))
    return table


def game_lengths(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """Game length in plies: [*by, games, mean, median, p10, p90, max, no_moves]."""
    keys = by_list(by)
    frame = game_frame(data, keys, variant, **options)
    plies = frame["plies"].astype("int64")
    grouped = plies.groupby([frame[k] for k in keys]) if keys else None
    if grouped is None:
        return pd.DataFrame([_length_summary(plies)])
    rows = [
        {**dict(zip(keys, as_tuple(key), strict=True)), **_length_summary(group)}
        for key, group in grouped
    ]
    return pd.DataFrame(rows)


def _length_summary(plies: pd.Series) -> dict[str, Any]:
    return {
        "games": len(plies),
        "mean": float(plies.mean()) if len(plies) else math.nan,
        "median": float(plies.median()) if len(plies) else math.nan,
        "p10": float(plies.quantile(0.1)) if len(plies) else math.nan,
        "p90": float(plies.quantile(0.9)) if len(plies) else math.nan,
        "max": int(plies.max()) if len(plies) else 0,
        "no_moves": int((plies == 0).sum()),
    }


def game_values(data: Data, o: Options) -> pd.DataFrame:
    """Each counted game's [*by, termination, plies]: the count of endings and lengths."""
    keys = list(o.by)
    return game_frame(data, keys, o.variant)[[*keys, "termination", "plies"]]


def _finish_endings(values: pd.DataFrame, o: Options) -> pd.DataFrame:
    return endings(values, list(o.by))


def _finish_lengths(values: pd.DataFrame, o: Options) -> pd.DataFrame:
    return game_lengths(values, list(o.by))


ENDINGS: Final = register(
    Statistic(
        "endings",
        "how games end, with their lengths",
        game_values,
        _finish_endings,
        needs="games",
    )
)
LENGTHS: Final = register(
    Statistic(
        "lengths",
        "game length in plies: mean, median, p10, p90",
        game_values,
        _finish_lengths,
        needs="games",
    )
)


# --- moves: scouts --------------------------------------------------------------------------


def scout_usage_counts(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """[*by, moves, scout_moves, long_moves, scout_attacks]: the count of :func:`scout_usage`."""
    keys = by_list(by)
    frame = move_frame(data, keys, variant, **options)
    scout = frame["piece"] == "scout"
    frame = frame.assign(
        scout=scout,
        long=scout & (frame["distance"] > 1),
        attack=scout & frame["defender"].notna(),
    )
    if keys:
        table: pd.DataFrame = (
            group_by(frame, keys)
            .agg(
                moves=("scout", "size"),
                scout_moves=("scout", "sum"),
                long_moves=("long", "sum"),
                scout_attacks=("attack", "sum"),
            )
            .reset_index()
        )
    else:
        table = pd.DataFrame(
            {
                "moves": [len(frame)],
                "scout_moves": [int(frame["scout"].sum())],
                "long_moves": [int(frame["long"].sum())],
                "scout_attacks": [int(frame["attack"].sum())],
            }
        )
    for name in ("scout_moves", "long_moves", "scout_attacks"):
        table[name] = table[name].astype("int64")
    return table


def finish_scout_usage(counts: pd.DataFrame, o: Options | None = None) -> pd.DataFrame:
    """The shares of :func:`scout_usage` from its counts (shares of scout moves)."""
    table = counts.copy()
    keys = len(table.columns) - 4
    scouts = table["scout_moves"].where(table["scout_moves"] > 0)
    table.insert(keys + 2, "scout_share", table["scout_moves"] / table["moves"])
    table.insert(keys + 4, "long_share", table["long_moves"] / scouts)
    table["attack_share"] = table["scout_attacks"] / scouts
    return table


def scout_usage(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How much scouts move: [*by, moves, scout_moves, scout_share, long_moves, long_share,
    scout_attacks, attack_share]; long = more than one square, shares of scout moves."""
    return finish_scout_usage(scout_usage_counts(data, by, variant, **options))


def finish_distribution(counts: pd.DataFrame, o: Options | None = None) -> pd.DataFrame:
    """A distribution's ``share`` within each group, from [*keys, value, count]."""
    table = counts.copy()
    keys = list(table.columns[:-2])
    table["share"] = share_within(table, keys)
    return table


def scout_distances(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How far scouts go: [*by, distance, count, share] over all scout moves."""
    return finish_distribution(scout_distance_counts(data, by, variant, **options))


def scout_attack_counts(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """[*by, defender, count, wins]: the count of :func:`scout_attacks`."""
    keys = by_list(by)
    frame = move_frame(data, keys, variant, **options)
    frame = frame.loc[(frame["piece"] == "scout") & frame["defender"].notna()]
    frame = frame.assign(
        defender=frame["defender"].astype(str),
        win=frame["outcome"].astype(str).isin(["attacker", "flag"]),
    )
    table: pd.DataFrame = (
        group_by(frame, [*keys, "defender"])
        .agg(count=("win", "size"), wins=("win", "sum"))
        .reset_index()
    )
    table["count"] = table["count"].astype("int64")
    table["wins"] = table["wins"].astype("int64")
    return table


def finish_scout_attacks(counts: pd.DataFrame, o: Options | None = None) -> pd.DataFrame:
    """Shares within each group, most attacked defender first."""
    keys = list(counts.columns[:-3])
    table = counts.copy()
    table.insert(len(keys) + 2, "share", share_within(table, keys))
    # Stable, so ties keep the defenders' order, the same within one variant or many.
    return table.sort_values(
        [*keys, "count"], ascending=[True] * len(keys) + [False], kind="stable"
    ).reset_index(drop=True)


def scout_attacks(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """What scouts attack: [*by, defender, count, share, wins] (wins: the scout won or took
    the flag)."""
    return finish_scout_attacks(scout_attack_counts(data, by, variant, **options))


def scout_distance_counts(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """[*by, distance, count] over all scout moves: the count of :func:`scout_distances`."""
    keys = by_list(by)
    frame = move_frame(data, keys, variant, **options)
    frame = frame.loc[(frame["piece"] == "scout") & frame["distance"].notna()]
    frame = frame.assign(distance=frame["distance"].astype("int64"))
    return distribution_counts(frame, keys, "distance")


def _count_distances(data: Data, o: Options) -> pd.DataFrame:
    return scout_distance_counts(data, o.by, o.variant)


def _count_scouts(data: Data, o: Options) -> pd.DataFrame:
    return scout_usage_counts(data, o.by, o.variant)


def _count_attacks(data: Data, o: Options) -> pd.DataFrame:
    return scout_attack_counts(data, o.by, o.variant)


SCOUTS: Final = register(
    Statistic(
        "scouts",
        "how much scouts move: shares of moves, long moves, attacks",
        _count_scouts,
        finish_scout_usage,
        needs="moves",
        additive=("moves", "scout_moves", "long_moves", "scout_attacks"),
    )
)
SCOUT_DISTANCES: Final = register(
    Statistic(
        "scout-distances",
        "how far scouts go, in squares",
        _count_distances,
        finish_distribution,
        needs="moves",
        additive=("count",),
    )
)
SCOUT_ATTACKS: Final = register(
    Statistic(
        "scout-attacks",
        "what scouts attack, and how often they win",
        _count_attacks,
        finish_scout_attacks,
        needs="moves",
        additive=("count", "wins"),
    )
)


def first_scout_move(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """When each side first moves a scout: [*by, sides, with_scout_move, mean_ply,
    median_ply, median_turn]; ``turn`` counts that side's own moves (ply 1 and 2 are turn 1)."""
    keys = by_list(by)
    return first_scout_table(first_scout_sides(data, keys, variant, **options), keys)


def first_scout_sides(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """One row per (game, side) that moved: [*by, first_ply, first_turn] (NaN: no scout
    move). The rows :func:`first_scout_table` summarises; games are independent, so the rows
    of separate batches of games can be concatenated first."""
    keys = by_list(by)
    frame = move_frame(data, keys, variant, **options)
    sides = frame.drop_duplicates(["game_id", "side"])
    scouts = frame.loc[frame["piece"] == "scout"]
    first_ply = scouts.groupby(["game_id", "side"], observed=True, sort=False)["ply"].min()
    first = first_ply.rename("first_ply").reset_index()
    first["side"] = first["side"].astype(str)
    sides = sides.assign(side_key=sides["side"].astype(str)).merge(
        first.rename(columns={"side": "side_key"}), on=["game_id", "side_key"], how="left"
    )
    ply = sides["first_ply"].astype("float64")
    sides = sides.assign(first_ply=ply, first_turn=(ply + 1) // 2)
    return sides[[*keys, "first_ply", "first_turn"]]


def first_scout_table(sides: pd.DataFrame, by: By = None) -> pd.DataFrame:
    """:func:`first_scout_move`'s table from :func:`first_scout_sides` rows."""
    keys = by_list(by)
    if not keys:
        return pd.DataFrame([_first_summary(sides)])
    rows = [
        {**dict(zip(keys, as_tuple(key), strict=True)), **_first_summary(group)}
        for key, group in sides.groupby(keys, sort=True)
    ]
    return pd.DataFrame(rows)


def _first_summary(sides: pd.DataFrame) -> dict[str, Any]:
    ply = sides["first_ply"].dropna()
    return {
        "sides": len(sides),
        "with_scout_move": len(ply),
        "mean_ply": float(ply.mean()) if len(ply) else math.nan,
        "median_ply": float(ply.median()) if len(ply) else math.nan,
        "median_turn": float(sides["first_turn"].dropna().median()) if len(ply) else math.nan,
    }


def _count_first_scout(data: Data, o: Options) -> pd.DataFrame:
    return first_scout_sides(data, list(o.by), o.variant)


def _finish_first_scout(values: pd.DataFrame, o: Options) -> pd.DataFrame:
    return first_scout_table(values, list(o.by))


FIRST_SCOUT: Final = register(
    Statistic(
        "first-scout",
        "when each side first moves a scout",
        _count_first_scout,
        _finish_first_scout,
        needs="moves",
    )
)


def scouts_surviving_counts(
    data: TableSet,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """How many scouts each side still has at the end: [*by, scouts_left, count].

    Only fully replayed games count. Scouts start from the setup; a scout is lost when it
    attacks and loses or ties, or is attacked and loses or ties; an ultimate lightning rescue
    of a scout brings one back.
    """
    keys = by_list(by)
    games = data.games
    complete = games.loc[
        games["replayed"].astype(bool) & (games["plies_replayed"] == games["plies"]), "game_id"
    ]
    setups = setup_frame(
        data,
        keys,
        variant,
        include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )
    setups = setups.loc[setups["game_id"].isin(complete)]
    start = (
        setups.assign(scout=setups["piece"] == "scout", side=setups["side"].astype(str))
        .groupby(["game_id", "side"], observed=True)
        .agg(start=("scout", "sum"), **{k: (k, "first") for k in keys if k != "side"})
    )
    start = start.join(_scouts_lost(data.moves, complete), how="left").fillna({"lost": 0})
    start["scouts_left"] = (start["start"] - start["lost"]).astype("int64")
    return distribution_counts(start.reset_index(), keys, "scouts_left")


def scouts_surviving(
    data: TableSet,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """How many scouts each side still has at the end: [*by, scouts_left, count, share]
    (see :func:`scouts_surviving_counts`)."""
    return finish_distribution(
        scouts_surviving_counts(
            data,
            by,
            variant,
            include_classicfree=include_classicfree,
            exclude_invalid=exclude_invalid,
        )
    )


def _scouts_lost(moves: pd.DataFrame, games: pd.Series) -> pd.Series:
    """Scouts each side lost in battle, minus those rescued, per (game_id, side)."""
    moves = moves.loc[moves["game_id"].isin(games)]
    outcome = moves["outcome"].astype(str)
    side = moves["side"].astype(str)
    other = side.map({"red": "blue", "blue": "red"})
    attacker_lost = (moves["piece"] == "scout") & outcome.isin(["defender", "both"])
    defender_lost = (moves["defender"] == "scout") & outcome.isin(["attacker", "both"])
    rescued = moves["rescued"] == "scout" if "rescued" in moves else attacker_lost & False
    events = pd.concat(
        [
            pd.DataFrame(
                {"game_id": moves["game_id"][attacker_lost], "side": side[attacker_lost], "lost": 1}
            ),
            pd.DataFrame(
                {
                    "game_id": moves["game_id"][defender_lost],
                    "side": other[defender_lost],
                    "lost": 1,
                }
            ),
            pd.DataFrame({"game_id": moves["game_id"][rescued], "side": side[rescued], "lost": -1}),
        ]
    )
    return events.groupby(["game_id", "side"])["lost"].sum()


def _count_scouts_left(data: Data, o: Options) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        raise OptionError("scouts-left needs a GameSet (setups and moves), not one frame")
    return scouts_surviving_counts(data, o.by, o.variant, **o.setup_options)


SCOUTS_LEFT: Final = register(
    Statistic(
        "scouts-left",
        "how many scouts each side still has at the end",
        _count_scouts_left,
        finish_distribution,
        needs="moves",
        additive=("count",),
    )
)
