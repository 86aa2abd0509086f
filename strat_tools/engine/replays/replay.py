"""The replay engine: play a :class:`GameRecord` under a rule set and check every move.

:func:`replay` puts the setup on a flat 100-int board and plays the recorded moves, checking
each one (side to move, own movable piece, lakes, straight lines, reach, scout paths, the
two-squares rule, rescues, nothing after the flag fell). The first illegal move stops the
replay with a diagnostic that names the rule, the move, the ply, the XML line and what stood
on the board; everything before it is kept. At the end it infers how the game ended from the
board and checks the recorded result against it. A rule set with a fallback two-squares
limit (Gravon 2013-14: 3, some games 5) replays a game that breaks the limit but keeps the
fallback under the fallback, with a warning; with the chasing rule on, the chases
are checked after the replay (``engine/rules/chasing.py``). See docs/rules-findings.md.

Per replayed ply the :class:`Replay` keeps parallel int lists (mover, defender, outcome,
distance, revealed) for the tables. The hot loop (``engine/rules/hotloop.py``) builds no per-move
objects and leaves anything unusual (an illegal move, a rescue, a turning lightning captain)
to :class:`~strat_tools.engine.position.position.Position`, where the rules live.

This module knows no XML: records come from a reader (``formats/readers.py``) or are built
by hand. It does not check armies or setups (``checks.py`` does).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from strat_tools.core.board import Side, square_name
from strat_tools.core.checks import consistency_problem, require_consistent
from strat_tools.core.errors import IllegalMove
from strat_tools.core.move import decode_rescue_piece
from strat_tools.core.pieces import piece_name
from strat_tools.core.records import (
    Diagnostic,
    GameRecord,
    RecordError,
    Severity,
    Status,
    Termination,
    capped,
    require_record,
)
from strat_tools.core.rules import RuleSet, resolve_rules
from strat_tools.engine.position.position import Position, play_known
from strat_tools.engine.replays.steps import position_of
from strat_tools.engine.rules.chasing import ChaseViolation, find_chases
from strat_tools.engine.rules.outcome import Outcome, board_ending
from strat_tools.engine.rules.rule_tables import SCOUT_CODES

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from strat_tools.engine.information.knowledge import Knowledge
    from strat_tools.engine.information.mover_rows import MoverRows

__all__ = [
    "Replay",
    "replay",
]

REVEALED_MOVER = 1
"""Bit in :attr:`Replay.revealed`: the moving piece's rank became known to the opponent."""
REVEALED_DEFENDER = 2
"""Bit in :attr:`Replay.revealed`: the attacked piece's rank became known."""


