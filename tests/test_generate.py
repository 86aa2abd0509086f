"""Tests for strat_tools.generate.games: human-like setups, a sensible policy, valid games."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from strat_tools.core.board import NEIGHBOURS, Side, from_owner_view, parse_square
from strat_tools.core.diagrams import parse_board, render_board
from strat_tools.core.pieces import ARMIES, PieceKind
from strat_tools.core.records import Result, Status, Termination
from strat_tools.core.rules import RULESETS
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import parse_record, read_records
from strat_tools.formats.xml_writer import (
    archive_name,
    game_file_name,
    record_to_xml,
    write_files,
    write_games,
)
from strat_tools.generate.games import (
    GenerationError,
    generate_files,
    generate_game,
    generate_games,
    verify_game,
)
from strat_tools.generate.play import Policy, SeenPieces, choose_move
from strat_tools.generate.setups import SETUP_MODELS, draw_setup, setup_field
from strat_tools.run.options import Run

VARIANTS = ("classic", "barrage", "duell")
ROOT = Path(__file__).resolve().parent.parent
CALM = Policy(noise=0.0)
"""The policy without its random whims, for tests of what it prefers."""


def _setups(variant: str, n: int, seed: int = 5) -> list[list[int]]:
    rng = random.Random(seed)
    return [draw_setup(SETUP_MODELS[variant], rng) for _ in range(n)]


# -- setups ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_holds_exactly_the_army(variant: str) -> None:
    for area in _setups(variant, 200):
        counts = Counter(k for k in area if k >= 0)
        assert [counts[k] for k in range(12)] == list(ARMIES[variant])


def test_classic_flag_mostly_on_back_row_and_not_uniform() -> None:
    setups = _setups("classic", 2000)
    flag_rows = Counter(area.index(PieceKind.FLAG) // 10 + 1 for area in setups)
    back = flag_rows[1] / len(setups)
    assert 0.83 <= back <= 0.93  # uniform placement would give 0.25
    assert flag_rows[4] / len(setups) < 0.03


def test_classic_bombs_guard_the_flag_and_strong_pieces_stand_forward() -> None:
    setups = _setups("classic", 2000)
    guarded = 0
    front = Counter()
    back = Counter()
    for area in setups:
        flag = area.index(PieceKind.FLAG)
        row, col = divmod(flag, 10)
        around = [
            (row + dr) * 10 + col + dc
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= row + dr < 4 and 0 <= col + dc < 10
        ]
        guarded += any(area[sq] == PieceKind.BOMB for sq in around)
        for index, kind in enumerate(area):
            (front if index >= 20 else back)[kind] += 1
    # Six bombs among 39 other squares would touch the flag in well under half the setups.
    assert guarded / len(setups) > 0.75
    for kind in (PieceKind.MARSHAL, PieceKind.GENERAL, PieceKind.SCOUT):
        assert front[kind] > 1.3 * back[kind], kind
    assert back[PieceKind.MINER] > 2 * front[PieceKind.MINER]


@pytest.mark.parametrize("variant", ["barrage", "duell"])
def test_small_armies_flag_back_and_pieces_in_open_lanes(variant: str) -> None:
    setups = _setups(variant, 2000)
    back = sum(area.index(PieceKind.FLAG) < 10 for area in setups) / len(setups)
    assert back > 0.65
    # Columns 3-4 and 7-8 (behind the lakes) hold few of the movable pieces.
    lanes = Counter(index % 10 + 1 for area in setups for index, k in enumerate(area) if k > 0)
    behind_lakes = sum(lanes[c] for c in (3, 4, 7, 8)) / sum(lanes.values())
    assert behind_lakes < 0.2  # 0.4 if the columns were equal


def test_setup_field_turns_blue_by_180_degrees() -> None:
    red = [-1] * 40
    blue = [-1] * 40
    red[0] = blue[0] = PieceKind.FLAG  # back row, owner's left
    red[39] = blue[39] = PieceKind.MARSHAL  # front row, owner's right
    board = setup_field(red, blue)
    assert render_board(board) == (
        "      A   B   C   D   E   F   G   H   I   K\n"
        "10   .   .   .   .   .   .   .   .   .  bF\n"
        " 9   .   .   .   .   .   .   .   .   .   .\n"
        " 8   .   .   .   .   .   .   .   .   .   .\n"
        " 7 b10   .   .   .   .   .   .   .   .   .\n"
        " 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .\n"
        " 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .\n"
        " 4   .   .   .   .   .   .   .   .   . r10\n"
        " 3   .   .   .   .   .   .   .   .   .   .\n"
        " 2   .   .   .   .   .   .   .   .   .   .\n"
        " 1  rF   .   .   .   .   .   .   .   .   .\n"
    ).rstrip("\n")
    assert board[from_owner_view(1, 1, Side.BLUE)] == PieceKind.FLAG + 13


# -- policy ----------------------------------------------------------------------------


def _position(diagram: str) -> Position:
    return Position(parse_board(diagram), RULESETS["gravon-2013"])


FIGHT = """
      A   B   C   D   E   F   G   H   I   K
