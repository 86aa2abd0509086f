"""Converting between XML and .gsn, and .gsn inputs in every command, mixed with XML.

Inputs are generated games (written by the project's writers) and the hand-written
fixtures of tests/fixtures/gsn; the slow test converts the real archive and back.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.records import GameRecord
from strat_tools.exports.convert import convert
from strat_tools.exports.validate import GameVerdict, verdict_for
from strat_tools.formats.gsn_writer import gsn_file_name, record_to_gsn
from strat_tools.formats.readers import read_records
from strat_tools.formats.xml_writer import record_to_xml, write_games
from strat_tools.generate.games import generate_games

GSN_FIXTURES = Path(__file__).parent / "fixtures" / "gsn"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def games() -> list[GameRecord]:
    """Eight legal generated games: classic, barrage and duell."""
    return list(generate_games(8, variant={"classic": 2, "barrage": 1, "duell": 1}, seed=9))


@pytest.fixture()
def mixed_folder(tmp_path: Path, games: list[GameRecord]) -> Path:
    """Four games as .gsn files, a zip of two more as .gsn, two as XML, and one bad .gsn."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    for game in games[:4]:
        (folder / gsn_file_name(game)).write_bytes(record_to_gsn(game))
    with zipfile.ZipFile(folder / "old-games.zip", "w") as archive:
        for game in games[4:6]:
            archive.writestr(f"2003/{gsn_file_name(game)}", record_to_gsn(game))
    write_games(games[6:], folder / "xml")
    (folder / "classic.2003.06.07.99.gsn").write_bytes((GSN_FIXTURES / "not_gsn.gsn").read_bytes())
    return folder


def test_validate_reads_gsn_files_zips_and_xml_together(
    mixed_folder: Path, games: list[GameRecord]
) -> None:
    code, out, _ = run("validate", str(mixed_folder), "--format", "json", "--jobs", "1")
    assert code == 1
    doc = json.loads(out)
    assert doc["summary"]["games"] == 9
    assert (doc["summary"]["valid"], doc["summary"]["invalid"]) == (8, 1)
    (bad,) = [g for g in doc["games"] if g["status"] == "invalid"]
    assert bad["game_id"] == "classic.2003.06.07.99"
    assert [(d["code"], d["line"]) for d in bad["diagnostics"]] == [("gsn.header", 1)]
    members = [g["member"] for g in doc["games"] if g["member"]]
    assert members == sorted(f"2003/{gsn_file_name(g)}" for g in games[4:6])


def test_every_command_takes_gsn_inputs(mixed_folder: Path, tmp_path: Path) -> None:
    code, out, err = run(
        "export", str(mixed_folder), "-o", str(tmp_path / "t"), "--format", "csv", "--jobs", "1"
    )
    assert code == 0, err
    games_csv = (tmp_path / "t" / "games" / "part-00000.csv").read_text().splitlines()
    assert len(games_csv) == 1 + 9
    code, out, err = run(
        "stats",
        str(mixed_folder),
        "--stat",
        "endings",
        "--format",
        "csv",
        "--jobs",
        "1",
        "--variant",
        "all",
    )
    assert code == 0, err
    header, *rows = out.splitlines()
    assert header.startswith("variant,termination,games,")
    assert sum(int(row.split(",")[2]) for row in rows) == 8  # the unreadable one is no ending
    code, out, err = run("show", str(GSN_FIXTURES / "v1_header.gsn"), "--ply", "5")
    assert code == 0, err
    assert " 6   .! b3  ~~  ~~   .   .  ~~  ~~   .   .\n 5   .+ r3  ~~  ~~" in out
    assert "last move A5-A6: red scout attacks blue scout: both removed" in out


def test_a_zip_of_gsn_files_validates(tmp_path: Path, games: list[GameRecord]) -> None:
    path = tmp_path / "gsn.zip"
    report = convert([str(p) for p in sorted(GSN_FIXTURES.glob("v*.gsn"))], path, to="gsn", run=1)
    assert report.ok and report.written == 2  # no daily names: named after the inputs
    code, out, _ = run("validate", str(path), "--jobs", "1")
    assert code == 0
    assert "2 games in 1 file: 2 valid" in out


