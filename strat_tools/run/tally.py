"""What a run read: the :class:`Tally` every command fills as the input driver reads games.

Counted where the games are read (in the worker, per batch) and added up in the process
that collects the batches: games kept, how many were readable, how many a selection left
out, how many a per-game step failed on, and the first reasons of each. The CLI says all
of it on stderr (:func:`strat_tools.cli.reading.read_through`); nothing here reads files.

>>> tally = Tally(games=3, readable=2, reasons=["not a game record"])
>>> tally.add(Tally(games=1, readable=1, dropped=4))
>>> (tally.games, tally.readable, tally.dropped, tally.reasons)
(4, 3, 4, ['not a game record'])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import pyarrow as pa

    from strat_tools.core.records import GameRecord

MAX_REASONS: Final = 3
"""Reasons (unreadable games) and failures kept in a :class:`Tally`."""


@dataclass(slots=True)
class Tally:
    """What a run read: games kept, how many were readable, how many ``select`` dropped,
    how many a per-game step failed on, and the first reasons of each."""

    games: int = 0
    readable: int = 0
    dropped: int = 0
    failed: int = 0
    reasons: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    synthetic: int = 0
    """Games made by ``strat-tools generate`` (never played by people)."""

    def add(self, other: Tally) -> None:
        """Add a batch's tally."""
        self.games += other.games
        self.readable += other.readable
        self.dropped += other.dropped
        self.failed += other.failed
        self.synthetic += other.synthetic
        self.reasons += [r for r in other.reasons if r not in self.reasons][
            : MAX_REASONS - len(self.reasons)
        ]
        self.failures += other.failures[: MAX_REASONS - len(self.failures)]

    def count(self, tables: dict[str, pa.Table]) -> None:
        """Count a batch's games (and the reader's reasons for the unreadable ones)."""
        import pyarrow.compute as pc

        games = tables["games"]
        n_readable = int(pc.sum(games.column("readable")).as_py() or 0)
        self.games += games.num_rows
        self.readable += n_readable
        if "synthetic" in games.column_names:
            self.synthetic += int(pc.sum(games.column("synthetic")).as_py() or 0)
        if n_readable < games.num_rows and len(self.reasons) < MAX_REASONS:
            messages = tables["diagnostics"].column("message").to_pylist()
            for reason in dict.fromkeys(messages):
                self.reason(reason)

    def count_record(self, record: GameRecord) -> None:
        """Count one game as it was read (for work that builds no games table)."""
        from strat_tools.formats.readers import unreadable_reason

        self.games += 1
        self.synthetic += record.synthetic
        if record.readable:
            self.readable += 1
        else:
            self.reason(unreadable_reason(record))

    def reason(self, text: str) -> None:
        """Keep one more reason an input could not be read (the first few, once each)."""
        if len(self.reasons) < MAX_REASONS and text not in self.reasons:
            self.reasons.append(text)

    def require(self, paths: Iterable[str], select: object = None) -> None:
        """Stop a run that has nothing to show, the same way in every command: not one
        input readable (and no filter left a game out) is
        :class:`~strat_tools.core.errors.NothingReadable` with the reader's reasons;
        games read and the filters keeping none is
        :class:`~strat_tools.core.errors.NothingKept`, counting the games read and saying
        what ``select`` asks when it is a :class:`~strat_tools.run.filters.GameFilter`.

        >>> from strat_tools.run.filters import GameFilter
        >>> Tally(games=0, dropped=30).require(["g.zip"], GameFilter.parse(variant="duell"))
        Traceback (most recent call last):
        ...
        strat_tools.core.errors.NothingKept: 30 games read in g.zip; the filters (duell) kept none
        """
        from strat_tools.core.errors import NothingKept, NothingReadable
        from strat_tools.run.filters import GameFilter

        if self.readable or (self.dropped and self.games):  # kept games, unreadable: shown
            return
        if self.dropped:
            chosen = isinstance(select, GameFilter) and select.active
            filters = select.describe() if isinstance(select, GameFilter) and chosen else ""
            raise NothingKept(list(paths), self.dropped, filters)
        raise NothingReadable(list(paths), self.reasons)

    def fail(self, message: str) -> None:
        """Count one game a per-game step failed on (``message`` names it and the error)."""
        self.failed += 1
        if len(self.failures) < MAX_REASONS:
            self.failures.append(message)


def failure_line(record: GameRecord, code: str, exc: BaseException) -> str:
    """``file!member: [code] Error: message``, for a game a per-game step failed on."""
    where = record.source if record.member is None else f"{record.source}!{record.member}"
    return f"{where}: [{code}] {type(exc).__name__}: {exc}"
