#!/usr/bin/env python3
"""Compare two revisions' speed side by side: bench/bench.py's measurements, old against new.

    python bench/compare.py OLD_REV [NEW_REV]              # the whole archive (../shared/gravon)
    python bench/compare.py 466d43e --quick                # data/ (400 synthetic games)
    python bench/compare.py 466d43e HEAD --only validate,export --rounds 5 --json raw.json

OLD_REV and NEW_REV are anything ``git rev-parse`` understands; NEW_REV defaults to the working
tree as it is (uncommitted changes included). Each revision named is checked out into a
throwaway ``git worktree`` under one temporary folder, removed afterwards (on success, on an
error, on Ctrl-C or SIGTERM alike). Every measurement runs in a fresh process with
``PYTHONPATH`` (and the working folder) set to that tree, so it imports that tree's code and
nothing else; the check is made, not assumed.

The measurements go through interfaces both revisions have, whatever moved inside: the command
line (``python -m strat_tools validate|export|stats|report|view|observations|events ...``, the
commands bench/bench.py times), the public ``import strat_tools as st`` (``st.read_records``,
``st.replay``, the import itself), and the two floors ``../shared/tools/parse_floor.py`` and
``inflate_floor.py``. The floors run the same code for both sides: they are the control, and
their change is the noise of this machine during the run.

The runs are interleaved, the order swapped every other round (A B, B A, ...), so that the
machine's load and a warm cache fall on both alike. Each measurement keeps the best and the
median of its rounds, wall-clock and CPU seconds (the process and its workers; CPU time, the
steadier on a shared machine, is flagged by default). ``--flag-on instructions`` counts the
instructions run under valgrind instead, the same however busy the machine. A measurement more
than 5% slower (``--threshold``) by its best is flagged ``SLOWER``.

Prints one table (measurement, old, new, change) to stdout, progress to stderr; ``--json FILE``
writes every raw number. Exit codes: 0 no measurement flagged, 1 some measurement flagged
slower, 2 usage error (unknown revision or measurement), 3 a run failed (its error is shown),
130 Ctrl-C, 143 SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT.parent / "shared" / "tools"
DEFAULT_INPUT = ROOT.parent / "shared" / "gravon"
QUICK_INPUT = ROOT / "data"
THRESHOLD = 5.0
INNER_SCRIPT = "inner.py"
VALGRIND = "valgrind"


class UsageError(Exception):
    """A mistake on the command line: exit 2."""


class RunFailed(Exception):
    """The comparison itself could not be made (git, a tree importing the wrong code): exit 3."""


# ----------------------------------------------------------------------------- measurements


@dataclass(frozen=True)
class Measurement:
    """One thing timed: ``argv(paths, out, jobs)`` is the command after ``python``, run in
    the tree; ``out`` is a fresh folder for its outputs, in the scratch folder. ``inner``
    measurements time only the work inside the process and print it as JSON (the import
    itself, the library calls)."""

    name: str
    label: str
    argv: Callable[[list[str], Path, int], list[str]]
    inner: bool = False
    control: bool = False


def _cli(line: str) -> Callable[..., list[str]]:
    """``python -m strat_tools COMMAND PATHS OPTIONS``, from ``"COMMAND OPTIONS"`` ({out}: a
    path in the run's fresh folder, {jobs}: the --jobs given)."""
    command, *options = line.split()

    def argv(paths: list[str], folder: Path, jobs: int) -> list[str]:
        rest = [
            o.replace("{out}", str(folder / "out")).replace("{jobs}", str(jobs)) for o in options
        ]
        return ["-m", "strat_tools", command, *paths, *rest]

    return argv


def _inner(task: str) -> Callable[..., list[str]]:
    # The scratch folder's copy of this script (see ``worktrees``): the same measuring code
    # for both sides, which an edit of the working tree during a run cannot change.
    def argv(paths: list[str], folder: Path, jobs: int) -> list[str]:
        return [str(folder.parent / INNER_SCRIPT), "--inner", task, *paths]

    return argv


def _floor(line: str) -> Callable[..., list[str]]:
    script, *options = line.split()
    return lambda paths, folder, jobs: [str(TOOLS / script), *options, *paths]


CLI_RUNS = (  # name, label, command and options (the paths go after the command)
    ("validate", "validate, 1 job", "validate -q -j 1"),
    ("validate-all", "validate, all jobs", "validate -q -j {jobs}"),
    ("export", "export, 1 job", "export -o {out} -j 1"),
    ("export-all", "export, all jobs", "export -o {out} -j {jobs}"),
    ("setups", "export --setups-only, 1 job", "export --setups-only -o {out} -j 1"),
    ("stats", "stats --stat flag, 1 job", "stats --stat flag -j 1"),
    ("stats-scouts", "stats --stat scouts, 1 job", "stats --stat scouts -j 1"),
    ("report", "report, 1 job", "report -o {out}.html -j 1"),
    ("view", "view, 1 job", "view -o {out}.html -j 1"),
    ("observations", "observations, 1 job", "observations -o {out} -j 1"),
    ("events", "events --format csv, 1 job", "events --format csv -j 1"),
)
MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement("import", "import strat_tools", _inner("import"), inner=True),
    Measurement("startup", "strat-tools --help", lambda p, f, j: ["-m", "strat_tools", "--help"]),
    Measurement("read", "st.read_records (read + checks)", _inner("read"), inner=True),
    Measurement("read-strict", "st.read_records(fast=False)", _inner("read-strict"), inner=True),
    Measurement("replay", "st.replay, every game", _inner("replay"), inner=True),
    *(Measurement(name, label, _cli(line)) for name, label, line in CLI_RUNS),
    Measurement(
        "parse-floor", "parse_floor.py (control)", _floor("parse_floor.py --jobs 1"), control=True
    ),
    Measurement(
        "inflate-floor", "inflate_floor.py (control)", _floor("inflate_floor.py"), control=True
    ),
)
BY_NAME = {m.name: m for m in MEASUREMENTS}


