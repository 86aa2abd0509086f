"""Board pictures: one layout of shapes, written as SVG here (and as PNG by ``boardimage``).

:func:`board_shapes` lays out a board (squares, lakes, coordinates, pieces, the last move
and a battle) as a list of :class:`Shape` values in pixels; :func:`board_svg` writes them as
one SVG document, which is what ``Position._repr_svg_`` shows in Jupyter. The browser
viewer draws with the same geometry and colours (:data:`STYLE`, passed to its script).

Red pieces are red, blue ones blue; a piece the viewer cannot identify shows ``?`` (and a
small dot once it has moved). Row 10 is at the top unless ``flip`` (blue's seat).

This module draws only: it knows no rules and no records.

>>> svg = board_svg([0] * 42 + [25, 25] + [0] * 56)
>>> svg.startswith('<svg') and 'A' in svg and '</svg>' in svg
True
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from html import escape
from typing import TYPE_CHECKING, Final, NamedTuple

import numpy as np

from strat_tools.core.board import COLUMNS
from strat_tools.core.diagrams import BoardNumbering, cell_text
from strat_tools.core.pieces import CODE_SIDE, EMPTY, LAKE, check_board
from strat_tools.engine.information.knowledge import MOVED

if TYPE_CHECKING:
    from strat_tools.core.board import Side
    from strat_tools.engine.information.knowledge import Knowledge

__all__ = ["STYLE", "Shape", "board_shapes", "board_svg", "knowledge_svg", "square_xy"]

STYLE: Final[dict[str, str | int]] = {
    "cell": 40,
    "margin": 22,
    "board": "#eadfb8",
    "grid": "#b9a877",
    "lake": "#8ec3e6",
    "red": "#c0392b",
    "blue": "#2458a6",
    "label": "#ffffff",
    "coord": "#5b4f2c",
    "last": "#f4c430",
    "battle": "#e0115f",
    "rescue": "#1e9e4a",
    "unknown_red": "#e8a59e",
    "unknown_blue": "#9db6df",
}
"""Geometry (pixels) and colours shared by the SVG pictures and the browser viewer."""


class Shape(NamedTuple):
    """One drawing primitive: a rectangle (``text`` empty) or a text centred on (x, y)."""

    kind: str
    """``'rect'``, ``'text'`` or ``'circle'``."""
    x: float
    y: float
    w: float = 0.0
    h: float = 0.0
    fill: str = "none"
    stroke: str = "none"
    text: str = ""
    size: float = 0.0
    """Font size (text), stroke width (rect, circle) or corner radius when 0 is not wanted."""


def square_xy(square: int, *, flip: bool = False) -> tuple[int, int]:
    """The top-left pixel of ``square`` (row 10 on top; ``flip`` turns the board round)."""
    cell, margin = int(STYLE["cell"]), int(STYLE["margin"])
    row, col = divmod(square, 10)
    if flip:
        row, col = 9 - row, 9 - col
    return margin + col * cell, (9 - row) * cell


def board_shapes(
    board: Sequence[int],
    *,
    numbering: BoardNumbering = "modern",
    last_move: tuple[int, int] | None = None,
    battle: bool = False,
    flip: bool = False,
    hidden: Collection[int] = (),
    moved: Collection[int] = (),
) -> list[Shape]:
    """The shapes of a board picture; ``hidden`` squares show ``?`` (with a dot when also
    in ``moved``)."""
    check_board(board)
    cell, margin = int(STYLE["cell"]), int(STYLE["margin"])
    side = 10 * cell
    shapes = [Shape("rect", margin, 0, side, side, str(STYLE["board"]), str(STYLE["grid"]))]
    for index in range(10):
        column = COLUMNS[9 - index] if flip else COLUMNS[index]
        row = index + 1 if flip else 10 - index
        coord = str(STYLE["coord"])
        shapes.append(
            Shape(
                "text",
                margin + index * cell + cell / 2,
                side + 14,
                text=column,
                fill=coord,
                size=12,
            )
        )
        shapes.append(
            Shape("text", margin / 2, index * cell + cell / 2, text=str(row), fill=coord, size=12)
        )
    for square in range(100):
        x, y = square_xy(square, flip=flip)
        code = board[square]
        if code == LAKE:
            shapes.append(Shape("rect", x, y, cell, cell, str(STYLE["lake"])))
            continue
        shapes.append(Shape("rect", x, y, cell, cell, "none", str(STYLE["grid"]), size=1))
    if last_move is not None:
        for square in last_move:
            if 0 <= square < 100:
                x, y = square_xy(square, flip=flip)
                colour = str(STYLE["battle" if battle and square == last_move[1] else "last"])
                shapes.append(
                    Shape("rect", x + 1, y + 1, cell - 2, cell - 2, "none", colour, size=3)
                )
    for square in range(100):
        code = board[square]
        if code in (EMPTY, LAKE):
            continue
        shapes.extend(_piece(code, square, numbering, flip, square in hidden, square in moved))
    return shapes


def _piece(
    code: int, square: int, numbering: BoardNumbering, flip: bool, hidden: bool, moved: bool
) -> list[Shape]:
    cell = int(STYLE["cell"])
    x, y = square_xy(square, flip=flip)
    colour = "red" if CODE_SIDE[code] == 1 else "blue"
    fill = str(STYLE[f"unknown_{colour}" if hidden else colour])
    label = "?" if hidden else cell_text(code, numbering)[1:]
    out = [
        Shape("rect", x + 4, y + 4, cell - 8, cell - 8, fill, str(STYLE[colour]), size=2),
        Shape("text", x + cell / 2, y + cell / 2, text=label, fill=str(STYLE["label"]), size=15),
    ]
    if hidden and moved:
        out.append(Shape("circle", x + cell - 9, y + 9, 3.5, 3.5, str(STYLE[colour])))
    return out


def board_svg(board: Sequence[int], **options: object) -> str:
    """The board as one SVG document (options as for :func:`board_shapes`)."""
    shapes = board_shapes(board, **options)  # type: ignore[arg-type]
    cell, margin = int(STYLE["cell"]), int(STYLE["margin"])
    width, height = margin + 10 * cell + 2, 10 * cell + margin
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">'
    ]
    parts.extend(_svg_shape(shape) for shape in shapes)
    parts.append("</svg>")
    return "".join(parts)


def _svg_shape(shape: Shape) -> str:
    if shape.kind == "text":
        return (
            f'<text x="{shape.x:g}" y="{shape.y:g}" fill="{shape.fill}" '
            f'font-size="{shape.size:g}" font-weight="bold" text-anchor="middle" '
            f'dominant-baseline="central">{escape(shape.text)}</text>'
        )
    if shape.kind == "circle":
        return f'<circle cx="{shape.x:g}" cy="{shape.y:g}" r="{shape.w:g}" fill="{shape.fill}"/>'
    width = f' stroke-width="{shape.size:g}"' if shape.size else ""
    return (
        f'<rect x="{shape.x:g}" y="{shape.y:g}" width="{shape.w:g}" height="{shape.h:g}" '
        f'rx="3" fill="{shape.fill}" stroke="{shape.stroke}"{width}/>'
    )


def knowledge_svg(
    know: Knowledge, ply: int, side: Side | int | None = None, **options: object
) -> str:
    """The board after ``ply`` of a game's
    :class:`~strat_tools.engine.information.knowledge.Knowledge` as an SVG picture, as ``side`` saw
    it from its own seat: each opponent piece it cannot identify shows ``?``, with a dot once it has
    moved. ``side=None`` shows everything. In Jupyter: ``IPython.display.SVG(knowledge_svg(know, 40,
    Side.RED))``.

    >>> from strat_tools.core.board import Side
    >>> from strat_tools.core.pieces import letter_code
    >>> from strat_tools.core.records import GameRecord
    >>> from strat_tools.engine.replays.replay import replay
    >>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8
    >>> setup = tuple(letter_code(c) for c in field + "Y")
    >>> record = GameRecord("doc.xml", variant="classicfree", setup=setup, sources=[9])
    >>> record.targets.append(39)
    >>> know = replay(record).knowledge()
    >>> red, everything = knowledge_svg(know, 1, Side.RED), knowledge_svg(know, 1)
    >>> red.count(">?</text>"), everything.count(">?</text>")
    (2, 0)
    """
    board = know.boards[ply]
    if side is None:
        return board_svg(board.tolist(), **options)
    picture: dict[str, object] = {
        "hidden": set(np.flatnonzero(know.hidden(ply, side)).tolist()),
        "flip": int(side) == 2,
        "moved": set(np.flatnonzero(know.flags[ply] & MOVED).tolist()),
    }
    return board_svg(board.tolist(), **(picture | options))
