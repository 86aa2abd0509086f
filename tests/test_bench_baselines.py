"""The baselines and the predictor (strat_tools/benchmark/move_kinds.py, baselines.py,
predict.py, policy.py): kinds of move from what the mover knows only, the shipped count
tables checked field by field, any MovePolicy plugged into predict, the truth refused."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench_sample import make_bench, patch_definition
from click.testing import CliRunner

from conftest import shared_once
from strat_tools.benchmark.baselines import (
    POLICIES,
    CountPolicy,
    UniformPolicy,
    fit_count_tables,
    load_counts,
    save_counts,
)
from strat_tools.benchmark.definition import SPLITS
from strat_tools.benchmark.move_kinds import kind_name, move_kinds, same_piece
from strat_tools.benchmark.policy import POLICY_FIELDS
from strat_tools.benchmark.predict import predict
from strat_tools.benchmark.score import score
from strat_tools.cli import main
from strat_tools.cli.bench_score import POLICY_NAMES
from strat_tools.core.errors import InputError, UsageError
from strat_tools.engine.information.move_policy import MovePolicy

OPPONENT, KNOWN, MOVED = 16, 32, 64

# Bytes 30..69 of a board in the mover's view (rows 4 to 7 from its seat, A to K):
# '+2' an own scout (rank 2), '-?' an opponent piece never seen moving, '-m' one seen moving,
# '-5' an identified opponent lieutenant, '~~' a lake.
ROWS = """
7  -?  -m  .   .   .   .   .   .   .   .
6  .   .   ~~  ~~  .   .   ~~  ~~  .   .
5  +2  .   ~~  ~~  .   .   ~~  ~~  .   .
4  .   -5  .   .   .   .   .   .   .   .
"""


def board_of(diagram: str, hidden: dict[int, int]) -> np.ndarray:
    """A [1, 100] board from the diagram; ``hidden``: the true kind (byte bits 0-3) of each
    unidentified opponent piece, by square."""
    board = np.zeros((1, 100), np.uint8)
    for line in diagram.strip().splitlines():
        row, *cells = line.split()
        for column, cell in enumerate(cells):
            square = (int(row) - 1) * 10 + column
            if cell.startswith("+"):
                board[0, square] = int(cell[1:]) + 1
            elif cell == "-?":
                board[0, square] = OPPONENT | hidden[square]
            elif cell == "-m":
                board[0, square] = OPPONENT | MOVED | hidden[square]
            elif cell.startswith("-"):
                board[0, square] = OPPONENT | KNOWN | (int(cell[1:]) + 1)
            elif cell == "~~":
                board[0, square] = 13
    return board


MOVES = np.array([[4030, 4041, 4050, 4060]], np.int16)  # A5-A4, A5-B5, A5-A6, A5-A7


def test_a_move_kind_reads_only_what_the_mover_knows() -> None:
    flag_and_marshal = board_of(ROWS, {60: 12, 61: 11})
    swapped = board_of(ROWS, {60: 11, 61: 12})  # the two unidentified pieces swapped
    assert (flag_and_marshal != swapped).any()
    kinds = move_kinds(flag_and_marshal, MOVES)
    assert (kinds == move_kinds(swapped, MOVES)).all()
    assert [kind_name(int(k)) for k in kinds[0]] == [
        "scout unmoved step back empty",
        "scout unmoved step side empty",
        "scout unmoved step forward empty",
        "scout unmoved multi forward unknown-unmoved",
    ]
    # the control: the same swap where the mover knows the ranks changes the kind
    known = flag_and_marshal.copy()
    known[0, 60] |= KNOWN
    assert (
        kind_name(int(move_kinds(known, MOVES)[0, 3])) == "scout unmoved multi forward known-flag"
    )


def test_same_piece_is_the_piece_the_mover_moved_last_turn() -> None:
    last = np.array([[-1, 3040, 9989], [-1, -1, 9989]])  # own A4-A5, then the opponent's
    same = same_piece(np.concatenate([MOVES, MOVES]), last)
    assert same.tolist() == [[True] * 4, [False] * 4]


def test_the_shipped_count_tables_carry_their_provenance() -> None:
    tables = load_counts()
    assert sorted(tables) == ["counts", "counts-last"]
    for table in tables.values():
        about = table.provenance
        assert about["months"] == [z.month for z in SPLITS[0].zips]
        assert (about["benchmark"], about["version"], about["split"]) == (
            "strat-bench-move-v1",
            1,
            "train",
        )
        assert int(table.chosen.sum()) == about["rows"] and (table.chosen <= table.legal).all()
    assert tables["counts-last"].legal.sum() == tables["counts"].legal.sum()


DAMAGE = {
    "a count as text": (lambda t: t["tables"][0]["legal"].__setitem__(0, "7"), "not a count"),
    "a bool as a count": (lambda t: t["tables"][0]["chosen"].__setitem__(0, True), "not a count"),
    "a short table": (lambda t: t["tables"][1]["legal"].pop(), "is not 2304 counts"),
    "chosen over legal": (
        lambda t: t["tables"][0]["chosen"].__setitem__(0, t["tables"][0]["legal"][0] + 1),
        "chosen more often than legal",
    ),
    "no provenance": (lambda t: t["tables"][0].pop("provenance"), "no provenance"),
    "another split": (
        lambda t: t["tables"][0]["provenance"].__setitem__("split", "test"),
        "not counted on",
    ),
    "another kinds version": (
        lambda t: t["tables"][0].__setitem__("kinds_version", 1),
        "another kinds version",
    ),
    "one table only": (lambda t: t["tables"].pop(), "forms"),
    "a zero-based month": (
        lambda t: t["tables"][0]["provenance"]["months"].__setitem__(0, "2014-00"),
        "not YYYY-MM",
    ),
    "rows not the moves chosen": (
        lambda t: t["tables"][0]["provenance"].__setitem__("rows", 5),
        "chosen moves are not the rows",
    ),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_count_table_is_refused(kind: str, tmp_path: Path) -> None:
    damage, words = DAMAGE[kind]
    tables = load_counts()
    save_counts(tables, tmp_path / "counts.json")
    data = json.loads((tmp_path / "counts.json").read_text())
    damage(data)
    (tmp_path / "counts.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match=words):
        load_counts(tmp_path / "counts.json")


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_once(tmp_path_factory, "bench-sample", make_bench)


@pytest.fixture
def bench(sample: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    patch_definition(monkeypatch, sample / "gravon")
    return sample / "bench"


def test_count_tables_fit_on_train_only(bench: Path) -> None:
    tables = fit_count_tables(bench)
    train = json.loads((bench / "manifest.json").read_text())["splits"]["train"]
    for table in tables.values():
        assert table.provenance["rows"] == train["rows"] == int(table.chosen.sum())
        assert table.provenance["games"] == train["games"]
        assert table.provenance["months"] == ["2030-01"]


@pytest.mark.parametrize("policy", POLICIES)
def test_each_shipped_policy_predicts_a_submission_that_scores(
    policy: str, bench: Path, tmp_path: Path
) -> None:
    # val, the sample's smallest split (10 games): the learned models' forward passes over
    # test's 45 games took a minute of the quick tier; the path is the same for every split
    pred, split = tmp_path / "pred", ["--split", "val"]
    args = ["bench", "predict", str(bench), *split, "--policy", policy, "-o", str(pred)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    card = json.loads((pred / "card.json").read_text())
    assert card["model"] == policy and card["trained_on_val"] is False
    args = ["bench", "score", str(bench), str(pred), *split, "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    scored = json.loads(result.output)
    assert scored["split"] == "val" and scored["views"]["all"]["nll"] > 0


def test_the_cli_offers_the_shipped_policies() -> None:
    assert POLICY_NAMES == POLICIES


class Forward:
    """A user's own policy: prefers moves towards the opponent (the kind of model a
    PyTorch forward pass would be, in NumPy)."""

    name = "forward"
    fields = ("board_view",)

    def log_probs(self, batch: dict[str, Any]) -> np.ndarray:
        ids = batch["legal_ids"].astype(np.int64)
        assert batch["board_view"].shape == (len(ids), 100)
        return np.where(ids % 100 > ids // 100, 0.0, -1.0)  # the padding is ignored

    def card(self) -> dict[str, Any]:
        return {**UniformPolicy().card(), "model": "forward", "compute": "a line of NumPy"}


def test_a_users_own_policy_plugs_into_predict(bench: Path, tmp_path: Path) -> None:
    mine = Forward()
    assert isinstance(mine, MovePolicy)
    summary = predict(bench, "test", mine, tmp_path / "pred", card={"seed": 3})
    assert summary.card["seed"] == 3 and summary.card["model"] == "forward"
    forward = score(bench, tmp_path / "pred", "test").views["all"]
    predict(bench, "test", UniformPolicy(), tmp_path / "uniform")
    uniform = score(bench, tmp_path / "uniform", "test").views["all"]
    assert forward["rows"] == uniform["rows"] and forward["nll"] != uniform["nll"]


def test_a_policy_asking_for_the_truth_or_giving_the_wrong_shape_is_refused(
    bench: Path, tmp_path: Path
) -> None:
    assert "board" not in POLICY_FIELDS and "action" not in POLICY_FIELDS
    cheat = Forward()
    cheat.fields = ("board",)  # type: ignore[assignment]
    with pytest.raises(UsageError, match="'board'"):
        predict(bench, "test", cheat, tmp_path / "pred")
    assert not (tmp_path / "pred").exists()
    wrong = Forward()
    wrong.log_probs = lambda batch: np.zeros((len(batch["legal_ids"]), 3))  # type: ignore[method-assign]
    with pytest.raises(UsageError, match="shape"):
        predict(bench, "test", wrong, tmp_path / "pred")
    assert not (tmp_path / "pred").exists()


def test_the_count_models_never_see_a_hidden_rank(bench: Path) -> None:
    counts = load_counts()
    for policy in (CountPolicy(counts["counts"]), CountPolicy(counts["counts-last"])):
        assert set(policy.fields) <= set(POLICY_FIELDS)


def test_predict_takes_count_tables_from_a_file(bench: Path, tmp_path: Path) -> None:
    save_counts(fit_count_tables(bench), tmp_path / "mine.json")
    args = ["bench", "predict", str(bench), "--policy", "counts", "-o"]
    mine = CliRunner().invoke(
        main, [*args, str(tmp_path / "a"), "--counts", str(tmp_path / "mine.json")]
    )
    shipped = CliRunner().invoke(main, [*args, str(tmp_path / "b")])
    assert (mine.exit_code, shipped.exit_code) == (0, 0), mine.output + shipped.output
    card = json.loads((tmp_path / "a" / "card.json").read_text())
    assert card["training_months"] == ["2030-01"]
    assert (tmp_path / "a" / "part-00000.parquet").read_bytes() != (
        tmp_path / "b" / "part-00000.parquet"
    ).read_bytes()
    wrong = ["bench", "predict", str(bench), "--policy", "uniform", "--counts", "x.json"]
    result = CliRunner().invoke(main, [*wrong, "-o", str(tmp_path / "c")])
    assert result.exit_code == 2 and "--counts is for the count policies" in result.output


def test_files_of_ours_named_by_the_user_are_opened_as_inputs(tmp_path: Path) -> None:
    """Count tables, a belief prior and a human-move model given by path are files of ours
    read back: a FIFO in their place is refused at once (a plain open would wait for a
    writer for ever), and so is a file too large to be one."""
    from strat_tools.benchmark.baselines import load_counts
    from strat_tools.benchmark.belief_baselines import load_belief_prior
    from strat_tools.benchmark.human_model import load_model
    from strat_tools.core.errors import InputError

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for load in (load_counts, load_belief_prior):
        with pytest.raises(InputError, match="not a regular file"):
            load(fifo)
    os.mkfifo(tmp_path / "model.npz")
    (tmp_path / "model.json").write_text("{}")
    with pytest.raises(InputError, match="not a regular file"):
        load_model(tmp_path / "model")
    huge = tmp_path / "huge.json"
    with huge.open("wb") as out:
        out.truncate((1 << 24) + 1)  # sparse: no disk used
    with pytest.raises(InputError, match="more than the"):
        load_counts(huge)
