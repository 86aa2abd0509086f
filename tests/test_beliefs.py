"""Beliefs (``Position.beliefs``, ``engine/information/beliefs.py``): what the side to move believes
about the opponent's unidentified pieces depends on nothing it cannot know (two of blue's
pieces red never identifies, swapped in a real game: red's beliefs identical at every ply,
while the truth differs), and never breaks a rule of a belief (no mass on a kind with no
unidentified piece left, no bomb or flag for a piece that moved) over real games.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from strat_tools.benchmark.belief_baselines import SetupPriorBelief, load_belief_prior
from strat_tools.benchmark.belief_model import LearnedBelief, load_belief_model
from strat_tools.core.pieces import CODE_SIDE
from strat_tools.core.records import GameRecord, Status, Termination
from strat_tools.engine.information.beliefs import (
    BELIEF_FIELDS,
    BELIEF_KINDS,
    NO_MASS,
    allowed_kinds,
    counts_left,
    model_beliefs,
    unidentified,
)
from strat_tools.engine.information.history import RowHistory
from strat_tools.engine.information.planes import hidden_truth
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.exports.observation_arrays import batch_arrays
from strat_tools.exports.observations import observe
from strat_tools.formats.readers import read_records

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"


def quiet_blue_pair(record: GameRecord, seen: bool = False) -> tuple[int, int] | None:
    """Two of blue's squares whose pieces (of different kinds) never move and are never
    attacked: red never identifies them, and swapping them changes no move. ``seen``: two
    that never move but are attacked (red identifies them in the battles)."""
    assert record.setup is not None
    touched = set(record.sources) | set(record.targets)
    blue = [sq for sq in range(60, 100) if CODE_SIDE[record.setup[sq]] == 2]
    if seen:
        hit = set(record.targets) - set(record.sources)
        pool = [sq for sq in blue if sq in hit and sq not in record.sources]
    else:
        pool = [sq for sq in blue if sq not in touched]
    for a in pool:
        for b in pool:
            if record.setup[a] != record.setup[b]:
                return a, b
    return None


def swapped_twin(records: list[GameRecord], seen: bool = False) -> tuple[GameRecord, GameRecord]:
    """The first resigned classic game with such a pair, and its twin with the two swapped
    (``seen``: a pair red identifies, in a twin that still replays as a valid game)."""
    for record in records:
        if record.variant != "classic" or record.result is None:
            continue
        if record.result.termination is not Termination.RESIGNED:
            continue
        pair = quiet_blue_pair(record, seen)
        if pair is None or len(record.moves) < 20:
            continue
        a, b = pair
        setup = list(record.setup or ())
        setup[a], setup[b] = setup[b], setup[a]
        twin = dataclasses.replace(record, setup=tuple(setup))
        if seen and replay(twin).status is not Status.VALID:
            continue
        return record, twin
    raise AssertionError("no game has two quiet blue pieces")


class SquareLeaning:
    """A stand-in learned model: leans on the square (row) of each piece, to show a model's
    beliefs are as blind to the hidden truth as the counts'."""

    name = "square-leaning"
    fields = ("board_view", "unseen")

    def log_probs(self, batch: dict[str, np.ndarray]) -> np.ndarray:
        rows = np.arange(100)[None, :, None] // 10
        return np.broadcast_to(rows * np.arange(12) / 50.0, (len(batch["board_view"]), 100, 12))


def red_beliefs_every_ply(record: GameRecord, model: object = None) -> tuple[list, list]:
    """Red's beliefs before each of red's plies, and red's boards with the truth."""
    rules = replay(record).rules
    position = Position(record.setup or (), rules)
    beliefs, truths = [], []
    for move in record.moves:
        if int(position.side) == 1:
            beliefs.append(position.beliefs(model))  # type: ignore[arg-type]
            truths.append(position.observation_with_truth().tobytes())
        position.push(move)
    return beliefs, truths


@pytest.mark.archive
def test_reds_beliefs_are_the_same_whatever_blues_unidentified_pieces_are(
    gravon_dir: Path,
) -> None:
    records = [r for r in read_records(gravon_dir / "strados2014-9.zip") if r.variant == "classic"]
    record, twin = swapped_twin(records)
    assert replay(record).status is replay(twin).status is Status.VALID
    learned = LearnedBelief(load_belief_model())  # reads how each piece has moved
    for model in (None, SetupPriorBelief(load_belief_prior()), learned):
        first, first_truth = red_beliefs_every_ply(record, model)
        second, second_truth = red_beliefs_every_ply(twin, model)
        assert len(first) == len(second) > 10
        assert first == second  # every ply, every square, every kind: identical
        assert first_truth != second_truth  # and the truth did differ: the test can fail
        assert all(len(b) >= 2 for b in first)
    # the control: two of blue's pieces red does identify (each in a battle), swapped in a
    # game that still replays: red's beliefs change, so the comparison above can fail
    control, control_twin = swapped_twin(records, seen=True)
    assert (
        red_beliefs_every_ply(control, learned)[0]
        != red_beliefs_every_ply(control_twin, learned)[0]
    )


