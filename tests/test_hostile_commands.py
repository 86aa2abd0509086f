"""Every command keeps issue 14's promises under attack (docs/security.md).

Each command registered on the CLI (``strat_tools.cli.main.commands``: a new command fails
:func:`test_every_registered_command_is_attacked` until it is listed here) is run on each
hostile input below, and must:

- end without a traceback, with the exit code docs/security.md gives for that input;
- say on stderr what happened (the reader's reason for an input it could not read);
- write nothing over anything that is not its own: the inputs (the FIFO, the symlink and
  its device, the zips, the folders) are unchanged, a file already in the output folder is
  untouched, and a run that fails (exit 2 or 3) leaves no output behind.

The hostile inputs: a FIFO named ``*.zip`` (opening it would hang), a symlink named ``*.zip``
to ``/dev/zero`` (reading it would never end), a truncated zip, a zip whose members overlap
(a zip bomb: gigabytes from kilobytes), a zip member declaring more than the 64 MiB a game
file may have, a file name that is not UTF-8 (holding a good game: it is read), an empty
folder, folders named like a zip and a game file, and a path that does not exist.
``generate`` reads nothing: it gets the hostile paths as its ``-o``; ``rules`` takes no path:
one is a usage error.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_hostile_inputs import fifield_bomb

from strat_tools.cli import main

GAME = (Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml").read_bytes()
PATTERN = "........../........../........../F........."

USAGE, FAILED = 2, 3


def build_inputs(root: Path) -> dict[str, Path]:
    """The hostile inputs, each in its own folder under ``root`` (see the module docstring)."""
    made: dict[str, Path] = {}

    def place(kind: str, name: bytes | str) -> Path:
        folder = root / kind
        folder.mkdir()
        return Path(os.fsdecode(os.path.join(os.fsencode(folder), os.fsencode(name))))

    made["fifo"] = place("fifo", "strados2014-3.zip")
    os.mkfifo(made["fifo"])
    made["dev_zero"] = place("dev_zero", "strados2014-3.zip")
    made["dev_zero"].symlink_to("/dev/zero")
    whole = root / "whole.zip"
    with zipfile.ZipFile(whole, "w", zipfile.ZIP_DEFLATED) as archive:
        for number in (1, 2):
            archive.writestr(f"classic-2014.4-{number}.xml", GAME)
    made["truncated_zip"] = place("truncated_zip", "strados2014-3.zip")
    made["truncated_zip"].write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    whole.unlink()
    made["zip_bomb"] = place("zip_bomb", "strados2014-4.zip")
    fifield_bomb(made["zip_bomb"], members=12, kernel_bytes=8 * 1024 * 1024)
    made["huge_member"] = place("huge_member", "strados2014-4.zip")
    huge_member_zip(made["huge_member"], 80 * 1024 * 1024)
    made["non_utf8"] = place("non_utf8", b"classic-2014.4-\xff7.xml")
    made["non_utf8"].write_bytes(GAME)
    made["empty_dir"] = place("empty_dir", "games")
    made["empty_dir"].mkdir()
    made["dir_like_zip"] = place("dir_like_zip", "strados2014-3.zip")
    made["dir_like_zip"].mkdir()
    made["dir_like_xml"] = place("dir_like_xml", "classic-2014.4-17.xml")
    made["dir_like_xml"].mkdir()
    made["missing"] = place("missing", "classic-2014.4-404.xml")
    return made


def huge_member_zip(path: Path, size: int) -> None:
    """A zip with one game member that inflates to ``size`` bytes of spaces (a few KB packed)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b" " * (1 << 20)
    packed = b"".join(packer.compress(chunk) for _ in range(size >> 20)) + packer.flush()
    crc = 0
    for _ in range(size >> 20):
        crc = zlib.crc32(chunk, crc)
    name = b"classic-2014.4-9.xml"
    local = struct.pack(
        "<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(packed), size, len(name), 0
    )
    central = struct.pack(
        "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(packed), size,
        len(name), 0, 0, 0, 0, 0, 0,
    )  # fmt: skip
    body = local + name + packed
    directory = central + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), len(body), 0)
    path.write_bytes(body + directory + end)
    with zipfile.ZipFile(path) as archive:  # an honest zip: only its member is too big
        assert archive.getinfo("classic-2014.4-9.xml").file_size == size


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
]

COMMANDS: dict[str, list[str]] = {
    "validate": ["validate", "{path}", "--jobs", "1"],
    "generate": ["generate", "-n", "2", "-o", "{path}", "--jobs", "1"],
    "export": ["export", "{path}", "-o", "{out}/tables", "--jobs", "1"],
    "stats": ["stats", "{path}", "--jobs", "1"],
    "advice": ["advice", "{path}", "--jobs", "1"],
    "heatmap": ["heatmap", "{path}", "--piece", "flag", "-o", "{out}/flag.png", "--jobs", "1"],
    "report": ["report", "{path}", "-o", "{out}/report.html", "--jobs", "1"],
    "show": ["show", "{path}"],
    "rules": ["rules", "{path}"],
    "observations": ["observations", "{path}", "-o", "{out}/obs", "--jobs", "1"],
    "convert": ["convert", "{path}", "--to", "gsn", "-o", "{out}/out.zip", "--jobs", "1"],
    "events": ["events", "{path}", "--jobs", "1"],
    "view": ["view", "{path}", "-o", "{out}/page.html"],
    "setups": ["setups", "{path}", "--jobs", "1"],
    "search": ["search", "{path}", "--pattern", PATTERN, "--jobs", "1"],
    "filter": ["filter", "{path}", "-o", "{out}/picked.zip", "--jobs", "1"],
    "openings": ["openings", "{path}", "--jobs", "1"],
    "explore": ["explore", "{path}", "-o", "{out}/explore.html", "--jobs", "1"],
}
"""How each command is run on a hostile path (``{out}``: a folder of its own for outputs)."""

