"""``strat-tools explore``: the setup explorer, one self-contained page that opens offline."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import game_filter_options, paths_argument, run_options
from strat_tools.cli.outputs import check_output
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import message
from strat_tools.core.records import DEFAULT_VARIANT


@click.command()
@paths_argument
@click.option(
    "-o",
    "--output",
    default="explore.html",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="The HTML file to write (replaced atomically; never an input).",
)
@click.option(
    "--viewer",
    default="game.html",
    show_default=True,
    metavar="URL",
    help="Where game links point: a page of `strat-tools view`, opened at the game (URL#game=ID).",
)
@game_filter_options
@run_options
@library_errors
def explore(
    paths: tuple[str, ...],
    output: str,
    viewer: str,
    game_filter: GameFilter,
    run: Run,
) -> None:
    """Write the setup explorer: click squares, see the matching setups at once.

    A 4x10 board (front row on top): click a square, then a piece to require it, Shift
    for a set, "not these" to forbid them. At each click the page shows the matching
    setups, distinct setups and games, their win rate with the plain and the clustered
    interval against the rest's, where the remaining pieces stand among the matches (a
    heatmap over the free squares), and the most played matching setups with links to
    their games. The URL holds the pattern in the syntax of `search --pattern`
    (#pattern=........../........../........../F.........), so a link reopens it. One
    variant a page: classic unless --variant names another. The page needs no network.
    Game links open --viewer: a `strat-tools view` page of the same PATHS and filters names
    the games as this page does (each link's tooltip gives the command for its game).

    \b
    Example:
      strat-tools explore ../gravon/ -o explore.html
      strat-tools explore ../gravon/ --variant barrage --period 2014-01:2014-06 -o b.html
    """
    from strat_tools.views.explorer import write_explorer

    if game_filter.variants and len(game_filter.variants) > 1:
        raise click.BadParameter(
            "a page explores the setups of one variant (armies differ): name one",
            param_hint="'--variant'",
        )
    variant = next(iter(game_filter.variants)) if game_filter.variants else DEFAULT_VARIANT
    check_output(list(paths), output)  # the --ids file too; before reading
    summary, _ = read_through(  # nothing of that variant: NothingToRead, exit 2
        paths,
        run,
        lambda run: write_explorer(
            list(paths),
            output,
            variant=variant,
            select=game_filter,
            viewer=viewer,
            run=run,
        ),
        label="reading setups",
    )
    message(summary.line(filters=False))  # read_through has said what the filters left out
