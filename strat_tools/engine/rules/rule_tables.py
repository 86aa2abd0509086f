"""The engine's lookup tables: the board's lines and a rule set's tables, computed once.

The line tables (:data:`DISTANCE`, :data:`STEP`, :data:`PATH`, :data:`ADJACENT_ROWS`) hold
every straight, lake-free move, indexed by ``source * 100 + target``; :func:`rule_tables`
turns a :class:`~strat_tools.core.rules.RuleSet` into the flat per-code tables the hot loop,
the batch move generator (``engine/moves/``) and
:class:`~strat_tools.engine.position.position.Position` read.

This module knows no records and plays no moves.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from strat_tools.core.board import LAKES, RAYS
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, LAKE, PieceKind
from strat_tools.core.rules import RuleSet, battle_table, per_rule_set


def _line_tables() -> tuple[list[int], list[int], list[tuple[int, ...]]]:
    """Distance, unit step and intermediate squares for every straight, lake-free move."""
    distance = [0] * 10000
    step = [0] * 10000
    path: list[tuple[int, ...]] = [()] * 10000
    for source in range(100):
        if source in LAKES:
            continue
        for ray, unit in zip(RAYS[source], (10, -10, 1, -1), strict=True):
            for index, target in enumerate(ray):
                key = source * 100 + target
                distance[key] = index + 1
                step[key] = unit
                path[key] = ray[:index]
    return distance, step, path


DISTANCE, STEP, PATH = _line_tables()
"""Per ``source * 100 + target``: squares travelled in a straight lake-free line (0 if not
such a move), the unit step (±1, ±10) and the squares passed over."""


def _adjacent_rows() -> tuple[tuple[int, ...], ...]:
    """``[source][target]``: 1 for a one-square lake-free orthogonal move, else 0; 101 x 101
    so that an unreadable square (-1) indexes the all-zero row and column 100."""
    return tuple(
        tuple(
            int(source < 100 and target < 100 and DISTANCE[source * 100 + target] == 1)
            for target in range(101)
        )
        for source in range(101)
    )


ADJACENT_ROWS: Final = _adjacent_rows()
"""``ADJACENT_ROWS[source][target]``: 1 for a one-square lake-free orthogonal move; index -1
(row and column 100) reads 0."""
NO_ROWS: Final = tuple((0,) * 101 for _ in range(101))
"""Like :data:`ADJACENT_ROWS`, all 0: the one-square table of a piece that is not one-step."""


SCOUT_CODES: Final = (PieceKind.SCOUT + 1, PieceKind.SCOUT + 13)
CAPTAIN_CODES: Final = (PieceKind.CAPTAIN + 1, PieceKind.CAPTAIN + 13)
NO_LIMIT: Final = 1 << 30


REACH_NONE: Final = 0
""":attr:`RuleTables.reach_kind`: not a piece this side may move."""
REACH_ONE: Final = 1
"""One square, and the plain two-squares count (the hot loop's common case)."""
REACH_CLAUSE: Final = 2
"""Farther than one square, and counted under the scout clause."""
REACH_LINE: Final = 3
"""Farther than one square (scouts without the clause, lightning captains), plain count."""


class RuleTables(NamedTuple):
    """A rule set's lookup tables, computed once per rule set (see :func:`rule_tables`)."""

    battle: tuple[int, ...]
    """Battle outcome per ``attacker * 26 + defender``."""
    battle_rows: tuple[tuple[int, ...], ...]
    """The same as ``battle_rows[attacker][defender]``."""
    steps: tuple[int, ...]
    """Reach per board code (0: never moves)."""
    spans: tuple[bool, ...]
    """Per board code: its repetition is counted under the scout clause."""
    limit: int
    """The two-squares limit (``NO_LIMIT`` for none)."""
    reach_kind: tuple[tuple[int, ...], ...]
    """Per side (index 1, 2) and board code: a ``REACH_*`` value."""
    one_step: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]
    """Per side and board code: :data:`ADJACENT_ROWS` where ``reach_kind`` is ``REACH_ONE``,
    else :data:`NO_ROWS` (``one_step[side][code][source][target]`` is the hot loop's test)."""
    clause: tuple[tuple[bool, ...], ...]
    """Per side and board code: ``reach_kind`` is ``REACH_CLAUSE``."""
    own: tuple[tuple[bool, ...], ...]
    """Per side and board code: the code is one of that side's pieces, or a lake (a square
    no move of that side may enter)."""
    reveal: tuple[int, ...]
    """Per attacker code: the revealed bits of a battle (silent defense hides the defender
    unless a scout attacks)."""


@per_rule_set
def rule_tables(rules: RuleSet) -> RuleTables:
    """The lookup tables of ``rules``: battle outcomes, reach, repetition and the hot loop's
    per-side piece classes (cached per rule set: looked up once per replayed game)."""
    battle = tuple(battle_table(rules))
    steps = tuple(0 if CODE_KIND[c] < 0 else rules.steps[CODE_KIND[c]] for c in range(26))
    spans = tuple(rules.scout_clause and c in SCOUT_CODES for c in range(26))
    limit = NO_LIMIT if rules.two_squares_limit is None else rules.two_squares_limit

    def reach_kind(code: int) -> int:
        if steps[code] == 0:
            return REACH_NONE
        if spans[code]:
            return REACH_CLAUSE
        return REACH_ONE if steps[code] == 1 else REACH_LINE

    kinds = tuple(reach_kind(c) for c in range(26))
    reach = tuple(
        tuple(k if CODE_SIDE[c] == s else 0 for c, k in enumerate(kinds)) for s in (0, 1, 2)
    )
    reveal_battle = 1 if rules.silent_defense else 3
    return RuleTables(
        battle=battle,
        battle_rows=tuple(battle[code * 26 : code * 26 + 26] for code in range(26)),
        steps=steps,
        spans=spans,
        limit=limit,
        reach_kind=reach,
        one_step=tuple(
            tuple(ADJACENT_ROWS if k == REACH_ONE else NO_ROWS for k in side) for side in reach
        ),
        clause=tuple(tuple(k == REACH_CLAUSE for k in side) for side in reach),
        # A lake counts as "own" for both sides: a move onto a lake mark (even one on an
        # ordinary square of a bad setup) stops the hot loop there, and Position refuses it.
        own=tuple(tuple(CODE_SIDE[c] == s or c == LAKE for c in range(26)) for s in (0, 1, 2)),
        reveal=tuple(3 if c in SCOUT_CODES else reveal_battle for c in range(26)),
    )
