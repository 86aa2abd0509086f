"""``strat-tools advice``: the rulebooks' setup tips tested on real setups."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import NoInput, library_errors
from strat_tools.cli.options import (
    LibraryChoice,
    VariantName,
    format_option,
    game_filter_options_but,
    paths_argument,
    run_options,
)
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import message, render
from strat_tools.core.pieces import ARMIES
from strat_tools.core.records import DEFAULT_VARIANT


@click.command()
@paths_argument
@click.option(
    "--variant",
    default=DEFAULT_VARIANT,
    show_default=True,
    type=VariantName([*ARMIES, "all"], what="advice"),
    help="Variant with a fixed army ('all': each of them, one group per variant).",
)
@click.option(
    "--view",
    default="tips",
    show_default=True,
    type=LibraryChoice("strat_tools.core.choices:ADVICE_VIEWS"),
    help="tips: adoption, win rates and head-to-head per tip; periods: adoption per "
    "month; adjacency: kinds side by side against chance; entropy: how predictable "
    "each kind's square is; catalogue: the tips' source sentences and definitions.",
)
@format_option()
@game_filter_options_but("--variant")
@run_options
@library_errors
def advice(
    paths: tuple[str, ...], variant: str, view: str, fmt: str, game_filter: GameFilter, run: Run
) -> None:
    """Put the rulebooks' setup tips to the test on real setups (reads setups only).

    For each tip of the seed rule texts (flag sealed by bombs, decoy corner, few front-row
    bombs, spy next to the general, ...): the share of setups that follow it, the win rate
    of those that do and of the rest, each with its clustered 95% interval (every distinct
    setup, up to its mirror image, counts once), and a verdict that says the direction:
    followers win more, followers win less (with the clustered intervals too), no clear
    difference once repeated setups count once, or no clear difference. That is the table;
    --format json (or csv) gives the full record of each tip: every count, the Wilson and
    the clustered intervals, the difference and the head-to-head games. Draws are left
    out; invalid games too. See docs/advice.md for the definitions and what such a
    comparison can and cannot show.

    \b
    Example:
      strat-tools advice ../gravon/
      strat-tools advice ../gravon/ --variant barrage --view entropy --format csv
    """
    from strat_tools.stats.advice import advice_table_of_paths
    from strat_tools.stats.tips import SPY_GENERAL_NOTE, tip_catalogue

    if view == "catalogue":
        render(tip_catalogue(), fmt)
        return
    chosen = None if variant == "all" else variant
    # Tip, neighbour and placement counts add up: counted batch by batch, flat memory.
    table, _ = read_through(
        paths,
        run,
        lambda run: advice_table_of_paths(list(paths), view, chosen, select=game_filter, run=run),
    )  # nothing readable: exit 2 with the reader's reasons
    if table.empty:
        raise NoInput(f"no setups found in {' '.join(paths)}")
    if view == "tips" and fmt == "table":
        from strat_tools.stats.tip_rates import tip_digest

        render(tip_digest(table), fmt)
        message(
            "Win rates of decided games with clustered 95% intervals (a setup and its mirror "
            "image counted once); every count and both intervals: --format json or csv."
        )
        if (table["tip"] == "spy_next_to_general").any():
            message(f"spy_next_to_general: {SPY_GENERAL_NOTE}")
        return
    render(table.round(3) if fmt == "table" else table, fmt)
