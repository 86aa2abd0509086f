"""``pos.move_probabilities(policy)`` (engine/information/move_policy.py, cursor.py,
mover_rows.py; issue 47, point 2): a distribution over exactly ``pos.legal_moves`` that
equals ``bench predict``'s row for the same ply, made from the position's truth-free row (the
export's own code, every ply of sample games), kept up to date one push at a time, and blind
to what red cannot know (two of blue's unidentified pieces swapped: nothing changes; two
identified ones swapped: it does)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from bench_sample import SAMPLE, make_bench, patch_definition

from conftest import shared_once
from strat_tools.benchmark.baselines import UniformPolicy
from strat_tools.benchmark.policies import DEFAULTS, load
from strat_tools.benchmark.policy import POLICY_FIELDS
from strat_tools.benchmark.predict import predict
from strat_tools.core.board import Side
from strat_tools.core.errors import UsageError
from strat_tools.core.records import GameRecord
from strat_tools.engine.information.cursor import KnowledgeCursor, advanced, position_rows
from strat_tools.engine.information.knowledge import KNOWN, MOVED, KnowledgeState
from strat_tools.engine.information.move_policy import MovePolicy
from strat_tools.engine.information.mover_rows import ROW_FIELDS, row_batch
from strat_tools.engine.information.planes import board_views, encode_boards
from strat_tools.engine.moves.games import game_legal_ids
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import positions
from strat_tools.exports.observation_rows import game_columns
from strat_tools.formats.readers import read_records

HUMAN = load("human-v1")
assert isinstance(HUMAN, MovePolicy)


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_once(tmp_path_factory, "bench-sample", make_bench)


@pytest.fixture
def bench(sample: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    patch_definition(monkeypatch, sample / "gravon")
    return sample / "bench"


def sample_games(every: int = 1) -> list[GameRecord]:
    """Every ``every``-th valid game of the sample month (all variants)."""
    records = list(read_records([SAMPLE]))
    return [r for r in records[::every] if r.setup is not None and r.plies]


def game_loop(record: GameRecord) -> Iterator[tuple[int, Position]]:
    """The positions before each replayed ply of ``record``, one Position pushed move by
    move (a game loop), with the index of the ply about to be played."""
    result = replay(record)
    pos = Position(record.setup or (), result.rules)
    for index in range(result.plies_replayed):
        yield index, pos
        rescue = None
        if index + 1 in result.rescued:
            square = record.rescues[index + 1].square
            assert square is not None
            rescue = (square, result.rescued[index + 1])
        pos.push(record.sources[index], record.targets[index], rescue)


def test_the_row_fields_are_the_policy_fields() -> None:
    assert set(ROW_FIELDS) == {*POLICY_FIELDS, "legal_ids", "legal_count"}


def test_a_game_loops_rows_are_the_exports_rows_every_ply() -> None:
    """The game loop's row (its knowledge brought forward one push at a time) equals the
    export's row of the same ply, column by column, and the batch row of
    ``replay(record).observations()`` (the whole game in one pass), on every ply of sample
    games of every variant; and ``observe()`` is the export's ``board_view``."""
    plies = 0
    for record in sample_games(every=9):
        result = replay(record)
        know = result.knowledge()
        export = game_columns(result, know, game_legal_ids(result, know.boards[:-1]))
        whole = row_batch(result.observations())  # the whole game at once
        cursor: KnowledgeCursor | None = None
        for index, pos in game_loop(record):
            cursor = advanced(cursor, pos)
            row = position_rows(pos, cursor)
            one = row_batch(row)
            for name, array in one.items():
                width = array.shape[1] if array.ndim > 1 else 0
                same = whole[name][index, :width] if width else whole[name][index]
                assert (array[0] == same).all(), (record.game_id, index, name)
            at = slice(index, index + 1)
            assert (row.boards == export.boards[at]).all(), (record.game_id, index)
            assert (pos.observe() == board_views(export.boards[index])).all()
            for name in ("captured", "unseen", "own_repetition", "opponent_repetition"):
                assert (getattr(row, name) == getattr(export, name)[at]).all(), name
            assert row.plies_since_battle[0] == export.plies_since_battle[index]
            offsets, ids = export.last_moves
            assert row.last_moves[1].tolist() == ids[offsets[index] : offsets[index + 1]].tolist()
            offsets, ids = export.legal
            assert row.legal[1].tolist() == ids[offsets[index] : offsets[index + 1]].tolist()
            plies += 1
    assert plies > 2_000