@dataclass(slots=True)
class Replay:
    """What replaying one record found: per-ply events, final board, ending, diagnostics."""

    record: GameRecord
    rules: RuleSet
    status: Status = Status.UNCHECKED
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """The engine's own diagnostics (the record's stay on the record)."""
    movers: list[int] = field(default_factory=list)
    """Board code of the moving piece, per replayed ply."""
    defenders: list[int] = field(default_factory=list)
    """Board code of the attacked piece, 0 when the move was no attack."""
    outcomes: list[int] = field(default_factory=list)
    """0 none, 1 attacker wins, 2 defender wins, 3 both removed, 4 flag captured."""
    distances: list[int] = field(default_factory=list)
    """Squares travelled."""
    revealed: list[int] = field(default_factory=list)
    """Bits: 1 the mover's rank became known to the opponent, 2 the defender's."""
    chains: list[int] = field(default_factory=list)
    """The mover's two-squares count after the ply (1: the move started no chain)."""
    rescued: dict[int, int] = field(default_factory=dict)
    """Ply → board code of the piece brought back by a rescue on that ply."""
    final_board: list[int] = field(default_factory=list)
    captured: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))
    """Codes of red's and of blue's pieces removed, in order of removal."""
    termination: Termination | None = None
    """How the board says the game ended (None: it had not ended on the board)."""
    winner: int | None = None
    """The winner the board shows: 1 red, 2 blue, 3 both stuck; None if open."""
    plies_replayed: int = 0

    @property
    def stopped_at(self) -> int | None:
        """The ply of the first illegal move, or None if every move was replayed."""
        return self.plies_replayed + 1 if self.plies_replayed < self.record.plies else None

    def __repr__(self) -> str:
        ending = self.termination.label if self.termination is not None else "open"
        return (
            f"<Replay {self.record.game_id}: {self.status.value}, {self.plies_replayed} of "
            f"{self.record.plies} plies, {ending}, rules {self.rules.name}>"
        )

    def knowledge(self) -> Knowledge:
        """Every ply's board and what each side knew of the other's pieces (computed on
        each call, in one pass: keep the result). See ``engine/information/knowledge.py``."""
        from strat_tools.engine.information.knowledge import knowledge

        return knowledge(self)

    def views(self) -> npt.NDArray[np.uint8]:
        """Every replayed ply's truth-free board view in one pass, ``[plies_replayed, 100]``
        uint8: row ``i`` is what the side to move saw before ply ``i + 1``, its
        :meth:`Position.observe() <strat_tools.engine.position.observing.Observing.observe>`
        there (``self.position(i).observe()``) and the observation export's ``board_view``;
        a game loop's observations at a replay's cost (docs/human-model.md). The
        knowledge pass and the views of every ply, one lookup a square
        (:func:`~strat_tools.engine.information.planes.game_views`); a record without a setup
        has none.

        >>> from strat_tools.formats.readers import read_records
        >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
        >>> game = replay(record)
        >>> views = game.views()
        >>> views.shape, bool((views[2] == game.position(2).observe()).all())
        ((3, 100), True)
        """
        from strat_tools.engine.information.knowledge import knowledge_rows
        from strat_tools.engine.information.planes import game_views

        if self.record.setup is None:
            raise RecordError(f"{self.record.game_id}: the record has no setup to observe")
        return game_views(knowledge_rows(self), self.plies_replayed)

    def observations(self, last_moves: int = 8) -> MoverRows:
        """Every replayed ply's truth-free row in one pass: the position before each ply as
        its mover knew it (the observation export's columns less the labels, made by the same
        :func:`~strat_tools.engine.information.mover_rows.mover_rows`; a game loop's
        ``position_rows`` at each ply are its rows). ``row_batch(rows)`` is the batch a move
        policy reads for the whole game at once. A record without a setup has none."""
        import numpy as np

        from strat_tools.engine.information.knowledge import knowledge
        from strat_tools.engine.information.mover_rows import mover_rows
        from strat_tools.engine.moves.games import game_legal_ids

        record, n = self.record, self.plies_replayed
        if record.setup is None:
            raise RecordError(f"{record.game_id}: the record has no setup to observe")
        know = knowledge(self)
        # The plies' keys and battles as the export makes them (a NumPy pass each, where
        # Python's a ply cost about half the replay).
        keys = np.asarray(record.sources[:n], np.int64) * 100 + np.asarray(
            record.targets[:n], np.int64
        )
        battles = np.flatnonzero(np.asarray(self.defenders[:n]) != 0)
        legal = game_legal_ids(self, know.boards[:n])
        return mover_rows(know, legal, keys, self.chains[:n], battles, last_moves=last_moves)

    def outcome(self) -> Outcome | None:
        """How the game ended: the ending the board shows (:meth:`Position.outcome
        <strat_tools.engine.position.position.Position.outcome>` of the last position), else, when
        every ply was replayed, the record's ending (a resignation, a clock, a draw agreed:
        the record's, not the position's, as in python-chess); ``None`` for a game that
        stopped early or records no result."""
        if self.termination is not None:
            winner = self.winner if self.winner in (Side.RED, Side.BLUE) else None
            return Outcome(self.termination, None if winner is None else Side(winner))
        result = self.record.result
        if self.plies_replayed == self.record.plies and result is not None:
            return Outcome.of_result(result)
        return None

    def position(self, ply: int) -> Position:
        """The :class:`Position` after ``ply`` plies (0: the setup; ``plies_replayed``:
        after the last replayed move), under the replay's rules, with the moves before it
        on its move stack: the one ply convention of :mod:`strat_tools.engine.replays.steps`."""
        return position_of(self, ply)


