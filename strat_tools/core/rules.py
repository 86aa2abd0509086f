"""Rule sets: which Stratego rules a game was played under, and how battles resolve.

A :class:`RuleSet` is a frozen value: the army (per variant), the two-squares limit and its
scout clause, the chasing (more-squares) rule, the tournament options (aggressor advantage,
silent defense, rescue), one-time bombs and how far each kind of piece moves. Named rule sets
live in :data:`RULESETS`; :func:`rules_for` picks the one a Gravon record was played under from
its variant and date, and :func:`resolve_rules` reads a user's choice such as ``'auto'``,
``'gravon-2013'`` or ``'classic+aggressor+silent'``.

:func:`battle_table` turns a rule set into a flat lookup table of battle outcomes indexed by
``attacker_code * 26 + defender_code``, for the replay engine's hot loop.

This module knows no XML and replays nothing: see ``replay.py`` for the engine.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, TypeVar

from strat_tools.core.errors import UsageError
from strat_tools.core.pieces import ARMIES, CODE_KIND, CODE_SIDE, PieceKind
from strat_tools.core.records import GameRecord, Severity, require_record

OUTCOME_NONE: Final = 0
OUTCOME_ATTACKER: Final = 1
OUTCOME_DEFENDER: Final = 2
OUTCOME_BOTH: Final = 3
OUTCOME_FLAG: Final = 4
OUTCOME_LABELS: Final = (None, "attacker", "defender", "both", "flag")
"""Battle outcome labels indexed by outcome code (0 = no battle)."""

UNLIMITED: Final = 100
"""A step count that means "any distance in a straight line" (scouts)."""

CLASSIC_STEPS: Final = (0, 1, UNLIMITED, 1, 1, 1, 1, 1, 1, 1, 1, 0)
"""Squares per move indexed by kind value: bombs and the flag 0, scouts unlimited, else 1."""

LIGHTNING_STEPS: Final = (0, 1, UNLIMITED, 1, 1, 1, 2, 1, 1, 1, 1, 0)
"""Ultimate lightning: captains move up to two squares."""

GRAVON_LIMIT_BOUNDARY_YEAR: Final = 2013
"""Games dated from this year on get Gravon's 3-move two-squares limit, earlier ones 5.

The archive holds games from 2004-11..2005-08 (limit 5: reached in 41 player-games, 6 never)
and 2013-10..2014-11 (limit 3: 17,262 chains of 3, no 4 outside 13 games played under 5);
no data lies between, so any year from 2006 to 2013 fits. See docs/rules-findings.md.
"""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One set of Stratego rules, as the replay engine applies them."""

    name: str
    description: str = ""
    army: tuple[int, ...] | None = ARMIES["classic"]
    """Counts per kind value, or ``None`` for any army (classicfree)."""
    two_squares_limit: int | None = 5
    """Most consecutive back-and-forth moves of one piece between the same two squares."""
    two_squares_fallback: int | None = None
    """A looser limit some games of this rule set were played under (Gravon 2013-14: 5).
    A game that breaks :attr:`two_squares_limit` but keeps this one is replayed under it,
    with a warning: see docs/rules-findings.md. ``+strict`` switches it off."""
    scout_clause: bool = False
    """ISF: a scout counts as standing on its start square and every square it passes over."""
    chasing_rule: bool = False
    """Check the ISF more-squares (chasing) rule."""
    chasing_severity: Severity = Severity.ERROR
    """No archive game breaks the chasing rule (docs/rules-findings.md), so it is an error."""
    attacker_wins_ties: bool = False
    """Aggressor advantage: equal ranks, the attacker wins."""
    one_time_bombs: bool = False
    """A bomb is removed after its first hit; the attacker dies too, unless it defuses."""
    bomb_defuser: int = PieceKind.MINER
    """The kind that removes a bomb and takes its square (Gravon's ultimate lightning: the
    scout, see docs/rules-findings.md)."""
    rescue: bool = False
    """Reaching the enemy back row may bring back a captured piece (ultimate lightning)."""
    rescue_limit: int = 2
    """Most rescues per player."""
    rescue_bombs: bool = False
    """Whether a captured bomb may be rescued (Gravon allowed it; the rulebook does not)."""
    silent_defense: bool = False
    """Only the attacker's rank is revealed in a battle, unless a scout attacked."""
    steps: tuple[int, ...] = CLASSIC_STEPS
    """Squares per move, indexed by kind value (``UNLIMITED`` for a straight line)."""
    captain_turns: bool = True
    """Whether a two-square captain move may turn a corner (ultimate lightning)."""

    def with_options(self, *options: str) -> RuleSet:
        """This rule set with named options switched on: ``rs.with_options('aggressor')``."""
        ruleset = self
        for option in options:
            try:
                changes = OPTIONS[option]
            except KeyError:
                known = ", ".join(sorted(OPTIONS))
                raise UsageError(
                    f"unknown rule option {option!r}; expected one of {known}", option="rules"
                ) from None
            ruleset = replace(ruleset, **changes)  # type: ignore[arg-type]
        suffix = "".join(f"+{o}" for o in options)
        return replace(ruleset, name=self.name + suffix)


