#!/usr/bin/env python3
"""Engine benchmark: replay speed on the real games' decoded moves, one core, no parsing.

    .venv/bin/python bench/bench_engine.py [ARCHIVE_DIR] [--repeat N]

ARCHIVE_DIR defaults to $STRAT_TOOLS_GRAVON or ../shared/gravon. The games are read once
(not timed); then each variant runs ``--repeat`` times and the best run counts (the machine
is shared: CPU seconds are printed too). Prints one line per variant with games/s and moves/s:

- ``hot loop``: :meth:`Position.play_span` (the hot loop) alone over each game (up to
  the first ply it leaves to ``Position``: a turning captain, a rescue, an illegal move):
  every move checked and played, battles resolved, per-ply columns filled; the time of the
  same per-game setup without the loop (``Position``, columns) is subtracted;
- ``move loop``: the same plus the per-game setup (rule set, ``Position``, ``Replay`` and
  its columns), through the replay's ``_play_all``;
- ``replay``: the full :func:`strat_tools.engine.replays.replay.replay` per game, which adds
  the ending inference (legal-move search for both sides) and the result check;
- ``legal``: legal-move generation,
  :func:`strat_tools.engine.moves.games_legal_ids` over batches of 100 valid games (one
  call a batch and rule set, as the observation export calls it; the boards before each
  ply and the two-squares bans are prepared first, not timed), in plies per second (goal:
  2 million a second on one core), beside the engine's moves per second above;
  the line says which path ran: ``compiled`` (:mod:`strat_tools.engine.moves.kernel`, with
  numba, the ``fast`` extra, asked for by ``compiled=True``) or ``numpy``; ``legal/numpy``
  the same batches through NumPy's stages (:mod:`strat_tools.engine.moves.scan`), what a
  month's export runs (``compiled`` is off by default and never switched on by a process's
  history; the observation export asks for it once, from about 5,000 games on: importing
  numba costs about 0.4 s a process, which a month never earns back and the archive does,
  ``bench/compare.py ec8e0c6 --only observations``);
  ``legal/game`` one :func:`~strat_tools.engine.moves.legal_ids` call per game (the cost
  paid per call shows); ``legal ids`` how many ids a ply has (each one is written, so every
  pass over them costs);
- ``stages``: where ``legal/numpy``'s time goes, in nanoseconds a ply (each stage the best of
  ``--repeat`` runs, chunk by chunk as ``legal_ids`` takes them): ``turn`` the class bytes in
  the movers' views (:func:`~strat_tools.engine.information.mover_view.view_boards`), ``scan`` the
  pieces that can move and their step bits (:func:`~strat_tools.engine.moves.scan.candidates`),
  ``rays`` the far pieces' walk (:func:`~strat_tools.engine.moves.scan.far_codes`), ``ids``
  the ids written (:func:`~strat_tools.engine.moves.scan.expand`), ``rest`` the joins, the
  two-squares bans, the lightning captains' turns and the splits per game (``legal/numpy``'s CPU
  time less the stages', so on a busy machine it holds the noise too);
- ``position``: :func:`strat_tools.engine.encodings.actions.legal_actions` of one ``Position``
  (every 50th of each valid game), in microseconds a position: the stepping API's cost.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.core.records import GameRecord  # noqa: E402
from strat_tools.core.rules import resolve_rules  # noqa: E402
from strat_tools.engine.position.position import Position  # noqa: E402
from strat_tools.engine.replays.replay import Replay, replay  # noqa: E402
from strat_tools.engine.replays.replay import _play_all as play_all  # noqa: E402
from strat_tools.formats.readers import read_records  # noqa: E402

BATCH_GAMES = 100
"""Games per ``games_legal_ids`` call in the ``legal`` line (the export's batches hold about
as many)."""


def move_loop(records: list[GameRecord]) -> int:
    """Check and play every move of every game; returns the plies played."""
    played = 0
    for record in records:
        if record.setup is None:
            continue
        rules = resolve_rules(None, record)
        pos = Position(record.setup, rules)
        out = Replay(record, rules)
        n = record.plies
        out.movers, out.defenders, out.outcomes = [0] * n, [0] * n, [0] * n
        out.distances, out.revealed, out.chains = [1] * n, [0] * n, [1] * n
        played += play_all(record, pos, out)
    return played


def hot_loop(records: list[GameRecord], *, play: bool = True) -> int:
    """The hot loop over each game from a fresh position (``play=False``: the same per-game
    setup without the loop, to subtract); returns the plies played."""
    played = 0
    for record in records:
        if record.setup is None:
            continue
        pos = Position(record.setup, resolve_rules(None, record))
        n = record.plies
        columns = ([0] * n, [0] * n, [0] * n, [1] * n, [0] * n, [1] * n)
        if play:
            played += pos.play_span(record.sources, record.targets, 0, n, columns)
    return played


def setup_only(records: list[GameRecord]) -> int:
    """:func:`hot_loop`'s per-game setup alone."""
    return hot_loop(records, play=False)


