"""Nothing printed can fool a person or a program: names escaped on the terminal and in
pipes, no raw HTML in reports, no formulas in CSV, no mathtext in figure titles, valid JSON
or nothing on stdout when a run fails, and an exit code of its own for that failure.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.text import (
    csv_cell,
    markdown_text,
    printable,
    printable_lines,
    restore_csv_cell,
)
from strat_tools.formats.xml_writer import record_to_xml, write_games
from strat_tools.generate.games import generate_games
from strat_tools.tables.dataset import read_dataset

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"

FORGED = "classic-2014.5-1\x1b[2J\x1b[H\r1000 games in 1 file: 1000 valid\u202e.xml"
"""A file name that clears the screen and forges a summary line, with a right-to-left
override for good measure."""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_printable_escapes_every_control_character_visibly() -> None:
    for code in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x202E, 0x2066, 0x200B, 0xFEFF]:
        text = printable(f"a{chr(code)}b")
        assert text.startswith("a\\") and text.endswith("b") and text.isprintable(), hex(code)
    assert printable(FORGED) == (
        "classic-2014.5-1\\x1b[2J\\x1b[H\\r1000 games in 1 file: 1000 valid\\u202e.xml"
    )
    assert printable("caf\udce9.xml") == "caf\\xe9.xml"  # a non-UTF-8 byte in a name
    assert printable_lines("one\ntwo\r") == "one\ntwo\\r"
    assert printable("Überall – ok.xml") == "Überall – ok.xml"


def _no_control(text: str) -> None:
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text, text


def test_a_forged_file_name_reaches_no_terminal_raw(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / FORGED).write_bytes(b"<?xml version='1.0'?><stratego><game")  # truncated
    code, out, err = run("validate", str(folder), "--jobs", "1")
    assert code == 1
    _no_control(out)
    _no_control(err)
    assert "\\x1b[2J" in out
    code, out, err = run("show", str(folder / FORGED))
    _no_control(out + err)
    for fmt in ("table", "csv"):
        code, out, err = run("stats", str(folder), "--stat", "endings", "--format", fmt)
        _no_control(out + err)


def test_formula_cells_are_neutralised_and_numbers_stay_numbers() -> None:
    assert [csv_cell(v) for v in ("=1+1", "+1+1", "-1+1", "@SUM(A1)", "\tx", "\rx")] == [
        "'=1+1",
        "'+1+1",
        "'-1+1",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
    ]
    assert [csv_cell(v) for v in ("-3", "+4.5", "-1e3", -3, 2.5, "plain")] == [
        "-3",
        "+4.5",
        "-1e3",
        -3,
        2.5,
        "plain",
    ]
    for text in ("=x", "'=x", "''", "'", "-3", "plain"):
        assert restore_csv_cell(csv_cell(text)) == text


def _zip_with_member_names(path: Path, names: list[str]) -> Path:
    record = next(iter(generate_games(1, seed=4)))
    data = record_to_xml(record)
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(name, data)
    return path


def test_validate_csv_defuses_formula_names(tmp_path: Path) -> None:
    names = ['=HYPERLINK("http://x","y").xml', "-2+3.xml", "@cmd.xml"]
    archive = _zip_with_member_names(tmp_path / "strados2026-10.zip", names)
    code, out, err = run("validate", str(archive), "--format", "csv", "--jobs", "1")
    assert code == 0, err
    members = [row["member"] for row in csv.DictReader(io.StringIO(out))]
    assert sorted(members) == sorted("'" + name for name in names)
    assert all(row["plies"].lstrip("-").isdigit() for row in csv.DictReader(io.StringIO(out)))


def _record_with_players(players: tuple[str, str], number: int) -> Any:
    record = next(iter(generate_games(1, seed=5)))
    return dataclasses.replace(record, players=players, number=number)


def test_export_csv_defuses_formulas_and_reads_back_the_exact_names(tmp_path: Path) -> None:
    names = ["=cmd|calc!A0.xml", "-5.xml", "'quoted.xml", "+SUM(1).xml"]
    archive = _zip_with_member_names(tmp_path / "strados2026-10.zip", names)
    out = tmp_path / "tables"
    code, _, err = run("export", str(archive), "-o", str(out), "--format", "csv", "--jobs", "1")
    assert code == 0, err
    text = (out / "games" / "part-00000.csv").read_text()
    assert '"\'=cmd|calc!A0.xml"' in text and '"\'-5.xml"' in text and '"-5"' in text
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "-")) or cell.lstrip("-").isdigit(), cell
    assert sorted(read_dataset(out).games["member"]) == sorted(names)


def _hostile_records(folder: Path) -> Path:
    folder.mkdir()
    record = _record_with_players(("<script>alert(1)</script>", "<img src=x onerror=alert(2)>"), 9)
    (folder / "<img src=x onerror=alert(3)>.xml").write_bytes(record_to_xml(record))
    bad_type = record_to_xml(record).replace(b'type="classic"', b'type="&lt;script&gt;x"')
    (folder / "classic-2026.9-10.xml").write_bytes(bad_type)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".md", ".html"])
def test_reports_copy_no_raw_html_from_game_files(tmp_path: Path, suffix: str) -> None:
    folder = _hostile_records(tmp_path / "records")
    out = tmp_path / f"report{suffix}"
    code, _, err = run("report", str(folder), "-o", str(out), "--setups-only", "--jobs", "1")
    assert code == 0, err
    text = out.read_text()
    assert (
        "<script" not in text
        and "<img src=x" not in text
        and "onerror=alert" not in text.replace("&lt;img src=x onerror=alert", "")
    )


def test_markdown_text_keeps_text_text() -> None:
    assert (
        markdown_text("<b>&</b> [x](javascript:y)")
        == "&lt;b&gt;&amp;&lt;/b&gt; \\[x\\](javascript:y)"
    )


def test_a_folder_name_is_never_parsed_as_mathtext(tmp_path: Path) -> None:
    folder = tmp_path / "m$\\bogus{$"
    folder.mkdir()
    write_games(generate_games(12, seed=6), folder / "strados2026-10.zip")
    code, _, err = run("heatmap", str(folder), "-o", str(tmp_path / "x.svg"), "--jobs", "1")
    assert code == 0, err
    code, _, err = run(
        "heatmap",
        str(folder),
        "--moves",
        "target",
        "--piece",
        "scout",
        "-o",
        str(tmp_path / "y.png"),
        "--jobs",
        "1",
    )
    assert code == 0, err


def test_a_failed_json_run_leaves_valid_json_and_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    # the module that writes the document (write_validation), where the verdicts come in
    validate = importlib.import_module("strat_tools.exports.validation_stream")
    real = validate.iter_verdicts

    def fail_after_one(*args: Any, **kwargs: Any) -> Iterator[Any]:
        verdicts = real(*args, **kwargs)
        yield next(verdicts)
        raise OSError("disk gone")

    monkeypatch.setattr(validate, "iter_verdicts", fail_after_one)
    code, out, err = run("validate", str(DATA), "--format", "json", "--jobs", "1")
    assert code == 3 and "Error: disk gone" in err
    doc = json.loads(out)
    assert len(doc["games"]) == 1 and doc["error"] == "disk gone" and "summary" not in doc


def test_every_csv_table_defuses_formulas_and_keeps_numbers() -> None:
    import pandas as pd

    from strat_tools.cli.render import render

    out = io.StringIO()
    frame = pd.DataFrame({"name": ["=1+1", "-2", "ok"], "count": [-1, 2, 3]})
    render(frame, "csv", out)
    assert out.getvalue().splitlines() == ["name,count", "'=1+1,-1", "-2,2", "ok,3"]
