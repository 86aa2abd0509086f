"""A Dask cluster started in another folder reads the inputs this process was given.

Round five (issue 45.4): a scheduler and a worker started in another working folder got the
paths as given (``data/strados2026-10.zip``), relative to nothing they knew, and ``validate``
said "0 games in 0 files ... 400 unreadable inputs". The inputs are resolved once where they
enter (:class:`strat_tools.run.inputs.Inputs`) and every unit ships the absolute path; the
tables and messages still show the paths as given. A worker that cannot see a path stops the
run and says so, never a run of "unreadable" games.

A real ``dask.distributed`` scheduler and worker, started as their own processes in a
temporary folder, on the loopback interface only, each start bounded, killed (with what they
started) by their own process group when the module's tests are done.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import strat_tools as st
from strat_tools.cli import main
from strat_tools.io.sources import Unit
from strat_tools.run.options import Run
from strat_tools.run.pipeline import PipelineError, map_batches

pytest.importorskip("distributed", reason="the 'dist' extra (dask.distributed) is absent")
pytestmark = pytest.mark.slow  # a scheduler and a worker start: about ten seconds

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "data/strados2026-10.zip"  # relative to ROOT, as a user types it
START_WAIT = 90.0


def _start(args: list[str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", *args],
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own group: the worker's nanny child goes with it
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):  # the group's rest (the nanny's worker)
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def elsewhere_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a scheduler with one worker, both started in an empty folder."""
    folder = tmp_path_factory.mktemp("elsewhere")
    info = folder / "scheduler.json"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(
            _start(
                [
                    "distributed.cli.dask_scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(info),
                ],
                folder,
                folder / "scheduler.log",
            )
        )
        deadline = time.monotonic() + START_WAIT
        while not (info.exists() and info.stat().st_size):
            if time.monotonic() > deadline or procs[0].poll() is not None:
                pytest.fail((folder / "scheduler.log").read_text()[-2000:])
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        procs.append(
            _start(
                [
                    "distributed.cli.dask_worker",
                    address,
                    "--host",
                    "127.0.0.1",
                    "--nworkers",
                    "1",
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                ],
                folder,
                folder / "worker.log",
            )
        )
        from dask.distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(1, timeout=START_WAIT)
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the paths below are relative, as a user's are


def test_validate_on_a_cluster_in_another_folder_reads_relative_paths(
    elsewhere_cluster: str, at_root: None
) -> None:
    local = CliRunner().invoke(main, ["validate", SAMPLE, "--jobs", "1"])
    remote = CliRunner().invoke(main, ["validate", SAMPLE, "--dask-address", elsewhere_cluster])
    assert remote.exit_code == local.exit_code == 0, remote.output
    assert "400 games in 1 file: 400 valid" in remote.output
    assert remote.stdout == local.stdout


def test_tables_read_on_the_cluster_show_the_paths_as_given(
    elsewhere_cluster: str, at_root: None
) -> None:
    games = st.read_games(SAMPLE, setups_only=True, run=Run(dask_address=elsewhere_cluster))
    assert len(games) == 400 and set(games.games["status"]) == {"unchecked"}  # no replay
    assert set(games.games["source"]) == {SAMPLE}  # as given, never the absolute path


def test_a_worker_that_cannot_see_an_input_says_so(elsewhere_cluster: str) -> None:
    unseen = Unit("g.zip", "a.xml", path="/nowhere/strat-tools-test/g.zip")
    with pytest.raises(PipelineError, match=r"cannot see /nowhere/strat-tools-test/g\.zip"):
        list(map_batches(len, [unseen], run=Run(dask_address=elsewhere_cluster)))