def replay(record: GameRecord, rules: RuleSet | str | None = None) -> Replay:
    """Replay ``record`` under ``rules`` (a RuleSet, a name, or None/'auto' for the record's
    own) and check every move and the result.

    >>> from strat_tools.formats.readers import read_records
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> result = replay(record)
    >>> result.status, result.plies_replayed, result.termination  # three moves, no ending
    (<Status.VALID: 'valid'>, 3, None)
    """
    require_record(record, "replay")
    # Only O(1) checks up front (sizes): a scan of the moves would cost a tenth of the
    # replay. Anything else a hand-built record gets wrong (a setup code outside 0..25, a
    # square that is not an int or is past 99) makes the engine refuse or fail, and the full
    # check then explains it as a RecordError. Squares must be -1..99: one below -1 is not
    # caught here (``checks.consistency_problem`` finds it).
    n, setup, lines = len(record.sources), record.setup, record.lines
    if (
        len(record.targets) != n
        or (lines and len(lines) != n)
        or (setup is not None and (not isinstance(setup, tuple | list) or len(setup) != 100))
        or record.rescues  # rare (ultimate lightning): check those records in full
    ):
        require_consistent(record)
    ruleset = resolve_rules(rules, record)
    try:
        return _replay_record(record, ruleset)
    except (IndexError, KeyError, TypeError, AttributeError, ValueError) as exc:
        # Position refuses a setup code outside 0..25 with a ValueError, too.
        problem = consistency_problem(record)
        if problem is None:
            raise
        raise RecordError(f"{record.game_id}: inconsistent record: {problem}") from exc


def _replay_record(record: GameRecord, ruleset: RuleSet) -> Replay:
    """:func:`replay` of a record known to be consistent, under a resolved rule set."""
    out = _replay_checked(record, ruleset)
    fallback = ruleset.two_squares_fallback
    if fallback is not None and out.diagnostics and _breaks_two_squares(out):
        looser = replace(
            ruleset,
            name=f"{ruleset.name}+limit{fallback}",
            two_squares_limit=fallback,
            two_squares_fallback=None,
        )
        retry = _replay_checked(record, looser)
        if retry.status is not Status.INVALID or not _breaks_two_squares(retry):
            retry.diagnostics.insert(0, _fallback_note(record, out, fallback))
            return retry
        # Illegal under both limits: report the first move illegal under the looser one
        # (the moves before it are legal under a limit the game may have been played under),
        # and name the limits tried.
        _name_limits_tried(retry, out, fallback)
        return retry
    return out


def _name_limits_tried(retry: Replay, strict: Replay, fallback: int) -> None:
    """Say, in the looser replay's two-squares error, which limits were tried and where the
    stricter one stopped."""
    first = next(d for d in strict.diagnostics if d.code == "rule.two_squares")
    for i, diag in enumerate(retry.diagnostics):
        if diag.code == "rule.two_squares" and diag.severity is Severity.ERROR:
            note = (
                f"; illegal under every two-squares limit tried: "
                f"{strict.rules.two_squares_limit} (first broken at ply {first.ply}) "
                f"and {fallback}"
            )
            retry.diagnostics[i] = replace(diag, message=diag.message + note)
            return