def test_a_belief_names_every_kind_and_sums_to_one() -> None:
    record = next(r for r in read_records(SAMPLE) if r.variant == "classic")
    position = Position(record.setup or (), replay(record).rules)
    for move in record.moves[:7]:
        position.push(move)
    beliefs = position.beliefs()
    assert len(beliefs) == int(unidentified(position.observe()[None])[0].sum()) > 30
    for square, belief in beliefs.items():
        assert CODE_SIDE[position.board[square]] != int(position.side)
        assert tuple(belief) == BELIEF_KINDS
        assert math.isclose(sum(belief.values()), 1.0)
    assert BELIEF_KINDS[0] == "bomb" and BELIEF_KINDS[-1] == "flag" and len(BELIEF_KINDS) == 12


def check_rows(board: np.ndarray, batch: dict[str, np.ndarray]) -> None:
    """Every rule of a belief on these rows, and the truth always possible: the counts
    left, the shipped setup prior, the shipped learned model and a model that ignores the
    rules."""
    shipped = (SetupPriorBelief(load_belief_prior()), LearnedBelief(load_belief_model()))
    for model in (None, *shipped, SquareLeaning()):
        check_model(model, board, batch)


def check_model(model: object, board: np.ndarray, batch: dict[str, np.ndarray]) -> None:
    view, unseen = batch["board_view"], batch["unseen"]
    probs = model_beliefs(model, batch)  # type: ignore[arg-type]
    if model is None:
        assert np.array_equal(probs, counts_left(view, unseen))
    allowed = allowed_kinds(view, unseen)
    hidden, moved = unidentified(view)
    assert (probs[~allowed] <= NO_MASS).all()
    assert np.allclose(probs.sum(axis=2)[hidden], 1.0)
    assert (probs[moved][:, [0, 11]] == 0).all()  # bomb and flag
    assert (probs.sum(axis=2)[~hidden] == 0).all()
    mask, kinds = hidden_truth(board)
    assert np.array_equal(mask, hidden)
    truth = probs[mask, kinds[mask]]
    assert (truth > 0).all()  # the true kind is never ruled out


def rows_of(records: list[GameRecord]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The boards with the truth and the belief fields (the pieces' histories through the
    benchmark's row walker) of the valid classic games among ``records``."""
    boards, batches = [], []
    for record in records:
        result = replay(record)
        if result.status is not Status.VALID or record.variant != "classic":
            continue
        table = observe(result, "g")
        arrays = batch_arrays(table, ["board_view", "unseen", "side", "ply", "last_moves"])
        history = RowHistory().rows(
            arrays["board_view"], arrays["side"] + 1, arrays["ply"], arrays["last_moves"][:, -1]
        )
        boards.append(np.stack([np.frombuffer(b, np.uint8) for b in table["board"].to_pylist()]))
        batches.append({"board_view": arrays["board_view"], "unseen": arrays["unseen"], **history})
    batch = {f: np.concatenate([b[f] for b in batches]) for f in BELIEF_FIELDS}
    return np.concatenate(boards), batch


def test_no_belief_breaks_a_rule_in_the_sample() -> None:
    records = [r for r in read_records(SAMPLE) if r.variant == "classic"][:20]
    check_rows(*rows_of(records))


@pytest.mark.archive
def test_no_belief_breaks_a_rule_in_real_games(gravon_dir: Path) -> None:
    month = read_records(gravon_dir / "strados2014-10.zip")
    records = [r for r in month if r.variant == "classic"][:25]
    board, batch = rows_of(records)
    assert len(board) > 5_000
    check_rows(board, batch)


def test_a_game_loop_s_beliefs_are_the_whole_stack_s_after_pushes_pops_and_copies() -> None:
    """``Position.beliefs`` with a model that reads the pieces' histories keeps them up to
    date move by move (a constant cost a ply): at every ply of a sample game, and after a
    pop and a copy, the beliefs equal those made from the whole move stack at once."""
    from strat_tools.engine.information.beliefs import known_beliefs
    from strat_tools.engine.replays.stepping import board_at

    model = LearnedBelief(load_belief_model())
    record = next(r for r in read_records(SAMPLE) if r.variant == "classic" and len(r.sources) > 40)
    start = board_at(record, 0)
    pos = start.copy()

    def whole(p: Position) -> dict[int, dict[str, float]]:
        moves = [(m.source, m.target) for m in p.move_stack]
        return known_beliefs(p.knowledge(), p.side, model, moves)

    def same(a: dict[int, dict[str, float]], b: dict[int, dict[str, float]]) -> bool:
        return a.keys() == b.keys() and all(
            math.isclose(a[s][k], b[s][k], abs_tol=1e-6) for s in a for k in a[s]
        )

    for ply in range(40):
        assert same(pos.beliefs(model), whole(pos)), ply
        pos.push(record.sources[ply], record.targets[ply])
    pos.pop()
    assert same(pos.beliefs(model), whole(pos))
    other = pos.copy()
    other.push(record.sources[39], record.targets[39])
    assert same(other.beliefs(model), whole(other)) and same(pos.beliefs(model), whole(pos))
