"""The human-move model (strat_tools/benchmark/human_inputs.py, human_model.py, train.py,
cli/bench_train.py): its inputs from truth-free fields only, the NumPy inference equal to
the PyTorch model, a training run on the sample benchmark, the shipped model and every
field of a model file checked when it is read."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench_sample import make_bench, patch_definition
from click.testing import CliRunner

from conftest import shared_once
from strat_tools.benchmark.baselines import policy_by_name
from strat_tools.benchmark.batches import split_batches
from strat_tools.benchmark.bench_folder import open_bench
from strat_tools.benchmark.definition import SPLITS, calendar_month
from strat_tools.benchmark.human_inputs import (
    INPUT_FIELDS,
    PLANES,
    legal_heads,
    mirror_ids,
    mirrored,
    model_inputs,
)
from strat_tools.benchmark.human_model import (
    SHIPPED_MODELS,
    HumanModel,
    HumanPolicy,
    load_model,
    save_model,
    weight_shapes,
)
from strat_tools.benchmark.policy import POLICY_FIELDS
from strat_tools.cli import main
from strat_tools.core.errors import InputError, UsageError
from strat_tools.engine.information.planes import CHANNELS, UNKNOWN_KIND, board_views


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_once(tmp_path_factory, "bench-sample", make_bench)


@pytest.fixture
def bench(sample: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    patch_definition(monkeypatch, sample / "gravon")
    return sample / "bench"


def _batch(bench: Path, rows: int = 300) -> dict[str, Any]:
    folder = open_bench(bench)
    _ids, batch = next(split_batches(folder, "test", INPUT_FIELDS, batch_rows=rows))
    return batch


def _random_model(channels: int = 8, blocks: int = 2, seed: int = 1) -> HumanModel:
    rng = np.random.default_rng(seed)
    weights = {
        key: (rng.standard_normal(shape) * 0.3).astype(np.float32)
        for key, shape in weight_shapes(channels, blocks).items()
    }
    about = {
        "benchmark": "strat-bench-move-v1",
        "benchmark_version": 1,
        "split": "train",
        "months": ["2030-01"],
        "games": 60,
        "rows": 9_000,
        "rows_seen": 600,
        "strat_tools": "0.1.0",
        "training_seconds": 1.5,
        "hardware": "a test",
        "seed": seed,
        "steps": 3,
        "batch_size": 200,
        "val_rows": 100,
        "val_nll": 3.0,
        "val_top1": 0.1,
        "torch": "none",
    }
    card = {"name": "random", "channels": channels, "blocks": blocks, "provenance": about}
    return HumanModel(weights, card)


def test_the_inputs_are_truth_free_fields_only() -> None:
    assert set(INPUT_FIELDS) <= set(POLICY_FIELDS)
    assert HumanPolicy.fields == INPUT_FIELDS


def test_the_inputs_show_the_last_plies_latest_first() -> None:
    board = np.zeros((1, 100), np.uint8)
    board[0, 55] = UNKNOWN_KIND | 0x10  # an opponent piece the mover has not identified
    batch = {
        "board_view": board,
        "last_moves": np.array([[-1, -1, -1, -1, -1, -1, 6656, 3141]]),  # oldest first
        "unseen": np.array([[6, 1, 8, 5, 4, 4, 4, 3, 2, 1, 1, 1]], np.uint8),
        "own_repetition": np.array([0]),
        "opponent_repetition": np.array([10]),
        "plies_since_battle": np.array([25]),
        "ply": np.array([3]),
    }
    planes, scalars = model_inputs(batch)
    assert planes.shape == (1, PLANES, 10, 10)
    latest = planes[0, len(CHANNELS) : len(CHANNELS) + 2].reshape(2, 100)
    assert np.flatnonzero(latest[0]).tolist() == [31] and np.flatnonzero(latest[1]).tolist() == [41]
    before = planes[0, len(CHANNELS) + 2 : len(CHANNELS) + 4].reshape(2, 100)
    assert np.flatnonzero(before[0]).tolist() == [66] and np.flatnonzero(before[1]).tolist() == [56]
    assert not planes[0, len(CHANNELS) + 4 :].any()  # no earlier plies
    assert scalars[0, :12].tolist() == [1.0] * 12
    assert scalars[0, 12:].tolist() == pytest.approx([0.0, 2.0, 0.5, 0.006])  # 10 / 5 clipped


def test_the_policy_sums_to_one_over_the_legal_moves(bench: Path) -> None:
    batch = _batch(bench)
    found = HumanPolicy(_random_model()).log_probs(batch)
    legal = np.arange(found.shape[1]) < batch["legal_count"][:, None]
    sums = np.where(legal, np.exp(found), 0.0).sum(axis=1)
    assert np.allclose(sums, 1.0, atol=1e-5)


def test_numpy_inference_equals_the_pytorch_model(bench: Path) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is optional (requirements-torch.lock)")
    from strat_tools.benchmark.train import to_torch

    batch = _batch(bench)
    plain = _random_model()
    averaged = HumanModel(plain.weights, {**plain.card, "mirror_average": True})
    for model in (plain, averaged, *(load_model(name=n) for n in SHIPPED_MODELS)):
        mine = HumanPolicy(model).log_probs(batch)
        net = to_torch(model)
        views = (batch, mirrored(batch)) if model.mirror_average else (batch,)
        found = []
        for view in views:
            planes, scalars = model_inputs(view)
            with torch.no_grad():
                logits = net(torch.from_numpy(planes), torch.from_numpy(scalars)).numpy()
            chosen = np.take_along_axis(logits, legal_heads(view["legal_ids"]), axis=1)
            legal = np.arange(chosen.shape[1]) < batch["legal_count"][:, None]
            found.append(
                torch.log_softmax(torch.from_numpy(np.where(legal, chosen, -np.inf)), dim=1)
            )
        theirs = torch.logsumexp(torch.stack(found), dim=0).numpy() - np.log(len(found))
        assert np.abs(np.exp(mine[legal]) - np.exp(theirs[legal])).max() < 1e-5
        assert np.abs(mine[legal] - theirs[legal]).max() < 1e-4  # log-probabilities down to -30


def test_the_mirror_turns_the_files_and_twice_is_the_same(bench: Path) -> None:
    batch = _batch(bench, rows=50)
    batch["action"] = batch["legal_ids"][:, 0]
    once = mirrored(batch)
    assert once["board_view"][:, 0].tolist() == batch["board_view"][:, 9].tolist()  # A1 <-> K1
    assert mirror_ids(np.array([1, 2030, -1])).tolist() == [908, 2939, -1]  # A1-B1: K1-J1
    assert once["ply"] is batch["ply"] and once["unseen"] is batch["unseen"]  # counts stay
    twice = mirrored(once)
    for name in (*INPUT_FIELDS, "legal_ids", "action"):
        assert np.array_equal(twice[name], batch[name]), name


def test_a_mirror_averaged_model_gives_a_position_and_its_mirror_the_same_moves(
    bench: Path,
) -> None:
    batch = _batch(bench, rows=200)
    plain = _random_model()
    averaged = HumanModel(plain.weights, {**plain.card, "mirror_average": True})
    for model, same in ((plain, False), (averaged, True)):
        here = HumanPolicy(model).log_probs(batch)
        there = HumanPolicy(model).log_probs(mirrored(batch))
        legal = np.isfinite(here)
        assert np.allclose(here[legal], there[legal], atol=1e-9) is same


def test_training_writes_a_model_that_predicts_and_scores(bench: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="PyTorch is optional (requirements-torch.lock)")
    out = tmp_path / "tiny.npz"
    args = ["bench", "train", str(bench), "-o", str(out), "--channels", "8", "--blocks", "1"]
    args += ["--steps", "12", "--batch-size", "64", "--eval-every", "6", "--val-rows", "200"]
    result = CliRunner().invoke(main, [*args, "--warmup", "2", "--seed", "3"])
    assert result.exit_code == 0, result.output
    model = load_model(out)
    about = model.card["provenance"]
    train = json.loads((bench / "manifest.json").read_text())["splits"]["train"]
    assert about["months"] == ["2030-01"] and about["games"] == train["games"]
    assert about["seed"] == 3 and about["steps"] in (6, 12) and about["val_rows"] >= 200
    pred = tmp_path / "pred"
    args = ["bench", "predict", str(bench), "--policy", "human-v1", "--model", str(out)]
    result = CliRunner().invoke(main, [*args, "-o", str(pred)])
    assert result.exit_code == 0, result.output
    assert json.loads((pred / "card.json").read_text())["seed"] == 3
    result = CliRunner().invoke(main, ["bench", "score", str(bench), str(pred), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["views"]["all"]["nll"] > 0
    again = CliRunner().invoke(main, ["bench", "train", str(bench), "-o", str(out)])
    assert again.exit_code == 2 and "exists" in again.output  # never over a file


def test_continued_training_starts_from_the_model_and_counts_both_runs(
    bench: Path, tmp_path: Path
) -> None:
    pytest.importorskip("torch", reason="PyTorch is optional (requirements-torch.lock)")
    start = _random_model(channels=8, blocks=1, seed=4)
    start = save_model(start.weights, start.card, tmp_path / "start.npz")
    out = tmp_path / "more.npz"
    args = ["bench", "train", str(bench), "-o", str(out), "--init", str(tmp_path / "start.npz")]
    args += ["--steps", "8", "--batch-size", "64", "--eval-every", "4", "--val-rows", "200"]
    result = CliRunner().invoke(main, [*args, "--warmup", "1", "--lr", "0.01"])
    assert result.exit_code == 0, result.output
    assert "step 0 (random): val" in result.output
    model = load_model(out)
    assert (model.channels, model.blocks) == (8, 1) and not model.mirror_average
    about = model.card["provenance"]
    assert about["continued_from"] == {
        "name": "random",
        "weights_sha256": start.card["weights_sha256"],
        "steps": 3,
        "rows_seen": 600,
        "training_seconds": 1.5,
    }
    assert about["steps"] in (3 + 4, 3 + 8) and about["rows_seen"] == 600 + 64 * (
        about["steps"] - 3
    )
    at_start = float(result.output.split("step 0 (random): val ")[1].split()[0])
    assert about["val_nll"] < at_start  # written only when it beats the start on val
    elsewhere = ["bench", "train", str(bench), "-o", str(tmp_path / "other.npz")]
    other = CliRunner().invoke(main, [*elsewhere, "--init", "human-v1", "--channels", "64"])
    assert other.exit_code == 2 and "channels 64: the start human-v1 has 32" in other.output
    card = json.loads((tmp_path / "more.json").read_text())
    card["provenance"]["continued_from"]["steps"] = 99
    (tmp_path / "more.json").write_text(json.dumps(card))
    with pytest.raises(InputError, match="continued_from"):
        load_model(out)


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_the_shipped_model_carries_its_provenance(name: str) -> None:
    model = load_model(name=name)
    about = model.card["provenance"]
    train = next(s for s in SPLITS if s.name == "train")
    assert about["months"] == [calendar_month(z.name) for z in train.zips]
    assert about["benchmark"] == "strat-bench-move-v1" and about["split"] == "train"
    assert about["games"] > 7_000 and about["rows_seen"] > 500_000
    assert model.card["name"] == name and model.card["parameters"] < 1_000_000
    assert isinstance(policy_by_name(name), HumanPolicy)


def test_a_model_file_is_for_the_human_policy_only(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="model"):
        policy_by_name("counts", model=tmp_path / "x.npz")
    with pytest.raises(UsageError, match="count tables"):
        policy_by_name("human-v1", counts=tmp_path / "x.json")


def _resign(card: dict[str, Any], raw: bytes) -> None:
    card["weights_sha256"] = hashlib.sha256(raw).hexdigest()


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def damage(card: dict[str, Any]) -> None:
        target = card
        for key in path[:-1]:
            target = target[key]
        if value is KeyError:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return damage


CARD_DAMAGE = {
    "kind": (_set(("kind",), "count tables"), "kind"),
    "channels": (_set(("channels",), 9), "shape"),
    "blocks": (_set(("blocks",), True), "blocks"),
    "inputs": (_set(("inputs_version",), 99), "inputs version"),
    "parameters": (_set(("parameters",), 5), "parameters"),
    "no months": (_set(("provenance", "months"), []), "months"),
    "other split": (_set(("provenance", "split"), "test"), "train"),
    "no seed": (_set(("provenance", "seed"), KeyError), "seed"),
    "top1": (_set(("provenance", "val_top1"), 1.5), "val score"),
    "hash": (_set(("weights_sha256",), "0" * 64), "weights_sha256"),
}


@pytest.mark.parametrize("kind", CARD_DAMAGE)
def test_a_damaged_model_card_is_refused(kind: str, tmp_path: Path) -> None:
    damage, words = CARD_DAMAGE[kind]
    model = _random_model()
    save_model(model.weights, model.card, tmp_path / "m.npz")
    card = json.loads((tmp_path / "m.json").read_text())
    damage(card)
    (tmp_path / "m.json").write_text(json.dumps(card))
    with pytest.raises(InputError, match=words):
        load_model(tmp_path / "m.npz")


@pytest.mark.parametrize("kind", ["not finite", "float64", "shape", "missing", "truncated"])
def test_damaged_weights_are_refused(kind: str, tmp_path: Path) -> None:
    model = _random_model()
    save_model(model.weights, model.card, tmp_path / "m")
    weights = dict(model.weights)
    if kind == "not finite":
        weights["head.bias"] = weights["head.bias"].copy()
        weights["head.bias"][3] = np.nan
    elif kind == "float64":
        weights["other"] = weights["other"].astype(np.float64)
    elif kind == "shape":
        weights["head.bias"] = weights["head.bias"][:35]
    elif kind == "missing":
        del weights["other"]
    np.savez(tmp_path / "m.npz", **weights)  # type: ignore[arg-type]
    raw = (tmp_path / "m.npz").read_bytes()
    if kind == "truncated":
        raw = raw[: len(raw) // 2]
        (tmp_path / "m.npz").write_bytes(raw)
    card = json.loads((tmp_path / "m.json").read_text())
    _resign(card, raw)
    (tmp_path / "m.json").write_text(json.dumps(card))
    words = {
        "not finite": "not finite",
        "float64": "float32",
        "shape": "shape",
        "missing": "architecture",
        "truncated": "cannot be read",
    }[kind]
    with pytest.raises(InputError, match=words):
        load_model(tmp_path / "m")


def test_a_missing_model_file_is_an_input_error(tmp_path: Path) -> None:
    model = _random_model()
    save_model(model.weights, model.card, tmp_path / "m")
    shutil.copy(tmp_path / "m.npz", tmp_path / "lone.npz")
    with pytest.raises(InputError, match="cannot read"):
        load_model(tmp_path / "lone.npz")


OPPONENT, KNOWN = 0x10, 0x20

# Bytes 50..69 of the truth board in the mover's view (rows 6 and 7 from its seat):
# '+2' an own scout, '-?' an opponent piece the mover never identified.
TRUTH = """
7  -?  -?  .   .   .   .   .   .   .   .
6  +2  .   ~~  ~~  .   .   ~~  ~~  .   .
"""


def truth_board(hidden: dict[int, int], known: bool = False) -> np.ndarray:
    """A [1, 100] truth board from :data:`TRUTH`; ``hidden`` the true kind byte (bits 0-3)
    of each opponent piece by square; ``known``: the mover has identified them."""
    board = np.zeros((1, 100), np.uint8)
    for line in TRUTH.strip().splitlines():
        row, *cells = line.split()
        for column, cell in enumerate(cells):
            square = (int(row) - 1) * 10 + column
            if cell == "+2":
                board[0, square] = 3
            elif cell == "-?":
                board[0, square] = OPPONENT | (KNOWN if known else 0) | hidden[square]
            elif cell == "~~":
                board[0, square] = 13
    return board


def _row(board: np.ndarray) -> dict[str, Any]:
    return {
        "board_view": board,
        "last_moves": np.full((1, 8), -1),
        "unseen": np.array([[6, 1, 8, 5, 4, 4, 4, 3, 2, 1, 1, 1]], np.uint8),
        "own_repetition": np.array([0]),
        "opponent_repetition": np.array([0]),
        "plies_since_battle": np.array([3]),
        "ply": np.array([40]),
        "legal_ids": np.array([[5040, 5051, 5060]], np.int16),  # A6-A5, A6-B6, A6xA7
        "legal_count": np.array([3]),
    }


def test_the_model_never_sees_a_hidden_rank() -> None:
    policy = HumanPolicy(_random_model())
    flag_and_marshal = truth_board({60: 12, 61: 11})
    swapped = truth_board({60: 11, 61: 12})  # the two unidentified pieces swapped
    assert (flag_and_marshal != swapped).any()
    mine = policy.log_probs(_row(board_views(flag_and_marshal)))
    assert np.array_equal(mine, policy.log_probs(_row(board_views(swapped))))
    # the control: the same swap where the mover knows the ranks changes the probabilities
    known = policy.log_probs(_row(board_views(truth_board({60: 12, 61: 11}, known=True))))
    swapped_known = truth_board({60: 11, 61: 12}, known=True)
    assert not np.allclose(known, policy.log_probs(_row(board_views(swapped_known))))
