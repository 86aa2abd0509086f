"""observation_batches: an export as batches of NumPy arrays, streamed shard by shard, and
the PyTorch and JAX loops of docs/observations.md run where those frameworks are."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from strat_tools.core.errors import InputError, OptionError
from strat_tools.exports.observation_batches import FIELDS, observation_batches
from strat_tools.exports.observation_files import export_observations, read_observations
from strat_tools.exports.observations import boards_of
from strat_tools.io.output import OutputError

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
SHARD_ROWS = 700  # several shards, none a multiple of the batch sizes below


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The observations of 12 games of the sample (all variants), in shards of 700 rows."""
    root = tmp_path_factory.mktemp("batches")
    games = root / "games"
    games.mkdir()
    with zipfile.ZipFile(DATA / "strados2026-10.zip") as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".xml"))[::31][:12]:
            (games / Path(name).name).write_bytes(archive.read(name))
    summary = export_observations([games], root / "obs", jobs=1, shard_rows=SHARD_ROWS)
    assert len(summary.shards) >= 3
    return root / "obs"


def concatenated(batches: Any) -> dict[str, np.ndarray]:
    parts = list(batches)
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def test_batches_hold_every_row_in_order_with_the_promised_dtypes(export: Path) -> None:
    table = read_observations(export)
    batches = observation_batches(export, 256, fields=list(FIELDS))
    sizes = [len(b["action"]) for b in batches]
    assert sizes[:-1] == [256] * (len(sizes) - 1) and 0 < sizes[-1] <= 256
    assert sum(sizes) == table.num_rows == batches.rows and len(sizes) == len(batches)
    got = concatenated(batches)
    dtypes = {name: str(array.dtype) for name, array in got.items()}
    assert dtypes == {
        "board": "uint8",
        "planes": "bool",
        "action": "int64",
        "legal_mask": "bool",
        "hidden": "bool",
        "kinds": "int64",
        "value": "float32",
        "side": "int64",
        "ply": "int64",
        "captured": "uint8",
        "unseen": "uint8",
        "own_repetition": "int64",
        "opponent_repetition": "int64",
        "plies_since_battle": "int64",
        "last_moves": "int64",
        "game_id": "<U" + dtypes["game_id"][2:],
    }
    assert got["planes"].shape == (table.num_rows, 32, 10, 10)
    assert np.array_equal(got["board"], boards_of(table))
    rows = table.to_pylist()
    for i in (0, 1, 699, 700, 701, len(rows) - 1):  # shard edges included
        row = rows[i]
        assert got["game_id"][i] == row["game_id"] and got["ply"][i] == row["ply"]
        assert got["action"][i] == row["action"]
        assert np.flatnonzero(got["legal_mask"][i]).tolist() == row["legal_actions"]
        assert got["legal_mask"][i, row["action"]]
        assert got["side"][i] == (row["side"] == "blue")
        value = got["value"][i]
        assert np.isnan(value) if row["value"] is None else value == row["value"]
        last = got["last_moves"][i].tolist()
        assert last[8 - len(row["last_moves"]) :] == row["last_moves"]
        assert last[: 8 - len(row["last_moves"])] == [-1] * (8 - len(row["last_moves"]))
        assert got["captured"][i].tobytes() == row["captured"]
        assert got["own_repetition"][i] == row["own_repetition"]
    assert (got["kinds"][got["hidden"]] >= 0).all()


def test_last_moves_narrower_than_the_export_keep_the_latest_plies(export: Path) -> None:
    table = read_observations(export).slice(0, 300)
    got = concatenated(observation_batches(export, 300, fields=["last_moves"], last_moves=3))
    for i, row in enumerate(table.to_pylist()):
        kept = row["last_moves"][-3:]
        assert got["last_moves"][i].tolist() == [-1] * (3 - len(kept)) + kept


def test_shuffled_epochs_hold_the_same_rows_in_new_orders_reproducibly(export: Path) -> None:
    fields = ["game_id", "ply", "action"]
    batches = observation_batches(export, 100, fields=fields, shuffle=True, seed=7)
    first, second = concatenated(batches), concatenated(batches)
    plain = concatenated(observation_batches(export, 100, fields=fields))

    def keys(arrays: dict[str, np.ndarray]) -> list[tuple[str, int]]:
        return list(zip(arrays["game_id"].tolist(), arrays["ply"].tolist(), strict=True))

    assert sorted(keys(first)) == sorted(keys(second)) == sorted(keys(plain))
    assert keys(first) != keys(plain) and keys(first) != keys(second)
    again = concatenated(observation_batches(export, 100, fields=fields, shuffle=True, seed=7))
    assert keys(again) == keys(first)


def test_drop_last_gives_only_whole_batches(export: Path) -> None:
    batches = observation_batches(export, 1000, fields=["action"], drop_last=True)
    sizes = [len(b["action"]) for b in batches]
    assert sizes == [1000] * (batches.rows // 1000) == [1000] * len(batches)


def test_the_first_batch_comes_after_reading_one_shard(
    export: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    real = pq.ParquetFile

    def recording(path: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(Path(getattr(path, "name", path)).name)  # a path or an open file
        return real(path, *args, **kwargs)

    plain = observation_batches(export, 64)
    shuffled = observation_batches(export, 64, shuffle=True, seed=1)
    monkeypatch.setattr(pq, "ParquetFile", recording)
    for batches in (plain, shuffled):
        opened.clear()
        next(iter(batches))
        assert len(opened) == 1 and opened[0].startswith("part-")


def test_bad_arguments_and_folders_are_refused_clearly(export: Path, tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="unknown batch field 'planez'; expected some of board"):
        observation_batches(export, fields=["board", "planez"])
    with pytest.raises(OptionError, match="no batch fields"):
        observation_batches(export, fields=[])
    with pytest.raises(OptionError, match="batch_size must be at least 1, got 0"):
        observation_batches(export, 0)
    with pytest.raises(InputError, match="holds no observations/ folder"):
        observation_batches(tmp_path)
    half = tmp_path / "half"  # an export stopped while moving its files in
    (half / "observations").mkdir(parents=True)
    marker = json.loads((export / ".strat-tools-export.json").read_text())
    assert marker["complete"] is True
    marker["complete"] = False
    (half / ".strat-tools-export.json").write_text(json.dumps(marker))
    with pytest.raises(OutputError, match="did not finish"):
        observation_batches(half)


def _doc_example(framework: str) -> str:
    """The docs' loop that imports ``framework`` (a fenced Python block)."""
    text = (REPO / "docs" / "observations.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    found = [b for b in blocks if re.search(rf"^import {framework}\b", b, flags=re.M)]
    assert len(found) == 1, f"docs/observations.md has no single {framework} example"
    return str(found[0])


@pytest.mark.slow  # importing a framework takes seconds
@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_the_docs_training_loops_run(
    framework: str, export: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = _doc_example(framework)  # found whether or not the framework is installed
    pytest.importorskip(
        framework, reason=f"{framework} is not installed (not a dependency)", exc_type=ImportError
    )
    monkeypatch.chdir(export.parent)  # the examples read the export "obs/"
    scope: dict[str, Any] = {}
    exec(compile(code, f"docs/observations.md ({framework})", "exec"), scope)
    losses = scope["losses"]
    assert len(losses) == len(observation_batches(export, 256)) and np.isfinite(losses).all()
    assert losses[-1] < losses[0]  # the loop learns: the loss falls over the epoch
