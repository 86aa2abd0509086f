"""Worker processes: they die with their parent (SIGKILL, SIGTERM), SIGTERM cleans up like
Ctrl-C (exit 143, no temporary file left), a signal ignored at start stays ignored in the run
and its workers, and ``--jobs`` is capped at the cores.

Real subprocesses and real signals; Linux only (``/proc`` lists a process's children).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from strat_tools.run.processes import WorkerFailure, WorkerPool, available_cores, cap_jobs

REPO = Path(__file__).resolve().parent.parent
DATA_ZIP = REPO / "data" / "strados2026-10.zip"

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(), reason="needs Linux /proc to find the workers"
)


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def as_from_a_terminal() -> None:
    """A ``preexec_fn``: SIGINT and SIGTERM as a command typed at a terminal gets them
    (default, unblocked), whatever the test process runs with: a disposition of SIG_IGN
    would be inherited and kept (a background job's), and Ctrl-C would stop nothing."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def start(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "strat_tools", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=as_from_a_terminal,
    )


def wait_for_workers(proc: subprocess.Popen[bytes], count: int, timeout: float = 60) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = children(proc.pid)
        if len(found) >= count:
            return found
        assert proc.poll() is None, "the run ended before its workers were seen"
        time.sleep(0.05)
    pytest.fail("the workers never started")


def set_up_workers(proc: subprocess.Popen[bytes], count: int, timeout: float = 60) -> set[int]:
    """``count`` of ``proc``'s children that ran their setup (they ignore SIGINT, the last
    thing :func:`worker_init` does)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = {p for p in children(proc.pid) if ignores_sigint(p)}
        if len(found) >= count:
            return found
        assert proc.poll() is None, "the run ended before its workers were set up"
        time.sleep(0.02)
    pytest.fail("the workers never ran their setup")


def wait_gone(pids: set[int], timeout: float = 10) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    left = {p for p in pids if alive(p)}
    for pid in left:  # never leave strays behind, whatever the outcome
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.skipif(available_cores() < 2, reason="a pool needs two cores (--jobs is capped)")
def test_workers_die_when_their_parent_is_killed(many_games: Path) -> None:
    proc = start("validate", str(many_games), "--jobs", "2", "-q")
    workers = wait_for_workers(proc, 2)
    proc.kill()
    proc.wait(timeout=30)
    assert wait_gone(workers) == set(), "workers outlived a SIGKILLed parent"
    # Nobody holds the pipes any more: reading them ends.
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read()
    proc.stderr.read()


@pytest.mark.skipif(available_cores() < 2, reason="a pool needs two cores (--jobs is capped)")
def test_sigterm_stops_workers_and_cleans_up_like_ctrl_c(many_games: Path, tmp_path: Path) -> None:
    out = tmp_path / "tables"
    proc = start("export", str(many_games), "-o", str(out), "--jobs", "2")
    workers = wait_for_workers(proc, 2)
    deadline = time.monotonic() + 30
    while not any(p.name.startswith(".") and ".tmp-" in p.name for p in out.glob(".*")):
        assert time.monotonic() < deadline, "the export never opened its temporary files"
        time.sleep(0.05)
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err.decode()[-2000:]
    assert err.decode().strip().endswith("Terminated.")
    assert "Traceback" not in err.decode()
    assert wait_gone(workers) == set(), "workers outlived a SIGTERMed parent"
    assert not out.exists()  # temporary tables removed, the folder it created too


def test_jobs_are_capped_at_the_cores_and_the_cap_is_said(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "strat_tools", "validate", str(DATA_ZIP), "--jobs", "1000", "-q"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    cores = available_cores()
    noun = "core" if cores == 1 else "cores"
    assert f"--jobs 1,000 is more than the {cores} {noun} available: using {cores}" in run.stderr
    assert cap_jobs(1000) == cores and cap_jobs(1) == 1


@pytest.mark.skipif(available_cores() < 2, reason="a pool needs two cores (--jobs is capped)")
def test_ctrl_c_exits_130_and_stops_the_workers(many_games: Path, tmp_path: Path) -> None:
    out = tmp_path / "tables"
    proc = start("export", str(many_games), "-o", str(out), "--jobs", "2")
    workers = set_up_workers(proc, 2)
    for pid in workers:  # stopped, they cannot finish the run before the Ctrl-C is handled
        os.kill(pid, signal.SIGSTOP)
    proc.send_signal(signal.SIGINT)  # the parent only: workers ignore SIGINT anyway
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()[-2000:]
    assert "Traceback" not in err.decode() and err.decode().strip().endswith("Interrupted.")
    assert wait_gone(workers) == set()
    assert not out.exists()  # nothing left: not even the folder it created


def dask_workers(pid: int) -> set[int]:
    """The Dask worker processes among ``pid``'s children (not multiprocessing's tracker)."""
    found = set()
    for child in children(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command:
            found.add(child)
    return found


def ignores_sigint(pid: int) -> bool:
    """Whether ``pid`` ignores SIGINT: the last thing :func:`worker_init` does."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    ignored = int(status.split("SigIgn:")[1].split()[0], 16)
    return bool(ignored & (1 << (signal.SIGINT - 1)))


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
@pytest.mark.skipif(available_cores() < 2, reason="a local cluster needs two cores (--jobs)")
def test_dask_workers_die_when_their_parent_is_killed(many_games: Path) -> None:
    """``--dask`` starts a LocalCluster: its workers get the pool workers' setup (a preload),
    so a SIGKILLed parent takes them along even when they are stopped (Ctrl-Z) or busy in C
    code, where Dask's own parent watch (a thread reading a pipe) cannot run."""
    pytest.importorskip("distributed", reason="the 'dist' extra (dask.distributed) is absent")
    proc = start("validate", str(many_games), "--dask", "--jobs", "2", "-q")
    deadline = time.monotonic() + 120
    workers: set[int] = set()
    while time.monotonic() < deadline:
        workers = {p for p in dask_workers(proc.pid) if ignores_sigint(p)}
        if len(workers) >= 2:
            break
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        time.sleep(0.05)
    else:
        pytest.fail("the Dask workers never ran their setup (they do not ignore SIGINT)")
    everything = children(proc.pid)  # the workers and multiprocessing's resource tracker
    try:
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        proc.kill()
        proc.wait(timeout=30)
    finally:
        left = wait_gone(everything, timeout=20)
    assert left == set(), "Dask workers outlived a SIGKILLed parent"
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read()  # nobody holds the pipes any more: reading them ends
    proc.stderr.read()


