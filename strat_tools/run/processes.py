"""Worker processes that never outlive the run, and a ceiling on how many there are.

- :func:`worker_init` runs first in every pool worker: on Linux it asks the kernel to kill the
  worker when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, so even a ``SIGKILL`` of
  the parent takes its workers along and no worker keeps the caller's pipes open); elsewhere
  a watchdog thread ends the worker when its parent process is gone. Workers ignore
  ``SIGINT``: Ctrl-C is the parent's to handle, which then stops them (no traceback per
  worker). They ignore ``SIGPIPE`` too, as Python does (the parent's own handler for it is
  the parent's), and a ``SIGTERM`` ignored at the parent's start stays ignored in them.
- :func:`dask_worker_options` gives the workers of a Dask ``LocalCluster`` the same setup:
  each Nanny passes this module to its worker process as a *preload* (Dask's documented hook,
  run in the worker before it connects to the scheduler), whose :func:`dask_setup` calls
  :func:`worker_init`. Dask's own guard (a pipe the worker watches from a thread) cannot act
  while the worker is stopped or busy in C code without the GIL; the kernel's signal can.
- :class:`WorkerPool` runs a function on items in such workers and yields the results in
  input order. It has one shutdown path, whatever ends the run (Ctrl-C, SIGTERM, a closed
  stdout, an error in a worker or in the caller, the caller no longer reading): the work not
  yet sent is never sent, the workers are killed and reaped (no zombie), their pipes closed.
  It has no threads of its own (each worker has one pipe, written and read by the calling
  thread only), so nothing is left to join at interpreter exit: ``concurrent.futures``'
  pool could hang there after Ctrl-C (its manager thread joined at exit, its workers
  zombies) or print ``Bad file descriptor`` from its queue feeder thread.
- :func:`cap_jobs` bounds a requested number of workers by the cores this process may use.

This module knows processes only: nothing about games or files.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any, Final, Generic, TypeVar

from strat_tools.core.errors import RunError

T = TypeVar("T")
U = TypeVar("U")

PR_SET_PDEATHSIG: Final = 1
"""The Linux ``prctl`` option: a signal sent to this process when its parent dies."""

PARENT_PID_VARIABLE: Final = "STRAT_TOOLS_PARENT_PID"
"""The environment variable that tells a Dask worker the process it must die with."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def cap_jobs(jobs: int) -> int:
    """``jobs`` bounded by :func:`available_cores`: more processes than cores only cost
    memory and time.

    >>> cap_jobs(1)
    1
    >>> cap_jobs(10_000) == available_cores()
    True
    """
    return max(1, min(jobs, available_cores()))


def _set_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        return False


def _watch_parent(parent_pid: int, interval: float = 0.5) -> None:
    while os.getppid() == parent_pid:
        time.sleep(interval)
    os._exit(1)


def worker_init(parent_pid: int) -> None:
    """Make this worker die with process ``parent_pid`` (see the module docstring). The
    death signal comes first and ignoring SIGINT last, so a worker seen to ignore SIGINT
    (``/proc/PID/status``) is one whose parent's death ends it: stopped (Ctrl-Z) before
    that, it would have outlived a killed parent."""
    if not _set_death_signal():  # pragma: no cover - not on Linux
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the death signal was set
        os._exit(1)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def dask_worker_options(parent_pid: int | None = None) -> dict[str, Any]:
    """Keyword arguments for ``distributed.LocalCluster`` (handed on to each Nanny) that make
    its worker processes die with process ``parent_pid`` (default: this one).

    >>> options = dask_worker_options(4242)
    >>> options["preload"], options["env"]
    (['strat_tools.run.processes'], {'STRAT_TOOLS_PARENT_PID': '4242'})
    """
    pid = os.getpid() if parent_pid is None else parent_pid
    return {"preload": [__name__], "env": {PARENT_PID_VARIABLE: str(pid)}}


def dask_setup(worker: object) -> None:
    """Dask's preload hook, called in each worker process before it connects: the worker dies
    with the process named by :data:`PARENT_PID_VARIABLE` (see :func:`worker_init`)."""
    named = os.environ.get(PARENT_PID_VARIABLE, "")
    worker_init(int(named) if named.isdigit() else os.getppid())


