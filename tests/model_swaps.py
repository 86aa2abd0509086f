"""A classic game of the shipped sample and the same game with two pieces swapped: two of
blue's that never move and are never attacked (red never learns which is which: the rules
hide it), or, for the control, two such pieces of red's (red sees its own pieces). The
moves are the same, so both records replay alike."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from hand_games import with_setup

from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE
from strat_tools.core.records import GameRecord
from strat_tools.formats.readers import read_records

DATA = Path(__file__).resolve().parent.parent / "data"


def untouched(record: GameRecord, side: Side) -> list[int]:
    """``side``'s setup squares no move of the game leaves or enters."""
    assert record.setup is not None
    used = set(record.sources) | set(record.targets)
    return [s for s in range(100) if CODE_SIDE[record.setup[s]] == side and s not in used]


def swap_pair(record: GameRecord, side: Side) -> tuple[int, int] | None:
    """Two untouched squares of ``side`` holding different kinds (None if there are none)."""
    assert record.setup is not None
    squares = untouched(record, side)
    for other in squares[1:]:
        if CODE_KIND[record.setup[other]] != CODE_KIND[record.setup[squares[0]]]:
            return squares[0], other
    return None


def swapped(record: GameRecord, pair: tuple[int, int]) -> GameRecord:
    """``record`` with the pieces on the two squares of ``pair`` swapped."""
    assert record.setup is not None
    setup = list(record.setup)
    a, b = pair
    setup[a], setup[b] = setup[b], setup[a]
    return with_setup(record, setup)


@lru_cache(maxsize=1)
def short_classic_game(min_plies: int = 40) -> GameRecord:
    """The shortest classic game of the sample of at least ``min_plies`` plies with a pair
    of untouched pieces of different kinds on each side (cheap to step through)."""
    games = [
        r
        for r in read_records([DATA])
        if r.variant == "classic"
        and r.plies >= min_plies
        and r.readable
        and swap_pair(r, Side.RED)
        and swap_pair(r, Side.BLUE)
    ]
    return min(games, key=lambda r: (r.plies, r.game_id))
