"""One vocabulary across commands: the same mistake gives the same exit code and message in
every command (a table: mistake x command), one syntax for options taking several values,
and the same ``--format`` names, with ``jsonl`` rows equal to ``json``'s and CSV cells equal
to JSON values, wherever records are printed.

The games are 30 generated ones in one zip (classic and barrage), their export, and a copy
of the export whose games table is cut short (a damaged export folder).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.errors import NothingKept, NothingReadable
from strat_tools.core.text import restore_csv_cell
from strat_tools.formats.xml_writer import write_games
from strat_tools.generate.games import generate_games
from strat_tools.run.driver import export_dataset, read_games, reduce_batches
from strat_tools.run.filters import GameFilter

GAMES = 30


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("vocabulary")
    archive = folder / "g.zip"
    write_games(generate_games(GAMES, variant={"classic": 2.0, "barrage": 1.0}, seed=1), archive)
    export_dataset([str(archive)], folder / "ds", run=1)
    shutil.copytree(folder / "ds", folder / "damaged")
    games = folder / "damaged" / "games" / "part-00000.parquet"
    games.write_bytes(games.read_bytes()[:300])
    return {"zip": archive, "ds": folder / "ds", "damaged": folder / "damaged"}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def command_args(command: str, out: Path) -> list[str]:
    """What ``command`` needs besides its inputs (an output, a pattern), and one process."""
    needs = {
        "export": ["-o", str(out / "ds")],
        "heatmap": ["-o", str(out / "h.png")],
        "report": ["-o", str(out / "r.html")],
        "observations": ["-o", str(out / "obs")],
        "convert": ["--to", "xml", "-o", str(out / "c.zip")],
        "view": ["-o", str(out / "v.html")],
        "search": ["--anywhere", "F"],
        "explore": ["-o", str(out / "e.html")],
        "filter": ["-o", str(out / "f.zip")],
    }
    return [*needs.get(command, []), "--jobs", "1"]


READING = (
    "validate",
    "export",
    "stats",
    "advice",
    "heatmap",
    "report",
    "observations",
    "convert",
    "events",
    "view",
    "setups",
    "search",
    "openings",
    "explore",
    "filter",
)
"""Every command that reads games."""

RECORDS_ONLY = ("observations", "convert", "events", "view")
"""The commands that need the game records themselves (not an export of them; ``filter``
copies the records an export was read from)."""

DATASETS = tuple(c for c in READING if c not in RECORDS_ONLY)
"""The commands that read an exported dataset folder too."""

KEEPS_NONE = ("--period", "1999-01:1999-02")


def mistake(name: str, inputs: dict[str, Path]) -> tuple[list[str], int, str]:
    """A mistake's arguments, the exit code every command gives for it, and its message."""
    zip_path, ds = str(inputs["zip"]), str(inputs["ds"])
    missing = str(inputs["zip"].parent / "strados2014-*.zip")
    return {
        "a glob matching nothing": (
            [missing],
            2,
            f"Error: nothing readable in {missing}: no file matches this pattern",
        ),
        "an export folder where records are needed": (
            [ds],
            2,
            f"Error: {ds} is an exported dataset folder; this reads game records",
        ),
        "a damaged export folder": (
            [str(inputs["damaged"])],
            3,
            f"Error: {inputs['damaged'] / 'games/part-00000.parquet'} is not the file export run ",
        ),
        "filters keeping no game": (
            [zip_path, *KEEPS_NONE],
            2,
            f"Error: {GAMES} games read in {zip_path}; the filters (periods 1999-01 to "
            "1999-02) kept none",
        ),
        "an unknown variant": (
            [zip_path, "--variant", "nosuch"],
            2,
            "Error: Invalid value for '--variant': unknown variant 'nosuch'",
        ),
        "a single-valued option given twice": (
            [zip_path, "--period", "2026-01:", "--period", "2026-02:"],
            2,
            "Error: --period was given 2 times; give it once",
        ),
    }[name]


MATRIX = [
    *[("a glob matching nothing", c) for c in READING],
    *[("an export folder where records are needed", c) for c in RECORDS_ONLY],
    *[("a damaged export folder", c) for c in (*DATASETS, "view")],  # view checks it first
    *[("filters keeping no game", c) for c in READING],
    *[("an unknown variant", c) for c in READING],
    *[("a single-valued option given twice", c) for c in READING],
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "command"), MATRIX, ids=[f"{c}: {m}" for m, c in MATRIX])
def test_the_same_mistake_gives_the_same_exit_code_and_message_in_every_command(
    inputs: dict[str, Path], tmp_path: Path, name: str, command: str
) -> None:
    args, code, text = mistake(name, inputs)
    got, _, err = run(command, *args, *command_args(command, tmp_path))
    assert (got, text in err.replace("\n", " ")) == (code, True), err
    assert "Traceback" not in err
    if code == 2:  # nothing ran: nothing written
        assert not list(tmp_path.iterdir())


def test_the_python_api_raises_what_the_cli_reports(inputs: dict[str, Path]) -> None:
    """``read_games`` on a glob matching nothing, or with filters keeping nothing, raises
    the error the CLI shows with exit 2, never an empty set giving zeros later."""
    missing = str(inputs["zip"].parent / "strados2014-*.zip")
    with pytest.raises(NothingReadable, match="no file matches this pattern"):
        read_games(missing, run=1)
    with pytest.raises(NothingKept, match=f"{GAMES} games read in .*kept none"):
        read_games(str(inputs["zip"]), select=GameFilter.parse(period="1999-01:1999-02"), run=1)


