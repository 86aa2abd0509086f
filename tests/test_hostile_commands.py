"""Every command held to every class of attack (issues 14 and 25, docs/security.md): one
table, command x class.

:data:`COMMANDS` has one row per command registered on the CLI (a new command fails
:func:`test_every_registered_command_is_in_the_table` until it has a row): how it reads a
path, how its ``-o`` is given, and how it writes to stdout. :data:`CLASSES` are the attacks;
:func:`not_applicable` says, for each (command, class) the table does not run, why it cannot
apply (:func:`test_every_cell_is_run_or_says_why_not` holds every cell to one or the other).
The classes:

- **bad path**: a FIFO named ``*.zip`` (opening it would hang), a symlink named ``*.zip`` to
  ``/dev/zero`` (reading it would never end), a truncated zip, a zip whose members overlap
  (a zip bomb: gigabytes from kilobytes), a zip member declaring more than the 64 MiB a
  game file may have, a file name that is not UTF-8 (holding a good game: it is read), an
  empty folder, folders named like a zip and a game file, an empty game file, a folder
  1,100 levels deep with a good game at the bottom (it is read: no walk recurses) and a path
  that does not exist (``generate`` gets them as its ``-o``; ``rules`` takes no path: one
  is a usage error). The command ends without a traceback, with the documented exit code,
  says why on stderr, changes no input (the FIFO, the link and its device, the zips, the
  folders), leaves a file already in its output folder alone, and a failed run leaves no
  output behind.
- **bad --ids path**: the ``--ids`` file a FIFO, a link to ``/dev/zero``, missing or a
  folder: a usage error naming ``--ids`` (never a hang).
- **output over input**: ``-o`` naming an input (the file, a symlink or a hard link to it,
  a record inside the input folder, the input folder, the ``--ids`` file, the real file
  behind a symlink inside the input folder): refused with
  exit 2 before anything is read or written; the inputs stay byte for byte.
- **-o a symlink to a folder**: said to be one (not "exists and is not a folder").
- **names that crash writers**: games named for a year no zip can date (2200, 9999), a zip
  member named with an escape sequence, a carriage return and markup, players named with
  control characters and noncharacters: read to the end, exit 0, no raw control character
  printed, every zip written dated 1980..2107 and read back whole.
- **reader goes away** (``| head -0``): the command ends quietly, exit 0 (slow: a process
  each). Ctrl-C and SIGTERM are the same kind of table in tests/test_interrupts.py.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result
from hostile_paths import GAME, build_inputs, remove_deep_folder, snapshot

from strat_tools.cli import main
from strat_tools.formats.gsn_writer import record_to_gsn
from strat_tools.formats.readers import parse_record

GAME_FILE = Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"
GSN = Path(__file__).parent / "fixtures" / "gsn"
PATTERN = "........../........../........../F........."
SAMPLE = Path(__file__).resolve().parent.parent / "data"
"""The shipped sample: enough decided games for ``values``' models (a few test games are not)."""

USAGE, FAILED = 2, 3

