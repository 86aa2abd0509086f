"""Worker processes that never outlive the run, and a ceiling on how many there are.

- :func:`worker_init` runs first in every pool worker: on Linux it asks the kernel to kill the
  worker when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, so even a ``SIGKILL`` of
  the parent takes its workers along and no worker keeps the caller's pipes open); elsewhere
  a watchdog thread ends the worker when its parent process is gone. Workers ignore
  ``SIGINT``: Ctrl-C is the parent's to handle, which then stops them (no traceback per
  worker).
- :func:`dask_worker_options` gives the workers of a Dask ``LocalCluster`` the same setup:
  each Nanny passes this module to its worker process as a *preload* (Dask's documented hook,
  run in the worker before it connects to the scheduler), whose :func:`dask_setup` calls
  :func:`worker_init`. Dask's own guard (a pipe the worker watches from a thread) cannot act
  while the worker is stopped or busy in C code without the GIL; the kernel's signal can.
- :func:`stop_workers` ends a pool's workers at once (on Ctrl-C, SIGTERM or an error),
  instead of waiting for their batches.
- :func:`cap_jobs` bounds a requested number of workers by the cores this process may use.

This module knows processes only: nothing about games or files.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Final

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
    """Make this worker die with process ``parent_pid`` (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _set_death_signal():  # pragma: no cover - not on Linux
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the death signal was set
        os._exit(1)


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


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool's workers now and drop the work still queued."""
    # The executor keeps its processes in a private mapping; there is no public way to
    # reach them, and shutdown() alone waits for the batches already running.
    processes = dict(getattr(pool, "_processes", None) or {})
    for process in processes.values():
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
