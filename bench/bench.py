#!/usr/bin/env python3
"""strat-tools benchmark: every speed goal as a ratio to the parse floor, measured in one run.

    python bench/bench.py                       # on ../shared/gravon
    python bench/bench.py PATH... --quick       # fewer measurements, any input

Each measurement runs in a fresh subprocess (clean imports, honest peak memory) and times
only the work, as ``parse_floor.py`` does. Prints a table and, with ``--json FILE``, the raw
numbers. Targets come from the issues; a missed target is printed as such, with the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FLOOR = ROOT.parent / "shared" / "tools" / "parse_floor.py"
DEFAULT_INPUT = ROOT.parent / "shared" / "gravon"


# ----------------------------------------------------------------------------- inner runs


def _cpu_s() -> float:
    """User + system CPU seconds of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _peak_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def inner(task: str, paths: list[str], jobs: int) -> dict[str, Any]:
    """Run one measurement in this process and return its numbers."""
    from strat_tools.io.sources import iter_units

    # The units stream from the paths inside each task, as they do in the CLI: holding a list
    # of them here would put the bench's own list into the peak memory it measures.
    out: dict[str, Any] = {}
    cpu0 = _cpu_s()
    start = time.perf_counter()
    if task == "validate":
        from strat_tools.exports.validate import iter_verdicts

        counts = {"valid": 0, "invalid": 0, "unchecked": 0}
        for verdict in iter_verdicts(paths, jobs=jobs):
            counts[verdict.status.value] += 1
        out.update(counts)
        out["games"] = sum(counts.values())
    elif task in ("read", "read-strict"):
        from strat_tools.formats.readers import read_units

        games = moves = 0
        for record in read_units(iter_units(paths), fast=task == "read"):
            games += 1
            moves += record.plies
        out.update(games=games, moves=moves)
    elif task in ("export", "setups"):
        from strat_tools.run.driver import export_dataset

        with tempfile.TemporaryDirectory() as tmp:
            summary = export_dataset(
                paths, Path(tmp) / "out", jobs=jobs, setups_only=task == "setups"
            )
        out["games"] = summary.games
    elif task == "report":
        from strat_tools.report.inputs import report_inputs_of_paths
        from strat_tools.report.page import report_text

        inputs = report_inputs_of_paths(paths, jobs=jobs)
        out["report_chars"] = len(report_text(inputs, "html"))
        out["games"] = len(inputs.games)
    elif task == "events":
        from strat_tools.exports.event_table import iter_events

        out["events"] = sum(table.num_rows for table in iter_events(paths, jobs=jobs))
    elif task == "observations":
        from strat_tools.exports.observation_files import export_observations

        with tempfile.TemporaryDirectory() as tmp:
            obs = export_observations(paths, Path(tmp) / "obs", jobs=jobs)
        out.update(games=obs.games, observations=obs.observations)
    elif task == "engine":
        out.update(_engine(list(iter_units(paths))))
        return out
    else:
        raise SystemExit(f"unknown task {task}")
    out["seconds"] = time.perf_counter() - start
    out["cpu_s"] = _cpu_s() - cpu0
    out["peak_mb"] = _peak_mb()
    return out


