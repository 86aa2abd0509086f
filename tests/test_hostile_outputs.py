"""Every command's ``-o`` and stdout against issue 25 (docs/security.md).

Each command registered on the CLI that takes ``-o`` (found by introspection: a new one
fails :func:`test_every_command_with_an_output_is_held_here` until it is listed) is run
with an ``-o`` that names one of its inputs: the very file, the same file through a symlink
or a hard link (same device and inode), the input folder itself, a record file inside the
input folder, and the ``--ids`` file. Each must be refused with exit 2 before anything is
read or written, naming the input, with no traceback: the inputs stay byte for byte as they
were and nothing new appears.

Every command's stdout is also piped into a reader that goes away early (``| head``):
the command ends quietly (no ``Broken pipe`` message, no traceback) with exit 0.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from strat_tools.cli import main

GAME_FILE = Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"
GAME = GAME_FILE.read_bytes()
PATTERN = "........../........../........../F........."

USAGE = 2

OUTPUT_COMMANDS: dict[str, list[str]] = {
    "export": ["export", "{path}", "-o", "{out}", "--jobs", "1"],
    "heatmap": ["heatmap", "{path}", "--piece", "flag", "-o", "{out}", "--jobs", "1"],
    "report": ["report", "{path}", "-o", "{out}", "--jobs", "1"],
    "show": ["show", "{game}", "-o", "{out}"],
    "observations": ["observations", "{path}", "-o", "{out}", "--jobs", "1"],
    "convert": ["convert", "{path}", "--to", "gsn", "-o", "{out}", "--jobs", "1"],
    "view": ["view", "{path}", "-o", "{out}"],
    "setups": ["setups", "{path}", "-o", "{out}", "--jobs", "1"],
    "filter": ["filter", "{path}", "-o", "{out}", "--jobs", "1"],
    "explore": ["explore", "{path}", "-o", "{out}", "--jobs", "1"],
}
"""How each command with ``-o`` reads ``{path}`` (a folder or zip of games; ``show`` reads
``{game}``, one game file) and writes ``{out}``."""

NO_INPUTS = {"generate"}
"""Commands whose ``-o`` reads nothing (so it cannot be an input)."""


def commands_with_output() -> set[str]:
    return {
        name
        for name, command in main.commands.items()
        if any("-o" in getattr(param, "opts", ()) for param in command.params)
    }


def test_every_command_with_an_output_is_held_here() -> None:
    assert set(OUTPUT_COMMANDS) == commands_with_output() - NO_INPUTS


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` and its content's hash (links as their target)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[str(path)] = "-> " + os.readlink(path)
        elif path.is_file():
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[str(path)] = "dir"
    return found


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """``data/`` holding a game file and ``strados2014-4.zip`` of two games, under ``tmp_path``."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "classic-2014.4-17.xml").write_bytes(GAME)
    with zipfile.ZipFile(data / "strados2014-4.zip", "w") as archive:
        for number in (1, 2):
            archive.writestr(f"classic-2014.4-{number}.xml", GAME)
    return data


def overlap_cases(data: Path, command: str) -> dict[str, tuple[str, str, str]]:
    """Name -> (the input path read, the game file read by ``show``, the ``-o``)."""
    game = str(data / "classic-2014.4-17.xml")
    archive = str(data / "strados2014-4.zip")
    same = game if command == "show" else archive
    link = data.parent / ("link.png" if command in {"heatmap", "setups", "show"} else "link.zip")
    link.symlink_to(same)
    hard = data.parent / ("hard.png" if command in {"heatmap", "setups", "show"} else "hard.zip")
    os.link(same, hard)
    return {
        "the input file": (archive, game, same),
        "a symlink to it": (archive, game, str(link)),
        "a hard link to it": (archive, game, str(hard)),
        "a record inside the input folder": (str(data), game, game),
        "the input folder": (str(data), game, str(data)),
    }


@pytest.mark.parametrize(
    "case",
    [
        "the input file",
        "a symlink to it",
        "a hard link to it",
        "a record inside the input folder",
        "the input folder",
    ],
)
@pytest.mark.parametrize("command", sorted(OUTPUT_COMMANDS))
def test_an_output_naming_an_input_is_refused_and_nothing_is_written(
    command: str, case: str, inputs: Path
) -> None:
    path, game, out = overlap_cases(inputs, command)[case]
    if command == "show" and case == "the input folder":
        pytest.skip("show reads one game file, never a folder")
    before = snapshot(inputs.parent)
    args = [a.format(path=path, game=game, out=out) for a in OUTPUT_COMMANDS[command]]

    result = CliRunner().invoke(main, args)

    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.stderr
    assert result.exit_code == USAGE, result.stderr[-1500:]
    said = result.stderr
    clicks_own_check = "is a file." in said or "is a directory." in said  # click.Path
    assert "write it elsewhere" in said or clicks_own_check, said
    assert snapshot(inputs.parent) == before, "an input was changed or an output written"


@pytest.mark.parametrize("command", ["filter", "setups", "convert", "view"])
def test_an_output_over_the_ids_file_is_refused(command: str, inputs: Path) -> None:
    ids = inputs.parent / ("ids.png" if command == "setups" else "ids.zip")
    ids.write_text("classic-2014.4-17\n", encoding="utf-8")
    before = snapshot(inputs.parent)
    args = [a.format(path=inputs, game="", out=ids) for a in OUTPUT_COMMANDS[command]]
    result = CliRunner().invoke(main, [*args, "--ids", str(ids)])
    assert result.exit_code == USAGE, result.stderr[-1500:]
    assert f"is the input {ids}" in result.stderr
    assert snapshot(inputs.parent) == before


