"""``bench score`` (strat_tools/benchmark/score.py, submission.py): submissions written from
outside the project with plain pyarrow, scored, and every kind of malformed one refused
with exit 2 naming the first offending row."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from bench_sample import make_bench, patch_definition
from click.testing import CliRunner

from conftest import older_shards, rewrite_shards, shared_once
from strat_tools.benchmark.bench_folder import open_bench, open_split, split_export
from strat_tools.benchmark.score import BATTLE_BANDS, LEGAL_BANDS, PLY_BANDS, band_indices
from strat_tools.benchmark.submission_files import (
    SubmissionError,
    SubmissionStream,
    submission_sha256,
)
from strat_tools.cli import main
from strat_tools.io import verified
from strat_tools.io.owned import verify_file

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


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_once(tmp_path_factory, "bench-sample", make_bench)


@pytest.fixture
def bench(sample: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample benchmark, its definition patched in for the manifest's reader."""
    patch_definition(monkeypatch, sample / "gravon")
    return sample / "bench"


def split_truth(bench: Path, split: str) -> pa.Table:
    """A split's rows read with pyarrow alone (no strat-tools reader)."""
    files = sorted((bench / split / "observations").glob("*.parquet"))
    return pa.concat_tables(
        pq.read_table(f, columns=["game_id", "ply", "legal_actions", "action"]) for f in files
    )


@pytest.fixture(scope="session")
def truth(sample: Path) -> pa.Table:
    """The test split's rows."""
    return split_truth(sample / "bench", "test")


def uniform_lists(truth: pa.Table) -> list[list[float]]:
    return [[-math.log(len(ids))] * len(ids) for ids in truth.column("legal_actions").to_pylist()]


def write_submission(
    folder: Path,
    game_ids: list[Any],
    plies: list[Any],
    log_probs: list[Any],
    card: Any = CARD,
    parts: int = 1,
) -> Path:
    """A submission as anyone would write it: pyarrow and json only."""
    folder.mkdir()
    cut = np.linspace(0, len(game_ids), parts + 1).astype(int)
    for k in range(parts):
        lo, hi = cut[k], cut[k + 1]
        table = pa.table(
            {
                "game_id": pa.array(game_ids[lo:hi], pa.string()),
                "ply": pa.array(plies[lo:hi], pa.int32()),
                "log_probs": pa.array(log_probs[lo:hi], pa.list_(pa.float32())),
            }
        )
        pq.write_table(table, folder / f"part-{k}.parquet")
    if card is not None:
        (folder / "card.json").write_text(json.dumps(card))
    return folder


def columns(truth: pa.Table) -> tuple[list[Any], list[Any], list[Any]]:
    return (
        truth.column("game_id").to_pylist(),
        truth.column("ply").to_pylist(),
        uniform_lists(truth),
    )


def score(bench: Path, pred: Path, *more: str) -> Any:
    return CliRunner().invoke(main, ["bench", "score", str(bench), str(pred), *more])


