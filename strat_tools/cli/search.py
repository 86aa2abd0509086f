"""``strat-tools search``: the setups that match a pattern, and how they did."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from strat_tools.run.options import Run

from strat_tools.cli.common import (
    format_option,
    game_filter_options_but,
    library_errors,
    message,
    paths_argument,
    progress_bar,
    render,
    require_readable,
    run_options,
    units_or_dataset,
)
from strat_tools.core.records import DEFAULT_VARIANT


def search_record(result: Any) -> dict[str, Any]:
    """The search result as one JSON-ready object."""
    summary = result.summary.set_index("match")
    as_dict = json.loads(summary.to_json(orient="index"))
    return {
        "pattern": str(result.pattern),
        "mirror": result.mirror,
        "variant": result.variant,
        "matching": as_dict["matching"],
        "rest": as_dict["rest"],
        "z": None if result.z != result.z else result.z,
        "impossible": result.impossible,
        "games": result.game_ids,
    }


@click.command()
@paths_argument
@click.option(
    "--pattern",
    "search_pattern",
    required=True,
    metavar="PATTERN",
    help="4x10 pattern, front row first, rows split by / or newlines: . anything, "
    "B F S 2-9 X pieces, _ empty, [B3] a set, !B not a bomb.",
)
@click.option("--mirror", is_flag=True, help="Match the pattern or its mirror image.")
@game_filter_options_but("--pattern")
@click.option("--list-games", is_flag=True, help="Also list the ids of the matching games.")
@format_option(("table", "csv", "json"))
@run_options
@library_errors
def search(
    paths: tuple[str, ...],
    search_pattern: str,
    mirror: bool,
    game_filter: Any,
    list_games: bool,
    fmt: str,
    run: Run,
) -> None:
    """Find the setups matching a pattern; compare their win rate with the rest's.

    The pattern is a setup as its owner sees it from their seat: the front row first, the
    back row last, each row left to right. Prints the pattern back as read, then the
    matching setups and the rest: counts, distinct setups, games, wins/draws/losses, win
    rate with plain and clustered 95% intervals and the score's z against an even 0.5
    (as rhalbersma/gravon reports), and the z of matching against the rest.

    \b
    Example:
      strat-tools search ../gravon/ --pattern "........../........../........../FB........" --mirror
      strat-tools search ../gravon/ --pattern ". . . . . . . . . . / . . . . . . . . . . / \\
        . . . . . . . . . . / flag bomb . . . . . . . ." --format json
    """
    from strat_tools.core.text import printable
    from strat_tools.run.driver import Tally
    from strat_tools.run.selection import read_selected
    from strat_tools.setups.patterns import Pattern
    from strat_tools.stats.repeats import search_setups

    try:
        pattern = Pattern.parse(search_pattern)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--pattern'") from None
    if game_filter.variants and len(game_filter.variants) > 1:
        raise click.BadParameter(
            "a search compares setups of one variant (armies differ): name one",
            param_hint="'--variant'",
        )
    variant = sorted(game_filter.variants) if game_filter.variants else DEFAULT_VARIANT
    total = units_or_dataset(paths)
    tally = Tally()
    with progress_bar(total, "reading setups") as update:
        counted = run.with_progress(update).with_tally(tally)
        games = read_selected(list(paths), game_filter, setups_only=True, run=counted)
    require_readable(tally, paths)  # nothing readable: exit 2, not an empty table
    result = search_setups(games, pattern, variant=variant, mirror=mirror)
    if result.impossible:
        message(f"Note: the pattern can never match: {result.impossible}")
    if fmt == "json":
        click.echo(json.dumps(search_record(result), indent=2))
        return
    if fmt == "csv":
        render(result.summary.assign(variant=result.variant, z=result.z), "csv")
        return
    click.echo(f"pattern ({'or its mirror, ' if mirror else ''}front row first):")
    click.echo("\n".join("    " + line for line in str(result.pattern).splitlines()))
    click.echo(f"{result.variant} setups ({game_filter.describe()}):")
    render(result.summary, "table")
    click.echo(f"z (matching against the rest): {result.z:.2f}")
    if list_games:
        click.echo("\n".join(printable(i) for i in result.game_ids))  # names are data
    else:
        message(f"{len(result.game_ids):,} games with a matching setup (--list-games lists them)")
