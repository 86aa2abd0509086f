"""Record checks that need no replay: the setup and the recorded result, judged on their own.

:func:`check_record` appends diagnostics to a :class:`GameRecord`:

- ``setup.missing``: no usable setup (info when the game has no moves either: it ended before
  the setup was done, which is legitimate; an error when moves follow);
- ``setup.army``: a side's army is not the variant's (``ARMIES`` in ``pieces.py``; any army in
  classicfree), e.g. "red army has 5 bombs, classic needs 6";
- ``setup.zone``: a piece outside its side's four rows (not classicfree);
- ``setup.lake``: a lake square not marked as lake, or a lake mark off the lakes;
- ``setup.middle``: a piece on rows 5-6 (not classicfree);
- ``result.type``, ``result.winner``, ``result.inconsistent`` (error),
  ``result.draw_winner`` (warning: draw agreed, yet a winner; a handful of real games).

It does not parse (``formats/gravon_xml.py``) and does not replay moves (``replay.py``).
"""

from __future__ import annotations

from typing import Final

from strat_tools.core.board import LAKES, square_name
from strat_tools.core.pieces import ARMIES, BOARD_CODES, CODE_KIND, KINDS, LAKE
from strat_tools.core.records import RESULT_TYPES, GameRecord, RecordError, Rescue, Result, Severity

ERROR: Final = Severity.ERROR
_PLURAL: Final = {"spy": "spies"}
_SIDE_NAMES: Final = ("", "red", "blue")
_SIDE_ROWS: Final = ("", "1-4", "7-10")
_WINNER_TYPES: Final = frozenset({0, 1, 3, 11, 13, 14})
"""Result types that name a loser, so the winner must be 1 or 2."""
_DRAW_TYPES: Final = frozenset({2})
"""Result types that are draws by their nature, so the winner must be 3."""
_MAX_LISTED: Final = 5


def _count(n: int, label: str) -> str:
    word = label if n == 1 else _PLURAL.get(label, label + "s")
    return f"{n} {word}"


def army_counts(setup: tuple[int, ...], side: int) -> list[int]:
    """Pieces per kind (index = kind value) of ``side`` (1 red, 2 blue) anywhere in ``setup``."""
    counts = [0] * 12
    low = 1 if side == 1 else 13
    for code in setup:
        if low <= code < low + 12:
            counts[code - low] += 1
    return counts


def check_army(record: GameRecord, setup: tuple[int, ...], line: int | None) -> None:
    """Each side must hold exactly the variant's army."""
    need = ARMIES.get(record.variant)
    if need is None:
        return
    for side in (1, 2):
        have = army_counts(setup, side)
        wrong = [
            f"{_count(have[k], kind.label)}, {record.variant} needs {need[k]}"
            for k, kind in enumerate(KINDS)
            if have[k] != need[k]
        ]
        if wrong:
            record.add(
                "setup.army",
                ERROR,
                f"{_SIDE_NAMES[side]} army has " + "; ".join(wrong),
                line=line,
            )


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    return shown + (f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else "")


def _piece(code: int) -> str:
    return f"{_SIDE_NAMES[1 if code <= 12 else 2]} {KINDS[CODE_KIND[code]].label}"


def check_lakes(record: GameRecord, setup: tuple[int, ...], line: int | None) -> None:
    """The eight lake squares hold the lake mark, and no other square does."""
    lakes_off = [sq for sq in sorted(LAKES) if setup[sq] != LAKE]
    extra = [square_name(sq) for sq, code in enumerate(setup) if code == LAKE and sq not in LAKES]
    if lakes_off:
        names = _listed([square_name(sq) for sq in lakes_off])
        found = _listed([_piece(setup[sq]) if setup[sq] else "empty" for sq in lakes_off])
        record.add(
            "setup.lake",
            ERROR,
            f"lake squares not marked as lake: {names} (found {found})",
            line=line,
        )
    if extra:
        record.add(
            "setup.lake", ERROR, f"lake mark on {_listed(extra)}, which are not lakes", line=line
        )