OPTIONS: Final[dict[str, dict[str, object]]] = {
    "aggressor": {"attacker_wins_ties": True},
    "silent": {"silent_defense": True},
    "rescue": {"rescue": True},
    "onetimebombs": {"one_time_bombs": True},
    "chasing": {"chasing_rule": True},
    "chasing-warn": {"chasing_rule": True, "chasing_severity": Severity.WARNING},
    "scoutclause": {"scout_clause": True},
    "strict": {"two_squares_fallback": None},
    "limit3": {"two_squares_limit": 3, "two_squares_fallback": None},
    "limit5": {"two_squares_limit": 5, "two_squares_fallback": None},
    "nolimit": {"two_squares_limit": None},
}
"""Named options a rule-set name may add after ``+``: ``'gravon-2013+aggressor+silent'``."""

_LIGHTNING: Final = {
    "scout_clause": True,
    "army": ARMIES["ultimate lightning"],
    "attacker_wins_ties": True,
    "one_time_bombs": True,
    "rescue": True,
    "rescue_bombs": True,
    "bomb_defuser": PieceKind.SCOUT,
    "steps": LIGHTNING_STEPS,
}

RULESETS: Final[dict[str, RuleSet]] = {
    rs.name: rs
    for rs in (
        RuleSet(
            "gravon-2004",
            "Gravon classic rules of 2004-2005: two-squares limit 5, scout clause",
            two_squares_limit=5,
            scout_clause=True,
        ),
        RuleSet(
            "gravon-2013",
            "Gravon classic rules of 2013-2014: two-squares limit 3 (a few games: 5), scout clause",
            two_squares_limit=3,
            scout_clause=True,
            two_squares_fallback=5,
        ),
        RuleSet(
            "issf",
            "ISF-like: two-squares limit 3 with the scout clause, chasing rule as an error",
            two_squares_limit=3,
            scout_clause=True,
            chasing_rule=True,
            chasing_severity=Severity.ERROR,
        ),
        RuleSet(
            "classic",
            "Plain rulebook rules: no repetition limit, no options",
            two_squares_limit=None,
        ),
        RuleSet(
            "ultimate-lightning-2004",
            "Gravon ultimate lightning of 2004-2005: rescue, aggressor advantage, one-time "
            "bombs, captains two squares; two-squares limit 5",
            two_squares_limit=5,
            **_LIGHTNING,  # type: ignore[arg-type]
        ),
        RuleSet(
            "ultimate-lightning",
            "Gravon ultimate lightning of 2013-2014: rescue, aggressor advantage, one-time "
            "bombs, captains two squares; two-squares limit 3 (a few games: 5)",
            two_squares_limit=3,
            two_squares_fallback=5,
            **_LIGHTNING,  # type: ignore[arg-type]
        ),
    )
}
"""The named rule sets. Add options with ``+``: ``resolve_rules('classic+aggressor', rec)``."""


