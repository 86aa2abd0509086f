"""A validation run streamed as one document: every verdict written as it comes, in the
``validate`` command's formats, memory flat however many games.

:func:`write_validation` is ``strat-tools validate`` as one library call (a notebook or a
script writes the same document to any text stream): a ``table`` of problems and the
summary, a ``json`` document (``{"games": [...], "summary": {...}}``; a run that fails
half-way still ends as valid JSON, with an ``"error"`` key and no summary), ``jsonl`` (one
verdict a line) or ``csv`` (one row a diagnostic). It returns the summary and the run's
tally; what to say on stderr and the exit code are the caller's.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from typing import Final, TextIO

from strat_tools.core.errors import NothingReadable, UsageError
from strat_tools.core.text import csv_cell, printable_lines
from strat_tools.exports.validate import (
    CSV_COLUMNS,
    GameVerdict,
    Summary,
    csv_rows,
    iter_verdicts,
    problem_lines,
)
from strat_tools.io.sources import matches_nothing
from strat_tools.run.batch_work import Select
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg
from strat_tools.run.tally import Tally

__all__ = ["VALIDATION_FORMATS", "StreamedValidation", "write_validation"]

VALIDATION_FORMATS: Final = ("table", "json", "jsonl", "csv")
"""The documents :func:`write_validation` writes."""


@dataclass(frozen=True, slots=True)
class StreamedValidation:
    """What a streamed validation counted: the verdicts' summary and the run's tally
    (games read, left out by the filters, synthetic ...)."""

    summary: Summary
    tally: Tally


class _Document:
    """The document being written: its head goes out with the first verdict (no game at
    all leaves ``out`` empty), then one verdict at a time."""

    def __init__(self, out: TextIO, fmt: str, quiet: bool, verbose: bool) -> None:
        self.out, self.fmt, self.quiet, self.verbose = out, fmt, quiet, verbose
        self.writer = csv.writer(out, lineterminator="\n")
        self.started = False
        self.written = 0

    def begin(self) -> None:
        if self.started:
            return
        self.started = True
        if self.fmt == "json":
            self.out.write('{"games": [')
        elif self.fmt == "csv":
            self.writer.writerow(CSV_COLUMNS)

    def add(self, verdict: GameVerdict) -> None:
        self.begin()
        self.written += 1
        out, fmt = self.out, self.fmt
        if fmt == "table" and not self.quiet:
            lines = problem_lines(verdict, verbose=self.verbose)
            out.writelines(printable_lines(line) + "\n" for line in lines)
        elif fmt == "jsonl":
            out.write(json.dumps(verdict.to_dict()) + "\n")
        elif fmt == "json":
            out.write(("\n" if self.written == 1 else ",\n") + json.dumps(verdict.to_dict()))
        elif fmt == "csv":
            self.writer.writerows([csv_cell(c) for c in row] for row in csv_rows(verdict))

    def end(self, summary: Summary, tally: Tally) -> None:
        self.begin()
        out = self.out
        if self.fmt == "json":
            # Every command says when games are synthetic; here the summary says how many.
            totals = {**summary.to_dict(), "synthetic": tally.synthetic}
            out.write('\n], "summary": ' + json.dumps(totals) + "}\n")
        elif self.fmt == "table":
            out.write(summary.line() + "\n")
            if self.verbose or not self.quiet:
                by_count = sorted(summary.by_code.items(), key=lambda kv: (-kv[1], kv[0]))
                for code, count in by_count:
                    out.write(f"  {count:>7}  {code}\n")

    def fail(self, exc: BaseException) -> None:
        """``out`` stays one valid JSON document, marked as failed; a usage error (a rule
        set refused before any work) leaves it empty, as no game records at all does."""
        if self.fmt == "json" and not isinstance(exc, UsageError):
            self.begin()
            reason = str(exc) or exc.__class__.__name__
            self.out.write('\n], "error": ' + json.dumps(reason) + "}\n")


def write_validation(
    paths: InputsArg,
    out: TextIO,
    *,
    fmt: str = "json",
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
    quiet: bool = False,
    verbose: bool = False,
) -> StreamedValidation:
    """Validate ``paths`` (files, folders, globs, zips, dataset folders) and write every
    verdict to ``out`` as it comes, as one document in ``fmt`` (:data:`VALIDATION_FORMATS`;
    ``quiet``: the table's summary only, ``verbose``: info diagnostics too).

    Paths naming nothing, or filters keeping none, raise
    :class:`~strat_tools.core.errors.NothingToRead` (nothing written, or for ``json`` a
    document marked failed).

    >>> import io
    >>> shown = io.StringIO()
    >>> done = write_validation("tests/fixtures/gravon/classic-2014.4-17.xml", shown, run=1)
    >>> done.summary.clean, shown.getvalue()[:40]
    (True, '{"games": [\\n{"source": "tests/fixtures/g')
    """
    if fmt not in VALIDATION_FORMATS:
        raise UsageError(f"unknown format {fmt!r}; expected {', '.join(VALIDATION_FORMATS)}")
    inputs = Inputs.of(paths)  # resolved once: the run and the checks below take it
    listed = inputs.given
    summary = Summary()
    tally = Tally()
    document = _Document(out, fmt, quiet, verbose)
    try:
        for verdict in iter_verdicts(
            inputs,
            rules=rules,
            select=select,
            run=Run.of(run).with_tally(tally),
            skipped=summary.skipped,
        ):
            summary.add(verdict)
            document.add(verdict)
        # Paths naming nothing, or filters keeping none: as in every command. An input that
        # exists but cannot be read is validate's finding (a verdict).
        kept_none = bool(tally.dropped) and not tally.games
        if not tally.readable and (kept_none or all(map(matches_nothing, listed))):
            tally.require(listed, select)
    except BaseException as exc:
        document.fail(exc)
        raise
    if not summary.inputs:  # no game records at all: nothing written
        raise NothingReadable(listed)
    document.end(summary, tally)
    return StreamedValidation(summary, tally)
