"""Board pictures as files: the layout of ``engine/svg.py`` written as SVG or PNG.

:func:`write_board_image` writes a board to ``.svg`` (the SVG document itself) or ``.png``
(the same shapes drawn with matplotlib), atomically. ``strat-tools show -o`` calls it.
It draws only: the caller replays the game and says which squares to mark.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from strat_tools.core.errors import OptionError
from strat_tools.core.records import GameRecord
from strat_tools.core.rules import RuleSet
from strat_tools.engine.information.knowledge import board_after
from strat_tools.engine.replays.replay import Replay, replay
from strat_tools.io.output import write_file_atomically
from strat_tools.views.svg import STYLE, board_shapes, board_svg

__all__ = ["IMAGE_SUFFIXES", "board_png", "write_board_image", "write_position_image"]

IMAGE_SUFFIXES = (".svg", ".png")


def board_png(board: Sequence[int], **options: Any) -> bytes:
    """The board picture of :func:`~strat_tools.views.svg.board_svg` as PNG bytes."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch

    cell, margin = int(STYLE["cell"]), int(STYLE["margin"])
    width, height = margin + 10 * cell + 2, 10 * cell + margin
    fig = Figure(figsize=(width / 100, height / 100), dpi=200)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    for shape in board_shapes(board, **options):
        if shape.kind == "text":
            ax.text(
                shape.x,
                shape.y,
                shape.text,
                color=shape.fill,
                fontsize=shape.size * 0.72,
                fontweight="bold",
                ha="center",
                va="center",
            )
        elif shape.kind == "circle":
            ax.add_patch(Circle((shape.x, shape.y), shape.w, color=shape.fill))
        else:
            ax.add_patch(
                FancyBboxPatch(
                    (shape.x, shape.y),
                    shape.w,
                    shape.h,
                    boxstyle="round,pad=0,rounding_size=3",
                    facecolor=shape.fill,
                    edgecolor=shape.stroke,
                    linewidth=(shape.size or 1) * 0.5,
                )
            )
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()


def write_position_image(
    game: GameRecord | Replay,
    path: str | os.PathLike[str],
    ply: int | None = None,
    *,
    numbering: str = "modern",
    rules: RuleSet | str | None = None,
) -> Path:
    """The board after ``ply`` (default: the end) of ``game`` (a record, replayed under
    ``rules``, or a replay already made) written as a picture, with the last move (and a
    battle) marked, as ``strat-tools show -o`` does."""
    result = game if isinstance(game, Replay) else replay(game, rules)
    record = result.record
    upto = result.plies_replayed if ply is None else max(0, min(ply, result.plies_replayed))
    board = board_after(result, upto)
    last = (record.sources[upto - 1], record.targets[upto - 1]) if upto else None
    battle = bool(upto and result.defenders[upto - 1])
    return write_board_image(board, path, numbering=numbering, last_move=last, battle=battle)


def write_board_image(board: Sequence[int], path: str | os.PathLike[str], **options: Any) -> Path:
    """Write the board picture to ``path`` (``.svg`` or ``.png``), atomically."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".svg":
        data = board_svg(board, **options).encode("utf-8")
    elif suffix == ".png":
        data = board_png(board, **options)
    else:
        raise OptionError(f"{target.name}: a board picture is .svg or .png, not {suffix!r}")
    write_file_atomically(target, data)
    return target
