"""Tests for the replay engine: Position moves and battles on hand-built boards, replays of
hand-built records, result checks and the board renderer. Boards are ASCII diagrams."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hand_games import EMPTY_BOARD, game, lightning, put

from strat_tools.cli import main
from strat_tools.core.board import parse_square
from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.core.errors import IllegalMove
from strat_tools.core.pieces import ARMIES, CODE_SIDE
from strat_tools.core.records import GameRecord, Rescue, Result, Status, Termination
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import board_at, show


def move(pos: Position, text: str) -> int:
    """Push a move written like 'D4-D5'."""
    source, target = (parse_square(part) for part in text.split("-"))
    return pos.push(source, target)


def diagram(pos: Position) -> str:
    return str(pos).strip("\n")


def test_render_and_parse_round_trip() -> None:
    codes = put({"A1": "rF", "B1": "rB", "K10": "bF", "E4": "r10", "E7": "b1"})
    text = render_board(codes)
    assert parse_board(text) == codes
    assert parse_board(render_board(codes, numbering="classic"), "classic") == codes


def test_position_push_and_diagram() -> None:
    pos = Position(put({"A1": "rF", "E4": "r10", "K10": "bF", "E7": "b1"}), "gravon-2013")
    assert move(pos, "E4-E5") == 0
    assert move(pos, "E7-E6") == 0
    assert (
        diagram(pos)
        == """\
      A   B   C   D   E   F   G   H   I   K
