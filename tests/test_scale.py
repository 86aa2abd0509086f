"""Scale-out: the same per-file work on a local Dask cluster writes the same dataset as a
local run, row for row, and the output does not depend on the number of workers."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from strat_tools.run.driver import export_dataset
from strat_tools.run.options import Run
from strat_tools.tables.dataset import read_dataset
from strat_tools.tables.schemas import TABLE_NAMES

MONTHS = ("strados2004-11.zip", "strados2013-10.zip", "strados2014-8.zip")


def _tables(folder: Path) -> dict[str, pa.Table]:
    return read_dataset(folder).tables


def _assert_same(left: dict[str, pa.Table], right: dict[str, pa.Table]) -> None:
    for name in TABLE_NAMES:
        assert left[name].schema == right[name].schema, name
        assert left[name].num_rows == right[name].num_rows, name
        assert left[name].equals(right[name]), f"{name} differs"


@pytest.mark.slow
def test_dask_export_equals_local_export_on_three_real_months(
    gravon_dir: Path, tmp_path: Path
) -> None:
    pytest.importorskip("dask.distributed", reason="the 'dist' extra is not installed")
    paths = [str(gravon_dir / m) for m in MONTHS]
    local = export_dataset(paths, tmp_path / "local", run=1)
    dask = export_dataset(paths, tmp_path / "dask", run=Run(jobs=2, dask=True))
    assert local.games == dask.games > 1000
    _assert_same(_tables(tmp_path / "local"), _tables(tmp_path / "dask"))


@pytest.mark.slow
def test_export_is_identical_for_one_and_two_jobs(gravon_dir: Path, tmp_path: Path) -> None:
    paths = [str(gravon_dir / MONTHS[0]), str(gravon_dir / MONTHS[1])]
    export_dataset(paths, tmp_path / "one", run=1)
    export_dataset(paths, tmp_path / "two", run=2)
    _assert_same(_tables(tmp_path / "one"), _tables(tmp_path / "two"))


@pytest.mark.slow
def test_validate_and_stats_print_the_same_with_dask(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed", reason="the 'dist' extra is not installed")
    from click.testing import CliRunner

    from strat_tools.cli import main

    data = str(Path(__file__).resolve().parent.parent / "data")
    runner = CliRunner()
    for args in (["validate", data, "--format", "jsonl"], ["stats", data, "--stat", "scouts"]):
        local = runner.invoke(main, [*args, "--jobs", "1"])
        dask = runner.invoke(main, [*args, "--jobs", "2", "--dask"])
        assert local.exit_code == dask.exit_code and local.exit_code in (0, 1), local.output
        assert local.stdout == dask.stdout and local.stdout
