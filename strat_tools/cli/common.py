"""What every command shares: options, rendering, messages and the mapping of errors.

Knows no command; each command module imports what it needs from here.
"""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

FORMATS = ("table", "csv", "json", "jsonl")

EXIT_OK = 0
"""The run finished and found nothing wrong."""
EXIT_INVALID = 1
"""The run finished and found invalid games (``validate``)."""
EXIT_USAGE = 2
"""A usage error: an unknown option, name or choice, a path with no games (nothing ran)."""
EXIT_FAILED = 3
"""The run failed (a library error, an output that cannot be written): no complete result."""
EXIT_INTERRUPTED = 130
"""Stopped by Ctrl-C (SIGINT); temporary files removed."""
EXIT_TERMINATED = 143
"""Stopped by SIGTERM; temporary files removed, as for Ctrl-C."""


class RunFailed(click.ClickException):
    """The run failed: ``Error: ...`` on stderr (escaped), exit :data:`EXIT_FAILED`."""

    exit_code = EXIT_FAILED


class NoInput(click.ClickException):
    """Nothing to read in the paths given: a usage error, exit :data:`EXIT_USAGE`."""

    exit_code = EXIT_USAGE


# ---------------------------------------------------------------------------------------
# Shared options and rendering (used by every command)
# ---------------------------------------------------------------------------------------


def _cap_jobs(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """More workers than cores only cost memory and time: cap, and say so on stderr."""
    from strat_tools.processes import available_cores, cap_jobs
    from strat_tools.text import count_of

    if value is None or value <= available_cores():
        return value
    capped = cap_jobs(value)
    message(
        f"--jobs {value:,} is more than the {count_of(capped, 'core')} available: using {capped}"
    )
    return capped


class LibraryChoice(click.Choice):  # type: ignore[type-arg]
    """A ``click.Choice`` whose choices are a library registry's, read when needed (parsing
    or help), so the CLI never copies a list by hand, starts without importing the heavy
    modules, and shows a statistic registered after import (a notebook's, a test's).

    ``source`` is ``"module:NAME"`` (a tuple, list or dict of names) with optional extra
    choices appended (``'all'``).
    """

    def __init__(self, source: str, *extra: str) -> None:
        self.source = source
        self.extra = extra
        super().__init__((), case_sensitive=True)

    @property
    def choices(self) -> tuple[str, ...]:
        import importlib

        module, _, name = self.source.partition(":")
        return (*getattr(importlib.import_module(module), name), *self.extra)

    @choices.setter
    def choices(self, value: Any) -> None:
        pass  # the registry is the one source


class RegistryOption(click.Option):
    """An option whose help ends with each registry entry's own help (``name: help; ...``),
    read when the help is shown: the ``--stat`` help is the statistics' registry."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        choice = kwargs.get("type")
        assert isinstance(choice, LibraryChoice)
        self.registry = choice.source
        super().__init__(*args, **kwargs)

    @property
    def help(self) -> str:
        import importlib

        module, _, name = self.registry.partition(":")
        entries = getattr(importlib.import_module(module), name)
        listed = "; ".join(f"{key}: {entry.help}" for key, entry in entries.items())
        return f"{self._help_text} {listed}."

    @help.setter
    def help(self, value: str | None) -> None:
        self._help_text = value or ""


def jobs_option(func: F) -> F:
    """``--jobs N``: worker processes (default: all cores; capped at the cores)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        callback=_cap_jobs,
        help="Worker processes, split by file and zip member (default and most: all cores).",
    )(func)


