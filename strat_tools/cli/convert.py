"""``strat-tools convert``: game records from one format to another (XML, .gsn)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import game_filter_options, paths_argument, run_options
from strat_tools.cli.outputs import archive_or_folder, check_output
from strat_tools.cli.render import message, progress_bar
from strat_tools.core.record_formats import format_names
from strat_tools.core.text import printable


@click.command()
@paths_argument
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Choice(list(format_names(writable=True))),
    help="The format to write.",
)
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(),
    help="A .zip file (one archive), a new or empty folder (one file per game), or a "
    "device or named pipe (gets the zip: -o /dev/stdout).",
)
@game_filter_options
@run_options
@library_errors
def convert(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    to: str,
    out: str,
    run: Run,
) -> None:
    """Convert game records (any mix of formats) to XML or .gsn, one file per game.

    Each game keeps its content (with the reader's repairs applied) and gets the target
    format's own file name. The output is written atomically and never over an input.
    Every input is accounted for on stderr; exit 1 when any game could not be converted
    (unreadable, or holding what the target format cannot say); the others are written.
    Games the filters leave out are neither: the summary line counts them.

    \b
    Example:
      strat-tools convert ../gravon/strados2014-4.zip --to gsn -o gsn-2014-4.zip
      strat-tools convert old-games/ --to xml -o xml-games/
    """
    from strat_tools.exports.convert import convert as convert_records
    from strat_tools.exports.convert import writes_through

    if out.endswith("/") and writes_through(out.rstrip("/")):
        raise click.BadParameter(
            "a folder of games cannot be written to a device; name a .zip, a folder, or the "
            "device itself (it gets the zip)",
            param_hint="'-o'",
        )
    check_output(paths, out, folder=archive_or_folder(out))
    with progress_bar("Converting") as update:
        report = convert_records(
            paths,
            out,
            to=to,
            select=game_filter,
            run=run.with_progress(update),
        )
    for failure in report.failed:
        message(printable(f"{failure.label}: not converted: {failure.reason}"))
    line = report.line()
    message(printable(line[0].upper() + line[1:] + "."))
    if not report.ok:
        raise SystemExit(1)
