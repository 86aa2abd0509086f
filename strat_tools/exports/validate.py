"""Validate many game files: read, check and replay each one, and account for every input.

:func:`iter_verdicts` streams one :class:`GameVerdict` per input game file (zip members
included), in input order, however many workers run; :func:`validate` collects them with a
:class:`Summary`. Every input is exactly one verdict: ``valid``, ``invalid`` (with the
diagnostics that say why, unreadable inputs included) or ``unchecked`` (with the reason).

An exported dataset folder among the paths gives the verdicts its export recorded
(:func:`dataset_verdicts`: each game's ``status``, ``rules`` and ``plies`` from its ``games``
table, its diagnostics from the ``diagnostics`` table), its files checked against the
folder's marker first; nothing is replayed (there are no records to replay).

This module renders nothing; the CLI formats verdicts as text, JSON, JSONL or CSV.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from strat_tools.core.records import Diagnostic, GameRecord, Severity, Status
from strat_tools.core.rules import check_rules, resolve_rules
from strat_tools.core.text import count_of
from strat_tools.engine.replays.replay import replay_safely
from strat_tools.io.sources import Skipped
from strat_tools.run.batch_work import Select
from strat_tools.run.driver import iter_tables, map_games
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg, check_select


@dataclass(frozen=True, slots=True)
class GameVerdict:
    """The outcome of validating one input game file."""

    source: str
    member: str | None
    game_id: str
    variant: str
    status: Status
    rules: str
    plies: int
    diagnostics: tuple[Diagnostic, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of one game in ``validate --format json``."""
        return {
            "source": self.source,
            "member": self.member,
            "game_id": self.game_id,
            "variant": self.variant,
            "status": self.status.value,
            "rules": self.rules,
            "plies": self.plies,
            "diagnostics": [diagnostic_dict(d) for d in self.diagnostics],
        }


CSV_COLUMNS = (
    "source",
    "member",
    "game_id",
    "variant",
    "status",
    "rules",
    "plies",
    "severity",
    "code",
    "line",
    "ply",
    "message",
)
"""``validate --format csv``: one row per diagnostic, or one row for a game without any."""


def csv_rows(verdict: GameVerdict) -> Iterator[list[Any]]:
    """A verdict's rows under :data:`CSV_COLUMNS`."""
    head = [
        verdict.source,
        verdict.member or "",
        verdict.game_id,
        verdict.variant,
        verdict.status.value,
        verdict.rules,
        verdict.plies,
    ]
    if not verdict.diagnostics:
        yield [*head, "", "", "", "", ""]
    for d in verdict.diagnostics:
        yield [*head, d.severity.value, d.code, d.line or "", d.ply or "", d.message]


def diagnostic_dict(diag: Diagnostic) -> dict[str, Any]:
    """A diagnostic as a JSON-ready dict."""
    return {
        "code": diag.code,
        "severity": diag.severity.value,
        "message": diag.message,
        "line": diag.line,
        "ply": diag.ply,
    }


