"""``strat-tools validate``: read, check and replay every game, one verdict each."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import (
    format_option,
    game_filter_options,
    paths_argument,
    rules_option,
    run_options,
)
from strat_tools.cli.render import message, progress_bar, synthetic_note


@click.command()
@paths_argument
@format_option()
@rules_option
@run_options
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary (table format).")
@click.option("--verbose", "-v", is_flag=True, help="Also print info diagnostics (repairs).")
@game_filter_options
@library_errors
def validate(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    fmt: str,
    rules: str,
    run: Run,
    quiet: bool,
    verbose: bool,
) -> None:
    """Check that every game record is legal: read, check and replay each one.

    Every input game file (zip members included) is one entry: valid, invalid (with
    diagnostics naming file, member, XML line, ply and rule) or unchecked (with the reason).
    An exported dataset folder gives the verdicts its export recorded (the games table's
    status, the diagnostics table), its files checked against its marker; nothing replayed.
    Exit 0 when nothing is invalid, 1 when anything is, 2 for a usage error (nothing
    read), 3 when the run itself failed (then --format json still ends as valid JSON, with
    an "error" key and no summary).

    \b
    Example:
      strat-tools validate games/*.xml
      strat-tools validate ../gravon/strados2014-5.zip --format json
    """
    code = _run_validate(
        list(paths),
        select=game_filter if game_filter.active else None,
        fmt=fmt,
        rules=rules,
        run=run,
        quiet=quiet,
        verbose=verbose,
    )
    sys.exit(code)


def _run_validate(
    paths: list[str],
    *,
    select: Any,
    fmt: str,
    rules: str,
    run: Run,
    quiet: bool,
    verbose: bool,
) -> int:
    """Stream verdicts to stdout in ``fmt`` (the library's one call), then say the rest on
    stderr."""
    from strat_tools.exports.validation_stream import write_validation
    from strat_tools.run.inputs import Inputs

    # A dataset folder's verdicts are the ones its export recorded.
    inputs = Inputs.of(paths)  # resolved once: the check below and the run take it
    if rules != "auto" and any(item.kind == "dataset" for item in inputs):
        message(
            f"--rules {rules} applies to game records; a dataset folder's verdicts are "
            "those of its export"
        )
    # Streamed: the driver expands the inputs once (sizing the bar, when one is drawn).
    with progress_bar("validating") as update:
        done = write_validation(
            inputs,
            sys.stdout,
            fmt=fmt,
            rules=rules,
            select=select,
            run=run.with_progress(update),
            quiet=quiet,
            verbose=verbose,
        )
    summary, tally = done.summary, done.tally
    if fmt == "table" and not quiet:
        for entry in summary.skipped:
            where = entry.source + (f"!{entry.member}" if entry.member else "")
            message(f"{where}: skipped: {entry.reason}")
    elif fmt in ("jsonl", "csv"):  # json's summary is in the document
        message(summary.line())
    synthetic_note(tally)
    if select is not None:
        message(f"{tally.dropped:,} games left out by the filters")
    return 0 if summary.clean else 1
