"""The benchmark's belief task (belief_rows, belief_score, belief_predict, belief_baselines):
a counts-left submission written from outside with plain pyarrow scores the cross-entropy
computed from the ``board`` label by hand; the shipped baselines through ``bench predict
--task belief`` match it and ``Position.beliefs``; every malformed submission is refused
with exit 2 naming the row; the shipped prior is checked field by field."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from bench_sample import make_bench, patch_definition
from click.testing import CliRunner

from conftest import shared_once
from strat_tools.benchmark import belief_score
from strat_tools.benchmark.belief_baselines import (
    BELIEF_POLICIES,
    SetupPriorBelief,
    load_belief_prior,
)
from strat_tools.benchmark.belief_score import score_beliefs
from strat_tools.benchmark.bench_folder import open_bench
from strat_tools.benchmark.submission import aligned_log_probs
from strat_tools.benchmark.submission_files import read_submission, submission_sha256
from strat_tools.cli import main
from strat_tools.cli.bench_score import BELIEF_POLICY_NAMES
from strat_tools.core.errors import InputError
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import read_records

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"
CARD = {
    "model": "outside",
    "parameters": 0,
    "training_data": "none",
    "training_months": [],
    "external_data": "none",
    "compute": "none",
    "seed": None,
    "trained_on_val": False,
}
NONE = float(np.log(1e-30))


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_once(tmp_path_factory, "bench-sample", make_bench)


@pytest.fixture
def bench(sample: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    patch_definition(monkeypatch, sample / "gravon")
    return sample / "bench"


def by_hand(bench: Path, split: str = "test") -> dict[str, list[Any]]:
    """The counts-left belief of every unidentified piece, from the split's files with
    pyarrow and NumPy alone, and each piece's true kind from the board label."""
    files = sorted((bench / split / "observations").glob("*.parquet"))
    table = pa.concat_tables(
        pq.read_table(f, columns=["game_id", "ply", "board_view", "board", "unseen"]) for f in files
    )
    out: dict[str, list[Any]] = {k: [] for k in ("game_id", "ply", "square", "lists", "truth")}
    for game, ply, view, board, unseen in zip(
        *(table.column(c).to_pylist() for c in table.column_names), strict=True
    ):
        for square in range(100):
            byte = view[square]
            if not (byte & 0x10 and byte & 0x0F == 14):
                continue
            weights = np.array(list(unseen), float)
            if byte & 0x40:  # moved: not a bomb, not the flag
                weights[[0, 11]] = 0
            probs = weights / weights.sum()
            out["game_id"].append(game)
            out["ply"].append(ply)
            out["square"].append(square)
            with np.errstate(divide="ignore"):
                out["lists"].append(np.maximum(np.log(probs), NONE).tolist())
            out["truth"].append((board[square] & 0x0F) - 1)
    return out


@pytest.fixture(scope="module")
def hand(sample: Path) -> dict[str, list[Any]]:
    return by_hand(sample / "bench")


@pytest.fixture(scope="module")
def hand_val(sample: Path) -> dict[str, list[Any]]:
    """Val's rows (10 games: the cheap split for the refusals)."""
    return by_hand(sample / "bench", "val")


def write(folder: Path, rows: dict[str, list[Any]], card: Any = CARD) -> Path:
    folder.mkdir()
    pq.write_table(
        pa.table(
            {
                "game_id": pa.array(rows["game_id"], pa.string()),
                "ply": pa.array(rows["ply"], pa.int32()),
                "square": pa.array(rows["square"], pa.int16()),
                "log_probs": pa.array(rows["lists"], pa.list_(pa.float32())),
            }
        ),
        folder / "part-0.parquet",
    )
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["bench", *args])


