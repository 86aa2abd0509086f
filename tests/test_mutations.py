"""Mutation tests over real games: inject one defect of each kind, many times, and check that
the engine reports it with the right code at the right ply, while the untouched originals stay
valid. Skips without the real archive (a few months of it are read, plus every lightning game).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from strat_tools.core.board import LAKES, NEIGHBOURS, RAYS
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, EMPTY, PieceKind
from strat_tools.core.records import GameRecord, Rescue, Result, Status
from strat_tools.core.rules import resolve_rules
from strat_tools.engine.position.position import Position, play_known
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import board_at
from strat_tools.engine.rules.rule_tables import CAPTAIN_CODES, SCOUT_CODES
from strat_tools.formats.readers import read_units
from strat_tools.io.sources import expand

pytestmark = [pytest.mark.archive, pytest.mark.slow]

PER_KIND = 25
MONTHS = ("strados2004-11.zip", "strados2005-1.zip", "strados2014-5.zip")


@pytest.fixture(scope="module")
def games(gravon_dir: Path) -> list[GameRecord]:
    """Real records: three months and every ultimate lightning game."""
    units = [
        u
        for u in expand([str(gravon_dir)])
        if Path(u.source).name in MONTHS or "ultimate" in (u.member or "")
    ]
    return [r for r in read_units(units) if r.setup is not None and r.plies > 4]


Finder = Callable[[Position], tuple[int, int] | None]


def _plain_neighbours(square: int) -> list[int]:
    """Orthogonal neighbours on the board, lakes included."""
    row, col = divmod(square, 10)
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
    return [
        (row + dr) * 10 + col + dc for dr, dc in steps if 0 <= row + dr < 10 and 0 <= col + dc < 10
    ]


def _own(pos: Position, movable: bool) -> Iterator[int]:
    for square, code in enumerate(pos.board):
        if CODE_SIDE[code] == pos.side and (pos.steps[code] > 0) == movable:
            yield square


def bomb_or_flag_moves(pos: Position) -> tuple[int, int] | None:
    for square in _own(pos, movable=False):
        for target in NEIGHBOURS[square]:
            if pos.board[target] == EMPTY:
                return square, target
    return None


def into_lake(pos: Position) -> tuple[int, int] | None:
    for square in _own(pos, movable=True):
        for target in _plain_neighbours(square):
            if target in LAKES:
                return square, target
    return None


def onto_own_piece(pos: Position) -> tuple[int, int] | None:
    for square in _own(pos, movable=True):
        for target in NEIGHBOURS[square]:
            if CODE_SIDE[pos.board[target]] == pos.side:
                return square, target
    return None


def diagonal(pos: Position) -> tuple[int, int] | None:
    for square in _own(pos, movable=True):
        if pos.board[square] in CAPTAIN_CODES:
            continue  # a lightning captain may turn a corner
        row, col = divmod(square, 10)
        for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            r, c = row + dr, col + dc
            inside = 0 <= r < 10 and 0 <= c < 10 and (r * 10 + c) not in LAKES
            if inside and pos.board[r * 10 + c] == EMPTY:
                return square, r * 10 + c
    return None


def two_squares_non_scout(pos: Position) -> tuple[int, int] | None:
    for square in _own(pos, movable=True):
        code = pos.board[square]
        if code in SCOUT_CODES or code in CAPTAIN_CODES:
            continue
        for ray in RAYS[square]:
            if len(ray) >= 2 and pos.board[ray[0]] == EMPTY and pos.board[ray[1]] == EMPTY:
                return square, ray[1]
    return None


def scout_through_piece(pos: Position) -> tuple[int, int] | None:
    for square in _own(pos, movable=True):
        if pos.board[square] not in SCOUT_CODES:
            continue
        for ray in RAYS[square]:
            for index, target in enumerate(ray[:-1]):
                beyond = ray[index + 1]
                if pos.board[target] != EMPTY and CODE_SIDE[pos.board[beyond]] != pos.side:
                    return square, beyond
    return None


def opponents_piece(pos: Position) -> tuple[int, int] | None:
    for square, code in enumerate(pos.board):
        if CODE_SIDE[code] == 3 - pos.side and pos.steps[code] > 0:
            for target in NEIGHBOURS[square]:
                if pos.board[target] == EMPTY:
                    return square, target
    return None


def from_empty_square(pos: Position) -> tuple[int, int] | None:
    for square, code in enumerate(pos.board):
        if code == EMPTY:
            for target in NEIGHBOURS[square]:
                if pos.board[target] == EMPTY:
                    return square, target
    return None


FINDERS: dict[str, Finder] = {
    "rule.immovable": bomb_or_flag_moves,
    "rule.lake": into_lake,
    "rule.own_piece": onto_own_piece,
    "rule.diagonal": diagonal,
    "rule.distance": two_squares_non_scout,
    "rule.scout_path": scout_through_piece,
    "rule.turn": opponents_piece,
    "rule.empty_source": from_empty_square,
}


def with_moves(record: GameRecord, sources: list[int], targets: list[int]) -> GameRecord:
    """A copy of ``record`` with these moves, each with a line number (an added move takes
    the last one), so the record stays consistent for ``st.replay``'s up-front checks."""
    last = record.lines[-1] if record.lines else None
    lines = [*record.lines[: len(sources)], *[last] * (len(sources) - len(record.lines))]
    return replace(record, sources=sources, targets=targets, lines=lines)