def test_move_probabilities_are_bench_predicts_rows(bench: Path, tmp_path: Path) -> None:
    """The shipped model's distribution at each of the first 60 plies of a game equals the row
    ``bench predict --policy human-v1`` wrote for that ply (float32), over the same ids
    (val: the sample's smallest split)."""
    predict(bench, "val", HUMAN, tmp_path / "pred")
    rows = pq.read_table(tmp_path / "pred" / "part-00000.parquet").to_pylist()
    written = {(r["game_id"], r["ply"]): r["log_probs"] for r in rows}
    observed = pq.read_table(bench / "val" / "observations", columns=["game_id", "ply"])
    legal = pq.read_table(bench / "val" / "observations", columns=["legal_actions"])
    ids = {
        (g, p): a
        for g, p, a in zip(
            observed.column("game_id").to_pylist(),
            observed.column("ply").to_pylist(),
            legal.column("legal_actions").to_pylist(),
            strict=True,
        )
    }
    games = sorted({game for game, _ in written})[:1]
    test_zip = bench.parent / "gravon" / "strados2030-1.zip"
    records = {r.game_id: r for r in read_records([test_zip])}
    checked = 0
    for game in games:
        for index, pos in game_loop(records[game]):
            if index == 60:
                break
            dist = pos.move_probabilities(HUMAN)
            key = (game, index + 1)
            assert dist.ids.tolist() == ids[key]
            np.testing.assert_allclose(dist.log_probs, written[key], atol=2e-6, rtol=1e-6)
            checked += 1
    assert checked == 60


def test_the_default_is_the_shipped_model_and_the_distribution_reads_like_python() -> None:
    (record, *_) = sample_games(every=50)
    pos = Position(record.setup or (), replay(record).rules)
    dist = pos.move_probabilities()
    assert dist.policy == DEFAULTS["move"]
    shipped = load(DEFAULTS["move"])
    assert isinstance(shipped, MovePolicy)
    assert dist.log_probs.tolist() == pos.move_probabilities(shipped).log_probs.tolist()
    assert sorted(map(str, dist)) == sorted(map(str, pos.legal_moves)) and len(dist) == len(
        pos.legal_moves
    )
    assert abs(dist.probs.sum() - 1.0) < 1e-12 and (np.diff(dist.ids) > 0).all()
    (best, p), *rest = dist.top(3)
    assert p == max(dist.probs) and [q for _, q in rest] == sorted(
        (q for _, q in rest), reverse=True
    )
    assert dist[best] == p and dist[str(best)] == p
    assert dist.log_prob(best) == pytest.approx(np.log(p))
    assert 0.0 < dist.entropy() <= np.log(len(dist))
    assert dist.sample(7) == dist.sample(np.random.default_rng(7)) and dist.sample(7) in dist
    shown = f"<MoveProbabilities {DEFAULTS['move']}, red to move, {len(dist)} legal"
    assert repr(dist).startswith(shown)
    with pytest.raises(KeyError, match="not a legal move"):
        dist["A1-A2"]
    assert "A1-A2" not in dist
    uniform = pos.move_probabilities(UniformPolicy())
    assert np.allclose(uniform.probs, 1 / len(uniform)) and uniform.entropy() == pytest.approx(
        np.log(len(uniform))
    )


def test_what_is_not_a_policy_or_asks_for_a_label_is_refused() -> None:
    (record, *_) = sample_games(every=50)
    pos = Position(record.setup or (), replay(record).rules)

    class Peeking:
        name, fields = "peeking", ("board",)

        def log_probs(self, batch: Any) -> Any:
            raise AssertionError("never called")

        def card(self) -> dict[str, Any]:
            return {}

    with pytest.raises(UsageError, match="'board'"):
        pos.move_probabilities(Peeking())
    with pytest.raises(UsageError, match="not a move policy"):
        pos.move_probabilities("human-v1")  # type: ignore[arg-type]
    bare = Position.from_strados3(pos.strados3()[:-1] + "7", pos.rules)  # ply 7, no moves
    with pytest.raises(UsageError, match="move stack holds 0 moves"):
        bare.move_probabilities(HUMAN)


def test_the_cursor_follows_pops_and_copies() -> None:
    """After a pop, a copy or a pop and another move, what the position observes is what a
    position pushed afresh observes (``pos.knowledge()``'s last row)."""
    record = next(r for r in sample_games(every=40) if r.plies > 80)
    result = replay(record)
    pos = result.position(60)
    pos.observe()
    pos.pop(), pos.pop()
    assert (pos.observe() == result.position(58).observe()).all()
    other = pos.copy()
    move = next(iter(pos.legal_moves))
    other.push(move)
    fresh = result.position(58)
    fresh.push(move)
    assert (other.observe() == fresh.observe()).all()
    assert (pos.observe() == result.position(58).observe()).all()
    truth = fresh.knowledge()
    assert (other.observation_with_truth() == fresh.observation_with_truth()).all()
    assert truth.plies == 59


