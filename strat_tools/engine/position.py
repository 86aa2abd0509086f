"""A Stratego position that knows the rules: move legality, battles, repetition, rescue.

:class:`Position` holds a flat 100-int board (codes from ``pieces.py``), the side to move,
each side's two-squares (repetition) state, captured pieces and rescues. It checks a move
completely (:meth:`Position.illegal_reason`), plays it (:meth:`Position.push`), and lists
legal moves. The replay engine (``replay.py``) runs a faster loop over the same state and
falls back to this class for anything unusual, so the rules live here once.

Module-level tables (:data:`DISTANCE`, :data:`PATH`, :data:`STEP`) are indexed by
``source * 100 + target`` so the hot loops touch only ints.

This module knows no XML and no game records; it does not check armies or setups.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final, NamedTuple

from strat_tools.board import LAKES, RAYS, Side, square_name
from strat_tools.engine.chains import CHAIN_KEPT, scout_chain
from strat_tools.pieces import (
    CODE_KIND,
    CODE_SIDE,
    EMPTY,
    LAKE,
    PieceKind,
    check_board,
    piece_name,
)
from strat_tools.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_NONE,
    RuleSet,
    battle_table,
    get_rules,
)


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


def rule_tables(rules: RuleSet) -> RuleTables:
    """The lookup tables of ``rules``: battle outcomes, reach, repetition and the hot loop's
    per-side piece classes (cached per rule set)."""
    # Looked up once per replayed game: an identity check is much cheaper than hashing the
    # rule set's fields, and the entry keeps the rule set alive, so its id stays its own.
    known = _TABLES_BY_ID.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    tables = _rule_tables(rules)
    if len(_TABLES_BY_ID) >= 64:
        _TABLES_BY_ID.clear()
    _TABLES_BY_ID[id(rules)] = (rules, tables)
    return tables


_TABLES_BY_ID: dict[int, tuple[RuleSet, RuleTables]] = {}


@lru_cache(maxsize=64)
def _rule_tables(rules: RuleSet) -> RuleTables:
    """:func:`rule_tables`, computed (cached by value: equal rule sets share tables)."""
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


class IllegalMove(ValueError):
    """A move the rules forbid; ``code`` names the rule (``'rule.lake'``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Position:
    """A board, the side to move and the rule state (repetition, captures, rescues).

    >>> from strat_tools.board import parse_square
    >>> from strat_tools.readers import read_records
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> pos = Position(record.setup, 'gravon-2013')
    >>> pos.push(parse_square('I4'), parse_square('I5'))  # a plain move: no battle
    0
    """

    __slots__ = (
        "battle",
        "board",
        "captured",
        "limit",
        "rep_count",
        "rep_hi",
        "rep_key",
        "rep_lo",
        "rep_path",
        "rescued",
        "rescuers",
        "rules",
        "side",
        "spans",
        "steps",
        "tables",
        "winner",
    )

    def __init__(
        self,
        setup: Sequence[int],
        rules: RuleSet | str = "gravon-2013",
        side: Side = Side.RED,
    ) -> None:
        check_board(setup)
        self.board: list[int] = list(setup)
        self.side: int = int(side)
        self.rules = get_rules(rules)
        tables = self.tables = rule_tables(self.rules)
        self.battle, self.steps, self.spans, self.limit = (
            tables.battle,
            tables.steps,
            tables.spans,
            tables.limit,
        )
        # Repetition state per side (index 1 red, 2 blue): last move and how many moves in a
        # row went back and forth; lo/hi is the span shared by the chain (scout clause).
        self.rep_key = [-1, -1, -1]
        """Each side's last move as ``source * 100 + target`` (-1 before its first move)."""
        self.rep_count = [0, 0, 0]
        self.rep_lo = [0, 0, 0]
        self.rep_hi = [0, 0, 0]
        self.rep_path: list[tuple[int, ...]] = [(), (), ()]
        """Each side's chain as its squares, oldest first (count + 1 of them, at most
        :data:`CHAIN_KEPT`): a scout's chain that stops sharing two squares is recounted
        over them (:func:`scout_chain`)."""
        self.captured: tuple[list[int], list[int], list[int]] = ([], [], [])
        """Codes of each side's pieces removed so far (index = side)."""
        self.rescued: list[int] = [0, 0, 0]
        """Rescues made per side."""
        self.rescuers: set[int] = set()
        """Squares of pieces that have made a rescue (a piece may rescue only once)."""
        self.winner: int = 0
        """The side that captured the flag, 0 while the game is open."""

    # -- inspection -------------------------------------------------------------------

    def __str__(self) -> str:
        from strat_tools.engine.render import render_board

        return render_board(self.board)

    def __repr__(self) -> str:
        pieces = [sum(1 for c in self.board if CODE_SIDE[c] == s) for s in (1, 2)]
        return (
            f"<Position {Side(self.side).label} to move, {pieces[0]} red and {pieces[1]} "
            f"blue pieces, {self.rules.name}>"
        )

    def _repr_svg_(self) -> str:
        """The board as an SVG picture (Jupyter shows it)."""
        from strat_tools.engine.svg import board_svg

        return board_svg(self.board)

    def copy(self) -> Position:
        """An independent copy (for search or the game generator)."""
        other = Position.__new__(Position)
        other.board = self.board[:]
        other.side = self.side
        other.rules = self.rules
        other.battle = self.battle
        other.steps = self.steps
        other.limit = self.limit
        other.tables = self.tables
        other.spans = self.spans
        for name in ("rep_key", "rep_count", "rep_lo", "rep_hi", "rep_path", "rescued"):
            setattr(other, name, getattr(self, name)[:])
        other.captured = (self.captured[0][:], self.captured[1][:], self.captured[2][:])
        other.rescuers = set(self.rescuers)
        other.winner = self.winner
        return other

    # -- repetition -------------------------------------------------------------------

    def repetition(self, source: int, target: int, side: int = 0) -> tuple[int, int, int]:
        """(count, lo, hi) the mover's back-and-forth chain would have after this move
        (``side``: the mover, default the side to move)."""
        side = side or self.side
        seg_lo, seg_hi = min(source, target), max(source, target)
        last = self.rep_key[side]
        if last < 0 or source != last % 100:
            return 1, seg_lo, seg_hi
        prev_src = last // 100
        if not self.spans[self.board[source]]:
            if target == prev_src:
                return self.rep_count[side] + 1, seg_lo, seg_hi
            return 1, seg_lo, seg_hi
        # Scout clause: the scout stands on every square it passes over, so a reversing move
        # on the same line continues the chain while all its moves share two squares.
        unit = STEP[source * 100 + target]
        if unit == 0 or unit != -STEP[prev_src * 100 + source]:
            return 1, seg_lo, seg_hi
        lo = max(self.rep_lo[side], seg_lo)
        hi = min(self.rep_hi[side], seg_hi)
        if hi - lo >= abs(unit):
            return self.rep_count[side] + 1, lo, hi
        # The whole chain no longer shares two squares: count the longest run of its latest
        # moves that still does (at least the last one and this one).
        return scout_chain(self.rep_path[side], target, abs(unit))

    # -- legality ---------------------------------------------------------------------

    def illegal_reason(self, source: int, target: int) -> tuple[str, str] | None:
        """``(code, reason)`` if moving ``source``→``target`` now breaks a rule, else None."""
        try:
            self.check(source, target)
        except IllegalMove as exc:
            return exc.code, exc.message
        return None

    def check(self, source: int, target: int) -> int:
        """Raise :class:`IllegalMove` naming the rule unless the move is legal; return the
        distance travelled."""
        board, side = self.board, self.side
        if self.winner:
            raise IllegalMove("rule.after_end", "the game already ended: the flag was captured")
        if not (0 <= source < 100 and 0 <= target < 100):
            raise IllegalMove("rule.off_board", "a square is not on the board")
        piece = board[source]
        if piece == EMPTY:
            raise IllegalMove("rule.empty_source", f"{square_name(source)} is empty")
        if piece == LAKE or board[target] == LAKE:
            raise IllegalMove("rule.lake", "pieces cannot stand on a lake")
        if CODE_SIDE[piece] != side:
            raise IllegalMove(
                "rule.turn", f"it is {Side(side).label}'s turn, but this is a {piece_name(piece)}"
            )
        if CODE_KIND[piece] in (PieceKind.BOMB, PieceKind.FLAG):
            raise IllegalMove("rule.immovable", f"a {CODE_KIND_LABEL[piece]} never moves")
        if CODE_SIDE[board[target]] == side:
            raise IllegalMove("rule.own_piece", f"{square_name(target)} holds an own piece")
        distance = self._check_path(source, target, piece)
        count = self.repetition(source, target)[0]
        if count > self.limit:
            raise IllegalMove(
                "rule.two_squares",
                f"move {count} in a row back and forth between the same squares "
                f"(limit {self.rules.two_squares_limit})",
            )
        return distance

    def _check_path(self, source: int, target: int, piece: int) -> int:
        """Geometry: straight, lake-free, within the piece's reach, nothing in between."""
        board = self.board
        key = source * 100 + target
        distance = DISTANCE[key]
        if distance == 0:
            if source == target:
                raise IllegalMove("rule.distance", "the piece does not move")
            if self._captain_turn(source, target, piece):
                return 2
            if source // 10 == target // 10 or source % 10 == target % 10:
                raise IllegalMove("rule.lake", "the move crosses a lake")
            raise IllegalMove("rule.diagonal", "not a straight orthogonal move")
        if distance > self.steps[piece]:
            raise IllegalMove(
                "rule.distance",
                f"a {CODE_KIND_LABEL[piece]} moves at most {self.steps[piece]} square(s), "
                f"not {distance}",
            )
        for square in PATH[key]:
            if board[square] != EMPTY:
                code = "rule.scout_path" if piece in SCOUT_CODES else "rule.path"
                raise IllegalMove(
                    code, f"{square_name(square)} on the way holds a {piece_name(board[square])}"
                )
        return distance

    def _captain_turn(self, source: int, target: int, piece: int) -> bool:
        """Whether a two-step captain move turning a corner is legal here."""
        if piece not in CAPTAIN_CODES or self.steps[piece] < 2 or not self.rules.captain_turns:
            return False
        if abs(source // 10 - target // 10) != 1 or abs(source % 10 - target % 10) != 1:
            return False
        corners = (source // 10 * 10 + target % 10, target // 10 * 10 + source % 10)
        return any(self.board[c] == EMPTY for c in corners)

    # -- playing ----------------------------------------------------------------------

    def push(self, source: int, target: int, rescue: tuple[int, int] | None = None) -> int:
        """Play a move after checking it; returns the battle outcome code (0 = no battle).

        ``rescue`` is ``(square, piece code)`` for a rescue made with this move. Raises
        :class:`IllegalMove` (a ``ValueError``) naming the rule if the move is not legal.
        """
        self.check(source, target)
        if rescue is not None:
            self.check_rescue(source, target, *rescue)
        return self.apply(source, target, rescue)

    def apply(self, source: int, target: int, rescue: tuple[int, int] | None = None) -> int:
        """Play a move that is known to be legal; returns the battle outcome code."""
        board, side = self.board, self.side
        count, lo, hi = self.repetition(source, target)
        self.rep_key[side], self.rep_count[side] = source * 100 + target, count
        self.rep_lo[side], self.rep_hi[side] = lo, hi
        if count == 1:
            self.rep_path[side] = (source, target)
        else:
            kept = min(count, CHAIN_KEPT - 1)
            self.rep_path[side] = (*self.rep_path[side][-kept:], target)
        piece, defender = board[source], board[target]
        outcome = OUTCOME_NONE
        board[source] = EMPTY
        if defender == EMPTY:
            board[target] = piece
        else:
            outcome = self.battle[piece * 26 + defender]
            other = 3 - side
            if outcome in (OUTCOME_ATTACKER, OUTCOME_FLAG):
                board[target] = piece
                self.captured[other].append(defender)
                if outcome == OUTCOME_FLAG:
                    self.winner = side
            elif outcome == OUTCOME_DEFENDER:
                self.captured[side].append(piece)
            else:
                board[target] = EMPTY
                self.captured[side].append(piece)
                self.captured[other].append(defender)
        rescuers = self.rescuers
        if rescuers:
            # Follow the pieces that rescued: a piece may rescue only once.
            moved = source in rescuers
            rescuers.discard(source)
            if board[target] != defender:
                rescuers.discard(target)
            if moved and board[target] == piece:
                rescuers.add(target)
        if rescue is not None:
            self._apply_rescue(target, *rescue)
        self.side = 3 - side
        return outcome

    def check_rescue(self, source: int, target: int, square: int, code: int) -> None:
        """Raise :class:`IllegalMove` unless this move may rescue ``code`` onto ``square``."""
        side, board = self.side, self.board
        piece = board[source]
        if not self.rules.rescue:
            raise IllegalMove("rule.rescue", "these rules have no rescue")
        back_row = target >= 90 if side == Side.RED else target < 10
        if not back_row:
            raise IllegalMove("rule.rescue", "a rescue needs a move onto the enemy back row")
        if piece in SCOUT_CODES:
            raise IllegalMove("rule.rescue", "a scout cannot rescue")
        if self.rescued[side] >= self.rules.rescue_limit:
            raise IllegalMove("rule.rescue", f"at most {self.rules.rescue_limit} rescues each")
        if source in self.rescuers:
            raise IllegalMove("rule.rescue", "this piece already made a rescue")
        own_half = square < 50 if side == Side.RED else square >= 50
        if not (0 <= square < 100 and own_half and board[square] == EMPTY):
            raise IllegalMove("rule.rescue", "the rescue square must be empty, in the own half")
        if CODE_SIDE[code] != side or code not in self.captured[side]:
            raise IllegalMove("rule.rescue", f"no captured {piece_name(code)} to rescue")
        if CODE_KIND[code] == PieceKind.BOMB and not self.rules.rescue_bombs:
            raise IllegalMove("rule.rescue", "a bomb cannot be rescued")
        if self.battle[piece * 26 + board[target]] in (OUTCOME_DEFENDER, OUTCOME_BOTH):
            raise IllegalMove("rule.rescue", "the rescuing piece did not survive its attack")

    def _apply_rescue(self, rescuer_square: int, square: int, code: int) -> None:
        side = self.side
        self.board[square] = code
        self.captured[side].remove(code)
        self.rescued[side] += 1
        self.rescuers.add(rescuer_square)

    # -- move generation --------------------------------------------------------------

    def legal_moves(self) -> list[tuple[int, int]]:
        """Every legal (source, target) for the side to move (repetition limit included)."""
        if self.winner:
            return []
        return list(self._moves(first_only=False))

    def has_legal_move(self, side: int | None = None) -> bool:
        """Whether ``side`` (default: the side to move) could move now."""
        if self.winner:
            return False
        if side is None or side == self.side:
            return self._any_move()
        saved = self.side
        self.side = side
        try:
            return self._any_move()
        finally:
            self.side = saved

    def _any_move(self) -> bool:
        """Whether the side to move has a legal move: first a quick look at the first square
        of each piece's four lines (enough in almost every position), then the full search."""
        board, side, steps, limit = self.board, self.side, self.steps, self.limit
        own = self.tables.own[side]
        last = self.rep_key[side]
        moved_last = last % 100 if last >= 0 else -1
        for source in range(100):
            piece = board[source]
            if not own[piece] or not steps[piece]:
                continue
            for ray in RAYS[source]:
                if ray and not own[board[ray[0]]]:
                    count = 1 if source != moved_last else self.repetition(source, ray[0])[0]
                    if count <= limit:
                        return True
        return bool(self._moves(first_only=True))

    def _moves(self, *, first_only: bool) -> list[tuple[int, int]]:
        board, side, steps = self.board, self.side, self.steps
        limit = self.limit
        found: list[tuple[int, int]] = []
        for source in range(100):
            piece = board[source]
            if CODE_SIDE[piece] != side or steps[piece] == 0:
                continue
            for target in self._reach(source, piece):
                if self.repetition(source, target)[0] <= limit:
                    found.append((source, target))
                    if first_only:
                        return found
        return found

    def _reach(self, source: int, piece: int) -> list[int]:
        """Targets the piece's movement allows (ignoring repetition)."""
        board, side = self.board, self.side
        reach = self.steps[piece]
        out: list[int] = []
        for ray in RAYS[source]:
            for travelled, square in enumerate(ray, 1):
                if travelled > reach:
                    break
                occupant = board[square]
                if occupant == EMPTY:
                    out.append(square)
                    continue
                if CODE_SIDE[occupant] != side:
                    out.append(square)
                break
        if reach >= 2 and piece in CAPTAIN_CODES and self.rules.captain_turns:
            row, col = divmod(source, 10)
            for dr in (-1, 1):
                for dc in (-1, 1):
                    if 0 <= row + dr < 10 and 0 <= col + dc < 10:
                        target = (row + dr) * 10 + col + dc
                        if (
                            target not in LAKES
                            and CODE_SIDE[board[target]] != side
                            and (self._captain_turn(source, target, piece))
                        ):
                            out.append(target)
        return out


CODE_KIND_LABEL: Final = tuple("" if k < 0 else PieceKind(k).label for k in CODE_KIND)
"""Kind label per board code ('' for empty and lake)."""