def test_a_counts_left_submission_scores_the_cross_entropy_by_hand(
    bench: Path, hand: dict[str, list[Any]], tmp_path: Path
) -> None:
    pred = write(tmp_path / "pred", hand)
    result = run("score", str(bench), str(pred), "--task", "belief", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["task"] == "belief"
    lists = np.array(hand["lists"], np.float32).astype(np.float64)
    truth = np.array(hand["truth"])
    mine = lists[np.arange(len(truth)), truth]
    shown = data["views"]["all"]
    assert shown["rows"] == len(truth) > 1000
    assert shown["ce"] == pytest.approx(-mine.mean(), abs=1e-6)
    assert shown["true_prob"] == pytest.approx(np.exp(mine).mean(), abs=1e-6)
    flag = truth == 11
    assert shown["flag_prob"] == pytest.approx(np.exp(lists[flag, 11]).mean(), abs=1e-6)
    for view in ("all", "fresh", "seen"):
        row = data["views"][view]
        for key in ("games", "rows", "ce", "ce_low", "ce_high", "top1", "true_prob", "flag_prob"):
            assert key in row
        assert row["ce_low"] <= row["ce"] <= row["ce_high"]
    assert {(r["view"], r["by"], r["group"]) for r in data["by"]} >= {("fresh", "ply", "1-10")}
    # the shipped belief-counts through bench predict: the same score
    out = tmp_path / "counts"
    made = run(
        "predict", str(bench), "--task", "belief", "--policy", "belief-counts", "-o", str(out)
    )
    assert made.exit_code == 0, made.output
    again = run("score", str(bench), str(out), "--task", "belief", "--format", "json")
    assert json.loads(again.output)["views"]["all"]["ce"] == pytest.approx(shown["ce"], abs=1e-6)
    assert run("score", str(bench), str(out), "--task", "belief").exit_code == 0


def test_the_setup_prior_beats_the_counts_on_the_sample_and_matches_the_api(
    bench: Path, tmp_path: Path
) -> None:
    scores = {}
    for policy in BELIEF_POLICIES:
        out = tmp_path / policy
        made = run(
            "predict",
            str(bench),
            "--task",
            "belief",
            "--split",
            "val",
            "--policy",
            policy,
            "-o",
            str(out),
        )
        assert made.exit_code == 0, made.output
        scored = run(
            "score", str(bench), str(out), "--task", "belief", "--split", "val", "--format", "json"
        )
        scores[policy] = json.loads(scored.output)["views"]["all"]["ce"]
    assert scores["belief-prior"] < scores["belief-counts"]
    # Position.beliefs(model=the prior) is the submission's row for the same position
    rows = pq.read_table(tmp_path / "belief-prior" / "part-00000.parquet").to_pylist()
    game = rows[0]["game_id"]
    record = next(r for r in read_records(SAMPLE) if r.member == f"{game}.xml")
    position = Position(record.setup or (), replay(record).rules)
    for move in record.moves[:11]:
        position.push(move)  # before ply 12: blue to move
    beliefs = position.beliefs(SetupPriorBelief(load_belief_prior()))
    mine = {r["square"]: r["log_probs"] for r in rows if r["game_id"] == game and r["ply"] == 12}
    assert int(position.side) == 2
    assert len(mine) == len(beliefs) > 30
    for square, belief in beliefs.items():
        expected = np.exp(mine[99 - square])  # blue's view: square 99 - s
        assert np.allclose(list(belief.values()), expected, atol=1e-6)


def break_rows(hand: dict[str, list[Any]], how: str) -> dict[str, list[Any]]:
    rows = {k: list(v) for k, v in hand.items()}
    moved = next(i for i, lst in enumerate(rows["lists"]) if lst[0] == NONE and lst[2] != NONE)
    none_left = next(i for i, lst in enumerate(rows["lists"]) if lst[1] == NONE and lst[0] != NONE)
    if how == "missing":
        for k in rows:
            del rows[k][3]
    elif how == "repeated":
        for k in rows:
            rows[k].append(rows[k][3])
    elif how == "stranger square":
        rows["square"][3] = 55 if rows["square"][3] != 55 else 54
    elif how == "square off the board":
        rows["square"][3] += 128  # the same square modulo 128: refused, never aliased
    elif how == "short":
        rows["lists"][3] = rows["lists"][3][:11]
    elif how == "not normalised":
        rows["lists"][3] = [v - 0.1 for v in rows["lists"][3]]
    elif how == "bomb on a moved piece":
        lst = np.exp(np.array(rows["lists"][moved]))
        lst[0], lst[2] = 0.5 * lst[2], 0.5 * lst[2]
        rows["lists"][moved] = np.log(np.maximum(lst, 1e-30)).tolist()
        return {**rows, "at": [moved]}
    elif how == "a kind with none left":
        lst = np.exp(np.array(rows["lists"][none_left]))
        lst[1], lst[0] = 0.5 * lst[0], 0.5 * lst[0]
        rows["lists"][none_left] = np.log(np.maximum(lst, 1e-30)).tolist()
        return {**rows, "at": [none_left]}
    return {**rows, "at": [3]}


@pytest.mark.parametrize(
    ("how", "says"),
    [
        ("missing", "miss rows"),
        ("repeated", "repeated rows"),
        ("stranger square", "does not have"),
        ("square off the board", "outside 0..99"),
        ("short", "not as long"),
        ("not normalised", "do not sum to 1"),
        ("bomb on a moved piece", "bomb or the flag for a piece that has moved"),
        ("a kind with none left", "no unidentified piece left"),
    ],
)
def test_a_malformed_belief_submission_is_refused_naming_the_row(
    bench: Path, hand_val: dict[str, list[Any]], tmp_path: Path, how: str, says: str
) -> None:
    hand = hand_val
    rows = break_rows(hand, how)
    pred = write(tmp_path / "pred", rows)
    result = run("score", str(bench), str(pred), "--task", "belief", "--split", "val")
    assert result.exit_code == 2, result.output
    assert says in result.output
    i = rows["at"][0]
    if how in ("stranger square", "square off the board"):
        named = f"square {rows['square'][i]}"
    else:
        named = f"game {hand['game_id'][i]} ply {hand['ply'][i]} square {hand['square'][i]}"
    assert named in result.output, result.output


def test_the_task_and_the_policy_must_agree(bench: Path, tmp_path: Path) -> None:
    assert BELIEF_POLICY_NAMES == BELIEF_POLICIES
    wrong = run("predict", str(bench), "--policy", "belief-prior", "-o", str(tmp_path / "x"))
    assert wrong.exit_code == 2 and "not a policy of --task move" in wrong.output
    counts = run(
        "predict",
        str(bench),
        "--task",
        "belief",
        "--policy",
        "belief-counts",
        "--counts",
        "x.json",
        "-o",
        str(tmp_path / "y"),
    )
    assert counts.exit_code == 2 and "not for --task belief" in counts.output
    assert not (tmp_path / "y").exists()


def test_the_shipped_prior_is_checked_field_by_field(tmp_path: Path) -> None:
    prior = load_belief_prior()
    assert prior.provenance["split"] == "train" and prior.provenance["setups"] == 15_100
    assert prior.counts.shape == (40, 12)
    shipped = json.loads(prior_text())
    for change, says in [
        (lambda d: d["counts"][0].__setitem__(0, d["counts"][0][0] + 1), "once a setup"),
        (lambda d: d["provenance"].pop("months"), "no provenance"),
        (lambda d: d["provenance"].__setitem__("split", "test"), "not counted on"),
        (lambda d: d.__setitem__("kinds", d["kinds"][::-1]), "order"),
        (lambda d: d["counts"][3].__setitem__(2, -1), "not a count"),
    ]:
        data = json.loads(json.dumps(shipped))
        change(data)
        path = tmp_path / "prior.json"
        path.write_text(json.dumps(data))
        with pytest.raises(InputError, match=says):
            load_belief_prior(path)
    shutil.rmtree(tmp_path)


def prior_text() -> str:
    from importlib import resources

    return (
        resources.files("strat_tools.benchmark").joinpath("data", "belief_prior.json").read_text()
    )


def _in_two_files(folder: Path, rows: dict[str, list[Any]], cut: int) -> Path:
    """``rows`` in the split's order, in two files cut at row ``cut`` (mid-game)."""
    folder.mkdir()
    for i, part in enumerate((slice(0, cut), slice(cut, None))):
        some = {key: values[part] for key, values in rows.items()}
        write(folder / f"f{i}", some)
        (folder / f"f{i}" / "part-0.parquet").rename(folder / f"part-{i}.parquet")
        shutil.rmtree(folder / f"f{i}")
    (folder / "card.json").write_text(json.dumps(CARD))
    return folder


def test_a_submission_in_the_splits_order_streams_to_the_last_digit(
    bench: Path, hand: dict[str, list[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scored 7 plies at a time (games cut across chunks, rows across files), never read
    whole: the very numbers of the whole submission read at once, intervals included."""
    pred = _in_two_files(tmp_path / "pred", hand, len(hand["ply"]) // 3)
    whole = score_beliefs(bench, read_submission(pred, "belief"), "test").to_json()

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("read whole")

    with monkeypatch.context() as patched:
        patched.setattr(belief_score, "read_submission", never)
        patched.setattr(belief_score, "belief_rows", never)
        streamed = score_beliefs(bench, pred, "test", chunk_rows=7).to_json()
    assert streamed == whole
    assert streamed["predictions_sha256"] == submission_sha256(pred)
    # rows in another order are read whole: the same score
    backwards = {key: values[::-1] for key, values in hand.items()}
    assert (
        score_beliefs(bench, write(tmp_path / "back", backwards), "test").to_json()["views"]
        == (whole["views"])
    )


def _held_while_checked(folder: Any, pred: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """The most memory Python and NumPy hold (tracemalloc) when a chunk's (or the whole
    split's) log-probabilities have been checked and lined up with its rows."""
    held = [0]

    def measured(*args: Any, **kwargs: Any) -> Any:
        out = aligned_log_probs(*args, **kwargs)
        held[0] = max(held[0], tracemalloc.get_traced_memory()[0])
        return out

    with monkeypatch.context() as patched:
        patched.setattr(belief_score, "aligned_log_probs", measured)
        tracemalloc.start()
        try:
            score_beliefs(folder, pred, "test", chunk_rows=16)
        finally:
            tracemalloc.stop()
    return held[0]


def test_the_streamed_belief_scorer_holds_a_chunk_not_the_split(
    bench: Path, hand: dict[str, list[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streamed, the scorer holds a chunk's arrays: far less than one float32 copy of the
    submission's values; read whole (the same rows reversed), more than that copy. (The
    memory held, not the peak: reading a file of ours sets aside a buffer of the largest
    size allowed, which tracemalloc counts.)"""
    values = len(hand["ply"]) * 12 * 4
    folder = open_bench(bench)
    streamed = _held_while_checked(folder, write(tmp_path / "pred", hand), monkeypatch)
    backwards = {key: values[::-1] for key, values in hand.items()}
    whole = _held_while_checked(folder, write(tmp_path / "back", backwards), monkeypatch)
    assert streamed < values / 4 < values < whole, (streamed, values, whole)
