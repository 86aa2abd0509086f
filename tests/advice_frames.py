"""Shared test helpers (from test_advice.py): imported by the tests that need them, so no test
module imports another."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from strat_tools.core.pieces import ARMIES, KIND_LABELS

BASE = """
2 5 2 6 2 4 2 5 7 2
6 3 9 S 8 6 7 5 4 M
B 4 3 6 2 8 5 3 7 2
F B 3 B B 4 2 B 3 B
"""


def swap(diagram: str, *pairs: tuple[tuple[int, int], tuple[int, int]]) -> str:
    """Swap the contents of pairs of (row, col) cells; the army stays the same."""
    pieces = cells(diagram)
    for a, b in pairs:
        pa, pb = pieces.pop(a, None), pieces.pop(b, None)
        if pa is not None:
            pieces[b] = pa
        if pb is not None:
            pieces[a] = pb
    return draw(pieces)


def frame(*setups: tuple[str, str], **context: Any) -> pd.DataFrame:
    """A setup_context-like frame from (variant, diagram) pairs, one game and side each."""
    rows = []
    for index, (variant, diagram) in enumerate(setups):
        pieces = cells(diagram)
        counts = Counter(pieces.values())
        army = ARMIES.get(variant)
        if army is not None and context.get("check_army", True):
            assert [counts[label] for label in KIND_LABELS] == list(army), (variant, counts)
        side = context.get("sides", ["red", "blue"])[index % 2]
        won = context.get("won", [None] * len(setups))[index]
        numbers = context.get("games", range(len(setups)))
        for (row, col), piece in sorted(pieces.items()):
            rows.append(
                {
                    "game_id": f"{variant}-2014.4-{numbers[index]}",
                    "side": side,
                    "row": row,
                    "col": col,
                    "square": "",
                    "piece": piece,
                    "variant": variant,
                    "year": 2014,
                    "month": 5,
                    "period": context.get("periods", ["2014-05"] * len(setups))[index],
                    "status": "unchecked",
                    "result_type": 1,
                    "winner": None if won is None else side if won else OTHER[side],
                    "draw": won is None,
                    "termination": "flag_captured",
                    "won": won,
                }
            )
    out = pd.DataFrame(rows)
    out["won"] = out["won"].astype("boolean")
    return out


def cells(diagram: str) -> dict[tuple[int, int], str]:
    """(row, col) -> piece label of a diagram (row 1 = bottom line)."""
    lines = [line.split() for line in diagram.strip().splitlines()]
    assert len(lines) == 4 and all(len(line) == 10 for line in lines), diagram
    out = {}
    for i, line in enumerate(lines):
        for j, symbol in enumerate(line):
            if symbol != ".":
                out[(4 - i, j + 1)] = SYMBOLS[symbol]
    return out


def draw(pieces: dict[tuple[int, int], str]) -> str:
    """The inverse of :func:`cells`."""
    return "\n".join(
        " ".join(SYMBOL_OF.get(pieces.get((row, col), ""), ".") for col in range(1, 11))
        for row in range(4, 0, -1)
    )


OTHER = {"red": "blue", "blue": "red"}


SYMBOLS = {
    "F": "flag",
    "B": "bomb",
    "S": "spy",
    "2": "scout",
    "3": "miner",
    "4": "sergeant",
    "5": "lieutenant",
    "6": "captain",
    "7": "major",
    "8": "colonel",
    "9": "general",
    "M": "marshal",
}


SYMBOL_OF = {label: symbol for symbol, label in SYMBOLS.items()}
