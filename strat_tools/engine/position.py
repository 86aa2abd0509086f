"""A Stratego position that knows the rules: move legality, battles, repetition, rescue.

:class:`Position` holds a flat 100-int board (codes from ``pieces.py``), the side to move,
each side's two-squares (repetition) state, captured pieces and rescues. It checks a move
completely (:meth:`Position.illegal_reason`), plays it (:meth:`Position.push`), and lists
legal moves. The replay engine (``replay.py``) runs a faster loop over the same state and
falls back to this class for anything unusual, so the rules live here once.

The stepping API: :meth:`Position.legal_moves` (``"B4-B5"`` strings, from the vectorised
generator in ``movegen.py``), :meth:`Position.push` / :meth:`Position.pop`,
:meth:`Position.copy`, :meth:`Position.strados3` / :meth:`Position.from_strados3`.

The line and rule tables (:data:`DISTANCE`, :data:`PATH`, :data:`STEP`, :func:`rule_tables`)
live in ``engine/rule_tables.py``, indexed by ``source * 100 + target`` for the hot loops.

This module knows no XML and no game records; it does not check armies or setups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from strat_tools.core.board import LAKES, RAYS, Side, square_name
from strat_tools.core.errors import IllegalMove
from strat_tools.core.pieces import (
    CODE_KIND,
    CODE_SIDE,
    EMPTY,
    LAKE,
    PieceKind,
    check_board,
    piece_name,
)
from strat_tools.core.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_NONE,
    RuleSet,
    get_rules,
)
from strat_tools.engine.chains import CHAIN_KEPT, scout_chain
from strat_tools.engine.rule_tables import (
    ADJACENT_ROWS,
    CAPTAIN_CODES,
    DISTANCE,
    NO_LIMIT,
    NO_ROWS,
    PATH,
    REACH_CLAUSE,
    REACH_LINE,
    REACH_NONE,
    REACH_ONE,
    SCOUT_CODES,
    STEP,
    RuleTables,
    rule_tables,
)


class History(NamedTuple):
    """The state before one :meth:`Position.push`, and the history before that."""

    move: str
    board: list[int]
    side: int
    chains: tuple[list[int], list[int], list[int], list[int]]
    paths: list[tuple[int, ...]]
    """Each side's scout-chain squares (:attr:`Position.rep_path`)."""
    captured: tuple[list[int], list[int], list[int]]
    rescued: list[int]
    rescuers: frozenset[int]
    winner: int
    plies: int
    previous: History | None


__all__ = [
    "ADJACENT_ROWS",
    "CAPTAIN_CODES",
    "DISTANCE",
    "NO_LIMIT",
    "NO_ROWS",
    "PATH",
    "REACH_CLAUSE",
    "REACH_LINE",
    "REACH_NONE",
    "REACH_ONE",
    "SCOUT_CODES",
    "STEP",
    "IllegalMove",
    "Position",
    "RuleTables",
    "rule_tables",
]


