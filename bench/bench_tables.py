#!/usr/bin/env python3
"""Tables benchmark: export and setups-only export against the parse floor, one core, one run.

    .venv/bin/python bench/bench_tables.py [ARCHIVE_DIR] [--jobs N] [--breakdown]

ARCHIVE_DIR defaults to $STRAT_TOOLS_GRAVON or ../shared/gravon. The floor is
``../shared/tools/parse_floor.py`` (imported and run in this process on the same input).
Targets (issue 4): a full export (read, check, replay, build the four tables, write Parquet)
within 2x the floor, the setups-only export within 1.2x. ``--breakdown`` also times the
stages separately (CPU seconds: read+check, replay, table building, writing) to show where
time goes. The machine may be shared: run it when it is quiet; the CPU-time ratio is the
steadier one when it is not.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.dataset import DatasetWriter, export_dataset  # noqa: E402
from strat_tools.gravon import read_units  # noqa: E402
from strat_tools.replay import replay  # noqa: E402
from strat_tools.sources import expand  # noqa: E402
from strat_tools.tables import tables_for_records  # noqa: E402


def load_floor(archive: Path) -> ModuleType:
    """The parse floor script as a module."""
    path = archive.parent / "tools" / "parse_floor.py"
    if not path.exists():
        path = REPO.parent / "shared" / "tools" / "parse_floor.py"
    spec = importlib.util.spec_from_file_location("parse_floor", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"parse floor not found at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(func: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def breakdown(archive: Path) -> list[tuple[str, float]]:
    """CPU seconds per stage of a full export, each stage timed on its own, one core."""
    units = expand([str(archive)])
    _, read_s, records = timed(lambda: list(read_units(units)))
    _, replay_s, _ = timed(lambda: [replay(r) for r in records if r.readable])
    _, tables_s, result = timed(lambda: tables_for_records(records))
    with tempfile.TemporaryDirectory() as tmp:
        _, write_s, _ = timed(lambda: _write(result, Path(tmp)))
    return [
        ("read + check", read_s),
        ("replay", replay_s),
        ("tables (replay + build)", tables_s),
        ("  of which building", tables_s - replay_s),
        ("write parquet", write_s),
    ]


def _write(result: dict[str, Any], folder: Path) -> None:
    with DatasetWriter(folder) as writer:
        writer.write(result)


def main() -> None:
    """Run the floor and both exports once and print one line each."""
    default = os.environ.get("STRAT_TOOLS_GRAVON", str(REPO.parent / "shared" / "gravon"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=default)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args()
    archive = Path(args.archive)
    floor = load_floor(archive)
    floor_wall, floor_cpu, (_files, games, moves) = timed(
        lambda: floor._count(floor._units([str(archive)]))
    )
    print(f"parse floor      {floor_wall:6.2f} s wall {floor_cpu:6.2f} s cpu  "
          f"{games} games, {moves} moves")  # fmt: skip
    for label, setups_only, target in (("export", False, 2.0), ("setups-only", True, 1.2)):
        with tempfile.TemporaryDirectory() as tmp:
            wall, cpu, summary = timed(
                lambda s=setups_only, t=tmp: export_dataset(  # type: ignore[misc]
                    [str(archive)], Path(t) / "out", jobs=args.jobs, setups_only=s
                )
            )
        ratio, cpu_ratio = wall / floor_wall, cpu / floor_cpu
        verdict = "ok" if ratio <= target else f"MISSED (target {target}x)"
        print(f"{label:<16} {wall:6.2f} s wall {cpu:6.2f} s cpu  {ratio:.2f}x floor "
              f"({cpu_ratio:.2f}x in cpu)  {verdict}  "
              f"({summary.games} games, {summary.rows['moves']} moves, "
              f"{summary.rows['setups']} setup rows)")  # fmt: skip
    if args.breakdown:
        for stage, seconds in breakdown(archive):
            print(f"  {stage:<24} {seconds:6.2f} s cpu")


if __name__ == "__main__":
    main()
