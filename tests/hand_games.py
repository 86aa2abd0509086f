"""Shared test helpers (from test_replay.py): imported by the tests that need them, so no test
module imports another."""

from __future__ import annotations

from strat_tools.core.board import parse_square
from strat_tools.core.diagrams import parse_board
from strat_tools.core.pieces import letter_code
from strat_tools.core.records import GameRecord, Rescue, Result

EMPTY_BOARD = """
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .   .   .   .   .   .   .
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1   .   .   .   .   .   .   .   .   .   .
"""


def board(diagram: str) -> list[int]:
    """A board from a diagram (pieces on an otherwise empty board)."""
    return parse_board(diagram)


def put(pieces: dict[str, str]) -> list[int]:
    """An empty board with the given pieces: ``{'A1': 'rF', 'K10': 'bF'}``."""
    codes = parse_board(EMPTY_BOARD)
    labels = ["B", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "F"]
    for name, text in pieces.items():
        kind = labels.index(text[1:])
        codes[parse_square(name)] = kind + (1 if text[0] == "r" else 13)
    return codes


BASE = {"A1": "rF", "K10": "bF", "K1": "r3", "A10": "b3"}
"""Both flags and a spare movable piece each, so no game ends by accident."""


def game(
    pieces: dict[str, str],
    moves: str,
    *,
    variant: str = "classic",
    year: int = 2014,
    result: tuple[int, int] | None = None,
) -> GameRecord:
    """A record from pieces on an empty board and moves like 'A4-A5 K7-K6'."""
    setup = tuple(put({**BASE, **pieces}))
    pairs = [tuple(parse_square(p) for p in m.split("-")) for m in moves.split()]
    return GameRecord(
        source="t.xml",
        variant=variant,
        year=year,
        month=1,
        setup=setup,
        sources=[s for s, _ in pairs],
        targets=[t for _, t in pairs],
        lines=[10 + i for i in range(len(pairs))],
        result=None if result is None else Result(*result),
    )


def lightning(
    pieces: dict[str, str], moves: str, rescues: dict[int, Rescue] | None = None
) -> GameRecord:
    record = game(pieces, moves, variant="ultimate lightning")
    record.rescues = rescues or {}
    return record


SETUP = """\
      A   B   C   D   E   F   G   H   I   K
10  b3   .   .   .   .   .   .   .   .  bF
 9   .   .   .   .   .   .   .   .  b2   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  rF   .   .   .  r5   .   .   .   .  r3"""

RED = ["E1-E2", "E2-E3", "E3-E4", "E4-F4", "F4-F3", "F3-F2", "F2-F1", "F1-G1", "G1-G2"]
"""Red's piece walks on without ever going back (no chain of its own)."""
BLUE = ["I9-E9", "E9-H9", "H9-B9", "B9-H9", "H9-C9", "C9-D9", "D9-C9"]
"""Blue's scout, as at plies 404-416 of the referee's game."""

BEFORE_THE_NEXT_MOVE = """\
      A   B   C   D   E   F   G   H   I   K
10  b3   .   .   .   .   .   .   .   .  bF
 9   .   .  b2   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  rF   .   .   .   .   .  r5   .   .  r3"""


def scout_chain_game(blue_next: str) -> GameRecord:
    """classic-2006.7-357 rebuilt (tests/test_scout_chain.py): the scout's seven moves,
    then ``blue_next``, then one red move."""
    plies = [m for pair in zip(RED, [*BLUE, blue_next], strict=False) for m in pair] + RED[8:]
    pairs = [tuple(parse_square(s) for s in p.split("-")) for p in plies]
    return GameRecord(
        source="classic-2006.7-357.xml",
        variant="classic",
        year=2006,
        month=7,
        setup=tuple(parse_board(SETUP)),
        sources=[s for s, _ in pairs],
        targets=[t for _, t in pairs],
        lines=[10 + i for i in range(len(pairs))],
    )


def with_piece(record: GameRecord, square: str, letter: str) -> GameRecord:
    """``record`` with the piece on ``square`` made the Gravon letter ``letter`` (``B``-``M``
    red, ``N``-``Y`` blue): the same moves on a setup that differs in that one piece."""
    assert record.setup is not None
    setup = list(record.setup)
    setup[parse_square(square)] = letter_code(letter)
    return with_setup(record, setup)


def with_setup(record: GameRecord, setup: list[int]) -> GameRecord:
    """A copy of ``record`` (its moves, rescues and result) on another ``setup``."""
    return GameRecord(
        record.source,
        variant=record.variant,
        year=record.year,
        month=record.month,
        setup=tuple(setup),
        sources=list(record.sources),
        targets=list(record.targets),
        rescues=dict(record.rescues),
        result=record.result,
    )


def free_setup_game() -> GameRecord:
    """Free setup: red's marshal walks up the A file and takes blue's sergeant (both ranks
    shown without silent defense); blue's piece on K7 never moves and is never attacked."""
    return game(
        {"A4": "r10", "A7": "b4", "K7": "bB", "E9": "b2"},
        "A4-A5 E9-E8 A5-A6 E8-E9 A6-A7",
        variant="classicfree",
    )