READ_ONE_GOOD_GAME = {"non_utf8"}
"""Inputs that hold a readable game: every reading command reads it and succeeds."""

UNREADABLE = {"fifo", "dev_zero", "truncated_zip", "zip_bomb", "huge_member", "missing"}
"""Inputs that name record files, none of them readable."""

EXPECTED: dict[tuple[str, str], int] = {("validate", kind): 1 for kind in UNREADABLE}
"""Exit codes other than the rule of :func:`expected_exit`: ``validate`` reports each
unreadable input as a finding, with its reason, on stdout (its data), and exits 1."""

SKIPPED = {
    ("generate", "fifo"): "a FIFO as -o is written through: the run waits for a reader, "
    "as any writer would (docs/security.md)",
}


GENERATE_REFUSED = {"non_utf8", "dir_like_zip"}
"""``generate -o``: an existing file not named .zip (a folder is meant) and a folder named
.zip cannot be written (exit 3); a device is written through, a regular file replaced, a
folder filled."""


def expected_exit(command: str, kind: str) -> int:
    """The documented exit code: a readable game is success; a path with nothing readable
    is a usage error (exit 2, nothing written); ``rules`` takes no path (exit 2)."""
    if (command, kind) in EXPECTED:
        return EXPECTED[command, kind]
    if command == "rules":
        return USAGE
    if command == "generate":  # the path is its -o
        return FAILED if kind in GENERATE_REFUSED else 0
    return 0 if kind in READ_ONE_GOOD_GAME else USAGE


def snapshot(root: Path) -> dict[str, tuple[str, str]]:
    """Every entry under ``root`` (symlinks not followed): its kind and its content's hash."""
    found: dict[str, tuple[str, str]] = {}
    for folder, dirs, files in os.walk(os.fsencode(root)):
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                what = ("link", os.fsdecode(os.readlink(path)))
            elif stat.S_ISREG(mode):
                with open(path, "rb") as handle:
                    what = ("file", hashlib.sha256(handle.read()).hexdigest())
            else:
                what = (stat.filemode(mode)[0], "")
            found[os.fsdecode(path)] = what
    return found


def test_every_registered_command_is_attacked() -> None:
    assert set(COMMANDS) == set(main.commands), "add the new command to COMMANDS"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One set for every reading command (they must leave it as it is)."""
    return build_inputs(tmp_path_factory.mktemp("hostile"))


@pytest.mark.timeout(120)  # a hang (a FIFO opened, /dev/zero read) fails, never blocks
@pytest.mark.parametrize("kind", INPUTS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_keeps_its_promises_on_a_hostile_input(
    command: str, kind: str, inputs: dict[str, Path], tmp_path: Path
) -> None:
    if (command, kind) in SKIPPED:
        pytest.skip(SKIPPED[command, kind])
    if command == "generate":  # it writes to the path: a fresh set, the others' stays intact
        (tmp_path / "inputs").mkdir()
        inputs = build_inputs(tmp_path / "inputs")
    path = inputs[kind]
    out = tmp_path / "out"
    out.mkdir()
    theirs = out / "notes.txt"
    theirs.write_bytes(b"not ours\n")
    args = [a.format(path=path, out=out) for a in COMMANDS[command]]
    before = snapshot(path.parent.parent)
    device = os.stat("/dev/zero")

    result = CliRunner().invoke(main, args)

    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    err = result.stderr
    assert "Traceback" not in err and "Traceback" not in result.stdout
    want = expected_exit(command, kind)
    assert result.exit_code == want, f"exit {result.exit_code}, expected {want}: {err[-1500:]}"
    said = result.stdout + err if command == "validate" else err  # validate: its report
    if want != 0:
        assert said.strip(), "a failed run says why on stderr"
    if kind in {"fifo", "dev_zero"} and command not in {"rules", "generate"}:
        assert "not a regular file" in said, said[-1500:]
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


ID_FILE_COMMANDS = sorted(
    name
    for name, command in main.commands.items()
    if any("--ids" in getattr(p, "opts", ()) for p in command.params)
)
"""Every command that reads a list of game ids from a file (``--ids FILE``)."""


def test_the_id_file_commands_are_found() -> None:
    assert {"filter", "search", "setups", "advice"} <= set(ID_FILE_COMMANDS)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "missing", "empty_dir"])
@pytest.mark.parametrize("command", ID_FILE_COMMANDS)
def test_an_id_file_is_opened_only_if_it_is_a_regular_file(
    command: str, kind: str, tmp_path: Path
) -> None:
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
    args = [a.format(path=game, out=tmp_path) for a in COMMANDS[command]]
    result = CliRunner().invoke(main, [*args, "--ids", str(ids)])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == USAGE, result.stderr[-1500:]
    assert "--ids" in result.stderr and "Traceback" not in result.stderr
    if kind in {"fifo", "dev_zero"}:
        assert "not a regular file" in result.stderr


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