def inner(task: str, paths: list[str]) -> dict[str, Any]:
    """Run one inner measurement in this process (the tree's code on PYTHONPATH) and return
    its numbers: only the public ``strat_tools`` face, which every revision offers."""
    start, cpu0 = time.perf_counter(), time.process_time()
    import strat_tools as st

    out: dict[str, Any] = {"module": str(Path(st.__file__).resolve())}
    if task != "import":
        start, cpu0 = time.perf_counter(), time.process_time()
    # Each task first does one game's worth outside the clock: the package imports its
    # floors on first use (the face is lazy since issue 36), and what is timed is the work on
    # every game, not the imports (``import`` and ``startup`` time those).
    if task in ("read", "read-strict"):
        next(iter(st.read_records(paths, fast=task == "read")))
        start, cpu0 = time.perf_counter(), time.process_time()
        games = plies = 0
        for record in st.read_records(paths, fast=task == "read"):
            games += 1
            plies += record.plies
        out.update(games=games, plies=plies)
    elif task == "replay":
        records = [r for r in st.read_records(paths, check=False) if r.readable and r.setup]
        st.replay(records[0])
        start, cpu0 = time.perf_counter(), time.process_time()
        plies = 0
        for record in records:
            plies += len(st.replay(record).movers)
        out.update(games=len(records), plies=plies)
    elif task != "import":
        raise SystemExit(f"unknown inner task {task}")
    out["seconds"] = time.perf_counter() - start
    out["cpu_s"] = time.process_time() - cpu0
    return out


# ----------------------------------------------------------------------------- running


@dataclass
class Sample:
    """One run of one measurement on one side."""

    seconds: float
    cpu_s: float
    peak_mb: float
    detail: dict[str, Any] = field(default_factory=dict)
    instructions: int = 0  # with --instructions: counted by valgrind, the whole process


def _tail(path: Path, lines: int = 3) -> str:
    text = path.read_text(errors="replace").strip().splitlines()
    return " | ".join(text[-lines:]) or "(no message)"


