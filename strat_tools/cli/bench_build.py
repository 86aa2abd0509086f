"""``strat-tools bench build``: the benchmark folder from a Gravon folder (options only;
the work is :func:`strat_tools.benchmark.build.build_benchmark`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import paths_argument, run_options
from strat_tools.cli.outputs import check_output
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import message


def _extras(given: tuple[str, ...]) -> dict[str, list[str]]:
    """``NAME=PATHS`` options as ``{name: paths}`` (PATHS comma-separated); a repeated name
    or one without ``=`` is a usage error."""
    from strat_tools.benchmark.build import extra_name

    extras: dict[str, list[str]] = {}
    for text in given:
        name, sep, paths = text.partition("=")
        parts = [p for p in paths.split(",") if p]
        if not sep or not parts:
            raise click.BadParameter(f"expected NAME=PATHS, got {text!r}", param_hint="'--extra'")
        if name in extras:
            raise click.BadParameter(f"{name!r} is given twice", param_hint="'--extra'")
        extras[extra_name(name)] = parts
    return extras


@click.command("build")
@paths_argument
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(file_okay=False),
    help="The benchmark folder: manifest.json and <split>/observations, <split>/games.",
)
@click.option(
    "--extra",
    "extra",
    multiple=True,
    metavar="NAME=PATHS",
    help="An extra test set: a file, folder or glob (several comma-separated), with the "
    "test split's rows and fresh/seen views against train. Repeatable.",
)
@click.option(
    "--shard-rows",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Rows per Parquet shard at most.",
)
@run_options
@library_errors
def build(
    paths: tuple[str, ...], out: str, extra: tuple[str, ...], shard_rows: int, run: Run
) -> None:
    """Build the benchmark strat-bench-move-v1 from the Gravon zips under PATHS.

    The splits are whole months, the zips the package names with their SHA-256 (a zip
    missing or not Gravon's is refused, exit 2); classic valid games only. Gravon's zip
    names count months from 0: strados2014-7.zip is August 2014. See docs/benchmark.md.

    \b
    Example:
      strat-tools bench build ../gravon -o bench-v1
      strat-tools bench build ../gravon -o bench-v1 --extra y2015=../more/strados2015-*.zip
    """
    extras = _extras(extra)
    inputs = [*paths, *(p for group in extras.values() for p in group)]
    check_output(inputs, out, folder=True, create=True)
    from strat_tools.benchmark.build import build_benchmark

    summary, _tally = read_through(
        inputs,
        run,
        lambda run: build_benchmark(
            list(paths), out, extras=extras, shard_rows=shard_rows, run=run
        ),
        label="building",
        require=False,
    )
    message(str(summary))