def _engine(units: list[Any]) -> dict[str, Any]:
    """Replay only, on the decoded moves (records read first, not timed), best of 3: the move
    loop (every move checked and played, battles resolved) and the full replay() (plus the
    ending inference and the result check). The machine may be shared: CPU time is kept too."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_engine  # the engine drill-down script beside this one

    from strat_tools.formats.readers import read_units

    records = [r for r in read_units(units, check=False) if r.readable]
    out: dict[str, Any] = {}
    for name, func in (("move_loop", bench_engine.move_loop), ("replay", bench_engine.full_replay)):
        wall, cpu, moves = bench_engine.best_of(func, records, 3)
        out[name] = {
            "moves": moves,
            "seconds": wall,
            "cpu_s": cpu,
            "moves_per_s": moves / wall,
            "moves_per_cpu_s": moves / cpu,
        }
    return out


def chess_yardstick(n_games: int = 300, seed: int = 7) -> dict[str, Any]:
    """python-chess: read a generated PGN file and replay every move (legality-checked)."""
    import io
    import random

    import chess
    import chess.pgn

    rng = random.Random(seed)
    pgn = io.StringIO()
    for i in range(n_games):
        board = chess.Board()
        game = chess.pgn.Game()
        game.headers["Event"] = f"bench {i}"
        node: Any = game
        while not board.is_game_over() and board.ply() < 160:
            move = rng.choice(list(board.legal_moves))
            board.push(move)
            node = node.add_variation(move)
        print(game, file=pgn, end="\n\n")
    text = pgn.getvalue()
    start = time.perf_counter()
    handle = io.StringIO(text)
    moves = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            moves += 1
    seconds = time.perf_counter() - start
    return {"moves": moves, "seconds": seconds, "moves_per_s": moves / seconds}


# ----------------------------------------------------------------------------- outer run


def _run(args: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def floor(paths: list[str], jobs: int) -> dict[str, Any]:
    """parse_floor.py's own timing, in a fresh process (CPU includes its start-up)."""
    cpu0 = _cpu_s()
    proc = subprocess.run(
        [sys.executable, str(FLOOR), "--jobs", str(jobs), *paths],
        capture_output=True,
        text=True,
        check=True,
    )
    fields = dict(kv.split("=") for kv in proc.stdout.split())
    return {
        "seconds": float(fields["seconds"]),
        "games": int(fields["games"]),
        "moves": int(fields["moves"]),
        "cpu_s": _cpu_s() - cpu0,
    }


def measure(task: str, paths: list[str], jobs: int) -> dict[str, Any]:
    """One inner measurement in a fresh subprocess."""
    return _run([str(Path(__file__)), "--inner", task, "--jobs", str(jobs), *paths])


def copies(paths: list[str], times: int, tmp: Path) -> list[str]:
    """``times`` real copies of the input (not links: links would be read once)."""
    out = []
    for i in range(times):
        for p in paths:
            src = Path(p)
            dst = tmp / f"copy{i}" / src.name
            if src.is_dir():
                shutil.copytree(src, dst)
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
            out.append(str(dst))
    return out