def mutated(record: GameRecord, index: int, move: tuple[int, int]) -> GameRecord:
    """A copy of ``record`` whose move ``index`` is ``move``."""
    sources, targets = record.sources[:], record.targets[:]
    sources[index], targets[index] = move
    return replace(record, sources=sources, targets=targets, diagnostics=[])


def positions(record: GameRecord) -> Iterator[tuple[int, Position]]:
    """(index, position before move index) along a valid record, every 7th ply."""
    rules = resolve_rules(None, record)
    pos = Position(record.setup or (), rules)
    for index in range(record.plies):
        if index % 7 == 3:
            yield index, pos
        rescue = record.rescues.get(index + 1)
        placed = None
        if rescue is not None and rescue.square is not None and rescue.piece is not None:
            placed = (rescue.square, (rescue.piece - 1) % 12 + (1 if pos.side == 1 else 13))
        play_known(pos, record.sources[index], record.targets[index], placed)
        if pos.winner:
            return


def test_originals_are_valid(games: list[GameRecord]) -> None:
    bad = [
        (g.game_id, replay(g).diagnostics) for g in games if replay(g).status is not Status.VALID
    ]
    assert bad == []


@pytest.mark.parametrize("code", sorted(FINDERS))
def test_injected_move_defect_is_reported(games: list[GameRecord], code: str) -> None:
    finder = FINDERS[code]
    checked = 0
    for record in games:
        for index, pos in positions(record):
            move = finder(pos)
            if move is None:
                continue
            result = replay(mutated(record, index, move))
            assert result.status is Status.INVALID, (record.game_id, index + 1)
            diag = next(d for d in result.diagnostics if d.severity.value == "error")
            assert (diag.code, diag.ply) == (code, index + 1), (record.game_id, diag)
            assert result.plies_replayed == index
            checked += 1
            break
        if checked >= PER_KIND:
            break
    assert checked >= PER_KIND


def flag_games(games: list[GameRecord]) -> list[GameRecord]:
    return [g for g in games if g.result is not None and g.result.type == 1][:PER_KIND]


def test_move_after_flag_capture(games: list[GameRecord]) -> None:
    for record in flag_games(games):
        extra = with_moves(
            record,
            [*record.sources, record.targets[-1]],
            [*record.targets, record.sources[-1]],
        )
        diag = replay(extra).diagnostics[0]
        assert (diag.code, diag.ply) == ("rule.after_end", record.plies + 1)


def test_winner_contradicting_the_capture(games: list[GameRecord]) -> None:
    for record in flag_games(games):
        assert record.result is not None
        flipped = replace(record, result=Result(1, 3 - (record.result.winner or 0)))
        assert [d.code for d in replay(flipped).diagnostics] == ["result.winner"]


def test_flag_capture_removed(games: list[GameRecord]) -> None:
    for record in flag_games(games):
        shorter = with_moves(record, record.sources[:-1], record.targets[:-1])
        codes = [d.code for d in replay(shorter).diagnostics]
        assert "result.flag" in codes, record.game_id


def _chain_ends(record: GameRecord, length: int) -> Iterator[int]:
    """Indices of moves that make a back-and-forth chain of exactly ``length`` whose next own
    move could go straight back."""
    result = replay(record, "classic")
    last: dict[int, tuple[int, int]] = {}
    count = {1: 0, 2: 0}
    for index in range(result.plies_replayed):
        side = 1 + index % 2
        move = (record.sources[index], record.targets[index])
        previous = last.get(side)
        count[side] = count[side] + 1 if previous == (move[1], move[0]) else 1
        last[side] = move
        if count[side] == length and index + 2 < record.plies:
            yield index


