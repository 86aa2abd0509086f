"""How a command ends (``cli/errors.py``): a broken pipe is a quiet exit 0 only when it is
standard output's reader that went away (``| head``); any other broken pipe fails the run.
Every deliberate error is a ``StratToolsError`` and its class decides the exit code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from strat_tools.cli.errors import EXIT_FAILED, EXIT_USAGE, exit_code, library_errors

REPO = Path(__file__).resolve().parent.parent


@click.command()
@library_errors
def breaks_a_pipe() -> None:
    """A command whose work breaks a pipe that is not stdout (a dead worker's)."""
    raise BrokenPipeError(32, "Broken pipe")


def test_a_broken_pipe_that_is_not_stdout_fails_the_run() -> None:
    result = CliRunner().invoke(breaks_a_pipe, [])
    assert result.exit_code == EXIT_FAILED, result.output
    assert "Error: a pipe broke: [Errno 32] Broken pipe" in result.output
    assert "Traceback" not in result.output


def test_stdout_is_gone_only_once_its_reader_closes() -> None:
    """The check itself, on a real pipe: a live reader, then a closed one."""
    probe = (
        "import sys, time; from strat_tools.cli.errors import stdout_gone; "
        "print(stdout_gone(), file=sys.stderr, flush=True); time.sleep(0.5); "
        "print(stdout_gone(), file=sys.stderr, flush=True)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", probe],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert proc.stderr is not None and proc.stdout is not None
    first = proc.stderr.readline().strip()
    proc.stdout.close()  # the reader goes away
    second = proc.stderr.readline().strip()
    proc.wait(timeout=30)
    assert (first, second) == (b"False", b"True")


def error_classes() -> dict[type[BaseException], str]:
    """Every exception class the package defines, by the module that defines it."""
    import importlib
    import inspect
    import pkgutil

    import strat_tools

    found = {}
    for info in pkgutil.walk_packages(strat_tools.__path__, "strat_tools."):
        if info.name.endswith("__main__"):
            continue
        for value in vars(importlib.import_module(info.name)).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ):
                found[value] = info.name
    return found


NOT_LIBRARY_ERRORS: dict[str, str] = {
    "RunFailed": "the CLI's own rendering of a failed run (a click error)",
    "NoInput": "the CLI's own rendering of a usage error (a click error)",
    "Terminated": "SIGTERM in the main thread (a BaseException, like KeyboardInterrupt)",
    "RemoteTraceback": "a worker's traceback text, set as a cause, never raised",
}
"""The package's exception classes that are not deliberate library errors, and why."""


def test_every_deliberate_error_is_a_strat_tools_error() -> None:
    from strat_tools.core.errors import StratToolsError

    classes = error_classes()
    loose = {
        f"{module}.{kind.__name__}"
        for kind, module in classes.items()
        if not issubclass(kind, StratToolsError) and kind.__name__ not in NOT_LIBRARY_ERRORS
    }
    assert loose == set(), "derive these from strat_tools.core.errors.StratToolsError"
    assert set(NOT_LIBRARY_ERRORS) <= {kind.__name__ for kind in classes}


def error_samples() -> list[tuple[BaseException, int]]:
    """One instance of each deliberate error class, with the exit code its class means."""
    from strat_tools.core.errors import (
        DatasetError,
        IllegalMove,
        InputError,
        NotationError,
        OptionError,
        RunError,
        StratToolsError,
        UsageError,
    )
    from strat_tools.core.records import RecordError
    from strat_tools.formats.readers import NothingReadable, SeveralGames
    from strat_tools.generate.games import GenerationError
    from strat_tools.io.output import OutputError, OutputOfAnotherKind, OutputOverInput
    from strat_tools.io.sources import SourceError
    from strat_tools.io.zipdir import ZipError
    from strat_tools.run.filters import FilterError
    from strat_tools.run.pipeline import PipelineError
    from strat_tools.run.processes import WorkerFailure
    from strat_tools.setups.patterns import PatternError

    def bare(kind: type[BaseException]) -> BaseException:
        error = kind.__new__(kind)
        Exception.__init__(error, f"a {kind.__name__}")
        return error

    usage = [UsageError, FilterError, NotationError, PatternError, NothingReadable]
    usage += [OutputOverInput, OutputOfAnotherKind]
    failed = [StratToolsError, OptionError, InputError, DatasetError, IllegalMove, RunError]
    failed += [RecordError, SeveralGames, GenerationError, OutputError, SourceError, ZipError]
    failed += [PipelineError, WorkerFailure]
    return [(bare(kind), EXIT_USAGE) for kind in usage] + [
        (bare(kind), EXIT_FAILED) for kind in failed
    ]


def test_the_samples_cover_every_library_error_class() -> None:
    from strat_tools.core.errors import StratToolsError

    library = {kind for kind in error_classes() if issubclass(kind, StratToolsError)}
    assert {type(error) for error, _code in error_samples()} == library


@pytest.mark.parametrize(
    ("error", "code"),
    error_samples(),
    ids=lambda v: type(v).__name__ if not isinstance(v, int) else "",
)
def test_the_exit_code_is_decided_by_the_error_class(error: BaseException, code: int) -> None:
    @click.command()
    @library_errors
    def fails() -> None:
        raise error

    result = CliRunner().invoke(fails, [])
    assert (exit_code(error), result.exit_code) == (code, code), result.output
    assert "Traceback" not in result.output and "Error" in result.output


def test_a_bug_keeps_its_traceback() -> None:
    assert exit_code(KeyError("x")) is None
    assert exit_code(ValueError("x")) is None  # a plain ValueError is a bug, never shown as ours


def test_bad_move_text_is_a_notation_error() -> None:
    from strat_tools.core.errors import NotationError
    from strat_tools.engine.strados3 import move_squares

    with pytest.raises(NotationError, match="not a move: 'B4B5'"):
        move_squares("B4B5")
