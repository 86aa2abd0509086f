"""Mistakes in records get one clear error (issue 14, reader and engine side): a deleted move
line is one gap, a hand-built record that cannot be replayed raises a library error, a game
that breaks every two-squares limit is reported where it breaks the loosest, and a zip
member is found by its path."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import strat_tools as st
from strat_tools.cli import main
from strat_tools.core.records import GameRecord, RecordError, Rescue, Status
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay, replay_safely

DATA = Path(__file__).resolve().parent.parent / "data"
GRAVON = Path(__file__).parent / "fixtures" / "gravon"
GAME = (GRAVON / "classic-2014.4-17.xml").read_bytes()


def run(*args: str) -> tuple[int, str]:
    """Exit code and stdout (the data; notes such as "synthetic" go to stderr)."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout


def said(*args: str) -> tuple[int, str]:
    """Exit code and everything the command said (stdout and stderr, as a terminal shows)."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def long_game() -> tuple[str, bytes]:
    """The longest game of data/ (a valid one): its member name and bytes."""
    (archive,) = DATA.glob("*.zip")
    with zipfile.ZipFile(archive) as zipped:
        name = max(zipped.namelist(), key=lambda n: zipped.getinfo(n).file_size)
        return name, zipped.read(name)


def test_one_deleted_move_line_is_one_error(tmp_path: Path) -> None:
    name, data = long_game()
    lines = data.split(b"\n")
    moves = [i for i, line in enumerate(lines) if line.lstrip().startswith(b"<move ")]
    assert len(moves) > 100
    del lines[moves[10]]
    path = tmp_path / Path(name).name
    path.write_bytes(b"\n".join(lines))
    code, out = run("validate", "--format", "json", "--jobs", "1", str(path))
    (game,) = json.loads(out)["games"]
    ids = [d for d in game["diagnostics"] if d["code"] == "move.id"]
    assert [(d["ply"], d["line"]) for d in ids] == [(11, moves[10] + 1)]
    assert "expected 11: 1 id missing (a move line deleted?)" in ids[0]["message"]
    assert code == 1


def hand_built(**fields: object) -> GameRecord:
    record = st.parse_record(GAME, "classic-2014.4-17.xml")
    for name, value in fields.items():
        setattr(record, name, value)
    return record


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"targets": [1, 2]}, "3 move sources but 2 targets"),
        ({"setup": (0,) * 99}, "the setup has 99 squares, not 100"),
        ({"setup": (-1,) * 100}, "a code outside 0..25"),
        ({"sources": [38, 60, "E5"]}, "a move source is not a square"),
        ({"targets": [48, 50, 200]}, "a move target is not a square"),
        ({"rescues": {9: Rescue(5, 3, "F1", "3")}}, "a rescue is recorded at ply 9"),
        ({"lines": [1]}, "3 moves but 1 line numbers"),
    ],
)
def test_replay_of_an_inconsistent_hand_built_record_raises_a_record_error(
    fields: dict[str, object], problem: str
) -> None:
    record = hand_built(**fields)
    with pytest.raises(RecordError, match=re.escape(problem)):
        replay(record)
    # In a batch run the same record is one invalid entry, not a stopped run: refused as
    # inconsistent, or stopped at the first move that is off the board.
    safe = replay_safely(record)
    if safe is None:
        assert record.diagnostics[-1].code == "record.inconsistent"
    else:
        assert safe.status is Status.INVALID
        assert next(d.code for d in safe.diagnostics if d.severity.value == "error") in (
            "rule.off_board",
            "rule.empty_source",
        )


def test_a_setup_code_of_minus_one_never_captures_a_flag() -> None:
    setup = list(hand_built().setup or ())
    setup[53] = -1  # D6, where blue's... nothing stands: a code no board may hold
    with pytest.raises(RecordError, match=r"outside 0\.\.25"):
        replay(hand_built(setup=tuple(setup)))
    with pytest.raises(ValueError, match=r"codes 0\.\.25"):
        Position(setup)


def test_a_lake_mark_on_an_ordinary_square_stops_a_move_in_the_engine() -> None:
    setup = list(hand_built().setup or ())
    setup[48] = 25  # a lake mark on I5; red's first move is I4-I5
    result = replay(hand_built(setup=tuple(setup)))
    assert [(d.code, d.ply) for d in result.diagnostics] == [("rule.lake", 1)]
    assert result.termination is None and result.captured == ([], [])


def added_sixth_move(data: bytes, ply: int, move: bytes) -> bytes:
    """``data`` with ``move`` (``b'F6" target="E6'``) inserted as ply ``ply``; later ids +1."""
    out = []
    for line in data.split(b"\n"):
        found = re.match(rb'(\s*<move id=")(\d+)(".*)', line)
        if found is not None and int(found.group(2)) >= ply:
            if int(found.group(2)) == ply:
                out.append(found.group(1) + str(ply).encode() + b'" source="' + move + b'"/>')
            line = found.group(1) + str(int(found.group(2)) + 1).encode() + found.group(3)
        out.append(line)
    return b"\n".join(out)


def test_a_game_past_every_two_squares_limit_is_reported_where_it_breaks_the_loosest(
    gravon_dir: Path, tmp_path: Path
) -> None:
    # classic-2013.10-2001 was played under the limit of 5: blue's F6/E6 shuffle from ply
    # 208 breaks 3 at ply 214 and keeps 5. A sixth move added at ply 218 breaks 5 too.
    with zipfile.ZipFile(gravon_dir / "strados2013-10.zip") as zipped:
        data = zipped.read("classic-2013.10-2001.xml")
    path = tmp_path / "classic-2013.10-2001.xml"
    path.write_bytes(added_sixth_move(data, 218, b'F6" target="E6'))
    code, out = run("validate", "--format", "json", "--jobs", "1", str(path))
    (game,) = json.loads(out)["games"]
    errors = [d for d in game["diagnostics"] if d["severity"] == "error"]
    assert [(d["code"], d["ply"]) for d in errors] == [("rule.two_squares", 218)]
    assert errors[0]["message"].endswith(
        "illegal under every two-squares limit tried: 3 (first broken at ply 214) and 5"
    )
    assert game["rules"] == "gravon-2013+limit5" and code == 1


def test_show_game_accepts_the_member_path_when_base_names_repeat(tmp_path: Path) -> None:
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a/classic-2014.4-17.xml", GAME)
        archive.writestr("b/classic-2014.4-17.xml", GAME.replace(b'target="I5"', b'target="I6"'))
    code, out = said("show", str(path), "--game", "a/classic-2014.4-17.xml")
    assert code == 0, out
    assert out.startswith("classic-2014.4-17  ply 3/3")
    code, out = said("show", str(path), "--game", "b/classic-2014.4-17")
    assert "ply 2/3" in out and "rule.empty_source" in out
    code, out = said("show", str(path), "--game", "classic-2014.4-17")
    assert code == 2  # an ambiguous --game is a usage error: pick one
    assert "2 games named classic-2014.4-17" in out and "--game a/classic-2014.4-17.xml" in out
