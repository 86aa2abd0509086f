"""How a command ends: the exit codes, the library's errors as ``Error: ...`` (exit 2 or 3),
Ctrl-C and SIGTERM (130, 143, temporary files removed) and a reader that goes away (a quiet
exit 0, as soon as it goes: :class:`ReaderWatch`).
"""

from __future__ import annotations

import functools
import os
import select
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, Final, TypeVar

import click

from strat_tools.cli.render import message
from strat_tools.core import startup

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0  # the run finished and found nothing wrong
EXIT_INVALID = 1  # the run finished and found invalid games (validate)
EXIT_USAGE = 2
"""A usage error: an unknown option, name or choice, a path with no games, an exported
dataset folder where game records are needed, filters keeping no game (nothing ran)."""
EXIT_FAILED = 3
"""The run failed (a library error, an output that cannot be written): no complete result."""
EXIT_INTERRUPTED = startup.EXIT_INTERRUPTED
"""Stopped by Ctrl-C (SIGINT); temporary files removed."""
EXIT_TERMINATED = startup.EXIT_TERMINATED
"""Stopped by SIGTERM; temporary files removed, as for Ctrl-C."""


class RunFailed(click.ClickException):
    """The run failed: ``Error: ...`` on stderr (escaped), exit :data:`EXIT_FAILED`."""

    exit_code = EXIT_FAILED


class NoInput(click.ClickException):
    """Nothing to read in the paths given, or an ``-o`` naming an input: a usage error, exit
    :data:`EXIT_USAGE`, nothing written."""

    exit_code = EXIT_USAGE


def exit_by_class() -> tuple[tuple[type[BaseException], int], ...]:
    """The one table of exit codes by error class, most specific first (the first class an
    error is an instance of decides): a caller's mistake refused before any work is a usage
    error, exit :data:`EXIT_USAGE`; any other deliberate error of the library, or an OS error
    about the files given, a failed run, exit :data:`EXIT_FAILED`. Read on first use (the
    classes live on the floors below, imported only when a command fails)."""
    from strat_tools.core.errors import NotationError, NothingToRead, StratToolsError, UsageError
    from strat_tools.io.output import OutputOfAnotherKind, OutputOverInput

    return (
        (UsageError, EXIT_USAGE),  # a choice refused before any work: --rules, a filter
        (NotationError, EXIT_USAGE),  # text the caller wrote: a square, a move, a pattern
        (NothingToRead, EXIT_USAGE),  # no game in the paths, or none the filters keep
        (OutputOverInput, EXIT_USAGE),  # an output over an input: refused before reading
        (OutputOfAnotherKind, EXIT_USAGE),  # an output folder of another kind: untouched
        (StratToolsError, EXIT_FAILED),  # every other deliberate error: the run failed
        (OSError, EXIT_FAILED),  # a file given that cannot be read or written
    )


def exit_code(exc: BaseException) -> int | None:
    """The exit code :func:`exit_by_class` gives ``exc``, ``None`` for a bug (any other
    exception, which keeps its traceback).

    >>> from strat_tools.core.errors import OptionError, UsageError
    >>> exit_code(UsageError("x")), exit_code(OptionError("x")), exit_code(KeyError("x"))
    (2, 3, None)
    """
    return next((code for kind, code in exit_by_class() if isinstance(exc, kind)), None)


def as_click(exc: BaseException, option: str | None = None) -> click.ClickException:
    """``exc`` (a deliberate error: :func:`exit_code` is not ``None``) as the click error that
    shows it and exits with its class's code: a usage error naming an option (its own, or
    ``option``: ``'pattern'``) as click shows a bad option (``Invalid value for
    '--rules': ...``), another usage error as ``Error: ...`` exit 2, a failed run as
    ``Error: ...`` exit 3; messages escaped (names from files are data)."""
    from strat_tools.core.text import printable_lines

    if exit_code(exc) != EXIT_USAGE:
        return RunFailed(printable_lines(str(exc)) or exc.__class__.__name__)
    option = getattr(exc, "option", None) or option
    if option is None:
        return NoInput(printable_lines(str(exc)))
    flag = f"'--{option.removeprefix('--').replace('_', '-')}'"
    reason = getattr(exc, "reason", str(exc))
    ctx = click.get_current_context(silent=True)
    return click.BadParameter(printable_lines(reason), ctx, param_hint=flag)


