"""Behaviour kept through the redesign: outputs equal those recorded before it.

``tests/golden/record.py`` recorded ``validate --format json``, every ``stats --stat`` (csv),
every ``advice --view`` (json) and ``report --format md`` on ``data/`` and on the real
archive before the analysis floors were redesigned (issue 15). A deliberate change of output
is re-recorded in its own commit that says why.
"""

from __future__ import annotations

import difflib
import gzip
import importlib.util
import io
from pathlib import Path
from typing import Any

import pytest

from conftest import shared_once

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("golden_record", HERE / "golden" / "record.py")
assert _spec is not None and _spec.loader is not None
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)

CASES = sorted(record.commands().items())


def _compare(
    name: str,
    corpus: Path,
    folder: Path,
    args: list[str],
    tmp_path: Path,
    actual: bytes | None = None,
) -> None:
    expected = gzip.decompress((folder / f"{name}.gz").read_bytes())
    if actual is None:
        actual = record.run(args, corpus, tmp_path)
    if actual != expected:
        diff = difflib.unified_diff(
            expected.decode(errors="replace").splitlines(),
            actual.decode(errors="replace").splitlines(),
            "recorded",
            "now",
            lineterm="",
            n=1,
        )
        pytest.fail(f"{name} changed:\n" + "\n".join(list(diff)[:60]))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "args"), CASES, ids=[name for name, _ in CASES])
def test_sample_outputs_unchanged(name: str, args: list[str], tmp_path: Path) -> None:
    """The shipped sample gives the outputs recorded before the redesign."""
    _compare(name, record.corpora()["data"], HERE / "golden" / "data", args, tmp_path)


def parsed_cases(command: Any, corpus: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each case of the click ``command`` (``stats``, ``advice``) on ``corpus``: its output
    file's name and the command's parsed options, as the command line would give them."""
    return [
        (
            name,
            command.make_context(
                args[0], [str(corpus) if arg == "{corpus}" else arg for arg in args[1:]]
            ).params,
        )
        for name, args in CASES
        if args[0] == command.name
    ]


def write_rendered(
    folder: Path, corpus: Path, cases: list[tuple[str, dict[str, Any]]], tables: list[Any]
) -> None:
    """Each case's table rendered in its ``--format`` into ``folder``, as recorded."""
    from strat_tools.cli.render import render

    for (name, params), table in zip(cases, tables, strict=True):
        out = io.StringIO()
        render(table, params["fmt"], out)
        (folder / name).write_bytes(record.normalise(out.getvalue().encode(), corpus))


def every_statistic_in_one_pass(corpus: Path, folder: Path) -> None:
    """Write the output of every ``stats`` case on ``corpus`` into ``folder``, computed as
    the command computes it (its parsed options, :func:`compute_many_streaming`,
    :func:`render`) but all in one pass over the records instead of one run each."""
    from strat_tools.cli.tables import stat_request
    from strat_tools.cli.tables import stats as stats_command
    from strat_tools.stats.stream import compute_many_streaming

    cases = parsed_cases(stats_command, corpus)
    requests = [stat_request(**params) for _, params in cases]
    write_rendered(folder, corpus, cases, compute_many_streaming(requests, [str(corpus)], run=2))


def every_advice_view_in_one_pass(corpus: Path, folder: Path) -> None:
    """Write the output of every ``advice`` case on ``corpus`` into ``folder``, computed as
    the command computes it (its parsed options, the views' counts summed batch by batch,
    :func:`render`) but all in one pass over the records
    (:func:`~strat_tools.stats.advice.advice_tables_of_paths`) instead of one run each."""
    from strat_tools.cli.advice import advice as advice_command
    from strat_tools.stats.advice import advice_tables_of_paths

    cases = parsed_cases(advice_command, corpus)
    (variant,) = {params["variant"] for _, params in cases}
    assert all(params["fmt"] == "json" for _, params in cases)  # the table format digests tips
    filters = ("period", "plies", "ending", "winner", "ids_file", "pattern", "duplicates")
    assert not any(params[key] for _, params in cases for key in filters)  # no filter: all
    views = [params["view"] for _, params in cases]
    tables = advice_tables_of_paths(
        [str(corpus)], views, None if variant == "all" else variant, run=2
    )
    write_rendered(folder, corpus, cases, [tables[view] for view in views])


ONE_PASS = {"stats": every_statistic_in_one_pass, "advice": every_advice_view_in_one_pass}
"""The commands whose archive cases are computed in one shared pass over the records."""


@pytest.mark.slow
@pytest.mark.archive
@pytest.mark.parametrize(("name", "args"), CASES, ids=[name for name, _ in CASES])
def test_archive_outputs_unchanged(
    name: str,
    args: list[str],
    tmp_path: Path,
    gravon_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The real archive gives the outputs recorded before the redesign. The statistics and
    the advice views are computed in one shared pass each (every ``stats`` case at once, as
    the command computes each; every ``advice`` view likewise); the sample's cases above run
    the command itself, one run each."""
    actual = None
    if args[0] in ONE_PASS:
        make = ONE_PASS[args[0]]
        shared = shared_once(
            tmp_path_factory,
            f"golden-{args[0]}",
            lambda folder: make(gravon_dir, folder),
        )
        actual = (shared / name).read_bytes()
    _compare(name, gravon_dir, HERE / "golden" / "gravon", args, tmp_path, actual)