def run_once(
    m: Measurement, tree: Path, paths: list[str], jobs: int, tmp: Path, count: bool = False
) -> Sample:
    """``m`` once in a fresh process on ``tree``'s code; raises RunFailed with its message.
    ``count``: under valgrind's callgrind, which counts the instructions run (the process and
    its forked workers): the same count on a busy machine as on an idle one."""
    folder = Path(tempfile.mkdtemp(prefix=f"{m.name}-", dir=tmp))
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("STRAT_TOOLS_PROGRESS", None)
    out, err = folder / "stdout", folder / "stderr"
    argv = [sys.executable, *m.argv(paths, folder, jobs)]
    if count:
        logs = f"--log-file={folder / 'valgrind'}.%p"
        argv = [VALGRIND, "--tool=callgrind", "--callgrind-out-file=/dev/null", logs, *argv]
    try:
        with out.open("wb") as o, err.open("wb") as e:
            start = time.perf_counter()
            proc = subprocess.Popen(
                argv, cwd=tree, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL
            )
            try:
                _pid, status, usage = os.wait4(proc.pid, 0)
            except BaseException:
                proc.kill()
                os.wait4(proc.pid, 0)
                raise
            seconds = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise RunFailed(f"{m.name} on {tree.name} exited {proc.returncode}: {_tail(err)}")
        detail: dict[str, Any] = {}
        if m.inner:
            detail = json.loads(out.read_text().strip().splitlines()[-1])
            if Path(detail["module"]) != (tree / "strat_tools" / "__init__.py").resolve():
                raise RunFailed(f"{m.name} on {tree}: imported {detail['module']}")
        cpu = usage.ru_utime + usage.ru_stime
        sample = Sample(seconds, cpu, usage.ru_maxrss / 1024, detail)
        if count:
            sample.instructions = sum(
                int(line.split()[-1])
                for log in folder.glob("valgrind.*")
                for line in log.read_text().splitlines()
                if "Collected :" in line
            )
        if m.inner:
            sample.seconds, sample.cpu_s = detail["seconds"], detail["cpu_s"]
        return sample
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check_imports(tree: Path) -> None:
    """The tree's own strat_tools is the one imported with its PYTHONPATH (not an installed one);
    and the tree is byte-compiled first, so that round 1 does not pay for it on one side only."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    code = (
        "import compileall, pathlib, strat_tools\n"
        "print(pathlib.Path(strat_tools.__file__).resolve())\n"
        "compileall.compile_dir('strat_tools', quiet=2)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=False
    )
    want = (tree / "strat_tools" / "__init__.py").resolve()
    got = proc.stdout.strip()
    if proc.returncode != 0 or Path(got) != want:
        raise RunFailed(f"{tree} does not import its own code: {got or proc.stderr.strip()[-300:]}")


# ----------------------------------------------------------------------------- revisions


def _git(*args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RunFailed(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def resolve(rev: str) -> tuple[str, str]:
    """(full commit id, one-line description) of ``rev``; UsageError when git knows no such."""
    try:
        commit = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except RunFailed:
        raise UsageError(f"no such revision: {rev!r}") from None
    return commit, _git("log", "-1", "--format=%h %s", commit)[:72]


@contextmanager
def worktrees(commits: dict[str, str]) -> Iterator[tuple[dict[str, Path], Path]]:
    """A throwaway worktree per side (``commits``: side -> commit) under one temporary folder,
    and a scratch folder beside them; all removed on the way out, whatever the way out."""
    tmp = Path(tempfile.mkdtemp(prefix="strat-compare-"))
    made: list[Path] = []
    try:
        trees: dict[str, Path] = {}
        for side, commit in commits.items():
            path = tmp / side
            _git("worktree", "add", "--detach", "--quiet", str(path), commit)
            made.append(path)
            trees[side] = path
            print(f"{side}: worktree {path} ({commit[:12]})", file=sys.stderr)
        scratch = tmp / "scratch"
        scratch.mkdir()
        shutil.copy2(Path(__file__).resolve(), scratch / INNER_SCRIPT)
        yield trees, scratch
    finally:
        for path in made:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                capture_output=True,
                check=False,
            )
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "prune"], capture_output=True, check=False
        )


# ----------------------------------------------------------------------------- table


def _stats(samples: list[Sample], key: str) -> tuple[float, float]:
    values = [getattr(s, key) for s in samples]
    return min(values), statistics.median(values)


def _change(old: float, new: float) -> float:
    return (new / old - 1) * 100 if old > 0 else 0.0


METRICS = {"wall": "seconds", "cpu": "cpu_s", "instructions": "instructions"}


def summarise(
    results: dict[str, dict[str, list[Sample]]], flag_on: str, threshold: float
) -> list[dict[str, Any]]:
    """Per measurement: best and median of each side, wall and CPU, their change in percent,
    and whether it is flagged (more than ``threshold`` percent slower by the best ``flag_on``)."""
    rows = []
    for name, sides in results.items():
        row: dict[str, Any] = {"name": name, "label": BY_NAME[name].label}
        for key in ("seconds", "cpu_s", "instructions"):
            (ob, om), (nb, nm) = _stats(sides["old"], key), _stats(sides["new"], key)
            row[key] = {
                "old_best": ob,
                "old_median": om,
                "new_best": nb,
                "new_median": nm,
                "change_best": _change(ob, nb),
                "change_median": _change(om, nm),
            }
        row["peak_mb"] = {side: max(s.peak_mb for s in sides[side]) for side in ("old", "new")}
        key = METRICS[flag_on]
        row["flagged"] = not BY_NAME[name].control and row[key]["change_best"] > threshold
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], flag_on: str, threshold: float) -> str:
    """The table printed: best (median) seconds of each side and the change, wall and CPU; or,
    counted under valgrind, the instructions of each side and the change."""
    counted = flag_on == "instructions"
    if counted:
        head = ["measurement", "old instructions", "new instructions", "change", ""]
    else:
        head = ["measurement", "old wall s", "new wall s", "change", "old CPU s", "new CPU s"]
        head += ["change", "peak MB old/new", ""]
    lines = [head]
    for row in rows:
        cells = [row["label"]]
        if counted:
            r = row["instructions"]
            cells += [f"{r['old_best']:,.0f}", f"{r['new_best']:,.0f}", f"{r['change_best']:+.1f}%"]
        for key in () if counted else ("seconds", "cpu_s"):
            r = row[key]
            cells += [
                f"{r['old_best']:.3f} ({r['old_median']:.3f})",
                f"{r['new_best']:.3f} ({r['new_median']:.3f})",
                f"{r['change_best']:+.1f}% ({r['change_median']:+.1f}%)",
            ]
        if not counted:
            cells.append(f"{row['peak_mb']['old']:.0f} / {row['peak_mb']['new']:.0f}")
        cells.append(f"SLOWER (>{threshold:g}% {flag_on})" if row["flagged"] else "")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    text = [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines
    ]
    text.insert(1, "-" * len(text[0]))
    return "\n".join(text)


# ----------------------------------------------------------------------------- main


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that the worktrees still go: exit 143."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def _parser() -> argparse.ArgumentParser:
    names = ", ".join(m.name for m in MEASUREMENTS)
    parser = argparse.ArgumentParser(
        prog="bench/compare.py",
        description=(__doc__ or "").splitlines()[0],
        epilog=f"Measurements: {names}.",
    )
    parser.add_argument("old", metavar="OLD_REV", help="the revision compared against")
    parser.add_argument(
        "new",
        metavar="NEW_REV",
        nargs="?",
        help="the revision measured (default: the working tree)",
    )
    parser.add_argument("--quick", action="store_true", help=f"small input: {QUICK_INPUT}")
    parser.add_argument(
        "--input",
        action="append",
        metavar="PATH",
        help=f"input file or folder, repeatable (default: {DEFAULT_INPUT}, or data/ with --quick)",
    )
    parser.add_argument("--rounds", type=int, metavar="N", help="rounds (default: 5 quick, 3 else)")
    parser.add_argument("--only", metavar="NAME[,NAME]", help="only these measurements")
    parser.add_argument("--skip", metavar="NAME[,NAME]", help="all measurements but these")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="jobs of the 'all jobs' runs"
    )
    parser.add_argument(
        "--flag-on",
        choices=tuple(METRICS),
        default="cpu",
        help="what is compared and flagged: CPU time (default, steadier on a shared machine), "
        "wall time, or instructions counted under valgrind (the same count however busy the "
        "machine; about 50 times slower, one round is enough)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        metavar="PCT",
        help=f"flag a measurement this many percent slower (default: {THRESHOLD:g})",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the raw numbers to FILE")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    return parser


def _names(text: str | None) -> list[str]:
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        known = ", ".join(BY_NAME)
        raise UsageError(f"unknown measurement {', '.join(unknown)} (known: {known})")
    return names


def chosen(args: argparse.Namespace) -> list[Measurement]:
    """The measurements asked for, in the table's order."""
    only, skip = _names(args.only), _names(args.skip)
    picked = [m for m in MEASUREMENTS if (not only or m.name in only) and m.name not in skip]
    if not picked:
        raise UsageError("no measurement left to run")
    return picked