def library_errors(func: F) -> F:
    """Turn the library's own errors (:class:`~strat_tools.core.errors.StratToolsError`) and OS
    errors about the files given into ``Error: ...`` with the exit code of their class
    (:func:`exit_by_class`: 2 for a usage error, such as a path matching nothing or filters
    keeping no game, shown as click shows a bad option when it names one, ``Invalid value for
    '--rules': ...``; 3 for a failed run). Anything else is a bug: it keeps its traceback (a
    bare ``LookupError`` or ``IndexError`` is never hidden).

    How a run is stopped, each once temporary files are removed: Ctrl-C exits 130 and
    SIGTERM 143 (a signal ignored at start stays ignored); standard output's reader going
    away (``| head``) ends the run quietly with exit 0, at once, whether or not anything was
    being written (:class:`ReaderWatch`), unless the command writes a file
    (:data:`FILE_OUTPUTS`): that one is finished, and only what it prints is dropped. A
    stop signal wins over a broken pipe (Ctrl-C on ``... 2>&1 | tee log`` kills the reader
    too: still 130), and a message to a broken or closed stderr is dropped, never a
    failure."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            try:
                writes_a_file = any(kwargs.get(name) is not None for name in FILE_OUTPUTS)
                with _stop_handlers(), ReaderWatch(active=not writes_a_file):
                    return _library_call(func, *args, **kwargs)
            except ReaderGone as gone:  # inside the outer try: a Ctrl-C now still exits 130
                stop = _stop_behind(gone)
                if stop is not None:
                    raise stop from None
                _silence_stdout()
                sys.exit(EXIT_OK)
        except KeyboardInterrupt:
            _ending("Interrupted.")
            sys.exit(EXIT_INTERRUPTED)
        except Terminated:
            _ending("Terminated.")
            sys.exit(EXIT_TERMINATED)

    return wrapper  # type: ignore[return-value]


FILE_OUTPUTS: Final = ("out", "output")
"""The parameters that name a command's output file (``-o``). A command given one keeps
going when stdout's reader goes away (the file is what it makes; the reader only misses
its messages); one that prints its results stops."""


def _library_call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    from strat_tools.core.errors import StratToolsError
    from strat_tools.core.text import printable_lines

    try:
        result = func(*args, **kwargs)
        with suppress(AttributeError, ValueError):  # none, or closed by the command
            sys.stdout.flush()  # a reader gone after the last write: here, not at exit (120)
        return result
    except click.ClickException as exc:
        if type(exc) in (click.ClickException, RunFailed, NoInput):  # names in messages
            raise type(exc)(printable_lines(exc.message)) from None
        raise
    except BrokenPipeError as exc:
        if stdout_gone():  # the reader went away (| head): a quiet end
            if threading.current_thread() is threading.main_thread():
                _one_clean_up(pipe_gone=True)  # the kernel's SIGPIPE, or the watch's, is late
            raise ReaderGone from None
        raise RunFailed(f"a pipe broke: {exc}") from exc  # a worker's, a file system's
    except (StratToolsError, OSError) as exc:
        shown = as_click(exc)
        if isinstance(shown, RunFailed):
            raise shown from exc
        raise shown from None


def _stop_behind(gone: BaseException) -> BaseException | None:
    """The stop signal behind a quiet end, if one came: noted while the run was cleaning up
    (:data:`_NOTED`), or the exception being handled when the pipe broke."""
    if _NOTED:
        return KeyboardInterrupt() if _NOTED[0] == signal.SIGINT else Terminated()
    seen: BaseException | None = gone
    while seen is not None:
        if isinstance(seen, (KeyboardInterrupt, Terminated)):
            return seen
        seen = seen.__context__
    return None


def _ending(text: str) -> None:
    """The last words of a stopped run: later stop signals are ignored by the command line
    (one clean-up, it is done; the process exits next), stdout is silenced if its reader is
    gone, and the message is dropped if stderr cannot take it. A caller running a command
    in its own process (a notebook, a test) keeps its own handlers: ignoring would outlive
    the run there, and every process it starts would inherit the ignored Ctrl-C."""
    if threading.current_thread() is threading.main_thread() and startup.is_command_line():
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, signal.SIG_IGN)
    _silence_stdout()
    message(text)


def _silence_stdout() -> None:
    """When stdout's reader is gone, point stdout at ``/dev/null``: the data still buffered
    is dropped, not a ``BrokenPipeError`` (and exit 120) at interpreter exit."""
    if stdout_gone():
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class ReaderGone(BaseException):
    """Raised in the main thread when standard output's reader went away, whatever it was
    doing: the run stops (every ``finally`` and ``with`` cleans up) and ends quietly."""


@contextmanager
def _stop_handlers() -> Iterator[None]:
    """While a command runs on the main thread: SIGINT raises ``KeyboardInterrupt``, SIGTERM
    :class:`Terminated` (neither when ignored at start), SIGPIPE :class:`ReaderGone` when
    it is stdout's reader that went away (else it stays without effect: the write that broke
    raises ``BrokenPipeError``). The handlers found are put back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted: dict[int, Callable[[int, Any], None]] = {
        signal.SIGINT: _interrupted,
        signal.SIGTERM: _terminated,
        signal.SIGPIPE: _pipe_broke,
    }
    previous: dict[int, Any] = {}
    _NOTED.clear()
    try:
        for signum, handler in wanted.items():
            if signum == signal.SIGPIPE or not startup.ignored_at_start(signum):
                previous[signum] = signal.signal(signum, handler)
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class ReaderWatch:
    """While a command runs: a thread that waits (in ``poll``, no CPU) for standard output's
    reader to go away, when stdout is a pipe, and then sends the main thread ``SIGPIPE``
    (:class:`ReaderGone`): a command that has printed nothing yet (a statistic still being
    computed, a table collected) stops as promptly as one caught writing. Without a pipe on
    stdout, or off the main thread, it does nothing.

    >>> with ReaderWatch() as watch:  # the doctest's stdout is no pipe
    ...     watch.watching
    False
    """

    def __init__(self, active: bool = True) -> None:
        self.active = active
        self.watching = False
        self._wake: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ReaderWatch:
        fd = _stdout_pipe() if self.active else None
        if fd is None or threading.current_thread() is not threading.main_thread():
            return self
        if not hasattr(select, "poll") or not hasattr(signal, "pthread_kill"):
            return self  # pragma: no cover - not on Linux
        self._wake = os.pipe()
        main = threading.main_thread().ident
        self._thread = threading.Thread(
            target=_watch_reader, args=(fd, self._wake[0], main), daemon=True
        )
        self._thread.start()
        self.watching = True
        _WATCHED.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self in _WATCHED:
            _WATCHED.remove(self)
        if self._wake is not None:
            with suppress(OSError):
                os.write(self._wake[1], b"x")
            if self._thread is not None:
                self._thread.join(5)
            for fd in self._wake:
                with suppress(OSError):
                    os.close(fd)
            self._wake = self._thread = None