def exported(paths: list[str], folder: Path) -> Path:
    """``paths`` exported to ``folder`` by the CLI (not timed: the input of a measurement)."""
    subprocess.run(
        [sys.executable, "-m", "strat_tools", "export", *paths, "-o", str(folder)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quick", action="store_true", help="skip memory and yardstick runs")
    parser.add_argument("--json", help="also write the raw numbers to this file")
    args = parser.parse_args()
    paths = args.paths or [str(DEFAULT_INPUT)]
    if args.inner:
        print(json.dumps(inner(args.inner, paths, args.jobs)))
        return
    all_jobs = os.cpu_count() or 1
    rows: list[tuple[str, str, str, str]] = []
    raw: dict[str, Any] = {
        "machine": f"{platform.machine()}, {all_jobs} cores, Python {platform.python_version()}",
        "input": paths,
    }

    def ratio(name: str, res: dict[str, Any], base: dict[str, Any], target: float | None) -> None:
        raw[name] = res
        if "error" in res:
            rows.append((name, "error", " ".join(res["error"]), ""))
            return
        r = res["seconds"] / base["seconds"]
        cpu = f", CPU {res['cpu_s'] / base['cpu_s']:.2f}x" if base.get("cpu_s") else ""
        verdict = "" if target is None else ("ok" if r <= target else f"MISSED (target {target}x)")
        rows.append((name, f"{res['seconds']:.2f} s", f"{r:.2f}x floor{cpu}", verdict))

    f1 = floor(paths, 1)
    fj = floor(paths, all_jobs)
    raw["floor_1"], raw["floor_all"] = f1, fj
    rows.append(
        (
            "parse_floor --jobs 1",
            f"{f1['seconds']:.2f} s (CPU {f1['cpu_s']:.2f} s)",
            f"{f1['games']} games, {f1['moves']} moves",
            "",
        )
    )
    rows.append((f"parse_floor --jobs {all_jobs}", f"{fj['seconds']:.2f} s", "", ""))
    # Targets: read+checks 1.15x (issue 2); validate 1 job 1.25x (issue 3) and, with the fast
    # path, under the floor (issue 6, aim 0.8x); validate at all cores 1.3x (issue 6); export
    # 2x and setups-only 1.2x (issue 4). The strict path is the fallback for files outside the
    # archive's layout: no target, shown for reference.
    ratio("read + checks (default) 1 job", measure("read", paths, 1), f1, 1.15)
    ratio("read + checks (strict only) 1 job", measure("read-strict", paths, 1), f1, None)
    ratio("validate 1 job", measure("validate", paths, 1), f1, 1.0)
    ratio(f"validate {all_jobs} jobs", measure("validate", paths, all_jobs), fj, 1.3)
    ratio("export 1 job", measure("export", paths, 1), f1, 2.0)
    ratio(f"export {all_jobs} jobs", measure("export", paths, all_jobs), fj, None)
    ratio("setups-only 1 job", measure("setups", paths, 1), f1, 1.2)
    engine = measure("engine", paths, 1)
    raw["engine"] = engine
    if "error" not in engine:
        for key, label, target in (
            ("move_loop", "engine move loop, 1 core", 5e6),
            ("replay", "engine full replay(), 1 core", None),
        ):
            e = engine[key]
            ok = (
                ""
                if target is None
                else ("ok" if e["moves_per_s"] >= target else "MISSED (target 5M/s)")
            )
            rows.append(
                (
                    label,
                    f"{e['moves_per_s'] / 1e6:.2f} M moves/s",
                    f"CPU {e['moves_per_cpu_s'] / 1e6:.2f} M/s, {e['moves']} moves",
                    ok,
                )
            )
    if not args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            four = copies(paths, 4, Path(tmp))
            m1 = measure("export", paths, 1)
            m4 = measure("export", four, 1)
            r1 = measure("report", paths, all_jobs)
            r4 = measure("report", four, all_jobs)
            e1, e4 = measure("events", paths, 1), measure("events", four, 1)
            o1, o4 = measure("observations", paths, 1), measure("observations", four, 1)
            # export of an exported folder (the archive's export, and one of 4x its games)
            folders = [exported(paths, Path(tmp) / "ds1"), exported(four, Path(tmp) / "ds4")]
            d1, d4 = (measure("export", [str(f)], 1) for f in folders)
        raw["memory_1x"], raw["memory_4x"] = m1, m4
        raw["report_1x"], raw["report_4x"] = r1, r4
        raw["events_1x"], raw["events_4x"] = e1, e4
        raw["observations_1x"], raw["observations_4x"] = o1, o4
        raw["export_dataset_1x"], raw["export_dataset_4x"] = d1, d4
        # The analysis commands reduce each batch where it is read; the report is the one
        # that reads the most (setups, moves, diagnostics), so it stands for them all.
        # events and observations stream what the driver's RecordWork makes of each batch.
        for label, one, four_x in (
            ("export, 1 job", m1, m4),
            (f"report, {all_jobs} jobs", r1, r4),
            ("events, 1 job", e1, e4),
            ("observations, 1 job", o1, o4),
            ("export of a dataset folder, 1 job", d1, d4),
        ):
            if "error" in one or "error" in four_x:
                continue
            r = four_x["peak_mb"] / one["peak_mb"]
            rows.append(
                (
                    f"peak memory, {label}, 1x / 4x input",
                    f"{one['peak_mb']:.0f} / {four_x['peak_mb']:.0f} MB",
                    f"{r:.2f}x",
                    "ok" if r <= 1.2 else "MISSED (target 1.2x)",
                )
            )
        chess_res = chess_yardstick()
        raw["python_chess"] = chess_res
        rows.append(
            (
                "python-chess PGN read+replay",
                f"{chess_res['moves_per_s'] / 1e3:.0f} k moves/s",
                f"{chess_res['moves']} moves",
                "yardstick",
            )
        )
    print(f"strat-tools bench on {raw['machine']}; input: {' '.join(paths)}")
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