def test_convert_to_gsn_and_back_keeps_every_game(
    tmp_path: Path, mixed_folder: Path, games: list[GameRecord]
) -> None:
    code, _, err = run(
        "convert", str(mixed_folder), "--to", "gsn", "-o", str(tmp_path / "g.zip"), "--jobs", "1"
    )
    assert code == 1  # the one unreadable input is not converted
    assert "classic.2003.06.07.99.gsn: not converted: unreadable: line 1 is" in err
    assert "Converted 8 of 9 games" in err
    code, _, err = run("convert", str(tmp_path / "g.zip"), "--to", "xml", "-o", str(tmp_path / "x"))
    assert code == 0, err
    back = {r.game_id: r for r in read_records([tmp_path / "x"])}
    # Every game keeps its id (the join key) through both trips: the six .gsn inputs their
    # daily names, the two XML inputs theirs.
    before = {r.game_id: r for r in read_records([mixed_folder]) if r.readable}
    assert sorted(back) == sorted(before)
    assert {before[i].number for i in back} == {g.number for g in games}
    for game_id, game in before.items():
        again = back[game_id]
        assert (again.setup, again.sources, again.targets, again.result) == (
            game.setup,
            game.sources,
            game.targets,
            game.result,
        )


def test_convert_never_writes_over_or_inside_an_input(tmp_path: Path, mixed_folder: Path) -> None:
    inner = mixed_folder / "out.zip"
    code, _, err = run("convert", str(mixed_folder), "--to", "gsn", "-o", str(inner))
    assert code == 2 and "lies inside the input" in err  # a usage error: nothing ran
    assert not inner.exists()
    code, _, err = run("convert", str(mixed_folder), "--to", "xml", "-o", str(mixed_folder))
    assert code == 2 and "is the input" in err
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    code, _, err = run("convert", str(mixed_folder), "--to", "xml", "-o", str(busy))
    assert code == 3 and "exists and is not an empty folder" in err
    assert sorted(p.name for p in busy.iterdir()) == ["keep.txt"]
    code, _, err = run("convert", str(mixed_folder), "--to", "pgn", "-o", str(tmp_path / "p"))
    assert code == 2 and "'pgn' is not one of 'xml', 'gsn'" in err


def test_convert_reports_games_the_target_cannot_say(
    tmp_path: Path, games: list[GameRecord]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.gsn").write_bytes((GSN_FIXTURES / "bad_lines.gsn").read_bytes())
    (folder / "b.gsn").write_bytes((GSN_FIXTURES / "no_field.gsn").read_bytes())
    report = convert([str(folder)], tmp_path / "out", to="xml", run=1)
    assert report.written == 1 and [f.source for f in report.failed] == [str(folder / "a.gsn")]
    assert "move 2 has no readable square" in report.failed[0].reason
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["b.xml"]


# --- the real archive, to .gsn and back ------------------------------------------------------


def _record_key(record: GameRecord) -> tuple[object, ...]:
    rescues = {p: (r.square, r.piece, r.raw_field) for p, r in record.rescues.items()}
    return (
        record.variant,
        record.year,
        record.month,
        record.number,
        record.setup,
        record.sources,
        record.targets,
        rescues,
        record.players,
        record.result,
        record.readable,
    )


def _verdict_key(verdict: GameVerdict) -> tuple[object, ...]:
    # The XML reader's column-J repair has nothing to repair in a written .gsn file.
    kept = [
        (d.code, d.severity.value, d.ply)
        for d in verdict.diagnostics
        if d.code != "repair.column_j"
    ]
    return verdict.status.value, verdict.rules, verdict.plies, kept


@pytest.mark.slow
@pytest.mark.archive
def test_the_archive_converted_to_gsn_reads_back_the_same(gravon_dir: Path, tmp_path: Path) -> None:
    written = rescued = 0
    for month in sorted(gravon_dir.glob("strados*.zip")):  # month by month: memory stays flat
        out = tmp_path / f"{month.stem}-gsn.zip"
        report = convert([str(month)], out, to="gsn", run=1)
        assert report.ok, report.failed[:3]
        written += report.written
        xml = {(r.variant, r.year, r.month, r.number): r for r in read_records([month])}
        assert len(xml) == report.written
        with zipfile.ZipFile(month) as archive:
            for again in read_records([out]):
                original = xml.pop((again.variant, again.year, again.month, again.number))
                assert again.game_id == original.game_id  # the id is kept through the trip
                assert _record_key(again) == _record_key(original), again.game_id
                assert _verdict_key(verdict_for(again)) == _verdict_key(verdict_for(original))
                rescued += len(again.rescues)
                if not any(d.code == "repair.column_j" for d in original.diagnostics):
                    # and back to XML: byte for byte the archive's file
                    assert record_to_xml(again) == archive.read(original.member or ""), (
                        again.game_id
                    )
        assert not xml
        out.unlink()
    assert written == 13980
    assert rescued > 0
