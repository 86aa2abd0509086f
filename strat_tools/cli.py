"""The ``strat-tools`` command line: a thin click layer over the library.

Each command parses options, calls one library function and renders its result. Data goes
to stdout; progress and messages go to stderr. Library errors become ``Error: ...`` with
exit 1; usage errors stay click's exit 2. ``validate`` exits 1 when any game is invalid.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from strat_tools import __version__

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("table", "csv", "json", "jsonl")


# ---------------------------------------------------------------------------------------
# Shared options and rendering (used by every command)
# ---------------------------------------------------------------------------------------


def jobs_option(func: F) -> F:
    """``--jobs N``: worker processes (default: all cores)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes, split by file and zip member (default: all cores).",
    )(func)


def _check_rules(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Refuse an unknown rule-set name or option before any work starts (exit 2)."""
    from strat_tools.rules import RULESETS, get_rules

    base, _, options = value.partition("+")
    probe = next(iter(RULESETS)) if base == "auto" else base
    try:
        get_rules(probe + ("+" + options if options else ""))
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


def rules_option(func: F) -> F:
    """``--rules auto|NAME[+OPTION...]``, checked before any work starts."""
    return click.option(
        "--rules",
        "rules",
        default="auto",
        show_default=True,
        metavar="auto|NAME[+OPTION]",
        callback=_check_rules,
        help="Rule set: 'auto' picks by variant and period; see 'strat-tools rules'.",
    )(func)


def dask_options(func: F) -> F:
    """``--dask`` and ``--dask-address``."""
    func = click.option(
        "--dask-address",
        default=None,
        metavar="tcp://HOST:PORT",
        help="Run on this Dask scheduler (implies --dask). Paths must be visible to workers.",
    )(func)
    return click.option(
        "--dask",
        is_flag=True,
        default=False,
        help="Run the per-file work on dask.distributed (a local cluster unless an address "
        "is given). Needs the 'dist' extra.",
    )(func)


def format_option(choices: Sequence[str] = FORMATS, default: str = "table") -> Callable[[F], F]:
    """``--format`` with the given choices."""

    def decorate(func: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(list(choices)),
            default=default,
            show_default=True,
            help="Output format.",
        )(func)

    return decorate


def paths_argument(func: F) -> F:
    """``PATHS...``: files, folders, globs and zips (at least one)."""
    return click.argument("paths", nargs=-1, required=True, metavar="PATHS...")(func)


def render(data: Any, fmt: str, out: Any = None) -> None:
    """Write a DataFrame, a list of dicts or a dict to ``out`` (stdout) in ``fmt``."""
    import pandas as pd

    out = out or sys.stdout
    if isinstance(data, dict) and fmt in ("json",):
        out.write(json.dumps(data, indent=2, default=_json_default) + "\n")
        return
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    if fmt == "table":
        with pd.option_context("display.width", 200, "display.max_columns", 50):
            out.write((frame.to_string(index=False) if len(frame) else "(no rows)") + "\n")
    elif fmt == "csv":
        frame.to_csv(out, index=False)
    elif fmt == "json":
        out.write(frame.to_json(orient="records", indent=2, force_ascii=False) + "\n")
    elif fmt == "jsonl":
        text = frame.to_json(orient="records", lines=True, force_ascii=False)
        out.write(text if text.endswith("\n") or not text else text + "\n")
    else:
        raise click.UsageError(f"unknown format {fmt!r}")


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def message(text: str) -> None:
    """A message for the user, on stderr."""
    click.echo(text, err=True)


@contextmanager
def progress_bar(total: int, label: str) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr when stderr is a terminal; otherwise nothing."""
    if not sys.stderr.isatty() or total < 2:
        yield None
        return
    with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
        yield bar.update


def library_errors(func: F) -> F:
    """Turn library errors into ``Error: ...`` and exit 1, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except KeyboardInterrupt:
            raise click.Abort() from None
        except (ValueError, OSError, RuntimeError, ImportError, LookupError) as exc:
            raise click.ClickException(str(exc) or exc.__class__.__name__) from exc

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="strat-tools")
def main() -> None:
    """Read, replay, validate and analyse Stratego game records (Gravon StraDoS2 XML).

    PATHS may be .xml files, folders (searched recursively), glob patterns and the monthly
    .zip archives as Gravon publishes them.

    \b
    Example:
      strat-tools validate data/
      strat-tools heatmap data/ --piece flag -o flag.png
    """


# ---------------------------------------------------------------------------------------
# validate
# ---------------------------------------------------------------------------------------


@main.command()
@paths_argument
@format_option(("text", "json", "jsonl", "csv"), default="text")
@rules_option
@jobs_option
@dask_options
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary (text format).")
@click.option("--verbose", "-v", is_flag=True, help="Also print info diagnostics (repairs).")
@library_errors
def validate(
    paths: tuple[str, ...],
    fmt: str,
    rules: str,
    jobs: int | None,
    dask: bool,
    dask_address: str | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Check that every game record is legal: read, check and replay each one.

    Every input game file (zip members included) is one entry: valid, invalid (with
    diagnostics naming file, member, XML line, ply and rule) or unchecked (with the reason).
    Exit 0 when nothing is invalid, 1 when anything is.

    \b
    Example:
      strat-tools validate games/*.xml
      strat-tools validate ../gravon/strados2014-5.zip --format json
    """
    code = _run_validate(
        list(paths),
        fmt=fmt,
        rules=rules,
        jobs=jobs,
        dask=dask or bool(dask_address),
        dask_address=dask_address,
        quiet=quiet,
        verbose=verbose,
    )
    sys.exit(code)


def _run_validate(
    paths: list[str],
    *,
    fmt: str,
    rules: str,
    jobs: int | None,
    dask: bool,
    dask_address: str | None,
    quiet: bool,
    verbose: bool,
) -> int:
    """Stream verdicts to stdout in ``fmt`` (memory stays flat), then the summary."""
    import csv

    from strat_tools.sources import count_units, iter_units
    from strat_tools.validate import CSV_COLUMNS, Summary, csv_rows, iter_verdicts, problem_lines

    summary = Summary()
    # Count first (for the progress bar), then stream: the units are never all in memory.
    total = count_units(paths)
    if not total:
        raise click.ClickException(f"no game records found in {' '.join(paths)}")
    units = iter_units(paths, skipped=summary.skipped)
    out = sys.stdout
    writer = csv.writer(out, lineterminator="\n")
    if fmt == "json":
        out.write('{"games": [')
    elif fmt == "csv":
        writer.writerow(CSV_COLUMNS)
    with progress_bar(total, "validating") as update:
        for verdict in iter_verdicts(
            units, rules=rules, jobs=jobs, dask=dask, dask_address=dask_address, progress=update
        ):
            summary.add(verdict)
            if fmt == "text" and not quiet:
                out.writelines(line + "\n" for line in problem_lines(verdict, verbose=verbose))
            elif fmt == "jsonl":
                out.write(json.dumps(verdict.to_dict()) + "\n")
            elif fmt == "json":
                out.write(("\n" if summary.games == 1 else ",\n") + json.dumps(verdict.to_dict()))
            elif fmt == "csv":
                writer.writerows(csv_rows(verdict))
    if fmt == "json":
        out.write('\n], "summary": ' + json.dumps(summary.to_dict()) + "}\n")
    elif fmt == "text":
        if not quiet:
            for entry in summary.skipped:
                where = entry.source + (f"!{entry.member}" if entry.member else "")
                message(f"{where}: skipped: {entry.reason}")
        out.write(summary.line() + "\n")
        if verbose or not quiet:
            for code, count in sorted(summary.by_code.items(), key=lambda kv: (-kv[1], kv[0])):
                out.write(f"  {count:>7}  {code}\n")
    else:
        message(summary.line())
    return 0 if summary.invalid == 0 else 1


# ---------------------------------------------------------------------------------------
# Other commands are added below, one section each.
# ---------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------
# generate (owner: generator)
# ---------------------------------------------------------------------------------------


@main.command()
@click.option(
    "-n",
    "--games",
    "count",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="How many games to generate.",
)
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(),
    help="A folder (one XML file per game) or a .zip file (one archive).",
)
@click.option(
    "--variant",
    default="classic",
    show_default=True,
    help="classic, barrage or duell, or a weighted mix: classic=8,barrage=1,duell=1.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Same seed, same games, byte for byte."
)
@click.option(
    "--period",
    default="2026-11",
    show_default=True,
    help="Calendar month the games are dated (YYYY-MM); names count months from 0.",
)
@click.option(
    "--first-number",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Game number of the first game (the n in classic-2026.10-n.xml).",
)
@jobs_option
@library_errors
def generate(
    count: int,
    out: str,
    variant: str,
    seed: int,
    period: str,
    first_number: int,
    jobs: int | None,
) -> None:
    """Generate synthetic games (human-like setups, a simple policy) as Gravon XML.

    Every game is replayed by the engine and valid before it is written; the output is
    written atomically and is the same for any --jobs. The games are synthetic: see
    docs/generator.md.

    \b
    Example:
      strat-tools generate -n 300 -o strados2026-10.zip --seed 1
      strat-tools generate -n 50 -o games/ --variant classic=8,barrage=1,duell=1
    """
    import time

    from strat_tools.generate import generate_files, parse_period, parse_variant_mix
    from strat_tools.writer import write_files

    mix = parse_variant_mix(variant)
    year, month = parse_period(period)
    started = time.perf_counter()
    with progress_bar(count, "Generating") as update:
        files = generate_files(
            count,
            variant=mix,
            seed=seed,
            year=year,
            month=month,
            first_number=first_number,
            jobs=jobs,
            progress=update,
        )
        written = write_files(files, out)
    message(f"Wrote {written} games to {out} in {time.perf_counter() - started:.1f} s.")