_WATCHED: Final[list[ReaderWatch]] = []
"""The :class:`ReaderWatch` of the command running, while it watches stdout's reader."""


def stop_if_reader_gone() -> None:
    """The command line's :attr:`~strat_tools.run.options.Run.stop`, called after each
    batch in the run's own thread: while a :class:`ReaderWatch` watches (a command that
    prints), :class:`ReaderGone` once stdout's reader has gone. The watch's signal stops a
    run in the middle of its work; this check makes the stop certain at the next batch,
    whatever the machine's load does to the watch's thread or the signal's delivery."""
    if _WATCHED and threading.current_thread() is threading.main_thread() and stdout_gone():
        _one_clean_up(pipe_gone=True)
        raise ReaderGone


def _stdout_pipe() -> int | None:
    try:
        fd = sys.stdout.fileno()
        return fd if stat.S_ISFIFO(os.fstat(fd).st_mode) else None
    except (AttributeError, OSError, ValueError):  # replaced (a test runner), closed
        return None


def _watch_reader(fd: int, wake: int, main: int | None) -> None:
    poller = select.poll()
    poller.register(fd, 0)  # a pipe's write end reports POLLERR once it has no reader
    poller.register(wake, select.POLLIN)
    while True:
        for ready, event in poller.poll():
            if ready == wake or event & select.POLLNVAL:
                return
            if event & select.POLLERR and main is not None:
                signal.pthread_kill(main, signal.SIGPIPE)
                return


