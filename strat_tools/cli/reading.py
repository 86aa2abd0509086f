"""What every analysis command does around its one library call: count the inputs for
the progress bar, run the call with the run options, and stop on nothing readable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from strat_tools.run.options import Run
from strat_tools.cli.errors import NoInput
from strat_tools.cli.render import message, progress_bar, synthetic_note

T = TypeVar("T")


def units_or_dataset(paths: Sequence[str]) -> int:
    """How many record files ``paths`` name (dataset folders count 0); error when nothing."""
    from strat_tools.io.sources import count_units
    from strat_tools.tables.dataset import is_dataset

    records = [p for p in paths if not is_dataset(p)]
    count = count_units(records) if records else 0
    if records and not count and len(records) == len(paths):
        raise NoInput(f"no game records found in {' '.join(paths)}")
    return count


def read_through(
    paths: Sequence[str],
    run: Run,
    work: Callable[[Run], T],
    *,
    label: str = "reading",
    require: bool = True,
) -> tuple[T, Any]:
    """What every analysis command does around its one library call: count the inputs (for
    the progress bar; nothing to read is an error), run ``work(run)`` with ``run`` reporting
    to the bar and counting into a new tally, stop with
    the reader's own reason when not one input was readable (``require``), and say on stderr
    how many games a per-game step failed on. Returns the call's result and the
    :class:`strat_tools.run.driver.Tally` it filled.
    """
    from strat_tools.run.driver import Tally

    total = units_or_dataset(paths)
    tally = Tally()
    with progress_bar(total, label) as update:
        result = work(run.with_progress(update).with_tally(tally))
    if require:
        require_readable(tally, paths)
    synthetic_note(tally)
    if tally.dropped:
        message(f"{tally.dropped:,} games left out by the filters")
    if tally.failed:
        message(
            f"{tally.failed:,} games could not be counted (invalid entries with an internal "
            f"error): {'; '.join(tally.failures)}"
        )
    return result, tally


def require_readable(tally: Any, paths: Sequence[str]) -> None:
    """Stop with the reader's own reason when not one input could be read (``tally``: what
    a streamed pass read, :class:`strat_tools.run.driver.Tally`)."""
    if tally.readable:
        return
    detail = "; ".join(tally.reasons) or "no game records found"
    raise NoInput(f"nothing readable in {' '.join(paths)}: {detail}")