def check_zones(record: GameRecord, setup: tuple[int, ...], line: int | None) -> None:
    """Rows 5-6 start empty and each side's pieces stand in its own four rows."""
    middle = [
        f"{_piece(c)} on {square_name(sq)}" for sq, c in enumerate(setup[40:60], 40) if 0 < c < LAKE
    ]
    if middle:
        record.add(
            "setup.middle", ERROR, f"rows 5-6 must start empty; found {_listed(middle)}", line=line
        )
    for side, home in ((1, range(0, 40)), (2, range(60, 100))):
        low = 1 if side == 1 else 13
        away = [
            f"{_piece(c)} on {square_name(sq)}"
            for sq, c in enumerate(setup)
            if low <= c < low + 12 and sq not in home and not 40 <= sq < 60
        ]
        if away:
            record.add(
                "setup.zone",
                ERROR,
                f"{_listed(away)}: outside {_SIDE_NAMES[side]}'s rows {_SIDE_ROWS[side]}",
                line=line,
            )


def check_squares(record: GameRecord, setup: tuple[int, ...], line: int | None) -> None:
    """Lakes in place; unless classicfree, pieces in their own rows and rows 5-6 empty."""
    check_lakes(record, setup, line)
    if record.variant != "classicfree":
        check_zones(record, setup, line)


_MIDDLE: Final = bytes(LAKE if sq in LAKES else 0 for sq in range(40, 60))


def _sorted_army(counts: tuple[int, ...], low: int) -> bytes:
    """A side's four setup rows, sorted: its pieces' codes plus zeros for empty squares."""
    codes = [low + kind for kind, n in enumerate(counts) for _ in range(n)]
    return bytes(sorted(codes + [0] * (40 - len(codes))))


_SORTED_ARMIES: Final = {
    variant: (_sorted_army(counts, 1), _sorted_army(counts, 13))
    for variant, counts in ARMIES.items()
}


def _clean(record: GameRecord, board: bytes) -> bool:
    """Whether the setup surely passes every check (byte tests, no per-square Python loop).

    A side's rows holding exactly its army, and rows 5-6 exactly empty with the lakes, leave
    no room for a misplaced piece anywhere.
    """
    armies = _SORTED_ARMIES.get(record.variant)
    if armies is not None:
        return (
            board[40:60] == _MIDDLE
            and bytes(sorted(board[:40])) == armies[0]
            and bytes(sorted(board[60:])) == armies[1]
        )
    if record.variant != "classicfree":
        return False
    return board.count(LAKE) == len(LAKES) and all(board[sq] == LAKE for sq in LAKES)


def check_setup(record: GameRecord, line: int | None = None) -> None:
    """Setup checks: presence, army, zones, lakes, middle rows."""
    setup = record.setup
    if setup is None:
        if any(d.code == "setup.field" for d in record.diagnostics):
            return  # the reader already said why the field is unusable
        if record.plies:
            record.add(
                "setup.missing",
                ERROR,
                f"no setup (no <field>) but {record.plies:,} moves follow",
                line=line,
            )
        else:
            record.add(
                "setup.missing",
                Severity.INFO,
                "no setup (no <field>): the game ended before the setup was done",
                line=line,
            )
        return
    if len(setup) != 100 or min(setup) < 0 or max(setup) > LAKE:
        record.add("setup.field", ERROR, "setup is not 100 board codes 0..25", line=line)
        return
    if _clean(record, bytes(setup)):
        return
    check_army(record, setup, line)
    check_squares(record, setup, line)


