"""The legal moves of replayed games, ply by ply: the observation export's one call.

:func:`games_legal_ids_of` takes replayed games with the boards before their plies and
returns each game's legal moves before every ply, the two-squares bans applied, from one
batch call of the generator (:func:`~strat_tools.engine.moves.games_legal_ids`) per rule
set. The bans come from :mod:`strat_tools.engine.moves.bans`, read off each replay's own
chains (:func:`~strat_tools.engine.moves.bans.chain_bans`), except at the rare plies of a
scout under the scout clause, whose chain spans squares: there the game is played again on
a :class:`~strat_tools.engine.position.position.Position` and asked
(:func:`~strat_tools.engine.moves.bans.repetition_bans`). So no floor above the engine (the
observation export, tests, benchmarks) knows the rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from strat_tools.engine.moves import Moves, game_sides, games_legal_ids, legal_ids
from strat_tools.engine.moves.bans import ReplayedGame, chain_bans, repetition_bans
from strat_tools.engine.position.position import Position, play_known

__all__ = ["ReplayWalk", "game_legal_ids", "games_legal_ids_of", "two_squares_bans"]


def two_squares_bans(
    result: ReplayedGame,
    n: int,
    boards: npt.NDArray[np.uint8],
    start: int = 0,
    walk: ReplayWalk | None = None,
) -> list[tuple[int, int]]:
    """The ``(ply index, source * 100 + target)`` moves the two-squares rule bans before
    each of the plies ``start`` to ``n - 1`` (counted from 0) of a replayed game
    (``boards``: the boards before them; the indices counted from ``start``), as
    :func:`~strat_tools.engine.moves.bans.repetition_bans` names them on the
    :class:`Position` of each ply: :func:`~strat_tools.engine.moves.bans.chain_bans`, and
    at the plies of a scout under the scout clause the game played again and asked (on
    ``walk``, which the windows of one game share; a new one when not given)."""
    bans, scout_plies = chain_bans(result, n, boards, start)
    if scout_plies:
        walk = walk if walk is not None else ReplayWalk(result)
        bans += [(ply - start, key) for ply, key in walk.bans_before(scout_plies)]
        bans.sort()
    return bans


class ReplayWalk:
    """A replayed game played again on a :class:`Position`, forward only, for the bans
    only a position knows (:func:`~strat_tools.engine.moves.bans.repetition_bans`): the
    windows of a long game ask one walk in turn, so the game is played once, not once
    from its start for each window."""

    def __init__(self, result: ReplayedGame) -> None:
        self.result = result
        self.index = 0
        self.position: Position | None = None

    def bans_before(self, plies: list[int]) -> list[tuple[int, int]]:
        """``repetition_bans`` before each of ``plies`` (ascending, none before a ply this
        walk has passed), as ``(ply, key)``."""
        result = self.result
        record = result.record
        if self.position is None:
            assert record.setup is not None
            self.position = Position(record.setup, result.rules)
        pos, index = self.position, self.index
        rescued, rescues = result.rescued, record.rescues
        bans: list[tuple[int, int]] = []
        for ply in plies:
            if ply < index:
                raise ValueError(f"this walk has passed ply {ply} (it is at {index})")
            while index < ply:
                rescue = None
                if rescued and index + 1 in rescued:
                    square = rescues[index + 1].square
                    assert square is not None
                    rescue = (square, rescued[index + 1])
                play_known(pos, record.sources[index], record.targets[index], rescue)
                index += 1
            bans += [(ply, key) for key in repetition_bans(pos)]
        self.index = index
        return bans


def game_legal_ids(
    result: ReplayedGame,
    boards: npt.NDArray[np.uint8],
    start: int = 0,
    *,
    compiled: bool = False,
    walk: ReplayWalk | None = None,
) -> Moves:
    """The legal moves before each ply of a replayed game whose boards before its plies are
    ``boards`` (red moves first), the two-squares bans applied: :func:`legal_ids` of one
    game. With ``start``, ``boards`` are those before plies ``start`` on (counted from 0):
    a window of a long game, whose windows in order share one ``walk``. ``compiled`` as for
    :func:`legal_ids`."""
    stop = start + len(boards)
    bans = two_squares_bans(result, stop, boards, start, walk)
    sides = game_sides(len(boards) + start % 2)[start % 2 :]
    return legal_ids(boards, sides, result.rules, bans, compiled=compiled)


def games_legal_ids_of(
    games: Sequence[tuple[ReplayedGame, npt.NDArray[np.uint8]]], *, compiled: bool = False
) -> list[Moves | Exception]:
    """:func:`game_legal_ids` of many replayed games, each with the boards before its
    plies: the games of one rule set in one
    :func:`~strat_tools.engine.moves.games_legal_ids` call, split back per game, in the
    order given. A game whose bans or moves fail gets its exception in its place (the
    others theirs): if the batch call fails, game by game, so only the failing game fails.
    ``compiled`` as for :func:`~strat_tools.engine.moves.legal_ids`.
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
