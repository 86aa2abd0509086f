"""What starting costs: the heavy libraries load on first use, not with the package, and
the command line builds and shows itself without any of them (issue 36).

bench/compare.py found ``import strat_tools`` nine times slower (0.61 s of CPU against 0.07 s)
after the floors became subpackages: ``strat_tools.formats`` re-exported the setup strings
eagerly, and every reader import passes through it, so numpy and pandas came with the package.
Issue 36 found every command paying for pandas at start (``--version`` 43 times a bare
``python -c pass``): ``cli/openings.py`` imported it at the top, ``cli/events.py`` took the
event kinds from the NumPy module that finds them, and ``--help`` of ``stats``, ``heatmap``,
``report``, ``export`` and ``advice`` read their choices from the modules that do the work.
Each check runs in a fresh interpreter and reads ``sys.modules``; the speed itself is
measured by bench/bench_startup.py (no timing here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from strat_tools.cli import main
from strat_tools.core.startup import BLAS_THREADS

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "lxml")


def loaded_after(statement: str) -> list[str]:
    """The heavy libraries in sys.modules after ``statement``, in a fresh interpreter."""
    code = "\n".join(
        [
            "import json, sys",
            statement,
            f"print(json.dumps(sorted(set({HEAVY!r}) & set(sys.modules))))",
        ]
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(run.stdout)
    return loaded


def loaded_by_cli(runs: list[list[str]]) -> dict[str, list[str]]:
    """For each ``strat-tools ARGS`` in ``runs``, run one after the other in one fresh
    interpreter (each must exit 0 and show something): the heavy libraries in sys.modules
    once it has finished, by its arguments (a library loaded stays loaded, so the first
    run that loads it is the one named)."""
    code = "\n".join(
        [
            "import contextlib, io, json, sys",
            "from strat_tools.cli import main",
            "found = {}",
            f"for args in {runs!r}:",
            "    shown = io.StringIO()",
            "    with contextlib.redirect_stdout(shown):",
            "        try:",
            "            main(args, prog_name='strat-tools')",
            "        except SystemExit as exc:",
            "            assert not exc.code, (args, exc.code)",
            "    assert shown.getvalue().strip(), args",
            f"    found[' '.join(args)] = sorted(set({HEAVY!r}) & set(sys.modules))",
            "print(json.dumps(found))",
        ]
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: dict[str, list[str]] = json.loads(run.stdout)
    return found


@pytest.mark.parametrize(
    "statement",
    [
        "import strat_tools",
        "from strat_tools.formats.readers import read_records",
        "from strat_tools.exports.validate import validate",
        "import strat_tools.cli",
    ],
)
def test_the_package_and_its_readers_load_no_heavy_library(statement: str) -> None:
    assert loaded_after(statement) == []


def test_the_setup_strings_still_come_through_formats_when_asked_for() -> None:
    statement = "from strat_tools.formats import SETUP_FORMATS, format_setup, parse_setup"
    assert "numpy" in loaded_after(statement)


def test_version_and_every_help_load_no_heavy_library() -> None:
    """``--version``, ``--help`` and every registered command's ``--help`` (the list is the
    CLI's own, so a new command is held too)."""
    runs = [["--version"], ["--help"], *([name, "--help"] for name in sorted(main.commands))]
    found = loaded_by_cli(runs)
    assert list(found) == [" ".join(args) for args in runs]
    assert {args: heavy for args, heavy in found.items() if heavy} == {}


def test_the_setup_features_list_is_the_library_s() -> None:
    """``--feature`` offers :mod:`strat_tools.core.choices`' names: the library's features.
    (``--stat`` reads the statistics' own declarations: tests/test_registry.py.)"""
    from strat_tools import stats
    from strat_tools.core.choices import SETUP_FEATURE_NAMES

    assert tuple(stats.SETUP_FEATURES) == SETUP_FEATURE_NAMES


BLAS_PROBE = (
    "import os, strat_tools\n"
    "print(os.environ.get('OPENBLAS_NUM_THREADS'), os.environ.get('MKL_NUM_THREADS'))\n"
)


@pytest.mark.parametrize(
    ("how", "given", "said"),
    [
        ("command line", None, "1 1"),  # one BLAS thread a worker process
        ("command line", "3", "3 1"),  # the caller's own choice is kept
        ("library", None, "None None"),  # a library user's process is never touched
    ],
)
def test_the_command_line_gives_blas_one_thread_unless_told(
    how: str, given: str | None, said: str, tmp_path: Path
) -> None:
    """The command line sets the BLAS thread variables before NumPy loads (a one-row model
    forward pass spun at 55 ms of CPU against 0.27 ms with BLAS's default threads on a
    loaded machine); a library user's environment stays as it was."""
    script = tmp_path / "strat-tools"  # the console script's name: the command line
    script.write_text(BLAS_PROBE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    args = [str(script)] if how == "command line" else ["-c", BLAS_PROBE]
    run = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=True, env=env, cwd=REPO
    )
    assert run.stdout.split() == said.split()
