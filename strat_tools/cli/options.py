"""The options commands share, each defined once: the run options (``--jobs``, ``--dask``,
``--dask-address``, given as one :class:`~strat_tools.run.options.Run`), ``--rules``,
``--format``, the paths argument, piece and variant names, and the game filters.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

import click

from strat_tools.cli.errors import as_click
from strat_tools.cli.render import OUTPUT_FORMATS, message

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter

F = TypeVar("F", bound=Callable[..., Any])


def _cap_jobs(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """More workers than cores only cost memory and time: cap, and say so on stderr."""
    from strat_tools.core.text import count_of
    from strat_tools.run.processes import available_cores, cap_jobs

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
    choices appended (``'all'``). A registry living in a heavy module (the statistics,
    beside pandas) names a light reading of it as ``light`` (the statistics' declarations
    read from their source, :func:`strat_tools.cli.declared.declared_statistics`): read
    while the heavy module is not loaded (``--help``, option parsing), so building and
    showing the command loads no heavy library.
    """

    def __init__(self, source: str, *extra: str, light: str | None = None) -> None:
        self.source = source
        self.extra = extra
        self.light = light
        super().__init__((), case_sensitive=True)

    @property
    def choices(self) -> tuple[str, ...]:
        return (*registry_entries(self.source, self.light), *self.extra)

    @choices.setter
    def choices(self, value: Any) -> None:
        pass  # the registry is the one source


def registry_entries(source: str, light: str | None = None) -> Any:
    """The registry named ``"module:NAME"``; its ``light`` reading instead while that
    module is not loaded (nothing heavy is imported for a name list): a ``"module:NAME"``
    of names, or of a function giving them (the statistics' declarations,
    :func:`strat_tools.cli.declared.declared_statistics`)."""
    import importlib
    import sys

    module, _, name = source.partition(":")
    if light is not None and module not in sys.modules:
        module, _, name = light.partition(":")
        found = getattr(importlib.import_module(module), name)
        return found() if callable(found) else found
    return getattr(importlib.import_module(module), name)


class RegistryOption(click.Option):
    """An option whose help ends with each registry entry's own help (``name: help; ...``),
    read when the help is shown: the ``--stat`` help is the statistics' registry (or, while
    it is not loaded, its light twin's ``name: help`` entries)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        choice = kwargs.get("type")
        assert isinstance(choice, LibraryChoice)
        self.registry = choice.source
        self.light = choice.light
        super().__init__(*args, **kwargs)

    @property
    def help(self) -> str:
        entries = registry_entries(self.registry, self.light)
        listed = "; ".join(
            f"{key}: {entry if isinstance(entry, str) else entry.help}"
            for key, entry in entries.items()
        )
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
        help="Worker processes, split by file and zip member (default and most: all cores; "
        "an export folder: one process unless given).",
    )(func)


def rules_option(func: F) -> F:
    """``--rules auto|NAME[+OPTION...]``, given on as typed: the library checks it once where
    the run starts, before any work (:func:`strat_tools.core.rules.check_rules`), and
    :func:`~strat_tools.cli.errors.library_errors` shows its usage error (exit 2)."""
    return click.option(
        "--rules",
        "rules",
        default="auto",
        show_default=True,
        metavar="auto|NAME[+OPTION]",
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


def run_options(func: F) -> F:
    """``--jobs``, ``--dask`` and ``--dask-address``, given to the command as one frozen
    :class:`~strat_tools.run.options.Run` (its ``run`` parameter): the one place the CLI
    builds a run's settings. The command adds its progress bar and tally to it
    (:func:`read_through`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kw: Any) -> Any:
        from strat_tools.cli.errors import stop_if_reader_gone
        from strat_tools.run.options import Run

        jobs, dask, address = kw.pop("jobs"), kw.pop("dask"), kw.pop("dask_address")
        stop = stop_if_reader_gone  # after each batch: a gone reader stops the run there
        kw["run"] = Run(jobs=jobs, dask=dask or bool(address), dask_address=address, stop=stop)
        return func(*args, **kw)

    return jobs_option(dask_options(wrapper))  # type: ignore[return-value]


