"""``strat-tools openings``: the most common lines of the first plies, and how they score."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    import pandas as pd

    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import format_option, game_filter_options, paths_argument, run_options
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import message, render
from strat_tools.cli.setups import percent
from strat_tools.core.records import DEFAULT_VARIANT


def interval(low: Any, high: Any) -> str:
    """``[52.6, 66.4]``; ``n/a`` without one."""
    import pandas as pd

    if pd.isna(low) or pd.isna(high):
        return "n/a"
    return f"[{percent(low)}, {percent(high)}]"


def text_table(lines: pd.DataFrame, side: str) -> pd.DataFrame:
    """The lines as the text table shows them (rates in percent, intervals in brackets)."""
    import pandas as pd

    return pd.DataFrame(
        {
            "#": range(1, len(lines) + 1),
            "line": lines["line"],
            "games": lines["games"],
            "share %": [percent(v) for v in lines["share"]],
            "red wins": lines["red_wins"],
            "blue wins": lines["blue_wins"],
            "draws": lines["draws"],
            f"{side} win %": [percent(v) for v in lines["win_rate"]],
            "95% interval": [
                interval(lo, hi) for lo, hi in zip(lines["ci_low"], lines["ci_high"], strict=True)
            ],
            "clustered": [
                interval(lo, hi)
                for lo, hi in zip(lines["cluster_ci_low"], lines["cluster_ci_high"], strict=True)
            ],
        }
    )


@click.command()
@paths_argument
@click.option(
    "--depth",
    type=click.IntRange(min=1, max=20),
    default=2,
    show_default=True,
    help="Plies in a line (1: the first moves; 2: a first move and its answer).",
)
@click.option(
    "--side",
    type=click.Choice(["red", "blue"]),
    default=None,
    help="Whose win rate (clustered by that side's setup; red by default), and, with "
    "--pattern, whose setup must match (either side's without --side).",
)
@click.option("--mirror", is_flag=True, help="Let --pattern match its mirror image too.")
@click.option(
    "--top",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="How many lines (0: every one).",
)
@game_filter_options
@format_option()
@run_options
@library_errors
def openings(
    paths: tuple[str, ...],
    depth: int,
    side: str | None,
    mirror: bool,
    top: int,
    game_filter: GameFilter,
    fmt: str,
    run: Run,
) -> None:
    """The most common opening lines and how they score.

    A line is a game's first DEPTH moves, each FROM-TO in Gravon's square names (red's
    back row is row 1), separated by spaces: "B4-B5 G7-G6". Per line: games, red wins,
    blue wins, draws, its share of the games with a line that long, and the win rate of
    one side among the decided games with the plain (Wilson) 95% interval and the one
    clustered by that side's setup (one player may open the same way a hundred times).
    Classic unless --variant names another; only valid games count. --format json gives
    the lines as a tree of moves; csv and jsonl one row per line.

    \b
    Example:
      strat-tools openings ../gravon/ --depth 1
      strat-tools openings ../gravon/ --depth 2 --format csv > lines.csv
      strat-tools openings ../gravon/ --side blue --format json \\
        --pattern "........../........../........../F........." --mirror
    """
    from strat_tools.stats.openings import openings_of_paths

    if game_filter.variants and len(game_filter.variants) > 1:
        raise click.BadParameter(
            "openings are counted within one variant: name one", param_hint="'--variant'"
        )
    if mirror and game_filter.pattern is None:
        raise click.BadParameter("--mirror mirrors a --pattern: give one", param_hint="'--mirror'")
    variant = next(iter(game_filter.variants)) if game_filter.variants else DEFAULT_VARIANT
    found, _ = read_through(
        paths,
        run,
        lambda run: openings_of_paths(
            list(paths),
            depth=depth,
            side=side or "red",  # type: ignore[arg-type]
            variant=variant,
            pattern=game_filter.pattern if side else None,
            mirror=mirror,
            top=top,
            select=game_filter,
            run=run,
        ),
        label="reading games",
    )
    if fmt == "json":
        click.echo(json.dumps(found.tree(), indent=2))
        return
    lines = found.lines
    if fmt in ("csv", "jsonl"):  # one row per line of moves
        render(lines, fmt)
        return
    listed = f"the {top} most played" if top else "every one"
    plies = "1 ply" if depth == 1 else f"{depth} plies"
    click.echo(
        f"{found.variant} games with a first move: {found.games:,} ({game_filter.describe()}); "
        f"lines of {plies}, {listed}; {found.side}'s win rate of the decided games:"
    )
    render(text_table(lines, found.side), "table")
    if not len(lines):
        message(
            f"No game has a line of {plies} (an export made "
            "with --setups-only holds no moves: export without it)."
        )
