"""``strat-tools export`` and ``strat-tools stats``: tables and statistics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import NoInput, library_errors
from strat_tools.cli.options import (
    LibraryChoice,
    PieceName,
    RegistryOption,
    VariantName,
    format_option,
    game_filter_options,
    game_filter_options_but,
    list_option,
    paths_argument,
    refuse_unused,
    rules_option,
    run_options,
)
from strat_tools.cli.outputs import check_output
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import count_of, message, progress_bar, render
from strat_tools.core.records import ALL_VARIANTS, DEFAULT_VARIANT, VARIANTS


@click.command()
@paths_argument
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder for games, setups, moves, diagnostics and events (created if needed).",
)
@click.option(
    "--format",
    "fmt",
    type=LibraryChoice("strat_tools.core.choices:TABLE_FORMATS"),
    default="parquet",
    show_default=True,
    help="One NAME.parquet or NAME.csv file per table.",
)
@click.option(
    "--setups-only",
    is_flag=True,
    help="No replay: games and setups only (much faster; games are not called valid).",
)
@game_filter_options
@rules_option
@run_options
@library_errors
def export(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    out: str,
    fmt: str,
    setups_only: bool,
    rules: str,
    run: Run,
) -> None:
    """Export games as tables (games, setups, moves, diagnostics, events) for pandas, DuckDB.

    Every input game is one row of the games table, invalid and unreadable ones too. Files
    are written batch by batch and renamed into place when complete. The summary on stderr
    accounts for every input; exit 0 when everything was written, invalid games included
    (use 'strat-tools validate' to fail on them). PATHS may also be an exported folder, to
    convert it to another format.

    \b
    Example:
      strat-tools export ../gravon/strados2014-*.zip -o tables/
      strat-tools export data/ -o tables-csv/ --format csv
    """
    from strat_tools.core.rules import check_rules

    check_rules(rules)  # a usage error first (exit 2), then the output
    if setups_only:
        refuse_unused(["rules"], "--setups-only (nothing is replayed)")
    check_output(paths, out, folder=True, create=True)
    from strat_tools.run.driver import export_dataset

    with progress_bar("exporting") as update:
        summary = export_dataset(
            list(paths),
            out,
            format=fmt,  # type: ignore[arg-type]
            setups_only=setups_only,
            rules=rules,
            run=run.with_progress(update),
            select=game_filter,
        )
    message(str(summary))
    if summary.dropped:
        message(f"{summary.dropped:,} games left out by the filters ({game_filter.describe()})")
    if summary.invalid:
        invalid = count_of(summary.invalid, "invalid game")
        verb = "is" if summary.invalid == 1 else "are"
        message(f"{invalid} {verb} in the tables with their diagnostics.")


def stat_request(stat: str, **params: Any) -> tuple[str, dict[str, Any]]:
    """The (name, options) request of :func:`~strat_tools.stats.stream.compute_many_streaming`
    that ``stats`` computes for its parsed options ``params`` (``by``, ``variants``,
    ``piece``, ``feature``, ``include_classicfree``, ``pool_variants``).

    >>> stat_request("rows", by=(), variants=("classic",), piece="bomb", feature="flag_corner",
    ...              include_classicfree=False, pool_variants=False)[1]["variant"]
    ['classic']
    """
    return stat, {
        "by": list(params["by"]) or None,
        "variant": list(params["variants"]) or None,
        "piece": params["piece"],
        "feature": params["feature"],
        "include_classicfree": params["include_classicfree"],
        "pool_variants": params["pool_variants"],
    }


@click.command()
@paths_argument
@click.option(
    "--stat",
    "stat",
    cls=RegistryOption,
    default="flag",
    show_default=True,
    metavar="NAME",
    type=LibraryChoice(
        "strat_tools.stats:STATISTICS", light="strat_tools.cli.declared:declared_statistics"
    ),
    help="Statistic:",
)
@list_option(
    "--by",
    "by",
    item=LibraryChoice("strat_tools.core.choices:GROUPINGS"),
    help="Group by these columns (repeat or commas).",
)
@list_option(
    "--variant",
    "variants",
    item=VariantName([*VARIANTS, ALL_VARIANTS]),
    metavar="NAME[,NAME]",
    help=f"Variants to count, each apart: a variant column in every table (repeat or "
    f"commas; default {DEFAULT_VARIANT}; '{ALL_VARIANTS}': every one, as does --by variant).",
)
@click.option(
    "--pool-variants",
    is_flag=True,
    help="Count the chosen variants as one sample (their armies differ: only on purpose); "
    "the variant column names them.",
)
@click.option(
    "--piece",
    default="flag",
    show_default=True,
    type=PieceName(),
    help="Piece for placement, rows and columns (flag, bomb, spy, scout, ...; F, B, S).",
)
@click.option(
    "--feature",
    default="flag_back_row",
    show_default=True,
    type=LibraryChoice("strat_tools.core.choices:SETUP_FEATURE_NAMES"),
    help="Setup feature for win-rate.",
)
@click.option(
    "--include-classicfree",
    is_flag=True,
    help="Count classicfree setups too (any army on any square).",
)
@format_option()
@game_filter_options_but("--variant")
@rules_option
@run_options
@library_errors
def stats(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    stat: str,
    by: tuple[str, ...],
    variants: tuple[str, ...],
    piece: str,
    feature: str,
    include_classicfree: bool,
    pool_variants: bool,
    fmt: str,
    rules: str,
    run: Run,
) -> None:
    """Setup and move statistics as a table: placement, bombs, scouts, endings, win rates.

    Setup statistics read setups only (no replay). PATHS may be records or a folder written
    by 'strat-tools export' (read without parsing anything). Variants never pool unless
    --pool-variants: every table starts with the variant it covers.

    \b
    Example:
      strat-tools stats ../gravon/ --stat rows --variant classic --by period
      strat-tools stats tables/ --stat win-rate --feature flag_corner --format csv
      strat-tools stats ../gravon/ --stat flag --by variant
    """
    from strat_tools.core.rules import check_rules
    from strat_tools.stats.registry import STATISTICS
    from strat_tools.stats.stream import compute_streaming

    check_rules(rules)  # an unknown rule set first, the same message in every command
    chosen = STATISTICS.get(stat)
    if chosen is not None:
        unused = [o for o in ("piece", "feature") if o not in chosen.uses]
        if chosen.needs != "setups":
            unused.append("include_classicfree")  # games and moves count classicfree anyway
        else:
            unused.append("rules")  # setups are read, not replayed
        refuse_unused(unused, f"--stat {stat}")
    _, options = stat_request(
        stat,
        by=by,
        variants=variants,
        piece=piece,
        feature=feature,
        include_classicfree=include_classicfree,
        pool_variants=pool_variants,
    )
    # Reduced batch by batch in the workers: memory does not grow with the input.
    table, _tally = read_through(
        paths,
        run,
        lambda run: compute_streaming(
            stat,
            list(paths),
            rules=rules,
            select=game_filter,
            **options,
            run=run,
        ),
    )
    if table.empty:
        scope = ", ".join(variants) or DEFAULT_VARIANT
        raise NoInput(
            f"no {scope} games to count in {' '.join(paths)}"
            + ("" if variants else " (--variant NAME or --by variant for others)")
        )
    render(table, fmt)
