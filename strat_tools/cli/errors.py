"""How a command ends: the exit codes, the library's errors as ``Error: ...`` (exit 2 or 3),
Ctrl-C and SIGTERM (130, 143, temporary files removed) and a reader that goes away.
"""

from __future__ import annotations

import functools
import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar

import click

from strat_tools.cli.render import message
from strat_tools.core import startup

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0  # the run finished and found nothing wrong
EXIT_INVALID = 1  # the run finished and found invalid games (validate)
EXIT_USAGE = 2
"""A usage error: an unknown option, name or choice, a path with no games (nothing ran)."""
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
    from strat_tools.core.errors import NotationError, StratToolsError, UsageError
    from strat_tools.formats.readers import NothingReadable
    from strat_tools.io.output import OutputOfAnotherKind, OutputOverInput

    return (
        (UsageError, EXIT_USAGE),  # a choice refused before any work: --rules, a filter
        (NotationError, EXIT_USAGE),  # text the caller wrote: a square, a move, a pattern
        (NothingReadable, EXIT_USAGE),  # the paths hold no game: nothing ran
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
    (:func:`exit_by_class`: 2 for a usage error, shown as click shows a bad option when it
    names one, ``Invalid value for '--rules': ...``; 3 for a failed run). Anything else is a
    bug: it keeps its traceback (a bare ``LookupError`` or ``IndexError`` is never hidden).
    Ctrl-C exits 130 and SIGTERM 143 once temporary files are removed."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from strat_tools.core.errors import StratToolsError
        from strat_tools.core.text import printable_lines

        main_thread = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, _terminated) if main_thread else None
        previous_int = signal.signal(signal.SIGINT, _interrupted) if main_thread else None
        try:
            return func(*args, **kwargs)
        except click.ClickException as exc:
            if type(exc) in (click.ClickException, RunFailed, NoInput):  # names in messages
                raise type(exc)(printable_lines(exc.message)) from None
            raise
        except BrokenPipeError as exc:
            if not stdout_gone():  # another pipe (a worker's, a file system's): a failure
                raise RunFailed(f"a pipe broke: {exc}") from exc
            # the reader went away (| head): end quietly, exit 0
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # a silent exit
            sys.exit(EXIT_OK)
        except KeyboardInterrupt:
            message("Interrupted.")
            sys.exit(EXIT_INTERRUPTED)
        except Terminated:
            message("Terminated.")
            sys.exit(EXIT_TERMINATED)
        except (StratToolsError, OSError) as exc:
            shown = as_click(exc)
            if isinstance(shown, RunFailed):
                raise shown from exc
            raise shown from None
        finally:
            if main_thread and previous is not None:
                signal.signal(signal.SIGTERM, previous)
            if main_thread and previous_int is not None:
                signal.signal(signal.SIGINT, previous_int)

    return wrapper  # type: ignore[return-value]


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


def _resend_later(signum: int) -> None:
    threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()


def _terminated(signum: int, frame: Any) -> None:
    if _in_swallowing_frame(frame):
        _resend_later(signum)
        return
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one clean-up, however many signals
    raise Terminated


def _interrupted(signum: int, frame: Any) -> None:
    if _in_swallowing_frame(frame):
        _resend_later(signum)
        return
    raise KeyboardInterrupt
