"""Every client line of docs/tables.md and docs/observations.md runs as written, and
reading a table's folder gives exactly that table's rows (issue 36).

Before, an export was five tables in one folder: ``pd.read_parquet("exp")`` and the like
silently unioned them, and ``'obs/**/*.parquet'`` took the games table in with the shards.
Now each table is a folder of parts of one schema. The exports here are cut into many
parts (small bounds through ``part_rows`` and ``shard_rows``) so that every client is seen
joining parts; a client that is not installed is skipped with the reason. On the real
archive (``archive``, ``slow``) the same lines run on an export of two real months.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from strat_tools.exports.observation_files import (
    export_observations,
    observation_games,
    read_observations,
)
from strat_tools.run.driver import read_games
from strat_tools.tables.dataset import read_dataset
from strat_tools.tables.schemas import TABLE_NAMES

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
CLIENTS = {
    "pandas": "pandas",
    "pyarrow": "pyarrow",
    "DuckDB": "duckdb",
    "Polars": "polars",
    "Dask": "dask.dataframe",
    "Hugging Face": "datasets",
}


def client_lines(doc: str, after: str) -> list[tuple[str, str]]:
    """(client, code) for each row of the first client table after ``after``: the import
    and the line, as one statement and an expression (``import x; expression``)."""
    text = (ROOT / "docs" / doc).read_text().split(after, 1)[1]
    text = text.split("| client | import |", 1)[1].split("\n\n", 1)[0]  # that table alone
    rows = re.findall(r"^\| ([\w ]+) \| `([^`]+)` \| `([^`]+)`", text, flags=re.MULTILINE)
    lines = []
    for client, statement, line in rows:
        assert client in CLIENTS, f"{doc}: no known client named {client!r}"
        lines.append((client, f"{statement}; {line}"))
    assert lines, f"{doc} has no client table after {after!r}"
    return lines


TABLE_LINES = client_lines("tables.md", "## Reading the tables")
OBSERVATION_LINES = client_lines("observations.md", "## Files")


def installed(client: str) -> None:
    module = CLIENTS[client]
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{client} is not installed (its module {module} is missing)")


def read_line(code: str, where: Path) -> tuple[Counter[str], list[str]]:
    """What a documented line (``import x; expression``) reads, run in ``where`` (lazy
    results, DuckDB's relation, are read there too)."""
    statements, _semi, expression = code.rpartition("; ")
    namespace: dict[str, Any] = {}
    cwd = Path.cwd()
    os.chdir(where)
    try:
        exec(statements, namespace)
        return rows_and_columns(eval(expression, namespace))
    finally:
        os.chdir(cwd)


def rows_and_columns(result: Any) -> tuple[Counter[str], list[str]]:
    """What a client's result holds: each game id as often as it has rows, and the columns."""
    kind = type(result).__module__.split(".")[0]
    if isinstance(result, pa.Table):
        return Counter(result.column("game_id").to_pylist()), result.column_names
    if kind == "duckdb":
        return Counter(row[0] for row in result.select("game_id").fetchall()), result.columns
    if kind == "polars":
        return Counter(result["game_id"].to_list()), result.columns
    if kind == "dask":
        return Counter(result["game_id"].compute().tolist()), list(result.columns)
    if kind == "datasets":
        return Counter(result["game_id"]), result.column_names
    return Counter(result["game_id"].tolist()), list(result.columns)  # pandas


def expected(table: pa.Table) -> tuple[Counter[str], list[str]]:
    return Counter(table.column("game_id").to_pylist()), table.column_names


def assert_reads_exactly(client: str, code: str, where: Path, table: pa.Table) -> None:
    installed(client)
    got = read_line(code, where)
    assert got == expected(table), (client, code)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's 400 games exported in many parts, and observed in many shards."""
    root = tmp_path_factory.mktemp("clients")
    read_games(DATA, run=1).export(root / "exp", part_rows=5_000)
    export_observations([DATA], root / "obs", shard_rows=20_000, run=1)
    return root


def test_the_sample_export_is_cut_into_parts_of_one_schema(sample: Path) -> None:
    exp = sample / "exp"
    counts = {name: len(list((exp / name).iterdir())) for name in TABLE_NAMES}
    assert counts == {"games": 1, "setups": 6, "moves": 19, "diagnostics": 1, "events": 4}
    for name in TABLE_NAMES:
        parts = sorted((exp / name).iterdir())
        first = pq.read_schema(parts[0])
        assert first.metadata and b"pandas" in first.metadata
        for part in parts:
            assert pq.read_schema(part).equals(first, check_metadata=True), part
            assert pq.ParquetFile(part).metadata.num_rows <= 5_000, part
    assert len(list((sample / "obs" / "observations").iterdir())) == 5
    assert [p.name for p in (sample / "obs" / "games").iterdir()] == ["part-00000.parquet"]


# As written (moves, many parts), an empty table and a one-part table; all five on the
# real months below.
@pytest.mark.parametrize("name", ["moves", "diagnostics", "games"])
@pytest.mark.parametrize(("client", "code"), TABLE_LINES, ids=[c for c, _ in TABLE_LINES])
def test_each_documented_line_reads_exactly_its_table(
    sample: Path, client: str, code: str, name: str
) -> None:
    assert '"exp/moves' in code or "'exp/moves" in code, code  # as written, for moves
    table = read_dataset(sample / "exp").tables[name]
    assert_reads_exactly(client, re.sub(r"exp/moves", f"exp/{name}", code), sample, table)


@pytest.mark.parametrize(
    ("client", "code"), OBSERVATION_LINES, ids=[c for c, _ in OBSERVATION_LINES]
)
def test_each_documented_observations_line_reads_exactly_its_table(
    sample: Path, client: str, code: str
) -> None:
    obs = sample / "obs"
    table = observation_games(obs) if "obs/games" in code else read_observations(obs)
    assert_reads_exactly(client, code, sample, table)


@pytest.mark.archive
@pytest.mark.slow
def test_every_documented_line_runs_on_an_export_of_real_months(
    gravon_dir: Path, tmp_path: Path
) -> None:
    from strat_tools.run.driver import export_dataset

    months = [gravon_dir / "strados2014-4.zip", gravon_dir / "strados2005-1.zip"]
    export_dataset(months, tmp_path / "exp", run=1)
    export_observations(months, tmp_path / "obs", run=1)
    tables = read_dataset(tmp_path / "exp").tables
    for client, code in TABLE_LINES:
        if importlib.util.find_spec(CLIENTS[client].split(".")[0]) is None:
            continue  # the fast tier's test says which are skipped and why
        for name in TABLE_NAMES:
            line = code.replace("exp/moves", f"exp/{name}")
            assert read_line(line, tmp_path) == expected(tables[name]), line
    games, rows = observation_games(tmp_path / "obs"), read_observations(tmp_path / "obs")
    for client, code in OBSERVATION_LINES:
        if importlib.util.find_spec(CLIENTS[client].split(".")[0]) is None:
            continue
        table = games if "obs/games" in code else rows
        assert read_line(code, tmp_path) == expected(table), code