def test_a_worker_that_died_while_idle_is_a_worker_failure_not_a_broken_pipe() -> None:
    """The pipe to a dead idle worker breaks on the next item: that is a failed run (the
    command line's exit 3), never the ``BrokenPipeError`` that means ``| head`` went away."""
    with WorkerPool(2) as pool:
        for pid in pool.pids:
            os.kill(pid, signal.SIGKILL)
        wait_gone(set(pool.pids))
        with pytest.raises(WorkerFailure, match="killed by signal 9"):
            list(pool.imap(abs, range(-5, 5)))


def ignoring(*signums: int) -> Callable[[], None]:
    """A ``preexec_fn`` that ignores ``signums``, as a shell does for a background job."""

    def ignore() -> None:
        for signum in signums:
            signal.signal(signum, signal.SIG_IGN)

    return ignore


def ignored(pid: int, signum: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return bool(int(status.split("SigIgn:")[1].split()[0], 16) & (1 << (signum - 1)))


@pytest.mark.skipif(available_cores() < 2, reason="a pool needs two cores (--jobs is capped)")
def test_an_inherited_ignore_stays_in_the_run_and_its_workers() -> None:
    """A background job of a script starts with SIGINT ignored (and ``nohup``-like callers
    SIGTERM): the terminal's Ctrl-C must not kill it, as it does not kill a plain Python
    program. The run and its workers keep the ignore, and the run finishes (exit 0)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "strat_tools", "validate", str(DATA_ZIP), "--jobs", "2", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=ignoring(signal.SIGINT, signal.SIGTERM),
    )
    workers = wait_for_workers(proc, 2)
    for pid in (proc.pid, *workers):
        assert ignored(pid, signal.SIGINT) and ignored(pid, signal.SIGTERM), pid
        os.kill(pid, signal.SIGINT)  # the terminal's Ctrl-C reaches every one
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert b"400 games" in out
