"""Ctrl-C and SIGTERM while the command line is still starting up.

Importing the package and the command line takes a second or more (NumPy, pandas, Arrow),
before any command has installed its own handlers
(:func:`strat_tools.cli.errors.library_errors`). A Ctrl-C in that window would print a
``KeyboardInterrupt`` traceback from inside some import, and SIGTERM would kill the process
with no message. :func:`guard_startup`, run first thing when the package is imported by the
command line (``strat-tools`` or ``python -m strat_tools``) and never for a library user,
makes both end the process at once with the documented code and one line on stderr:
nothing has been written yet, so there is nothing to clean up.

Two more things a command line must settle before anything runs:

- **an inherited "ignore"**: a signal ignored when the process starts (a shell's background
  job ignores ``SIGINT``, ``nohup`` ``SIGHUP``) stays ignored, as in any plain Python
  program; neither this guard nor a command's handlers take it over;
- **a closed standard stream** (``validate g >&-``, ``export g -o out 2>&-``): Python then
  sets ``sys.stdout`` or ``sys.stderr`` to ``None`` and the next file opened would take the
  free descriptor, so data meant for stdout could land in an output file.
  :func:`standard_streams` opens ``/dev/null`` on each closed one (what is written there is
  dropped: the command still does its work and its exit code is right), and makes
  ``sys.stderr`` drop what it cannot write (a closed or broken stderr never fails a run:
  messages are all it carries).

And one choice of speed: **one BLAS thread a process** (:func:`one_blas_thread`). The
command line runs its work in worker processes, one a core; NumPy's BLAS starting its own
threads in each of them (the shipped models' matrix products) only makes them spin against
each other: a one-row forward pass of the human-move model took 55 ms of CPU with BLAS's
default threads on a loaded 2-core machine and 0.27 ms with one. A value the caller set
is kept; a library user's process is never touched.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
from contextlib import suppress
from typing import Any, Final, TextIO

EXIT_INTERRUPTED: Final = 130
"""Stopped by Ctrl-C (SIGINT); temporary files removed."""
EXIT_TERMINATED: Final = 143
"""Stopped by SIGTERM; temporary files removed, as for Ctrl-C."""


def is_command_line(argv: list[str] | None = None) -> bool:
    """Whether this interpreter was started as the command line: ``strat-tools ...`` or
    ``python -m strat_tools ...`` (``argv``: the interpreter's own, by default).

    >>> is_command_line(["python3", "-m", "strat_tools", "validate", "data/"])
    True
    >>> is_command_line(["/usr/bin/strat-tools", "view", "data/"])
    True

    The console script as the system starts it (its ``#!`` line names the interpreter, so
    the interpreter's own arguments hold the script's path second):

    >>> is_command_line(["/venv/bin/python3", "/venv/bin/strat-tools", "validate", "g"])
    True
    >>> is_command_line(["python3", "notebook.py"]), is_command_line(["python3", "-c", "..."])
    (False, False)
    """
    args = list(getattr(sys, "orig_argv", sys.argv)) if argv is None else argv
    if args and _is_console_script(args[0]):
        return True
    for index, arg in enumerate(args[1:], start=1):
        if arg == "-m":
            return args[index + 1 : index + 2] == ["strat_tools"]
        if arg == "-mstrat_tools":
            return True
        if not arg.startswith("-"):
            return _is_console_script(arg)  # a script: the rest are its arguments
    return False


def _is_console_script(path: str) -> bool:
    """Whether ``path`` is the ``strat-tools`` console script (as installers name it)."""
    return os.path.basename(path) in ("strat-tools", "strat-tools.exe", "strat-tools-script.py")


def _stop_now(signum: int, frame: Any) -> None:
    interrupted = signum == signal.SIGINT
    with suppress(OSError):  # stderr closed or its reader gone: the exit code says it
        os.write(2, b"Interrupted.\n" if interrupted else b"Terminated.\n")
    os._exit(EXIT_INTERRUPTED if interrupted else EXIT_TERMINATED)


def ignored_at_start(signum: int) -> bool:
    """Whether signal ``signum`` is ignored in this process (inherited, or set so by the
    program): a handler installed for it would take over an "ignore" the caller chose.

    >>> ignored_at_start(signal.SIGPIPE)  # Python itself ignores SIGPIPE
    True
    """
    return signal.getsignal(signum) is signal.SIG_IGN


class DroppingStream(io.TextIOBase):
    """A text stream for messages that drops, silently, what it cannot write: once its file
    is closed or its pipe broken (``OSError``, ``ValueError``), every later write is dropped
    too. ``sys.stderr`` of the command line, so no message can fail a run.

    >>> import io as _io
    >>> stream = DroppingStream(_io.StringIO())
    >>> stream.write("kept"), stream.gone
    (4, False)
    >>> stream.inner.close()
    >>> stream.write("dropped"), stream.gone
    (7, True)
    """

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self.gone = False

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # a text stream, for click's binary-stream probe too
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not self.gone:
            try:
                self.inner.write(text)
            except (OSError, ValueError):
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.inner.flush()
            except (OSError, ValueError):
                self.gone = True

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return not self.gone and _safely(self.inner.isatty, False)

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.inner, "encoding", None) or "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.inner, "errors", None)


def _safely(call: Any, default: Any) -> Any:
    try:
        return call()
    except (OSError, ValueError):
        return default


def standard_streams() -> frozenset[int]:
    """Open ``/dev/null`` on each of the descriptors 0, 1 and 2 that is closed, give Python
    streams on them, and make ``sys.stderr`` a :class:`DroppingStream`. Returns the
    descriptors that were closed (see the module docstring)."""
    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
    for fd in closed:
        null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    if 0 in closed:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 (the process's)
    if 1 in closed:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    if 2 in closed:
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    if sys.stderr is not None and not isinstance(sys.stderr, DroppingStream):
        sys.stderr = DroppingStream(sys.stderr)
    return frozenset(closed)


BLAS_THREADS: Final = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables that set how many threads NumPy's BLAS (OpenBLAS, or MKL) starts."""


def one_blas_thread(environ: dict[str, str] | os._Environ[str]) -> None:
    """Set each of :data:`BLAS_THREADS` to 1 in ``environ`` where the caller set none
    (read by BLAS when NumPy is first imported, so before that).

    >>> env = {"OMP_NUM_THREADS": "4"}
    >>> one_blas_thread(env)
    >>> env == {"OMP_NUM_THREADS": "4", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    True
    """
    for name in BLAS_THREADS:
        environ.setdefault(name, "1")


def guard_startup() -> None:
    """On the command line's main thread, settle the standard streams
    (:func:`standard_streams`), give BLAS one thread (:func:`one_blas_thread`) and make
    Ctrl-C and SIGTERM end the process at once unless ignored at start (see the module
    docstring); elsewhere do nothing."""
    if threading.current_thread() is not threading.main_thread() or not is_command_line():
        return
    standard_streams()
    if "numpy" not in sys.modules:  # BLAS reads them once, when NumPy loads
        one_blas_thread(os.environ)
    for signum in (signal.SIGINT, signal.SIGTERM):
        if not ignored_at_start(signum):
            signal.signal(signum, _stop_now)