# ---------------------------------------------------------------------------------------
# export and stats (owner: tables)
# ---------------------------------------------------------------------------------------


def _units_or_dataset(paths: Sequence[str]) -> int:
    """How many record files ``paths`` name (dataset folders count 0); error when nothing."""
    from strat_tools.dataset import is_dataset
    from strat_tools.sources import count_units

    records = [p for p in paths if not is_dataset(p)]
    count = count_units(records) if records else 0
    if records and not count and len(records) == len(paths):
        raise click.ClickException(f"no game records found in {' '.join(paths)}")
    return count


@main.command()
@paths_argument
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder for games, setups, moves and diagnostics (created if needed).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["parquet", "csv"]),
    default="parquet",
    show_default=True,
    help="One NAME.parquet or NAME.csv file per table.",
)
@click.option(
    "--setups-only",
    is_flag=True,
    help="No replay: games and setups only (much faster; games are not called valid).",
)
@rules_option
@jobs_option
@dask_options
@library_errors
def export(
    paths: tuple[str, ...],
    out: str,
    fmt: str,
    setups_only: bool,
    rules: str,
    jobs: int | None,
    dask: bool,
    dask_address: str | None,
) -> None:
    """Export games as tables (games, setups, moves, diagnostics) for pandas, DuckDB, Dask.

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
    from strat_tools.dataset import export_dataset
    from strat_tools.tables import check_rules

    check_rules(rules)
    total = _units_or_dataset(paths)
    with progress_bar(total, "exporting") as update:
        summary = export_dataset(
            list(paths),
            out,
            format=fmt,
            setups_only=setups_only,  # type: ignore[arg-type]
            rules=rules,
            jobs=jobs,
            dask=dask or bool(dask_address),
            dask_address=dask_address,
            progress=update,
        )
    message(str(summary))
    if summary.invalid:
        message(f"{summary.invalid:,} invalid games are in the tables with their diagnostics.")


@main.command()
@paths_argument
@click.option(
    "--stat",
    "stat",
    default="flag",
    show_default=True,
    metavar="NAME",
    help="Statistic: flag, bombs, placement, rows, columns, bombs-next-to-flag, "
    "flag-enclosed, win-rate, endings, lengths, scouts, scout-distances, "
    "scout-attacks, first-scout, scouts-left.",
)
@click.option(
    "--by",
    "by",
    multiple=True,
    type=click.Choice(["variant", "period", "year", "side", "result", "won"]),
    help="Group by this column (repeatable).",
)
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="VARIANT",
    help="Only these variants (repeatable; default: all but classicfree for setups).",
)
@click.option(
    "--piece",
    default="flag",
    show_default=True,
    help="Piece for placement, rows and columns (flag, bomb, spy, scout, ...).",
)
@click.option(
    "--feature",
    default="flag_back_row",
    show_default=True,
    help="Setup feature for win-rate: flag_back_row, flag_corner, flag_edge_column, "
    "flag_enclosed, bombs_next_to_flag.",
)
@click.option(
    "--include-classicfree",
    is_flag=True,
    help="Count classicfree setups too (any army on any square).",
)
@format_option()
@rules_option
@jobs_option
@dask_options
@library_errors
def stats(
    paths: tuple[str, ...],
    stat: str,
    by: tuple[str, ...],
    variants: tuple[str, ...],
    piece: str,
    feature: str,
    include_classicfree: bool,
    fmt: str,
    rules: str,
    jobs: int | None,
    dask: bool,
    dask_address: str | None,
) -> None:
    """Setup and move statistics as a table: placement, bombs, scouts, endings, win rates.

    Setup statistics read setups only (no replay). PATHS may be records or a folder written
    by 'strat-tools export' (read without parsing anything).

    \b
    Example:
      strat-tools stats ../gravon/ --stat rows --variant classic --by period
      strat-tools stats tables/ --stat win-rate --feature flag_corner --format csv
    """
    from strat_tools import stats as statistics
    from strat_tools.stats.stream import compute_streaming
    from strat_tools.tables import check_rules

    if stat not in statistics.STATISTICS:
        raise click.BadParameter(
            f"unknown statistic {stat!r}; choose from {', '.join(statistics.STATISTICS)}",
            param_hint="--stat",
        )
    check_rules(rules)
    options: dict[str, Any] = {
        "by": list(by) or None,
        "variant": list(variants) or None,
        "piece": piece,
        "feature": feature,
        "include_classicfree": include_classicfree,
    }
    run: dict[str, Any] = {
        "jobs": jobs,
        "dask": dask or bool(dask_address),
        "dask_address": dask_address,
    }
    total = _units_or_dataset(paths)
    with progress_bar(total, "reading") as update:
        # Reduced batch by batch in the workers: memory does not grow with the input.
        table = compute_streaming(stat, list(paths), rules=rules, **options, **run, progress=update)
    render(table, fmt)


# ---------------------------------------------------------------------------------------
# advice (owner: advice)
# ---------------------------------------------------------------------------------------


@main.command()
@paths_argument
@click.option(
    "--variant",
    default="classic",
    show_default=True,
    type=click.Choice(["classic", "barrage", "duell", "ultimate lightning", "all"]),
    help="Variant with a fixed army ('all': each of them, one group per variant).",
)
@click.option(
    "--view",
    default="tips",
    show_default=True,
    type=click.Choice(["tips", "periods", "adjacency", "entropy", "catalogue"]),
    help="tips: adoption, win rates and head-to-head per tip; periods: adoption per "
    "month; adjacency: kinds side by side against chance; entropy: how predictable "
    "each kind's square is; catalogue: the tips' source sentences and definitions.",
)
@format_option(("table", "csv", "json"))
@jobs_option
@library_errors
def advice(paths: tuple[str, ...], variant: str, view: str, fmt: str, jobs: int | None) -> None:
    """Put the rulebooks' setup tips to the test on real setups (reads setups only).

    For each tip of the seed rule texts (flag sealed by bombs, decoy corner, few front-row
    bombs, spy next to the general, ...): how many setups follow it, and the win rate of
    those that do against those that do not, with Wilson 95% intervals. Draws are left
    out; invalid games too. See docs/advice.md for the definitions and what such a
    comparison can and cannot show.

    \b
    Example:
      strat-tools advice ../gravon/
      strat-tools advice ../gravon/ --variant barrage --view entropy --format csv
    """
    from strat_tools.advice import advice_table_of_paths, tip_catalogue
    from strat_tools.stats.stream import Tally

    if view == "catalogue":
        render(tip_catalogue(), fmt)
        return
    total = _units_or_dataset(paths)
    chosen = None if variant == "all" else variant
    # Tip, neighbour and placement counts add up: counted batch by batch, flat memory.
    tally = Tally()
    with progress_bar(total, "reading") as update:
        table = advice_table_of_paths(
            list(paths), view, chosen, jobs=jobs, progress=update, tally=tally
        )
    if not tally.readable or table.empty:
        raise click.ClickException(f"no setups found in {' '.join(paths)}")
    render(table.round(3) if fmt == "table" else table, fmt)


# ---------------------------------------------------------------------------------------
# heatmap and report (owner: plots)
# ---------------------------------------------------------------------------------------

PIECE_CHOICES = (
    "flag",
    "bomb",
    "spy",
    "scout",
    "miner",
    "sergeant",
    "lieutenant",
    "captain",
    "major",
    "colonel",
    "general",
    "marshal",
    "all",
)
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


def _require_readable(tally: Any, paths: Sequence[str]) -> None:
    """Stop with the reader's own reason when not one input could be read (``tally``: what
    a streamed pass read, :class:`strat_tools.stats.stream.Tally`)."""
    if tally.readable:
        return
    detail = "; ".join(tally.reasons) or "no game records found"
    raise click.ClickException(f"nothing readable in {' '.join(paths)}: {detail}")


def _source_label(paths: Sequence[str]) -> str:
    """A short 'source: ...' line for figure titles."""
    text = ", ".join(paths)
    return "source: " + (text if len(text) <= 60 else text[:57] + "...")


@main.command()
@paths_argument
@click.option(
    "--piece",
    default="flag",
    show_default=True,
    type=click.Choice(PIECE_CHOICES),
    help="Piece to map; 'all' draws the twelve kinds as small multiples.",
)
@click.option(
    "--variant",
    default="classic",
    show_default=True,
    type=click.Choice(["classic", "barrage", "duell", "ultimate lightning"]),
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
    type=click.Choice(["path", "target", "battle"]),
    help="Draw the whole board from the moves instead (replays the games): squares "
    "the piece passed (path), moved to (target), or battles there (--piece all: any).",
)
@click.option(
    "--view",
    default="board",
    show_default=True,
    type=click.Choice(["board", "owner"]),
    help="With --moves: board (as red sees it) or owner (blue's moves turned 180°, "
    "so every mover plays up the board).",
)
@click.option(
    "--numbering",
    default="modern",
    show_default=True,
    type=click.Choice(["modern", "classic"]),
    help="Rank labels: modern (10 = marshal) or classic (1 = marshal, 9 = scout).",
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
@jobs_option
@library_errors
def heatmap(
    paths: tuple[str, ...],
    piece: str,
    variant: str,
    side: str,
    by: str | None,
    measure: str | None,
    view: str,
    numbering: str,
    title: str | None,
    out: str,
    jobs: int | None,
) -> None:
    """Draw where a piece stands in the setups (owner's view, back row at the bottom).

    Each cell is annotated with the percentage of setups that have the piece there; the
    title names n. With --moves, draw the 10x10 board with the lakes instead: where scouts
    travel, where battles happen.

    \b
    Example:
      strat-tools heatmap ../gravon/ --piece flag -o flag.png
      strat-tools heatmap ../gravon/ --piece all --side blue -o pieces.svg
      strat-tools heatmap ../gravon/ --piece bomb --by won -o bombs-won.pdf
      strat-tools heatmap ../gravon/ --piece scout --moves path --view owner -o scouts.png
      strat-tools heatmap ../gravon/ --piece scout --moves target --numbering classic -o s.png
    """
    from strat_tools import plots
    from strat_tools.stats.stream import Tally, compute_many_streaming

    if not out.lower().endswith(FIGURE_SUFFIXES):
        raise click.BadParameter("the file must end in .png, .svg or .pdf", param_hint="-o")
    label = title or _source_label(paths)
    drawing: dict[str, Any] = {
        "variant": variant,
        "side": side,
        "by": by,
        "numbering": numbering,
        "title": f"{variant}, {label}",
    }
    total = _units_or_dataset(paths)
    # Both kinds of map are counts: made batch by batch, flat memory at any size.
    tally = Tally()
    with progress_bar(total, "reading") as update:
        if measure is None:
            requests = plots.setup_heatmap_requests(piece, side=side, by=by)
            tables = compute_many_streaming(
                [
                    ("placement", {"piece": p, "by": list(keys), "variant": variant})
                    for p, keys in requests
                ],
                list(paths),
                jobs=jobs,
                progress=update,
                tally=tally,
            )
        else:
            traffic = plots.traffic_of_paths(
                list(paths),
                variant=variant,
                side=side,
                piece=None if piece == "all" else piece,
                measure=measure,  # type: ignore[arg-type]
                view=view,
                jobs=jobs,
                progress=update,
                tally=tally,  # type: ignore[arg-type]
            )
    _require_readable(tally, paths)
    if measure is None:
        fig = plots.setup_heatmap_from_placements(
            dict(zip(requests, tables, strict=True)), piece, **drawing
        )
    else:
        fig = plots.traffic_figure(
            traffic,
            piece=None if piece == "all" else piece,
            measure=measure,  # type: ignore[arg-type]
            view=view,
            title=f"{variant}, {label}",
            numbering=numbering,  # type: ignore[arg-type]
        )
    plots.save_figure(fig, out)
    message(f"Wrote {out}.")


@main.command()
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
    type=click.Choice(["html", "md"]),
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
    type=click.Choice(["modern", "classic"]),
    help="Ranks in figures and tables: modern (10 = marshal, 1 = spy) or classic "
    "(1 = marshal, 9 = scout, S = spy).",
)
@rules_option
@jobs_option
@library_errors
def report(
    paths: tuple[str, ...],
    out: str,
    fmt: str | None,
    title: str,
    setups_only: bool,
    numbering: str,
    rules: str,
    jobs: int | None,
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
    from strat_tools.report import report_inputs_of_paths, write_report
    from strat_tools.stats.stream import Tally
    from strat_tools.tables import check_rules

    if not setups_only:
        check_rules(rules)
    total = _units_or_dataset(paths)
    # Each batch is reduced where it is read (counts, a few values a game), so memory does
    # not grow with the setups and moves of the input.
    tally = Tally()
    with progress_bar(total, "reading") as update:
        data = report_inputs_of_paths(
            list(paths),
            setups_only=setups_only,
            rules=rules,
            jobs=jobs,
            progress=update,
            tally=tally,
        )
    _require_readable(tally, paths)
    message(f"Read {len(data.games):,} games; writing the report...")
    write_report(data, out, fmt, title=title, numbering=numbering)  # type: ignore[arg-type]
    message(f"Wrote {out}.")


# ---------------------------------------------------------------------------------------
# show and rules (the replay engine)
# ---------------------------------------------------------------------------------------


@main.command()
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
    help="Which game, when FILE holds several (a zip): e.g. classic-2014.5-2245.",
)
@click.option(
    "--numbering",
    type=click.Choice(["modern", "classic", "names"]),
    default="modern",
    show_default=True,
    help="modern: 10 = Marshal, 1 = Spy; classic: 1 = Marshal, 9 = Scout, S = Spy.",
)
@rules_option
@library_errors
def show(path: str, ply: int | None, game_id: str | None, numbering: str, rules: str) -> None:
    """Print the board of one game after a move, with the last move and any battle marked.

    Red pieces read rNN, blue ones bNN; + marks the last move's square of departure, * its
    arrival, ! a battle. Any diagnostics of the replay follow the board.

    \b
    Example:
      strat-tools show classic-2014.5-2245.xml --ply 40
      strat-tools show strados2014-5.zip --game classic-2014.5-2245 --numbering classic
    """
    from strat_tools.gravon import read_records
    from strat_tools.replay import replay
    from strat_tools.replay import show as show_board

    records = [r for r in read_records([path]) if game_id is None or r.game_id == game_id]
    if not records:
        raise click.ClickException(f"no game {game_id or ''} in {path}".replace("  ", " "))
    if len(records) > 1:
        raise click.ClickException(
            f"{path} holds {len(records)} games; pick one with --game "
            f"(e.g. --game {records[0].game_id})"
        )
    record = records[0]
    click.echo(show_board(record, ply, numbering=numbering, rules=rules))  # type: ignore[arg-type]
    for diag in (*record.diagnostics, *replay(record, rules).diagnostics):
        message(str(diag))


@main.command(name="rules")
@format_option()
def rules_command(fmt: str) -> None:
    """List the named rule sets; any of them takes options after '+'.

    Options: aggressor, silent, rescue, onetimebombs, chasing, chasing-warn, scoutclause,
    strict, limit3, limit5, nolimit. See docs/rules-findings.md for the evidence behind them.

    \b
    Example:
      strat-tools rules
      strat-tools validate games/ --rules gravon-2013+aggressor
    """
    from strat_tools.rules import ruleset_rows

    render(ruleset_rows(), fmt)
