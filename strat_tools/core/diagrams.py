"""Text diagrams of a board: what ``str(position)`` and ``strat-tools show`` print.

Red pieces are written ``r`` + label, blue ones ``b`` + label, so the sides are told apart
without colour; lakes are ``~~``, empty squares ``.``. Labels follow a numbering: ``modern``
(10 = Marshal, 1 = Spy), ``classic`` (1 = Marshal, 9 = Scout, S = Spy) or ``names``
(two-letter names). Row 10 is at the top, as red sees the board.

:func:`board_diagram` is the one layout (the header of columns, row 10 on top, a cell three
characters wide and a mark after it): :func:`render_board` fills it with pieces, and a side's
knowledge (:meth:`strat_tools.engine.information.knowledge.Knowledge.diagram`) with what that side
knows of them. :func:`parse_board` reads a diagram back.

This module draws only: it knows no rules and no records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Literal

from strat_tools.core.board import COLUMNS
from strat_tools.core.pieces import CLASSIC_LABELS, CODE_KIND, CODE_SIDE, EMPTY, LAKE, MODERN_LABELS

BoardNumbering = Literal["modern", "classic", "names"]

NAME_LABELS: Final = ("Bo", "Sp", "Sc", "Mi", "Sg", "Lt", "Cp", "Mj", "Co", "Ge", "Ma", "Fl")
"""Two-letter piece names indexed by kind value."""

_LABELS: Final = {"modern": MODERN_LABELS, "classic": CLASSIC_LABELS, "names": NAME_LABELS}

MARK_TARGET: Final = "*"
MARK_SOURCE: Final = "+"
MARK_BATTLE: Final = "!"


def cell_text(code: int, numbering: BoardNumbering = "modern") -> str:
    """The text of one square: ``'r10'``, ``'bS'``, ``'.'`` or ``'~~'``."""
    if code == EMPTY:
        return "."
    if code == LAKE:
        return "~~"
    try:
        labels = _LABELS[numbering]
    except KeyError:
        raise ValueError(
            f"unknown numbering {numbering!r}; expected modern, classic or names"
        ) from None
    return ("r" if CODE_SIDE[code] == 1 else "b") + labels[CODE_KIND[code]]


def board_diagram(cells: Sequence[str], marks: Mapping[int, str] | None = None) -> str:
    """100 cell texts (Gravon squares) laid out as a diagram, row 10 on top; ``marks`` puts
    one character after a square's text (``+``, ``*``, ``!``).

    >>> cells = ["."] * 100
    >>> cells[0], cells[99] = "rF", "b10"
    >>> print(board_diagram(cells, {0: MARK_SOURCE}).splitlines()[-1])
     1  rF+   .   .   .   .   .   .   .   .   .
    """
    if len(cells) != 100:
        raise ValueError(f"a board has 100 squares, got {len(cells)}")
    marks = marks or {}
    lines = ["   " + "".join(f"{c:>4}" for c in COLUMNS)]
    for row in range(9, -1, -1):
        line = "".join(
            f"{cells[square]:>3}{marks.get(square, ' ')}"
            for square in range(row * 10, row * 10 + 10)
        )
        lines.append(f"{row + 1:>2} {line}".rstrip())
    return "\n".join(lines)


def render_board(
    board: Sequence[int],
    *,
    numbering: BoardNumbering = "modern",
    last_move: tuple[int, int] | None = None,
    battle: bool = False,
) -> str:
    """The board as text, row 10 on top. ``last_move`` marks its source ``+`` and target
    ``*`` (``!`` when ``battle``).

    >>> print(render_board(position.board, last_move=(33, 43)))     # doctest: +SKIP
    """
    if len(board) != 100:
        raise ValueError(f"a board has 100 squares, got {len(board)}")
    marks = {}
    if last_move is not None:
        marks[last_move[0]] = MARK_SOURCE
        marks[last_move[1]] = MARK_BATTLE if battle else MARK_TARGET
    return board_diagram([cell_text(code, numbering) for code in board], marks)


def parse_board(diagram: str, numbering: BoardNumbering = "modern") -> list[int]:
    """Read a diagram written like :func:`render_board`'s output back into 100 board codes.

    Marks (``+ * !``) are ignored; the header line is optional. Raises ``ValueError`` on
    a malformed diagram.
    """
    labels = _LABELS[numbering]
    board = [EMPTY] * 100
    rows = [line.split() for line in diagram.strip("\n").splitlines() if line.strip()]
    rows = [r for r in rows if r[0] != COLUMNS[0]]
    if len(rows) != 10:
        raise ValueError(f"a board diagram has 10 rows, got {len(rows)}")
    for cells in rows:
        row = int(cells[0])
        if len(cells) != 11:
            raise ValueError(f"row {row} has {len(cells) - 1} squares, expected 10")
        for col, text in enumerate(cells[1:]):
            board[(row - 1) * 10 + col] = _parse_cell(text.rstrip("+*!"), labels)
    return board


def _parse_cell(text: str, labels: Sequence[str]) -> int:
    if text == ".":
        return EMPTY
    if text == "~~":
        return LAKE
    if text[:1] in ("r", "b") and text[1:] in labels:
        kind = list(labels).index(text[1:])
        return kind + (1 if text[0] == "r" else 13)
    raise ValueError(f"not a square in a board diagram: {text!r}")
