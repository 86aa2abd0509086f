"""``strat-tools view``: one self-contained HTML page to step through games in a browser."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import (
    game_filter_options,
    paths_argument,
    rules_option,
    run_options,
)
from strat_tools.cli.outputs import check_output
from strat_tools.cli.render import message


@click.command()
@paths_argument
@click.option(
    "--game",
    "game_id",
    default=None,
    metavar="ID",
    help="Only this game (e.g. classic-2014.5-2245; a second file of that name in PATHS is "
    "classic-2014.5-2245#2, as the tables name it); default: every game in PATHS.",
)
@click.option(
    "-o",
    "--output",
    default="game.html",
    show_default=True,
    type=click.Path(dir_okay=False, writable=True),
    help="The HTML file to write (replaced atomically).",
)
@click.option(
    "--numbering",
    type=click.Choice(["modern", "classic"]),
    default="modern",
    show_default=True,
    help="Ranks shown first: modern (10 = Marshal) or classic (1 = Marshal); the page can switch.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Most games on one page (default 500); the page also stops at about 25 MB.",
)
@click.option(
    "--no-spoilers",
    is_flag=True,
    help="Keep the result and the events that give the outcome away hidden until the last "
    "ply (for replaying a game to study it); the page's #spoilers=0 does the same.",
)
@click.option(
    "--with-model",
    is_flag=True,
    help="Add the shipped models (off by default: 13 to 40 times the page's CPU): at each "
    "ply the human-move model's likeliest moves (arrows) and the move played's probability "
    "and rank, the game's most surprising moves, and each side's beliefs about the other's "
    "unidentified pieces (g: likeliest ranks, h: where is the flag), each side's only in "
    "its own view. Classic games only.",
)
@game_filter_options
@rules_option
@run_options
@library_errors
def view(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    game_id: str | None,
    output: str,
    numbering: str,
    limit: int | None,
    no_spoilers: bool,
    with_model: bool,
    rules: str,
    run: Run,
) -> None:
    """Write a game viewer: one HTML file that opens from disk, with no network.

    Step with the arrow keys, Home/End, Page Up/Down (10 plies) or the buttons; click a
    move or the material graph; jump to the next or previous battle (b, Shift+B) or key
    event (e, Shift+E); flip the board (f); replay the game as red or blue saw it; point at
    a piece for its history; copy the position (StraDos3) or a setup (owner encoding).
    PATHS may be game files, zips or folders: several games get a game picker, and the
    filters choose which (the first --limit of them). The same PATHS and filters as an
    explorer page's give the games its links name. Open a ply and a view directly with
    #ply=40&view=blue after the file name (&spoilers=0 hides the result). With
    --with-model: the model's likely moves (m), the beliefs' guesses (g) and flag heat (h),
    the next or previous surprising move (s, Shift+S).

    \b
    Example:
      strat-tools view strados2014-5.zip --game classic-2014.5-2245 -o game.html
      strat-tools view games/ --limit 50 -o games.html
      strat-tools view strados2014-5.zip --variant duell --plies 100: -o duell.html
    """
    from strat_tools.core.rules import check_rules

    check_rules(rules)  # a usage error first (exit 2), then the output
    check_output(list(paths), output)
    from strat_tools.views.viewer import MAX_GAMES, write_viewer
    from strat_tools.views.viewer_models import ViewerModels

    summary = write_viewer(  # no such game, nothing readable: NothingToRead, exit 2
        list(paths),
        output,
        game_id=game_id,
        select=game_filter,
        rules=rules,
        run=run,
        numbering=numbering,
        limit=limit or MAX_GAMES,
        spoilers=not no_spoilers,
        models=ViewerModels() if with_model else None,
    )
    message(summary.line())