def replay_safely(record: GameRecord, rules: RuleSet | str | None = None) -> Replay | None:
    """:func:`replay` for batch runs: ``None`` for an unreadable record, and an engine crash
    becomes an ``internal.replay`` error on the record instead of an exception, so one bad
    game never stops a run.

    An inconsistent hand-built record (:class:`~strat_tools.core.records.RecordError`) is a
    ``record.inconsistent`` error; a square past 99 stops the replay there
    (``rule.off_board``)."""
    if not record.readable:
        return None
    try:
        return replay(record, rules)
    except RecordError as exc:
        record.add("record.inconsistent", Severity.ERROR, str(exc))
        return None
    except Exception as exc:  # one bad game must never stop a run
        problem = consistency_problem(record)
        if problem is not None:
            message = f"{record.game_id}: inconsistent record: {problem}"
            record.add("record.inconsistent", Severity.ERROR, message)
            return None
        record.add(
            "internal.replay",
            Severity.ERROR,
            f"the replay engine failed on this game: {type(exc).__name__}: {exc}",
        )
        return None


def _breaks_two_squares(out: Replay) -> bool:
    return any(d.code == "rule.two_squares" for d in out.diagnostics)


def _fallback_note(record: GameRecord, strict: Replay, fallback: int) -> Diagnostic:
    """Warning: this game breaks the rule set's limit but keeps the looser one it was played
    under. A warning, not info: the same verdict would cover a single injected move past the
    limit, so the user must see it (``+strict`` turns the fallback off)."""
    first = next(d for d in strict.diagnostics if d.code == "rule.two_squares")
    return Diagnostic(
        "rules.two_squares_fallback",
        Severity.WARNING,
        f"ply {first.ply} goes past the two-squares limit of {strict.rules.two_squares_limit}; "
        f"replayed under the limit of {fallback} this game was played under "
        "(see docs/rules-findings.md)",
        record.source,
        record.member,
        first.line,
        first.ply,
    )


def _replay_checked(record: GameRecord, ruleset: RuleSet) -> Replay:
    """One replay under exactly ``ruleset``, the chasing rule included when it is on."""
    out = _replay(record, ruleset)
    if not ruleset.chasing_rule or not out.plies_replayed or record.setup is None:
        return out
    placed = {
        ply: (rescue.square, out.rescued[ply])
        for ply, rescue in record.rescues.items()
        if ply in out.rescued and rescue.square is not None
    }
    n = out.plies_replayed
    violations = find_chases(
        record.setup, record.sources[:n], record.targets[:n], out.outcomes, placed
    )
    if not violations:
        return out
    first = violations[0]
    severity = ruleset.chasing_severity
    if severity is Severity.ERROR:
        out = _replay(record, ruleset, upto=first.ply - 1)
    for violation in violations if severity is not Severity.ERROR else [first]:
        out.diagnostics.append(_chase_diagnostic(record, violation, severity))
    out.diagnostics = capped(out.diagnostics)  # a chase a ply: the first 100, then a count
    out.status = _status(record, out)
    return out


def _chase_diagnostic(
    record: GameRecord, violation: ChaseViolation, severity: Severity
) -> Diagnostic:
    """The diagnostic for a chasing move that repeats a position of its chase."""
    index = violation.ply - 1
    move = move_text(record.sources[index], record.targets[index])
    message = (
        f"{Side(violation.chaser).label}'s move {move} chases the piece on "
        f"{square_name(violation.chased_square)} back into a position already seen in the "
        f"chase that began at ply {violation.chase_start} (more-squares rule)"
    )
    line = record.lines[index] if index < len(record.lines) else None
    return Diagnostic(
        "rule.chasing", severity, message, record.source, record.member, line, violation.ply
    )


def _replay(record: GameRecord, ruleset: RuleSet, upto: int | None = None) -> Replay:
    """One replay under exactly ``ruleset`` (of the first ``upto`` plies, if given: then the
    result is not checked)."""
    if record.setup is None or len(record.setup) != 100:
        out = Replay(record, ruleset)
        _no_setup(record, out)
        return out
    pos = Position(record.setup, ruleset)
    n = record.plies if upto is None else min(upto, record.plies)
    zeros = [0] * n
    out = Replay(
        record,
        ruleset,
        movers=zeros,
        defenders=zeros[:],
        outcomes=zeros[:],
        distances=[1] * n,
        revealed=zeros[:],
        chains=[1] * n,
    )
    replayed = _play_all(record, pos, out, n)
    out.plies_replayed = replayed
    if replayed < n:
        for name in ("movers", "defenders", "outcomes", "distances", "revealed", "chains"):
            del getattr(out, name)[replayed:]
    out.final_board = pos.board
    out.captured = (pos.captured[1], pos.captured[2])
    _judge_ending(record, pos, out, complete=replayed == record.plies)
    out.status = _status(record, out)
    return out