def test_fourth_and_sixth_back_and_forth_move(games: list[GameRecord]) -> None:
    cases = {3: "gravon-2013+strict", 5: "gravon-2004"}
    for length, rules in cases.items():
        checked = 0
        for record in games:
            if ((record.year or 0) >= 2013 and length == 5) or (
                (record.year or 0) < 2013 and length == 3
            ):
                continue
            for index in _chain_ends(record, length):
                back = (record.targets[index], record.sources[index])
                board = replay(
                    with_moves(record, record.sources[: index + 2], record.targets[: index + 2])
                ).final_board
                if board[back[1]] != EMPTY:
                    continue
                result = replay(mutated(record, index + 2, back), rules)
                diag = next(d for d in result.diagnostics if d.severity.value == "error")
                assert (diag.code, diag.ply) == ("rule.two_squares", index + 3), record.game_id
                checked += 1
                break
            if checked >= PER_KIND:
                break
        assert checked >= 5, (length, checked)


def lightning(games: list[GameRecord]) -> list[GameRecord]:
    return [g for g in games if g.variant == "ultimate lightning"]


def test_illegal_rescue(games: list[GameRecord]) -> None:
    checked = 0
    for record in lightning(games):
        for ply, rescue in record.rescues.items():
            # The same rescue one move earlier: that move did not reach the back row.
            earlier = {**record.rescues, ply - 2: rescue}
            del earlier[ply]
            result = replay(replace(record, rescues=earlier))
            diag = result.diagnostics[0]
            assert (diag.code, diag.ply) == ("rule.rescue", ply - 2), record.game_id
            checked += 1
            break
    assert checked >= 10


def test_captain_three_squares(games: list[GameRecord]) -> None:
    checked = 0
    for record in lightning(games):
        for index, pos in positions(record):
            move = None
            for square in _own(pos, movable=True):
                if pos.board[square] in CAPTAIN_CODES:
                    for ray in RAYS[square]:
                        if len(ray) >= 3 and all(pos.board[s] == EMPTY for s in ray[:3]):
                            move = (square, ray[2])
            if move is None:
                continue
            diag = replay(mutated(record, index, move)).diagnostics[0]
            assert (diag.code, diag.ply) == ("rule.distance", index + 1)
            checked += 1
            break
    assert checked >= 5


def _battles(record: GameRecord, test: Callable[[int, int, int], bool]) -> Iterator[int]:
    result = replay(record)
    for index, (mover, defender, outcome) in enumerate(
        zip(result.movers, result.defenders, result.outcomes, strict=True)
    ):
        if defender and test(mover, defender, outcome) and index + 1 < record.plies:
            yield index


def test_bomb_does_not_survive_a_second_hit(games: list[GameRecord]) -> None:
    checked = 0
    for record in lightning(games):
        for index in _battles(record, lambda m, d, o: CODE_KIND[d] == PieceKind.BOMB and o == 3):
            # The bomb's owner tries to use the bomb square as if the bomb were still there.
            square = record.targets[index]
            target = next(iter(NEIGHBOURS[square]))
            diag = replay(mutated(record, index + 1, (square, target))).diagnostics[0]
            assert (diag.code, diag.ply) == ("rule.empty_source", index + 2)
            checked += 1
            break
    assert checked >= 5


def test_tie_goes_to_the_attacker(games: list[GameRecord]) -> None:
    checked = 0
    for record in lightning(games):
        for index in _battles(record, lambda m, d, o: CODE_KIND[m] == CODE_KIND[d]):
            # The defender's side moves the defender as if it had survived the tie.
            square = record.targets[index]
            target = next(iter(NEIGHBOURS[square]))
            diag = replay(mutated(record, index + 1, (square, target))).diagnostics[0]
            assert (diag.code, diag.ply) == ("rule.turn", index + 2)
            checked += 1
            break
    assert checked >= 5


def test_rescue_of_a_piece_never_captured(games: list[GameRecord]) -> None:
    checked = 0
    for record in lightning(games):
        for ply, rescue in record.rescues.items():
            side = 1 + (ply - 1) % 2
            lost = {CODE_KIND[c] for c in board_at(record, ply - 1).captured[side]}
            missing = [k for k in range(1, 11) if k not in lost]
            if not missing:
                continue
            wrong = Rescue(rescue.square, missing[0] + 1, rescue.raw_field, str(missing[0] + 1))
            diag = replay(replace(record, rescues={**record.rescues, ply: wrong})).diagnostics[0]
            assert (diag.code, diag.ply) == ("rule.rescue", ply)
            checked += 1
            break
    assert checked >= 10