def full_replay(records: list[GameRecord]) -> int:
    """Replay every game with the ending and result checks; returns the plies replayed."""
    return sum(replay(record).plies_replayed for record in records)


def legal_inputs(records: list[GameRecord]) -> list[tuple[Any, Any, Any, list[Any]]]:
    """Per valid game: the boards before each ply, the sides, the rules and the bans."""
    import numpy as np

    from strat_tools.engine.moves.games import two_squares_bans

    inputs = []
    for record in records:
        result = replay(record)
        n = result.plies_replayed
        if record.setup is None or not n or result.status.value != "valid":
            continue
        boards = result.knowledge().boards[:n].copy()
        sides = np.where(np.arange(n) % 2 == 0, 1, 2).astype(np.uint8)
        inputs.append((boards, sides, result.rules, two_squares_bans(result, n, boards)))
    return inputs


def sample_positions(records: list[GameRecord], every: int = 50) -> list[Position]:
    """Every ``every``-th position of every valid game (for the single-position timing)."""
    from strat_tools.engine.replays.steps import walk

    found = []
    for record in records:
        result = replay(record)
        if record.setup is None or result.status.value != "valid":
            continue
        found += [pos for ply, pos in enumerate(walk(result)) if ply % every == 0]
    return found


def stage_times(batches: list[tuple[Any, list[tuple[Any, Any]]]], repeat: int) -> dict[str, float]:
    """CPU seconds of the generator's stages over ``batches`` (as ``legal`` calls it: joined
    per batch, :data:`~strat_tools.engine.moves.CHUNK_ROWS` rows at a time), each chunk's
    stage the fastest of ``repeat`` runs."""
    from strat_tools.engine.information.mover_view import view_boards
    from strat_tools.engine.moves import CHUNK_ROWS, game_sides, join_games
    from strat_tools.engine.moves.scan import candidates, expand, far_codes, move_classes

    spent = dict.fromkeys(("turn", "scan", "rays", "ids"), 0.0)
    for rules, games in batches:
        joined, _, _ = join_games(games)
        sides = game_sides(len(joined))
        classes = move_classes(rules)
        for start in range(0, len(joined), CHUNK_ROWS):
            board, side = joined[start : start + CHUNK_ROWS], sides[start : start + CHUNK_ROWS]
            best = dict.fromkeys(spent, float("inf"))
            for _ in range(repeat):
                times = [time.process_time()]
                cls = view_boards(classes.bits, board, side)
                times.append(time.process_time())
                movers, steps, far = candidates(cls)
                times.append(time.process_time())
                reach = far_codes(board, side, cls, movers[far], steps[far], classes)
                times.append(time.process_time())
                expand(movers, steps, far, reach, len(board))
                times.append(time.process_time())
                for name, began, ended in zip(best, times, times[1:], strict=False):
                    best[name] = min(best[name], ended - began)
            for name in spent:
                spent[name] += best[name]
    return spent


def best_of(
    func: Callable[[list[GameRecord]], int], records: list[GameRecord], repeat: int
) -> tuple[float, float, int]:
    """The fastest of ``repeat`` runs: (wall seconds, CPU seconds, plies)."""
    best_wall, best_cpu, plies = float("inf"), float("inf"), 0
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        plies = func(records)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, plies