COMMANDS: dict[str, dict[str, list[str]]] = {
    "validate": {
        "read": ["validate", "{path}", "--jobs", "1"],
        "pipe": ["validate", "{data}", "--verbose", "--jobs", "1"],
    },
    "generate": {
        "read": ["generate", "-n", "2", "-o", "{path}", "--jobs", "1"],
        "pipe": ["generate", "-n", "3", "-o", "{tables}.zip", "--jobs", "1"],
    },
    "export": {
        "read": ["export", "{path}", "-o", "{out}/tables", "--jobs", "1"],
        "output": ["export", "{path}", "-o", "{out}", "--jobs", "1"],
        "pipe": ["export", "{data}", "-o", "{tables}", "--jobs", "1"],
    },
    "stats": {
        "read": ["stats", "{path}", "--jobs", "1"],
        "pipe": ["stats", "{data}", "--stat", "placement", "--format", "csv", "--jobs", "1"],
    },
    "advice": {
        "read": ["advice", "{path}", "--jobs", "1"],
        "pipe": ["advice", "{data}", "--jobs", "1"],
    },
    "heatmap": {
        "read": ["heatmap", "{path}", "--piece", "flag", "-o", "{out}/flag.png", "--jobs", "1"],
        "output": ["heatmap", "{path}", "--piece", "flag", "-o", "{out}", "--jobs", "1"],
        "pipe": ["heatmap", "{data}", "--piece", "flag", "-o", "{tables}.png", "--jobs", "1"],
    },
    "report": {
        "read": ["report", "{path}", "-o", "{out}/report.html", "--jobs", "1"],
        "output": ["report", "{path}", "-o", "{out}", "--jobs", "1"],
        "pipe": ["report", "{data}", "-o", "/dev/stdout", "--jobs", "1"],
    },
    "show": {
        "read": ["show", "{path}"],
        "output": ["show", "{game}", "-o", "{out}"],
        "pipe": ["show", "{game}"],
    },
    "rules": {"read": ["rules", "{path}"], "pipe": ["rules"]},
    "observations": {
        "read": ["observations", "{path}", "-o", "{out}/obs", "--jobs", "1"],
        "output": ["observations", "{path}", "-o", "{out}", "--jobs", "1"],
        "pipe": ["observations", "{data}", "-o", "{obs}", "--jobs", "1"],
    },
    "convert": {
        "read": ["convert", "{path}", "--to", "gsn", "-o", "{out}/out.zip", "--jobs", "1"],
        "output": ["convert", "{path}", "--to", "gsn", "-o", "{out}", "--jobs", "1"],
        "pipe": ["convert", "{data}", "--to", "gsn", "-o", "/dev/stdout", "--jobs", "1"],
    },
    "events": {
        "read": ["events", "{path}", "--jobs", "1"],
        "pipe": ["events", "{data}", "--format", "csv", "--jobs", "1"],
    },
    "view": {
        "read": ["view", "{path}", "-o", "{out}/page.html"],
        "output": ["view", "{path}", "-o", "{out}"],
        "pipe": ["view", "{data}", "-o", "/dev/stdout"],
    },
    "setups": {
        "read": ["setups", "{path}", "--jobs", "1"],
        "output": ["setups", "{path}", "-o", "{out}", "--jobs", "1"],
        "pipe": ["setups", "{data}", "--jobs", "1"],
    },
    "search": {
        "read": ["search", "{path}", "--pattern", PATTERN, "--jobs", "1"],
        "pipe": ["search", "{data}", "--pattern", PATTERN, "--list-games", "--jobs", "1"],
    },
    "filter": {
        "read": ["filter", "{path}", "-o", "{out}/picked.zip", "--jobs", "1"],
        "output": ["filter", "{path}", "-o", "{out}", "--jobs", "1"],
        "pipe": ["filter", "{data}", "--jobs", "1"],
    },
    "openings": {
        "read": ["openings", "{path}", "--jobs", "1"],
        "pipe": ["openings", "{data}", "--format", "csv", "--jobs", "1"],
    },
    "values": {
        "read": ["values", "{path}", "--jobs", "1"],
        "output": ["values", "{path}", "--fit", "-o", "{out}", "--jobs", "1"],
        "pipe": ["values", str(SAMPLE), "--format", "csv", "--jobs", "1"],
    },
    "explore": {
        "read": ["explore", "{path}", "-o", "{out}/explore.html", "--jobs", "1"],
        "output": ["explore", "{path}", "-o", "{out}", "--jobs", "1"],
        "pipe": ["explore", "{data}", "-o", "/dev/stdout", "--jobs", "1"],
    },
}
"""Per command: ``read`` how it is run on a path (``{out}``: a folder of its own for
outputs), ``output`` how its ``-o`` is given (``{path}``: a folder or zip of games;
``show`` reads ``{game}``, one game file), ``pipe`` how it writes to stdout (data, or
``-o /dev/stdout``; ``export``, ``observations``, ``generate`` and ``heatmap`` write files
and print only messages, on stderr)."""

FOLDER_OUTPUTS = {"export", "observations", "convert", "filter"}
"""Commands whose ``-o`` may be a folder."""

INPUTS = [
    "fifo",
    "dev_zero",
    "truncated_zip",
    "zip_bomb",
    "huge_member",
    "non_utf8",
    "empty_dir",
    "dir_like_zip",
    "dir_like_xml",
    "missing",
    "empty_file",
    "deep_folder",
]
OVERLAPS = [
    "the input file",
    "a symlink to it",
    "a hard link to it",
    "a record inside the input folder",
    "the input folder",
    "the --ids file",
    "a file linked into the input folder",
]
ID_PATHS = ["fifo", "dev_zero", "missing", "empty_dir"]