10   .   .   .   .   .   .   .   .   .  bF
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~  b1   .  ~~  ~~   .   .
 5   .   .  ~~  ~~ r10   .  ~~  ~~   .   .
 4   .   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  rF   .   .   .   .   .   .   .   .   ."""
    )
    # Marshal attacks the spy: anything attacking the spy wins.
    assert move(pos, "E5-E6") == 1
    assert pos.captured[2] == [14]  # blue spy


def test_legal_moves_of_a_scout_stop_at_pieces_and_lakes() -> None:
    pos = Position(put({"A1": "rF", "C4": "r2", "C8": "b5", "K10": "bF", "A4": "r4"}))
    targets = sorted(t for s, t in pos.legal_pairs() if s == parse_square("C4"))
    assert targets == sorted(
        parse_square(n) for n in ("C3", "C2", "C1", "B4", "D4", "E4", "F4", "G4", "H4", "I4", "K4")
    )


def test_push_rejects_illegal_move_with_rule_code() -> None:
    pos = Position(put({"A1": "rF", "B1": "rB", "K10": "bF"}))
    with pytest.raises(IllegalMove) as info:
        move(pos, "B1-B2")
    assert info.value.code == "rule.immovable"


def test_replay_of_hand_built_record_captures_flag() -> None:
    setup = tuple(put({"A1": "rF", "A4": "r2", "A9": "bF", "K7": "b3"}))
    record = GameRecord(
        source="t",
        variant="classicfree",
        year=2014,
        setup=setup,
        sources=[parse_square("A4")],
        targets=[parse_square("A9")],
        lines=[5],
        result=Result(1, 1),
    )
    result = replay(record)
    assert result.status is Status.VALID
    assert result.termination is Termination.FLAG_CAPTURED
    assert result.outcomes == [4]
    assert result.distances == [5]


# -- hand-built games: one per rule -----------------------------------------------------


ILLEGAL = [
    ("rule.turn", 1, {"E4": "r5", "E7": "b5"}, "E7-E6"),
    ("rule.empty_source", 1, {}, "E4-E5"),
    ("rule.immovable", 1, {"E4": "rB"}, "E4-E5"),
    ("rule.immovable", 1, {}, "A1-A2"),
    ("rule.lake", 1, {"C4": "r5"}, "C4-C5"),
    ("rule.own_piece", 1, {"E4": "r5", "E3": "r6"}, "E4-E3"),
    ("rule.diagonal", 1, {"E4": "r5"}, "E4-F5"),
    ("rule.distance", 1, {"E4": "r5"}, "E4-E6"),
    ("rule.scout_path", 1, {"E2": "r2", "E4": "r5"}, "E2-E7"),
    ("rule.scout_path", 1, {"E2": "r2", "E4": "b5"}, "E2-E7"),
    ("rule.lake", 1, {"B5": "r2"}, "B5-E5"),
    ("rule.after_end", 3, {"I10": "b3", "K8": "r5"}, "K8-K9 A10-A9 K1-K2"),
]


@pytest.mark.parametrize(("code", "ply", "pieces", "moves"), ILLEGAL)
def test_illegal_move_is_reported_and_stops_the_replay(
    code: str, ply: int, pieces: dict[str, str], moves: str
) -> None:
    record = game(pieces, moves if code != "rule.after_end" else "K8-K9 A10-A9 K9-K10 A9-A8")
    if code == "rule.after_end":
        ply = 4
    result = replay(record, "gravon-2013")
    assert result.status is Status.INVALID
    diag = result.diagnostics[0]
    assert (diag.code, diag.ply, diag.line) == (code, ply, 10 + ply - 1)
    assert result.plies_replayed == ply - 1
    assert result.stopped_at == ply
    move = record.moves[ply - 1].to_str()
    assert move in diag.message


def test_after_end_names_the_captured_flag() -> None:
    record = game({"K8": "r5"}, "K8-K9 A10-A9 K9-K10 A9-A8")
    result = replay(record)
    assert result.outcomes[2] == 4
    assert result.diagnostics[0].code == "rule.after_end"
    assert result.termination is Termination.FLAG_CAPTURED and result.winner == 1


def test_two_squares_limit_three_and_five() -> None:
    moves = "E4-E5 A10-A9 E5-E4 A9-A8 E4-E5 A8-A7 E5-E4 A7-A6 E4-E5 A6-B6 E5-E4"
    record = game({"E4": "r5"}, moves)
    strict = replay(record, "gravon-2013+strict")
    assert [(d.code, d.ply) for d in strict.diagnostics] == [("rule.two_squares", 7)]
    five = replay(record, "gravon-2004")
    assert [(d.code, d.ply) for d in five.diagnostics] == [("rule.two_squares", 11)]
    # Past 5 too: ply 7 is legal under the limit of 5 this game may have been played under,
    # so the first move illegal under every limit tried is ply 11, and the error names both.
    auto = replay(record, "gravon-2013")
    assert auto.rules.name == "gravon-2013+limit5"
    (error,) = auto.diagnostics
    assert (error.code, error.ply, error.line) == ("rule.two_squares", 11, five.diagnostics[0].line)
    assert error.message.endswith(
        "illegal under every two-squares limit tried: 3 (first broken at ply 7) and 5"
    )


def test_two_squares_fallback_to_five_is_reported() -> None:
    moves = "E4-E5 A10-A9 E5-E4 A9-A8 E4-E5 A8-A7 E5-E4 A7-A6 E4-E5"
    result = replay(game({"E4": "r5"}, moves))
    assert result.rules.name == "gravon-2013+limit5"
    assert result.status is Status.VALID
    note = result.diagnostics[0]
    assert (note.code, note.severity.value, note.ply) == (
        "rules.two_squares_fallback",
        "warning",
        7,
    )


def test_two_squares_count_restarts_after_another_move() -> None:
    moves = "E4-E5 A10-A9 E5-E4 A9-A8 E4-E5 A8-A7 K1-K2 A7-A6 E5-E4 A6-B6 E4-E5"
    assert replay(game({"E4": "r5"}, moves), "gravon-2013+strict").status is Status.VALID


def test_scout_clause_counts_moves_over_the_same_squares() -> None:
    moves = "E1-E4 A10-A9 E4-E2 A9-A8 E2-E4 A8-A7 E4-E3"
    record = game({"E1": "r2"}, moves)
    clause = replay(record, "gravon-2013+strict")
    assert [(d.code, d.ply) for d in clause.diagnostics] == [("rule.two_squares", 7)]
    assert replay(record, "classic+limit3").status is Status.VALID


# -- battles, shown in both numberings ---------------------------------------------------


def test_spy_takes_marshal_only_when_attacking() -> None:
    record = game({"E5": "r1", "E6": "b10", "F6": "b9"}, "E5-E6")
    result = replay(record)
    assert result.outcomes == [1] and result.revealed == [3]
    pos = board_at(record)
    assert str(pos).splitlines()[4:7] == [
        " 7   .   .   .   .   .   .   .   .   .   .",
        " 6   .   .  ~~  ~~  r1  b9  ~~  ~~   .   .",
        " 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .",
    ]
    classic = render_board(pos.board, numbering="classic").splitlines()[5]
    assert classic == " 6   .   .  ~~  ~~  rS  b2  ~~  ~~   .   ."


def test_equal_ranks_both_go_unless_aggressor() -> None:
    record = game({"E5": "r6", "E6": "b6"}, "E5-E6")
    assert replay(record).outcomes == [3]
    assert replay(record).final_board[parse_square("E6")] == 0
    aggressor = replay(record, "gravon-2013+aggressor")
    assert aggressor.outcomes == [1]
    row = render_board(aggressor.final_board, numbering="classic").splitlines()[5]
    assert row == " 6   .   .  ~~  ~~  r5   .  ~~  ~~   .   ."


def test_bombs_and_miners() -> None:
    record = game({"E5": "r8", "E6": "bB", "F5": "r3", "F6": "bB"}, "E5-E6 A10-A9 F5-F6")
    result = replay(record)
    assert result.outcomes == [2, 0, 1]
    assert result.captured == ([9], [13])  # red colonel; blue bomb (taken by the miner)
    rows = render_board(result.final_board).splitlines()[5:7]
    assert rows == [
        " 6   .   .  ~~  ~~  bB  r3  ~~  ~~   .   .",
        " 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .",
    ]


def test_silent_defense_reveals_only_the_attacker() -> None:
    record = game({"E5": "r8", "E6": "b7", "B2": "r2", "B9": "b4"}, "E5-E6 A10-A9 B2-B9")
    assert replay(record).revealed == [3, 0, 3]
    assert replay(record, "auto+silent").revealed == [1, 0, 3]


def test_show_marks_last_move_and_battle() -> None:
    record = game({"E5": "r8", "E6": "b7"}, "E5-E6")
    text = show(record, 1, numbering="classic")
    assert " 6   .   .  ~~  ~~  r3!" in text
    assert "red colonel attacks blue major: attacker wins" in text


# -- ultimate lightning ------------------------------------------------------------------


def test_lightning_captain_moves_two_squares_and_may_turn() -> None:
    record = lightning({"E3": "r6"}, "E3-E5 A10-A9 E5-F6")
    result = replay(record)
    assert result.status is Status.VALID and result.distances == [2, 1, 2]
    assert result.revealed == [1, 0, 1]  # a two-square move shows a captain
    too_far = replay(lightning({"E2": "r6"}, "E2-E5"))
    assert [(d.code, d.ply) for d in too_far.diagnostics] == [("rule.distance", 1)]
    blocked = replay(lightning({"E3": "r6", "E4": "r5"}, "E3-E5"))
    assert blocked.diagnostics[0].code == "rule.path"
    assert replay(game({"E3": "r6"}, "E3-E5")).diagnostics[0].code == "rule.distance"


def test_lightning_bomb_goes_after_its_first_hit() -> None:
    record = lightning({"E5": "r8", "E6": "bB", "E4": "r7"}, "E5-E6 A10-A9 E4-E5 A9-A8 E5-E6")
    result = replay(record)
    assert result.outcomes == [3, 0, 0, 0, 0]  # bomb and colonel gone; the major walks in
    assert result.final_board[parse_square("E6")] == 8


def test_lightning_ties_go_to_the_attacker() -> None:
    assert replay(lightning({"E5": "r6", "E6": "b6"}, "E5-E6")).outcomes == [1]


def test_lightning_rescue_legal_and_illegal() -> None:
    # Red loses its major to blue's colonel, then its general reaches row 10 and rescues it.
    pieces = {"E8": "r7", "E9": "b8", "D9": "r9", "B2": "b5"}
    moves = "E8-E9 B2-B1 D9-D10"
    rescue = Rescue(parse_square("E4"), 8, "E4", "8")  # code 8 = red major
    record = lightning(pieces, moves, {3: rescue})
    result = replay(record)
    assert result.status is Status.VALID, result.diagnostics
    assert result.rescued == {3: 8}
    assert result.final_board[parse_square("E4")] == 8
    not_back_row = lightning({**pieces, "D9": "r9"}, "E8-E9 B2-B1 D9-C9", {3: rescue})
    assert replay(not_back_row).diagnostics[0].code == "rule.rescue"
    nothing_lost = lightning(pieces, "E8-E9 B2-B1 D9-D10", {3: Rescue(34, 10, "E4", "10")})
    assert "no captured red general" in replay(nothing_lost).diagnostics[0].message
    classic = game(pieces, moves)
    classic.rescues = {3: rescue}
    assert "no rescue" in replay(classic).diagnostics[0].message


# -- the recorded result against the board --------------------------------------------


def test_result_checks() -> None:
    capture = "K8-K9 A10-A9 K9-K10"
    assert replay(game({"K8": "r5"}, capture, result=(1, 1))).status is Status.VALID
    wrong_winner = replay(game({"K8": "r5"}, capture, result=(1, 2)))
    assert [d.code for d in wrong_winner.diagnostics] == ["result.winner"]
    timeout = replay(game({"K8": "r5"}, capture, result=(11, 1)))
    assert [d.code for d in timeout.diagnostics] == ["result.flag"]
    no_capture = replay(game({"K8": "r5"}, "K8-K9", result=(1, 1)))
    assert [d.code for d in no_capture.diagnostics] == ["result.flag"]
    nobody_stuck = replay(game({}, "K1-K2", result=(0, 1)))
    assert [(d.code, d.severity.value) for d in nobody_stuck.diagnostics] == [
        ("result.no_moves", "warning")
    ]


def test_no_legal_move_right_after_own_move() -> None:
    # Blue's last movable piece walks into a bomb: blue has nothing left to move.
    pieces = {"E5": "r5", "E7": "b5", "E6": "rB", "A10": "bB"}
    record = game(pieces, "E5-F5 E7-E6", result=(0, 1))
    result = replay(record)
    assert result.termination is Termination.NO_MOVES and result.winner == 1
    assert result.status is Status.VALID
    assert replay(game(pieces, "E5-F5 E7-E6", result=(0, 2))).diagnostics[0].code == "result.winner"


# -- the command line: strat-tools show and strat-tools rules ------------------------------


@pytest.mark.parametrize("picture", [False, True], ids=["text", "png"])
def test_cli_show_replays_once_and_pushes_nothing(
    fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, picture: bool
) -> None:
    """One replay, then the board at the ply from its own events: the game is not replayed
    a second time nor pushed again on a Position (it was: two replays and a third pass)."""
    import strat_tools.engine.replays.replay as replaying

    calls: list[str] = []

    def counted(record: GameRecord, rules: object = None) -> object:
        calls.append(record.game_id)
        return replay(record, rules)  # type: ignore[arg-type]

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("show pushed a move again")

    monkeypatch.setattr(replaying, "replay", counted)
    monkeypatch.setattr(Position, "push", refused)
    path = str(fixtures_dir / "engine" / "classicfree-2014.4-7.xml")
    extra = ["-o", str(tmp_path / "board.png")] if picture else []
    result = CliRunner().invoke(main, ["show", path, "--ply", "3", *extra])
    assert result.exit_code == 0, result.output
    assert calls == ["classicfree-2014.4-7"]


def test_cli_show_board_after_a_ply(fixtures_dir: Path) -> None:
    path = str(fixtures_dir / "engine" / "classicfree-2014.4-7.xml")
    result = CliRunner().invoke(main, ["show", path, "--ply", "3", "--numbering", "classic"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "classicfree-2014.4-7  ply 3/5  rules gravon-2013"
    assert lines[1:12] == [
        "      A   B   C   D   E   F   G   H   I   K",
        "10  b8   .   .   .   .   .   .   .   .   .",
        " 9  bF   .   .   .   .   .   .   .   .   .",
        " 8   .   .   .   .   .   .   .   .   .   .",
        " 7   .   .   .   .   .   .   .   .   .   .",
        " 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .",
        " 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .",
        " 4  r9   .   .   .   .   .   .   .   .   .",
        " 3   .   .   .   .   .   .   .   .   .  r8!",
        " 2   .   .   .   .   .   .   .   .   .   .+",
        " 1  rF   .   .   .   .   .   .   .   .   .",
    ]
    assert lines[12] == "last move K2-K3: red miner attacks blue scout: attacker wins"
    end = CliRunner().invoke(main, ["show", path])
    assert "red scout attacks blue flag: the flag is captured" in end.stdout
    assert "red captured the flag" in end.stdout


def test_cli_show_errors(fixtures_dir: Path, tmp_path: Path) -> None:
    path = str(fixtures_dir / "engine" / "classicfree-2014.4-7.xml")
    missing = CliRunner().invoke(main, ["show", path, "--game", "classic-2014.1-1"])
    assert missing.exit_code == 2 and "Error: no game classic-2014.1-1" in missing.output
    bad_rules = CliRunner().invoke(main, ["show", path, "--rules", "nope"])
    assert bad_rules.exit_code == 2


def test_cli_rules_lists_rule_sets() -> None:
    result = CliRunner().invoke(main, ["rules", "--format", "csv"])
    assert result.exit_code == 0
    rows = result.stdout.splitlines()
    assert rows[0].startswith("name,two_squares_limit,fallback,scout_clause")
    assert rows[2].startswith("gravon-2013,3,5,True,off,False")


# -- the more-squares (chasing) rule ---------------------------------------------------

RING = ["B4", "B5", "B6", "B7", "C7", "D7", "E7", "E6", "E5", "E4", "D4", "C4"]
"""Squares around the C5-D6 lake, each next to the one before."""


def chase_around_the_lake(laps: int = 2) -> GameRecord:
    """Red's major follows blue's captain round the lake, one square behind."""
    moves = [f"{RING[0]}-{RING[1]}"]
    for step in range(1, 12 * laps):
        blue = f"{RING[(step + 1) % 12]}-{RING[(step + 2) % 12]}"
        red = f"{RING[step % 12]}-{RING[(step + 1) % 12]}"
        moves += [blue, red]
    return game({RING[0]: "r7", RING[2]: "b6"}, " ".join(moves))


def test_chase_that_repeats_a_position_is_reported() -> None:
    record = chase_around_the_lake()
    assert replay(record).status is Status.VALID
    strict = replay(record, "auto+chasing")
    diag = strict.diagnostics[0]
    assert (diag.code, diag.ply, diag.severity.value) == ("rule.chasing", 27, "error")
    assert "chase that began at ply 3" in diag.message
    assert strict.plies_replayed == 26 and strict.status is Status.INVALID
    warned = replay(record, "auto+chasing-warn")
    assert warned.status is Status.VALID
    assert {d.code for d in warned.diagnostics} == {"rule.chasing"}


def test_one_lap_of_a_chase_is_allowed() -> None:
    record = chase_around_the_lake(laps=1)
    assert replay(record, "auto+chasing").status is Status.VALID


# -- the fast loop, Position.check and Position.legal_pairs agree ---------------------------


def random_setup(rng: random.Random, army: tuple[int, ...]) -> list[int]:
    """A random legal setup of ``army`` for both sides (rows 1-4 and 7-10)."""
    board = parse_board(EMPTY_BOARD)
    for side, squares in ((1, list(range(40))), (2, list(range(60, 100)))):
        pieces = [kind for kind, count in enumerate(army) for _ in range(count)]
        for square, kind in zip(rng.sample(squares, len(pieces)), pieces, strict=True):
            board[square] = kind + (1 if side == 1 else 13)
    return board


@pytest.mark.parametrize(
    ("rules", "variant"),
    [
        ("gravon-2013+strict", "classic"),
        ("gravon-2004", "classic"),
        ("classic+aggressor+silent", "classic"),
        ("ultimate-lightning", "ultimate lightning"),
        ("issf", "barrage"),
    ],
)
def test_random_legal_games_replay_identically(rules: str, variant: str) -> None:
    rng = random.Random(f"{rules}/{variant}")
    army = ARMIES[variant]
    for _ in range(12):
        setup = random_setup(rng, army)
        pos = Position(setup, rules)
        sources: list[int] = []
        targets: list[int] = []
        outcomes: list[int] = []
        for _ply in range(400):
            moves = pos.legal_pairs()
            probe = (rng.randrange(100), rng.randrange(100))
            assert (pos.illegal_reason(*probe) is None) == (probe in moves)
            if _ply % 100 == 50:
                own = [s for s in range(100) if CODE_SIDE[pos.board[s]] == pos.side]
                legal = {(s, t) for s in own for t in range(100) if not pos.illegal_reason(s, t)}
                assert legal == set(moves)
            if not moves:
                break
            source, target = rng.choice(moves)
            sources.append(source)
            targets.append(target)
            outcomes.append(pos.push(source, target))
            if pos.winner:
                break
        record = GameRecord(
            source="random",
            variant=variant,
            year=2014,
            setup=tuple(setup),
            sources=sources,
            targets=targets,
        )
        result = replay(record, rules)
        assert [d for d in result.diagnostics if d.code.startswith("rule.")] == []
        assert result.plies_replayed == len(sources)
        assert result.outcomes == outcomes
        assert result.final_board == pos.board
