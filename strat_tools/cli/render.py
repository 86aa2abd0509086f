"""How commands show things: tables as text, CSV, JSON or JSON lines (one definition of
each), messages on stderr, progress bars, counts with their nouns.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    pass


OUTPUT_FORMATS = ("table", "csv", "json", "jsonl")


def render(data: Any, fmt: str, out: Any = None) -> None:
    """Write a DataFrame, a list of dicts or a dict to ``out`` (stdout) in ``fmt``.

    Text from files is data: the table and CSV formats show control characters escaped
    (:func:`strat_tools.core.text.printable`; CSV keeps line breaks, in quoted cells, so
    its cells equal the JSON values), CSV defuses formula cells
    (:func:`strat_tools.core.text.csv_cell`), JSON escapes them by its own rules.
    """
    import pandas as pd

    from strat_tools.core.text import printable_lines

    out = out or sys.stdout
    if isinstance(data, dict) and fmt in ("json",):
        out.write(json.dumps(data, indent=2, default=_json_default) + "\n")
        return
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    if fmt == "table":
        with pd.option_context("display.width", 200, "display.max_columns", 50):
            shown = frame.astype(object).where(frame.notna(), "")  # <NA> of Int8 columns too
            text = shown.to_string(index=False) if len(frame) else "(no rows)"
        width = table_width()
        if max(map(len, text.splitlines()), default=0) > width:
            text = _records_text(frame, width)
        out.write(printable_lines(text) + "\n")
    elif fmt == "csv":
        frame = frame.copy()
        for column in frame.columns:
            if not pd.api.types.is_numeric_dtype(frame[column].dtype):
                frame[column] = frame[column].map(_csv_text)
        frame.to_csv(out, index=False)
    elif fmt == "json":
        out.write(frame.to_json(orient="records", indent=2, force_ascii=False) + "\n")
    elif fmt == "jsonl":
        text = frame.to_json(orient="records", lines=True, force_ascii=False)
        out.write(text if text.endswith("\n") or not text else text + "\n")
    else:
        raise click.UsageError(f"unknown format {fmt!r}")


def render_stream(frames: Iterable[Any], fmt: str, out: Any = None) -> None:
    """:func:`render` of a stream of DataFrames (one a batch) as one output, written as
    they come so memory stays flat: one CSV header, one JSON array, JSONL lines, and one
    table (:func:`table_stream`)."""
    out = out or sys.stdout
    if fmt == "table":
        table_stream(frames, out)
        return
    first = True
    for frame in frames:
        if fmt == "csv":
            text = io.StringIO()
            render(frame, fmt, text)
            out.write(text.getvalue() if first else text.getvalue().partition("\n")[2])
        elif fmt == "json":
            if len(frame):
                inner = frame.to_json(orient="records", indent=2, force_ascii=False)[1:-1]
                out.write(("[" if first else ",") + inner.rstrip("\n"))
                first = False
            continue
        else:
            render(frame, fmt, out)
        first = False
    if fmt == "json":
        out.write("[]\n" if first else "\n]\n")


def table_stream(frames: Iterable[Any], out: Any) -> None:
    """The table format of a stream of DataFrames, written batch by batch (never collected):
    the first batch with rows decides the layout. If its table fits :func:`table_width`,
    the header is written once and every batch is aligned to the widest cell seen so far
    (a later, wider cell widens its column from its batch on); if not, every row is a block
    of ``column value`` pairs, as :func:`render` shows a wide table. One batch gives what
    :func:`render` gives; no rows at all, ``(no rows)``.

    >>> import pandas as pd
    >>> table_stream([pd.DataFrame({"game": ["a-1"], "ply": [3]}),
    ...               pd.DataFrame({"game": ["b-22"], "ply": [150]})], sys.stdout)
    game  ply
     a-1    3
    b-22  150
    """
    import pandas as pd

    from strat_tools.core.text import printable_lines

    widths: dict[Any, int] | None = None
    blocks = False
    for frame in frames:
        if not len(frame):
            continue
        shown = frame.astype(object).where(frame.notna(), "")  # <NA> of Int8 columns too
        batch_widths = {
            column: max(len(str(column)), *(len(str(value)) for value in shown[column]))
            for column in shown.columns
        }
        first = widths is None
        if widths is None:
            blocks = sum(batch_widths.values()) + len(batch_widths) - 1 > table_width()
            widths = {}
        else:
            out.write("\n\n" if blocks else "\n")
        if blocks:
            out.write(printable_lines(_records_text(frame, table_width())))
            continue
        widths = {c: max(w, widths.get(c, 0)) for c, w in batch_widths.items()}
        with pd.option_context("display.width", 200, "display.max_columns", 50):
            text = shown.to_string(index=False, header=first, col_space=widths)
        out.write(printable_lines(text))
    out.write("(no rows)\n" if widths is None else "\n")


def _csv_text(value: Any) -> Any:
    """A CSV cell of text from files: control characters escaped but line breaks kept (a
    quoted CSV cell holds them, so a board's cell equals its JSON value), formulas
    defused (:func:`strat_tools.core.text.restore_csv_cell` undoes that)."""
    from strat_tools.core.text import csv_cell, printable_lines

    return csv_cell(printable_lines(value) if isinstance(value, str) else value)


def table_width() -> int:
    """Columns the table format may use: the terminal's (``COLUMNS``), else 100."""
    return max(60, shutil.get_terminal_size((100, 24)).columns)


def _records_text(frame: Any, width: int) -> str:
    """A table too wide for the terminal, one block per row: ``column value`` pairs packed
    into lines of at most ``width`` characters, long text wrapped (csv and json keep every
    column side by side)."""
    blocks = []
    for row in frame.itertuples(index=False):
        items = [
            f"{column} {_cell_text(value)}"
            for column, value in zip(frame.columns, row, strict=True)
            if not _is_null(value)  # a null is left out, never shown as "NaN"
        ]
        lines: list[str] = []
        for item in items:
            if lines and len(lines[-1]) + 3 + len(item) <= width:
                lines[-1] += "   " + item
            else:
                lines.extend(textwrap.wrap(item, width, subsequent_indent="    ") or [item])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _is_null(value: Any) -> bool:
    """Whether a cell is a null (None, NaN, NaT or pandas' NA; a list cell is none)."""
    null = value is None or type(value).__name__ in ("NAType", "NaTType")
    return null or (isinstance(value, float) and value != value)


def _cell_text(value: Any) -> str:
    if isinstance(value, float) and value == value:
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return "" if _is_null(value) else str(value)


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def message(text: str) -> None:
    """A message for the user, on stderr (control characters from names escaped)."""
    from strat_tools.core.text import printable_lines

    with suppress(OSError, ValueError):  # stderr closed or its reader gone: dropped
        click.echo(printable_lines(text), err=True)


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (a progress bar is drawn only there)."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (OSError, ValueError):  # closed
        return False


class Bar:
    """A progress bar on stderr, drawn once its total is known: :meth:`start` (the driver
    calls it with the record files of its one expansion of the inputs: a
    :class:`strat_tools.run.options.SizedProgress`); fewer than two draw nothing."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._bar: Any = None

    def start(self, total: int) -> None:
        if self._bar is None and total >= 2:
            self._bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self._bar.__enter__()

    def __call__(self, done: int, /) -> None:
        if self._bar is not None:
            self._bar.update(done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


@contextmanager
def progress_bar(label: str, total: int | None = None) -> Iterator[Bar | None]:
    """A progress bar on stderr when stderr is a terminal (otherwise ``None``: then nobody
    counts anything). Without ``total`` the bar waits for the driver's :meth:`Bar.start`."""
    if not stderr_is_terminal():
        yield None
        return
    bar = Bar(label)
    if total is not None:
        bar.start(total)
    try:
        yield bar
    finally:
        bar.close()


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """:func:`strat_tools.core.text.count_of` (one number style in every message)."""
    from strat_tools.core.text import count_of as counted

    return counted(n, noun, plural)


def synthetic_note(tally: Any) -> None:
    """Say on stderr when games made by ``strat-tools generate`` are among those shown."""
    if tally.synthetic:
        verb = "is" if tally.synthetic == 1 else "are"
        message(
            f"Note: {tally.synthetic:,} of {count_of(tally.games, 'game')} read {verb} "
            "synthetic (made by strat-tools generate), not games people played."
        )


def source_label(paths: Sequence[str]) -> str:
    """A short 'source: ...' line for figure titles (control characters escaped)."""
    from strat_tools.core.text import printable

    text = printable(", ".join(paths))
    return "source: " + (text if len(text) <= 60 else text[:57] + "...")
