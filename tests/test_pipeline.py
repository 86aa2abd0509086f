"""The batch pipeline: input order kept whatever the number of workers, on a pool or Dask."""

from __future__ import annotations

import itertools
import os
from functools import partial

import pytest

from strat_tools.io.sources import Unit
from strat_tools.run.options import Run
from strat_tools.run.pipeline import (
    PipelineError,
    default_jobs,
    iter_batches,
    map_batches,
)


def _names(batch: list[Unit], tag: str = "") -> list[str]:
    """A picklable batch function: the members, tagged, with the worker's pid."""
    return [f"{tag}{u.member}" for u in batch]


def _pid(batch: list[Unit]) -> int:
    return os.getpid()


UNITS = [Unit("a.zip", f"g{i:04d}.xml") for i in range(523)]


def test_batches_are_contiguous_and_cover_every_unit() -> None:
    batches = list(iter_batches(UNITS, jobs=2))
    assert [u for b in batches for u in b] == UNITS
    assert max(len(b) for b in batches) <= 200
    assert list(iter_batches([], jobs=4)) == []
    assert [len(b) for b in iter_batches(UNITS[:5], jobs=1, batch_size=2)] == [2, 2, 1]


@pytest.mark.parametrize(
    ("count", "jobs", "size"),
    [
        (0, 1, None),
        (1, 1, 1),
        (7, 2, 1),
        (159, 1, 20),
        (160, 1, 20),
        (161, 1, 21),
        (3199, 2, 200),
        (3200, 2, 200),
        (3201, 2, 200),
        (5000, 1, 200),
        (1000, 2, 63),
    ],
)
def test_stream_is_cut_by_the_count_only_while_it_is_short(
    count: int, jobs: int, size: int | None
) -> None:
    # ceil(count / (jobs * 8)) units a batch, at most 200: the stream reads only jobs * 8 * 200
    # units ahead to decide, and the last batch takes the rest.
    units = [Unit("a.zip", f"g{i}.xml") for i in range(count)]
    batches = list(iter_batches(iter(units), jobs))
    assert [u for b in batches for u in b] == units
    assert {len(b) for b in batches[:-1]} <= {size}
    assert not batches or 0 < len(batches[-1]) <= (size or 0)
    assert len(batches) == (-(-count // size) if size else 0)
    assert [len(b) for b in iter_batches(iter(units), jobs, max_batch=1000)][:1] == (
        [min(count, max(1, -(-count // (jobs * 8))))] if count else []
    )


def test_an_endless_stream_is_cut_without_being_read_whole() -> None:
    endless = (Unit("a.zip", f"g{i}.xml") for i in itertools.count())
    first = list(itertools.islice(iter_batches(endless, jobs=2), 3))
    assert [len(b) for b in first] == [200, 200, 200]
    assert first[2][-1].member == "g599.xml"


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_batches_takes_a_stream(jobs: int) -> None:
    out = [n for chunk in map_batches(_names, iter(UNITS), run=jobs) for n in chunk]
    assert out == [u.member for u in UNITS]


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_come_in_input_order_for_any_jobs(jobs: int) -> None:
    out = [n for chunk in map_batches(partial(_names, tag="x"), UNITS, run=jobs) for n in chunk]
    assert out == [f"x{u.member}" for u in UNITS]


def test_progress_counts_every_unit() -> None:
    seen: list[int] = []
    list(map_batches(_names, UNITS, run=Run(jobs=2, progress=seen.append)))
    assert sum(seen) == len(UNITS)


def test_jobs_one_runs_in_this_process_and_more_jobs_do_not() -> None:
    assert set(map_batches(_pid, UNITS, run=1)) == {os.getpid()}
    assert os.getpid() not in set(map_batches(_pid, UNITS, run=2, batch_size=10))


def test_bad_jobs_is_refused() -> None:
    with pytest.raises(ValueError, match="jobs"):
        list(map_batches(_names, UNITS, run=0))
    assert default_jobs() >= 1


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_results_in_order() -> None:
    pytest.importorskip("dask.distributed", reason="the 'dist' extra is not installed")
    out = [n for chunk in map_batches(_names, UNITS, run=Run(jobs=2, dask=True)) for n in chunk]
    assert out == [str(u.member) for u in UNITS]


@pytest.mark.slow
def test_unreachable_dask_scheduler_is_a_clear_error() -> None:
    pytest.importorskip("dask.distributed", reason="the 'dist' extra is not installed")
    with pytest.raises(PipelineError, match="cannot reach the Dask scheduler"):
        list(map_batches(_names, UNITS, run=Run(jobs=1, dask_address="tcp://127.0.0.1:1")))
