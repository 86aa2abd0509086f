"""Outputs that stream, and commands that stop when standard output's reader goes away.

Every command that prints records stops within its current batch when its stdout's reader
goes away (``| head -2``, a reader that dies), whether it was writing (a streamed table) or
still computing (a statistic, a table collected), and ends quietly with exit 0: never does
it read the rest of its input. The tests count the work done: a runner counts the game
files handed to the batches (``--jobs 1``: in the runner's own process) and writes the count
when it exits. The table format of ``events`` streams as the other formats do, and so its
memory does not grow with the input.

Real subprocesses and real pipes; Linux (a pipe without readers is ``POLLERR``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from peak_memory import PEAK_MIB_CODE

from strat_tools.cli.render import render_stream

REPO = Path(__file__).resolve().parent.parent
GAMES = 3_200

COUNTING_RUNNER = """
import atexit, select, sys, time
import strat_tools.run.pipeline as pipeline

original = pipeline.iter_batches
done = [0]
wait = sys.argv[2] in ("wait", "starve")
if sys.argv[2] == "starve":  # the worst a load can do: the reader watch never gets to act
    import strat_tools.cli.errors as errors

    def starved(fd, wake, main):
        poller = select.poll()
        poller.register(wake, select.POLLIN)
        poller.poll()

    errors._watch_reader = starved

def reader_gone():
    poller = select.poll()
    poller.register(1, 0)
    return bool(poller.poll(0))

def counting(*args, **kwargs):
    for batch in original(*args, **kwargs):
        if not done[0]:
            print("working", file=sys.stderr, flush=True)
            while wait and not reader_gone():  # until the test has closed the pipe
                time.sleep(0.01)
        yield batch
        done[0] += len(batch)

pipeline.iter_batches = counting
report = sys.argv[1]
atexit.register(lambda: open(report, "w").write(str(done[0])))
sys.argv = ["strat-tools", *sys.argv[3:]]
from strat_tools.cli import main
main()
"""
"""``python -c COUNTING_RUNNER REPORT wait|starve|go ARGS...``: the command line, counting the
units of every batch it has finished into REPORT at exit (a quiet exit runs ``atexit`` too);
with ``wait``, its first batch waits until stdout's reader has gone, then the run goes on
(unless the command stops), so the test knows the reader left while a batch was being
worked; ``starve`` waits so too, with the thread that watches stdout's reader never acting
(as on a machine too loaded to run it in time): only the run's own check can stop it."""

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="a pipe without readers is POLLERR on Linux"
)


