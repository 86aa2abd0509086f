"""How a command ends (``cli/errors.py``): a broken pipe is a quiet exit 0 only when it is
standard output's reader that went away (``| head``); any other broken pipe fails the run.
A stop signal wins over a broken pipe (Ctrl-C on ``... 2>&1 | tee log``: 130), and a closed
or broken stdout or stderr never changes what the run does or its exit code.
Every deliberate error is a ``StratToolsError`` and its class decides the exit code."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from strat_tools.cli.errors import EXIT_FAILED, EXIT_USAGE, Terminated, exit_code, library_errors
from strat_tools.core.startup import EXIT_INTERRUPTED, EXIT_TERMINATED

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


DATA = REPO / "data"
INVALID = REPO / "tests" / "fixtures" / "gravon" / "bad_square.xml"
ONE_GAME = REPO / "tests" / "fixtures" / "gravon" / "classic-2014.4-17.xml"
TABLES = {"games", "setups", "moves", "diagnostics", "events"}


def closing(*fds: int) -> Callable[[], None]:
    """A ``preexec_fn`` that closes ``fds`` in the child, as ``>&-`` and ``2>&-`` do."""

    def close() -> None:
        for fd in fds:
            os.close(fd)

    return close


def run_with_closed(args: list[str], *fds: int) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "strat_tools", *args],
        capture_output=True,
        cwd=REPO,
        preexec_fn=closing(*fds),
        timeout=300,
    )


@pytest.mark.parametrize(
    ("args", "fds", "code"),
    [
        (["validate", str(DATA), "-q"], (1,), 0),
        (["validate", str(INVALID)], (1,), 1),
        (["validate", str(INVALID)], (2,), 1),
        (["validate", str(INVALID)], (1, 2), 1),
        (["events", str(DATA / "strados2026-10.zip"), "--kind", "end"], (1,), 0),
        (["validate", "--no-such-option"], (2,), 2),
    ],
    ids=[
        "validate >&-",
        "invalid >&-",
        "invalid 2>&-",
        "invalid >&- 2>&-",
        "events >&-",
        "usage 2>&-",
    ],
)
def test_a_closed_stream_leaves_the_exit_code_right(
    args: list[str], fds: tuple[int, ...], code: int
) -> None:
    """``>&-`` is taken as ``>/dev/null``: the work is done and the exit code is its own (it
    was a ``TypeError`` traceback, exit 1); messages to a closed stderr are dropped."""
    run = run_with_closed(args, *fds)
    assert run.returncode == code, run.stderr.decode()[-2000:]
    assert b"Traceback" not in run.stderr


@pytest.mark.parametrize(
    "fds",
    [
        pytest.param((2,), marks=pytest.mark.slow, id="2>&-"),
        pytest.param((1, 2), marks=pytest.mark.slow, id=">&- 2>&-"),
        pytest.param((0, 1, 2), id="all closed"),
    ],
)
def test_an_export_with_closed_streams_writes_its_tables(
    fds: tuple[int, ...], tmp_path: Path
) -> None:
    """A closed descriptor is never taken over by a file the run opens: the tables are
    written whole (nothing meant for stdout lands in them) and read back."""
    out = tmp_path / "tables"
    run = run_with_closed(["export", str(ONE_GAME), "-o", str(out), "--jobs", "1"], *fds)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert {p.parent.name for p in out.glob("*/part-*.parquet")} == TABLES
    import strat_tools as st

    assert len(st.read_dataset(str(out)).games) == 1


@pytest.mark.parametrize(
    ("args", "code"),
    [(["validate", str(INVALID), "--format", "csv"], 1), (["export", str(ONE_GAME), "-o"], 0)],
    ids=["validate", "export"],
)
def test_a_broken_stderr_drops_the_messages_not_the_run(
    args: list[str], code: int, tmp_path: Path
) -> None:
    """stderr's reader gone (``2> >(head -c0)``) while stdout is fine: the messages are lost,
    the run is not (it was 'a pipe broke', then click's exit 1), and stdout has its data."""
    out = tmp_path / "tables"
    proc = subprocess.Popen(
        [sys.executable, "-m", "strat_tools", *args, *([str(out)] if args[-1] == "-o" else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert proc.stderr is not None and proc.stdout is not None
    proc.stderr.close()  # before the first message
    data = proc.stdout.read()
    assert proc.wait(timeout=300) == code
    if args[0] == "export":
        assert {p.parent.name for p in out.glob("*/part-*.parquet")} == TABLES
    else:
        assert data.startswith(b"source,") and b"bad_square.xml" in data


def test_a_command_writing_a_file_finishes_it_when_stdout_has_no_reader(tmp_path: Path) -> None:
    """``export ... -o DIR | head`` (stdout's reader gone before any work): the tables are
    what it makes, so it makes them (a quiet stop would be exit 0 with nothing written)."""
    out = tmp_path / "tables"
    proc = subprocess.Popen(
        [sys.executable, "-m", "strat_tools", "export", str(ONE_GAME), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert {p.parent.name for p in out.glob("*/part-*.parquet")} == TABLES


TEE_RUN = (
    "trap 'true' INT; {python} -m strat_tools export {games} -o {out} --jobs 2 2>&1 "
    "| tee {log} > /dev/null; echo ${{PIPESTATUS[0]}} > {code}"
)
"""A shell's ``export ... 2>&1 | tee log``; the shell itself survives Ctrl-C (a trap: its
children keep the default SIGINT) to write down the command's exit code."""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("tee") is None, reason="bash, tee")
@pytest.mark.parametrize("delay", [1.5, 2.5, 3.5])
def test_ctrl_c_on_a_run_piped_to_tee_exits_130_though_the_pipe_broke_too(
    delay: float, tmp_path: Path
) -> None:
    """Ctrl-C reaches the whole pipeline: tee dies, and stdout and stderr (one pipe) have no
    reader any more. The stop signal wins: 130, temporary files removed (it was click's
    broken-pipe exit 1 in 30 of 32 tries)."""
    games = tmp_path / "many"
    games.mkdir()
    for k in range(32):  # 12,800 games: about 9 s of work on 2 cores, well past every delay
        shutil.copy(DATA / "strados2026-10.zip", games / f"strados2026-{k}.zip")
    out, code = tmp_path / "tables", tmp_path / "code"
    script = TEE_RUN.format(
        python=sys.executable, games=games, out=out, log=tmp_path / "log", code=code
    )
    shell = subprocess.Popen(["bash", "-c", script], cwd=REPO, start_new_session=True)
    time.sleep(delay)  # a start-up guard, a pool forking, or a batch being worked
    os.killpg(shell.pid, signal.SIGINT)  # the terminal's Ctrl-C: the whole process group
    shell.wait(timeout=120)
    assert code.read_text().strip() == "130"
    assert not out.exists()


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
    "ReaderGone": "stdout's reader went away: a quiet end (a BaseException, never shown)",
    "_NotStreamed": "a belief submission read whole instead of streamed: caught, never shown",
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
    from strat_tools.benchmark.build import MissingZip, ZipMismatch
    from strat_tools.benchmark.manifest import ManifestError
    from strat_tools.benchmark.submission_files import SubmissionError
    from strat_tools.core.errors import (
        DatasetError,
        IllegalMove,
        InputError,
        NotationError,
        NothingKept,
        NothingReadable,
        NothingToRead,
        OptionError,
        RunError,
        StratToolsError,
        UsageError,
    )
    from strat_tools.core.move import MoveError
    from strat_tools.core.records import RecordError
    from strat_tools.engine.rules.board_check import PositionError
    from strat_tools.formats.readers import SeveralGames
    from strat_tools.generate.games import GenerationError
    from strat_tools.io.output import OutputError, OutputOfAnotherKind, OutputOverInput
    from strat_tools.io.own_files import FieldError
    from strat_tools.io.sources import SourceError
    from strat_tools.io.verified import FolderChanged
    from strat_tools.io.zipdir import ZipError
    from strat_tools.run.batch_work import SelectError
    from strat_tools.run.filters import FilterError
    from strat_tools.run.pipeline import PipelineError
    from strat_tools.run.processes import WorkerFailure
    from strat_tools.setups.patterns import PatternError
    from strat_tools.stats.logit import NotConverged
    from strat_tools.stats.piece_values import TooFewGames

    def bare(kind: type[BaseException]) -> BaseException:
        error = kind.__new__(kind)
        Exception.__init__(error, f"a {kind.__name__}")
        return error

    usage = [UsageError, FilterError, NotationError, PatternError, NothingReadable]
    usage += [OutputOverInput, OutputOfAnotherKind, NothingToRead, NothingKept]
    usage += [SubmissionError, MissingZip, ZipMismatch]
    failed = [StratToolsError, OptionError, InputError, DatasetError, IllegalMove, RunError]
    failed += [RecordError, SeveralGames, GenerationError, OutputError, SourceError, ZipError]
    failed += [PipelineError, WorkerFailure, PositionError, MoveError, FolderChanged]
    failed += [NotConverged, TooFewGames, SelectError, ManifestError, FieldError]
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
    from strat_tools.engine.encodings.strados3 import move_squares

    with pytest.raises(NotationError, match="not a move: 'B4B5'"):
        move_squares("B4B5")


STOPPED_IN_EXEC = """
import time

import click

from strat_tools.cli.errors import library_errors


@click.command()
@library_errors
def run() -> None:
    # What a dataclass or a named tuple does while a module is imported: code compiled from a
    # string. The Ctrl-C lands inside it.
    exec("import os, signal\\nos.kill(os.getpid(), signal.SIGINT)\\nsum(range(1000))")
    time.sleep(60)  # never reached in full: the Ctrl-C, sent again, lands here


run()
"""


STOPPED_IN_SET_NAME = """
import os
import signal
import time

import click

from strat_tools.cli.errors import library_errors


class Field:
    def __set_name__(self, owner: type, name: str) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # as a dataclass field while a module loads
        sum(range(1000))


@click.command()
@library_errors
def run() -> None:
    class Made:
        files = Field()

    time.sleep(60)  # never reached in full: the Ctrl-C, sent again, lands here


run()
"""


@pytest.mark.parametrize(
    ("module", "source"),
    [("stopped_in_set_name", STOPPED_IN_SET_NAME), ("stopped_in_exec", STOPPED_IN_EXEC)],
)
def test_ctrl_c_inside_code_python_will_not_let_raise_still_exits_130(
    module: str, source: str, tmp_path: Path
) -> None:
    """A Ctrl-C landing in code CPython will not let a ``KeyboardInterrupt`` leave cleanly
    is sent again once that code has returned (races CI met):

    - ``__set_name__`` (a dataclass being made during an import): CPython 3.11 turns the
      exception into a ``RuntimeError``, a traceback and exit 1;
    - ``exec``'d code, even when the interrupt is caught: under ``python -m`` CPython dies
      by SIGINT at exit (-2) though the run printed "Interrupted." and cleaned up."""
    (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", module],
        cwd=tmp_path,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as from a terminal
        timeout=120,
    )
    assert done.returncode == EXIT_INTERRUPTED, done.stderr
    assert done.stderr.decode().strip() == "Interrupted."


@pytest.mark.parametrize(
    ("stop", "code"), [(KeyboardInterrupt, EXIT_INTERRUPTED), (Terminated, EXIT_TERMINATED)]
)
def test_a_run_stopped_in_the_callers_process_leaves_its_signal_handlers(
    stop: type[BaseException], code: int
) -> None:
    """In a notebook or a test, a command stopped by Ctrl-C must not leave SIGINT ignored:
    Ctrl-C would stop nothing after it, and every process started later would inherit the
    ignored signal (an export's child kept running to exit 0 under a Ctrl-C)."""

    @library_errors
    def stopped() -> None:
        raise stop

    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    with pytest.raises(SystemExit) as exited:
        stopped()
    assert exited.value.code == code
    assert {signum: signal.getsignal(signum) for signum in before} == before
