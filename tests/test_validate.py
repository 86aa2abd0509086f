"""``validate`` on an exported dataset folder (issue 25, point 19): the verdicts its export
recorded, the same as validating the records again, its files checked first."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.errors import NothingReadable
from strat_tools.exports.validate import validate
from strat_tools.exports.validation_stream import VALIDATION_FORMATS, write_validation
from strat_tools.run.driver import export_dataset

GRAVON = Path(__file__).parent / "fixtures" / "gravon"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-made XML fixtures (valid, invalid and unreadable games) exported."""
    folder = tmp_path_factory.mktemp("validate") / "tables"
    export_dataset([str(GRAVON)], folder, run=1)
    return folder


def test_a_dataset_reads_the_verdicts_of_its_records(exported: Path) -> None:
    code, records, _ = run("validate", str(GRAVON), "--jobs", "1")
    again, tables, err = run("validate", str(exported))
    assert (code, again) == (1, 1)
    # The same problem lines; the summary lacks only the non-game entries the export skipped.
    assert tables.splitlines()[:-30] == records.splitlines()[:-30]
    assert records.split("\n31 games")[0] == tables.split("\n31 games")[0]
    assert "31 games in 28 files: 12 valid, 19 invalid, 0 unchecked; 2 unreadable" in tables
    assert "no game records found" not in err


def test_the_json_verdicts_equal_those_of_the_records(exported: Path) -> None:
    records = json.loads(run("validate", str(GRAVON), "--jobs", "1", "--format", "json")[1])
    tables = json.loads(run("validate", str(exported), "--format", "json")[1])
    # The export keeps game ids unique over the run (a second file of one name is '#2').
    for game in tables["games"]:
        game["game_id"] = game["game_id"].partition("#")[0]
    assert tables["games"] == records["games"]
    assert {**tables["summary"], "skipped": []} == {**records["summary"], "skipped": []}


def test_the_library_call_takes_a_dataset_folder_too(exported: Path) -> None:
    report = validate(exported)
    assert (report.summary.games, report.summary.invalid, report.ok) == (31, 19, False)


def test_filters_choose_a_dataset_s_games(exported: Path) -> None:
    code, out, err = run("validate", str(exported), "--variant", "barrage", "-q")
    assert code == 1 and out.startswith("1 game in 1 file: 0 valid, 1 invalid")
    # As for the records: every other input, the two unreadable ones too.
    assert "32 games left out by the filters" in err
    assert err == run("validate", str(GRAVON), "--variant", "barrage", "-q", "--jobs", "1")[2]


def test_rules_for_records_only_are_said_to_be_so(exported: Path) -> None:
    _, _, err = run("validate", str(exported), "--rules", "gravon-2013", "-q")
    assert "a dataset folder's verdicts are those of its export" in err


def test_a_damaged_dataset_is_refused_with_the_file_named(exported: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(exported, damaged)
    part = damaged / "diagnostics" / "part-00000.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    code, out, err = run("validate", str(damaged), "--format", "json")
    assert code == 3 and "diagnostics/part-00000.parquet" in err and "Traceback" not in err
    assert "error" in json.loads(out)  # stdout stays one JSON document


def test_a_folder_with_neither_records_nor_tables_is_still_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run("validate", str(tmp_path))
    assert code == 2 and "no game records found" in err


def test_records_and_dataset_folders_mixed_keep_their_order(exported: Path) -> None:
    """The driver decides which input is a folder of tables (map_games' on_dataset): each
    input's verdicts come in the order the inputs were given, records replayed, tables
    read back."""
    one = str(GRAVON / "classic-2014.4-17.xml")
    report = validate([one, str(exported), one], run=1)
    folder = [verdict.game_id for verdict in validate(exported).games]
    ids = [verdict.game_id for verdict in report.games]
    assert len(folder) > 30 and ids[0] == ids[-1] == "classic-2014.4-17"
    assert report.games[0] == report.games[-1] and ids[1:-1] == folder


@pytest.mark.parametrize("fmt", VALIDATION_FORMATS)
def test_the_validate_document_is_one_library_call(fmt: str) -> None:
    """``write_validation`` writes what ``strat-tools validate`` prints, byte for byte, in
    every format (valid, invalid and unreadable inputs among them)."""
    inputs = ["tests/fixtures/gravon", "tests/fixtures/engine"]
    code, out, _err = run("validate", *inputs, "--format", fmt, "--jobs", "1")
    shown = io.StringIO()
    done = write_validation(inputs, shown, fmt=fmt, run=1)
    assert shown.getvalue() == out
    assert (code == 0) == done.summary.clean and done.summary.games > 10
    assert done.summary.by_status["invalid"] > 0


def test_the_validate_document_of_nothing_is_nothing(tmp_path: Path) -> None:
    shown = io.StringIO()
    with pytest.raises(NothingReadable, match="no game records found"):
        write_validation([str(tmp_path)], shown, run=1)
    assert shown.getvalue() == ""