def _no_setup(record: GameRecord, out: Replay) -> None:
    """A record without a usable setup: nothing to replay; moves make it unchecked."""
    if record.plies:
        out.diagnostics.append(
            Diagnostic(
                "replay.no_setup",
                Severity.WARNING,
                f"no setup, so the {record.plies:,} moves cannot be replayed",
                record.source,
                record.member,
            )
        )
    out.status = _status(record, out)
    if record.plies and out.status is Status.VALID:
        out.status = Status.UNCHECKED


def _status(record: GameRecord, out: Replay) -> Status:
    if not record.readable:
        return Status.INVALID
    for diag in record.diagnostics:
        if diag.severity is Severity.ERROR:
            return Status.INVALID
    for diag in out.diagnostics:
        if diag.severity is Severity.ERROR:
            return Status.INVALID
    return Status.VALID


def _play_all(record: GameRecord, pos: Position, out: Replay, upto: int | None = None) -> int:
    """Play every move (the first ``upto``), fast where possible; return how many were legal.

    The hot loop (:func:`~strat_tools.engine.rules.hotloop.play_span`) plays runs of plies and
    stops before a rescue and at any ply it does not play itself (an illegal move, an
    unreadable square, a turning captain); :func:`_slow` checks and plays that one ply with
    the full rules, or reports it.
    """
    srcs, tgts = record.sources, record.targets
    n = record.plies if upto is None else upto
    columns = (out.movers, out.defenders, out.outcomes, out.distances, out.revealed, out.chains)
    rescues = record.rescues
    rescue_indices = sorted(ply - 1 for ply in rescues if 1 <= ply <= n) if rescues else ()
    index = 0
    while index < n:
        stop = n
        for rescue_index in rescue_indices:
            if rescue_index >= index:
                stop = rescue_index
                break
        index = pos.play_span(srcs, tgts, index, stop, columns)
        if index < n:
            if not _slow(record, pos, index, out):
                return index
            index += 1
    return n


def _slow(record: GameRecord, pos: Position, index: int, out: Replay) -> bool:
    """Check and play one ply with the full rules; on an illegal move add the diagnostic."""
    source, target = record.sources[index], record.targets[index]
    rescue_record = record.rescues.get(index + 1)
    try:
        distance = pos.check(source, target)
        rescue = None
        if rescue_record is not None:
            code = decode_rescue_piece(rescue_record.piece, pos.side)
            if rescue_record.square is None:
                raise IllegalMove(
                    "rule.rescue", f"unreadable rescue square {rescue_record.raw_field!r}"
                )
            rescue = (rescue_record.square, code)
            pos.check_rescue(source, target, *rescue)
    except IllegalMove as exc:
        out.diagnostics.append(_illegal(record, pos, index, exc))
        return False
    piece, defender, side = pos.board[source], pos.board[target], pos.side
    outcome = play_known(pos, source, target, rescue)
    out.movers[index], out.chains[index] = piece, pos.state.chain(side).length
    out.defenders[index], out.outcomes[index], out.distances[index] = defender, outcome, distance
    if defender:
        silent = pos.rules.silent_defense and piece not in SCOUT_CODES
        out.revealed[index] = 1 if silent else 3
    elif distance > 1:
        out.revealed[index] = 1
    if rescue is not None:
        out.rescued[index + 1] = rescue[1]
    return True


def move_text(source: int, target: int) -> str:
    """A move as ``B2-B3`` (``??`` for a square off the board), as diagnostics quote it."""

    def name(square: int) -> str:
        return square_name(square) if 0 <= square < 100 else "??"

    return f"{name(source)}-{name(target)}"