def test_explore_refuses_a_variant_it_cannot_show_as_a_usage_error(
    inputs: dict[str, Path], tmp_path: Path
) -> None:
    code, _, err = run("explore", str(inputs["zip"]), "--variant", "classicfree", "-o", "e.html")
    assert code == 2, err
    # classicfree is a known variant the explorer does not cover (issue 45.17): said so
    assert "Invalid value for '--variant': 'classicfree' is a known variant" in err
    assert "unknown" not in err


def test_several_values_are_given_the_same_way_in_every_command(inputs: dict[str, Path]) -> None:
    """Repeated or with commas, the same; never one of them silently kept."""
    zip_path = str(inputs["zip"])
    for args in (
        ["stats", zip_path, "--stat", "rows", "--format", "json"],
        ["events", zip_path, "--kind", "end", "--format", "json"],
        ["setups", zip_path, "--format", "json"],
    ):
        extra = ["--kind", "flag_captured"] if args[0] == "events" else []
        commas = ["--variant", "classic,barrage"] + (["--kind", "end,flag_captured"] * bool(extra))
        repeated = ["--variant", "classic", "--variant", "barrage", *extra]
        one, two = run(*args, *commas, "--jobs", "1"), run(*args, *repeated, "--jobs", "1")
        assert one[0] == two[0] == 0, (one[2], two[2])
        assert json.loads(one[1]) == json.loads(two[1])
        variants = {
            row.get("variant") or row["game_id"].split("-")[0] for row in json.loads(one[1])
        }
        assert variants == {"classic", "barrage"}, args[0]
    code, _, err = run(
        "search", zip_path, "--anywhere", "F", "--variant", "classic", "--variant", "barrage"
    )
    assert code == 2 and "name one" in err  # refused, not the last one kept


RECORD_COMMANDS: dict[str, list[str]] = {
    "validate": [],
    "stats": ["--stat", "rows"],
    "advice": [],
    "events": ["--kind", "end"],
    "setups": ["--setup-format", "owner"],
    "search": ["--anywhere", "F"],
    "openings": ["--depth", "1"],
}
"""Every command that prints records, with the options that make it print some."""


def table_of(command: str, fmt: str, inputs: dict[str, Path]) -> list[dict[str, Any]]:
    code, out, err = run(command, str(inputs["zip"]), *RECORD_COMMANDS[command], "--format", fmt)
    assert code in (0, 1), err  # validate: 1 when a game is invalid
    if fmt == "jsonl":
        return [json.loads(line) for line in out.splitlines()]
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(out)))
    data = json.loads(out)
    records: Callable[[Any], list[dict[str, Any]]] = {
        "validate": lambda d: d["games"],
        "search": lambda d: [
            {"match": k, **d[k], "variant": d["variant"], "z": d["z"]} for k in ("matching", "rest")
        ],
        "openings": lambda d: [],
    }.get(command, lambda d: d)
    return records(data)


def same_cell(text: str, value: Any) -> bool:
    """Whether a CSV cell holds the JSON value (numbers compared as numbers)."""
    text = restore_csv_cell(text)
    if value is None:
        return text == ""
    if isinstance(value, bool):
        return text == str(value)
    if isinstance(value, (int, float)):
        return text != "" and abs(float(text) - value) <= 1e-9 * max(1.0, abs(value))
    if isinstance(value, (list, dict)):
        return True  # nested values: JSON only
    return text == str(value)


@pytest.mark.slow
@pytest.mark.parametrize("command", list(RECORD_COMMANDS))
def test_every_record_printing_command_takes_jsonl_rows_equal_to_json_and_csv(
    inputs: dict[str, Path], command: str
) -> None:
    lines = table_of(command, "jsonl", inputs)
    assert lines, command
    rows = table_of(command, "json", inputs)
    if command != "openings":  # its JSON is a tree of moves; jsonl and csv are the lines
        assert lines == rows
    cells = table_of(command, "csv", inputs)
    assert len(cells) == len(lines)
    for cell_row, row in zip(cells, lines, strict=True):
        for column, value in row.items():
            if column in cell_row:
                assert same_cell(cell_row[column], value), (
                    command,
                    column,
                    cell_row[column],
                    value,
                )


def test_the_table_format_has_one_name_and_text_stays_an_alias(inputs: dict[str, Path]) -> None:
    zip_path = str(inputs["zip"])
    for command in ("validate", "openings"):
        table = run(command, zip_path, "--format", "table", "--jobs", "1")
        text = run(command, zip_path, "--format", "text", "--jobs", "1")
        assert table[0] in (0, 1) and table[:2] == text[:2], table[2]
    code, _, err = run("validate", zip_path, "--format", "xml")
    assert code == 2 and "'table', 'csv', 'json', 'jsonl'" in err


def test_a_board_in_csv_keeps_its_line_breaks_as_json_does(inputs: dict[str, Path]) -> None:
    args = ["setups", str(inputs["zip"]), "--setup-format", "owner", "--jobs", "1", "--format"]
    rows = json.loads(run(*args, "json")[1])
    cells = list(csv.DictReader(io.StringIO(run(*args, "csv")[1])))
    assert "\n" in rows[0]["board"]
    assert [c["board"] for c in cells] == [r["board"] for r in rows]


def pid_of(batch: Any) -> int:
    """The process a batch is reduced in."""
    return os.getpid()


def test_an_export_folder_is_reduced_in_one_process_unless_jobs_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its tables are read already: shipping each batch to a worker costs more than the
    reduction, so the default ``--jobs`` for an export folder is one process."""
    from strat_tools.tables import dataset

    folder = tmp_path / "d"
    export_dataset(["data/"], folder, setups_only=True, run=1)
    monkeypatch.setattr(dataset, "DATASET_BATCH_GAMES", 100)  # 400 games: four batches
    pids = list(reduce_batches(pid_of, [str(folder)], setups_only=True))
    assert len(pids) > 1 and set(pids) == {os.getpid()}
