"""A closed stdout (``>&-``) is taken as ``/dev/null``, by every command in every format.

Round five (issue 45.16): ``strat-tools validate g >&-`` ended in a traceback
(``csv.writer``: "argument 1 must have a "write" method") and exit 1. The installed console
script is started by its ``#!`` line, so the interpreter's own arguments are ``python
/venv/bin/strat-tools ...``: the start-up guard that opens ``/dev/null`` on a closed
descriptor did not know it for the command line (only ``python -m strat_tools`` and a bare
``strat-tools`` were), and Python left ``sys.stdout`` as ``None``. The tests run the console
script as the system does, from a copy of the wrapper installers write.

Every command, every ``--format`` (or ``--to``) it has, on inputs it succeeds on: with
stdout closed it does its work and exits 0, without a traceback (``validate`` of an invalid
game keeps its own 1).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest

from strat_tools.cli import main

REPO = Path(__file__).resolve().parent.parent
GAME = str(REPO / "tests" / "fixtures" / "gravon" / "classic-2014.4-17.xml")
INVALID = str(REPO / "tests" / "fixtures" / "gravon" / "bad_square.xml")
PATTERN = "........../........../........../F........."

WRAPPER = """#!{python}
import re
import sys
from strat_tools.cli import main
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit(main())
"""
"""The console script as pip and uv write it (``[project.scripts]``)."""

# Each command's arguments besides its format; {out} is a fresh path for a file it writes.
ARGUMENTS: dict[str, list[str]] = {
    "validate": [GAME],
    "generate": ["-n", "2", "-o", "{out}.zip"],
    "export": [GAME, "-o", "{out}"],
    "stats": [GAME, "--stat", "flag"],
    "advice": [GAME],
    "heatmap": [GAME, "-o", "{out}.png"],
    "report": [GAME, "-o", "{out}.{format}"],
    "show": [GAME],
    "rules": [],
    "observations": [GAME, "-o", "{out}"],
    "convert": [GAME, "-o", "{out}.zip"],
    "events": [GAME],
    "view": [GAME, "-o", "{out}.html"],
    "setups": [GAME],
    "search": [GAME, "--pattern", PATTERN],
    "openings": [GAME],
    "explore": [GAME, "-o", "{out}.html"],
    "filter": [GAME, "-o", "{out}"],
    "values": [str(REPO / "data" / "strados2026-10.zip")],  # its model needs 50 games
}
"""Every command of the command line (a test below holds this to ``main.commands``)."""


def _formats(command: click.Command) -> tuple[str | None, list[str]]:
    for param in command.params:
        if isinstance(param, click.Option) and {"--format", "--to"} & set(param.opts):
            choices = getattr(param.type, "choices", None)
            if choices:
                return max(param.opts, key=len), [str(c) for c in choices]
    return None, []


def _cases() -> list[Any]:
    cases = []
    for name, command in sorted(main.commands.items()):
        if isinstance(command, click.Group) or name not in ARGUMENTS:
            continue
        flag, choices = _formats(command)
        for choice in choices or [""]:
            fmt = [flag, choice] if flag else []
            cases.append(pytest.param(name, fmt, id=" ".join([name, *fmt])))
    return cases


@pytest.fixture(scope="module")
def console_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    script = tmp_path_factory.mktemp("bin") / "strat-tools"
    script.write_text(WRAPPER.format(python=sys.executable))
    script.chmod(0o755)
    return script


def _run(
    script: Path, args: list[str], *, closed: tuple[int, ...]
) -> subprocess.CompletedProcess[bytes]:
    def close() -> None:
        for fd in closed:
            os.close(fd)

    return subprocess.run(
        [str(script), *args],
        stdout=subprocess.DEVNULL if 1 not in closed else None,
        stderr=subprocess.PIPE if 2 not in closed else None,
        cwd=REPO,
        preexec_fn=close,
        timeout=300,
    )


def _arguments(name: str, fmt: list[str], out: Path) -> list[str]:
    choice = fmt[1] if fmt else ""
    args = [a.format(out=out, format=choice) for a in ARGUMENTS[name]]
    params = main.commands[name].params
    jobs = ["--jobs", "1"] if any("--jobs" in getattr(p, "opts", ()) for p in params) else []
    return [name, *args, *fmt, *jobs]


def test_every_command_has_its_arguments_here() -> None:
    commands = {n for n, c in main.commands.items() if not isinstance(c, click.Group)}
    assert commands == set(ARGUMENTS)


@pytest.mark.parametrize(
    ("args", "closed", "code"),
    [
        ([INVALID, "--format", "csv"], (1,), 1),
        ([GAME, "--format", "json"], (1,), 0),
        ([GAME, "--format", "csv"], (2,), 0),  # unseen stderr: a traceback would exit 1
        ([GAME], (1, 2), 0),
    ],
    ids=["csv, invalid, >&-", "json, >&-", "csv, 2>&-", ">&- 2>&-"],
)
def test_the_console_script_takes_a_closed_stream_as_dev_null(
    console_script: Path, args: list[str], closed: tuple[int, ...], code: int
) -> None:
    run = _run(console_script, ["validate", *args, "--jobs", "1"], closed=closed)
    assert run.returncode == code, (run.stderr or b"").decode()[-2000:]
    assert b"Traceback" not in (run.stderr or b"")


@pytest.mark.slow  # about fifty commands started: two minutes
@pytest.mark.parametrize(("name", "fmt"), _cases())
def test_every_command_and_format_with_stdout_closed_does_its_work(
    console_script: Path, name: str, fmt: list[str], tmp_path: Path
) -> None:
    closed = _run(console_script, _arguments(name, fmt, tmp_path / "out"), closed=(1,))
    assert b"Traceback" not in closed.stderr, closed.stderr.decode()[-2000:]
    assert closed.returncode == 0, closed.stderr.decode()[-2000:]
