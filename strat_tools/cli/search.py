"""``strat-tools search``: the setups that match a pattern, and how they did."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import as_click, library_errors
from strat_tools.cli.options import (
    format_option,
    game_filter_options_but,
    paths_argument,
    run_options,
)
from strat_tools.cli.reading import require_readable
from strat_tools.cli.render import message, progress_bar, render
from strat_tools.core.records import DEFAULT_VARIANT

T = TypeVar("T")


def search_record(result: Any) -> dict[str, Any]:
    """The search result as one JSON-ready object."""
    summary = result.summary.set_index("match")
    as_dict = json.loads(summary.to_json(orient="index"))
    return {
        "pattern": str(result.pattern),
        "anywhere": type(result.pattern).__name__ == "AnywherePattern",
        "mirror": result.mirror,
        "side": result.side,
        "both": result.both,
        "variant": result.variant,
        "matching": as_dict["matching"],
        "rest": as_dict["rest"],
        "z": None if result.z != result.z else result.z,
        "impossible": result.impossible,
        "games": result.game_ids,
        "setups": [
            {"game_id": game_id, "side": side, "mirror": through_mirror}
            for game_id, side, through_mirror in result.listing()
        ],
    }


def listing_lines(result: Any) -> list[str]:
    """One line per matching setup: game id (escaped: names are data), side, and whether
    the pattern matched it as drawn or only as its mirror image."""
    from strat_tools.core.text import printable

    return [
        f"{printable(game_id)}\t{side}\t{'mirror image' if through_mirror else 'as drawn'}"
        for game_id, side, through_mirror in result.listing()
    ]


def read_setups(
    paths: Sequence[str],
    game_filter: GameFilter,
    variant: Any,
    run: Run,
    reduce: Callable[[Any], T],
    add: Callable[[Sequence[T]], T],
) -> T:
    """What ``search`` and ``setups`` keep of the setups they look at: ``reduce`` of them
    (:func:`~strat_tools.stats.setup_search.reduce_setups`; ``search``: the counts per
    distinct setup, ``setups``: its tally), from a dataset folder's games table when it
    answers alone (no progress bar, nothing to wait for), else read from the records a
    batch at a time with a progress bar, the parts joined by ``add``; nothing readable is
    a usage error (exit 2), not an empty table."""
    from strat_tools.run.driver import dataset_folder
    from strat_tools.run.inputs import Inputs
    from strat_tools.stats.setup_search import folder_outcomes, reduce_setups

    inputs = Inputs.of(paths)  # resolved once: the folder test and the run take it
    folder = dataset_folder(inputs)  # the driver's one decision: a dataset folder alone
    if folder is not None:
        found = folder_outcomes(folder, game_filter, variant)
        if found is not None:
            return reduce(found)
    from strat_tools.run.tally import Tally

    counts = Tally()
    with progress_bar("reading setups") as update:
        counted = run.with_progress(update).with_tally(counts)
        kept = reduce_setups(
            inputs, reduce, add, game_filter, variant, run=counted, from_table=False
        )
    require_readable(counts, paths)
    return kept


@click.command()
@paths_argument
@click.option(
    "--pattern",
    "search_pattern",
    default=None,
    metavar="PATTERN",
    help="4x10 pattern, front row first, rows split by / or newlines: . anything, "
    "B F S 2-9 G X pieces, _ empty, [B3] a set, [!FB] none of them, !B not a bomb.",
)
@click.option(
    "--anywhere",
    "anywhere_pattern",
    default=None,
    metavar="PATTERN",
    help="A smaller pattern (1-4 rows of up to 10, front row first) matched at every "
    "offset: SG = a spy with the general right beside it in a row.",
)
@click.option("--mirror", is_flag=True, help="Match the pattern or its mirror image.")
@click.option(
    "--side",
    type=click.Choice(["red", "blue"]),
    default=None,
    help="Only this side's setups (the rest: that side's others).",
)
@click.option("--both", is_flag=True, help="Only games in which both setups match.")
@game_filter_options_but("--pattern", "--anywhere", "--pattern-side")
@click.option(
    "--list-games",
    is_flag=True,
    help="Also list the matching setups: game id, side, as drawn or mirror image.",
)
@format_option()
@run_options
@library_errors
def search(
    paths: tuple[str, ...],
    search_pattern: str | None,
    anywhere_pattern: str | None,
    mirror: bool,
    side: str | None,
    both: bool,
    game_filter: GameFilter,
    list_games: bool,
    fmt: str,
    run: Run,
) -> None:
    """Find the setups matching a pattern; compare their win rate with the rest's.

    The pattern is a setup as its owner sees it from their seat: the front row first, the
    back row last, each row left to right. Prints the pattern back as read, then the
    matching setups and the rest: counts, distinct setups (as drawn) and distinct up to a
    mirror image, games, wins/draws/losses, win rate with plain and clustered 95%
    intervals and the score's z against an even 0.5 (as rhalbersma/gravon reports), and
    the z of matching against the rest.

    \b
    Example:
      strat-tools search ../gravon/ --pattern "........../........../........../FB........" --mirror
      strat-tools search ../gravon/ --pattern ". . . . . . . . . . / . . . . . . . . . . / \\
        . . . . . . . . . . / flag bomb . . . . . . . ." --format json
    """
    from strat_tools.setups.patterns import PatternError, parse_pattern
    from strat_tools.stats.match_counts import add_match_counts
    from strat_tools.stats.repeats import finish_search, search_counts

    if (search_pattern is None) == (anywhere_pattern is None):
        raise click.UsageError("give one of --pattern (the whole setup) or --anywhere")
    option = "pattern" if search_pattern is not None else "anywhere"
    try:
        pattern = parse_pattern(
            search_pattern or anywhere_pattern or "", anywhere=anywhere_pattern is not None
        )
    except PatternError as exc:
        raise as_click(exc, option) from None
    if game_filter.variants and len(game_filter.variants) > 1:
        raise click.BadParameter(
            "a search compares setups of one variant (armies differ): name one",
            param_hint="'--variant'",
        )
    variant = sorted(game_filter.variants) if game_filter.variants else DEFAULT_VARIANT
    listing = list_games or fmt == "json"  # the only outputs that name the games
    count = partial(
        search_counts, pattern=pattern, mirror=mirror, side=side, both=both, listing=listing
    )
    counts = read_setups(paths, game_filter, variant, run, count, add_match_counts)
    result = finish_search(counts, pattern, variant=variant, mirror=mirror, side=side, both=both)
    if result.impossible:
        message(f"Note: the pattern can never match: {result.impossible}")
    if fmt == "json":
        click.echo(json.dumps(search_record(result), indent=2))
        return
    if fmt in ("csv", "jsonl"):  # one row per side of the comparison, as json's two
        render(result.summary.assign(variant=result.variant, z=result.z), fmt)
        return
    kind = "pattern anywhere" if anywhere_pattern is not None else "pattern"
    click.echo(f"{kind} ({'or its mirror, ' if mirror else ''}front row first):")
    click.echo("\n".join("    " + line for line in str(result.pattern).splitlines()))
    whose = f"{side} " if side else ""
    both_note = "; games where both setups match" if both else ""
    click.echo(f"{result.variant} {whose}setups ({game_filter.describe()}{both_note}):")
    render(result.summary, "table")
    click.echo(f"z (matching against the rest): {result.z:.2f}")
    if list_games:
        click.echo("\n".join(listing_lines(result)))
    else:
        games = int(result.summary["games"].iloc[0])  # the matching row's
        message(f"{games:,} games with a matching setup (--list-games lists them)")
