"""Run per-batch work over many game files: in process, on a process pool, or on Dask.

Work is split across files and zip members (never inside a game): :func:`map_batches` cuts
the stream of :class:`~strat_tools.io.sources.Unit` into contiguous batches, runs a top-level
function on each batch and yields the results **in input order**, whatever the number of
workers. At most a few batches per worker are in flight, so memory stays flat however long
the input is, and callers can write results as they arrive.

The function must be picklable (a module-level function, or ``functools.partial`` of one)
and should return compact results (Arrow tables, counts, small summaries), never decoded
move lists: shipping those between processes costs as much as replaying them.

Past one machine the same function runs on ``dask.distributed`` (``dask=True``): a local
cluster by default, or the scheduler at ``dask_address``. The workers then read the input
paths themselves: each unit carries the absolute path this process resolved
(:class:`strat_tools.run.inputs.Inputs`), so a worker started in another folder opens the
same file; on a real cluster the paths must be visible to every worker (a shared file
system), and a worker that cannot see one stops the run saying so
(:func:`check_visible`), never a run of "unreadable" games. The local cluster's workers
die with this process, as the pool's do (:func:`strat_tools.run.processes.
dask_worker_options`); a remote cluster's are its own. This module does no scheduling of its
own beyond the ordered window.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import chain, islice
from typing import Any, TypeVar

from strat_tools.core.errors import RunError
from strat_tools.io.sources import Unit
from strat_tools.run.options import ProgressCallback, Run, RunArg
from strat_tools.run.processes import (
    WorkerFailure,
    WorkerPool,
    available_cores,
    cap_jobs,
    dask_worker_options,
)

T = TypeVar("T")
U = TypeVar("U")
"""An item of work: usually a :class:`~strat_tools.io.sources.Unit` (one game file)."""


class PipelineError(RunError):
    """The parallel machinery itself failed (not a bad game: those are data)."""


def default_jobs() -> int:
    """All cores this process may use."""
    return available_cores()


_MAX_BATCH: int = 200
"""Units per batch at most: enough to amortise process overhead and open each zip once."""


def _batch_size(count: int, jobs: int, max_batch: int, min_batch: int = 1) -> int:
    """About eight batches a worker, within ``max_batch``; at least ``min_batch`` units a
    batch unless that would leave a worker without one."""
    spread = -(-count // (jobs * 8))
    floor = min(min_batch, -(-count // jobs))
    return max(1, min(max_batch, max(spread, floor)))


def iter_batches(
    units: Iterable[U],
    jobs: int,
    batch_size: int | None = None,
    max_batch: int | None = None,
    min_batch: int = 1,
) -> Iterator[list[U]]:
    """Contiguous batches, small enough to balance ``jobs`` workers, large enough to amortise
    process overhead (and to open each zip once per batch), cut from a stream as it goes.

    The batch size depends on how many units there are only while there are few (fewer than
    ``jobs * 8`` full batches); so only that many units are read ahead to decide it, and a
    long input is never held whole. ``max_batch`` (default 200) caps the batch size;
    ``min_batch`` keeps a short input from being cut finer than work with a fixed cost a
    call wants (while every worker still gets a batch).

    >>> [len(b) for b in iter_batches(range(400), jobs=1)]
    [50, 50, 50, 50, 50, 50, 50, 50]
    >>> [len(b) for b in iter_batches(range(400), jobs=1, max_batch=1000, min_batch=500)]
    [400]
    >>> [len(b) for b in iter_batches(range(400), jobs=2, max_batch=1000, min_batch=500)]
    [200, 200]
    """
    stream = iter(units)
    if batch_size is None:
        most = max_batch or _MAX_BATCH
        ahead = list(islice(stream, jobs * 8 * most))
        batch_size = _batch_size(len(ahead), jobs, most, min_batch)
        stream = chain(ahead, stream)
        del ahead
    while batch := list(islice(stream, batch_size)):
        yield batch


def map_batches(
    func: Callable[[list[U]], T],
    units: Iterable[U],
    *,
    run: RunArg = None,
    batch_size: int | None = None,
    max_batch: int | None = None,
    min_batch: int = 1,
) -> Iterator[T]:
    """Yield ``func(batch)`` for consecutive batches of ``units``, in input order.

    ``units`` may be a lazy stream (:func:`~strat_tools.io.sources.iter_units`): it is consumed
    as the work goes, a few batches ahead, so memory does not grow with the input.
    ``run`` says where (a :class:`~strat_tools.run.options.Run`, or a number of processes):
    ``None`` uses every core; ``run=1`` runs in this process (no pickling at all);
    more jobs than cores are capped at the cores (a local pool: no more workers than batches
    either). Workers die with this process, and stop at once when it is interrupted.

    >>> from strat_tools.io.sources import iter_units
    >>> counts = map_batches(len, iter_units(["data/"]), run=1)  # doctest: +SKIP
    """
    run = Run.of(run)
    progress = run.after_batch()  # the bar's count, then the caller's stop check
    n_jobs = default_jobs() if run.jobs is None else run.jobs
    if n_jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {n_jobs}")
    if not run.dask_address:  # a remote cluster has its own cores
        n_jobs = cap_jobs(n_jobs)
    batches = iter_batches(units, n_jobs, batch_size, max_batch, min_batch)
    if run.on_dask:
        yield from _map_dask(func, batches, n_jobs, run.dask_address, progress)
        return
    # A pool of at most one worker per batch: look at the first ``n_jobs`` batches to know.
    head = list(islice(batches, n_jobs)) if n_jobs > 1 else []
    if n_jobs == 1 or len(head) <= 1:
        for batch in chain(head, batches):
            result = func(batch)
            if progress is not None:
                progress(len(batch))
            yield result
    else:
        workers = len(head)
        yield from _map_pool(func, chain(head, batches), workers, n_jobs * 3, progress)


def _in_order(
    submit: Callable[[list[U]], Any],
    batches: Iterable[list[U]],
    window: int,
    progress: ProgressCallback | None,
) -> Iterator[T]:
    """Submit batches keeping at most ``window`` in flight; yield their results in order.

    ``submit`` returns a Dask future; a finished one is dropped as
    soon as its result is taken, so neither side holds results that were already yielded.
    """
    pending: deque[tuple[Any, int]] = deque()
    todo = iter(batches)
    for batch in todo:
        pending.append((submit(batch), len(batch)))
        if len(pending) >= window:
            break
    while pending:
        future, size = pending.popleft()
        result: T = future.result()
        del future
        for batch in todo:
            pending.append((submit(batch), len(batch)))
            break
        if progress is not None:
            progress(size)
        yield result


def _map_pool(
    func: Callable[[list[U]], T],
    batches: Iterable[list[U]],
    workers: int,
    window: int,
    progress: ProgressCallback | None,
) -> Iterator[T]:
    sizes: deque[int] = deque()

    def counted() -> Iterator[list[U]]:
        for batch in batches:
            sizes.append(len(batch))
            yield batch

    # The pool's one shutdown path: whatever ends this generator (Ctrl-C, SIGTERM, an error,
    # the caller no longer reading) kills and reaps the workers before it is left.
    with WorkerPool[list[U], T](workers) as pool:
        try:
            for result in pool.imap(func, counted(), window):
                if progress is not None:
                    progress(sizes.popleft())
                else:
                    sizes.popleft()
                yield result
        except WorkerFailure as exc:
            raise PipelineError(str(exc)) from exc


def check_visible(batch: Iterable[object], where: str = "this worker") -> None:
    """Stop with a :class:`PipelineError` when a unit of ``batch`` that the collecting
    process listed (its absolute ``path`` set, no ``error``) names a file this process
    cannot see: a Dask worker on
    another machine without the inputs, or one that was given paths it cannot resolve. The
    run's inputs must be at the same path on every worker; saying so beats reading nothing.

    >>> check_visible([Unit("g.zip", "a.xml", path="/nowhere/g.zip")], "tcp://w:1")
    Traceback (most recent call last):
    ...
    strat_tools.run.pipeline.PipelineError: the Dask worker tcp://w:1 cannot see \
