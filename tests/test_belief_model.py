"""The learned belief model (``belief-v1``) and the pieces' histories it reads: the
benchmark's rows give a model exactly the history ``Position.beliefs`` computes from its
move stack; the NumPy inference equals the PyTorch network to 1e-5; a damaged card or
weights file is a clear error; the shipped model is registered and keeps every rule."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from bench_sample import make_bench, patch_definition
from click.testing import CliRunner

from conftest import shared_once
from strat_tools.benchmark.belief_baselines import belief_by_name
from strat_tools.benchmark.belief_inputs import WIDTH, piece_inputs
from strat_tools.benchmark.belief_model import (
    BeliefNetwork,
    LearnedBelief,
    belief_logits,
    load_belief_model,
    save_belief_model,
    weight_shapes,
)
from strat_tools.benchmark.policies import load
from strat_tools.cli import main
from strat_tools.core.errors import InputError
from strat_tools.core.pieces import CODE_SIDE
from strat_tools.core.records import Status
from strat_tools.engine.information.beliefs import BELIEF_FIELDS, NO_MASS, model_beliefs
from strat_tools.engine.information.history import (
    HISTORY_FIELDS,
    PieceHistory,
    RowHistory,
    stack_history,
)
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.exports.observation_arrays import batch_arrays
from strat_tools.exports.observations import observe
from strat_tools.formats.readers import read_records

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"
DATA = Path(__file__).resolve().parent.parent / "strat_tools" / "benchmark" / "data"


def sample_rows(games: int = 3) -> dict[str, np.ndarray]:
    """The belief fields of the first classic games of the sample, through the
    benchmark's row walker (each game's rows in ply order)."""
    parts: list[dict[str, np.ndarray]] = []
    for record in [r for r in read_records(SAMPLE) if r.variant == "classic"][:games]:
        result = replay(record)
        assert result.status is Status.VALID
        table = observe(result, "g")
        arrays = batch_arrays(table, ["board_view", "unseen", "side", "ply", "last_moves"])
        walker = RowHistory()
        arrays.update(
            walker.rows(
                arrays["board_view"], arrays["side"] + 1, arrays["ply"], arrays["last_moves"][:, -1]
            )
        )
        parts.append(arrays)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def test_a_piece_history_follows_the_moves_both_players_see() -> None:
    # red's piece from 31 steps up twice (to 51); blue's from 68 steps down and back
    #   row 6 (60..69):  b  b  b  b  b  b  b  b  B  b      B: blue's from 68, back home
    #   row 5 (50..59):  .  R  .  .  .  .  .  .  .  .      R: red's from 31, on 51
    #   row 4 (40..49):  .  .  ~  ~  .  .  ~  ~  .  .
    owners = np.zeros(100, np.uint8)
    owners[:40], owners[60:] = 1, 2
    history = PieceHistory(owners)
    plies = [(31, 41), (68, 58), (41, 51), (58, 68)]
    for source, target in plies:
        owners = owners.copy()
        owners[source], owners[target] = 0, owners[source]
        history.play(source, target, owners)
    red, blue = history.fields(1), history.fields(2)
    assert red["piece_start"][51] == 31 and red["piece_moves"][51] == 2
    assert red["piece_idle"][51] == 1 and red["piece_idle"][0] == 4
    assert red["piece_start"][68] == 68 and red["piece_back"][68] == 1  # blue stepped back
    assert red["piece_near"][68] == 0 and red["piece_near"][51] == 1  # 51 touches 61
    assert blue["piece_start"][99 - 51] == 99 - 31  # blue's view: turned
    assert (red["piece_moves"][owners == 0] == 0).all()


def test_the_benchmark_rows_give_the_position_s_histories() -> None:
    record = next(r for r in read_records(SAMPLE) if r.variant == "classic")
    result = replay(record)
    table = observe(result, "g")
    arrays = batch_arrays(table, ["board_view", "side", "ply", "last_moves"])
    rows = RowHistory().rows(
        arrays["board_view"], arrays["side"] + 1, arrays["ply"], arrays["last_moves"][:, -1]
    )
    position = Position(record.setup or (), result.rules)
    checked = 0
    for ply, move in enumerate(record.moves[: len(arrays["ply"])]):
        know = position.knowledge()
        owners = np.asarray(CODE_SIDE, np.uint8)[know.boards]
        moves = [(m.source, m.target) for m in position.move_stack]
        mine = stack_history(owners, moves, int(position.side))
        for name in HISTORY_FIELDS:
            assert np.array_equal(mine[name][0], rows[name][ply]), (name, ply)
        checked += 1
        position.push(move)
    assert checked > 50 and rows["piece_moves"].max() > 3 and rows["piece_near"].max() > 0


def test_rows_out_of_ply_order_are_refused() -> None:
    arrays = sample_rows(1)
    with pytest.raises(InputError, match="not in ply order"):
        RowHistory().rows(
            arrays["board_view"][1:3], arrays["side"][1:3] + 1, arrays["ply"][1:3], [0, 0]
        )


def random_weights(hidden: int, seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        k: rng.normal(0, 0.3, shape).astype(np.float32)
        for k, shape in weight_shapes(hidden).items()
    }


def test_the_numpy_inference_equals_the_torch_network() -> None:
    torch = pytest.importorskip("torch")
    from strat_tools.benchmark.belief_train import to_torch_belief

    pieces = piece_inputs(sample_rows(2))
    assert pieces.x.shape[1] == WIDTH and len(pieces.x) > 1_000
    shipped = load_belief_model()
    for net in (shipped, BeliefNetwork(random_weights(16), {**shipped.card, "hidden": 16})):
        mine = belief_logits(net, pieces.x)
        with torch.no_grad():
            theirs = to_torch_belief(net)(torch.from_numpy(pieces.x)).numpy()
        assert np.abs(mine - theirs).max() < 1e-5


def test_the_shipped_model_is_registered_and_keeps_every_rule() -> None:
    model = load("belief-v1")
    assert isinstance(model, LearnedBelief) and model.fields == BELIEF_FIELDS
    assert belief_by_name("belief-v1").net.card == model.net.card
    card = model.net.card
    assert card["provenance"]["split"] == "train" and card["parameters"] < 100_000
    batch = sample_rows(3)
    probs = model_beliefs(model, {f: batch[f] for f in BELIEF_FIELDS})
    unseen = batch["unseen"][:, None, :]
    hidden = (batch["board_view"] & 0x0F) == 14
    moved = hidden & ((batch["board_view"] & 0x40) != 0)
    assert np.allclose(probs.sum(axis=2)[hidden], 1.0)
    assert (np.where(hidden[:, :, None] & (unseen == 0), probs, 0) <= NO_MASS).all()
    assert (probs[moved][:, [0, 11]] == 0).all()  # a moved piece: no bomb, no flag


def copy_shipped(tmp_path: Path) -> Path:
    for ext in ("npz", "json"):
        shutil.copy(DATA / f"belief-v1.{ext}", tmp_path / f"m.{ext}")
    return tmp_path / "m"


def rewrite_card(stem: Path, change: object) -> None:
    card = json.loads(stem.with_suffix(".json").read_text())
    change(card)  # type: ignore[operator]
    stem.with_suffix(".json").write_text(json.dumps(card))


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda s: s.with_suffix(".npz").write_bytes(b"PK\x03\x04 cut"), "weights_sha256"),
        (lambda s: rewrite_card(s, lambda c: c.update(hidden=64)), "l1.weight has shape"),
        (lambda s: rewrite_card(s, lambda c: c.update(kind="x")), "kind is not"),
        (lambda s: rewrite_card(s, lambda c: c["provenance"].pop("seed")), "'seed' is not"),
        (lambda s: rewrite_card(s, lambda c: c.update(inputs_version=0)), "inputs version"),
        (lambda s: rewrite_card(s, lambda c: c["kinds"].reverse()), "the kinds"),
        (lambda s: s.with_suffix(".json").write_text("{"), "cannot read the belief model"),
        (lambda s: s.with_suffix(".npz").unlink(), "cannot read the belief model"),
    ],
)
def test_a_damaged_model_file_is_a_clear_error(tmp_path: Path, damage: object, says: str) -> None:
    stem = copy_shipped(tmp_path)
    assert load_belief_model(stem).card == load_belief_model().card
    damage(stem)  # type: ignore[operator]
    with pytest.raises(InputError, match=says):
        load_belief_model(stem)


def test_weights_that_are_not_finite_are_refused_even_with_their_hash(tmp_path: Path) -> None:
    stem = copy_shipped(tmp_path)
    card = json.loads(stem.with_suffix(".json").read_text())
    weights = random_weights(card["hidden"])
    weights["l2.bias"][0] = np.nan
    np.savez(stem.with_suffix(".npz"), **weights)
    raw = stem.with_suffix(".npz").read_bytes()
    rewrite_card(stem, lambda c: c.update(weights_sha256=hashlib.sha256(raw).hexdigest()))
    with pytest.raises(InputError, match="not finite"):
        load_belief_model(stem)


def test_a_saved_model_reads_back_as_written(tmp_path: Path) -> None:
    shipped = load_belief_model()
    card = {"name": "mine", "hidden": 8, "provenance": shipped.card["provenance"]}
    made = save_belief_model(random_weights(8), card, tmp_path / "mine.npz")
    assert made.card["parameters"] == sum(int(np.prod(s)) for s in weight_shapes(8).values())
    assert np.array_equal(
        load_belief_model(tmp_path / "mine").weights["l1.bias"], made.weights["l1.bias"]
    )


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_once(tmp_path_factory, "bench-sample", make_bench)


def test_training_writes_a_belief_model_that_predicts_and_scores(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="PyTorch is optional (requirements-torch.lock)")
    patch_definition(monkeypatch, sample / "gravon")
    bench, out = sample / "bench", tmp_path / "tiny.npz"
    args = ["bench", "train", str(bench), "--task", "belief", "-o", str(out), "--hidden", "8"]
    args += ["--steps", "10", "--batch-size", "64", "--eval-every", "5", "--train-share", "0.5"]
    result = CliRunner().invoke(main, [*args, "--seed", "3"])
    assert result.exit_code == 0, result.output
    model = load_belief_model(out)
    about = model.card["provenance"]
    assert about["months"] == ["2030-01"] and about["seed"] == 3 and about["steps"] in (5, 10)
    pred = tmp_path / "pred"
    args = ["bench", "predict", str(bench), "--task", "belief", "--split", "val"]
    args += ["--policy", "belief-v1", "--model", str(out), "-o", str(pred)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads((pred / "card.json").read_text())["seed"] == 3
    scored = CliRunner().invoke(
        main, ["bench", "score", str(bench), str(pred), "--task", "belief", "--split", "val"]
    )
    assert scored.exit_code == 0, scored.output
    again = CliRunner().invoke(
        main, ["bench", "train", str(bench), "--task", "belief", "-o", str(out)]
    )
    assert again.exit_code == 2 and "exists" in again.output  # never over a file
