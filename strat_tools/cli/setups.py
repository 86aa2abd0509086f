"""``strat-tools setups``: the most played setups, with their results and boards."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import (
    FIGURE_SUFFIXES,
    LibraryChoice,
    format_option,
    game_filter_options,
    paths_argument,
    run_options,
)
from strat_tools.cli.outputs import check_output
from strat_tools.cli.render import message, render, source_label
from strat_tools.core.records import DEFAULT_VARIANT


def percent(value: Any) -> str:
    """``62.7`` for 0.627; ``n/a`` for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{100 * float(value):.1f}"


def setup_block(row: Any, setup_format: str | None = None) -> str:
    """One setup of the table as text: its numbers (the ``setup_format`` string beside the
    fingerprint), then its board, indented."""
    encoded = ""
    if setup_format is not None:
        import pandas as pd

        from strat_tools.setups.strings import setup_columns

        encoded = f" {setup_format}"
        for column, side in setup_columns(setup_format).items():
            value = row[column]
            encoded += f"{'' if side is None else ' ' + side.label} "
            encoded += "n/a" if pd.isna(value) else str(value)
    head = (
        f"#{row['rank']} {row['fingerprint']}{encoded} ({row['variant']}): "
        f"{row['count']:,} setups "
        f"in {row['games']:,} games, {row['wins']} won, {row['draws']} drawn, "
        f"{row['losses']} lost; win rate {percent(row['win_rate'])}% "
        f"[{percent(row['ci_low'])}, {percent(row['ci_high'])}], clustered "
        f"[{percent(row['cluster_ci_low'])}, {percent(row['cluster_ci_high'])}]; "
        f"seen {row['first_period']} to {row['last_period']}"
    )
    if row["distinct_setups"] > 1:
        head += (
            f"; {row['distinct_setups']} distinct setups in the group "
            f"({row['mirror_distinct_setups']} distinct up to a mirror image)"
        )
    board = "\n".join("    " + line for line in str(row["board"]).splitlines())
    return f"{head}\n{board}\n"


@click.command()
@paths_argument
@game_filter_options
@click.option("--mirror", is_flag=True, help="Count a setup and its mirror image as one.")
@click.option(
    "--top",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="How many setups (0: every distinct setup).",
)
@click.option(
    "--min-count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Only setups played at least this often.",
)
@click.option(
    "--near",
    type=click.IntRange(min=0, max=40),
    default=0,
    show_default=True,
    help="Group setups that differ from the group's most played one in at most K squares.",
)
@click.option(
    "--setup-format",
    default=None,
    metavar="NAME",
    type=LibraryChoice("strat_tools.setups.strings:SETUP_FORMATS"),
    help="Also print each setup as a 40-character string in this encoding, beside its "
    "fingerprint (column setup_NAME); ataraxos: a line of its human setups; "
    "stratego_env: its player 1 (red) and player 2 (blue) strings (columns "
    "setup_stratego_env_red/_blue); owner: back row first.",
)
@format_option(("table", "csv", "json", "jsonl"))
@click.option(
    "-o",
    "--output",
    "out",
    default=None,
    type=click.Path(dir_okay=False),
    help="Also draw the setups as boards into this picture (.png, .svg, .pdf).",
)
@run_options
@library_errors
def setups(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    mirror: bool,
    top: int,
    min_count: int,
    near: int,
    setup_format: str | None,
    fmt: str,
    out: str | None,
    run: Run,
) -> None:
    """The most played setups: count, games, wins, draws, losses, win rate with plain and
    clustered 95% intervals, first and last month seen, and the setup as a board.

    Boards are drawn as the owner sees them from their seat: the front row on top, the
    back row last; B bomb, F flag, S spy, 2..9, X marshal. Default classic; --variant
    picks others, each setup counted within its variant (a variant column). A setup's
    clustered interval counts its games as one observation: what one setup's record says
    about setups in general.

    \b
    Example:
      strat-tools setups ../gravon/ --top 10
      strat-tools setups ../gravon/ --mirror --near 2 --format json
      strat-tools setups ../gravon/ --setup-format ataraxos --format csv
      strat-tools setups ../gravon/ --top 6 -o setups.png
    """
    check_output(paths, out)
    from strat_tools.cli.search import read_setups
    from strat_tools.stats.repeats import add_tallies, common_setups, setup_counts, setup_tally

    if out is not None and not out.lower().endswith(FIGURE_SUFFIXES):
        raise click.BadParameter(
            f"{out!r}: use a name ending .png, .svg or .pdf", param_hint="'-o'"
        )
    variant = sorted(game_filter.variants) if game_filter.variants else DEFAULT_VARIANT
    for note in game_filter.notes:
        message(f"Note: {note}")
    tally = read_setups(paths, game_filter, variant, run, setup_tally, add_tallies)  # per setup
    for _, row in setup_counts(tally).iterrows():
        message(
            f"{row['variant']}: {row['setups']:,} setups, {row['distinct_setups']:,} distinct, "
            f"{row['mirror_distinct_setups']:,} counting a mirror image as the same; "
            f"{row['repeated']:,} setups were played more than once"
        )
    if not len(tally):
        message(f"no {', '.join([variant] if isinstance(variant, str) else variant)} setups")
    table = common_setups(
        tally,
        mirror=mirror,
        top=top,
        min_count=min_count,
        near=near,
        setup_format=setup_format,
    )
    if fmt == "table":
        blocks = (setup_block(row, setup_format) for _, row in table.iterrows())
        click.echo("\n".join(blocks) or "(no setups)")
    else:
        render(table, fmt)
    if out is not None:
        from strat_tools.views.figure_files import save_figure
        from strat_tools.views.setup_boards import common_setups_figure

        label = ", ".join([variant] if isinstance(variant, str) else variant)
        setups_read = int(tally["count"].sum())
        title = (
            f"Most played {label} setups of {setups_read:,} ({game_filter.describe()}; "
            f"{source_label(paths)}); owner's view, back row at the bottom"
        )
        save_figure(common_setups_figure(table, title=title), out)
        message(f"wrote {out}")