FORMAT_ALIASES: Final = {"text": "table"}
"""Older names of the output formats, still accepted (``validate`` and ``openings`` once
called the table format ``text``)."""


class FormatChoice(click.Choice):  # type: ignore[type-arg]
    """The ``--format`` names, with the :data:`FORMAT_ALIASES` accepted and given on as the
    format they name (the help and the error list the names only).

    >>> FormatChoice(["table", "csv"]).convert("text", None, None)
    'table'
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        name = FORMAT_ALIASES.get(value, value) if isinstance(value, str) else value
        return super().convert(name if name in self.choices else value, param, ctx)


def format_option(
    choices: Sequence[str] = OUTPUT_FORMATS, default: str = "table"
) -> Callable[[F], F]:
    """``--format`` with the given choices: every command that prints records takes the
    same four, :data:`~strat_tools.cli.render.OUTPUT_FORMATS` (``table``, ``csv``, ``json``,
    ``jsonl``)."""

    def decorate(func: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=FormatChoice(list(choices)),
            default=default,
            show_default=True,
            help="Output format ('text' is the older name of 'table').",
        )(func)

    return decorate


def paths_argument(func: F) -> F:
    """``PATHS...``: files, folders, globs and zips (at least one)."""
    return click.argument("paths", nargs=-1, required=True, metavar="PATHS...")(func)


IDS_FILE_KEY: Final = "strat_tools.ids_file"
"""Where the game filters keep the ``--ids`` file, an input too (``cli/outputs.py``)."""
GAME_FILTER_KEY: Final = "strat_tools.game_filter"
"""Where the game filters keep the command's one checked filter, so a run that kept no game
says what the filters asked (:func:`strat_tools.cli.reading.require_readable`)."""


class PieceName(click.ParamType[str]):
    """A piece as a player types it (``Flag``, ``F``, ``bombs``; see
    :func:`strat_tools.core.pieces.parse_piece`), given on as its table label; ``all`` when
    ``allow_all``. Anything else is a usage error listing the names."""

    name = "piece"

    def __init__(self, allow_all: bool = False) -> None:
        self.allow_all = allow_all

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from strat_tools.core.pieces import parse_piece

        if self.allow_all and str(value).strip().lower() == "all":
            return "all"
        try:
            return parse_piece(str(value)).label
        except ValueError as exc:
            self.fail(str(exc) + (", or all" if self.allow_all else ""), param, ctx)


class VariantName(click.ParamType[str]):
    """A variant in any case, ``-``/``_`` for the space (see
    :func:`strat_tools.core.records.parse_variant`), among ``allowed``."""

    name = "variant"

    def __init__(self, allowed: Sequence[str] | None = None, what: str = "this command") -> None:
        from strat_tools.core.records import VARIANTS

        self.allowed = tuple(allowed or VARIANTS)
        self.what = what

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from strat_tools.core.records import parse_variant

        try:
            return parse_variant(str(value), self.allowed, self.what)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class Listed(click.ParamType):  # type: ignore[type-arg]
    """One syntax for an option that takes several values, in every command: repeat it or
    give the values with commas (``--variant classic,barrage`` = ``--variant classic
    --variant barrage``); each value is checked by ``item``. Give it to
    :func:`list_option`, whose callback joins the repeats (in order, once each).

    >>> Listed(click.Choice(["a", "b"])).convert("a, b", None, None)
    ('a', 'b')
    """

    def __init__(self, item: click.ParamType[Any]) -> None:
        self.item = item
        self.name = item.name

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        parts = [part.strip() for part in str(value).split(",")]
        return tuple(self.item.convert(part, param, ctx) for part in parts if part)

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return self.item.get_metavar(param, ctx)


def _joined(ctx: click.Context, param: click.Parameter, value: Any) -> tuple[Any, ...]:
    """The values of a repeated :class:`Listed` option, flattened, each once, in order."""
    return tuple(dict.fromkeys(item for group in value or () for item in group))


def list_option(*decls: str, item: click.ParamType[Any], **kwargs: Any) -> Callable[[F], F]:
    """A ``click.option`` taking several values the one way (:class:`Listed`): repeated or
    with commas; the command gets them as one tuple."""
    return click.option(*decls, multiple=True, type=Listed(item), callback=_joined, **kwargs)


FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


FILTER_OPTIONS = (
    ("--variant", "variant", "NAME[,NAME]", "Only games of these variants (repeat or commas)."),
    ("--period", "period", "FROM:TO", "Only these months: 2014-01:2014-06, 2014-01: or :2014-06."),
    ("--plies", "plies", "MIN:MAX", "Only games with this many moves: 40:200, 40: or :200."),
    ("--ending", "ending", "TYPE", "Only this ending: Gravon result type or name (resigned ...)."),
    ("--winner", "winner", "red|blue|draw", "Only games with this result."),
    ("--ids", "ids_file", "FILE", "Only the game ids listed in FILE, one a line."),
    ("--pattern", "pattern", "PATTERN", "Only games with a setup matching this 4x10 pattern."),
    ("--anywhere", "anywhere", "PATTERN", "Only games with a setup holding this smaller pattern."),
    ("--pattern-side", "pattern_side", "red|blue|both", "Whose setup must match (default either)."),
    ("--duplicates", "duplicates", "only|exclude", "Only repeated games, or each game once."),
)
"""The filter options: flag, parameter name, metavar, help."""


def game_filter_options(func: F) -> F:
    """The game filters as options; the command gets one checked ``game_filter``
    (:class:`strat_tools.run.filters.GameFilter`). A bad value is a usage error (exit 2)."""
    return game_filter_options_but()(func)


def game_filter_options_but(*left_out: str) -> Callable[[F], F]:
    """:func:`game_filter_options` without the filters named in ``left_out`` (``search``
    has its own ``--pattern``)."""
    options = [option for option in FILTER_OPTIONS if option[0] not in left_out]

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for _, name, _, _ in options}
            if values.get("variant") is not None:  # repeated or with commas: one list
                values["variant"] = ",".join(values["variant"]) or None
            click.get_current_context().meta[IDS_FILE_KEY] = values.get("ids_file")
            kwargs["game_filter"] = parse_game_filter(values, kwargs.get("mirror", False))
            click.get_current_context().meta[GAME_FILTER_KEY] = kwargs["game_filter"]
            return func(*args, **kwargs)

        decorated: Any = wrapper
        for flag, name, metavar, text in reversed(options):
            if name == "variant":  # the one filter taking several values
                option = list_option(flag, name, item=VariantName(), metavar=metavar, help=text)
            else:
                option = click.option(flag, name, default=None, metavar=metavar, help=text)
            decorated = option(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate


def parse_game_filter(values: dict[str, Any], mirror: bool = False) -> GameFilter:
    """A :class:`~strat_tools.run.filters.GameFilter` from the options' values, or exit 2."""
    from strat_tools.run.filters import FilterError, GameFilter, read_id_file

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
            anywhere=values.get("anywhere"),
            pattern_side=values.get("pattern_side"),
        )
    except FilterError as exc:
        raise as_click(exc) from None


def refuse_unused(names: Sequence[str], job: str) -> None:
    """A usage error (exit 2) when any option of ``names`` (parameter names: ``"piece"``)
    was given on the command line though ``job`` (``"--stat flag"``) does not use it: an
    option that does not apply is never accepted and silently ignored."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    given = [
        name
        for name in names
        if ctx.get_parameter_source(name)
        in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    ]
    if given:
        flags = " and ".join(_flag(ctx, name) for name in given)
        verb = "does" if len(given) == 1 else "do"
        raise click.UsageError(f"{flags} {verb} not apply to {job}: leave it out")


def _flag(ctx: click.Context, name: str) -> str:
    for param in ctx.command.params:
        if param.name == name and isinstance(param, click.Option):
            return max(param.opts, key=len)
    return name
