"""``strat-tools heatmap`` and ``strat-tools report``: pictures and reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import (
    FIGURE_SUFFIXES,
    LibraryChoice,
    PieceName,
    VariantName,
    game_filter_options,
    game_filter_options_but,
    paths_argument,
    refuse_unused,
    rules_option,
    run_options,
)
from strat_tools.cli.outputs import check_output
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import count_of, message, source_label
from strat_tools.core.pieces import ARMIES
from strat_tools.core.records import DEFAULT_VARIANT


@click.command()
@paths_argument
@click.option(
    "--piece",
    default="flag",
    show_default=True,
    type=PieceName(allow_all=True),
    help="Piece to map; 'all' draws the twelve kinds as small multiples.",
)
@click.option(
    "--variant",
    default=DEFAULT_VARIANT,
    show_default=True,
    type=VariantName(list(ARMIES), what="heatmap"),
    help="Variant whose setups are drawn (armies differ, so variants never pool).",
)
@click.option(
    "--side",
    default="both",
    show_default=True,
    type=click.Choice(["red", "blue", "both"]),
    help="Whose setups; both pool, in each owner's view.",
)
@click.option(
    "--by",
    default=None,
    type=click.Choice(["won", "period", "year", "side", "result"]),
    help="won: winners minus losers on a diverging scale; others: one panel per group.",
)
@click.option(
    "--moves",
    "measure",
    default=None,
    type=LibraryChoice("strat_tools.core.choices:TRAFFIC_MEASURES"),
    help="Draw the whole board from the moves instead (replays the games): squares "
    "the piece passed (path), moved to (target), or battles there (--piece all: any).",
)
@click.option(
    "--view",
    default="board",
    show_default=True,
    type=LibraryChoice("strat_tools.core.choices:TRAFFIC_VIEWS"),
    help="With --moves: board (as red sees it) or owner (blue's moves turned 180°, "
    "so every mover plays up the board).",
)
@click.option(
    "--numbering",
    default="modern",
    show_default=True,
    type=LibraryChoice("strat_tools.core.pieces:NUMBERINGS"),
    help="Rank labels: modern (10 = marshal) or classic (1 = marshal, 9 = scout).",
)
@click.option(
    "--scale",
    default="shared",
    show_default=True,
    type=LibraryChoice("strat_tools.core.choices:PANEL_SCALES"),
    help="Panel grids (--piece all, --by period etc.): one colour scale for all panels "
    "(shared, to compare them) or one per panel (per-panel, to see each one's pattern).",
)
@click.option(
    "--min-setups",
    default=None,
    type=click.IntRange(min=0),
    help="Panels with fewer setups are drawn as 'too few (n = K)' "
    "[default: strat_tools.views.plots.MIN_PANEL_SETUPS, 50].",
)
@click.option("--title", default=None, help="Extra title line (default: the input paths).")
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Image file: .png, .svg or .pdf (written atomically).",
)
@game_filter_options_but("--variant")
@run_options
@library_errors
def heatmap(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    piece: str,
    variant: str,
    side: str,
    by: str | None,
    measure: str | None,
    view: str,
    numbering: str,
    scale: str,
    min_setups: int | None,
    title: str | None,
    out: str,
    run: Run,
) -> None:
    """Draw where a piece stands in the setups (owner's view, back row at the bottom).

    Each cell is annotated with the percentage of setups that have the piece there; the
    title names n. --by won marks the squares where winners and losers differ more than
    chance (a two-proportion z-test per square, Holm-corrected over the 40 squares, 5%).
    With --moves, draw the 10x10 board with the lakes instead: where scouts travel, where
    battles happen.

    \b
    Example:
      strat-tools heatmap ../gravon/ --piece flag -o flag.png
      strat-tools heatmap ../gravon/ --piece all --side blue -o pieces.svg
      strat-tools heatmap ../gravon/ --piece bomb --by won -o bombs-won.pdf
      strat-tools heatmap ../gravon/ --piece flag --by period --scale per-panel -o f.png
      strat-tools heatmap ../gravon/ --piece scout --moves path --view owner -o scouts.png
      strat-tools heatmap ../gravon/ --piece scout --moves target --numbering classic -o s.png
    """
    check_output(paths, out)
    from strat_tools.views.figure_files import save_figure
    from strat_tools.views.heatmaps import heatmap_of_paths

    if not out.lower().endswith(FIGURE_SUFFIXES):
        raise click.BadParameter("the file must end in .png, .svg or .pdf", param_hint="-o")
    if measure is None:
        refuse_unused(["view"], "a map of setups (--view turns a --moves map)")
    # Both kinds of map are counts: made batch by batch, flat memory at any size.
    fig, _tally = read_through(
        paths,
        run,
        lambda run: heatmap_of_paths(
            list(paths),
            piece,
            variant=variant,
            side=side,
            by=by,
            moves=measure,  # type: ignore[arg-type]  # a LibraryChoice of TRAFFIC_MEASURES
            view=view,  # type: ignore[arg-type]  # a LibraryChoice of TRAFFIC_VIEWS
            numbering=numbering,
            scale=scale,
            min_setups=min_setups,
            title=title or source_label(paths),
            select=game_filter,
            run=run,
        ),
    )
    save_figure(fig, out)
    message(f"Wrote {out}.")


@click.command()
@paths_argument
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Report file, written atomically (one file: figures embedded).",
)
@click.option(
    "--format",
    "fmt",
    default=None,
    type=LibraryChoice("strat_tools.core.choices:REPORT_FORMATS"),
    help="html or md (default: from the file suffix, .md for Markdown, else html).",
)
@click.option(
    "--title", default="Stratego game records", show_default=True, help="The report's heading."
)
@click.option(
    "--setups-only",
    is_flag=True,
    help="No replay: faster, but no scout, battle or validity-by-replay sections.",
)
@click.option(
    "--numbering",
    default="modern",
    show_default=True,
    type=LibraryChoice("strat_tools.core.pieces:NUMBERINGS"),
    help="Ranks in figures and tables: modern (10 = marshal, 1 = spy) or classic "
    "(1 = marshal, 9 = scout, S = spy).",
)
@game_filter_options
@rules_option
@run_options
@library_errors
def report(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    out: str,
    fmt: str | None,
    title: str,
    setups_only: bool,
    numbering: str,
    rules: str,
    run: Run,
) -> None:
    """Write one self-contained report: corpus, endings, placement, scouts, win rates.

    Every table names its sample size; win rates come with Wilson 95% intervals; figures
    are embedded, so the file opens anywhere without network or other files.

    \b
    Example:
      strat-tools report ../gravon/ -o report.html
      strat-tools report tables/ -o report.md --title "Gravon 2013-2014"
      strat-tools report ../gravon/ -o report.html --numbering classic
    """
    from strat_tools.core.rules import check_rules

    check_rules(rules)  # a usage error first (exit 2), then the output
    if setups_only:
        refuse_unused(["rules"], "--setups-only (nothing is replayed)")
    check_output(paths, out)
    from strat_tools.report.inputs import report_inputs_of_paths
    from strat_tools.report.page import write_report

    # Each batch is reduced where it is read (counts, a few values a game), so memory does
    # not grow with the setups and moves of the input.
    data, _tally = read_through(
        paths,
        run,
        lambda run: report_inputs_of_paths(
            list(paths),
            setups_only=setups_only,
            rules=rules,
            select=game_filter,
            run=run,
        ),
    )
    if game_filter.active:
        message(f"Filters: {game_filter.describe()}")
    message(f"Read {count_of(len(data.games), 'game')}; writing the report...")
    write_report(data, out, fmt, title=title, numbering=numbering)  # type: ignore[arg-type]
    message(f"Wrote {out}.")