def _check_rules(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Refuse an unknown rule-set name or option before any work starts (exit 2)."""
    from strat_tools.rules import RULESETS, get_rules

    base, _, options = value.partition("+")
    probe = next(iter(RULESETS)) if base == "auto" else base
    try:
        get_rules(probe + ("+" + options if options else ""))
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


def rules_option(func: F) -> F:
    """``--rules auto|NAME[+OPTION...]``, checked before any work starts."""
    return click.option(
        "--rules",
        "rules",
        default="auto",
        show_default=True,
        metavar="auto|NAME[+OPTION]",
        callback=_check_rules,
        help="Rule set: 'auto' picks by variant and period; see 'strat-tools rules'.",
    )(func)


def dask_options(func: F) -> F:
    """``--dask`` and ``--dask-address``."""
    func = click.option(
        "--dask-address",
        default=None,
        metavar="tcp://HOST:PORT",
        help="Run on this Dask scheduler (implies --dask). Paths must be visible to workers.",
    )(func)
    return click.option(
        "--dask",
        is_flag=True,
        default=False,
        help="Run the per-file work on dask.distributed (a local cluster unless an address "
        "is given). Needs the 'dist' extra.",
    )(func)


def format_option(choices: Sequence[str] = FORMATS, default: str = "table") -> Callable[[F], F]:
    """``--format`` with the given choices."""

    def decorate(func: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(list(choices)),
            default=default,
            show_default=True,
            help="Output format.",
        )(func)

    return decorate


def paths_argument(func: F) -> F:
    """``PATHS...``: files, folders, globs and zips (at least one)."""
    return click.argument("paths", nargs=-1, required=True, metavar="PATHS...")(func)


def render(data: Any, fmt: str, out: Any = None) -> None:
    """Write a DataFrame, a list of dicts or a dict to ``out`` (stdout) in ``fmt``.

    Text from files is data: the table and CSV formats show control characters escaped
    (:func:`strat_tools.text.printable`), CSV defuses formula cells
    (:func:`strat_tools.text.csv_cell`), JSON escapes them by its own rules.
    """
    import pandas as pd

    from strat_tools.text import printable_lines

    out = out or sys.stdout
    if isinstance(data, dict) and fmt in ("json",):
        out.write(json.dumps(data, indent=2, default=_json_default) + "\n")
        return
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    if fmt == "table":
        with pd.option_context("display.width", 200, "display.max_columns", 50):
            text = frame.to_string(index=False, na_rep="") if len(frame) else "(no rows)"
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
    they come so memory stays flat: one CSV header, one JSON array, JSONL lines. The table
    format needs every row to size its columns, so it collects them first."""
    import pandas as pd

    out = out or sys.stdout
    if fmt == "table":
        parts = list(frames)
        render(pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(), fmt, out)
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


def _csv_text(value: Any) -> Any:
    """A CSV cell of text from files: control characters escaped, formulas defused."""
    from strat_tools.text import csv_cell, printable

    return csv_cell(printable(value) if isinstance(value, str) else value)


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
    from strat_tools.text import printable_lines

    click.echo(printable_lines(text), err=True)


@contextmanager
def progress_bar(total: int, label: str) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr when stderr is a terminal; otherwise nothing."""
    if not sys.stderr.isatty() or total < 2:
        yield None
        return
    with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
        yield bar.update


def library_errors(func: F) -> F:
    """Turn the library's own errors (:class:`~strat_tools.errors.StratToolsError`) and OS
    errors about the files given into ``Error: ...`` and exit 3 (:data:`EXIT_FAILED`);
    :class:`strat_tools.readers.NothingReadable` (nothing ran: the paths are the mistake)
    exits 2. Anything else is a bug: it keeps its traceback (a bare ``LookupError`` or
    ``IndexError`` is never hidden). Ctrl-C exits 130 and SIGTERM 143 once temporary files
    are removed."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from strat_tools.errors import StratToolsError
        from strat_tools.readers import NothingReadable
        from strat_tools.text import printable_lines

        main_thread = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, _terminated) if main_thread else None
        previous_int = signal.signal(signal.SIGINT, _interrupted) if main_thread else None
        try:
            return func(*args, **kwargs)
        except click.ClickException as exc:
            if type(exc) in (click.ClickException, RunFailed, NoInput):  # names in messages
                raise type(exc)(printable_lines(exc.message)) from None
            raise
        except KeyboardInterrupt:
            message("Interrupted.")
            sys.exit(EXIT_INTERRUPTED)
        except Terminated:
            message("Terminated.")
            sys.exit(EXIT_TERMINATED)
        except NothingReadable as exc:
            raise NoInput(printable_lines(str(exc))) from None
        except (StratToolsError, OSError) as exc:
            raise RunFailed(printable_lines(str(exc)) or exc.__class__.__name__) from exc
        finally:
            if main_thread and previous is not None:
                signal.signal(signal.SIGTERM, previous)
            if main_thread and previous_int is not None:
                signal.signal(signal.SIGINT, previous_int)

    return wrapper  # type: ignore[return-value]


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM, so every ``finally`` and ``with`` cleans up."""


_SWALLOWING: Final = frozenset({"_acquireLock", "_releaseLock", "__del__", "_at_fork_reinit"})
"""Functions whose exceptions Python prints and ignores (at-fork hooks, finalisers): a stop
signal that lands in one is sent again a moment later instead of being lost."""


def _in_swallowing_frame(frame: Any) -> bool:
    return frame is not None and (
        frame.f_code.co_name in _SWALLOWING
        or frame.f_code.co_filename.endswith("logging/__init__.py")
    )


def _resend_later(signum: int) -> None:
    threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()


def _terminated(signum: int, frame: Any) -> None:
    if _in_swallowing_frame(frame):
        _resend_later(signum)
        return
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one clean-up, however many signals
    raise Terminated


def _interrupted(signum: int, frame: Any) -> None:
    if _in_swallowing_frame(frame):
        _resend_later(signum)
        return
    raise KeyboardInterrupt


def units_or_dataset(paths: Sequence[str]) -> int:
    """How many record files ``paths`` name (dataset folders count 0); error when nothing."""
    from strat_tools.dataset import is_dataset
    from strat_tools.sources import count_units

    records = [p for p in paths if not is_dataset(p)]
    count = count_units(records) if records else 0
    if records and not count and len(records) == len(paths):
        raise NoInput(f"no game records found in {' '.join(paths)}")
    return count


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """:func:`strat_tools.text.count_of` (one number style in every message)."""
    from strat_tools.text import count_of as counted

    return counted(n, noun, plural)


def synthetic_note(tally: Any) -> None:
    """Say on stderr when games made by ``strat-tools generate`` are among those shown."""
    if tally.synthetic:
        verb = "is" if tally.synthetic == 1 else "are"
        message(
            f"Note: {tally.synthetic:,} of {count_of(tally.games, 'game')} read {verb} "
            "synthetic (made by strat-tools generate), not games people played."
        )


def read_through(
    paths: Sequence[str],
    work: Callable[[Callable[[int], None] | None, Any], T],
    *,
    label: str = "reading",
    require: bool = True,
) -> tuple[T, Any]:
    """What every analysis command does around its one library call: count the inputs (for
    the progress bar; nothing to read is an error), run ``work(progress, tally)``, stop with
    the reader's own reason when not one input was readable (``require``), and say on stderr
    how many games a per-game step failed on. Returns the call's result and the
    :class:`strat_tools.driver.Tally` it filled.
    """
    from strat_tools.driver import Tally

    total = units_or_dataset(paths)
    tally = Tally()
    with progress_bar(total, label) as update:
        result = work(update, tally)
    if require:
        require_readable(tally, paths)
    synthetic_note(tally)
    if tally.dropped:
        message(f"{tally.dropped:,} games left out by the filters")
    if tally.failed:
        message(
            f"{tally.failed:,} games could not be counted (invalid entries with an internal "
            f"error): {'; '.join(tally.failures)}"
        )
    return result, tally


def require_readable(tally: Any, paths: Sequence[str]) -> None:
    """Stop with the reader's own reason when not one input could be read (``tally``: what
    a streamed pass read, :class:`strat_tools.driver.Tally`)."""
    if tally.readable:
        return
    detail = "; ".join(tally.reasons) or "no game records found"
    raise NoInput(f"nothing readable in {' '.join(paths)}: {detail}")


def source_label(paths: Sequence[str]) -> str:
    """A short 'source: ...' line for figure titles (control characters escaped)."""
    from strat_tools.text import printable

    text = printable(", ".join(paths))
    return "source: " + (text if len(text) <= 60 else text[:57] + "...")


class PieceName(click.ParamType[str]):
    """A piece as a player types it (``Flag``, ``F``, ``bombs``; see
    :func:`strat_tools.pieces.parse_piece`), given on as its table label; ``all`` when
    ``allow_all``. Anything else is a usage error listing the names."""

    name = "piece"

    def __init__(self, allow_all: bool = False) -> None:
        self.allow_all = allow_all

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from strat_tools.pieces import parse_piece

        if self.allow_all and str(value).strip().lower() == "all":
            return "all"
        try:
            return parse_piece(str(value)).label
        except ValueError as exc:
            self.fail(str(exc) + (", or all" if self.allow_all else ""), param, ctx)


class VariantName(click.ParamType[str]):
    """A variant in any case, ``-``/``_`` for the space (see
    :func:`strat_tools.records.parse_variant`), among ``allowed``."""

    name = "variant"

    def __init__(self, allowed: Sequence[str] | None = None) -> None:
        from strat_tools.records import VARIANTS

        self.allowed = tuple(allowed or VARIANTS)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from strat_tools.records import parse_variant

        try:
            return parse_variant(str(value), self.allowed)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


# ---------------------------------------------------------------------------------------
# Game filters (every command that reads games)
# ---------------------------------------------------------------------------------------

FILTER_OPTIONS = (
    ("--variant", "variant", "NAME[,NAME]", "Only games of these variants."),
    ("--period", "period", "FROM:TO", "Only these months: 2014-01:2014-06, 2014-01: or :2014-06."),
    ("--plies", "plies", "MIN:MAX", "Only games with this many moves: 40:200, 40: or :200."),
    ("--ending", "ending", "TYPE", "Only this ending: Gravon result type or name (resigned ...)."),
    ("--winner", "winner", "red|blue|draw", "Only games with this result."),
    ("--ids", "ids_file", "FILE", "Only the game ids listed in FILE, one a line."),
    ("--pattern", "pattern", "PATTERN", "Only games with a setup matching this 4x10 pattern."),
    ("--duplicates", "duplicates", "only|exclude", "Only repeated games, or each game once."),
)
"""The filter options: flag, parameter name, metavar, help."""


def game_filter_options(func: F) -> F:
    """The game filters as options; the command gets one checked ``game_filter``
    (:class:`strat_tools.filters.GameFilter`). A bad value is a usage error (exit 2)."""
    return game_filter_options_but()(func)


def game_filter_options_but(*left_out: str) -> Callable[[F], F]:
    """:func:`game_filter_options` without the filters named in ``left_out`` (``search``
    has its own ``--pattern``)."""
    options = [option for option in FILTER_OPTIONS if option[0] not in left_out]

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for _, name, _, _ in options}
            kwargs["game_filter"] = parse_game_filter(values, kwargs.get("mirror", False))
            return func(*args, **kwargs)

        decorated: Any = wrapper
        for flag, name, metavar, text in reversed(options):
            decorated = click.option(flag, name, default=None, metavar=metavar, help=text)(
                decorated
            )
        return decorated  # type: ignore[no-any-return]

    return decorate


def parse_game_filter(values: dict[str, Any], mirror: bool = False) -> Any:
    """A :class:`~strat_tools.filters.GameFilter` from the options' values, or exit 2."""
    from strat_tools.filters import FilterError, GameFilter, read_id_file

    try:
        ids = read_id_file(values["ids_file"]) if values.get("ids_file") else None
        return GameFilter.parse(
            variant=values.get("variant"),
            period=values.get("period"),
            plies=values.get("plies"),
            ending=values.get("ending"),
            winner=values.get("winner"),
            ids=ids,
            pattern=values.get("pattern"),
            mirror=mirror,
            duplicates=values.get("duplicates"),
        )
    except FilterError as exc:
        raise click.BadParameter(exc.reason, param_hint=f"'{exc.option}'") from None
