"""Ctrl-C and SIGTERM while the command line is still starting up.

Importing the package and the command line takes a second or more (NumPy, pandas, Arrow),
before any command has installed its own handlers
(:func:`strat_tools.cli.errors.library_errors`). A Ctrl-C in that window would print a
``KeyboardInterrupt`` traceback from inside some import, and SIGTERM would kill the process
with no message. :func:`guard_startup`, run first thing when the package is imported by the
command line (``strat-tools`` or ``python -m strat_tools``) and never for a library user,
makes both end the process at once with the documented code and one line on stderr:
nothing has been written yet, so there is nothing to clean up.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, Final

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
    >>> is_command_line(["python3", "notebook.py"]), is_command_line(["python3", "-c", "..."])
    (False, False)
    """
    args = list(getattr(sys, "orig_argv", sys.argv)) if argv is None else argv
    if args and os.path.basename(args[0]) == "strat-tools":
        return True
    for index, arg in enumerate(args[1:], start=1):
        if arg == "-m":
            return args[index + 1 : index + 2] == ["strat_tools"]
        if arg == "-mstrat_tools":
            return True
        if not arg.startswith("-"):
            return False  # a script: the rest are its arguments
    return False


def _stop_now(signum: int, frame: Any) -> None:
    interrupted = signum == signal.SIGINT
    os.write(2, b"Interrupted.\n" if interrupted else b"Terminated.\n")
    os._exit(EXIT_INTERRUPTED if interrupted else EXIT_TERMINATED)


def guard_startup() -> None:
    """On the command line's main thread, make Ctrl-C and SIGTERM end the process at once
    (see the module docstring); elsewhere do nothing."""
    if threading.current_thread() is not threading.main_thread() or not is_command_line():
        return
    signal.signal(signal.SIGINT, _stop_now)
    signal.signal(signal.SIGTERM, _stop_now)
