"""Shared fixtures: where the real Gravon archive is, and small helpers.

Tests that need the real archive take the ``gravon_dir`` fixture: it skips with a clear reason
where the folder is absent (a user's fresh clone). CI sets ``STRAT_TOOLS_REQUIRE_ARCHIVE=1`` so
that a missing archive fails there instead of skipping silently.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
WHOLE_ARCHIVE = os.environ.get("STRAT_TOOLS_WHOLE_ARCHIVE") == "1"
"""``STRAT_TOOLS_WHOLE_ARCHIVE=1``: the archive tests that walk a sample of its games in CI (a
game-by-game check whose cost is per game, each sample stated in its test) walk every game."""
T = TypeVar("T")


def archive_path() -> Path:
    """The real archive folder: $STRAT_TOOLS_GRAVON, else ``<repo>/../shared/gravon``."""
    env = os.environ.get("STRAT_TOOLS_GRAVON")
    return Path(env) if env else REPO.parent / "shared" / "gravon"


@pytest.fixture(scope="session")
def gravon_dir() -> Path:
    """The real Gravon archive (23 monthly zips); skips when it is not there."""
    path = archive_path()
    if not path.is_dir() or not any(path.glob("*.zip")):
        if os.environ.get("STRAT_TOOLS_REQUIRE_ARCHIVE"):
            pytest.fail(f"STRAT_TOOLS_REQUIRE_ARCHIVE is set but no archive at {path}")
        pytest.skip(
            f"real Gravon archive not found at {path} "
            "(set STRAT_TOOLS_GRAVON to the folder of strados*.zip files)"
        )
    return path


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """tests/fixtures."""
    return FIXTURES


def shared_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder ``name`` made once per test session by ``make(folder)`` and shared by every
    pytest-xdist worker: the first to ask makes it under a lock in the session's common
    temporary folder, the others wait and use it. Whole-archive work (one pass of every
    golden statistic, say) is then paid once, not once per worker or per test."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the workers' basetemps are siblings in one session folder
    folder = root / f"shared-{name}"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (folder / ".made").exists():
                shutil.rmtree(folder, ignore_errors=True)  # a try that failed half-way
                folder.mkdir()
                make(folder)
                (folder / ".made").write_text("")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


def shared_value(factory: pytest.TempPathFactory, name: str, make: Callable[[], T]) -> T:
    """``make()`` computed once per test session for every pytest-xdist worker (through
    :func:`shared_once`, pickled to the session's common folder) and loaded by each: a
    whole-archive fixture (every game replayed, say) is then paid once per run, not once per
    worker that happens to run one of its tests."""

    def store(folder: Path) -> None:
        with open(folder / "value.pickle", "wb") as handle:
            pickle.dump(make(), handle, protocol=pickle.HIGHEST_PROTOCOL)

    with open(shared_once(factory, name, store) / "value.pickle", "rb") as handle:
        return cast(T, pickle.load(handle))


@pytest.fixture(scope="session")
def many_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,200 games: the shipped 400-game month under eight names (enough work to interrupt,
    and 16 batches or more to stop early in)."""

    def make(folder: Path) -> None:
        for k in range(8):
            shutil.copy(REPO / "data" / "strados2026-10.zip", folder / f"strados2026-{k}.zip")

    return shared_once(tmp_path_factory, "many-games", make)


def rewrite_shards(export: Path, change: Callable[[Any], Any]) -> None:
    """Rewrite every shard of the observation export ``export`` as ``change`` makes its table
    (a ``pyarrow.Table`` in, one out), the export's marker updated so that the folder still
    verifies: a folder an earlier strat-tools wrote, or one whose rows are wrong."""
    import hashlib
    import json

    import pyarrow.parquet as pq

    marker_path = export / ".strat-tools-export.json"
    marker = json.loads(marker_path.read_text())
    for shard in sorted((export / "observations").glob("*.parquet")):
        pq.write_table(change(pq.read_table(shard)), shard)
        data = shard.read_bytes()
        marker["files"][f"observations/{shard.name}"] = {
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    marker_path.write_text(json.dumps(marker))


def older_shards(export: Path, dropped: list[str], version: str) -> None:
    """Rewrite the shards of ``export`` as an export of the older observations schema
    ``version`` would have written them: without the columns ``dropped``."""

    def older(table: Any) -> Any:
        table = table.drop_columns(dropped)
        return table.replace_schema_metadata(
            {**table.schema.metadata, b"version": version.encode()}
        )

    rewrite_shards(export, older)
