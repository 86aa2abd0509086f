"""A figure as bytes or as a file: PNG, SVG or PDF, every text drawn as written, a file
written atomically. Every figure of the views (setup maps, charts, boards) and of the
report goes out through here: :func:`figure_bytes` for a page, :func:`save_figure` for a
file.

This module renders only: it draws nothing itself and reads no game.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.text import Text

from strat_tools.io.output import write_file_atomically

__all__ = ["figure_bytes", "save_figure", "text_as_written"]


def text_as_written(fig: Figure) -> Figure:
    """Draw every text of ``fig`` as written: never parsed as mathtext, since titles carry
    paths and names from the input (``m$\\bogus{$`` would crash the drawing)."""
    for text in fig.findobj(Text):
        text.set_parse_math(False)
    return fig


def figure_bytes(fig: Figure, format: str = "png", dpi: int = 100) -> bytes:
    """``fig`` rendered as ``format`` (png, svg, pdf), every text as written.

    A PNG is laid out once and drawn once: ``savefig`` on a figure with a layout engine
    (constrained layout) first draws it without output only to run the layout, then draws
    it again; here the layout is run, the figure drawn once with that layout (the same
    pixels: the tests compare them) and its layout engine given back. Other formats measure
    text with their own renderer, so ``savefig`` lays them out itself."""
    text_as_written(fig)
    buffer = io.BytesIO()
    engine = fig.get_layout_engine()
    if format != "png" or engine is None or not fig.axes:
        fig.savefig(buffer, format=format, dpi=dpi)
        return buffer.getvalue()
    shown = fig.get_dpi()
    fig.set_dpi(dpi)  # the layout measures text at the output's resolution, as savefig does
    try:
        engine.execute(fig)
        fig.set_layout_engine(None)  # none at all: a placeholder would still cost the draw
        fig.savefig(buffer, format="png", dpi=dpi)
    finally:
        fig.set_layout_engine(engine)
        fig.set_dpi(shown)
    return buffer.getvalue()


def save_figure(fig: Figure, path: str | os.PathLike[str], *, dpi: int = 150) -> Path:
    """Write ``fig`` to ``path`` atomically (format from the suffix: png, svg, pdf)."""
    target = Path(path)
    # rendered first: a bad format fails before the file is touched
    data = figure_bytes(fig, target.suffix.lower().lstrip(".") or "png", dpi)
    write_file_atomically(target, data)
    return target
