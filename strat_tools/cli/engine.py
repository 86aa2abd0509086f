"""``strat-tools show`` and ``strat-tools rules``: the replay engine's views."""

from __future__ import annotations

from typing import Any

import click

from strat_tools.cli.errors import NoInput, library_errors
from strat_tools.cli.options import format_option, rules_option
from strat_tools.cli.outputs import check_output
from strat_tools.cli.render import message, render


@click.command()
@click.argument("path", metavar="FILE")
@click.option(
    "--ply",
    type=click.IntRange(min=0),
    default=None,
    help="Show the board after this many moves (default: the last).",
)
@click.option(
    "--game",
    "game_id",
    default=None,
    metavar="ID",
    help="Which game, when FILE holds several (a zip): its id (classic-2014.5-2245) or its "
    "member path inside the zip (2014/classic-2014.5-2245.xml).",
)
@click.option(
    "--numbering",
    type=click.Choice(["modern", "classic", "names"]),
    default="modern",
    show_default=True,
    help="modern: 10 = Marshal, 1 = Spy; classic: 1 = Marshal, 9 = Scout, S = Spy.",
)
@click.option(
    "-o",
    "--output",
    default=None,
    type=click.Path(dir_okay=False, writable=True),
    help="Write the board as a picture instead (.svg or .png), last move and battle marked.",
)
@rules_option
@library_errors
def show(
    path: str,
    ply: int | None,
    game_id: str | None,
    numbering: str,
    output: str | None,
    rules: str,
) -> None:
    """Print the board of one game after a move, with the last move and any battle marked.

    Red pieces read rNN, blue ones bNN; + marks the last move's square of departure, * its
    arrival, ! a battle. Any diagnostics of the replay follow the board. With -o the board
    is drawn as an SVG or PNG picture.

    \b
    Example:
      strat-tools show classic-2014.5-2245.xml --ply 40
      strat-tools show strados2014-5.zip --game classic-2014.5-2245 --numbering classic
      strat-tools show classic-2014.5-2245.xml --ply 40 -o board.png
    """
    from strat_tools.core.rules import check_rules

    check_rules(rules)  # a usage error first (exit 2), then the output, then the game
    check_output(path, output)
    from strat_tools.core.errors import InputError
    from strat_tools.core.text import printable_lines
    from strat_tools.engine.replays.replay import replay
    from strat_tools.engine.replays.stepping import show as show_board
    from strat_tools.formats.readers import SeveralGames, read_game

    if output is not None and not output.lower().endswith((".svg", ".png")):
        raise click.BadParameter("a board picture is .svg or .png", param_hint="-o")
    try:
        record = read_game(path, game_id)
    except SeveralGames as exc:  # members sharing a base name: the member path tells them apart
        raise NoInput(
            f"{exc.where} holds {exc.count:,} games{exc.named}; pick one with --game (a game id "
            f"or member path, e.g. --game {exc.pick})"
        ) from None
    except InputError as exc:  # no such game, or unreadable: a usage error
        raise NoInput(str(exc)) from None
    result = replay(record, rules)
    last = result.plies_replayed
    if ply is not None and ply > last:
        stop = "game" if last == record.plies else "replay (an illegal move follows)"
        message(f"ply {ply:,} is past the end of the {stop}: showing ply {last:,}, the last")
    if output is not None:
        from strat_tools.views.boardimage import write_position_image

        if numbering == "names":
            raise click.BadParameter(
                "a picture shows ranks: modern or classic", param_hint="--numbering"
            )
        message(f"wrote {write_position_image(result, output, ply, numbering=numbering)}")
    else:
        board = show_board(result, ply, numbering=numbering)  # type: ignore[arg-type]
        click.echo(printable_lines(board))
        if (ply is None or ply >= last) and last == record.plies:
            click.echo(_game_result(record))
    for diag in (*record.diagnostics, *result.diagnostics):
        message(str(diag))


def _game_result(record: Any) -> str:
    """The recorded end of a game, in words: 'result: flag_captured, red wins'."""
    if record.result is None:
        return "result: none recorded"
    winner = record.result.winner
    who = {1: "red wins", 2: "blue wins", 3: "a draw"}.get(winner, "winner unknown")
    return f"result: {record.result.termination.label}, {who}"


@click.command(name="rules")
@format_option()
@library_errors
def rules_command(fmt: str) -> None:
    """List the named rule sets; any of them takes options after '+'.

    Options: aggressor, silent, rescue, onetimebombs, chasing, chasing-warn, scoutclause,
    strict, limit3, limit5, nolimit. See docs/rules-findings.md for the evidence behind them.

    \b
    Example:
      strat-tools rules
      strat-tools validate games/ --rules gravon-2013+aggressor
    """
    from strat_tools.core.rules import ruleset_rows

    render(ruleset_rows(), fmt)
