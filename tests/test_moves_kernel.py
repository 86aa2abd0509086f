"""The compiled move generator (engine/moves/kernel.py) gives exactly the NumPy stages' ids:
on crowded random boards (scouts against edges, lakes and each other, sides that do not
alternate, two-squares bans), on every ply of a real month, and its Python source (the
same loop run uncompiled) agrees with what numba compiled. Rule sets it does not cover
(lightning captains that stop short or turn) and small batches stay with NumPy, and so does
every call that does not ask for it (``compiled=True``), whatever ran before."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from move_oracle import random_boards, reference_ids, rows_of

from strat_tools.core.rules import get_rules
from strat_tools.engine.moves import games_legal_ids, legal_ids
from strat_tools.engine.moves import kernel as move_kernel
from strat_tools.engine.moves.scan import move_classes

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

    monkeypatch.setattr(move_kernel, "compiled_ids", refuse)
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
    from strat_tools.engine.moves.games import two_squares_bans
    from strat_tools.engine.replays.replay import replay
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


# --- a numba that fails falls back (issue 39 point 4) ---------------------------------------


@pytest.mark.parametrize(
    "failure",
    [
        ImportError("Numba needs NumPy 2.3 or less. Got NumPy 2.4."),
        EOFError("Ran out of input"),  # a cache index emptied
        pickle.UnpicklingError("pickle data was truncated"),  # a cache index cut short
        RuntimeError("a compile that fails"),
    ],
    ids=["import", "empty-cache-index", "cut-cache-index", "compile"],
)
def test_a_failing_numba_falls_back_to_numpy_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, failure: Exception
) -> None:
    """Any failure of the compiled loop is caught where the library calls it: the NumPy
    stages answer the same ids, one warning says why, and numba is not tried again."""
    boards, sides = boards_and_sides(300, seed=11)
    rules = get_rules("classic")
    want = legal_ids(boards, sides, rules)  # the NumPy stages (compiled=False)
    tries: list[int] = []

    def broken(*args: object, **kwargs: object) -> None:
        tries.append(1)
        raise failure

    monkeypatch.setattr(move_kernel, "kernel_ids", broken)
    monkeypatch.setattr(move_kernel, "available", lambda: not move_kernel._FAILED)
    monkeypatch.setattr(move_kernel, "_FAILED", [])
    with pytest.warns(
        RuntimeWarning, match=f"compiled move generator failed.*{type(failure).__name__}"
    ):
        got = legal_ids(boards, sides, rules, compiled=True)
    again = legal_ids(boards, sides, rules, compiled=True)
    assert tries == [1]
    for offsets, ids in (got, again):
        assert offsets.tolist() == want[0].tolist() and ids.tolist() == want[1].tolist()


SAMPLE = Path(__file__).parent.parent / "data" / "strados2026-10.zip"


def observations_run(tmp_path: Path, name: str, site: Path, env: dict[str, str]) -> Path:
    """``observations`` of :data:`SAMPLE`'s first 30 games in a fresh process whose
    ``sitecustomize`` is ``site``'s: the output folder."""
    games = tmp_path / "games.zip"
    if not games.exists():
        with zipfile.ZipFile(SAMPLE) as whole, zipfile.ZipFile(games, "w") as part:
            for member in sorted(whole.namelist())[:30]:
                part.writestr(member, whole.read(member))
    out = tmp_path / name
    path = os.pathsep.join([str(site), *sys.path])
    command = ["observations", str(games), "-o", str(out), "--jobs", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "strat_tools", *command],
        env={**os.environ, "PYTHONPATH": path, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "30 valid" in done.stderr, done.stderr[-2000:]
    (out / "stderr.txt").write_text(done.stderr)
    return out


def site(tmp_path: Path, name: str, code: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(code)
    return folder


COMPILED_AT_ONCE = "import strat_tools.engine.moves as m\nm.COMPILED_FROM_GAMES = 0\n"
NO_NUMBA = "import sys\nsys.modules['numba'] = None  # find_spec says: not installed\n"


def same_output(one: Path, other: Path) -> None:
    for part in ("games/part-00000.parquet", "observations/part-00000.parquet"):
        assert (one / part).read_bytes() == (other / part).read_bytes(), part


@pytest.mark.slow
def test_observations_with_numba_unimportable_are_byte_for_byte_numpys(tmp_path: Path) -> None:
    """numba installed but refusing to import (a NumPy too new for it: a package named
    numba first on the path that raises ImportError, as numba's own check does): every game
    stays valid and the shards are byte for byte those of a run without numba."""
    plain = observations_run(tmp_path, "plain", site(tmp_path, "plain", NO_NUMBA), {})
    poisoned = site(tmp_path, "poisoned", COMPILED_AT_ONCE)
    (poisoned / "numba").mkdir()
    (poisoned / "numba" / "__init__.py").write_text(
        'raise ImportError("Numba needs NumPy 2.3 or less. Got NumPy 2.4.")\n'
    )
    broken = observations_run(tmp_path, "broken", poisoned, {})
    assert "compiled move generator failed (ImportError" in (broken / "stderr.txt").read_text()
    same_output(plain, broken)


@needs_numba
@pytest.mark.slow
@pytest.mark.parametrize("damage", ["emptied", "cut short"])
def test_observations_with_a_damaged_numba_cache_are_byte_for_byte_numpys(
    tmp_path: Path, damage: str
) -> None:
    """numba's cache index damaged (emptied: ``EOFError``; cut short: a pickle error) after a
    run filled it: the next run warns, falls back, and writes the same bytes."""
    plain = observations_run(tmp_path, "plain", site(tmp_path, "plain", NO_NUMBA), {})
    cache = tmp_path / "numba-cache"
    env = {"NUMBA_CACHE_DIR": str(cache)}
    compiled = site(tmp_path, "compiled", COMPILED_AT_ONCE)
    filled = observations_run(tmp_path, "filled", compiled, env)
    indexes = list(cache.rglob("kernel*.nbi"))
    assert indexes, "the first run left no cache index"
    for index in indexes:
        index.write_bytes(b"" if damage == "emptied" else index.read_bytes()[:20])
    damaged = observations_run(tmp_path, "damaged", compiled, env)
    assert "compiled move generator failed" in (damaged / "stderr.txt").read_text()
    same_output(plain, filled)
    same_output(plain, damaged)


def test_an_export_decides_its_path_once_from_its_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """``iter_observations(compiled=None)`` asks for the compiled loop by the input's size,
    once, before the run (the work carries the choice to every worker); the rows are the
    same either way."""
    from strat_tools.engine import moves
    from strat_tools.exports import observations

    chosen: list[bool] = []
    real = observations.map_records

    def spy(work: observations.ObservationsWork, *args: object, **kwargs: object) -> object:
        chosen.append(work.compiled)
        return real(work, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(observations, "map_records", spy)
    game = [str(Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml")]
    small = list(observations.iter_observations(game, run=1))
    monkeypatch.setattr(moves, "COMPILED_FROM_GAMES", 1)
    large = list(observations.iter_observations(game, run=1))
    forced = list(observations.iter_observations(game, run=1, compiled=False))
    assert chosen == [False, move_kernel.available(), False]
    rows = [b["observations"].column("legal_actions") for b in (*small, *large, *forced)]
    assert rows[0].to_pylist() == rows[1].to_pylist() == rows[2].to_pylist()
    assert len(rows[0]) > 0