def sides(args: argparse.Namespace) -> dict[str, dict[str, str]]:
    """side -> {rev, commit, description}; the new side's commit is '' for the working tree."""
    _git("rev-parse", "--git-dir")  # RunFailed, with git's reason, outside a checkout
    old, old_desc = resolve(args.old)
    out = {"old": {"rev": args.old, "commit": old, "description": old_desc}}
    if args.new is None:
        changed = _git("status", "--porcelain", "--untracked-files=no")
        dirty = " + uncommitted changes" if changed else ""
        head = _git("log", "-1", "--format=%h", "HEAD")
        out["new"] = {"rev": "working tree", "commit": "", "description": f"{head}{dirty}"}
    else:
        new, new_desc = resolve(args.new)
        out["new"] = {"rev": args.new, "commit": new, "description": new_desc}
    return out


def compare(args: argparse.Namespace) -> int:
    """The whole comparison; returns the exit code."""
    measurements = chosen(args)
    count = args.flag_on == "instructions"
    if count and shutil.which(VALGRIND) is None:
        raise UsageError("--flag-on instructions needs valgrind, which is not on PATH")
    default_rounds = 1 if count else 5 if args.quick else 3
    rounds = args.rounds if args.rounds is not None else default_rounds
    if rounds < 1 or args.jobs < 1:
        raise UsageError("--rounds and --jobs must be at least 1")
    paths = [
        str(Path(p).resolve())
        for p in (args.input or [QUICK_INPUT if args.quick else DEFAULT_INPUT])
    ]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"no such input: {', '.join(missing)}")
    if args.json and not Path(args.json).resolve().parent.is_dir():
        raise UsageError(f"--json {args.json}: no such folder to write it in")
    revs = sides(args)
    commits = {side: r["commit"] for side, r in revs.items() if r["commit"]}
    raw: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "load_before": os.getloadavg(),
        "input": paths,
        "rounds": rounds,
        "jobs": args.jobs,
        "revisions": revs,
    }
    results: dict[str, dict[str, list[Sample]]] = {
        m.name: {"old": [], "new": []} for m in measurements
    }
    errors: dict[str, str] = {}
    with worktrees(commits) as (trees, scratch):
        trees.setdefault("new", ROOT)
        raw["trees"] = {side: str(path) for side, path in trees.items()}
        for tree in trees.values():
            check_imports(tree)
        for r in range(rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for m in measurements:
                if m.name in errors:
                    continue
                for side in order:
                    try:
                        sample = run_once(m, trees[side], paths, args.jobs, scratch, count)
                    except RunFailed as failed:
                        errors[m.name] = f"{side}: {failed}"
                        print(f"error: {errors[m.name]}", file=sys.stderr)
                        break
                    results[m.name][side].append(sample)
                    print(
                        f"round {r + 1}/{rounds}  {m.name:<13} {side}  "
                        f"{sample.seconds:8.3f} s  CPU {sample.cpu_s:8.3f} s"
                        + (f"  {sample.instructions:,} instructions" if count else ""),
                        file=sys.stderr,
                    )
    done = {n: s for n, s in results.items() if n not in errors and s["old"] and s["new"]}
    rows = summarise(done, args.flag_on, args.threshold)
    raw["load_after"] = os.getloadavg()
    print(
        f"old: {revs['old']['description']}\n"
        f"new: {revs['new']['rev']} ({revs['new']['description']})\n"
        f"input: {' '.join(paths)}; {rounds} round(s), interleaved, best (median); "
        f"{raw['machine']}, load {raw['load_before'][0]:.1f} -> {raw['load_after'][0]:.1f}"
    )
    if rows:
        print(table(rows, args.flag_on, args.threshold))
    key = METRICS[args.flag_on]
    noise = [abs(row[key]["change_best"]) for row in rows if BY_NAME[row["name"]].control]
    if noise:
        print(f"noise: the controls (the same code on both sides) moved by up to {max(noise):.1f}%")
    for name, message in errors.items():
        print(f"{BY_NAME[name].label}: error: {message}")
    if args.json:
        raw["samples"] = {
            n: {side: [vars(s) for s in ss] for side, ss in s.items()} for n, s in results.items()
        }
        raw["summary"], raw["errors"] = rows, errors
        target = Path(args.json)
        partial = target.with_name(f".{target.name}.partial")
        partial.write_text(json.dumps(raw, indent=2) + "\n")
        partial.replace(target)
    if errors:
        return 3
    return 1 if any(row["flagged"] for row in rows) else 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    if argv is None:
        argv = sys.argv[1:]
    if "--inner" in argv:  # one measurement inside a tree's process: no git, no table
        i = argv.index("--inner")
        print(json.dumps(inner(argv[i + 1], argv[i + 2 :])))
        return 0
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return compare(args)
    except UsageError as mistake:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {mistake}", file=sys.stderr)
        return 2
    except RunFailed as failed:
        print(f"{parser.prog}: error: {failed}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted; the worktrees are removed", file=sys.stderr)
        return 130
    except Terminated:
        print(f"{parser.prog}: terminated; the worktrees are removed", file=sys.stderr)
        return 143


if __name__ == "__main__":
    sys.exit(main())
