"""The package's docstring examples run as tests (``--doctest-modules`` over ``strat_tools/``,
set in pyproject.toml): only where a module has examples, and a failing example says which
file and line. Replaces a test per module that passed for modules without examples."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def pytest_run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:nbmake", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.slow
def test_the_package_examples_are_collected_one_item_per_docstring() -> None:
    done = pytest_run(
        "--collect-only", "-q", "-o", "addopts=--doctest-modules", "strat_tools", cwd=REPO
    )
    items = [line for line in done.stdout.splitlines() if "::" in line]
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(items) >= 100, done.stdout[-2000:]
    assert "strat_tools/run/processes.py::strat_tools.run.processes.cap_jobs" in items
    # Every module with an example gives items, and one without examples gives none (no
    # test that passes by construction): the modules are chosen from the package as it is.
    modules = sorted(p for p in (REPO / "strat_tools").rglob("*.py") if p.name != "__init__.py")
    plain = [p for p in modules if ">>>" not in p.read_text()]
    shown = [p for p in modules if "\n    >>> " in p.read_text() or "\n>>> " in p.read_text()]
    assert plain and shown
    named = {item.split("::")[0] for item in items}
    assert not named & {p.relative_to(REPO).as_posix() for p in plain}
    assert shown[0].relative_to(REPO).as_posix() in named


def test_a_failing_example_names_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "sample.py").write_text(
        '"""A module."""\n\n\ndef double(x):\n    """Twice x.\n\n'
        '    >>> double(2)\n    4\n    >>> double(3)\n    7\n    """\n    return 2 * x\n'
    )
    done = pytest_run("-o", "addopts=--doctest-modules", "sample.py", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "sample.py:9: DocTestFailure" in done.stdout, done.stdout
    assert "Expected:\n    7\nGot:\n    6" in done.stdout