def _illegal(record: GameRecord, pos: Position, index: int, exc: IllegalMove) -> Diagnostic:
    """The diagnostic for an illegal move: rule, move, ply, line, pieces on the board."""
    source, target = record.sources[index], record.targets[index]
    side = "red" if index % 2 == 0 else "blue"
    board = pos.board
    holds = [
        f"{square_name(sq)}: {piece_name(board[sq])}" for sq in (source, target) if 0 <= sq < 100
    ]
    message = (
        f"{side}'s move {move_text(source, target)} is illegal: {exc.message} ({'; '.join(holds)})"
    )
    line = record.lines[index] if index < len(record.lines) else None
    return Diagnostic(
        exc.code, Severity.ERROR, message, record.source, record.member, line, index + 1
    )


def _judge_ending(record: GameRecord, pos: Position, out: Replay, *, complete: bool) -> None:
    """Infer the ending from the board and, for a complete replay, check the result."""
    ending = board_ending(pos)
    red_stuck = blue_stuck = False
    if ending is not None:
        out.termination = ending.termination
        out.winner = 3 if ending.winner is None else int(ending.winner)
        if ending.termination is Termination.BOTH_NO_MOVES:
            red_stuck = blue_stuck = True
        elif ending.termination is Termination.NO_MOVES:
            red_stuck, blue_stuck = ending.winner is Side.BLUE, ending.winner is Side.RED
    stuck = {Side.RED: red_stuck, Side.BLUE: blue_stuck}
    if complete and record.result is not None:
        for code, message in _result_problems(record, pos, stuck):
            # A type-0/2 label with a side still able to move contradicts no move; it is the
            # label that is doubtful (see docs/rules-findings.md), so it only warns.
            severity = Severity.WARNING if code == "result.no_moves" else Severity.ERROR
            out.diagnostics.append(
                Diagnostic(
                    code,
                    severity,
                    message,
                    record.source,
                    record.member,
                    None,
                    record.plies or None,
                )
            )


def _result_problems(
    record: GameRecord, pos: Position, stuck: dict[Side, bool]
) -> list[tuple[str, str]]:
    """Contradictions between the recorded result and the final board."""
    assert record.result is not None
    rtype, winner = record.result.type, record.result.winner
    problems: list[tuple[str, str]] = []
    # Messages are built only for a contradiction: this runs once per replayed game.
    if pos.winner:
        if rtype == 1 and winner == pos.winner:
            return problems
        said, capturer = _said(rtype, winner), Side(pos.winner).label
        if rtype != 1:
            problems.append(
                ("result.flag", f"{capturer} captured the flag on the last move, but {said}")
            )
        if winner != pos.winner:
            problems.append(("result.winner", f"{capturer} captured the flag, but {said}"))
        return problems
    if rtype == 1:
        problems.append(
            ("result.flag", f"{_said(rtype, winner)} (flag captured), but no flag was captured")
        )
    elif rtype == 0:
        if not (stuck[Side.RED] or stuck[Side.BLUE]):
            problems.append(
                (
                    "result.no_moves",
                    f"{_said(rtype, winner)} (no legal move), but both sides can move",
                )
            )
        elif winner in (1, 2) and stuck[Side(winner)]:
            problems.append(
                (
                    "result.winner",
                    f"{_said(rtype, winner)}, but the winner is the side without a move",
                )
            )
    elif rtype == 2:
        if not (stuck[Side.RED] and stuck[Side.BLUE]):
            problems.append(
                (
                    "result.no_moves",
                    f"{_said(rtype, winner)} (neither can move), but a side can move",
                )
            )
        elif winner != 3:
            problems.append(
                ("result.winner", f"{_said(rtype, winner)}, but neither side can move: a draw")
            )
    return problems


def _said(rtype: int | None, winner: int | None) -> str:
    """How a result diagnostic quotes the recorded result."""
    return f"the result says type {rtype}, winner {winner}"