READ_ONE_GOOD_GAME = {"non_utf8", "deep_folder"}
"""Inputs that hold a readable game: every reading command reads it and succeeds."""
UNREADABLE = {"fifo", "dev_zero", "truncated_zip", "zip_bomb", "huge_member", "missing"}
"""Inputs that name record files, none of them readable."""
EXPECTED: dict[tuple[str, str], int] = {
    ("validate", kind): 1 for kind in (UNREADABLE - {"missing"}) | {"empty_file"}
}
"""Exit codes other than the rule of :func:`expected_exit`: ``validate`` reports each
unreadable input as a finding, with its reason, on stdout (its data), and exits 1; a path
naming nothing is the usage error (exit 2) it is in every command."""
TOO_FEW_FOR_A_MODEL = {"values"}
"""Commands that fit models: one good game is too few, a refusal with the reason (exit 2),
never a model of nothing."""
GENERATE_REFUSED = {"non_utf8", "dir_like_zip", "empty_file"}
"""``generate -o``: an existing file not named .zip (a folder is meant) and a folder named
.zip cannot be written (exit 3); a device is written through, a regular file replaced, a
folder filled."""
NOTHING_READABLE = {"missing": "no such file", "empty_file": "empty file"}
"""Inputs of which a reading command says 'nothing readable in', with the reader's reason."""


def expected_exit(command: str, kind: str) -> int:
    """The documented exit code: a readable game is success; a path with nothing readable
    is a usage error (exit 2, nothing written); ``rules`` takes no path (exit 2)."""
    if (command, kind) in EXPECTED:
        return EXPECTED[command, kind]
    if command == "rules":
        return USAGE
    if command == "generate":  # the path is its -o
        return FAILED if kind in GENERATE_REFUSED else 0
    if command in TOO_FEW_FOR_A_MODEL:
        return USAGE
    return 0 if kind in READ_ONE_GOOD_GAME else USAGE


def options_of(command: str) -> set[str]:
    return {opt for p in main.commands[command].params for opt in getattr(p, "opts", ())}


def not_applicable(command: str, cls: str, case: str = "") -> str | None:
    """Why class ``cls`` (its ``case``) cannot apply to ``command``; ``None`` when it does."""
    options = options_of(command)
    if (
        cls in ("output over input", "-o a symlink to a folder")
        and "output" not in COMMANDS[command]
    ):
        return "its -o reads nothing" if "-o" in options else "it has no -o"
    if cls == "output over input" and case == "the --ids file" and "--ids" not in options:
        return "it takes no --ids file"
    if cls == "output over input" and command == "show" and case == "the input folder":
        return "show reads one game file, never a folder"
    if cls == "bad --ids path" and "--ids" not in options:
        return "it takes no --ids file"
    if cls == "-o a symlink to a folder" and command not in FOLDER_OUTPUTS:
        return "its -o is one file"
    if cls == "names that crash writers" and command in ("generate", "rules"):
        return "it reads no game records"
    if (command, cls, case) == ("generate", "bad path", "fifo"):
        return (
            "a FIFO as -o is written through: the run waits for a reader, as any writer would "
            "(docs/security.md)"
        )
    return None


CLASSES: dict[str, list[str]] = {
    "bad path": INPUTS,
    "bad --ids path": ID_PATHS,
    "output over input": OVERLAPS,
    "-o a symlink to a folder": [""],
    "names that crash writers": [""],
    "reader goes away": [""],
}


def invoke(args: list[str]) -> Result:
    """Run the CLI in-process; it never raises past click (a traceback fails the test)."""
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    return result


# --- the classes --------------------------------------------------------------------------


