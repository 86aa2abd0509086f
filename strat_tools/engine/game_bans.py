"""The two-squares bans of a replayed game, ply by ply, for the batch move generator.

:func:`~strat_tools.engine.movegen.legal_ids` takes the boards before a run of plies and
the moves the two-squares rule bans there; on one :class:`Position` those come from
:func:`~strat_tools.engine.movegen.repetition_bans`, and for a whole replayed game from
:func:`two_squares_bans` here, read off the replay's own chains without playing the game
again (except at the rare plies of a scout under the scout clause, whose chain spans
squares). The rule is stated in :mod:`strat_tools.engine.position` (``repetition``) and
its tables in :mod:`strat_tools.engine.rule_tables`; this module only applies them to a
game, so that no floor above the engine (the observation export, tests, benchmarks) knows
the rule. :func:`games_legal_ids_of` is the batch call those floors make.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from strat_tools.core.records import GameRecord
from strat_tools.core.rules import RuleSet
from strat_tools.engine.movegen import (
    Moves,
    game_sides,
    games_legal_ids,
    legal_ids,
    repetition_bans,
)
from strat_tools.engine.position import Position, play_known
from strat_tools.engine.rule_tables import rule_tables


class ReplayedGame(Protocol):
    """What the bans need of a replay (:class:`~strat_tools.engine.replay.Replay` has it):
    the record, its rule set, each ply's two-squares chain after it, and the rescues the
    replay resolved (ply -> board code)."""

    @property
    def record(self) -> GameRecord: ...
    @property
    def rules(self) -> RuleSet: ...
    @property
    def chains(self) -> Sequence[int]: ...
    @property
    def rescued(self) -> dict[int, int]: ...


def two_squares_bans(
    result: ReplayedGame, n: int, boards: npt.NDArray[np.uint8], start: int = 0
) -> list[tuple[int, int]]:
    """The ``(ply index, source * 100 + target)`` moves the two-squares rule bans before
    each of the plies ``start`` to ``n - 1`` (counted from 0) of a replayed game
    (``boards``: the boards before them; the indices counted from ``start``), as
    :func:`~strat_tools.engine.movegen.repetition_bans` names them on the
    :class:`Position` of each ply.

    Only the piece a side moved last can be banned, and only once its chain (the replay's
    :attr:`~strat_tools.engine.replay.Replay.chains`) is at the limit: then a piece that
    is not a scout under the scout clause may not go straight back. A scout under the
    clause shares its chain over squares, so at those (rare) plies the game is played
    again on a :class:`Position` and asked."""
    tables = rule_tables(result.rules)
    limit = tables.limit
    if n < 3:
        return []
    record = result.record
    low = max(start - 2, 0)
    chains = np.asarray(result.chains[low : n - 2], np.int64)
    # plies whose side's last piece is at the limit
    gated = np.flatnonzero(chains >= limit) + low + 2
    gated = gated[gated >= start]
    if not len(gated):
        return []
    sources = np.asarray(record.sources[low : n - 2], np.int64)[gated - 2 - low]
    moved = np.asarray(record.targets[low : n - 2], np.int64)[gated - 2 - low]
    spans = np.asarray(tables.spans, np.bool_)
    clause = spans[boards[gated - start, moved]]
    bans = [
        (int(i) - start, int(m * 100 + s))
        for i, m, s in zip(gated[~clause], moved[~clause], sources[~clause], strict=True)
    ]
    if clause.any():
        bans += [(i - start, key) for i, key in _scout_bans(result, gated[clause].tolist())]
        bans.sort()
    return bans


def _scout_bans(result: ReplayedGame, plies: list[int]) -> list[tuple[int, int]]:
    """:func:`~strat_tools.engine.movegen.repetition_bans` before each of ``plies``
    (ascending indices), on the game played again on a :class:`Position`."""
    record = result.record
    assert record.setup is not None
    pos = Position(record.setup, result.rules)
    rescued, rescues = result.rescued, record.rescues
    bans: list[tuple[int, int]] = []
    index = 0
    for ply in plies:
        while index < ply:
            rescue = None
            if rescued and index + 1 in rescued:
                square = rescues[index + 1].square
                assert square is not None
                rescue = (square, rescued[index + 1])
            play_known(pos, record.sources[index], record.targets[index], rescue)
            index += 1
        bans += [(ply, key) for key in repetition_bans(pos)]
    return bans


def game_legal_ids(
    result: ReplayedGame, boards: npt.NDArray[np.uint8], start: int = 0, *, compiled: bool = False
) -> Moves:
    """The legal moves before each ply of a replayed game whose boards before its plies are
    ``boards`` (red moves first), the two-squares bans applied: :func:`legal_ids` of one
    game. With ``start``, ``boards`` are those before plies ``start`` on (counted from 0):
    a window of a long game. ``compiled`` as for :func:`legal_ids`."""
    stop = start + len(boards)
    bans = two_squares_bans(result, stop, boards, start)
    sides = game_sides(len(boards) + start % 2)[start % 2 :]
    return legal_ids(boards, sides, result.rules, bans, compiled=compiled)


def games_legal_ids_of(
    games: Sequence[tuple[ReplayedGame, npt.NDArray[np.uint8]]], *, compiled: bool = False
) -> list[Moves | Exception]:
    """:func:`game_legal_ids` of many replayed games, each with the boards before its
    plies: the games of one rule set in one
    :func:`~strat_tools.engine.movegen.games_legal_ids` call, split back per game, in the
    order given. A game whose bans or moves fail gets its exception in its place (the
    others theirs): if the batch call fails, game by game, so only the failing game fails.
    ``compiled`` as for :func:`~strat_tools.engine.movegen.legal_ids`.
    """
    found: list[Moves | Exception] = [ValueError("not computed")] * len(games)
    groups: dict[int, list[int]] = {}
    for index, (result, _) in enumerate(games):
        groups.setdefault(id(result.rules), []).append(index)
    for members in groups.values():
        inputs: list[tuple[npt.NDArray[np.uint8], list[tuple[int, int]]]] = []
        kept = []
        for index in members:
            result, boards = games[index]
            try:
                inputs.append((boards, two_squares_bans(result, len(boards), boards)))
                kept.append(index)
            except Exception as exc:  # one bad game must never stop a run
                found[index] = exc
        if not kept:
            continue
        rules = games[kept[0]][0].rules
        split: list[Moves | Exception] = []
        try:
            split += games_legal_ids(inputs, rules, compiled=compiled)
        except Exception:  # find the game that fails, alone
            split = []
            for boards, bans in inputs:
                try:
                    split.append(
                        legal_ids(boards, game_sides(len(boards)), rules, bans, compiled=compiled)
                    )
                except Exception as exc:
                    split.append(exc)
        for index, moves in zip(kept, split, strict=True):
            found[index] = moves
    return found