def test_a_uniform_submission_scores_the_mean_log_of_the_legal_moves(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    pred = write_submission(tmp_path / "pred", *columns(truth))
    result = score(bench, pred, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    counts = np.array([len(x) for x in truth.column("legal_actions").to_pylist()])
    expected = float(np.log(counts).mean())
    assert abs(data["views"]["all"]["nll"] - expected) < 1e-6
    assert data["views"]["all"]["rows"] == truth.num_rows
    assert data["views"]["all"]["top1"] == pytest.approx(float((1 / counts).mean()))
    for view in ("all", "fresh", "seen"):
        shown = data["views"][view]
        for key in ("games", "rows", "nll", "nll_low", "nll_high", "top1", "top1_low"):
            assert key in shown
        assert shown["nll_low"] <= shown["nll"] <= shown["nll_high"]
        assert shown["ece"] < 1e-6  # uniform: the top choice's probability is its credit
    fresh, seen = data["views"]["fresh"], data["views"]["seen"]
    assert fresh["games"] + seen["games"] == data["views"]["all"]["games"]
    manifest = (bench / "manifest.json").read_bytes()
    assert data["manifest_sha256"] == hashlib.sha256(manifest).hexdigest()
    lines = "".join(
        f"{hashlib.sha256((pred / n).read_bytes()).hexdigest()}  {n}\n"
        for n in ("card.json", "part-0.parquet")
    )
    assert data["predictions_sha256"] == hashlib.sha256(lines.encode()).hexdigest()
    groups = {(row["view"], row["by"], row["group"]) for row in data["by"]}
    assert {("all", "ply", "1-10"), ("fresh", "side", "blue"), ("all", "ending", "board")} <= groups
    for view in ("all", "fresh", "seen"):
        for by in ("ply", "side", "legal_moves", "plies_since_battle", "ending"):
            rows = [r for r in data["by"] if (r["view"], r["by"]) == (view, by)]
            assert sum(r["rows"] for r in rows) == data["views"][view]["rows"], (view, by)


def tilted(plies: list[Any], lists: list[Any]) -> list[Any]:
    """Each row's uniform log-probabilities tilted towards one move (its ply's): rows put in
    the wrong place, or a played move taken for another, score apart."""
    lists = [
        [v + (0.7 if i == ply % len(x) else 0.0) for i, v in enumerate(x)]
        for x, ply in zip(lists, plies, strict=True)
    ]
    return [list(np.log(np.exp(x) / np.exp(x).sum())) for x in lists]


def test_rows_in_any_order_and_files_score_the_same(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    ids, plies, lists = columns(truth)
    lists = tilted(plies, lists)
    one = write_submission(tmp_path / "one", ids, plies, lists)
    order = np.random.default_rng(5).permutation(len(ids))
    shuffled = [[column[i] for i in order] for column in (ids, plies, lists)]
    three = write_submission(tmp_path / "three", *shuffled, parts=3)
    first, second = (json.loads(score(bench, p, "--format", "json").output) for p in (one, three))
    assert first["views"] == second["views"] and first["by"] == second["by"]
    assert first["views"]["all"]["top1"] != pytest.approx(second["views"]["all"]["top3"])


def test_files_of_other_float_lists_read_as_one_submission(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    """One file of float32 lists, one of float64 and one whose items are non-null (as
    another writer makes them): one submission, scored as the one-file one (a crash in
    pyarrow's concatenation, before), and streamed alike."""
    ids, plies, lists = columns(truth)
    lists = tilted(plies, lists)
    one = write_submission(tmp_path / "one", ids, plies, lists)
    three = write_submission(tmp_path / "three", ids, plies, lists, parts=3)
    forms = {
        "part-1.parquet": pa.list_(pa.float64()),
        "part-2.parquet": pa.list_(pa.field("element", pa.float32(), nullable=False)),
    }
    for name, kind in forms.items():
        table = pq.read_table(three / name)
        pq.write_table(table.set_column(2, "log_probs", table.column(2).cast(kind)), three / name)
    first, second = (json.loads(score(bench, p, "--format", "json").output) for p in (one, three))
    assert first["views"] == second["views"] and first["by"] == second["by"]
    stream = SubmissionStream(three, "move", batch_rows=1000)
    taken = stream.take(truth.num_rows)
    assert taken is not None and taken.table.column("log_probs").type == pa.list_(pa.float64())
    assert stream.finished()


def test_val_has_one_view_and_an_unknown_split_is_refused(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    pred = write_submission(tmp_path / "pred", *columns(truth))
    val = write_submission(tmp_path / "val", *columns(split_truth(bench, "val")))
    data = json.loads(score(bench, val, "--split", "val", "--format", "json").output)
    assert list(data["views"]) == ["all"]
    result = score(bench, pred, "--split", "val")
    assert result.exit_code == 2 and "not in the split" in result.output
    result = score(bench, pred, "--split", "nope")
    assert result.exit_code == 2 and "no split 'nope'" in result.output, result.output
    for fmt in ("table", "csv", "jsonl"):
        assert score(bench, pred, "--format", fmt).exit_code == 0


def test_a_folder_the_manifest_does_not_name_is_refused_as_no_split(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    """A folder that is not one of the manifest's splits (here a damaged copy of test),
    or a path that leads to one, is refused by its name, a usage error, never read as a
    split or reported as damaged."""
    copy = tmp_path / "bench"
    shutil.copytree(bench, copy)
    shutil.copytree(copy / "test", copy / "stray")
    shard = next((copy / "stray").rglob("*.parquet"))
    shard.write_bytes(shard.read_bytes()[:100])
    pred = write_submission(tmp_path / "pred", *columns(truth))
    for name in ("stray", "../bench/test", "."):
        result = score(copy, pred, "--split", name)
        assert result.exit_code == 2, (name, result.output)
        assert f"no split {name!r}" in result.output, result.output
    assert score(copy, pred).exit_code == 0


def test_an_extra_split_scores_with_its_views(bench: Path, tmp_path: Path) -> None:
    later = split_truth(bench, "later")
    pred = write_submission(tmp_path / "pred", *columns(later))
    result = score(bench, pred, "--split", "later", "--format", "json")
    assert result.exit_code == 0, result.output
    views = json.loads(result.output)["views"]
    assert sorted(views) == ["all", "fresh", "seen"] and views["all"]["rows"] == later.num_rows


def test_a_bench_built_before_the_action_index_scores_the_same(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    """A folder an earlier strat-tools built (observations schema 3: no ``legal_count``, no
    ``action_index``) is scored from its legal lists, to the same bytes of JSON; one whose
    ``action_index`` is not among a row's legal moves is refused, not scored."""
    ids, plies, lists = columns(truth)
    pred = write_submission(tmp_path / "pred", ids, plies, tilted(plies, lists))
    old = tmp_path / "old"
    shutil.copytree(bench, old)
    older_shards(old / "test", ["legal_count", "action_index"], "3")
    new_result, old_result = (
        score(bench, pred, "--format", "json"),
        score(old, pred, "--format", "json"),
    )
    assert new_result.exit_code == old_result.exit_code == 0, old_result.output
    assert old_result.output == new_result.output
    data = json.loads(new_result.output)  # the played move counts: not the uniform's score
    counts = np.array([len(x) for x in truth.column("legal_actions").to_pylist()])
    assert abs(data["views"]["all"]["nll"] - float(np.log(counts).mean())) > 1e-3

    def past_the_last(table: pa.Table) -> pa.Table:
        index = table.column("action_index").to_numpy().copy()
        index[0] = table.column("legal_count")[0].as_py()
        return table.set_column(
            table.schema.get_field_index("action_index"),
            table.schema.field("action_index"),
            pa.array(index, pa.int16()),
        )

    wrong = tmp_path / "wrong"
    shutil.copytree(bench, wrong)
    rewrite_shards(wrong / "test", past_the_last)
    result = score(wrong, pred)
    assert result.exit_code == 3 and "not among its legal moves" in result.output, result.output
    # the split's refusal comes first, though the submission is read beside its checks
    (tmp_path / "no-files").mkdir()
    (tmp_path / "no-files" / "card.json").write_text(json.dumps(CARD))
    result = score(wrong, tmp_path / "no-files")
    assert result.exit_code == 3 and "not among its legal moves" in result.output, result.output
    assert "holds no Parquet file" in score(bench, tmp_path / "no-files").output


def first_row(truth: pa.Table, i: int = 0) -> str:
    return f"game {truth.column('game_id')[i]} ply {truth.column('ply')[i]}"


Breaker = Callable[[list[Any], list[Any], list[Any]], tuple[list[Any], list[Any], list[Any]]]


def drop_row(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
    return ids[:3] + ids[4:], plies[:3] + plies[4:], lists[:3] + lists[4:]


def repeat_row(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
    return [*ids, ids[3]], [*plies, plies[3]], [*lists, lists[3]]


def stranger_game(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
    return [*ids, "not-a-game"], [*plies, 1], [*lists, [0.0]]


def stranger_ply(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
    return [*ids, ids[3]], [*plies, 99999], [*lists, [0.0]]


def short_list(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
    return ids, plies, [*lists[:3], lists[3][:-1], *lists[4:]]


def replace_value(value: float) -> Breaker:
    def breaker(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
        return ids, plies, [*lists[:3], [value, *lists[3][1:]], *lists[4:]]

    return breaker


def not_normalised(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
    return ids, plies, [*lists[:3], [v - 0.01 for v in lists[3]], *lists[4:]]


def null_list(ids: list[Any], plies: list[Any], lists: list[Any]) -> Any:
    return ids, plies, [*lists[:3], None, *lists[4:]]


MALFORMED: dict[str, tuple[Breaker, str]] = {
    "missing row": (drop_row, "the predictions miss rows of the split"),
    "repeated row": (repeat_row, "repeated rows"),
    "game not in the split": (stranger_game, "rows of games that are not in the split"),
    "ply not in the split": (stranger_ply, "rows of plies the split does not have"),
    "list too short": (short_list, "not as long as their legal moves"),
    "nan": (replace_value(float("nan")), "a non-finite value"),
    "inf": (replace_value(float("inf")), "a non-finite value"),
    "-inf": (replace_value(float("-inf")), "a non-finite value"),
    "null value": (replace_value(None), "a null value"),  # type: ignore[arg-type]
    "null list": (null_list, "a null log_probs"),
    "sums to 0.99": (not_normalised, "do not sum to 1 within 0.001"),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_a_malformed_submission_is_refused_naming_the_row(
    kind: str, bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    breaker, words = MALFORMED[kind]
    pred = write_submission(tmp_path / "pred", *breaker(*columns(truth)))
    result = score(bench, pred)
    assert result.exit_code == 2, result.output
    assert words in result.output and "Traceback" not in result.output
    named = "game not-a-game ply 1" if kind == "game not in the split" else first_row(truth, 3)
    if kind == "ply not in the split":
        named = f"game {truth.column('game_id')[3]} ply 99999"
    assert named in result.output, result.output


def test_a_submission_just_within_the_tolerance_is_scored(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    ids, plies, lists = columns(truth)
    lists[3] = [v - 0.0009 / len(lists[3]) for v in lists[3]]  # sums to about 0.9991
    assert score(bench, write_submission(tmp_path / "pred", ids, plies, lists)).exit_code == 0


CARDS: dict[str, tuple[Any, str]] = {
    "no card": (None, "cannot read the card"),
    "not an object": ([1], "is not a JSON object"),
    "no model": ({k: v for k, v in CARD.items() if k != "model"}, "has no 'model'"),
    "parameters as text": ({**CARD, "parameters": "91k"}, "'parameters' is '91k'"),
    "trained_on_val as 0": ({**CARD, "trained_on_val": 0}, "'trained_on_val' is 0"),
    "a bool for parameters": ({**CARD, "parameters": True}, "'parameters' is True"),
    "months not text": ({**CARD, "training_months": [2014]}, "'training_months'"),
}


@pytest.mark.parametrize("kind", list(CARDS))
def test_a_bad_card_is_refused(kind: str, bench: Path, truth: pa.Table, tmp_path: Path) -> None:
    card, words = CARDS[kind]
    pred = write_submission(tmp_path / "pred", *columns(truth), card=card)
    result = score(bench, pred)
    assert result.exit_code == 2 and words in result.output, result.output


def test_files_of_another_form_are_refused(bench: Path, truth: pa.Table, tmp_path: Path) -> None:
    pred = write_submission(tmp_path / "pred", *columns(truth))
    pq.write_table(pa.table({"game_id": ["x"], "ply": [1]}), pred / "part-9.parquet")
    result = score(bench, pred)
    assert result.exit_code == 2 and "part-9.parquet is not a predictions file" in result.output
    shutil.rmtree(pred)
    pred = write_submission(tmp_path / "pred", *columns(truth))
    table = pq.read_table(pred / "part-0.parquet")
    as_text = table.set_column(2, "log_probs", pa.array(["x"] * table.num_rows))
    pq.write_table(as_text, pred / "part-0.parquet")
    result = score(bench, pred)
    assert result.exit_code == 2 and "not a list of float32" in result.output, result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "card.json").write_text(json.dumps(CARD))
    result = score(bench, empty)
    assert result.exit_code == 2 and "holds no Parquet file" in result.output


def test_a_fifo_in_the_submission_is_refused_without_blocking(
    bench: Path, truth: pa.Table, tmp_path: Path
) -> None:
    """A card that is a FIFO, or a FIFO named like a Parquet file, is refused by name with
    exit 2 at once: never opened blocking (the reader thread hung on it, and the scorer
    with it, past SIGTERM), never left out of the submission."""
    pred = write_submission(tmp_path / "pred", *columns(truth))
    (pred / "card.json").unlink()
    os.mkfifo(pred / "card.json")
    result = score(bench, pred)
    assert result.exit_code == 2, result.output
    assert "cannot read the card" in result.output and "regular file" in result.output
    (pred / "card.json").unlink()
    (pred / "card.json").write_text(json.dumps(CARD))
    os.mkfifo(pred / "part-1.parquet")
    result = score(bench, pred)
    assert result.exit_code == 2 and "part-1.parquet is not a regular file" in result.output
    with pytest.raises(SubmissionError, match=r"part-1\.parquet is not a regular file"):
        submission_sha256(pred)


def test_a_split_is_verified_once_for_scoring(bench: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a split hashes each of its files once (it hashed every shard twice: once to
    check the games against the manifest, once more to read the rows) and hands back the
    games table it checked."""
    hashed: list[str] = []

    def counted(directory: Path, marker: Any, name: str, *rest: Any) -> Any:
        hashed.append(name)
        return verify_file(directory, marker, name, *rest)

    folder = open_bench(bench)
    monkeypatch.setattr(verified, "verify_file", counted)
    export = split_export(folder, "test")
    assert sorted(hashed) == sorted([*export.shards, export.games])
    hashed.clear()
    export, games = open_split(folder, "test")
    assert sorted(hashed) == sorted([*export.shards, export.games])
    assert set(folder.manifest.game_ids("test")) <= set(games.column("game_id").to_pylist())


def test_a_submission_file_that_grows_while_read_is_refused(
    truth: pa.Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file is read into one array of the size it had when opened: bytes past that size
    (a writer still appending) refuse it, rather than score bytes that were not hashed."""
    from strat_tools.benchmark import submission_files as submission

    pred = write_submission(tmp_path / "pred", *columns(truth))
    assert submission.read_submission(pred).table.num_rows == truth.num_rows
    real = os.fstat

    class Shrunk:  # the size the file had when opened: a byte less than it holds now
        def __init__(self, stat: os.stat_result) -> None:
            self.stat, self.st_size = stat, stat.st_size - 1

        def __getattr__(self, name: str) -> Any:
            return getattr(self.stat, name)

    monkeypatch.setattr(submission.os, "fstat", lambda fd: Shrunk(real(fd)))
    with pytest.raises(submission.SubmissionError, match=r"part-0\.parquet was written while"):
        submission.read_submission(pred)


@pytest.mark.parametrize("uppers", [PLY_BANDS, LEGAL_BANDS, BATTLE_BANDS])
def test_the_bands_are_searchsorteds_at_every_edge(uppers: tuple[int, ...]) -> None:
    # each upper end, one below and one above, and values far past a byte (counted in
    # int8 before widening): the band is the count of upper ends below the value
    edges = [v + d for v in uppers for d in (-1, 0, 1)]
    values = np.array([0, 1, *edges, 127, 128, 255, 256, 70_000], np.int32)
    got = band_indices(values, uppers)
    assert got.dtype == np.int64
    assert got.tolist() == np.searchsorted(np.array(uppers), values, side="left").tolist()
