"""Game and move statistics: how games end and how long they last, and how scouts are used.

Games come from the games table; moves from the moves table with their game's context
(see :func:`strat_tools.stats.frames.move_context`). Only replayed moves count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from strat_tools.stats.frames import (
    By,
    Data,
    TableSet,
    _as_tuple,
    _by_list,
    _distribution,
    _groupby,
    game_frame,
    move_frame,
    setup_frame,
)

# --- games: lengths and endings -------------------------------------------------------------


def endings(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How games end: [*by, termination, games, share, mean_plies, median_plies, max_plies]."""
    keys = _by_list(by)
    frame = game_frame(data, keys, variant, **options)
    frame = frame.assign(termination=frame["termination"].fillna("none").astype(str))
    table: pd.DataFrame = (
        _groupby(frame, [*keys, "termination"])
        .agg(
            games=("plies", "size"),
            mean_plies=("plies", "mean"),
            median_plies=("plies", "median"),
            max_plies=("plies", "max"),
        )
        .reset_index()
    )
    totals = table.groupby(keys)["games"].transform("sum") if keys else table["games"].sum()
    table.insert(len(keys) + 2, "share", table["games"] / totals)
    return table


def game_lengths(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """Game length in plies: [*by, games, mean, median, p10, p90, max, no_moves]."""
    keys = _by_list(by)
    frame = game_frame(data, keys, variant, **options)
    plies = frame["plies"].astype("int64")
    grouped = plies.groupby([frame[k] for k in keys]) if keys else None
    if grouped is None:
        return pd.DataFrame([_length_summary(plies)])
    rows = [
        {**dict(zip(keys, _as_tuple(key), strict=True)), **_length_summary(group)}
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


# --- moves: scouts --------------------------------------------------------------------------


def scout_usage(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How much scouts move: [*by, moves, scout_moves, scout_share, long_moves, long_share,
    scout_attacks, attack_share]; long = more than one square, shares of scout moves."""
    keys = _by_list(by)
    frame = move_frame(data, keys, variant, **options)
    scout = frame["piece"] == "scout"
    frame = frame.assign(
        scout=scout,
        long=scout & (frame["distance"] > 1),
        attack=scout & frame["defender"].notna(),
    )
    if keys:
        table: pd.DataFrame = (
            _groupby(frame, keys)
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
    scouts = table["scout_moves"].where(table["scout_moves"] > 0)
    table.insert(len(keys) + 2, "scout_share", table["scout_moves"] / table["moves"])
    table.insert(len(keys) + 4, "long_share", table["long_moves"] / scouts)
    table["attack_share"] = table["scout_attacks"] / scouts
    return table


def scout_distances(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """How far scouts go: [*by, distance, count, share] over all scout moves."""
    keys = _by_list(by)
    frame = move_frame(data, keys, variant, **options)
    frame = frame.loc[(frame["piece"] == "scout") & frame["distance"].notna()]
    frame = frame.assign(distance=frame["distance"].astype("int64"))
    return _distribution(frame, keys, "distance")


def scout_attacks(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """What scouts attack: [*by, defender, count, share, wins] (wins: the scout won or took
    the flag)."""
    keys = _by_list(by)
    frame = move_frame(data, keys, variant, **options)
    frame = frame.loc[(frame["piece"] == "scout") & frame["defender"].notna()]
    frame = frame.assign(
        defender=frame["defender"].astype(str),
        win=frame["outcome"].astype(str).isin(["attacker", "flag"]),
    )
    table = _distribution(frame, keys, "defender")
    wins = _groupby(frame, [*keys, "defender"])["win"].sum().rename("wins").reset_index()
    table = table.merge(wins, on=[*keys, "defender"], how="left")
    table["wins"] = table["wins"].astype("int64")
    # Stable, so ties keep the defenders' order, the same within one variant or many.
    return table.sort_values(
        [*keys, "count"], ascending=[True] * len(keys) + [False], kind="stable"
    ).reset_index(drop=True)


def first_scout_move(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """When each side first moves a scout: [*by, sides, with_scout_move, mean_ply,
    median_ply, median_turn]; ``turn`` counts that side's own moves (ply 1 and 2 are turn 1)."""
    keys = _by_list(by)
    return first_scout_table(first_scout_sides(data, keys, variant, **options), keys)


def first_scout_sides(
    data: Data, by: By = None, variant: str | Sequence[str] | None = None, **options: Any
) -> pd.DataFrame:
    """One row per (game, side) that moved: [*by, first_ply, first_turn] (NaN: no scout
    move). The rows :func:`first_scout_table` summarises; games are independent, so the rows
    of separate batches of games can be concatenated first."""
    keys = _by_list(by)
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
    keys = _by_list(by)
    if not keys:
        return pd.DataFrame([_first_summary(sides)])
    rows = [
        {**dict(zip(keys, _as_tuple(key), strict=True)), **_first_summary(group)}
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


def scouts_surviving(
    data: TableSet,
    by: By = None,
    variant: str | Sequence[str] | None = None,
    *,
    include_classicfree: bool = False,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """How many scouts each side still has at the end: [*by, scouts_left, count, share].

    Only fully replayed games count. Scouts start from the setup; a scout is lost when it
    attacks and loses or ties, or is attacked and loses or ties; an ultimate lightning rescue
    of a scout brings one back.
    """
    keys = _by_list(by)
    games = data.games
    complete = games.loc[
        games["replayed"].astype(bool) & (games["plies_replayed"] == games["plies"]), "game_id"
    ]
    setups = setup_frame(
        data, keys, variant, include_classicfree=include_classicfree,
        exclude_invalid=exclude_invalid,
    )  # fmt: skip
    setups = setups.loc[setups["game_id"].isin(complete)]
    start = (
        setups.assign(scout=setups["piece"] == "scout", side=setups["side"].astype(str))
        .groupby(["game_id", "side"], observed=True)
        .agg(start=("scout", "sum"), **{k: (k, "first") for k in keys if k != "side"})
    )
    start = start.join(_scouts_lost(data.moves, complete), how="left").fillna({"lost": 0})
    start["scouts_left"] = (start["start"] - start["lost"]).astype("int64")
    return _distribution(start.reset_index(), keys, "scouts_left")


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
            pd.DataFrame({"game_id": moves["game_id"][attacker_lost], "side": side[attacker_lost],
                          "lost": 1}),
            pd.DataFrame({"game_id": moves["game_id"][defender_lost], "side": other[defender_lost],
                          "lost": 1}),
            pd.DataFrame({"game_id": moves["game_id"][rescued], "side": side[rescued], "lost": -1}),
        ]
    )  # fmt: skip
    return events.groupby(["game_id", "side"])["lost"].sum()
