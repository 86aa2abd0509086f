"""Tests for rule sets: battle resolution, named sets and options, the ``auto`` choice."""

from __future__ import annotations

import pytest

from strat_tools.core.pieces import ARMIES, PieceKind
from strat_tools.core.records import GameRecord, Severity
from strat_tools.core.rules import (
    GRAVON_LIMIT_BOUNDARY_YEAR,
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_LABELS,
    RULESETS,
    battle_outcome,
    battle_table,
    get_rules,
    resolve_rules,
    rule_names,
    rules_for,
)

K = PieceKind
CLASSIC = RULESETS["gravon-2013"]
LIGHTNING = RULESETS["ultimate-lightning"]


def red(kind: PieceKind) -> int:
    return kind + 1


def blue(kind: PieceKind) -> int:
    return kind + 13


@pytest.mark.parametrize(
    ("attacker", "defender", "expected"),
    [
        (K.MARSHAL, K.GENERAL, OUTCOME_ATTACKER),  # higher rank wins
        (K.SCOUT, K.MINER, OUTCOME_DEFENDER),  # lower rank loses
        (K.CAPTAIN, K.CAPTAIN, OUTCOME_BOTH),  # equal ranks: both go
        (K.SPY, K.MARSHAL, OUTCOME_ATTACKER),  # the spy attacking the marshal wins
        (K.MARSHAL, K.SPY, OUTCOME_ATTACKER),  # anything attacking the spy wins
        (K.SCOUT, K.SPY, OUTCOME_ATTACKER),
        (K.SPY, K.GENERAL, OUTCOME_DEFENDER),  # the spy wins only against the marshal
        (K.MINER, K.BOMB, OUTCOME_ATTACKER),  # only a miner survives a bomb
        (K.MARSHAL, K.BOMB, OUTCOME_DEFENDER),
        (K.SCOUT, K.BOMB, OUTCOME_DEFENDER),
        (K.SPY, K.FLAG, OUTCOME_FLAG),  # any movable piece takes the flag
        (K.SCOUT, K.FLAG, OUTCOME_FLAG),
    ],
)
def test_classic_battles(attacker: PieceKind, defender: PieceKind, expected: int) -> None:
    assert battle_outcome(red(attacker), blue(defender), CLASSIC) == expected
    assert battle_outcome(blue(attacker), red(defender), CLASSIC) == expected


@pytest.mark.parametrize(
    ("attacker", "defender", "expected"),
    [
        (K.CAPTAIN, K.CAPTAIN, OUTCOME_ATTACKER),  # aggressor advantage
        (K.SCOUT, K.BOMB, OUTCOME_ATTACKER),  # Gravon UL: the scout defuses
        (K.MINER, K.BOMB, OUTCOME_BOTH),  # one-time bomb: it goes with its victim
        (K.MARSHAL, K.BOMB, OUTCOME_BOTH),
        (K.SPY, K.MARSHAL, OUTCOME_ATTACKER),
    ],
)
def test_lightning_battles(attacker: PieceKind, defender: PieceKind, expected: int) -> None:
    assert battle_outcome(red(attacker), blue(defender), LIGHTNING) == expected


def test_aggressor_option_on_classic() -> None:
    rules = get_rules("gravon-2013+aggressor")
    assert rules.name == "gravon-2013+aggressor"
    assert battle_outcome(red(K.MAJOR), blue(K.MAJOR), rules) == OUTCOME_ATTACKER
    assert battle_outcome(red(K.MAJOR), blue(K.MAJOR), CLASSIC) == OUTCOME_BOTH


def test_battle_table_matches_function_and_blanks_own_pieces() -> None:
    table = battle_table(CLASSIC)
    assert table[red(K.GENERAL) * 26 + blue(K.COLONEL)] == OUTCOME_ATTACKER
    assert table[red(K.GENERAL) * 26 + red(K.COLONEL)] == 0
    assert table[red(K.BOMB) * 26 + blue(K.COLONEL)] == 0
    assert OUTCOME_LABELS[OUTCOME_BOTH] == "both"


def record(variant: str, year: int) -> GameRecord:
    return GameRecord(source="t", variant=variant, year=year, month=1)


@pytest.mark.parametrize(
    ("variant", "year", "name", "limit"),
    [
        ("classic", 2004, "gravon-2004", 5),
        ("classic", 2005, "gravon-2004", 5),
        ("classic", 2013, "gravon-2013", 3),
        ("classic", 2014, "gravon-2013", 3),
        ("barrage", 2005, "gravon-2004", 5),
        ("duell", 2014, "gravon-2013", 3),
        ("ultimate lightning", 2005, "ultimate-lightning-2004", 5),
        ("ultimate lightning", 2014, "ultimate-lightning", 3),
    ],
)
def test_auto_by_variant_and_period(variant: str, year: int, name: str, limit: int) -> None:
    rules = rules_for(record(variant, year))
    assert (rules.name, rules.two_squares_limit) == (name, limit)
    assert resolve_rules("auto", record(variant, year)) == rules
    assert resolve_rules(None, record(variant, year)) == rules


def test_boundary_year_is_between_the_archive_periods() -> None:
    assert 2006 <= GRAVON_LIMIT_BOUNDARY_YEAR <= 2013
    assert rules_for(record("classic", GRAVON_LIMIT_BOUNDARY_YEAR - 1)).two_squares_limit == 5
    assert rules_for(record("classic", GRAVON_LIMIT_BOUNDARY_YEAR)).two_squares_limit == 3


def test_army_follows_variant() -> None:
    assert rules_for(record("barrage", 2014)).army == ARMIES["barrage"]
    assert rules_for(record("classicfree", 2014)).army is None
    assert resolve_rules("issf", record("duell", 2014)).army == ARMIES["duell"]
    assert rules_for(record("ultimate lightning", 2014)).army == ARMIES["ultimate lightning"]


def test_lightning_rules() -> None:
    assert LIGHTNING.rescue and LIGHTNING.attacker_wins_ties and LIGHTNING.one_time_bombs
    assert LIGHTNING.steps[K.CAPTAIN] == 2 and LIGHTNING.steps[K.MAJOR] == 1
    assert CLASSIC.steps[K.CAPTAIN] == 1 and not CLASSIC.rescue


def test_options_combine_and_unknown_names_fail() -> None:
    rules = resolve_rules("auto+silent+rescue+chasing", record("classic", 2014))
    assert rules.name == "gravon-2013+silent+rescue+chasing"
    assert rules.silent_defense and rules.rescue and rules.chasing_rule
    assert rules.chasing_severity is Severity.ERROR
    assert get_rules("classic+chasing-warn").chasing_severity is Severity.WARNING
    assert get_rules("gravon-2013+strict").two_squares_fallback is None
    with pytest.raises(ValueError, match="unknown rule set 'nope'"):
        resolve_rules("nope", record("classic", 2014))
    with pytest.raises(ValueError, match="unknown rule option 'fast'"):
        get_rules("classic+fast")


def test_rule_names_lists_auto_first() -> None:
    names = rule_names()
    assert names[0] == "auto"
    assert {"gravon-2004", "gravon-2013", "issf", "ultimate-lightning"} <= set(names)
