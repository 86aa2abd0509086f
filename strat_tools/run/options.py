"""One run's settings, as one frozen object: :class:`Run`.

Where the work runs (``jobs`` local processes, or Dask: a local cluster, or the scheduler at
``dask_address``), who hears of progress and which :class:`~strat_tools.run.tally.Tally`
counts what was read. The CLI builds one per command (``cli/options.py``'s ``run_options``
decorator). Every public function that runs work takes it by one keyword, ``run=``
(:data:`RunArg`): a :class:`Run`, or just a number, the one setting people set most, for
that many worker processes (``run=1``: in this process). Every function passes it on whole.

>>> run = Run.of(1)
>>> run.jobs, run.on_dask, Run.of(run) is run, Run.of(None).jobs
(1, False, True, None)
>>> Run(dask_address="tcp://127.0.0.1:8786").on_dask
True
>>> Run.of("2")
Traceback (most recent call last):
...
strat_tools.core.errors.UsageError: jobs (or run=) is a number of worker processes, ... got '2'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol, TypeAlias, runtime_checkable

from strat_tools.core.errors import UsageError
from strat_tools.run.tally import Tally

__all__ = ["ProgressCallback", "Run", "RunArg", "SizedProgress", "check_select"]

ProgressCallback = Callable[[int], None]
"""Called with the number of units just finished."""


@runtime_checkable
class SizedProgress(Protocol):
    """A progress callback that needs the total first (a bar). The driver calls
    :meth:`start` once, before any work, with the number of record files its one expansion
    of the inputs found (it then holds that list of units; for any other callback it
    streams them, never counting); then the callback with each batch's files."""

    def __call__(self, done: int, /) -> None: ...

    def start(self, total: int) -> None:
        """The number of record files the run will report, before the first of them."""


@dataclass(frozen=True)
class Run:
    """How a run executes: ``jobs`` worker processes (``None``: every core; more than the
    cores are capped), ``dask`` (or a ``dask_address``) to run the same per-file work on
    ``dask.distributed``, a ``progress`` callback (units finished), the ``tally`` that
    counts what was read (``None``: the caller does not ask) and ``stop``: called in the
    collecting process after every batch, whatever ``progress`` is, where what it raises
    ends the run (the command line's check that stdout's reader is still there: made in
    the run's own thread, so a stop never waits on another thread or a signal)."""

    jobs: int | None = None
    dask: bool = False
    dask_address: str | None = None
    progress: ProgressCallback | None = None
    tally: Tally | None = None
    stop: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        jobs = self.jobs
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
            raise UsageError(
                "jobs (or run=) is a number of worker processes, 1 or more, or None for every "
                f"core; got {jobs!r}"
            )

    @classmethod
    def of(cls, run: RunArg = None) -> Run:
        """``run`` as a Run: itself, a number of worker processes, or ``None`` for the
        default (every core, no Dask, no progress, no tally)."""
        if isinstance(run, Run):
            return run
        return cls() if run is None else cls(jobs=run)

    @property
    def on_dask(self) -> bool:
        """Whether the work goes to Dask (``dask``, or a scheduler address given)."""
        return self.dask or bool(self.dask_address)

    def counting(self) -> tuple[Run, Tally]:
        """This run with a tally for sure (its own, or a new one), and that tally."""
        if self.tally is not None:
            return self, self.tally
        tally = Tally()
        return replace(self, tally=tally), tally

    def with_tally(self, tally: Tally | None) -> Run:
        """This run counting into ``tally`` instead."""
        return replace(self, tally=tally)

    def with_progress(self, progress: ProgressCallback | None) -> Run:
        """This run reporting to ``progress`` instead."""
        return replace(self, progress=progress)

    def after_batch(self) -> ProgressCallback | None:
        """What the collecting process calls after each batch with its number of units:
        ``progress``, then ``stop`` (``None`` when neither is set)."""
        progress, stop = self.progress, self.stop
        if stop is None:
            return progress

        def after(done: int) -> None:
            if progress is not None:
                progress(done)
            stop()

        return after


RunArg: TypeAlias = Run | int | None
"""What a public function's ``run=`` takes: a :class:`Run`, a number of worker processes
(``run=1``: in this process; ``run=4``: four), or ``None`` (every core)."""


def check_select(select: object) -> None:
    """Refuse a ``select=`` that is not a game filter or a per-game predicate, where a
    public function is called, before any work (as :class:`Run` refuses a ``run=``): the
    same :class:`~strat_tools.core.errors.UsageError` in every function. ``None`` keeps
    every game; a :class:`~strat_tools.run.filters.GameFilter` and any callable taking a
    :class:`~strat_tools.core.records.GameRecord` are predicates.

    >>> check_select(None), check_select(len)
    (None, None)
    >>> check_select("variant=barrage")
    Traceback (most recent call last):
    ...
    strat_tools.core.errors.UsageError: select= is a per-game predicate (a GameFilter, such as \
GameFilter.parse(variant='barrage'), or a function of a GameRecord that returns True to keep \
the game) or None; got 'variant=barrage' (a str)
    """
    if select is None or callable(select):
        return
    shown = repr(select)
    shown = shown if len(shown) <= 60 else f"{shown[:57]}..."
    raise UsageError(
        "select= is a per-game predicate (a GameFilter, such as "
        "GameFilter.parse(variant='barrage'), or a function of a GameRecord that returns True "
        f"to keep the game) or None; got {shown} (a {type(select).__name__})"
    )
