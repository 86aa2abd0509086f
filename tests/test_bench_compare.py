"""bench/compare.py: the side-by-side speed comparison of two revisions.

Only that it runs and cleans up: the numbers themselves are the bench's business, never a test's.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COMPARE = REPO / "bench" / "compare.py"
ONE_GAME = REPO / "tests" / "fixtures" / "gravon" / "classic-2014.4-17.xml"

needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (REPO / ".git").exists(),
    reason="bench/compare.py checks revisions out with git: not a git checkout",
)


def compare(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(COMPARE), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def worktrees() -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), "worktree", "list", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_help_names_the_revisions_and_every_measurement() -> None:
    run = compare("--help")
    assert run.returncode == 0, run.stderr
    assert "OLD_REV [NEW_REV]" in run.stdout.replace("\n", " ")
    for name in ("validate", "export", "report", "view", "observations", "parse-floor"):
        assert name in run.stdout


@needs_git
def test_unknown_revision_is_a_usage_error_without_a_traceback() -> None:
    run = compare("no-such-rev-b26", "--quick", "--only", "read")  # --quick: no archive needed
    assert run.returncode == 2
    assert "no such revision: 'no-such-rev-b26'" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""


def test_unknown_measurement_is_a_usage_error_naming_the_known_ones() -> None:
    run = compare("HEAD", "--only", "validate,speed")
    assert run.returncode == 2
    assert "unknown measurement speed" in run.stderr
    assert "observations" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
@needs_git
def test_head_against_head_on_one_game_one_round(tmp_path: Path) -> None:
    raw_file = tmp_path / "raw.json"
    run = compare(
        "HEAD",
        "HEAD",
        "--input",
        str(ONE_GAME),
        "--rounds",
        "1",
        "--only",
        "read,validate",
        "--json",
        str(raw_file),
    )
    # The same code on both sides: whether noise crosses 5% is chance, so 0 or 1, never 2/3.
    assert run.returncode in (0, 1), run.stderr
    lines = run.stdout.splitlines()
    header = next(line for line in lines if line.startswith("measurement"))
    assert header.split()[:4] == ["measurement", "old", "wall", "s"]
    assert sum(line.startswith("st.read_records (read + checks)") for line in lines) == 1
    assert sum(line.startswith("validate, 1 job") for line in lines) == 1
    raw = json.loads(raw_file.read_text())
    assert raw["revisions"]["old"]["commit"] == raw["revisions"]["new"]["commit"]
    assert set(raw["samples"]) == {"read", "validate"}
    for side in ("old", "new"):
        (read,) = raw["samples"]["read"][side]
        assert read["detail"]["games"] == 1
        # each side imported its own throwaway worktree's code, not the installed package
        tree = Path(raw["trees"][side])
        assert read["detail"]["module"] == str(tree / "strat_tools" / "__init__.py")
        assert not tree.exists()
        (validate,) = raw["samples"]["validate"][side]
        assert validate["seconds"] > 0 and validate["cpu_s"] > 0
    assert raw["trees"]["old"] != raw["trees"]["new"]
    assert raw["trees"]["old"] not in worktrees() and raw["trees"]["new"] not in worktrees()


@needs_git
def test_ctrl_c_removes_the_worktrees(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(COMPARE),
            "HEAD",
            "--input",
            str(ONE_GAME),
            "--rounds",
            "50",
            "--only",
            "read",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    # The worktree is announced, then the first progress line: a measurement has run.
    made = proc.stderr.readline()
    assert made.startswith("old: worktree "), made
    tree = Path(made.split()[2])
    first = proc.stderr.readline()
    assert first.startswith("round 1/50"), first
    assert str(tree) in worktrees() and tree.is_dir()
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted; the worktrees are removed" in err
    assert "Traceback" not in err
    assert str(tree) not in worktrees()
    assert not tree.parent.exists()  # the temporary folder that held it, too