def main() -> None:
    default = os.environ.get("STRAT_TOOLS_GRAVON") or str(REPO.parent / "shared" / "gravon")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=default)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    records = list(read_records([args.archive], check=False))
    print(f"read {len(records)} games in {time.perf_counter() - start:.1f} s (not timed below)")
    wall, cpu, plies = best_of(hot_loop, records, args.repeat)
    setup_wall, setup_cpu, _ = best_of(setup_only, records, args.repeat)
    wall, cpu = wall - setup_wall, cpu - setup_cpu
    print(
        f"{'hot loop':<10} games={len(records)} moves={plies} seconds={wall:.3f} "
        f"cpu_seconds={cpu:.3f} moves_per_s={plies / wall:.0f} "
        f"moves_per_cpu_s={plies / cpu:.0f} (minus the per-game setup)"
    )
    for name, func in (("move loop", move_loop), ("replay", full_replay)):
        wall, cpu, plies = best_of(func, records, args.repeat)
        print(
            f"{name:<10} games={len(records)} moves={plies} seconds={wall:.3f} "
            f"cpu_seconds={cpu:.3f} games_per_s={len(records) / wall:.0f} "
            f"moves_per_s={plies / wall:.0f} moves_per_cpu_s={plies / cpu:.0f}"
        )
    from strat_tools.engine.moves import games_legal_ids, legal_ids

    inputs = legal_inputs(records)
    batches: list[tuple[Any, list[tuple[Any, Any]]]] = []
    for start in range(0, len(inputs), BATCH_GAMES):
        by_rules: dict[int, tuple[Any, list[tuple[Any, Any]]]] = {}
        for boards, _sides, rules, bans in inputs[start : start + BATCH_GAMES]:
            by_rules.setdefault(id(rules), (rules, []))[1].append((boards, bans))
        batches += by_rules.values()

    def batched(compiled: bool) -> int:
        return sum(
            len(o) - 1
            for rules, games in batches
            for o, _ in games_legal_ids(games, rules, compiled=compiled)
        )

    def generate(_: list[GameRecord]) -> int:  # the compiled loop, asked for explicitly
        return batched(True)

    def per_game(_: list[GameRecord]) -> int:
        return sum(len(legal_ids(*game, compiled=True)[0]) - 1 for game in inputs)

    from strat_tools.engine.moves import kernel

    def numpy_stages(_: list[GameRecord]) -> int:  # what every command runs (the default)
        return batched(False)

    path = "compiled" if kernel.available() else "numpy (numba not installed)"
    legal_runs: tuple[tuple[str, str, Callable[[list[GameRecord]], int]], ...] = (
        ("legal", f"path={path}", generate),
        ("legal/numpy", "path=numpy", numpy_stages),
        ("legal/game", f"path={path}", per_game),
    )
    legal_cpu = 0.0
    for name, how, legal_run in legal_runs:
        wall, cpu, plies = best_of(legal_run, records, args.repeat)
        if name == "legal/numpy":
            legal_cpu = cpu
        print(
            f"{name:<10} games={len(inputs)} plies={plies} seconds={wall:.3f} "
            f"cpu_seconds={cpu:.3f} plies_per_s={plies / wall:.0f} "
            f"plies_per_cpu_s={plies / cpu:.0f} {how} (goal 2,000,000)"
        )
    ids = sum(len(i) for rules, games in batches for _, i in games_legal_ids(games, rules))
    print(f"{'legal ids':<10} ids={ids} ids_per_ply={ids / max(plies, 1):.1f}")
    spent = stage_times(batches, args.repeat)
    spent["rest"] = legal_cpu - sum(spent.values())
    print(
        f"{'stages':<10} "
        + " ".join(f"{k}_ns={v / max(plies, 1) * 1e9:.0f}" for k, v in spent.items())
        + " (ns a ply of legal/numpy's CPU time)"
    )
    from strat_tools.engine.encodings.actions import legal_actions

    positions = sample_positions(records)

    def one_by_one(_: list[GameRecord]) -> int:
        for pos in positions:
            legal_actions(pos)
        return len(positions)

    wall, cpu, count = best_of(one_by_one, records, args.repeat)
    print(
        f"{'position':<10} positions={count} seconds={wall:.3f} cpu_seconds={cpu:.3f} "
        f"us_per_position={wall / count * 1e6:.1f} us_per_cpu_position={cpu / count * 1e6:.1f} "
        "(legal_actions of one Position, the stepping API's call)"
    )


if __name__ == "__main__":
    main()
