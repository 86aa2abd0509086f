"""``strat-tools observations``: per-ply observations for learning, as Parquet shards."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import game_filter_options, paths_argument, rules_option, run_options
from strat_tools.cli.outputs import check_output
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import message


@click.command()
@paths_argument
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder for observations/part-NNNNN.parquet and games/ (created if needed).",
)
@click.option(
    "--last-moves",
    type=click.IntRange(min=0, max=1000),
    default=8,
    show_default=True,
    help="Earlier plies kept in each row's last_moves.",
)
@click.option(
    "--shard-rows",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Rows per Parquet shard at most.",
)
@game_filter_options
@rules_option
@run_options
@library_errors
def observations(
    paths: tuple[str, ...],
    game_filter: Any,
    out: str,
    last_moves: int,
    shard_rows: int,
    rules: str,
    run: Run,
) -> None:
    """Write, for every ply of every valid game, what the side to move knew.

    One row per ply (zstd Parquet shards): the truth-free board the mover saw
    (board_view) and, as a label, the board with the hidden truth of every piece it
    could not identify (board), captures, two-squares counters, the last moves, the move
    played and every legal move as action ids, and the result.
    games/ accounts for every game read: the rows it gave, or why none (games the
    filters leave out are not in it; stderr says how many). Schema and encodings:
    docs/observations.md.

    \b
    Example:
      strat-tools observations data/ -o obs/
      strat-tools observations ../gravon/ -o obs/ --jobs 2
    """
    from strat_tools.core.rules import check_rules

    check_rules(rules)  # a usage error first (exit 2), then the output
    check_output(paths, out, folder=True, create=True)
    from strat_tools.exports.observation_files import export_observations

    summary, _tally = read_through(
        paths,
        run,
        lambda run: export_observations(
            list(paths),
            out,
            rules=rules,
            last_moves=last_moves,
            shard_rows=shard_rows,
            select=game_filter,
            run=run,
        ),
        label="observing",
        require=False,
    )
    message(str(summary))
    if not summary.valid and not summary.dropped:
        raise click.ClickException(
            f"no valid game in {' '.join(paths)}: nothing to observe "
            f"(the reasons are in {out}/games/)"
        )
