"""``strat-tools filter``: select games, and copy or export just those."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import game_filter_options, paths_argument, rules_option, run_options
from strat_tools.cli.outputs import archive_or_folder, check_output
from strat_tools.cli.render import message, progress_bar


@click.command(name="filter")
@paths_argument
@game_filter_options
@click.option("--mirror", is_flag=True, help="With --pattern: its mirror image matches too.")
@click.option(
    "-o",
    "--output",
    "out",
    default=None,
    type=click.Path(),
    help="A .zip or a folder for the selected records (byte for byte as read), or with "
    "--format parquet|csv a folder for their tables. Without it: print the ids.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["records", "parquet", "csv"]),
    default="records",
    show_default=True,
    help="records: copy the game files; parquet/csv: write their five tables.",
)
@rules_option
@run_options
@library_errors
def filter_command(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    mirror: bool,
    out: str | None,
    fmt: str,
    rules: str,
    run: Run,
) -> None:
    """Select games by variant, month, length, ending, winner, id, setup pattern or
    duplication; print their ids, copy their records, or export their tables.

    Records are copied byte for byte (each zip member or file exactly as it was), into a
    new zip (-o NAME.zip) or folder (-o DIR), so every Gravon tool reads them. Duplicates
    are games with the same setups and moves (their game fingerprint), whatever their names,
    judged among the games the other filters keep.

    \b
    Example:
      strat-tools filter ../gravon/ --variant classic --period 2014-01:2014-06 --plies 400:
      strat-tools filter ../gravon/ --winner red --ending flag_captured -o red-flags.zip
      strat-tools filter ../gravon/ --duplicates only -o dups/ --format parquet
    """
    from strat_tools.core.rules import check_rules
    from strat_tools.core.text import printable
    from strat_tools.run.selection import export_selected, select_games, write_selected_records

    if mirror and game_filter.pattern is None:
        raise click.BadParameter("--mirror mirrors a --pattern: give one", param_hint="'--mirror'")
    if fmt != "records" and out is None:
        raise click.BadParameter("--format parquet|csv needs -o DIR", param_hint="'--format'")
    if fmt != "records" and out is not None and Path(out).suffix.lower() == ".zip":
        raise click.BadParameter("tables go into a folder, not a .zip", param_hint="'-o'")
    check_rules(rules)  # the export's rules, refused before the output and the selecting pass
    tables = fmt != "records"
    check_output(
        paths, out, folder=tables or (out is not None and archive_or_folder(out)), create=tables
    )
    for note in game_filter.notes:
        message(f"Note: {note}")
    with progress_bar("selecting") as update:
        selection = select_games(list(paths), game_filter, run=run.with_progress(update))
    message(str(selection))
    if out is None:
        text = "\n".join(printable(i) for i in selection.game_ids)  # names are data
        click.echo(text if text else "", nl=bool(text))
        return
    if fmt == "records":
        left_out: list[str] = []
        written = write_selected_records(selection, out, left_out=left_out)
        for line in left_out:
            message(line)
        message(f"wrote {written:,} records to {out}")
        return
    summary = export_selected(list(paths), selection, out, format=fmt, rules=rules, run=run)  # type: ignore[arg-type]
    message(str(summary))
