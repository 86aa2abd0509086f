"""Run per-batch work over many game files: in process, on a process pool, or on Dask.

Work is split across files and zip members (never inside a game): :func:`map_batches` cuts
the list of :class:`~strat_tools.sources.Unit` into contiguous batches, runs a top-level
function on each batch and yields the results **in input order**, whatever the number of
workers. At most a few batches per worker are in flight, so memory stays flat however long
the input is, and callers can write results as they arrive.

The function must be picklable (a module-level function, or ``functools.partial`` of one)
and should return compact results (Arrow tables, counts, small summaries), never decoded
move lists: shipping those between processes costs as much as replaying them.

Past one machine the same function runs on ``dask.distributed`` (``dask=True``): a local
cluster by default, or the scheduler at ``dask_address``. The workers then read the input
paths themselves, so on a real cluster the paths must be visible to every worker (a shared
file system). This module does no scheduling of its own beyond the ordered window.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
U = TypeVar("U")
"""An item of work: usually a :class:`~strat_tools.sources.Unit` (one game file)."""

ProgressCallback = Callable[[int], None]
"""Called with the number of units just finished."""


class PipelineError(RuntimeError):
    """The parallel machinery itself failed (not a bad game: those are data)."""


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def make_batches(
    units: Sequence[U], jobs: int, batch_size: int | None = None
) -> list[list[U]]:
    """Contiguous batches, small enough to balance ``jobs`` workers, large enough to amortise
    process overhead (and to open each zip once per batch)."""
    if not units:
        return []
    if batch_size is None:
        batch_size = max(1, min(200, -(-len(units) // (jobs * 8))))
    return [list(units[i : i + batch_size]) for i in range(0, len(units), batch_size)]


def map_batches(
    func: Callable[[list[U]], T],
    units: Sequence[U],
    *,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    batch_size: int | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[T]:
    """Yield ``func(batch)`` for consecutive batches of ``units``, in input order.

    ``jobs=None`` uses every core; ``jobs=1`` runs in this process (no pickling at all).

    >>> from strat_tools.sources import expand
    >>> counts = map_batches(len, expand(["data/"]), jobs=1)  # doctest: +SKIP
    """
    n_jobs = default_jobs() if jobs is None else jobs
    if n_jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {n_jobs}")
    batches = make_batches(units, n_jobs, batch_size)
    if dask or dask_address:
        yield from _map_dask(func, batches, n_jobs, dask_address, progress)
    elif n_jobs == 1 or len(batches) <= 1:
        for batch in batches:
            result = func(batch)
            if progress is not None:
                progress(len(batch))
            yield result
    else:
        yield from _map_pool(func, batches, n_jobs, progress)


def _in_order(
    submit: Callable[[list[U]], Any],
    batches: list[list[U]],
    window: int,
    progress: ProgressCallback | None,
) -> Iterator[T]:
    """Submit batches keeping at most ``window`` in flight; yield their results in order.

    ``submit`` returns a future (concurrent.futures or Dask); a finished one is dropped as
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
    batches: list[list[U]],
    jobs: int,
    progress: ProgressCallback | None,
) -> Iterator[T]:
    with ProcessPoolExecutor(max_workers=min(jobs, len(batches))) as pool:
        yield from _in_order(lambda b: pool.submit(func, b), batches, jobs * 3, progress)


def _map_dask(
    func: Callable[[list[U]], T],
    batches: list[list[U]],
    jobs: int,
    address: str | None,
    progress: ProgressCallback | None,
) -> Iterator[T]:
    client, cluster = _dask_client(jobs, address)
    try:
        yield from _in_order(
            lambda b: client.submit(func, b, pure=False), batches, max(4, jobs * 3), progress
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
        n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
    )
    return client_cls(cluster), cluster
