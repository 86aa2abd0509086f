"""What every command shares: options, rendering, messages and the mapping of errors.

Knows no command; each command module imports what it needs from here.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

FORMATS = ("table", "csv", "json", "jsonl")


# ---------------------------------------------------------------------------------------
# Shared options and rendering (used by every command)
# ---------------------------------------------------------------------------------------


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
    """``--jobs N``: worker processes (default: all cores)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes, split by file and zip member (default: all cores).",
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
    """Write a DataFrame, a list of dicts or a dict to ``out`` (stdout) in ``fmt``."""
    import pandas as pd

    out = out or sys.stdout
    if isinstance(data, dict) and fmt in ("json",):
        out.write(json.dumps(data, indent=2, default=_json_default) + "\n")
        return
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    if fmt == "table":
        with pd.option_context("display.width", 200, "display.max_columns", 50):
            out.write((frame.to_string(index=False) if len(frame) else "(no rows)") + "\n")
    elif fmt == "csv":
        frame.to_csv(out, index=False)
    elif fmt == "json":
        out.write(frame.to_json(orient="records", indent=2, force_ascii=False) + "\n")
    elif fmt == "jsonl":
        text = frame.to_json(orient="records", lines=True, force_ascii=False)
        out.write(text if text.endswith("\n") or not text else text + "\n")
    else:
        raise click.UsageError(f"unknown format {fmt!r}")


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def message(text: str) -> None:
    """A message for the user, on stderr."""
    click.echo(text, err=True)


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
    errors about the files given into ``Error: ...`` and exit 1. Anything else is a bug:
    it keeps its traceback (a bare ``LookupError`` or ``IndexError`` is never hidden)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from strat_tools.errors import StratToolsError

        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except KeyboardInterrupt:
            raise click.Abort() from None
        except (StratToolsError, OSError) as exc:
            raise click.ClickException(str(exc) or exc.__class__.__name__) from exc

    return wrapper  # type: ignore[return-value]


def units_or_dataset(paths: Sequence[str]) -> int:
    """How many record files ``paths`` name (dataset folders count 0); error when nothing."""
    from strat_tools.dataset import is_dataset
    from strat_tools.sources import count_units

    records = [p for p in paths if not is_dataset(p)]
    count = count_units(records) if records else 0
    if records and not count and len(records) == len(paths):
        raise click.ClickException(f"no game records found in {' '.join(paths)}")
    return count


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
    raise click.ClickException(f"nothing readable in {' '.join(paths)}: {detail}")


def source_label(paths: Sequence[str]) -> str:
    """A short 'source: ...' line for figure titles."""
    text = ", ".join(paths)
    return "source: " + (text if len(text) <= 60 else text[:57] + "...")


PIECE_CHOICE = LibraryChoice("strat_tools.pieces:KIND_LABELS", "all")
"""A piece kind (the pieces' own labels), or 'all'."""
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
