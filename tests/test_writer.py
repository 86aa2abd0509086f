"""Tests for strat_tools.formats.xml_writer: Gravon's exact bytes, round trips, file names, atomic
writes."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from strat_tools.core.board import parse_square
from strat_tools.core.records import GameRecord, Rescue, Result
from strat_tools.formats.readers import parse_record, read_records
from strat_tools.formats.xml_writer import (
    archive_name,
    game_file_name,
    record_to_xml,
    write_files,
    write_games,
)
from strat_tools.io.output import write_file_atomically

WRITER = Path(__file__).resolve().parent / "fixtures" / "writer"


def _read(name: str) -> tuple[bytes, GameRecord]:
    data = (WRITER / name).read_bytes()
    return data, parse_record(data, name)


def _game(number: int, *, month: int = 11, variant: str = "classic") -> GameRecord:
    """A small record with a setup and two moves (legality is not the writer's business)."""
    _, base = _read("short_classic.xml")
    return GameRecord(
        source="made-by-hand",
        variant=variant,
        year=2026,
        month=month,
        number=number,
        setup=base.setup,
        sources=[parse_square("I4"), parse_square("E7")],
        targets=[parse_square("I7"), parse_square("E4")],
        players=("Player 1", "Player 2"),
        result=Result(3, 1 + number % 2),
    )


def _same_game(a: GameRecord, b: GameRecord) -> bool:
    return (a.variant, a.setup, a.sources, a.targets, a.rescues, a.players, a.result) == (
        b.variant,
        b.setup,
        b.sources,
        b.targets,
        b.rescues,
        b.players,
        b.result,
    )


@pytest.mark.parametrize("name", ["short_classic.xml", "no_field.xml"])
def test_rewrites_fixture_byte_for_byte(name: str) -> None:
    data, record = _read(name)
    assert record_to_xml(record) == data


def test_layout_of_a_hand_built_record() -> None:
    record = GameRecord(
        "x.xml",
        variant="barrage",
        setup=(0,) * 40 + (0, 0, 25, 25, 0, 0, 25, 25, 0, 0) * 2 + (0,) * 40,
        sources=[parse_square("A4"), parse_square("K7")],
        targets=[parse_square("A5"), parse_square("K10")],
        players=("Player 1", "Player 2"),
        result=Result(1, 2),
    )
    field = "A" * 40 + "AA__AA__AA" * 2 + "A" * 40
    assert record_to_xml(record).decode() == (
        '<?xml version="1.0" encoding="UTF-8"?>\n<stratego>\n <game type="barrage">\n  \n'
        f'  <field content="{field}"/>\n'
        '  <move id="1" source="A4" target="A5"/>\n'
        '  <move id="2" source="K7" target="K:"/>\n'
        '  <player id="1">Player 1</player>\n  <player id="2">Player 2</player>\n'
        '  <result type="1" winner="2"/>\n </game>\n</stratego>'
    )


def test_rescue_quirk_only_on_request() -> None:
    data, record = _read("rescue_with_column_j.xml")
    assert record.rescues[2] == Rescue(parse_square("E4"), 9, "E4", "9")
    assert record_to_xml(record, gravon_quirks=True) == data
    fixed = record_to_xml(record).decode()
    rescue = '<rescue rescuefield="E4" rescuepiece="9"/>'
    assert f'<move id="2" source="K9" target="K:">   {rescue}' in fixed
    assert 'source="J' not in fixed and 'target="J' not in fixed
    again = parse_record(fixed.encode(), "rescue.xml")
    assert _same_game(again, record)
    assert not [d for d in again.diagnostics if d.code == "repair.column_j"]


def test_round_trip_through_the_reader() -> None:
    record = _game(17)
    again = parse_record(record_to_xml(record), game_file_name(record))
    assert _same_game(again, record)
    assert (again.year, again.month, again.number) == (2026, 11, 17)
    assert again.lines == [6, 7]
    assert not again.errors


def test_names_player_markup_escaped() -> None:
    record = _game(1)
    record.players = ("R&D <1>", "Player 2")
    text = record_to_xml(record)
    assert b'<player id="1">R&amp;D &lt;1&gt;</player>' in text
    assert parse_record(text, "classic-2026.10-1.xml").players == ("R&D <1>", "Player 2")


def test_unreadable_square_is_refused() -> None:
    record = _game(1)
    record.targets[1] = -1
    with pytest.raises(ValueError, match="move 2 has no readable square"):
        record_to_xml(record)


def test_file_and_archive_names_count_months_from_zero() -> None:
    assert game_file_name(_game(17, month=11)) == "classic-2026.10-17.xml"
    assert game_file_name(_game(3, month=1, variant="duell")) == "duell-2026.0-3.xml"
    assert archive_name(2026, 11) == "strados2026-10.zip"
    assert archive_name(2014, 1) == "strados2014-0.zip"
    with pytest.raises(ValueError, match="number"):
        game_file_name(GameRecord("x.xml", variant="classic", year=2026, month=1))
    with pytest.raises(ValueError, match="month"):
        archive_name(2026, 13)


def test_write_folder_one_file_per_game(tmp_path: Path) -> None:
    games = [_game(n) for n in (1, 2, 10)]
    assert write_games(iter(games), tmp_path / "out") == 3
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["classic-2026.10-1.xml", "classic-2026.10-10.xml", "classic-2026.10-2.xml"]
    again = list(read_records([str(tmp_path / "out")]))
    assert sorted(r.number or 0 for r in again) == [1, 2, 10]
    for record in again:
        assert _same_game(record, _game(record.number or 0))
        assert record.month == 11


def test_write_zip_reads_back_with_period(tmp_path: Path) -> None:
    out = tmp_path / archive_name(2026, 11)
    assert write_games([_game(n) for n in range(1, 6)], out) == 5
    with zipfile.ZipFile(out) as archive:
        assert archive.namelist() == [f"classic-2026.10-{n}.xml" for n in range(1, 6)]
        assert archive.testzip() is None
    again = list(read_records([str(out)]))
    assert [r.game_id for r in again] == [f"classic-2026.10-{n}" for n in range(1, 6)]
    assert all(_same_game(a, _game(a.number or 0)) and a.month == 11 for a in again)


def test_zip_is_reproducible(tmp_path: Path) -> None:
    write_games([_game(n) for n in range(1, 4)], tmp_path / "a.zip")
    write_games([_game(n) for n in range(1, 4)], tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_failed_zip_leaves_old_archive_and_no_temp_file(tmp_path: Path) -> None:
    out = tmp_path / "games.zip"
    write_games([_game(1)], out)
    before = out.read_bytes()
    with pytest.raises(ValueError, match=re.escape("both be written as 'classic-2026.10-2.xml'")):
        write_games([_game(2), _game(3), _game(2)], out)
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["games.zip"]


def test_zip_flag_overrides_suffix(tmp_path: Path) -> None:
    out = tmp_path / "archive.bin"
    write_games([_game(1)], out, zip=True)
    assert zipfile.is_zipfile(out)
    write_games([_game(1)], tmp_path / "folder.zip", zip=False)
    assert (tmp_path / "folder.zip" / "classic-2026.10-1.xml").is_file()


def test_write_file_atomically_replaces_whole(tmp_path: Path) -> None:
    path = tmp_path / "x.xml"
    path.write_bytes(b"old")
    write_file_atomically(path, b"new")
    assert path.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["x.xml"]


# Both eras, rescue moves with column J (2014-2) and the one game without a field (2014-9).
ARCHIVE_SAMPLE = ("strados2004-11.zip", "strados2014-2.zip", "strados2014-9.zip")


@pytest.mark.archive
@pytest.mark.parametrize("zip_name", ARCHIVE_SAMPLE)
def test_rewrites_real_archive_byte_for_byte(gravon_dir: Path, zip_name: str) -> None:
    path = gravon_dir / zip_name
    if not path.is_file():
        pytest.skip(f"{zip_name} not in {gravon_dir}")
    differ = []
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            record = parse_record(data, str(path), name)
            if record_to_xml(record, gravon_quirks=True) != data:
                differ.append(name)
    assert differ == []


def test_round_trip_of_arbitrary_records() -> None:
    """Any record the format can hold reads back the same, whatever its (il)legality."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    squares = st.integers(0, 99)
    records = st.builds(
        lambda variant, setup, moves, result, number: GameRecord(
            "x.xml",
            variant=variant,
            year=2026,
            month=11,
            number=number,
            setup=None if setup is None else tuple(setup),
            sources=[s for s, _ in moves],
            targets=[t for _, t in moves],
            players=("Player 1", "Player 2"),
            result=result,
        ),
        st.sampled_from(["classic", "barrage", "duell", "classicfree"]),
        st.none() | st.lists(st.integers(0, 25), min_size=100, max_size=100),
        st.lists(st.tuples(squares, squares), max_size=30),
        st.builds(Result, st.sampled_from([0, 1, 2, 3, 4, 10, 14]), st.integers(1, 3)),
        st.integers(0, 99999),
    )

    @settings(max_examples=150, deadline=None)
    @given(records)
    def check(record: GameRecord) -> None:
        data = record_to_xml(record)
        again = parse_record(data, game_file_name(record))
        assert _same_game(again, record)
        assert record_to_xml(again) == data

    check()


@pytest.mark.parametrize("name", ["../evil.xml", "sub/x.xml", ".hidden.xml", ""])
def test_write_files_refuses_names_that_leave_the_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="not a plain file name"):
        write_files([(name, b"<stratego/>")], tmp_path / "out")
    with pytest.raises(ValueError, match="not a plain file name"):
        write_files([(name, b"<stratego/>")], tmp_path / "out.zip")
    assert not (tmp_path / "out.zip").exists()
    assert not (tmp_path / "evil.xml").exists()
