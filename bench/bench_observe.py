#!/usr/bin/env python3
"""A game loop's truth-free observations against the game's replay (issue 47): the target is at
most 3x the replay's CPU time, and linear in the game's plies.

    python bench/bench_observe.py [PATHS ...] [--rounds 5] [--games N] [--old] [--parts]

PATHS default to the project's sample month (``data/``). For each valid game: ``replay``
(the yardstick: every move checked, in the hot loop), and the game loop a player or an agent
runs, one :class:`~strat_tools.engine.position.position.Position` from the setup, each ply
``pos.observe()`` (the mover's truth-free ``board_view``, its knowledge brought forward one
push at a time) then ``pos.push(move)``; and the same loop with the whole truth-free row of
each ply (``position_rows``: the board, counts, counters, last moves and legal ids a move
policy reads); and a whole game at once: its replay and ``Replay.views()`` (its knowledge
pass and every ply's board view, ``game_views``: each ply's ``observe()``, one lookup a
square), or its replay and ``Replay.observations()`` (every ply's whole row). The best CPU
seconds of ``--rounds`` alternated rounds count (the machine may be shared). Linear in
plies: the time a ply of the game loop is printed for short and long games apart. ``--old`` adds the
quadratic path it replaced (the knowledge of the whole move stack at every ply,
``pushed_knowledge``), on a few games; ``--parts`` the game loop with the knowledge step
only (no view) and the whole game's knowledge pass and views, each alone. The numbers,
what bounds them and their history: docs/human-model.md, "A game loop's observations".
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


from strat_tools.core.records import GameRecord, Status  # noqa: E402
from strat_tools.engine.information.cursor import advanced, position_rows  # noqa: E402
from strat_tools.engine.information.knowledge import knowledge_rows  # noqa: E402
from strat_tools.engine.information.planes import (  # noqa: E402
    board_views,
    encode_boards,
    game_views,
)
from strat_tools.engine.position.position import Position  # noqa: E402
from strat_tools.engine.replays.replay import replay  # noqa: E402
from strat_tools.formats.readers import read_records  # noqa: E402

TARGET = 3.0


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _best(work: Callable[[], object], rounds: int) -> float:
    gc.disable()
    try:
        found = []
        for _ in range(rounds):
            start = _cpu()
            work()
            found.append(_cpu() - start)
        return min(found)
    finally:
        gc.enable()


def _loop(records: list[GameRecord], rows: bool | None) -> None:
    """The game loop: push each move, observe (``rows``: the whole row; None: nothing)."""
    for record in records:
        pos = Position(record.setup or (), RULES[record.game_id])
        cursor = None
        for source, target in zip(record.sources, record.targets, strict=True):
            if rows:
                cursor = advanced(cursor, pos)
                position_rows(pos, cursor)
            elif rows is not None:
                pos.observe()
            pos.push(source, target)


def _whole(records: list[GameRecord]) -> None:
    """Each game's truth-free board views at once: its replay, then ``Replay.views()`` (the
    knowledge pass and the views of every ply in one go)."""
    for record in records:
        replay(record, RULES[record.game_id]).views()  # type: ignore[arg-type]


def _stepped(records: list[GameRecord]) -> None:
    """The game loop with the knowledge step of ``observe()`` and no view."""
    for record in records:
        pos = Position(record.setup or (), RULES[record.game_id])
        cursor = None
        for source, target in zip(record.sources, record.targets, strict=True):
            cursor = advanced(cursor, pos)
            pos.push(source, target)


def _parts(records: list[GameRecord], rounds: int, replay_s: float) -> None:
    """The lines' parts, each alone: the game loop's knowledge step; the knowledge pass of
    replays made before (``knowledge_rows``, as ``Replay.views()`` makes it), and the views
    of knowledge rows made before (``game_views``; what bounds the lines:
    docs/human-model.md)."""
    seconds = _best(lambda: _stepped(records), rounds)
    print(f"  game loop, push and the knowledge step only: {seconds / replay_s:5.2f}x replay")
    results = [replay(r, RULES[r.game_id]) for r in records]  # type: ignore[arg-type]
    knows = [knowledge_rows(result) for result in results]

    def knowledge() -> None:
        for result in results:
            knowledge_rows(result)

    def views() -> None:
        for result, know in zip(results, knows, strict=True):
            n = result.plies_replayed
            game_views(know, n)

    for label, work in (("its knowledge pass alone", knowledge), ("its views alone", views)):
        seconds = _best(work, rounds)
        print(f"  whole game, {label:26}: {seconds / replay_s:5.2f}x replay")


def _old(records: list[GameRecord]) -> None:
    for record in records:
        pos = Position(record.setup or (), RULES[record.game_id])
        for source, target in zip(record.sources, record.targets, strict=True):
            know = pos.knowledge()  # the whole move stack, every ply
            board_views(encode_boards(know.boards[-1:], know.flags[-1:], [int(pos.side)]))
            pos.push(source, target)


RULES: dict[str, object] = {}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("paths", nargs="*", default=[str(REPO / "data")])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=0, help="at most this many games")
    parser.add_argument("--old", action="store_true", help="time the quadratic path too")
    parser.add_argument("--parts", action="store_true", help="time the whole game's parts")
    args = parser.parse_args()
    records = []
    for record in read_records(args.paths):
        if record.setup is None or record.rescues or not record.plies:
            continue
        result = replay(record)
        if result.status is not Status.VALID:
            continue
        RULES[record.game_id] = result.rules
        records.append(record)
        if args.games and len(records) >= args.games:
            break
    plies = sum(r.plies for r in records)
    short = [r for r in records if r.plies < 300]
    long = [r for r in records if r.plies >= 300]

    def replays() -> None:
        for record in records:
            replay(record, RULES[record.game_id])  # type: ignore[arg-type]

    def observations() -> None:
        for record in records:
            replay(record, RULES[record.game_id]).observations()  # type: ignore[arg-type]

    replay_s = push_s = observe_s = rows_s = whole_s = all_rows_s = float("inf")
    for _ in range(args.rounds):
        replay_s = min(replay_s, _best(replays, 1))
        push_s = min(push_s, _best(lambda: _loop(records, rows=None), 1))
        observe_s = min(observe_s, _best(lambda: _loop(records, rows=False), 1))
        rows_s = min(rows_s, _best(lambda: _loop(records, rows=True), 1))
        whole_s = min(whole_s, _best(lambda: _whole(records), 1))
        all_rows_s = min(all_rows_s, _best(observations, 1))
    print(f"{len(records)} valid games, {plies:,} plies (CPU seconds, best of {args.rounds})")
    print(f"{'replay':28} {replay_s:8.3f} s  {replay_s / plies * 1e6:7.1f} us a ply")
    for label, seconds in (
        ("game loop: push only", push_s),
        ("game loop: push, observe()", observe_s),
        ("game loop: push, whole rows", rows_s),
        ("whole game: replay .views()", whole_s),
        ("whole game: .observations()", all_rows_s),
    ):
        ratio = seconds / replay_s
        print(
            f"{label:28} {seconds:8.3f} s  {seconds / plies * 1e6:7.1f} us a ply  "
            f"{ratio:5.2f}x replay"
        )
    for label, part in (("under 300 plies", short), ("300 plies or more", long)):
        if part:
            count = sum(r.plies for r in part)
            seconds = _best(lambda part=part: _loop(part, rows=False), args.rounds)  # type: ignore[misc]
            print(
                f"  observe(), games {label:18}: {len(part):4} games, "
                f"{seconds / count * 1e6:6.1f} us a ply"
            )
    if args.parts:
        _parts(records, args.rounds, replay_s)
    if args.old:
        few = records[:20]
        count = sum(r.plies for r in few)
        new = _best(lambda: _loop(few, rows=False), 1)
        old = _best(lambda: _old(few), 1)
        print(f"  20 games, the whole stack's knowledge every ply: {old / new:.1f}x the cursor")
    print(f"observe() adds {(observe_s - push_s) / plies * 1e6:.1f} us a ply to the loop's push")
    for label, ratio in (
        ("game loop, push then observe()", observe_s / replay_s),
        ("whole game, replay(record).views()", whole_s / replay_s),
    ):
        print(
            f"{time.strftime('%Y-%m-%d')}: {label}, target at most {TARGET}x the replay: "
            f"{'met' if ratio <= TARGET else 'NOT met'} ({ratio:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
