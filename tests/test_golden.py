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
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("golden_record", HERE / "golden" / "record.py")
assert _spec is not None and _spec.loader is not None
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)

CASES = sorted(record.commands().items())


def _compare(name: str, corpus: Path, folder: Path, args: list[str], tmp_path: Path) -> None:
    expected = gzip.decompress((folder / f"{name}.gz").read_bytes())
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


@pytest.mark.slow
@pytest.mark.archive
@pytest.mark.parametrize(("name", "args"), CASES, ids=[name for name, _ in CASES])
def test_archive_outputs_unchanged(
    name: str, args: list[str], tmp_path: Path, gravon_dir: Path
) -> None:
    """The real archive gives the outputs recorded before the redesign."""
    _compare(name, gravon_dir, HERE / "golden" / "gravon", args, tmp_path)