class WorkerFailure(RunError):
    """A worker process ended without answering (killed, out of memory, crashed), or its
    answer could not be read back."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker: set as that exception's cause."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return f"\n(in a worker process)\n{self.text}"


_STOP_SIGNALS: Final = frozenset({signal.SIGINT, signal.SIGTERM})
_STOP_WAIT: Final = 10.0
"""Seconds a worker told to stop may take to exit before it is killed."""


def _worker_main(conn: Connection, parent_pid: int) -> None:
    """A worker's life: ``(func, item)`` in, ``(True, result)`` or ``(False, exception,
    traceback)`` out, until ``None`` or the end of the pipe."""
    worker_init(parent_pid)
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:  # ignored at start: stays
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's clean-up handler
    signal.pthread_sigmask(signal.SIG_SETMASK, set())  # blocked by the parent while forking
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        func, item = message
        try:
            answer: tuple[Any, ...] = (True, func(item))
        except BaseException as exc:
            answer = (False, exc, traceback.format_exc())
        try:
            conn.send(answer)
        except (BrokenPipeError, ConnectionResetError):
            return
        except Exception as exc:  # the result or the exception does not pickle
            text = "".join(traceback.format_exception(exc))
            conn.send((False, WorkerFailure(f"a worker's answer cannot be sent back: {exc}"), text))


class WorkerPool(Generic[U, T]):
    """``workers`` processes that run ``func`` on items; results in input order.

    Use as a context manager: leaving the block normally lets the workers finish and exit;
    leaving it by an exception (or :meth:`stop`) kills them at once. Either way every worker
    is reaped and every pipe closed before the block is left.

    >>> with WorkerPool(2) as pool:
    ...     list(pool.imap(abs, [-3, 1, -2, 5, -8]))
    [3, 1, 2, 5, 8]
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"a pool needs at least one worker, got {workers}")
        context = multiprocessing.get_context()
        self._processes: list[Any] = []
        self._conns: list[Connection] = []
        # Ctrl-C and SIGTERM wait while the workers are forked: a child must not run the
        # parent's handlers (a traceback per worker) before it has set its own.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            for _ in range(workers):
                ours, theirs = context.Pipe(duplex=True)
                process = context.Process(
                    target=_worker_main, args=(theirs, os.getpid()), daemon=True
                )
                try:
                    process.start()
                finally:
                    theirs.close()  # only the worker holds its end: its death is our EOF
                self._processes.append(process)
                self._conns.append(ours)
        except BaseException:
            self.stop()
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def __enter__(self) -> WorkerPool[U, T]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.stop()

    @property
    def pids(self) -> list[int]:
        """The workers' process ids."""
        return [p.pid for p in self._processes]

    def imap(
        self, func: Callable[[U], T], items: Iterable[U], window: int | None = None
    ) -> Iterator[T]:
        """Yield ``func(item)`` for every item, in input order, at most ``window`` items
        (default: the workers) sent and not yet yielded. ``items`` is read only as workers
        come free. An exception raised by ``func`` in a worker is raised here (its worker
        traceback as the cause); the pool is then stopped."""
        limit = max(len(self._conns), window or 0)
        try:
            yield from self._imap(func, iter(items), limit)
        except BaseException:  # Ctrl-C, SIGTERM, an error, or the caller stopped reading
            self.stop()
            raise

    def _imap(self, func: Callable[[U], T], items: Iterator[U], limit: int) -> Iterator[T]:
        idle = list(range(len(self._conns)))[::-1]
        busy: dict[int, int] = {}  # worker -> the sequence number of its item
        done: dict[int, T] = {}
        sent = yielded = 0
        exhausted = False
        while True:
            while idle and not exhausted and sent < yielded + limit:
                item = next(items, _END)
                if item is _END:
                    exhausted = True
                    break
                worker = idle.pop()
                try:
                    self._conns[worker].send((func, item))
                except (BrokenPipeError, ConnectionResetError):  # it died while idle
                    raise WorkerFailure(self._died(worker)) from None
                busy[worker] = sent
                sent += 1
            if yielded in done:
                result = done.pop(yielded)
                yielded += 1
                yield result
                continue
            if not busy:
                return
            for worker in self._answered(busy):
                done[busy.pop(worker)] = self._answer(worker)
                idle.append(worker)

    def _answered(self, busy: dict[int, int]) -> list[int]:
        waiting = {self._conns[w]: w for w in busy}
        deaths = {self._processes[w].sentinel: w for w in busy}
        ready = wait([*waiting, *deaths])
        answered = [waiting[c] for c in ready if c in waiting]
        if not answered:
            dead = deaths[ready[0]]
            raise WorkerFailure(self._died(dead))
        return answered

    def _died(self, worker: int) -> str:
        process = self._processes[worker]
        process.join(1)
        code = process.exitcode
        how = (
            f"was killed by signal {-code}" if code is not None and code < 0 else f"exited ({code})"
        )
        return f"a worker process {how} before it finished its work"

    def _answer(self, worker: int) -> T:
        try:
            answer = self._conns[worker].recv()
        except EOFError:
            raise WorkerFailure(self._died(worker)) from None
        except Exception as exc:  # an exception that does not unpickle here
            raise WorkerFailure(f"a worker's answer cannot be read: {exc!r}") from exc
        if answer[0]:
            result: T = answer[1]
            return result
        error: BaseException = answer[1]
        error.__cause__ = RemoteTraceback(answer[2])
        raise error

    def close(self) -> None:
        """Tell the workers to exit once idle, wait for them (killing any that do not exit
        within a few seconds), close the pipes."""
        for conn in self._conns:
            with contextlib.suppress(OSError, ValueError):
                conn.send(None)
        deadline = time.monotonic() + _STOP_WAIT
        for process in self._processes:
            process.join(max(0.0, deadline - time.monotonic()))
        self.stop()

    def stop(self) -> None:
        """Kill the workers now (their work is dropped), reap them, close the pipes.
        Idempotent; safe from any state of the pool."""
        for process in self._processes:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                if process.exitcode is None:
                    process.kill()
        for process in self._processes:
            with contextlib.suppress(OSError, ValueError, AssertionError, AttributeError):
                process.join(_STOP_WAIT)
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.close()
        for process in self._processes:
            with contextlib.suppress(ValueError, AttributeError):
                if process.exitcode is not None:
                    process.close()
        self._processes, self._conns = [], []


_END: Final[Any] = object()