@dataclass(slots=True, repr=False)
class Summary:
    """Counts over a validation run: games = valid + invalid + unchecked, always, and
    inputs = games + unreadable (inputs whose bytes could not be read are not games)."""

    files: set[str] = field(default_factory=set)
    games: int = 0
    unreadable: int = 0
    """Inputs whose bytes could not be read (missing, not a regular file, broken zip ...)."""
    by_status: Counter[str] = field(default_factory=Counter)
    by_variant: Counter[str] = field(default_factory=Counter)
    by_code: Counter[str] = field(default_factory=Counter)
    by_severity: Counter[str] = field(default_factory=Counter)
    skipped: list[Skipped] = field(default_factory=list)
    """Entries met in the inputs that are not game files (not counted as games)."""

    def add(self, verdict: GameVerdict) -> None:
        """Count one verdict."""
        self.by_status[verdict.status.value] += 1
        if verdict.status is Status.UNREADABLE:
            self.unreadable += 1
        else:
            self.files.add(verdict.source)
            self.games += 1
            self.by_variant[verdict.variant or "unknown"] += 1
        for diag in verdict.diagnostics:
            self.by_code[diag.code] += 1
            self.by_severity[diag.severity.value] += 1

    @property
    def valid(self) -> int:
        """Games that replayed clean."""
        return self.by_status[Status.VALID.value]

    @property
    def invalid(self) -> int:
        """Games with at least one error."""
        return self.by_status[Status.INVALID.value]

    @property
    def unchecked(self) -> int:
        """Games the engine could not check, with the reason in their diagnostics."""
        return self.by_status[Status.UNCHECKED.value]

    @property
    def inputs(self) -> int:
        """Every input counted: the games and the unreadable inputs."""
        return self.games + self.unreadable

    @property
    def clean(self) -> bool:
        """Whether no game is invalid and every input could be read."""
        return self.invalid == 0 and self.unreadable == 0

    @property
    def accounted(self) -> bool:
        """Whether every input is counted exactly once."""
        return self.games == self.valid + self.invalid + self.unchecked

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of the summary."""
        return {
            "files": len(self.files),
            "games": self.games,
            "valid": self.valid,
            "invalid": self.invalid,
            "unchecked": self.unchecked,
            "unreadable": self.unreadable,
            "variants": dict(sorted(self.by_variant.items())),
            "diagnostics": dict(sorted(self.by_code.items())),
            "severities": dict(sorted(self.by_severity.items())),
            "skipped": [
                {"source": s.source, "member": s.member, "reason": s.reason} for s in self.skipped
            ],
        }

    def __repr__(self) -> str:
        return f"<Summary {self.line()}>"

    def line(self) -> str:
        """One-line human summary."""
        text = (
            f"{count_of(self.games, 'game')} in {count_of(len(self.files), 'file')}: "
            f"{self.valid:,} valid, {self.invalid:,} invalid, {self.unchecked:,} unchecked"
        )
        if self.unreadable:
            unreadable = count_of(self.unreadable, "unreadable input")
            text += f"; {unreadable} (not counted as games)"
        if self.skipped:
            text += (
                f" ({count_of(len(self.skipped), 'non-game entry', 'non-game entries')} skipped)"
            )
        return text


def verdict_for(record: GameRecord, rules: str | None = "auto") -> GameVerdict:
    """Replay one read record and judge it."""
    result = replay_safely(record, resolve_rules(rules, record)) if record.readable else None
    if result is None:  # unreadable, or the engine failed (an internal.replay error)
        return GameVerdict(
            record.source,
            record.member,
            record.game_id,
            record.variant,
            Status.UNREADABLE if record.unreadable_input else Status.INVALID,
            "",
            record.plies,
            tuple(record.diagnostics),
        )
    return GameVerdict(
        record.source,
        record.member,
        record.game_id,
        record.variant,
        result.status,
        result.rules.name,
        record.plies,
        (*record.diagnostics, *result.diagnostics),
    )


def iter_verdicts(
    paths: InputsArg,
    *,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
    skipped: list[Skipped] | None = None,
) -> Iterator[GameVerdict]:
    """Stream one verdict per game under ``paths``, in input order (through the driver,
    :func:`strat_tools.run.driver.map_games`, which also decides which input is a dataset
    folder); a dataset folder's games as its export judged them (:func:`dataset_verdicts`).
    ``rules`` is checked when this is called, before any work
    (:func:`~strat_tools.core.rules.check_rules`)."""
    check_rules(rules)
    check_select(select)
    return _verdicts(Inputs.of(paths), rules, select, Run.of(run), skipped)


def _verdicts(
    paths: Inputs,
    rules: str | None,
    select: Select | None,
    run: Run,
    skipped: list[Skipped] | None,
) -> Iterator[GameVerdict]:
    # The driver decides which input is a dataset folder (its one decision, input_parts).
    yield from map_games(
        partial(verdict_for, rules=rules),
        paths,
        select=select,
        run=run,
        skipped=skipped,
        on_dataset=partial(dataset_verdicts, select=select, run=run),
    )


_VERDICT_COLUMNS = ("game_id", "source", "member", "variant", "status", "rules", "plies")
_DIAGNOSTIC_COLUMNS = ("game_id", "code", "severity", "message", "line", "ply")


def dataset_verdicts(
    folder: InputsArg, *, select: Select | None = None, run: RunArg = None
) -> Iterator[GameVerdict]:
    """The verdicts an exported dataset folder holds, batch by batch: one per row of its
    ``games`` table, with that game's rows of its ``diagnostics`` table. The folder is read
    as every reader reads it (files checked against its marker; a damaged or incomplete
    one is refused with the file named), ``select`` keeps games as for records.
    """
    inputs = Inputs.of(folder)
    (shown,) = inputs.given
    for tables in iter_tables(inputs, select=select, run=run):
        found: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in tables["diagnostics"].select(list(_DIAGNOSTIC_COLUMNS)).to_pylist():
            found[row["game_id"]].append(row)
        for game in tables["games"].select(list(_VERDICT_COLUMNS)).to_pylist():
            source, member = game["source"] or shown, game["member"]
            yield GameVerdict(
                source,
                member,
                game["game_id"],
                game["variant"] or "",
                Status(game["status"]),
                game["rules"] or "",
                game["plies"] or 0,
                tuple(
                    Diagnostic(
                        row["code"],
                        Severity(row["severity"]),
                        row["message"] or "",
                        source,
                        member,
                        line=row["line"],
                        ply=row["ply"],
                    )
                    for row in found.get(game["game_id"], ())
                ),
            )


@dataclass(slots=True, repr=False)
class ValidationReport:
    """Every verdict of a run and their summary; its repr is one line, however many games.

    >>> report = validate("tests/fixtures/gravon/classic-2014.4-17.xml", run=1)
    >>> report  # doctest: +ELLIPSIS
    <ValidationReport 1 game... in 1 file: 1 valid, 0 invalid, 0 unchecked>
    """

    def __repr__(self) -> str:
        return f"<ValidationReport {self.summary.line()}>"

    summary: Summary
    games: list[GameVerdict]

    @property
    def ok(self) -> bool:
        """True when no game is invalid and every input could be read."""
        return self.summary.clean

    def to_dict(self) -> dict[str, Any]:
        """``{"summary": ..., "games": [...]}``, as ``validate --format json`` prints it."""
        return {"summary": self.summary.to_dict(), "games": [g.to_dict() for g in self.games]}


def validate(
    paths: InputsArg,
    *,
    rules: str | None = "auto",
    select: Select | None = None,
    run: RunArg = None,
) -> ValidationReport:
    """Validate files, folders, globs and zips; every input game is one verdict.

    >>> report = validate("data/")  # doctest: +SKIP
    >>> report.summary.line()  # doctest: +SKIP
    '400 games in 1 file: 400 valid, 0 invalid, 0 unchecked (1 non-game entry skipped)'
    """
    summary = Summary()
    games = []
    for verdict in iter_verdicts(
        paths,
        rules=rules,
        select=select,
        run=run,
        skipped=summary.skipped,
    ):
        summary.add(verdict)
        games.append(verdict)
    return ValidationReport(summary, games)


def problem_lines(verdict: GameVerdict, *, verbose: bool = False) -> Iterator[str]:
    """Text lines for a verdict's problems (errors and warnings; info too when verbose)."""
    for diag in verdict.diagnostics:
        if verbose or diag.severity is not Severity.INFO:
            yield str(diag)