def stdout_gone() -> bool:
    """Whether standard output is a pipe whose reader has gone away (``| head``): the one
    broken pipe that ends a command quietly with exit 0. Any other (the pipe to a worker
    process that died) is a failed run, never a silent success. Linux reports a pipe
    without readers as ``POLLERR`` on its write end; where ``poll`` is missing, every broken
    pipe counts as the reader's.

    >>> stdout_gone()  # the doctest's stdout is no pipe at all
    False
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced (a test runner): no pipe
        return False
    if not hasattr(select, "poll"):  # pragma: no cover - not on Linux
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(event & select.POLLERR for _, event in poller.poll(0))


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM, so every ``finally`` and ``with`` cleans up."""


_SWALLOWING: Final = frozenset({"_acquireLock", "_releaseLock", "__del__", "_at_fork_reinit"})
"""Functions whose exceptions Python prints and ignores (at-fork hooks, finalisers): a stop
signal that lands in one is sent again a moment later instead of being lost."""


def _in_swallowing_frame(frame: Any) -> bool:
    return frame is not None and (
        frame.f_code.co_name in _SWALLOWING
        or frame.f_code.co_filename.endswith("logging/__init__.py")
    )


def _in_code_from_a_string(frame: Any) -> bool:
    """Whether code compiled from a string by ``exec`` or ``eval`` is running (a dataclass's
    or a named tuple's methods being made while a module is imported, say).

    CPython marks a ``KeyboardInterrupt`` that leaves such code as unhandled for good, even
    when a caller catches it (``run_eval_code_obj``, python/cpython gh-128130), and
    ``python -m strat_tools`` then kills itself with ``SIGINT`` at exit: exit -2 instead of
    130, though the run was stopped and cleaned up. So the signal is sent again a moment
    later, once that code has returned. The same for a class being made whose attribute's
    ``__set_name__`` runs (a dataclass field): CPython 3.11 turns any exception there into
    a ``RuntimeError``, a traceback instead of exit 130. The outermost frame is not
    counted: it is the program itself under ``python -c``."""
    while frame is not None and frame.f_back is not None:
        code = frame.f_code
        if code.co_filename == "<string>" and code.co_name == "<module>":
            return True
        if code.co_name == "__set_name__":  # CPython 3.11 wraps its error in RuntimeError
            return True
        frame = frame.f_back
    return False


def _resend_later(signum: int) -> None:
    threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()


def _terminated(signum: int, frame: Any) -> None:
    if _in_swallowing_frame(frame):
        _resend_later(signum)
        return
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one clean-up, however many signals
    _one_clean_up(pipe_gone=False)
    raise Terminated


_NOTED: Final[list[int]] = []
"""Stop signals that came while a run was ending because stdout's reader went away: noted,
not raised, so its clean-up finishes; the exit code is still theirs (130, 143)."""


def _note(signum: int, frame: Any) -> None:
    _NOTED.append(signum)


def _one_clean_up(pipe_gone: bool) -> None:
    """A run is ending: a reader going away now cannot interrupt its clean-up, and when it
    is the reader's end (``pipe_gone``), neither can a stop signal (it is noted)."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    for signum in (signal.SIGINT, signal.SIGTERM):
        if pipe_gone and signal.getsignal(signum) not in (signal.SIG_IGN, signal.SIG_DFL):
            signal.signal(signum, _note)


def _pipe_broke(signum: int, frame: Any) -> None:
    if not stdout_gone():  # another pipe: its write raises BrokenPipeError
        return
    if _in_swallowing_frame(frame) or sys.exc_info()[1] is not None:
        # An exception is being handled (a generator closing, a clean-up on its way out):
        # one raised here would be lost, or printed as "Exception ignored". Once the run
        # ends, the handler is gone and the signal with it.
        _resend_later(signum)
        return
    _one_clean_up(pipe_gone=True)
    raise ReaderGone


def _interrupted(signum: int, frame: Any) -> None:
    if _in_swallowing_frame(frame) or _in_code_from_a_string(frame):
        _resend_later(signum)
        return
    _one_clean_up(pipe_gone=False)
    raise KeyboardInterrupt
