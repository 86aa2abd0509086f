"""Every Python block of README.md and of docs/*.md runs (issue 25, point 22), one test per
block, on the shipped sample; a block that names the archive (``strados2014-*.zip``,
``../gravon/``) runs on one month of the real archive and is skipped with the reason when it
is absent; one that reads ``obs/`` gets an observations export of 12 sample games first, one
that reads ``bench-v1`` a benchmark built from tiny zips of the sample (``my_policy``: a
shipped baseline); a
block needing a framework that is not a dependency (torch, jax) is skipped with the reason.
Shell blocks are not Python and are not run here."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

import strat_tools as st

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCKS = [
    (page.relative_to(REPO).as_posix(), number, code)
    for page in PAGES
    for number, code in enumerate(
        re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M), start=1
    )
]
ARCHIVE_NAMES = ("strados2014-*.zip", "../gravon/")
FRAMEWORKS = ("torch", "jax")


def my_function(games: Any) -> int:
    """The README's "your own per-batch reduction": the games of a batch."""
    return len(games.games)


@pytest.fixture(scope="module")
def observations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The observations of 12 games of the sample, as ``strat-tools observations`` writes."""
    from strat_tools.exports.observation_files import export_observations

    root = tmp_path_factory.mktemp("docs-obs")
    games = root / "games"
    games.mkdir()
    with zipfile.ZipFile(REPO / "data" / "strados2026-10.zip") as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".xml"))[::31][:12]:
            (games / Path(name).name).write_bytes(archive.read(name))
    export_observations([games], root / "obs", run=1)
    return root / "obs"


def test_every_page_with_python_has_its_blocks_collected() -> None:
    pages = {page for page, _, _ in BLOCKS}
    assert "README.md" in pages and {"docs/advice.md", "docs/observations.md"} <= pages


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "number", "code"), BLOCKS, ids=[f"{page}-{number}" for page, number, _ in BLOCKS]
)
def test_every_python_block_runs(
    page: str,
    number: int,
    code: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    for framework in FRAMEWORKS:
        if re.search(rf"^import {framework}\b", code, flags=re.M):
            pytest.importorskip(
                framework, reason=f"{framework} is not installed (not a dependency)"
            )
    if any(name in code for name in ARCHIVE_NAMES):  # skips with the reason when absent
        gravon_dir: Path = request.getfixturevalue("gravon_dir")
        month = str(gravon_dir / "strados2014-5.zip")
        for name in ARCHIVE_NAMES:
            code = code.replace(name, month)
    if '"obs/"' in code:
        (tmp_path / "obs").symlink_to(request.getfixturevalue("observations"))
    extra: dict[str, Any] = {}
    if '"bench-v1"' in code:  # a benchmark built from the sample's tiny zips (its definition)
        from bench_sample import make_bench, patch_definition

        from strat_tools.benchmark.baselines import policy_by_name

        (tmp_path / "sample").mkdir()
        make_bench(tmp_path / "sample")
        patch_definition(monkeypatch, tmp_path / "sample" / "gravon")
        (tmp_path / "bench-v1").symlink_to(tmp_path / "sample" / "bench")
        extra["my_policy"] = policy_by_name("counts-last")
    code = code.replace('"data/"', repr(f"{REPO / 'data'}/"))  # the blocks run in a scratch folder
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {
        "st": st,
        "paths": [str(REPO / "data")],
        "my_function": my_function,
        **extra,
    }
    exec(compile(code, f"{page} block {number}", "exec"), namespace)