@pytest.mark.parametrize(
    ("command", "name"),
    [("view", "page.html"), ("report", "report.html"), ("heatmap", "flag.png")],
)
def test_a_page_or_figure_may_go_into_an_input_folder(
    command: str, name: str, inputs: Path
) -> None:
    """Not a name the read takes: written beside the games, which stay as they were."""
    games = {p.name: p.read_bytes() for p in inputs.iterdir()}
    out = inputs / name
    args = [a.format(path=inputs, game="", out=out) for a in OUTPUT_COMMANDS[command]]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.stderr[-1500:]
    assert out.stat().st_size > 0
    assert {p.name: p.read_bytes() for p in inputs.iterdir() if p != out} == games


@pytest.mark.parametrize("command", ["export", "observations", "convert", "filter"])
def test_a_symlink_to_a_folder_as_output_folder_says_it_is_a_symlink(
    command: str, inputs: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "out"
    link.symlink_to(real)
    args = [a.format(path=inputs, game="", out=link) for a in OUTPUT_COMMANDS[command]]
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0 and "Traceback" not in result.stderr
    assert f"{link} is a symlink to the folder {real}" in result.stderr, result.stderr
    assert "is not a folder" not in result.stderr
    assert list(real.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("classic-2200.0-1.xml", ["filter"]),
        ("classic-1975.3-1.xml", ["filter"]),
        ("classic-2014.12-1.xml", ["convert", "--to", "xml"]),
        ("classic.9999.12.31.1.gsn", ["convert", "--to", "xml"]),
        ("classic.2108.01.01.1.gsn", ["convert", "--to", "gsn"]),
    ],
)
def test_a_year_no_zip_can_date_never_stops_a_zip_writer(
    name: str, command: list[str], tmp_path: Path
) -> None:
    """Zip timestamps (MS-DOS dates) hold 1980..2107: a game named for another year is
    written dated 1980-01-01, and reads back."""
    game = tmp_path / name
    if name.endswith(".gsn"):
        made = tmp_path / "gsn"
        assert (
            CliRunner()
            .invoke(main, ["convert", str(GAME_FILE), "--to", "gsn", "-o", str(made)])
            .exit_code
            == 0
        )
        next(made.iterdir()).rename(game)
    else:
        game.write_bytes(GAME)
    out = tmp_path / "out.zip"
    result = CliRunner().invoke(
        main, [command[0], str(game), *command[1:], "-o", str(out), "--jobs", "1"]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == 0, result.stderr
    with zipfile.ZipFile(out) as archive:
        (entry,) = archive.infolist()
        assert 1980 <= entry.date_time[0] <= 2107
    again = CliRunner().invoke(main, ["validate", str(out), "--jobs", "1"])
    assert again.exit_code == 0, again.stdout + again.stderr


# --- a reader that goes away ------------------------------------------------------------

PIPED: dict[str, list[str]] = {
    "validate": ["validate", "{data}", "--verbose", "--jobs", "1"],
    "generate": ["generate", "-n", "3", "-o", "{tables}.zip", "--jobs", "1"],
    "export": ["export", "{data}", "-o", "{tables}", "--jobs", "1"],
    "stats": ["stats", "{data}", "--stat", "placement", "--format", "csv", "--jobs", "1"],
    "advice": ["advice", "{data}", "--jobs", "1"],
    "heatmap": ["heatmap", "{data}", "--piece", "flag", "-o", "{tables}.png", "--jobs", "1"],
    "report": ["report", "{data}", "-o", "/dev/stdout", "--jobs", "1"],
    "show": ["show", "{game}"],
    "rules": ["rules"],
    "observations": ["observations", "{data}", "-o", "{obs}", "--jobs", "1"],
    "convert": ["convert", "{data}", "--to", "gsn", "-o", "/dev/stdout", "--jobs", "1"],
    "events": ["events", "{data}", "--format", "csv", "--jobs", "1"],
    "view": ["view", "{data}", "-o", "/dev/stdout"],
    "setups": ["setups", "{data}", "--jobs", "1"],
    "search": ["search", "{data}", "--pattern", PATTERN, "--list-games", "--jobs", "1"],
    "filter": ["filter", "{data}", "--jobs", "1"],
    "openings": ["openings", "{data}", "--format", "csv", "--jobs", "1"],
    "explore": ["explore", "{data}", "-o", "/dev/stdout", "--jobs", "1"],
}
"""Each command with output on stdout (data, or ``-o /dev/stdout``); ``export``,
``observations``, ``generate`` and ``heatmap`` write files and print only messages (on
stderr)."""


def test_every_command_is_piped() -> None:
    assert set(PIPED) == set(main.commands)


@pytest.fixture(scope="module")
def many_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of 40 games: enough output that the first line is not all of it."""
    data = tmp_path_factory.mktemp("piped") / "data"
    data.mkdir()
    for number in range(40):
        (data / f"classic-2014.4-{number + 100}.xml").write_bytes(GAME)
    return data


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("command", sorted(PIPED))
def test_a_command_ends_quietly_when_its_reader_goes_away(
    command: str, many_games: Path, tmp_path: Path
) -> None:
    """``strat-tools COMMAND ... | head -0``: the reader closes the pipe before the first
    write; the command stops writing, says nothing about it and exits 0 (``head`` got what
    it asked for)."""
    args = [
        a.format(data=many_games, game=GAME_FILE, tables=tmp_path / "t", obs=tmp_path / "o")
        for a in PIPED[command]
    ]
    env = {**os.environ, "COLUMNS": "100"}
    process = subprocess.Popen(
        [sys.executable, "-m", "strat_tools", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader goes away before the first byte
    err = process.stderr.read().decode("utf-8", "replace")
    code = process.wait(timeout=100)
    assert "Traceback" not in err and "Broken pipe" not in err and "Errno 32" not in err, err
    assert code == 0, err[-1500:]
