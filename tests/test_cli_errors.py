"""How a command ends (``cli/errors.py``): a broken pipe is a quiet exit 0 only when it is
standard output's reader that went away (``| head``); any other broken pipe fails the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from strat_tools.cli.errors import EXIT_FAILED, library_errors

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