def check_result(record: GameRecord, line: int | None = None) -> None:
    """The recorded result: known type, known winner, and the two consistent."""
    result = record.result
    if result is None or result.type is None or result.winner is None:
        return  # the reader reported the missing or unreadable values
    rtype, winner = result.type, result.winner
    if rtype not in RESULT_TYPES:
        known = ", ".join(str(t) for t in sorted(RESULT_TYPES))
        record.add(
            "result.type", ERROR, f"unknown result type {rtype}; known types are {known}", line=line
        )
    if winner not in (1, 2, 3):
        record.add(
            "result.winner",
            ERROR,
            f"winner {winner}; expected 1 (red), 2 (blue) or 3 (draw)",
            line=line,
        )
        return
    if rtype in _DRAW_TYPES and winner != 3:
        record.add(
            "result.inconsistent",
            ERROR,
            f"result type {rtype} (both cannot move) is a draw, but winner is {winner}",
            line=line,
        )
    elif rtype in _WINNER_TYPES and winner == 3:
        what = result.termination.label.replace("_", " ")
        record.add(
            "result.inconsistent",
            ERROR,
            f"result type {rtype} ({what}) needs a winner, but winner is 3 (draw)",
            line=line,
        )
    elif rtype == 4 and winner != 3:
        record.add(
            "result.draw_winner",
            Severity.WARNING,
            f"result type 4 (draw agreed) with winner {winner}",
            line=line,
        )


def check_record(
    record: GameRecord, *, setup_line: int | None = None, result_line: int | None = None
) -> None:
    """Append the record-level diagnostics (setup and result) to ``record``.

    ``setup_line``/``result_line`` locate them in the XML when the reader knows the lines.
    """
    check_setup(record, setup_line)
    check_result(record, result_line)


def _setup_problem(setup: object, codes: bool) -> str | None:
    if not isinstance(setup, tuple | list) or len(setup) != 100:
        size = len(setup) if isinstance(setup, tuple | list) else type(setup).__name__
        return f"the setup has {size} squares, not 100"
    if not codes:
        return None
    try:
        bad = bytes(setup).translate(None, BOARD_CODES)  # C speed; refuses non-integers
    except (TypeError, ValueError):
        bad = b"\xff"
    if bad:
        return "the setup holds a code outside 0..25 (empty, pieces, lake)"
    return None


def consistency_problem(record: GameRecord, *, moves: bool = True) -> str | None:
    """Why ``record`` cannot be replayed at all, or ``None``: the shape of a record built by
    hand (a reader's records always pass). Judging a well-formed record is the other
    checks' and the replay's job. ``moves=False`` skips the scans of the setup's and the
    moves' codes (the cheap checks only: sizes, rescues, result; the engine's
    :class:`~strat_tools.engine.position.position.Position` refuses bad setup codes itself).

    >>> consistency_problem(GameRecord("x.xml", setup=(0,) * 99))
    'the setup has 99 squares, not 100'
    >>> consistency_problem(GameRecord("x.xml", sources=[1, 2], targets=[11, 120]))
    'a move target is not a square 0..99 (or -1 for an unreadable one)'
    """
    if record.setup is not None:
        problem = _setup_problem(record.setup, codes=moves)
        if problem is not None:
            return problem
    n = len(record.sources)
    if len(record.targets) != n:
        return f"{n} move sources but {len(record.targets)} targets"
    if record.lines and len(record.lines) != n:
        return f"{n:,} moves but {len(record.lines):,} line numbers"
    scanned = (("source", record.sources), ("target", record.targets)) if moves else ()
    for what, squares in scanned:
        if squares and (
            not set(map(type, squares)) <= {int} or min(squares) < -1 or max(squares) > 99
        ):
            return f"a move {what} is not a square 0..99 (or -1 for an unreadable one)"
    for ply, rescue in record.rescues.items():
        if not (isinstance(ply, int) and 1 <= ply <= n):
            return f"a rescue is recorded at ply {ply!r}, but the game has {n:,} moves"
        if not isinstance(rescue, Rescue):
            return f"the rescue at ply {ply} is a {type(rescue).__name__}, not a Rescue"
    if record.result is not None and not isinstance(record.result, Result):
        return f"the result is a {type(record.result).__name__}, not a Result"
    return None


def require_consistent(record: GameRecord, *, moves: bool = True) -> None:
    """Raise :class:`~strat_tools.core.records.RecordError` if ``record`` cannot be replayed
    (``moves=False``: the cheap checks only, see :func:`consistency_problem`)."""
    problem = consistency_problem(record, moves=moves)
    if problem is not None:
        raise RecordError(f"{record.game_id}: inconsistent record: {problem}")