/nowhere/g.zip, which the inputs name: every worker must see the inputs at the same path (a \
shared file system)
    """
    unseen = sorted(
        {
            unit.path
            for unit in batch
            if isinstance(unit, Unit)
            and unit.path is not None  # listed by the inputs' expansion (not made by hand)
            and unit.error is None
            and not os.path.exists(unit.path)
        }
    )
    if unseen:
        more = f" (and {len(unseen) - 1:,} more)" if len(unseen) > 1 else ""
        raise PipelineError(
            f"the Dask worker {where} cannot see {unseen[0]}{more}, which the inputs name: "
            "every worker must see the inputs at the same path (a shared file system)"
        )


def on_dask_worker(func: Callable[[list[U]], T], batch: list[U]) -> T:
    """``func(batch)`` on a Dask worker, once it has checked that it sees every input the
    batch opens (:func:`check_visible`)."""
    try:
        from dask.distributed import get_worker

        where = str(get_worker().address)
    except (ImportError, ValueError):
        where = "this worker"
    check_visible(batch, where)
    return func(batch)


def _map_dask(
    func: Callable[[list[U]], T],
    batches: Iterable[list[U]],
    jobs: int,
    address: str | None,
    progress: ProgressCallback | None,
) -> Iterator[T]:
    client, cluster = _dask_client(jobs, address)
    work = partial(on_dask_worker, func)
    try:
        yield from _in_order(
            lambda b: client.submit(work, b, pure=False), batches, max(4, jobs * 3), progress
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _dask_client(jobs: int, address: str | None) -> tuple[Any, Any]:
    try:
        from dask import distributed
    except ImportError as exc:
        raise PipelineError(
            "Dask is not installed: install the 'dist' extra "
            "(pip install 'strat-tools[dist]') to use --dask"
        ) from exc
    # dask.distributed has no type hints: hold its classes as Any.
    client_cls: Any = distributed.Client
    cluster_cls: Any = distributed.LocalCluster
    if address:
        try:
            return client_cls(address, timeout="10s"), None
        except (OSError, TimeoutError) as exc:
            raise PipelineError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
    cluster = cluster_cls(
        n_workers=jobs,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        **dask_worker_options(),  # its workers die with this process, as the pool's do
    )
    return client_cls(cluster), cluster