def counted_run(
    args: list[str], report: Path, *, lines: int, starve: bool = False
) -> tuple[int, int, str]:
    """Run the command line on ``args``, read ``lines`` lines of its stdout (0: none, once it
    has started its first batch), close the pipe and wait: (exit code, units done, stderr).
    ``starve``: the reader watch's thread never acts (see :data:`COUNTING_RUNNER`)."""
    how = "go" if lines else "starve" if starve else "wait"
    proc = subprocess.Popen(
        [sys.executable, "-c", COUNTING_RUNNER, str(report), how, *args, "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert proc.stdout is not None and proc.stderr is not None
    if lines:
        for _ in range(lines):
            proc.stdout.readline()
    else:
        assert proc.stderr.readline().strip() == b"working", "the run never started a batch"
    proc.stdout.close()  # the reader goes away
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=300)
    return code, int(report.read_text()), err


PATTERN = "........../........../........../F........."
AGGREGATES = [
    ["setups"],
    ["stats", "--stat", "flag"],
    ["openings"],
    ["advice"],
    ["search", "--pattern", PATTERN],
    ["search", "--pattern", PATTERN, "--list-games"],
    ["filter", "--plies", "10:"],
    ["validate"],
    ["events", "--format", "csv"],
    ["values"],
]
"""Every command that prints what it read (a command writing a file, ``-o``, finishes it)."""


@pytest.mark.parametrize(
    "command", [["setups"], pytest.param(["events"], marks=pytest.mark.slow)], ids=" ".join
)
def test_a_command_stops_at_once_when_its_reader_goes_away(
    command: list[str], many_games: Path, tmp_path: Path
) -> None:
    """Nothing printed yet (setups computes, events has its first batch to replay): the
    reader closes its end, and the run stops in the batch it is in, exit 0, no message."""
    code, done, err = counted_run(
        [command[0], str(many_games), *command[1:]], tmp_path / "n", lines=0
    )
    assert code == 0, err
    assert done < GAMES // 2, f"{done} of {GAMES} games read after the reader went away"
    assert "Traceback" not in err and "Error" not in err


@pytest.mark.slow
@pytest.mark.parametrize("command", AGGREGATES, ids=" ".join)
def test_every_command_that_prints_stops_when_its_reader_goes_away(
    command: list[str], many_games: Path, tmp_path: Path
) -> None:
    """Round five (issue 45.11): on a machine at load 15, ``advice`` once read all 3,200
    games after its reader had gone: the stop waited on the watch's thread and a signal.
    Here that thread never acts, as under any load: the run's own check after each batch
    (``Run.stop``) stops it in its first batch, so no batch is finished after the reader
    went away, however loaded the machine."""
    code, done, err = counted_run(
        [command[0], str(many_games), *command[1:]], tmp_path / "n", lines=0, starve=True
    )
    assert code == 0, err
    assert done == 0, f"{done} of {GAMES} games read after the reader went away"
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "fmt", ["table", *(pytest.param(f, marks=pytest.mark.slow) for f in ("csv", "jsonl"))]
)
def test_events_piped_to_head_stops_after_its_first_rows(
    fmt: str, many_games: Path, tmp_path: Path
) -> None:
    """``events ... | head -2`` in every format: the first batch's rows come out while the
    rest is not read (the table format was collected whole: every game replayed first)."""
    code, done, err = counted_run(
        ["events", str(many_games), "--format", fmt], tmp_path / "n", lines=2
    )
    assert code == 0, err
    assert done < GAMES // 2, f"{done} of {GAMES} games read after head had its two lines"


def test_the_table_format_writes_each_batch_before_the_next_is_made(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Streamed, not collected: by the time the second batch is asked for, the first is
    out, the header once; a later, wider cell widens its column from its batch on."""
    written: list[str] = []

    def batches() -> Iterator[pd.DataFrame]:
        yield pd.DataFrame({"game": ["a-1", "a-2"], "ply": [3, 40]})
        written.append(capsys.readouterr().out)
        yield pd.DataFrame({"game": ["b-222222"], "ply": [5]})

    render_stream(batches(), "table")
    assert written == ["game ply\n a-1   3\n a-2  40"]
    assert capsys.readouterr().out == "\nb-222222   5\n"


def test_a_wide_table_streams_one_block_per_row(capsys: pytest.CaptureFixture[str]) -> None:
    wide = {f"column_{k}": ["x" * 12] for k in range(12)}
    render_stream(iter([pd.DataFrame(wide), pd.DataFrame(wide)]), "table")
    blocks = capsys.readouterr().out.strip().split("\n\n")
    assert len(blocks) == 2 and blocks[0] == blocks[1] and blocks[0].startswith("column_0 x")


def test_no_rows_in_any_batch_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    render_stream(iter([pd.DataFrame({"a": []}), pd.DataFrame({"a": []})]), "table")
    assert capsys.readouterr().out == "(no rows)\n"


def _events_peak_mib(paths: list[str], fmt: str) -> float:
    code = PEAK_MIB_CODE + (
        "import sys, os\n"
        "from strat_tools.cli import main\n"
        "sys.stdout = open(os.devnull, 'w')\n"
        "try:\n"
        "    main(['events', *sys.argv[2:], '--format', sys.argv[1], '--jobs', '1'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(peak_mib(), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, fmt, *paths],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return float(out.stderr.split()[-1])


@pytest.mark.slow
@pytest.mark.archive
def test_events_memory_does_not_grow_with_the_input_in_any_format(gravon_dir: Path) -> None:
    """The table format holds a batch, as csv does: a month named three times peaks within
    20% of one pass (collected, the table grew with every row: 2.15 GB on the archive), and
    within twice csv's peak."""
    month = [str(gravon_dir / "strados2014-4.zip")]  # 863 games, 34,582 events
    one, three = _events_peak_mib(month, "table"), _events_peak_mib(month * 3, "table")
    csv = _events_peak_mib(month * 3, "csv")
    assert three <= 1.2 * one, (one, three)
    assert three <= 2 * csv, (three, csv)