def rules_for(record: GameRecord) -> RuleSet:
    """The rule set a Gravon record was played under (the ``auto`` choice), by variant and date.

    The army follows the record's variant (``None`` for classicfree). Raises ``TypeError``
    for anything but a :class:`GameRecord`.
    """
    require_record(record, "rules_for")
    early = record.year is not None and record.year < GRAVON_LIMIT_BOUNDARY_YEAR
    key = (record.variant, early)
    ruleset = _AUTO.get(key)
    if ruleset is None:
        ruleset = _AUTO[key] = _auto_rules(record.variant, early)
    return ruleset


_AUTO: dict[tuple[str, bool], RuleSet] = {}
"""The ``auto`` rule set per (variant, before the boundary year): built once, so every game
of a variant shares one RuleSet (the engine caches its tables per rule set)."""


def _auto_rules(variant: str, early: bool) -> RuleSet:
    """The ``auto`` rule set of ``variant`` before (``early``) or from the boundary year."""
    if variant == "ultimate lightning":
        return RULESETS["ultimate-lightning-2004" if early else "ultimate-lightning"]
    base = RULESETS["gravon-2004" if early else "gravon-2013"]
    return _with_army(base, variant)


def _with_army(ruleset: RuleSet, variant: str) -> RuleSet:
    """``ruleset`` with the army of ``variant`` (any army for classicfree or unknown)."""
    army = ARMIES.get(variant)
    return ruleset if army == ruleset.army else replace(ruleset, army=army)


def get_rules(name: str | RuleSet) -> RuleSet:
    """A named rule set, options included: ``get_rules('gravon-2013+aggressor')``.

    Raises ``ValueError`` for an unknown name or option (``auto`` needs a record: see
    :func:`resolve_rules`), ``TypeError`` for what is neither a name nor a rule set.
    """
    if isinstance(name, RuleSet):
        return name
    if not isinstance(name, str):
        raise TypeError(f"a rule set is a name or a RuleSet, not {type(name).__name__}")
    base, *options = name.split("+")
    if base not in RULESETS:
        known = ", ".join(["auto", *RULESETS])
        raise UsageError(f"unknown rule set {base!r}; expected one of {known}", option="rules")
    ruleset = RULESETS[base]
    return ruleset.with_options(*options) if options else ruleset


def resolve_rules(name: str | RuleSet | None, record: GameRecord) -> RuleSet:
    """Read a rule-set choice for a record: ``None``/``'auto'``, a name in :data:`RULESETS`,
    or either followed by ``+option`` parts (see :data:`OPTIONS`). Raises ``ValueError`` for
    an unknown name. A named non-lightning set takes the record's army.

    >>> resolve_rules('auto+aggressor', record).attacker_wins_ties   # doctest: +SKIP
    True
    """
    if isinstance(name, RuleSet):
        return name
    base, *options = (name or "auto").split("+")
    if base == "auto":
        ruleset = rules_for(record)
    else:
        ruleset = get_rules(base)
        if not ruleset.rescue:
            ruleset = _with_army(ruleset, record.variant)
    return ruleset.with_options(*options) if options else ruleset


def check_rules(rules: str | None) -> None:
    """Raise :class:`~strat_tools.core.errors.UsageError` now for a rule-set choice (as
    :func:`resolve_rules` reads it) that the engine would refuse on every game: the one
    check, made where a run starts (the driver's entry points, before any work), which the
    CLI shows as a usage error (exit 2).

    >>> check_rules("auto+aggressor")
    >>> check_rules("nonsense")
    Traceback (most recent call last):
    ...
    strat_tools.core.errors.UsageError: unknown rule set 'nonsense'; expected one of auto, ...
    """
    from strat_tools.core.records import GameRecord

    resolve_rules(rules, GameRecord(source="", variant="classic"))


