"""The ``strat-tools`` command line: a thin click layer over the library.

Each command parses options, calls one library function and renders its result. Data goes
to stdout; progress and messages go to stderr. Exit codes (``cli/errors.py``): 0 ok, 1 invalid
games found (``validate``), 2 usage errors, 3 a failed run (library errors become ``Error:
...``), 130 Ctrl-C, 143 SIGTERM.
One module per command (or pair of commands); this one only gathers them into the group.
"""

from __future__ import annotations

import click

from strat_tools import __version__
from strat_tools.cli import (
    advice,
    bench,
    convert,
    engine,
    events,
    explore,
    figures,
    filter,
    generate,
    observations,
    openings,
    search,
    setups,
    tables,
    validate,
    values,
    view,
)


class Commands(click.Group):
    """The command group, refusing an option given twice that takes one value: never
    silently keeping the last (options that take several values are repeated or take
    commas, :func:`~strat_tools.cli.options.list_option`)."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            once_only(command, rest)
        return name, command, rest


def once_only(command: click.Command, args: list[str]) -> None:
    """A usage error (exit 2) when ``args`` give one of ``command``'s single-valued options
    more than once (``--period A --period B``: which one was meant?)."""
    tokens = args[: args.index("--")] if "--" in args else args
    for param in command.params:
        if not isinstance(param, click.Option) or param.multiple or param.is_flag or param.count:
            continue
        given = [
            token
            for token in tokens
            for opt in param.opts
            if token == opt
            or (opt.startswith("--") and token.startswith(opt + "="))
            or (not opt.startswith("--") and len(opt) == 2 and token.startswith(opt))
        ]
        if len(given) > 1:
            flag = max(param.opts, key=len)
            raise click.UsageError(f"{flag} was given {len(given)} times; give it once")


@click.group(
    cls=Commands,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="strat-tools")
def main() -> None:
    """Read, replay, validate and analyse Stratego game records (Gravon XML and .gsn).

    PATHS may be .xml and .gsn files, folders (searched recursively), glob patterns and the
    monthly .zip archives as Gravon publishes them.

    \b
    Example:
      strat-tools validate data/
      strat-tools heatmap data/ --piece flag -o out/flag.png
    """


main.add_command(validate.validate)
main.add_command(generate.generate)
main.add_command(tables.export)
main.add_command(tables.stats)
main.add_command(advice.advice)
main.add_command(figures.heatmap)
main.add_command(figures.report)
main.add_command(engine.show)
main.add_command(engine.rules_command)
main.add_command(observations.observations)
main.add_command(convert.convert)
main.add_command(events.events)
main.add_command(view.view)
main.add_command(setups.setups)
main.add_command(search.search)
main.add_command(openings.openings)
main.add_command(explore.explore)
main.add_command(filter.filter_command)
main.add_command(values.values)
main.add_command(bench.bench)