10   bF  bB   .   .   .   .   .   .   .   .
 9   bB   .   .   .   .   .   .   .   .   .
 8    .   .   .   .   .   .   .   .   .   .
 7    .   .   .   .  b7   .   .   .   .  b3
 6    .   .  ~~  ~~  r9   .  ~~  ~~   .   .
 5    .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4    .   .   .   .   .   .   .   .   .   .
 3    .   .   .   .   .   .   .   .   .   .
 2    .   .   .   .   .   .   .   .   .  rB
 1    .   .   .   .   .   .   .   .  rB  rF
"""


def test_policy_takes_a_known_weaker_piece() -> None:
    position = _position(FIGHT)
    know = SeenPieces()
    know.revealed[parse_square("E7")] = know.moved[parse_square("E7")] = True
    move = choose_move(position, know, position.reference_pairs(), random.Random(1), CALM)
    assert move == (parse_square("E6"), parse_square("E7"))


def test_policy_backs_away_from_a_known_stronger_piece() -> None:
    position = _position(FIGHT.replace("r9", "r5"))
    know = SeenPieces()
    for name in ("E6", "E7"):
        know.revealed[parse_square(name)] = know.moved[parse_square(name)] = True
    source, target = choose_move(position, know, position.reference_pairs(), random.Random(1), CALM)
    assert source == parse_square("E6")
    assert target != parse_square("E7")
    assert parse_square("E7") not in NEIGHBOURS[target]


def test_knowledge_follows_pieces_and_battles() -> None:
    position = _position(FIGHT)
    know = SeenPieces()
    e6, e7, e5 = parse_square("E6"), parse_square("E7"), parse_square("E5")
    position.push(e6, e5)
    know.observe(e6, e5, 0, 0, position.board)
    assert know.moved[e5] and not know.revealed[e5] and not know.moved[e6]
    position.push(parse_square("K7"), parse_square("K6"))
    position.push(e5, e6)
    position.push(parse_square("K6"), parse_square("K7"))
    defender = position.board[e7]
    outcome = position.push(e6, e7)
    know.observe(e6, e7, defender, outcome, position.board)
    assert know.revealed[e7] and know.moved[e7]


# -- games -----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_generated_games_replay_valid_and_end_properly(variant: str) -> None:
    for record in generate_games(12, variant=variant, seed=3):
        checked = replay(parse_record(record_to_xml(record), game_file_name(record)))
        assert checked.status is Status.VALID, [str(d) for d in checked.diagnostics]
        assert record.result is not None
        ending = record.result.termination
        assert ending in (
            Termination.FLAG_CAPTURED,
            Termination.NO_MOVES,
            Termination.RESIGNED,
            Termination.BOTH_NO_MOVES,
        )
        if ending in (Termination.FLAG_CAPTURED, Termination.NO_MOVES):
            assert checked.termination is ending
            assert checked.winner == record.result.winner
        assert record.variant == variant and record.month == 11 and record.year == 2026


def test_classic_games_last_hundreds_of_moves() -> None:
    plies = sorted(r.plies for r in generate_games(30, seed=11))
    median = plies[len(plies) // 2]
    assert 120 <= median <= 800
    assert plies[-1] < 3000


def test_same_seed_same_bytes_other_seed_other_games(tmp_path: Path) -> None:
    a, b, c = (tmp_path / name for name in ("a.zip", "b.zip", "c.zip"))
    mix = {"classic": 3, "barrage": 1, "duell": 1}
    write_games(generate_games(8, variant=mix, seed=42), a)
    write_games(generate_games(8, variant=mix, seed=42), b)
    write_games(generate_games(8, variant=mix, seed=43), c)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_worker_processes_give_the_same_bytes(tmp_path: Path) -> None:
    mix = {"classic": 2, "duell": 1}
    write_games(generate_games(24, variant=mix, seed=8), tmp_path / "serial.zip")
    done: list[int] = []
    files = generate_files(24, variant=mix, seed=8, run=Run(jobs=2, progress=done.append))
    assert write_files(files, tmp_path / "parallel.zip") == 24
    assert sum(done) == 24
    assert (tmp_path / "serial.zip").read_bytes() == (tmp_path / "parallel.zip").read_bytes()


def test_game_depends_on_its_number_not_on_the_games_before() -> None:
    alone = generate_game(5, "classic", 9)
    in_run = list(generate_games(5, seed=9))[-1]
    assert (alone.setup, alone.sources, alone.result) == (
        in_run.setup,
        in_run.sources,
        in_run.result,
    )


def test_mix_of_variants_and_numbering() -> None:
    games = list(generate_games(40, variant={"classic": 1, "barrage": 1}, seed=2, first_number=100))
    assert {g.variant for g in games} == {"classic", "barrage"}
    assert [g.number for g in games] == list(range(100, 140))
    assert len({g.game_id for g in games}) == 40


def test_move_cap_ends_in_resignation_or_draw() -> None:
    record = generate_game(1, "classic", 4, max_plies=40)
    assert record.plies == 40
    assert record.result is not None
    assert record.result.type in (Termination.RESIGNED, Termination.DRAW_AGREED)
    verify_game(record)


def test_verify_game_catches_a_broken_game() -> None:
    record = generate_game(2, "barrage", 4)
    assert record.result is not None and record.result.type != Termination.FLAG_CAPTURED
    record.result = Result(int(Termination.FLAG_CAPTURED), 1)
    with pytest.raises(GenerationError, match=r"not valid: .*result\.flag"):
        verify_game(record)


def test_verify_game_refuses_warnings_too() -> None:
    record = generate_game(2, "barrage", 4)
    record.result = Result(int(Termination.BOTH_NO_MOVES), 3)  # a side can still move
    with pytest.raises(GenerationError, match=r"result\.no_moves"):
        verify_game(record)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="is a known variant, but generate covers"):
        list(generate_games(1, variant="ultimate lightning"))
    with pytest.raises(ValueError, match="month"):
        list(generate_games(1, month=0))
    with pytest.raises(ValueError, match=">= 0"):
        list(generate_games(-1))


def test_written_month_archive_keeps_period(tmp_path: Path) -> None:
    out = tmp_path / archive_name(2026, 11)
    write_games(generate_games(4, variant="duell", seed=1), out)
    again = list(read_records([str(out)]))
    assert [(r.year, r.month, r.variant) for r in again] == [(2026, 11, "duell")] * 4


# -- command line ----------------------------------------------------------------------


def test_cli_generate_writes_a_zip(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    out = tmp_path / "strados2026-10.zip"
    args = ["generate", "-n", "4", "-o", str(out), "--seed", "5", "--variant", "barrage=1,duell=1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Wrote 4 synthetic games to" in result.stderr
    assert result.stdout == ""
    again = list(read_records([str(out)]))
    assert len(again) == 4 and {g.variant for g in again} <= {"barrage", "duell"}
    expected = generate_games(4, variant={"barrage": 1, "duell": 1}, seed=5)
    assert sorted(g.game_id for g in again) == sorted(g.game_id for g in expected)


def test_cli_generate_refuses_unknown_variant(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    result = CliRunner().invoke(
        main, ["generate", "-n", "1", "-o", str(tmp_path / "x.zip"), "--variant", "chess"]
    )
    assert result.exit_code == 2  # a usage error
    assert "cannot generate variant 'chess'; expected classic, barrage, duell" in (result.stderr)
    assert not (tmp_path / "x.zip").exists()


@pytest.mark.slow
def test_shipped_sample_is_what_the_command_makes(tmp_path: Path) -> None:
    """data/README.md names the command that made data/; running it must give the same bytes."""
    import shlex

    from click.testing import CliRunner

    from strat_tools.cli import main

    repo = Path(__file__).resolve().parent.parent
    readme = (repo / "data" / "README.md").read_text(encoding="utf-8")
    block = readme.split("## How it was made", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    args = shlex.split(block.replace("\\\n", " "))
    assert args[:2] == ["strat-tools", "generate"]
    out_index = args.index("-o") + 1
    shipped = repo / args[out_index]
    args[out_index] = str(tmp_path / shipped.name)
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    # Compare digests, never the raw bytes: on a mismatch pytest would diff two large byte
    # strings with difflib, which is quadratic (minutes and gigabytes).
    made = _member_digests(tmp_path / shipped.name)
    ships = _member_digests(shipped)
    names = made.keys() | ships.keys()
    differing = sorted(name for name in names if made.get(name) != ships.get(name))
    assert not differing, (
        f"{len(differing)} games differ from the shipped sample (first: {differing[0]}); "
        "rerun the command in data/README.md and commit the new zip"
    )
    assert _digest((tmp_path / shipped.name).read_bytes()) == _digest(shipped.read_bytes())
    assert shipped.stat().st_size < 2_000_000


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _member_digests(path: Path) -> dict[str, str]:
    import zipfile

    with zipfile.ZipFile(path) as archive:
        return {name: _digest(archive.read(name)) for name in archive.namelist()}


# --- generated games say so (issue 14) ------------------------------------------------------


def test_generated_files_carry_the_synthetic_mark_both_readers_see() -> None:
    from strat_tools.core.records import SYNTHETIC_MARK
    from strat_tools.formats import fastscan

    record = next(iter(generate_games(1, seed=7)))
    assert record.synthetic
    data = record_to_xml(record)
    assert data.splitlines()[1] == SYNTHETIC_MARK
    assert fastscan.scan(data) is not None  # the fast path still takes it
    fast, strict = parse_record(data, "a.xml"), parse_record(data, "a.xml", fast=False)
    assert fast.synthetic and strict.synthetic
    assert fast.diagnostics == strict.diagnostics == []
    assert fast.lines == strict.lines and fast.lines[0] == 7  # line numbers still true
    assert record_to_xml(fast) == data  # the mark survives a rewrite
    unmarked = data.replace(SYNTHETIC_MARK + b"\n", b"")
    assert not parse_record(unmarked, "a.xml").synthetic
    assert not parse_record(unmarked, "a.xml", fast=False).synthetic


@pytest.mark.slow
def test_commands_say_when_they_show_synthetic_games(tmp_path: Path) -> None:
    import matplotlib
    from click.testing import CliRunner

    from strat_tools.cli import main
    from strat_tools.run.driver import read_games

    archive = tmp_path / "strados2026-10.zip"
    write_games(generate_games(12, seed=8), archive)
    assert read_games(archive, setups_only=True, run=1).games["synthetic"].all()
    runner = CliRunner()
    stats = runner.invoke(main, ["stats", str(archive), "-j", "1"])
    assert stats.exit_code == 0
    assert "Note: 12 of 12 games read are synthetic (made by strat-tools generate)" in (
        stats.stderr
    )
    out = tmp_path / "flag.svg"
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        heat = runner.invoke(main, ["heatmap", str(archive), "-o", str(out), "-j", "1"])
    assert heat.exit_code == 0 and "12 synthetic games" in out.read_text()
    report = tmp_path / "r.md"
    made = runner.invoke(main, ["report", str(archive), "-o", str(report), "--setups-only"])
    assert made.exit_code == 0, made.stderr
    assert "12 games of 12 are synthetic: made by strat-tools generate" in report.read_text()


def test_the_shipped_sample_is_marked_synthetic() -> None:
    import zipfile

    from strat_tools.core.records import SYNTHETIC_MARK

    with zipfile.ZipFile(ROOT / "data" / "strados2026-10.zip") as archive:
        first = archive.read(archive.namelist()[0])
    assert first.splitlines()[1] == SYNTHETIC_MARK