def _blue_pieces(pos: Position, *, known: bool) -> list[int]:
    """Squares of blue pieces red has (``known``) or has not identified, of distinct kinds,
    that never moved."""
    cursor = advanced(None, pos)
    flags = cursor.state.flags
    found: dict[int, int] = {}
    for square, code in enumerate(pos.board):
        unmoved = not flags[square] & MOVED
        if 13 <= code <= 24 and bool(flags[square] & KNOWN) == known and (known or unmoved):
            found.setdefault(code, square)
    return list(found.values())


def test_red_sees_the_same_when_blues_unidentified_pieces_are_swapped() -> None:
    """Two of blue's never-identified, never-moved pieces of different kinds swapped in the
    setup (the truth): red's move probabilities at that ply are the same; the control, two
    pieces red has identified swapped on the board, changes them."""
    record = next(r for r in sample_games(every=7) if r.variant == "classic" and r.plies > 80)
    result = replay(record)
    ply = 80  # red to move
    pos = result.position(ply)
    hidden = _blue_pieces(pos, known=False)
    assert len(hidden) >= 2
    a, b = hidden[:2]
    assert pos.board[a] != pos.board[b]
    setup = list(record.setup or ())
    setup[a], setup[b] = setup[b], setup[a]  # unmoved: their setup squares
    swapped = Position(setup, result.rules)
    for move in pos.move_stack:
        swapped.push(move)
    assert swapped.board[a] == pos.board[b] and pos.side == swapped.side == Side.RED
    mine, theirs = pos.move_probabilities(HUMAN), swapped.move_probabilities(HUMAN)
    assert mine.ids.tolist() == theirs.ids.tolist()
    assert mine.log_probs.tolist() == theirs.log_probs.tolist()

    known = _blue_pieces(pos, known=True)
    assert len(known) >= 2, "the control needs two identified blue pieces of distinct kinds"
    c, d = known[:2]
    control = pos.copy()
    control.move_probabilities(HUMAN)  # its knowledge up to date, then the truth changed
    control.board[c], control.board[d] = control.board[d], control.board[c]
    assert control.seen is not None
    state = control.seen.state
    state.board[c], state.board[d] = state.board[d], state.board[c]
    changed = control.move_probabilities(HUMAN)
    assert changed.ids.tolist() == mine.ids.tolist()
    assert np.abs(changed.log_probs - mine.log_probs).max() > 1e-4


def test_a_game_loop_plays_each_ply_into_the_knowledge_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Linear, counted rather than timed: a game loop that pushes and observes at every ply
    plays each ply into the knowledge model once (the whole stack's knowledge at every ply,
    the old way, played the square of the game's length over)."""
    record = next(r for r in sample_games(every=5) if r.plies > 300)
    played = 0
    real = KnowledgeState.play_plies

    def counted(self: KnowledgeState, plies: Any, rows: Any = None) -> None:
        nonlocal played
        plies = list(plies)
        played += len(plies)
        real(self, plies, rows)

    monkeypatch.setattr(KnowledgeState, "play_plies", counted)
    n = 0
    for n, pos in game_loop(record):
        pos.observe()
        if n % 50 == 0:
            pos.move_probabilities(UniformPolicy())
    assert n > 300 and played == n


def test_observing_every_position_of_a_game_plays_each_ply_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``st.positions(record)`` yields copies that share one knowledge cursor: observing
    each costs the game's length (counted), and what each observes is its own ply's."""
    record = next(r for r in sample_games(every=5) if r.plies > 300)
    result = replay(record)
    know = result.knowledge()
    views = board_views(
        encode_boards(know.boards, know.flags, (np.arange(len(know.boards)) % 2) + 1)
    )
    played = 0
    real = KnowledgeState.play_plies

    def counted(self: KnowledgeState, plies: Any, rows: Any = None) -> None:
        nonlocal played
        plies = list(plies)
        played += len(plies)
        real(self, plies, rows)

    monkeypatch.setattr(KnowledgeState, "play_plies", counted)
    kept = []
    for ply, pos in enumerate(positions(record)):
        assert (pos.observe() == views[ply]).all(), ply
        if ply in (10, 200):
            kept.append((ply, pos))
    assert played == result.plies_replayed
    for ply, pos in kept:  # observed again after the walk went on: still its own ply's
        assert (pos.observe() == views[ply]).all()