class Position:
    """A board, the side to move and the rule state (repetition, captures, rescues).

    >>> from strat_tools.core.board import parse_square
    >>> from strat_tools.formats.readers import read_records
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> pos = Position(record.setup, 'gravon-2013')
    >>> pos.push(parse_square('I4'), parse_square('I5'))  # a plain move: no battle
    0
    """

    __slots__ = (
        "battle",
        "board",
        "captured",
        "history",
        "limit",
        "plies",
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
        self.plies = 0
        """Plies played since the setup (or since the position a StraDos3 string gave)."""
        self.history: History | None = None
        """What :meth:`pop` restores: the state before each :meth:`push` (shared by copies)."""

    # -- inspection -------------------------------------------------------------------

    def __str__(self) -> str:
        from strat_tools.core.diagrams import render_board

        return render_board(self.board)

    def __repr__(self) -> str:
        pieces = [sum(1 for c in self.board if CODE_SIDE[c] == s) for s in (1, 2)]
        return (
            f"<Position {Side(self.side).label} to move, {pieces[0]} red and {pieces[1]} "
            f"blue pieces, {self.rules.name}>"
        )

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
        other.plies = self.plies
        other.history = self.history
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
        return scout_chain(self.rep_path[side] or (prev_src, source), target, abs(unit))

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

    def push(
        self, move: str | int, target: int | None = None, rescue: tuple[int, int] | None = None
    ) -> int:
        """Play a move after checking it; returns the battle outcome code (0 = no battle).

        ``move`` is ``"B4-B5"`` (square names, ``K10`` or Gravon's ``K:``) or a source
        square with ``target``; ``rescue`` is ``(square, piece code)`` for a rescue made with
        this move. Raises :class:`~strat_tools.core.errors.IllegalMove` (a ``ValueError``) naming
        the rule if the move is not legal; :meth:`pop` takes a pushed move back.
        """
        if isinstance(move, str):
            if target is not None:
                raise TypeError("give a move as 'B4-B5' or as two squares, not both")
            from strat_tools.engine.strados3 import move_squares

            source, target = move_squares(move)
        elif target is None:
            raise TypeError("a move given as a source square needs its target square")
        else:
            source = move
        self.check(source, target)
        if rescue is not None:
            self.check_rescue(source, target, *rescue)
        self.history = History(
            f"{SQUARE_NAMES[source]}-{SQUARE_NAMES[target]}",
            self.board[:],
            self.side,
            (self.rep_key[:], self.rep_count[:], self.rep_lo[:], self.rep_hi[:]),
            self.rep_path[:],
            (self.captured[0][:], self.captured[1][:], self.captured[2][:]),
            self.rescued[:],
            frozenset(self.rescuers),
            self.winner,
            self.plies,
            self.history,
        )
        return self.apply(source, target, rescue)

    def pop(self) -> str:
        """Take back the last :meth:`push` (of this position or of the one it was copied
        from); returns that move, ``"B4-B5"``. ``IndexError`` when there is none."""
        last = self.history
        if last is None:
            raise IndexError("no move to take back: nothing was pushed")
        self.board = last.board[:]
        self.side, self.winner, self.plies, self.history = (
            last.side,
            last.winner,
            last.plies,
            last.previous,
        )
        self.rep_key, self.rep_count, self.rep_lo, self.rep_hi = (c[:] for c in last.chains)
        self.rep_path = last.paths[:]
        self.captured = (last.captured[0][:], last.captured[1][:], last.captured[2][:])
        self.rescued, self.rescuers = last.rescued[:], set(last.rescuers)
        return last.move

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
        self.plies += 1
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

    def legal_moves(self) -> list[str]:
        """Every legal move of the side to move, ``"B4-B5"``, under the rule set (reach,
        lakes, the two-squares limit and scout clause, turning captains); in square order."""
        return [f"{SQUARE_NAMES[s]}-{SQUARE_NAMES[t]}" for s, t in self.legal_pairs()]

    def legal_pairs(self) -> list[tuple[int, int]]:
        """:meth:`legal_moves` as (source, target) squares, from the library's one move
        generator (:func:`~strat_tools.engine.movegen.legal_ids`)."""
        from strat_tools.engine.movegen import position_pairs

        return position_pairs(self)

    def reference_pairs(self) -> list[tuple[int, int]]:
        """:meth:`legal_pairs` found square by square in pure Python: the reference the
        vectorised generator is tested against (tests/test_movegen.py)."""
        if self.winner:
            return []
        return list(self._moves(first_only=False))

    def strados3(self, *, rule_state: bool = True) -> str:
        """The position as a StraDos3 string: OpenSpiel yorktown's three parts (field, side
        to move, plies; :mod:`strat_tools.engine.strados3`), then, unless
        ``rule_state=False``, each side's two-squares chain, so that :meth:`from_strados3`
        gives back a position with the same legal moves (rescues made are not kept)."""
        from strat_tools.engine.strados3 import chains_text, to_strados3

        text = to_strados3(self.board, self.side, self.plies)
        if not rule_state:
            return text
        chains = [
            (self.rep_key[s], self.rep_count[s], self.rep_lo[s], self.rep_hi[s])
            if self.rep_key[s] >= 0
            else None
            for s in (1, 2)
        ]
        return f"{text} {chains_text(chains)}"

    @classmethod
    def from_strados3(cls, text: str, rules: RuleSet | str = "gravon-2013") -> Position:
        """The position of a StraDos3 string (three parts, or four as :meth:`strados3`
        writes them) under ``rules``; pieces missing from the rule set's army count as
        captured. ``ValueError`` saying what is wrong otherwise.

        >>> pos = Position.from_strados3("M" + "A" * 98 + "Y r 0")
        >>> pos.legal_moves(), Position.from_strados3(pos.strados3()).strados3()[-6:]
        ([], ' r 0 -')
        """
        from strat_tools.engine.strados3 import parse_chains, parse_strados3

        parts = text.strip().split(" ")
        state = parse_strados3(" ".join(parts[:3]))
        if len(parts) > 4:
            raise ValueError(f"a StraDos3 string has 3 or 4 parts, got {len(parts)}")
        if -1 in state.board:
            raise ValueError("a position to play needs every piece: this string has '?'")
        board = list(state.board)
        pos = cls(board, rules, state.side)
        pos.plies = state.plies
        for side, chain in enumerate(parse_chains(parts[3]) if len(parts) == 4 else [], 1):
            if chain is not None:
                pos.rep_key[side], pos.rep_count[side], pos.rep_lo[side], pos.rep_hi[side] = chain
                pos.rep_path[side] = (chain[0] // 100, chain[0] % 100)  # the last move only
        army = pos.rules.army or ()
        for code in range(1, 25) if army else ():
            missing = army[CODE_KIND[code]] - board.count(code)
            pos.captured[CODE_SIDE[code]].extend([code] * max(0, missing))
        return pos

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


SQUARE_NAMES: Final = tuple(square_name(s) for s in range(100))
CODE_KIND_LABEL: Final = tuple("" if k < 0 else PieceKind(k).label for k in CODE_KIND)
"""Kind label per board code ('' for empty and lake)."""
