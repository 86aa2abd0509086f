"""A Stratego position that knows the rules, in python-chess's shape (docs/position.md).

:class:`Position` holds a flat 100-int board (codes from ``pieces.py``), the side to move,
each side's two-squares state, captures and rescues. ``legal_moves`` (a view of
:class:`~strat_tools.engine.move.Move`), ``push`` (checked, recorded, returns a
:class:`~strat_tools.engine.move.Battle`), ``pop``, ``peek``, ``move_stack``, ``copy``,
``outcome``, ``==``, ``knowledge`` and the StraDos3 strings. The replay's hot loop
(``hotloop.py``) runs a faster loop over the same state and falls back to this class for
anything unusual, so the rules live here once; the line tables are ``rule_tables.py``'s.

This module knows no XML and no game records; it does not check armies or setups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from strat_tools.core.board import Side, square_name
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
from strat_tools.core.records import Move as RecordMove
from strat_tools.core.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    OUTCOME_NONE,
    RuleSet,
    get_rules,
)
from strat_tools.engine.board_check import position_winner
from strat_tools.engine.chains import CHAIN_KEPT, scout_chain
from strat_tools.engine.move import (
    Battle,
    History,
    LegalMoves,
    Move,
    decode_rescue_piece,
)
from strat_tools.engine.outcome import Outcome, board_ending
from strat_tools.engine.reference_moves import CODE_KIND_LABEL, ReferenceMoves
from strat_tools.engine.rule_tables import (
    SCOUT_CODES,
    STEP,
    rule_tables,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from strat_tools.engine.beliefs import BeliefModel
    from strat_tools.engine.knowledge import Knowledge

__all__ = [
    "Position",
]


class Position(ReferenceMoves):
    """A board, the side to move and the rule state (repetition, captures, rescues).

    >>> from strat_tools.formats.readers import read_records
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> pos = Position(record.setup, 'gravon-2013')
    >>> pos.push("I4-I5")  # a plain move: no battle
    <Battle.NONE: 0>
    >>> pos.peek(), pos.move_stack, pos.outcome()
    (Move(source=38, target=48, rescue=None), [Move(source=38, target=48, rescue=None)], None)
    """

    __slots__ = (
        "battle",
        "board",
        "captured",
        "declared",
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
        self.side: Side = Side.RED if side == Side.RED else Side(side)  # no enum call
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
        self.declared: Outcome | None = None
        """An ending the board does not show (a resignation, a clock): the record's, on a
        replayed game's last position (:func:`~strat_tools.engine.steps.walk`)."""

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
        other.declared = self.declared
        return other

    def _key(self) -> tuple[object, ...]:
        """The position and its rule state: what ``==`` and ``hash`` compare (not the
        pieces captured: a StraDos3 string counts every piece missing from the army)."""
        chains = (self.rep_key, self.rep_count, self.rep_lo, self.rep_hi, self.rescued)
        head = (bytes(self.board), int(self.side), self.plies, self.winner, self.rules)
        state = (*(tuple(c) for c in chains), tuple(self.rep_path), frozenset(self.rescuers))
        return (*head, *state)

    def __eq__(self, other: object) -> bool:
        """Same board, side to move, plies and rule state (the move stack is not compared,
        as in python-chess)."""
        if not isinstance(other, Position):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # -- the end of the game ----------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """How the game ended (:func:`~strat_tools.engine.outcome.board_ending`, else the
        record's ending a replayed game's last position carries), ``None`` while it goes on."""
        ending = board_ending(self)
        return ending if ending is not None else self.declared

    def is_game_over(self) -> bool:
        """Whether :meth:`outcome` names an ending."""
        return self.outcome() is not None

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

    # -- playing ----------------------------------------------------------------------

    def push(self, move: object, target: object = None, rescue: object = None) -> Battle:
        """Check a move, play it and record it (:meth:`pop` takes it back); returns the
        battle it started (:attr:`Battle.NONE` for none).

        ``move`` is a :class:`~strat_tools.engine.move.Move`, its text (``"B4-B5"``,
        ``"I4×I7"``, ``K10`` or Gravon's ``K:``), a record's move, or a source square with
        ``target``; ``rescue`` is ``(square, board code)`` for a rescue made with this move.
        Raises :class:`~strat_tools.core.errors.IllegalMove` (a ``ValueError``) naming the
        rule if the move is not legal, :class:`~strat_tools.engine.move.MoveError` saying
        what was expected if it is no move.
        """
        if isinstance(move, RecordMove) and target is None and rescue is None:
            found = Move.of(move.source, move.target)
            if move.rescue is not None:
                if move.rescue.square is None:
                    raise IllegalMove(
                        "rule.rescue", f"unreadable rescue square {move.rescue.raw_field!r}"
                    )
                code = decode_rescue_piece(move.rescue.piece, self.side)
                found = Move.of(found, rescue=(move.rescue.square, code))
        else:
            found = Move.of(move, target, rescue)
        if self.declared is not None:
            raise IllegalMove("rule.after_end", f"the game already ended: {self.declared}")
        source, target_square = found.source, found.target
        distance = self.check(source, target_square)
        if found.rescue is not None:
            self.check_rescue(source, target_square, *found.rescue)
        piece, defender = self.board[source], self.board[target_square]
        shown = 0
        if defender:
            shown = 1 if self.rules.silent_defense and piece not in SCOUT_CODES else 3
        elif distance > 1:
            shown = 1
        outcome = self.battle[piece * 26 + defender] if defender else 0
        self.history = History(
            found,
            self.board[:],
            self.side,
            (self.rep_key[:], self.rep_count[:], self.rep_lo[:], self.rep_hi[:]),
            self.rep_path[:],
            (self.captured[0][:], self.captured[1][:], self.captured[2][:]),
            self.rescued[:],
            frozenset(self.rescuers),
            self.winner,
            self.plies,
            (piece, defender, outcome, distance, shown),
            self.history,
        )
        return BATTLES[play_known(self, source, target_square, found.rescue)]

    def pop(self) -> Move:
        """Take back the last :meth:`push` (of this position or of the one it was copied
        from); returns that move. ``IndexError`` when there is none."""
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
        self.declared = None
        return last.move

    def peek(self) -> Move:
        """The last move pushed (``IndexError`` when there is none)."""
        if self.history is None:
            raise IndexError("no move was pushed")
        return self.history.move

    def _stack(self) -> list[History]:
        entries: list[History] = []
        entry = self.history
        while entry is not None:
            entries.append(entry)
            entry = entry.previous
        entries.reverse()
        return entries

    @property
    def move_stack(self) -> list[Move]:
        """Every move pushed, oldest first (a replayed game's positions: every move)."""
        return [entry.move for entry in self._stack()]

    def knowledge(self) -> Knowledge:
        """What each side knows after the moves pushed (from the oldest position on the
        move stack: a replayed game's setup): the knowledge model of ``engine/knowledge.py``,
        row ``-1`` this position, equal to the replay's ``knowledge()`` at this ply.
        ``know.known_board(-1, side)`` is what ``side`` sees."""
        from strat_tools.engine.knowledge import pushed_knowledge

        entries = self._stack()
        start = entries[0].board if entries else self.board
        moves = [(e.move.source, e.move.target, e.move.rescue) for e in entries]
        return pushed_knowledge(start, self.rules, moves, [e.event for e in entries])

    def observe(self) -> npt.NDArray[np.uint8]:
        """What the side to move sees (100 bytes, its view): the truth-free board view the
        observation export writes as ``board_view`` for this ply (an opponent piece it has
        not identified keeps only whether it moved; :func:`~strat_tools.engine.planes.
        board_views`); ``to_planes(pos.observe()[None])`` its planes."""
        from strat_tools.engine.planes import board_views

        return board_views(self.observation_with_truth())

    def beliefs(self, model: BeliefModel | None = None) -> dict[int, dict[str, float]]:
        """For each square holding an opponent piece the side to move has not identified,
        a distribution over its kind (``{square: {kind: probability}}``, Gravon squares,
        kinds ``bomb`` .. ``flag``), from what that side knows only (:meth:`observe` and
        the unidentified counts): the counts left, or ``model``'s
        (:mod:`strat_tools.engine.beliefs`)."""
        from strat_tools.engine.beliefs import known_beliefs

        return known_beliefs(self.knowledge(), self.side, model)

    def observation_with_truth(self) -> npt.NDArray[np.uint8]:
        """The side to move's observation board *with the hidden truth* (the rank of every
        opponent piece; the export's ``board`` label column), for analysis and the belief
        task: never what a player of this side may read (that is :meth:`observe`)."""
        import numpy as np

        from strat_tools.engine.planes import encode_boards

        know = self.knowledge()
        boards = encode_boards(know.boards[-1:], know.flags[-1:], [int(self.side)])
        return np.asarray(boards[0], dtype=np.uint8)

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

    # -- move generation --------------------------------------------------------------

    @property
    def legal_moves(self) -> LegalMoves:
        """Every legal move of the side to move under the rule set (reach, lakes, the
        two-squares limit and scout clause, turning captains), in square order: a sequence
        of :class:`~strat_tools.engine.move.Move` (``len``, ``in``, iteration), none once
        the game is over."""
        if self.declared is not None:
            return LegalMoves(())
        return LegalMoves(self.legal_pairs())

    def legal_pairs(self) -> list[tuple[int, int]]:
        """:meth:`legal_moves` as (source, target) squares, from the library's one move
        generator (:func:`~strat_tools.engine.moves.legal_ids`)."""
        from strat_tools.engine.moves import position_pairs  # numpy: on first use

        return position_pairs(self)

    def strados3(self, *, exact: bool = False) -> str:
        """The position as a StraDos3 string. By default OpenSpiel yorktown's three parts
        (field, side to move, plies; :mod:`strat_tools.engine.strados3`), the string its
        loader takes. ``exact=True`` adds the rule state, each side's two-squares chain with
        every square a scout's chain passed over, so that :meth:`from_strados3` gives back a
        position equal to this one (rescues made are not kept: ultimate lightning only).

        >>> from strat_tools.engine.strados3 import EMPTY_FIELD
        >>> pos = Position.from_strados3(EMPTY_FIELD.replace("A", "M", 1)[:-1] + "Y r 0")
        >>> pos.strados3(exact=True)[-6:], pos.strados3()[-4:], len(pos.legal_moves)
        (' r 0 -', ' r 0', 0)
        """
        from strat_tools.engine.strados3 import chains_text, to_strados3

        text = to_strados3(self.board, self.side, self.plies)
        if not exact:
            return text
        chains = [
            (self.rep_key[s], self.rep_count[s], self.rep_lo[s], self.rep_hi[s])
            if self.rep_key[s] >= 0
            else None
            for s in (1, 2)
        ]
        return f"{text} {chains_text(chains, self.rep_path[1:])}"

    @classmethod
    def from_strados3(cls, text: str, rules: RuleSet | str = "gravon-2013") -> Position:
        """The position of a StraDos3 string (three parts, or four as
        ``strados3(exact=True)`` writes them) under ``rules``; pieces missing from the rule
        set's army count as captured, and a board whose flag was just captured is a finished
        game. :class:`~strat_tools.engine.board_check.PositionError` (a ``ValueError``)
        naming what is wrong for a string that is no position or a board no game reaches
        (a piece on a lake, two flags, 41 pieces of a side...)."""
        from strat_tools.engine.board_check import PositionError
        from strat_tools.engine.strados3 import parse_chains, parse_strados3

        if not isinstance(text, str):
            raise PositionError(f"a StraDos3 string is text, got {type(text).__name__}")
        parts = text.strip().split(" ")
        if len(parts) not in (3, 4):
            raise PositionError(f"a StraDos3 string has 3 or 4 parts, got {len(parts)}")
        try:
            state = parse_strados3(" ".join(parts[:3]))
            chains = parse_chains(parts[3]) if len(parts) == 4 else [None, None]
        except ValueError as exc:
            raise PositionError(str(exc)) from None
        if -1 in state.board:
            raise PositionError("a position to play needs every piece: this string has '?'")
        board = list(state.board)
        ruleset = get_rules(rules)
        winner = position_winner(board, state.side, state.plies, ruleset.army)
        pos = cls(board, ruleset, state.side)
        pos.plies, pos.winner = state.plies, winner
        for side, found in enumerate(chains, 1):
            if found is not None:
                chain, pos.rep_path[side] = found
                pos.rep_key[side], pos.rep_count[side], pos.rep_lo[side], pos.rep_hi[side] = chain
        army = pos.rules.army or ()
        for code in range(1, 25) if army else ():
            missing = army[CODE_KIND[code]] - board.count(code)
            pos.captured[CODE_SIDE[code]].extend([code] * max(0, missing))
        return pos


SQUARE_NAMES: Final = tuple(square_name(s) for s in range(100))


def play_known(
    pos: Position, source: int, target: int, rescue: tuple[int, int] | None = None
) -> int:
    """Play a move known to be legal on ``pos`` without recording it; returns the battle
    outcome code. The engine's own loops use it (the replay's slow ply, the generator, the
    observation export), which check or generate every move themselves; a caller steps
    with :meth:`Position.push`, which checks and records (and calls this)."""
    board, side = pos.board, pos.side
    count, lo, hi = pos.repetition(source, target)
    pos.rep_key[side], pos.rep_count[side] = source * 100 + target, count
    pos.rep_lo[side], pos.rep_hi[side] = lo, hi
    if count == 1:
        pos.rep_path[side] = (source, target)
    else:
        kept = min(count, CHAIN_KEPT - 1)
        pos.rep_path[side] = (*pos.rep_path[side][-kept:], target)
    piece, defender = board[source], board[target]
    outcome = OUTCOME_NONE
    board[source] = EMPTY
    if defender == EMPTY:
        board[target] = piece
    else:
        outcome = pos.battle[piece * 26 + defender]
        other = 3 - side
        if outcome in (OUTCOME_ATTACKER, OUTCOME_FLAG):
            board[target] = piece
            pos.captured[other].append(defender)
            if outcome == OUTCOME_FLAG:
                pos.winner = side
        elif outcome == OUTCOME_DEFENDER:
            pos.captured[side].append(piece)
        else:
            board[target] = EMPTY
            pos.captured[side].append(piece)
            pos.captured[other].append(defender)
    rescuers = pos.rescuers
    if rescuers:
        # Follow the pieces that rescued: a piece may rescue only once.
        moved = source in rescuers
        rescuers.discard(source)
        if board[target] != defender:
            rescuers.discard(target)
        if moved and board[target] == piece:
            rescuers.add(target)
    if rescue is not None:
        square, code = rescue
        board[square] = code
        pos.captured[side].remove(code)
        pos.rescued[side] += 1
        rescuers.add(target)
    pos.side = OTHER_SIDE[side]
    pos.plies += 1
    return outcome


OTHER_SIDE: Final = (Side.RED, Side.BLUE, Side.RED)
"""The opponent of side 1 or 2 (index 0 unused)."""
BATTLES: Final = tuple(Battle)
"""Battle per outcome code."""
