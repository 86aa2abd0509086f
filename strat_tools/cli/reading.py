"""What every analysis command does around its one library call: run it with the run
options and a progress bar, and stop on nothing readable.

The inputs are the driver's alone (:mod:`strat_tools.run.driver`): it decides which is a
dataset folder and which are records, expands them once, and gives the bar its total from
that same expansion, only when a bar is drawn (:class:`~strat_tools.cli.render.Bar`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from strat_tools.run.options import Run
from strat_tools.cli.render import message, progress_bar, synthetic_note

T = TypeVar("T")


def read_through(
    paths: Sequence[str],
    run: Run,
    work: Callable[[Run], T],
    *,
    label: str = "reading",
    require: bool = True,
) -> tuple[T, Any]:
    """What every analysis command does around its one library call: run ``work(run)``
    with ``run`` reporting to a progress bar (sized by the driver) and counting into a new
    tally, stop with the reader's own reason when not one input was readable (``require``;
    no game records at all says so), and say on stderr how many games the filters left out
    and a per-game step failed on. Returns the call's result and the
    :class:`strat_tools.run.driver.Tally` it filled.
    """
    from strat_tools.run.tally import Tally

    tally = Tally()
    with progress_bar(label) as update:
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
    """Stop with the reader's own reason when not one input could be read, or with the
    count of games read when the filters kept none (``tally``: what a streamed pass read,
    :meth:`strat_tools.run.tally.Tally.require`, the one wording in every command)."""
    import click

    from strat_tools.cli.options import GAME_FILTER_KEY
    from strat_tools.core.errors import NothingReadable

    ctx = click.get_current_context(silent=True)
    tally.require(paths, ctx.meta.get(GAME_FILTER_KEY) if ctx is not None else None)
    if not tally.readable:  # kept games, none readable
        raise NothingReadable(paths, tally.reasons)
