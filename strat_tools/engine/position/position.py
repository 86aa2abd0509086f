"""A Stratego position that knows the rules, in python-chess's shape (docs/position.md).

:class:`Position` is a flat 100-int board (codes from ``pieces.py``) and one immutable
:class:`~strat_tools.engine.rules.rule_state.RuleState` (the side to move, plies, each side's
two-squares chain, captures and rescues): ``legal_moves`` (a view of
:class:`~strat_tools.core.move.Move`), ``push`` (checked, recorded, returns a
:class:`~strat_tools.engine.position.move.Battle`), ``pop`` (the board and the state before, whole),
``peek``, ``move_stack``, ``copy``, ``outcome``, ``==``, ``knowledge`` and the StraDos3
strings. The replay's hot loop (``hotloop.py``) runs a faster loop over the same values and
falls back to this class for anything unusual, so the rules live here once; the line tables
are ``rule_tables.py``'s. Only this module sets a position's board and state.

This module knows no XML and no game records; it does not check armies or setups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from strat_tools.core.board import Side, square_name
from strat_tools.core.errors import IllegalMove
from strat_tools.core.move import Move, MoveError
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
from strat_tools.engine.position.move import Battle, LegalMoves
from strat_tools.engine.position.observing import Observing
from strat_tools.engine.rules.board_check import PositionError, refuse_another_army
from strat_tools.engine.rules.chains import CHAIN_KEPT, scout_chain
from strat_tools.engine.rules.hotloop import play_span
from strat_tools.engine.rules.outcome import Outcome, board_ending
from strat_tools.engine.rules.reference_moves import CODE_KIND_LABEL, ReferenceMoves
from strat_tools.engine.rules.rule_state import OTHER_SIDE, Chain, History, RuleState, StateView
from strat_tools.engine.rules.rule_tables import SCOUT_CODES, STEP, rule_tables

if TYPE_CHECKING:
    from strat_tools.engine.information.cursor import KnowledgeCursor
    from strat_tools.engine.information.knowledge import Knowledge

__all__ = [
    "Position",
]

DEFAULT_RULES: Final = "gravon-2013"
"""The rule set a position takes when none is given, for a board of the classic army."""


class Position(ReferenceMoves, StateView, Observing):
    """A board and its rule state (side to move, repetition, captures, rescues).

    ``Position(setup, rules)`` starts from a board of codes (a record's setup), red to move;
    ``Position(text, rules)`` from a StraDos3 string (:meth:`from_strados3`). Without
    ``rules`` the classic ``gravon-2013`` set is taken, and a board holding another
    variant's whole army is refused (:class:`~strat_tools.engine.rules.board_check.PositionError`
    naming the variant): say its rules, ``st.rules_for(record)``.

    >>> from strat_tools.formats.readers import read_records
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> pos = Position(record.setup, 'gravon-2013')
    >>> pos.push("I4-I5")  # a plain move: no battle
    <Battle.NONE: 0>
    >>> str(pos.peek()), pos.ply(), str(pos.turn), pos.outcome(), pos.result()
    ('I4-I5', 1, 'blue', None, '*')
    """

    __slots__ = (
        "battle",
        "board",
        "history",
        "limit",
        "rules",
        "seen",
        "spans",
        "state",
        "steps",
        "tables",
    )

    def __init__(
        self,
        setup: Sequence[int] | str,
        rules: RuleSet | str | None = None,
        side: Side = Side.RED,
    ) -> None:
        ruleset = get_rules(DEFAULT_RULES if rules is None else rules)
        if isinstance(setup, str):
            from strat_tools.engine.encodings.strados3 import position_state

            board, state = position_state(setup, ruleset.army)
        else:
            check_board(setup)
            board, state = list(setup), RuleState(Side.RED if side == Side.RED else Side(side))
        if rules is None:
            refuse_another_army(board, DEFAULT_RULES)
        self.board: list[int] = board
        """The 100 board codes (``pieces.py``), Gravon squares."""
        self.state: RuleState = state
        """Everything besides the board, one immutable value (a push makes a new one)."""
        self.rules = ruleset
        tables = self.tables = rule_tables(self.rules)
        self.battle, self.steps, self.spans, self.limit = (
            tables.battle,
            tables.steps,
            tables.spans,
            tables.limit,
        )
        self.history: History | None = None
        """What :meth:`pop` restores: the board and state before each :meth:`push`."""
        self.seen: KnowledgeCursor | None = None
        """What each side knows after the moves on the stack, kept up to date on use."""

    def piece_at(self, square: int) -> int | None:
        """The board code on ``square`` (``pieces.py``: 1..12 red, 13..24 blue), ``None``
        for an empty square or a lake (python-chess's ``board.piece_at``)."""
        code = self.board[square]
        return None if code in (EMPTY, LAKE) else code

    def is_capture(self, move: object) -> bool:
        """Whether ``move`` (any form :meth:`push` takes) attacks a piece: its target holds
        one of the other side's (python-chess's ``board.is_capture``; in Stratego the
        attacker may lose)."""
        found = Move.of(move)
        return CODE_SIDE[self.board[found.target]] == OTHER_SIDE[self.state.side]

    # -- inspection -------------------------------------------------------------------

    def __str__(self) -> str:
        from strat_tools.core.diagrams import render_board

        return render_board(self.board)

    def __repr__(self) -> str:
        pieces = [sum(1 for c in self.board if CODE_SIDE[c] == s) for s in (1, 2)]
        return (
            f"<Position {self.side} to move, {pieces[0]} red and {pieces[1]} "
            f"blue pieces, {self.rules.name}>"
        )

    def copy(self, *, stack: bool | int = True) -> Position:
        """An independent copy (for search or the game generator). ``stack`` as
        python-chess's: ``True`` keeps the move stack (shared: :meth:`pop` works on the
        copy), ``False`` none, a number that many of the last moves."""
        other = Position.__new__(Position)
        other.board = self.board[:]
        other.state = self.state
        other.rules = self.rules
        other.battle = self.battle
        other.steps = self.steps
        other.limit = self.limit
        other.tables = self.tables
        other.spans = self.spans
        other.seen = None
        if stack is True:
            other.history = self.history
            other.seen = self.seen.copy() if self.seen is not None else None
        elif stack is False:
            other.history = None
        elif isinstance(stack, int) and stack >= 0:
            other.history = None
            for entry in self._stack()[-stack:] if stack else []:
                other.history = entry._replace(previous=other.history)
        else:
            raise MoveError(f"stack is True, False or a number of moves, got {stack!r}")
        return other

    def _key(self) -> tuple[object, ...]:
        """The position and its rule state: what ``==`` and ``hash`` compare (not the
        pieces captured: a StraDos3 string counts every piece missing from the army)."""
        return (bytes(self.board), self.rules, self.state.key())

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
        """How the game ended on this board (:func:`~strat_tools.engine.rules.outcome.board_ending`:
        a captured flag, a side without a move), ``None`` while it goes on. Equal positions
        have equal outcomes: a resignation or a clock is the record's ending, not the
        position's (:meth:`Replay.outcome <strat_tools.engine.replays.replay.Replay.outcome>`)."""
        return board_ending(self)

    def is_game_over(self) -> bool:
        """Whether :meth:`outcome` names an ending."""
        return self.outcome() is not None

    def result(self) -> str:
        """python-chess's ``board.result()``: ``'1-0'`` red won, ``'0-1'`` blue won,
        ``'1/2-1/2'`` a draw, ``'*'`` while the game goes on (on this board)."""
        ending = self.outcome()
        if ending is None:
            return "*"
        return {Side.RED: "1-0", Side.BLUE: "0-1", None: "1/2-1/2"}[ending.winner]

    # -- repetition -------------------------------------------------------------------

    def repetition(self, source: int, target: int, side: int = 0) -> tuple[int, int, int]:
        """(count, lo, hi) the mover's back-and-forth chain would have after this move
        (``side``: the mover, default the side to move)."""
        side = side or self.state.side
        seg_lo, seg_hi = min(source, target), max(source, target)
        chain = self.state.chains[side - 1]
        last = chain.key
        if last < 0 or source != last % 100:
            return 1, seg_lo, seg_hi
        prev_src = last // 100
        if not self.spans[self.board[source]]:
            if target == prev_src:
                return chain.length + 1, seg_lo, seg_hi
            return 1, seg_lo, seg_hi
        # Scout clause: the scout stands on every square it passes over, so a reversing move
        # on the same line continues the chain while all its moves share two squares.
        unit = STEP[source * 100 + target]
        if unit == 0 or unit != -STEP[prev_src * 100 + source]:
            return 1, seg_lo, seg_hi
        lo = max(chain.lo, seg_lo)
        hi = min(chain.hi, seg_hi)
        if hi - lo >= abs(unit):
            return chain.length + 1, lo, hi
        # The whole chain no longer shares two squares: count the longest run of its latest
        # moves that still does (at least the last one and this one).
        return scout_chain(chain.path or (prev_src, source), target, abs(unit))

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
        return self._checked(source, target)[0]

    def _checked(self, source: int, target: int) -> tuple[int, tuple[int, int, int]]:
        """:meth:`check`, returning the distance and the move's :meth:`repetition` (a push
        plays the move with it: found once)."""
        board, side = self.board, self.state.side
        if self.state.winner:
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
        repeated = self.repetition(source, target)
        if repeated[0] > self.limit:
            raise IllegalMove(
                "rule.two_squares",
                f"move {repeated[0]} in a row back and forth between the same squares "
                f"(limit {self.rules.two_squares_limit})",
            )
        return distance, repeated

    def check_rescue(self, source: int, target: int, square: int, code: int) -> None:
        """Raise :class:`IllegalMove` unless this move may rescue ``code`` onto ``square``."""
        side, board, state = self.state.side, self.board, self.state
        piece = board[source]
        if not self.rules.rescue:
            raise IllegalMove("rule.rescue", "these rules have no rescue")
        back_row = target >= 90 if side == Side.RED else target < 10
        if not back_row:
            raise IllegalMove("rule.rescue", "a rescue needs a move onto the enemy back row")
        if piece in SCOUT_CODES:
            raise IllegalMove("rule.rescue", "a scout cannot rescue")
        if state.rescues(side) >= self.rules.rescue_limit:
            raise IllegalMove("rule.rescue", f"at most {self.rules.rescue_limit} rescues each")
        if source in state.rescuers:
            raise IllegalMove("rule.rescue", "this piece already made a rescue")
        own_half = square < 50 if side == Side.RED else square >= 50
        if not (0 <= square < 100 and own_half and board[square] == EMPTY):
            raise IllegalMove("rule.rescue", "the rescue square must be empty, in the own half")
        if CODE_SIDE[code] != side or code not in state.lost(side):
            raise IllegalMove("rule.rescue", f"no captured {piece_name(code)} to rescue")
        if CODE_KIND[code] == PieceKind.BOMB and not self.rules.rescue_bombs:
            raise IllegalMove("rule.rescue", "a bomb cannot be rescued")
        if self.battle[piece * 26 + board[target]] in (OUTCOME_DEFENDER, OUTCOME_BOTH):
            raise IllegalMove("rule.rescue", "the rescuing piece did not survive its attack")

    # -- playing ----------------------------------------------------------------------

    def push(self, move: object, target: object = None, rescue: object = None) -> Battle:
        """Check a move, play it and record it (:meth:`pop` takes it back); returns the
        battle it started (:attr:`Battle.NONE` for none).

        ``move`` is a :class:`~strat_tools.core.move.Move`, its text (``"B4-B5"``,
        ``"I4×I7"``, ``K10`` or Gravon's ``K:``), a record's move, or a source square with
        ``target``; ``rescue`` is ``(square, board code)`` for a rescue made with this move.
        Raises :class:`~strat_tools.core.errors.IllegalMove` (a ``ValueError``) naming the
        rule if the move is not legal, :class:`~strat_tools.core.move.MoveError` saying
        what was expected if it is no move.
        """
        if type(move) is int and type(target) is int and 0 <= move < 100 and 0 <= target < 100:
            found = Move.of(move, target, rescue) if rescue else _new(Move, (move, target, None))
        else:  # (two squares on the board, a game loop's move: no NamedTuple arguments)
            found = Move.of(move, target, rescue)
            recorded = getattr(move, "rescue", None) if target is None else None
            if recorded is not None and found.rescue is None and not isinstance(move, Move):
                what = "square" if recorded.square is None else "piece"
                raise IllegalMove("rule.rescue", f"the record's rescue {what} does not read")
        source, target_square = found.source, found.target
        distance, repeated = self._checked(source, target_square)
        if found.rescue is not None:
            self.check_rescue(source, target_square, *found.rescue)
        board = self.board
        piece, defender = board[source], board[target_square]
        shown = 0
        if defender:
            shown = 1 if self.rules.silent_defense and piece not in SCOUT_CODES else 3
        elif distance > 1:
            shown = 1
        outcome = self.battle[piece * 26 + defender] if defender else 0
        event = (piece, defender, outcome, distance, shown)
        self.history = _new(History, (found, board[:], self.state, event, self.history))
        return BATTLES[play_known(self, source, target_square, found.rescue, repeated)]

    def push_uci(self, text: str) -> Move:
        """python-chess's ``board.push_uci``: push the move ``text`` names (``"B4-B5"``) and
        return it as a :class:`~strat_tools.core.move.Move`."""
        self.push(Move.parse(text))
        return self.peek()

    def pop(self) -> Move:
        """Take back the last :meth:`push` (of this position or of the one it was copied
        from): the board and rule state before it, whole; returns that move.
        ``IndexError`` when there is none."""
        last = self.history
        if last is None:
            raise IndexError("no move to take back: nothing was pushed")
        self.board = last.board[:]
        self.state = last.state
        self.history = last.previous
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

    def play_span(
        self,
        sources: Sequence[int],
        targets: Sequence[int],
        start: int,
        stop: int,
        columns: tuple[list[int], list[int], list[int], list[int], list[int], list[int]],
    ) -> int:
        """Play the recorded plies ``start..stop-1`` while they are ordinary and legal, in
        the replay's hot loop (:func:`~strat_tools.engine.rules.hotloop.play_span`), unrecorded;
        returns the index of the first ply not played."""
        if self.state.winner or self.state.rescuers or start >= stop:
            return start
        index, self.state = play_span(
            self.board, self.state, self.tables, sources, targets, start, stop, columns
        )
        return index

    def knowledge(self) -> Knowledge:
        """What each side knows after the moves pushed (from the oldest position on the
        move stack: a replayed game's setup): the knowledge model of
        ``engine/information/knowledge.py``, row ``-1`` this position, equal to the replay's
        ``knowledge()`` at this ply. ``know.known_board(-1, side)`` is what ``side`` sees."""
        from strat_tools.engine.information.knowledge import pushed_knowledge

        entries = self._stack()
        start = entries[0].board if entries else self.board
        moves = [(e.move.source, e.move.target, e.move.rescue) for e in entries]
        return pushed_knowledge(start, self.rules, moves, [e.event for e in entries])

    # -- move generation --------------------------------------------------------------

    @property
    def legal_moves(self) -> LegalMoves:
        """Every legal move of the side to move under the rule set (reach, lakes, the
        two-squares limit and scout clause, turning captains), in square order (source, then
        target): a sequence
        of :class:`~strat_tools.core.move.Move` (``len``, ``count()``, ``in``, iteration),
        none once the game is over. The engine's own scalar search of one position
        (:meth:`reference_pairs`); the batch generator (:meth:`legal_pairs`) is for many."""
        pairs = self.reference_pairs()
        pairs.sort()
        return LegalMoves(pairs)

    def legal_pairs(self) -> list[tuple[int, int]]:
        """The legal moves as (source, target) squares from the library's batch move
        generator (:func:`~strat_tools.engine.moves.legal_ids`) run on this one position:
        the same moves as :attr:`legal_moves`, by the other implementation."""
        from strat_tools.engine.moves import position_pairs  # numpy: on first use

        return position_pairs(self)

    def strados3(self, *, exact: bool = False) -> str:
        """The position as a StraDos3 string. By default OpenSpiel yorktown's three parts
        (field, side to move, plies; :mod:`strat_tools.engine.encodings.strados3`), the string its
        loader takes. ``exact=True`` adds the rule state, each side's two-squares chain with
        every square a scout's chain passed over, so that :meth:`from_strados3` gives back a
        position equal to this one (rescues made are not kept: ultimate lightning only).

        >>> from strat_tools.engine.encodings.strados3 import EMPTY_FIELD
        >>> pos = Position.from_strados3(EMPTY_FIELD.replace("A", "M", 1)[:-1] + "Y r 0")
        >>> pos.strados3(exact=True)[-6:], pos.strados3()[-4:], len(pos.legal_moves)
        (' r 0 -', ' r 0', 0)
        """
        from strat_tools.engine.encodings.strados3 import chains_text, to_strados3

        state = self.state
        text = to_strados3(self.board, state.side, state.plies)
        if not exact:
            return text
        return f"{text} {chains_text(state.chains)}"

    @classmethod
    def from_strados3(cls, text: str, rules: RuleSet | str | None = None) -> Position:
        """The position of a StraDos3 string (three parts, or four as
        ``strados3(exact=True)`` writes them) under ``rules`` (``Position(text, rules)``
        too); pieces missing from the rule set's army count as captured, and a board whose
        flag was just captured is a finished game.
        :class:`~strat_tools.engine.rules.board_check.PositionError` (a ``ValueError``) naming
        what is wrong for a string that is no position or a board no game reaches (a piece
        on a lake, two flags, 41 pieces of a side...)."""
        if not isinstance(text, str):
            raise PositionError(f"a StraDos3 string is text, got {type(text).__name__}")
        return cls(text, rules)


def play_known(
    pos: Position,
    source: int,
    target: int,
    rescue: tuple[int, int] | None = None,
    repeated: tuple[int, int, int] | None = None,
) -> int:
    """Play a move known to be legal on ``pos`` without recording it; returns the battle
    outcome code. The engine's own loops use it (the replay's slow ply, the generator, the
    observation export), which check or generate every move themselves; a caller steps
    with :meth:`Position.push`, which checks and records (and calls this with the
    ``repeated`` its check found, the move's :meth:`~Position.repetition`)."""
    board, state = pos.board, pos.state
    side = state.side
    count, lo, hi = pos.repetition(source, target) if repeated is None else repeated
    red, blue = state.chains
    if count == 1:
        path: tuple[int, ...] = (source, target)
    else:
        kept = min(count, CHAIN_KEPT - 1)
        path = (*(red if side == 1 else blue).path[-kept:], target)
    # Built without NamedTuple's argument handling: a push or a generated ply makes two.
    chain = _new(Chain, (source * 100 + target, count, lo, hi, path))
    chains = (chain, blue) if side == 1 else (red, chain)
    piece, defender = board[source], board[target]
    outcome = OUTCOME_NONE
    winner = state.winner
    captured = state.captured
    board[source] = EMPTY
    if defender == EMPTY:
        board[target] = piece
    else:
        outcome = pos.battle[piece * 26 + defender]
        lost = [list(captured[0]), list(captured[1])]
        if outcome in (OUTCOME_ATTACKER, OUTCOME_FLAG):
            board[target] = piece
            lost[2 - side].append(defender)
            if outcome == OUTCOME_FLAG:
                winner = side
        elif outcome == OUTCOME_DEFENDER:
            lost[side - 1].append(piece)
        else:
            board[target] = EMPTY
            lost[side - 1].append(piece)
            lost[2 - side].append(defender)
        if rescue is not None:
            lost[side - 1].remove(rescue[1])
        captured = (tuple(lost[0]), tuple(lost[1]))
    rescuers, rescued = state.rescuers, state.rescued
    if rescuers or rescue is not None:
        # Follow the pieces that rescued: a piece may rescue only once.
        followed = set(rescuers)
        moved = source in followed
        followed.discard(source)
        if board[target] != defender:
            followed.discard(target)
        if moved and board[target] == piece:
            followed.add(target)
        if rescue is not None:
            square, code = rescue
            board[square] = code
            if defender == EMPTY:
                mine = list(captured[side - 1])
                mine.remove(code)
                captured = (tuple(mine), captured[1]) if side == 1 else (captured[0], tuple(mine))
            rescued = (rescued[0] + 1, rescued[1]) if side == 1 else (rescued[0], rescued[1] + 1)
            followed.add(target)
        rescuers = frozenset(followed)
    pos.state = _new(
        RuleState,
        (OTHER_SIDE[side], state.plies + 1, winner, chains, captured, rescued, rescuers),
    )
    return outcome


_new: Final = tuple.__new__


BATTLES: Final = tuple(Battle)
"""Battle per outcome code."""