def bad_path(command: str, kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    inputs: dict[str, Path] = request.getfixturevalue("inputs")
    if command == "generate":  # it writes to the path: a fresh set, the others' stays intact
        (tmp_path / "inputs").mkdir()
        inputs = build_inputs(tmp_path / "inputs", only=kind)
        if kind == "deep_folder":
            request.addfinalizer(lambda: remove_deep_folder(inputs["deep_folder"]))
    path = inputs[kind]
    out = tmp_path / "out"
    out.mkdir()
    theirs = out / "notes.txt"
    theirs.write_bytes(b"not ours\n")
    args = [a.format(path=path, out=out) for a in COMMANDS[command]["read"]]
    before = snapshot(path.parent.parent)
    device = os.stat("/dev/zero")

    result = invoke(args)

    err = result.stderr
    want = expected_exit(command, kind)
    assert result.exit_code == want, f"exit {result.exit_code}, expected {want}: {err[-1500:]}"
    said = result.stdout + err if command == "validate" else err  # validate: its report
    if want != 0:
        assert said.strip(), "a failed run says why on stderr"
    if kind in {"fifo", "dev_zero"} and command not in {"rules", "generate"}:
        assert "not a regular file" in said, said[-1500:]
    if kind in NOTHING_READABLE and command not in {"rules", "generate", "validate"}:
        assert "nothing readable in" in err and NOTHING_READABLE[kind] in err, err[-1500:]
        assert result.stdout == ""
    after_run = snapshot(path.parent.parent)
    if command == "generate":  # only what -o names may change, and a link stays a link
        target = str(path)
        for name in (before, after_run):
            for entry in [e for e in name if e == target or e.startswith(target + os.sep)]:
                if entry != target or kind != "dev_zero":
                    del name[entry]
    assert after_run == before, "an input was changed"
    assert theirs.read_bytes() == b"not ours\n"
    after = os.stat("/dev/zero")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == device.st_rdev
    if want != 0:
        left = sorted(p.name for p in out.rglob("*") if p != theirs)
        assert left == [], f"a failed run left {left}"


def bad_ids_path(command: str, kind: str, _request: Any, tmp_path: Path) -> None:
    """``--ids`` takes a file like the records do: a FIFO never blocks the run, a symlink to
    ``/dev/zero`` is never read; each is a usage error (exit 2) naming the reason."""
    ids = tmp_path / "ids.txt"
    if kind == "fifo":
        os.mkfifo(ids)
    elif kind == "dev_zero":
        ids.symlink_to("/dev/zero")
    elif kind == "empty_dir":
        ids.mkdir()
    game = tmp_path / "classic-2014.4-17.xml"
    game.write_bytes(GAME)
    args = [a.format(path=game, out=tmp_path) for a in COMMANDS[command]["read"]]
    result = invoke([*args, "--ids", str(ids)])
    assert result.exit_code == USAGE, result.stderr[-1500:]
    assert "--ids" in result.stderr
    if kind in {"fifo", "dev_zero"}:
        assert "not a regular file" in result.stderr


def games_folder(tmp_path: Path) -> Path:
    """``data/`` holding a game file and ``strados2014-4.zip`` of two games."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "classic-2014.4-17.xml").write_bytes(GAME)
    with zipfile.ZipFile(data / "strados2014-4.zip", "w") as archive:
        for number in (1, 2):
            archive.writestr(f"classic-2014.4-{number}.xml", GAME)
    return data


def output_over_input(command: str, case: str, _request: Any, tmp_path: Path) -> None:
    data = games_folder(tmp_path)
    game = str(data / "classic-2014.4-17.xml")
    archive = str(data / "strados2014-4.zip")
    same = game if command == "show" else archive
    picture = command in {"heatmap", "setups", "show"}
    extra: list[str] = []
    if case == "the --ids file":
        ids = tmp_path / ("ids.png" if picture else "ids.zip")
        ids.write_text("classic-2014.4-17\n", encoding="utf-8")
        path, out, extra = str(data), str(ids), ["--ids", str(ids)]
    elif case == "a symlink to it":
        (tmp_path / ("link.png" if picture else "link.zip")).symlink_to(same)
        path, out = archive, str(tmp_path / ("link.png" if picture else "link.zip"))
    elif case == "a file linked into the input folder":  # issue 39: compared by real file
        real = tmp_path / "ext" / Path(same).name
        real.parent.mkdir()
        os.replace(same, real)
        (data / real.name).symlink_to(real)
        path, out = str(data / real.name) if command == "show" else str(data), str(real)
    elif case == "a hard link to it":
        os.link(same, tmp_path / ("hard.png" if picture else "hard.zip"))
        path, out = archive, str(tmp_path / ("hard.png" if picture else "hard.zip"))
    else:
        path, out = {
            "the input file": (archive, same),
            "a record inside the input folder": (str(data), game),
            "the input folder": (str(data), str(data)),
        }[case]
    before = snapshot(tmp_path)
    args = [a.format(path=path, game=game, out=out) for a in COMMANDS[command]["output"]]

    result = invoke([*args, *extra])

    assert result.exit_code == USAGE, result.stderr[-1500:]
    said = result.stderr
    clicks_own_check = "is a file." in said or "is a directory." in said  # click.Path
    if case == "the --ids file":
        assert f"is the input {out}" in said or clicks_own_check, said
    else:
        assert "write it elsewhere" in said or clicks_own_check, said
    assert snapshot(tmp_path) == before, "an input was changed or an output written"


def symlink_to_a_folder(command: str, _case: str, _request: Any, tmp_path: Path) -> None:
    data = games_folder(tmp_path)
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "out"
    link.symlink_to(real)
    args = [a.format(path=data, game="", out=link) for a in COMMANDS[command]["output"]]
    result = invoke(args)
    assert result.exit_code != 0
    assert f"{link} is a symlink to the folder {real}" in result.stderr, result.stderr
    assert "is not a folder" not in result.stderr
    assert list(real.iterdir()) == []


HOSTILE_MEMBER = "classic-2014.4-51\x1b[2J\r<img src=x onerror=alert(1)>.xml"
RAW = ("\x1b", "\r", "\x07", "\ufffe", "\uffff")


def hostile_names(tmp_path: Path) -> Path:
    """Four games whose names no writer may crash on: a year past 2107 (XML), year 9999
    (.gsn), a zip member named with ESC, CR and markup, players with control characters
    and noncharacters (the .gsn fixtures named after them)."""
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "classic-2200.0-1.xml").write_bytes(GAME)
    gsn = record_to_gsn(parse_record(GAME, "classic-2014.4-17.xml"))
    (folder / "classic.9999.12.31.1.gsn").write_bytes(gsn)
    with zipfile.ZipFile(folder / "strados2014-3.zip", "w") as archive:
        archive.writestr(HOSTILE_MEMBER, GAME)
    for number, fixture in enumerate(
        ("control_characters_in_names.gsn", "noncharacters_in_names.gsn"), start=2
    ):
        (folder / f"classic.2003.06.07.{number}.gsn").write_bytes((GSN / fixture).read_bytes())
    return folder


def names_that_crash_writers(command: str, _case: str, _request: Any, tmp_path: Path) -> None:
    folder = hostile_names(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    path = folder / "classic-2200.0-1.xml" if command == "show" else folder
    result = invoke([a.format(path=path, out=out) for a in COMMANDS[command]["read"]])
    assert result.exit_code == (USAGE if command in TOO_FEW_FOR_A_MODEL else 0), result.stderr
    for raw in RAW:
        assert raw not in result.stdout + result.stderr, f"{raw!r} printed raw"
    for written in out.rglob("*"):
        if written.suffix == ".html":
            page = written.read_text(encoding="utf-8")
            assert "<img src=x" not in page and not any(raw in page for raw in RAW[:3])
        if written.suffix == ".zip":
            with zipfile.ZipFile(written) as archive:
                dates = [entry.date_time[0] for entry in archive.infolist()]
            assert len(dates) == 5 and all(1980 <= year <= 2107 for year in dates)
            again = invoke(["validate", str(written), "--jobs", "1"])
            assert again.exit_code == 0 and "5 games in 1 file: 5 valid" in again.stdout


def reader_goes_away(command: str, _case: str, request: pytest.FixtureRequest, tmp: Path) -> None:
    """``strat-tools COMMAND ... | head -0``: the reader closes the pipe before the first
    write; the command stops writing, says nothing about it and exits 0 (``head`` got what
    it asked for)."""
    many_games: Path = request.getfixturevalue("many_games")
    args = [
        a.format(data=many_games, game=GAME_FILE, tables=tmp / "t", obs=tmp / "o")
        for a in COMMANDS[command]["pipe"]
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


CHECKS: dict[str, Callable[[str, str, Any, Path], None]] = {
    "bad path": bad_path,
    "bad --ids path": bad_ids_path,
    "output over input": output_over_input,
    "-o a symlink to a folder": symlink_to_a_folder,
    "names that crash writers": names_that_crash_writers,
    "reader goes away": reader_goes_away,
}
SLOW = {"reader goes away"}
SLOW_CELLS = {("report", "names that crash writers")}
"""Cells past ~5 s: the report draws all its figures (10 s)."""
QUICK_KINDS = {"fifo", "dev_zero", "zip_bomb", "non_utf8", "missing"}
"""The bad paths every command meets in the quick tier: a hang, an endless read, a bomb, an
undecodable name and nothing there (each a different guard). The full tier (CI) runs every
kind for every command: the quick tier ran all 362 cells, two minutes of its workers."""


def is_slow(command: str, cls: str, case: str) -> bool:
    if cls in SLOW or (command, cls) in SLOW_CELLS:
        return True
    return cls == "bad path" and case not in QUICK_KINDS


TABLE = [
    pytest.param(
        command,
        cls,
        case,
        id=f"{command}-{cls}" + (f"-{case}" if case else ""),
        marks=[pytest.mark.slow] if is_slow(command, cls, case) else [],
    )
    for command in sorted(COMMANDS)
    for cls, cases in CLASSES.items()
    for case in cases
    if not_applicable(command, cls, case) is None
]


# --- the table ------------------------------------------------------------------------------


GROUPS = {
    "bench": "its inputs are the benchmark's own zips, found by name and checked by SHA-256 "
    "(a missing, changed or FIFO zip: tests/test_benchmark_build.py) and submissions "
    "(every malformed one: the scorer's tests), not arbitrary record paths",
}
"""Command groups, held to the attacks by their own tests (why, for each)."""


def test_every_registered_command_is_in_the_table() -> None:
    groups = {name for name, c in main.commands.items() if isinstance(c, click.Group)}
    assert groups == set(GROUPS), "a new command group says in GROUPS where it is attacked"
    assert set(COMMANDS) == set(main.commands) - groups, "add the new command to COMMANDS"
    with_output = {name for name in COMMANDS if "-o" in options_of(name)}
    assert {name for name, row in COMMANDS.items() if "output" in row} == with_output - {
        "generate"  # its -o reads nothing
    }
    ids = {name for name in main.commands if "--ids" in options_of(name)}
    assert {"filter", "search", "setups", "advice"} <= ids


def test_every_cell_is_run_or_says_why_not() -> None:
    run = {(p.values[0], p.values[1], p.values[2]) for p in TABLE}
    for command in COMMANDS:
        for cls, cases in CLASSES.items():
            for case in cases:
                why = not_applicable(command, cls, case)
                assert ((command, cls, case) in run) != bool(why), (command, cls, case)
    assert set(CHECKS) == set(CLASSES)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """One set of bad paths for every reading command (they must leave it as it is)."""
    made = build_inputs(tmp_path_factory.mktemp("hostile"))
    yield made
    remove_deep_folder(made["deep_folder"])


@pytest.fixture(scope="module")
def many_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of 40 games: enough output that the first line is not all of it."""
    data = tmp_path_factory.mktemp("piped") / "data"
    data.mkdir()
    for number in range(40):
        (data / f"classic-2014.4-{number + 100}.xml").write_bytes(GAME)
    return data


@pytest.mark.timeout(120)  # a hang (a FIFO opened, /dev/zero read) fails, never blocks
@pytest.mark.parametrize(("command", "cls", "case"), TABLE)
def test_every_command_keeps_its_promises_under_every_attack(
    command: str, cls: str, case: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    CHECKS[cls](command, case, request, tmp_path)


# --- checks of some commands only (they belong to no column of the table) -------------------


@pytest.mark.parametrize(
    "args", [["filter"], ["search", "--pattern", "........../" * 3 + "..........", "--list-games"]]
)
def test_listed_game_ids_show_control_characters_escaped(tmp_path: Path, args: list[str]) -> None:
    archive = tmp_path / "strados2014-3.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("classic-2014.4-5\x1b[2J\r.xml", GAME)
    result = CliRunner().invoke(main, [args[0], str(archive), *args[1:], "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    assert "classic-2014.4-5\\x1b[2J\\r" in result.stdout


@pytest.mark.parametrize(
    ("command", "name"),
    [("view", "page.html"), ("report", "report.html"), ("heatmap", "flag.png")],
)
def test_a_page_or_figure_may_go_into_an_input_folder(
    command: str, name: str, tmp_path: Path
) -> None:
    """Not a name the read takes: written beside the games, which stay as they were."""
    data = games_folder(tmp_path)
    games = {p.name: p.read_bytes() for p in data.iterdir()}
    out = data / name
    args = [a.format(path=data, game="", out=out) for a in COMMANDS[command]["output"]]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.stderr[-1500:]
    assert out.stat().st_size > 0
    assert {p.name: p.read_bytes() for p in data.iterdir() if p != out} == games


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
    written dated 1980-01-01, and reads back (each zip writer, each side of the range)."""
    game = tmp_path / name
    if name.endswith(".gsn"):
        game.write_bytes(record_to_gsn(parse_record(GAME, "classic-2014.4-17.xml")))
    else:
        game.write_bytes(GAME)
    out = tmp_path / "out.zip"
    result = invoke([command[0], str(game), *command[1:], "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    with zipfile.ZipFile(out) as archive:
        (entry,) = archive.infolist()
        assert 1980 <= entry.date_time[0] <= 2107
    again = invoke(["validate", str(out), "--jobs", "1"])
    assert again.exit_code == 0, again.stdout + again.stderr
