"""``strat-tools validate``: read, check and replay every game, one verdict each."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from strat_tools.run.options import Run

from strat_tools.cli.errors import NoInput, library_errors
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
    game_filter: Any,
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
    """Stream verdicts to stdout in ``fmt`` (memory stays flat), then the summary."""
    import csv

    from strat_tools.core.errors import UsageError
    from strat_tools.core.text import csv_cell, printable_lines
    from strat_tools.exports.validate import (
        CSV_COLUMNS,
        Summary,
        csv_rows,
        iter_verdicts,
        problem_lines,
    )
    from strat_tools.io.sources import matches_nothing
    from strat_tools.run.inputs import Inputs
    from strat_tools.run.tally import Tally

    summary = Summary()
    tally = Tally()
    # A dataset folder's verdicts are the ones its export recorded.
    inputs = Inputs.of(paths)  # resolved once: the check below and the run take it
    if rules != "auto" and any(item.kind == "dataset" for item in inputs):
        message(
            f"--rules {rules} applies to game records; a dataset folder's verdicts are "
            "those of its export"
        )
    out = sys.stdout
    writer = csv.writer(out, lineterminator="\n")
    started = False

    def begin() -> None:
        """The document's head, written with the first verdict: no game records at all is a
        usage error that leaves stdout empty."""
        nonlocal started
        if started:
            return
        started = True
        if fmt == "json":
            out.write('{"games": [')
        elif fmt == "csv":
            writer.writerow(CSV_COLUMNS)

    try:
        # Streamed: the driver expands the inputs once (sizing the bar, when one is drawn).
        with progress_bar("validating") as update:
            for verdict in iter_verdicts(
                inputs,
                rules=rules,
                select=select,
                run=run.with_progress(update).with_tally(tally),
                skipped=summary.skipped,
            ):
                begin()
                summary.add(verdict)
                if fmt == "table" and not quiet:
                    lines = problem_lines(verdict, verbose=verbose)
                    out.writelines(printable_lines(line) + "\n" for line in lines)
                elif fmt == "jsonl":
                    out.write(json.dumps(verdict.to_dict()) + "\n")
                elif fmt == "json":
                    head = "\n" if summary.inputs == 1 else ",\n"
                    out.write(head + json.dumps(verdict.to_dict()))
                elif fmt == "csv":
                    writer.writerows([csv_cell(c) for c in row] for row in csv_rows(verdict))
        # Paths naming nothing, or filters keeping none: exit 2, as in every command. An
        # input that exists but cannot be read is validate's finding (exit 1, on stdout).
        kept_none = bool(tally.dropped) and not tally.games
        if not tally.readable and (kept_none or all(map(matches_nothing, paths))):
            tally.require(paths, select)
    except BaseException as exc:
        # stdout stays one valid JSON document, marked as failed; a usage error (a rule set
        # refused before any work) leaves it empty, as no game records at all does
        if fmt == "json" and not isinstance(exc, UsageError):
            begin()
            reason = str(exc) or exc.__class__.__name__
            out.write('\n], "error": ' + json.dumps(reason) + "}\n")
        raise
    if not summary.inputs:
        raise NoInput(f"no game records found in {' '.join(paths)}")
    begin()
    if fmt == "json":
        # Every command says when games are synthetic; here the summary says how many.
        totals = {**summary.to_dict(), "synthetic": tally.synthetic}
        out.write('\n], "summary": ' + json.dumps(totals) + "}\n")
    elif fmt == "table":
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
    synthetic_note(tally)
    if select is not None:
        message(f"{tally.dropped:,} games left out by the filters")
    return 0 if summary.clean else 1
