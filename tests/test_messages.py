"""Messages say the right unit and count (issue 25, points 23, 24, 28): validate says the
games are synthetic as every command does, export counts setups as setups, and every count
has thousands separators."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.exports.convert import ConvertReport
from strat_tools.formats.xml_writer import write_games
from strat_tools.generate.games import generate_games
from strat_tools.tables.dataset_writer import ExportSummary


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def synthetic_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    write_games(list(generate_games(3, seed=4)), folder)
    return folder


def test_validate_says_the_games_are_synthetic_in_text_and_json(tmp_path: Path) -> None:
    folder = synthetic_folder(tmp_path)
    code, out, err = run("validate", str(folder), "--jobs", "1")
    assert code == 0
    assert "Note: 3 of 3 games read are synthetic (made by strat-tools generate)" in err
    code, out, err = run("validate", str(folder), "--format", "json", "--jobs", "1")
    assert code == 0 and json.loads(out)["summary"]["synthetic"] == 3
    assert "synthetic" in err


def test_export_counts_setups_as_setups_not_piece_rows(tmp_path: Path) -> None:
    folder = synthetic_folder(tmp_path)
    code, _, err = run("export", str(folder), "-o", str(tmp_path / "out"), "--jobs", "1")
    assert code == 0, err
    assert "setup pieces (6 setups)" in err
    assert " setups," not in err.replace("(6 setups),", "")


def test_counts_in_summary_lines_have_thousands_separators() -> None:
    report = ConvertReport(out="x.zip", to="gsn", written=1013, dropped=1012)
    assert report.line() == (
        "converted 1,013 of 1,013 games to x.zip (gsn); 1,012 left out by the filters"
    )
    summary = ExportSummary("out", "parquet", games=1200, valid=1200, setups=2400)
    summary.rows = {"games": 1200, "setups": 96000, "moves": 250000}
    assert "wrote 96,000 setup pieces (2,400 setups), 250,000 moves" in str(summary)


def test_the_table_format_shows_nulls_as_blanks_never_nan(tmp_path: Path) -> None:
    folder = synthetic_folder(tmp_path)
    for width in ("300", "60"):  # side by side, and one block per row when too wide
        result = CliRunner().invoke(
            main, ["events", str(folder), "--jobs", "1"], env={"COLUMNS": width}
        )
        assert result.exit_code == 0, result.stderr
        assert "first_move" in result.stdout or "battle" in result.stdout
        for word in (" NaN", " None", "<NA>", " nan "):
            assert word not in result.stdout