def ruleset_rows() -> list[dict[str, object]]:
    """One row per named rule set, for ``strat-tools rules`` and the README table."""
    return [
        {
            "name": rs.name,
            "two_squares_limit": str(rs.two_squares_limit or "none"),
            "fallback": str(rs.two_squares_fallback or "-"),
            "scout_clause": rs.scout_clause,
            "chasing": rs.chasing_severity.value if rs.chasing_rule else "off",
            "attacker_wins_ties": rs.attacker_wins_ties,
            "one_time_bombs": rs.one_time_bombs,
            "rescue": rs.rescue,
            "captain_steps": rs.steps[PieceKind.CAPTAIN],
            "description": rs.description,
        }
        for rs in RULESETS.values()
    ]


def rule_names() -> list[str]:
    """The names a user may choose (``auto`` first), without options."""
    return ["auto", *RULESETS]


def battle_outcome(attacker: int, defender: int, ruleset: RuleSet) -> int:
    """The outcome code of ``attacker`` (a board code) attacking ``defender`` (an enemy code).

    Higher rank wins; equal ranks both go (the attacker wins with aggressor advantage); a spy
    attacking the marshal wins; anything attacking the spy wins; only the bomb defuser (the
    miner) survives a bomb (with one-time bombs, the bomb goes too); any movable piece takes
    the flag.
    """
    a = CODE_KIND[attacker]
    d = CODE_KIND[defender]
    if d == PieceKind.FLAG:
        return OUTCOME_FLAG
    if d == PieceKind.BOMB:
        if a == ruleset.bomb_defuser:
            return OUTCOME_ATTACKER
        return OUTCOME_BOTH if ruleset.one_time_bombs else OUTCOME_DEFENDER
    if a == PieceKind.SPY and d == PieceKind.MARSHAL:
        return OUTCOME_ATTACKER
    if a > d:
        return OUTCOME_ATTACKER
    if a < d:
        return OUTCOME_DEFENDER
    return OUTCOME_ATTACKER if ruleset.attacker_wins_ties else OUTCOME_BOTH


def battle_table(ruleset: RuleSet) -> list[int]:
    """Outcome codes for every (attacker, defender) pair: index ``attacker * 26 + defender``.

    Entries for pairs that are not a movable piece attacking an enemy piece are 0.
    """
    table = [OUTCOME_NONE] * (26 * 26)
    for attacker in range(1, 25):
        kind = CODE_KIND[attacker]
        if kind in (PieceKind.BOMB, PieceKind.FLAG):
            continue
        for defender in range(1, 25):
            if CODE_SIDE[defender] != CODE_SIDE[attacker]:
                table[attacker * 26 + defender] = battle_outcome(attacker, defender, ruleset)
    return table


_Built = TypeVar("_Built")


def per_rule_set(build: Callable[[RuleSet], _Built]) -> Callable[[RuleSet], _Built]:
    """``build`` cached per rule set, for what the engine derives once from a rule set.

    A rule set seen before is found by identity: a hot path asks once a game (or a batch),
    and an id check costs far less than hashing the rule set's fields; the entry keeps the
    rule set alive, so its id stays its own. A new rule set equal to one seen before shares
    its result (cached by value). At most 64 of each are kept.

    >>> calls = []
    >>> @per_rule_set
    ... def army_size(rules: RuleSet) -> int:
    ...     calls.append(rules.name)
    ...     return sum(rules.army)
    >>> army_size(RULESETS["classic"]), army_size(RULESETS["classic"]), calls
    (40, 40, ['classic'])
    >>> army_size(replace(RULESETS["classic"])), calls
    (40, ['classic'])
    """
    by_value = functools.lru_cache(maxsize=64)(build)
    by_id: dict[int, tuple[RuleSet, _Built]] = {}

    @functools.wraps(build)
    def cached(rules: RuleSet) -> _Built:
        known = by_id.get(id(rules))
        if known is not None and known[0] is rules:
            return known[1]
        found = by_value(rules)
        if len(by_id) >= 64:
            by_id.clear()
        by_id[id(rules)] = (rules, found)
        return found

    return cached
