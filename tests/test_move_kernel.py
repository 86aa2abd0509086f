"""The compiled move generator (engine/move_kernel.py) gives exactly the NumPy stages' ids:
on crowded random boards (scouts against edges, lakes and each other, sides that do not
alternate, two-squares bans), on every ply of a real month, and its Python source (the
same loop run uncompiled) agrees with what numba compiled. Rule sets it does not cover
(lightning captains that stop short or turn) and small batches stay with NumPy, and so does
every call that does not ask for it (``compiled=True``), whatever ran before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from move_oracle import random_boards, reference_ids, rows_of

from strat_tools.core.rules import get_rules
from strat_tools.engine import move_kernel
from strat_tools.engine.move_scan import move_classes
from strat_tools.engine.movegen import games_legal_ids, legal_ids

needs_numba = pytest.mark.skipif(
    not move_kernel.available(), reason="numba is not installed (the 'fast' extra)"
)
COVERED = ["classic", "gravon-2013", "classic+nolimit", "classic+limit5"]


def boards_and_sides(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    boards = np.array(random_boards(count, seed), np.uint8)
    sides = np.random.default_rng(seed).integers(1, 3, count).astype(np.uint8)
    return boards, sides


@needs_numba
def test_the_compiled_loop_is_its_python_source() -> None:
    boards, sides = boards_and_sides(60, seed=3)
    bits = move_classes(get_rules("classic")).bits
    compiled = move_kernel.kernel_ids(boards, sides, bits)
    python = move_kernel.kernel_ids(boards, sides, bits, compiled=False)
    assert compiled[0].tolist() == python[0].tolist()
    assert compiled[1].tolist() == python[1].tolist()
    assert rows_of(*python)[:20] == [
        reference_ids(b.tolist(), int(s), "classic")
        for b, s in zip(boards[:20], sides[:20], strict=True)
    ]


@needs_numba
@pytest.mark.parametrize("rules", COVERED)
def test_big_batches_give_the_numpy_stages_ids(rules: str) -> None:
    """400 crowded rows with bans on some of them (one-square and ray moves alike, and ids
    that are no move): the compiled path and the NumPy stages give the same arrays."""
    boards, sides = boards_and_sides(400, seed=len(rules))
    kernel = legal_ids(boards, sides, get_rules(rules), compiled=True)
    rng = np.random.default_rng(11)
    bans = []
    for row in rng.choice(400, 60, replace=False).tolist():
        start, stop = kernel[0][row], kernel[0][row + 1]
        for action in rng.choice(kernel[1][start:stop], min(2, stop - start), replace=False):
            source, target = divmod(int(action), 100)
            if sides[row] == 2:
                source, target = 99 - source, 99 - target
            bans.append((row, source * 100 + target))
        bans.append((row, 4445))  # E5-F5: mostly no move at all
    with_bans = legal_ids(boards, sides, get_rules(rules), bans, compiled=True)
    assert len(with_bans[1]) < len(kernel[1]) - 60
    for found, bans_given in ((kernel, []), (with_bans, bans)):
        want = legal_ids(boards, sides, get_rules(rules), bans_given)
        assert found[0].tolist() == want[0].tolist()
        assert found[1].tolist() == want[1].tolist()


def test_the_compiled_loop_runs_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """No hidden switch: however many rows a process has generated, a call takes NumPy's
    stages unless it asks for the compiled loop (``compiled=True``), and then every big
    batch goes compiled from the first (where numba is installed)."""
    calls: list[int] = []
    real = move_kernel.kernel_ids

    def counted(boards: np.ndarray, *args: object, **kwargs: object) -> object:
        calls.append(len(boards))
        return real(boards, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(move_kernel, "kernel_ids", counted)
    boards, sides = boards_and_sides(400, seed=9)
    first = legal_ids(boards, sides, get_rules("classic"))
    for _ in range(3):
        many = legal_ids(np.tile(boards, (10, 1)), np.tile(sides, 10), get_rules("classic"))
    assert calls == []  # 12,400 rows, never asked: never compiled
    third = legal_ids(boards, sides, get_rules("classic"), compiled=True)
    assert calls == ([400] if move_kernel.available() else [])
    second = (many[0][:401], many[1][: many[0][400]])
    for other in (second, third):
        assert other[0].tolist() == first[0].tolist() and other[1].tolist() == first[1].tolist()


def test_lightning_and_small_batches_stay_with_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the compiled loop was called")

    monkeypatch.setattr(move_kernel, "kernel_ids", refuse)
    boards, sides = boards_and_sides(200, seed=5)
    offsets, ids = legal_ids(boards, sides, get_rules("ultimate-lightning"), compiled=True)
    assert rows_of(offsets, ids)[:10] == [
        reference_ids(b.tolist(), int(s), "ultimate-lightning")
        for b, s in zip(boards[:10], sides[:10], strict=True)
    ]
    few = legal_ids(boards[:3], sides[:3], get_rules("classic"), compiled=True)
    assert rows_of(*few) == [
        reference_ids(b.tolist(), int(s), "classic")
        for b, s in zip(boards[:3], sides[:3], strict=True)
    ]


@needs_numba
@pytest.mark.archive
def test_every_ply_of_a_month_as_the_export_batches_it(gravon_dir: Path) -> None:
    """strados2014-5: every valid game's plies with their two-squares bans, 100 games of a
    rule set a call: the compiled path and the NumPy stages agree on every ply."""
    from strat_tools.core.records import Status
    from strat_tools.engine.game_bans import two_squares_bans
    from strat_tools.engine.replay import replay
    from strat_tools.formats.readers import read_records

    by_rules: dict[str, list[tuple[np.ndarray, list[tuple[int, int]]]]] = {}
    for record in read_records([gravon_dir / "strados2014-5.zip"]):
        result = replay(record)
        n = result.plies_replayed
        if result.status is not Status.VALID or record.setup is None or not n:
            continue
        boards = result.knowledge().boards[:n]
        by_rules.setdefault(result.rules.name, []).append(
            (boards, two_squares_bans(result, n, boards))
        )
    batches = [
        (name, games[start : start + 100])
        for name, games in by_rules.items()
        for start in range(0, len(games), 100)
    ]
    kernel = [games_legal_ids(games, get_rules(name), compiled=True) for name, games in batches]
    plies = 0
    for (name, games), found in zip(batches, kernel, strict=True):
        for (offsets, ids), want in zip(
            found, games_legal_ids(games, get_rules(name)), strict=True
        ):
            assert offsets.tolist() == want[0].tolist() and ids.tolist() == want[1].tolist()
            plies += len(offsets) - 1
    assert plies > 250_000


def test_an_export_decides_its_path_once_from_its_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """``iter_observations(compiled=None)`` asks for the compiled loop by the input's size,
    once, before the run (the work carries the choice to every worker); the rows are the
    same either way."""
    from strat_tools.engine import movegen
    from strat_tools.exports import observations

    chosen: list[bool] = []
    real = observations.map_records

    def spy(work: observations.ObservationsWork, *args: object, **kwargs: object) -> object:
        chosen.append(work.compiled)
        return real(work, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(observations, "map_records", spy)
    game = [str(Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml")]
    small = list(observations.iter_observations(game, jobs=1))
    monkeypatch.setattr(movegen, "COMPILED_FROM_GAMES", 1)
    large = list(observations.iter_observations(game, jobs=1))
    forced = list(observations.iter_observations(game, jobs=1, compiled=False))
    assert chosen == [False, move_kernel.available(), False]
    rows = [b["observations"].column("legal_actions") for b in (*small, *large, *forced)]
    assert rows[0].to_pylist() == rows[1].to_pylist() == rows[2].to_pylist()
    assert len(rows[0]) > 0
