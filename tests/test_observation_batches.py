"""observation_batches: an export as batches of NumPy arrays, streamed shard by shard, each
row exactly once an epoch however the reading is split (ranks, PyTorch DataLoader workers),
and the PyTorch and JAX loops of docs/observations.md run where those frameworks are."""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from strat_tools.core.errors import InputError, OptionError
from strat_tools.engine.actions import action_heads
from strat_tools.engine.planes import to_planes
from strat_tools.exports.observation_arrays import FIELDS
from strat_tools.exports.observation_batches import observation_batches
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
    summary = export_observations([games], root / "obs", run=1, shard_rows=SHARD_ROWS)
    assert len(summary.shards) >= 3
    return root / "obs"


def concatenated(batches: Any) -> dict[str, np.ndarray]:
    parts = list(batches)
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def test_batches_hold_every_row_in_order_with_the_promised_dtypes(export: Path) -> None:
    table = read_observations(export)
    batches = observation_batches(export, 256, fields=list(FIELDS), legal_width=160)
    sizes = [len(b["action"]) for b in batches]
    assert sizes[:-1] == [256] * (len(sizes) - 1) and 0 < sizes[-1] <= 256
    assert sum(sizes) == table.num_rows == batches.rows and len(sizes) == len(batches)
    got = concatenated(batches)
    dtypes = {name: str(array.dtype) for name, array in got.items()}
    assert dtypes == {
        "board_view": "uint8",
        "legal_ids": "int16",
        "legal_count": "int64",
        "action_head": "int64",
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
    assert np.array_equal(got["board_view"], boards_of(table, "board_view"))
    assert np.array_equal(got["planes"], to_planes(got["board"], contiguous=True))
    assert got["legal_ids"].shape == (table.num_rows, 160)
    rows = table.to_pylist()
    for i in (0, 1, 699, 700, 701, len(rows) - 1):  # shard edges included
        row = rows[i]
        assert got["game_id"][i] == row["game_id"] and got["ply"][i] == row["ply"]
        assert got["action"][i] == row["action"]
        assert np.flatnonzero(got["legal_mask"][i]).tolist() == row["legal_actions"]
        count = got["legal_count"][i]
        assert count == len(row["legal_actions"])
        assert got["legal_ids"][i, :count].tolist() == row["legal_actions"]
        assert (got["legal_ids"][i, count:] == -1).all()
        assert got["action_head"][i] == action_heads(row["action"])
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


def test_the_first_batch_comes_after_reading_one_shard_or_mix_row_groups_shuffled(
    export: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    real = pq.ParquetFile

    def recording(path: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(Path(getattr(path, "name", path)).name)  # a path or an open file
        return real(path, *args, **kwargs)

    plain = observation_batches(export, 64)
    shuffled = observation_batches(export, 64, shuffle=True, seed=1, mix=3, shuffle_rows=64)
    monkeypatch.setattr(pq, "ParquetFile", recording)
    for batches, most in ((plain, 1), (shuffled, 3)):
        opened.clear()
        next(iter(batches))
        assert len(opened) == most and all(name.startswith("part-") for name in opened)


def test_a_shuffled_epoch_mixes_the_shards_from_its_first_batch(export: Path) -> None:
    """Rows shuffle across shards (the old shard-local shuffle gave a first batch of one
    shard): the first batches already hold rows of several shards, and of all of them
    within the first half of the epoch."""
    table = read_observations(export, columns=["game_id", "ply"])
    shard_rows = [
        pq.ParquetFile(p).metadata.num_rows for p in sorted(export.glob("observations/*"))
    ]
    shard_of = {
        key: i
        for i, key in enumerate(
            zip(table["game_id"].to_pylist(), table["ply"].to_pylist(), strict=True)
        )
    }
    bounds = np.cumsum(shard_rows)
    batches = observation_batches(export, 100, fields=("game_id", "ply"), shuffle=True, seed=2)
    shards_seen: list[set[int]] = []
    for batch in batches:
        rows = [
            shard_of[key]
            for key in zip(batch["game_id"].tolist(), batch["ply"].tolist(), strict=True)
        ]
        shards_seen.append(set(np.searchsorted(bounds, rows, side="right").tolist()))
    assert len(shards_seen[0]) >= 2
    half = set().union(*shards_seen[: len(shards_seen) // 2])
    assert half == set(range(len(shard_rows)))


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
    workers = 2 if framework == "torch" else 1  # the torch loop's DataLoader has 2 workers
    shares = [observation_batches(export, 256, rank=i, world_size=workers) for i in range(workers)]
    assert len(losses) == sum(len(share) for share in shares) and np.isfinite(losses).all()
    assert losses[-1] < losses[0]  # the loop learns: the loss falls over the epoch


def keys_of(batches: Any) -> list[tuple[str, int]]:
    """The (game, ply) of every row the batches yield, in order (arrays or tensors)."""
    out: list[tuple[str, int]] = []
    for batch in batches:
        out += zip(list(batch["game_id"]), np.asarray(batch["ply"]).tolist(), strict=True)
    return out


def every_row(export: Path) -> list[tuple[str, int]]:
    table = read_observations(export)
    keys = list(
        zip(table.column("game_id").to_pylist(), table.column("ply").to_pylist(), strict=True)
    )
    assert len(set(keys)) == len(keys)  # (game, ply) names a row
    return keys


@pytest.mark.parametrize("shuffle", [False, True], ids=["in order", "shuffled"])
@pytest.mark.parametrize("world_size", [1, 2, 3])
def test_ranks_share_the_rows_each_row_exactly_once(
    export: Path, world_size: int, shuffle: bool
) -> None:
    """The split of the docs' JAX and DDP loops (rank of world_size), tested without them."""
    fields = ("game_id", "ply")
    shares = [
        observation_batches(
            export, 100, fields=fields, shuffle=shuffle, seed=3, rank=r, world_size=world_size
        )
        for r in range(world_size)
    ]
    for _epoch in range(2):
        seen = [keys_of(share) for share in shares]
        assert [len(keys) for keys in seen] == [share.rows for share in shares]
        assert sorted(k for keys in seen for k in keys) == sorted(every_row(export))
    groups = [
        pq.ParquetFile(shard).metadata.row_group(g).num_rows
        for shard in shares[0].shards
        for g in range(pq.ParquetFile(shard).metadata.num_row_groups)
    ]
    rows = [share.rows for share in shares]
    assert max(rows) - min(rows) <= max(groups)  # balanced to within one row group
    if world_size > 1:
        assert len(groups) >= world_size and min(rows) > 0  # every rank has rows to read


def test_a_rank_outside_world_size_is_refused(export: Path) -> None:
    for rank, world_size in ((2, 2), (-1, 2), (0, 0)):
        with pytest.raises(OptionError, match="rank must be 0 to world_size - 1"):
            observation_batches(export, rank=rank, world_size=world_size)


def test_batches_made_in_another_process_read_the_same_rows(export: Path) -> None:
    """A DataLoader started with spawn pickles the batches into each worker."""
    batches = observation_batches(export, 100, fields=("game_id", "ply"))
    assert keys_of(pickle.loads(pickle.dumps(batches))) == keys_of(batches) == every_row(export)


def test_the_batches_import_no_framework(export: Path) -> None:
    code = (
        "import sys\n"
        "from strat_tools.exports.observation_batches import observation_batches\n"
        f"batches = observation_batches({str(export)!r}, 500, fields=('action',))\n"
        "assert sum(len(b['action']) for b in batches) == batches.rows\n"
        "print(sorted(m for m in ('torch', 'jax') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.slow  # importing torch takes seconds, and each worker is a process
def test_a_torch_dataloader_yields_each_row_exactly_once_with_0_1_and_2_workers(
    export: Path,
) -> None:
    """Issue 36: a DataLoader took the batches for a map-style dataset (not subscriptable),
    and wrapped in an IterableDataset two workers gave every row twice."""
    torch = pytest.importorskip(
        "torch", reason="torch is not installed (not a dependency)", exc_type=ImportError
    )
    from torch.utils.data import DataLoader

    rows = every_row(export)
    fields = ("game_id", "ply", "action")
    for workers in (0, 1, 2):
        batches = observation_batches(export, 100, fields=fields, shuffle=True, seed=1)
        loader = DataLoader(batches, batch_size=None, num_workers=workers)
        shares = [
            observation_batches(export, 100, fields=fields, rank=i, world_size=max(workers, 1))
            for i in range(max(workers, 1))
        ]
        for _epoch in range(2):
            seen = keys_of(loader)
            assert len(seen) == len(rows) and sorted(seen) == sorted(rows), workers
        batches_seen = list(loader)
        assert len(batches_seen) == sum(len(share) for share in shares)  # len() per worker
        assert isinstance(batches_seen[0]["action"], torch.Tensor)
        assert batches_seen[0]["action"].dtype == torch.int64
    torch.manual_seed(5)
    first = keys_of(DataLoader(batches, batch_size=None, num_workers=2))
    torch.manual_seed(5)
    assert keys_of(DataLoader(batches, batch_size=None, num_workers=2)) == first  # reproducible


@pytest.mark.slow  # a process that imports torch
def test_batches_made_before_torch_was_imported_say_what_to_do(export: Path) -> None:
    pytest.importorskip(
        "torch", reason="torch is not installed (not a dependency)", exc_type=ImportError
    )
    code = (
        "from strat_tools.exports.observation_batches import observation_batches\n"
        f"batches = observation_batches({str(export)!r}, 500)\n"
        "import torch\n"
        "next(iter(torch.utils.data.DataLoader(batches, batch_size=None)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 1
    assert "import torch first, then call observation_batches" in done.stderr


@pytest.mark.archive
@pytest.mark.slow  # a month's export (about 20 s on one core), torch, worker processes
def test_a_real_month_in_a_dataloader_gives_each_row_once_and_the_docs_lines_run(
    gravon_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a real month's export (row groups of uneven size, one shard): the docs' read of
    the whole export runs as written, and a DataLoader gives each row once per epoch."""
    export_observations([gravon_dir / "strados2014-5.zip"], tmp_path / "obs", run=1)
    monkeypatch.chdir(tmp_path)
    text = (REPO / "docs" / "observations.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    (yorktown,) = [b for b in blocks if "to_yorktown" in b]
    scope: dict[str, Any] = {}
    exec(compile(yorktown, "docs/observations.md (yorktown)", "exec"), scope)
    rows = every_row(tmp_path / "obs")
    assert len(scope["yorktown"]) == len(rows) == 296_899
    torch = pytest.importorskip(
        "torch", reason="torch is not installed (not a dependency)", exc_type=ImportError
    )
    batches = observation_batches("obs/", 4096, fields=("game_id", "ply"), shuffle=True, seed=0)
    for workers in (0, 1, 2):
        loader = torch.utils.data.DataLoader(batches, batch_size=None, num_workers=workers)
        seen = keys_of(loader)
        assert len(seen) == len(rows) and sorted(seen) == sorted(rows), workers


def test_shuffled_batches_hold_each_rows_own_legal_ids_and_label(export: Path) -> None:
    """The shuffled path makes a buffer's arrays at once and cuts batches by indexing them:
    every row keeps its own legal ids (narrowed to its batch's largest count) and action."""
    names = ["game_id", "ply", "action", "legal_actions", "board_view", "board"]
    table = read_observations(export, columns=names)
    truth = {
        (g, p): (a, legal, view, board)
        for g, p, a, legal, view, board in zip(*(table[c].to_pylist() for c in names), strict=True)
    }
    fields = ("game_id", "ply", "action", "legal_ids", "legal_count", "planes", "board_view")
    batches = observation_batches(export, 64, fields=fields, shuffle=True, seed=4, shuffle_rows=300)
    seen = 0
    for batch in batches:
        assert list(batch) == list(fields)
        assert batch["legal_ids"].shape[1] == batch["legal_count"].max()
        for i, key in enumerate(zip(batch["game_id"].tolist(), batch["ply"].tolist(), strict=True)):
            action, legal, view, board = truth[key]
            assert batch["board_view"][i].tobytes() == view != board
            count = batch["legal_count"][i]
            assert batch["action"][i] == action and count == len(legal)
            assert batch["legal_ids"][i, :count].tolist() == legal
            seen += 1
        assert np.array_equal(batch["planes"], to_planes(batch["board_view"], contiguous=True))
    assert seen == table.num_rows
