"""Hostile and odd inputs (issue 14, input side): every command reads what it can, refuses
what is not a regular file or not an honest zip, in bounded time and memory, and one bad
game or name never stops a run. Each test builds its input in a temp folder."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path
from typing import BinaryIO

import pytest
from hostile_paths import fifield_bomb

import strat_tools as st
from strat_tools.formats.readers import read_records, read_units
from strat_tools.io import sources, zipdir
from strat_tools.io.sources import archive_budget, expand, printable
from strat_tools.run.pipeline import iter_batches

REPO = Path(__file__).resolve().parent.parent
GRAVON = Path(__file__).parent / "fixtures" / "gravon"
GAME = (GRAVON / "classic-2014.4-17.xml").read_bytes()
STRICT_UTF8 = {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"}


def cli(
    *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run the CLI in a fresh process (a hang is a failure after ``timeout`` seconds)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    done = subprocess.run(
        [sys.executable, "-m", "strat_tools", *args],
        capture_output=True,
        timeout=timeout,
        env=full_env,
        check=False,
    )
    return (
        done.returncode,
        done.stdout.decode("utf-8", "backslashreplace"),
        done.stderr.decode("utf-8", "backslashreplace"),
    )


def game_named(number: int | str, month: str = "2014.4") -> str:
    return f"classic-{month}-{number}.xml"


# -- names that are not valid UTF-8 ------------------------------------------------------


@pytest.fixture
def non_utf8_folder(tmp_path: Path) -> Path:
    """A folder walk meets a file whose name holds the byte 0xff (not UTF-8), and a good one."""
    folder = tmp_path / "games"
    folder.mkdir()
    raw = os.fsencode(folder) + b"/classic-2014.4-\xff7.xml"
    with open(raw, "wb") as handle:
        handle.write(GAME)
    (folder / game_named(8)).write_bytes(GAME)
    return folder


def test_non_utf8_file_name_is_carried_in_printable_form(non_utf8_folder: Path) -> None:
    sources = sorted(u.source for u in expand(non_utf8_folder))
    assert [os.path.basename(s) for s in sources] == [
        "classic-2014.4-8.xml",
        "classic-2014.4-\\xff7.xml",
    ]
    games = st.read_games(non_utf8_folder, run=1)
    assert sorted(games.games["game_id"]) == ["classic-2014.4-8", "classic-2014.4-\\xff7"]
    assert list(games.games["status"]) == ["valid", "valid"]


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "--format", "csv"],
        ["validate", "--format", "json"],
        ["stats"],
        ["export", "-o", "{tmp}/out"],
        ["report", "-o", "{tmp}/report.md"],
        ["heatmap", "--piece", "flag", "-o", "{tmp}/flag.png"],
        ["advice"],
    ],
    ids=lambda c: c[0] + ("-" + c[2] if c[0] == "validate" else ""),
)
@pytest.mark.slow
def test_every_command_reads_a_non_utf8_name_under_a_strict_utf8_locale(
    non_utf8_folder: Path, tmp_path: Path, command: list[str]
) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    code, out, err = cli(*args, str(non_utf8_folder), "--jobs", "1", env=STRICT_UTF8)
    assert code == 0, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    if command[0] == "validate":
        assert "classic-2014.4-\\xff7" in out.replace("\\\\", "\\")


def test_show_a_game_with_a_non_utf8_name_under_a_strict_utf8_locale(
    non_utf8_folder: Path,
) -> None:
    (path,) = [p for p in os.listdir(os.fsencode(non_utf8_folder)) if b"\xff" in p]
    zipped = non_utf8_folder.parent / "one.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr(game_named(9), GAME)
    code, out, err = cli("show", str(zipped), env=STRICT_UTF8)
    assert code == 0, err
    assert "classic-2014.4-9" in out
    full = os.fsdecode(os.fsencode(non_utf8_folder) + b"/" + path)
    code, out, err = cli("show", full, env=STRICT_UTF8)
    assert code == 0, err
    assert out.splitlines()[0].startswith("classic-2014.4-\\xff7  ply 3/3")


def test_printable_escapes_only_undecodable_bytes() -> None:
    assert printable(os.fsdecode(b"a\xffb\xc3\xa9.xml")) == "a\\xffb\u00e9.xml"
    assert printable("plain \u00e9.xml") == "plain \u00e9.xml"


def flag_member_name(path: Path, good: str, bad: bytes) -> None:
    """Rewrite member ``good``'s name to ``bad`` bytes with the UTF-8 flag set (invalid)."""
    data = bytearray(path.read_bytes())
    old = good.encode()
    assert len(old) == len(bad)
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = 0
        while (at := data.find(signature, at)) >= 0:
            name_at = data.find(old, at)
            if 0 <= name_at - at <= 46:
                data[name_at : name_at + len(old)] = bad
                flags = struct.unpack_from("<H", data, at + flag_at)[0]
                struct.pack_into("<H", data, at + flag_at, flags | 0x800)
            at += 4
    path.write_bytes(bytes(data))


def test_a_member_flagged_utf8_with_invalid_bytes_keeps_the_other_games(tmp_path: Path) -> None:
    path = tmp_path / "strados2014-4.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for number in (1, 2, 3):
            archive.writestr(game_named(number), GAME)
    flag_member_name(path, game_named(2), game_named(2).encode().replace(b"2.xml", b"\xff.xml"))
    code, out, err = cli("validate", "--format", "json", "--jobs", "1", str(path))
    assert code == 0, err
    doc = json.loads(out)
    assert [g["member"] for g in doc["games"]] == [
        "classic-2014.4-1.xml",
        "classic-2014.4-3.xml",
        "classic-2014.4-\\xff.xml",
    ]
    assert doc["summary"]["valid"] == 3


def test_duplicate_member_names_are_each_checked(tmp_path: Path) -> None:
    path = tmp_path / "dupes.zip"
    broken = GAME.replace(b'target="I5"', b'target="I9"')
    with pytest.warns(UserWarning), zipfile.ZipFile(path, "w") as archive:
        archive.writestr(game_named(5), broken)
        archive.writestr(game_named(5), GAME)
    code, out, _ = cli("validate", "--format", "json", "--jobs", "1", str(path))
    doc = json.loads(out)
    first, second = doc["games"]
    # Each entry is read from its own data: the first is the broken game, not a copy of the
    # last one under the same name.
    assert (first["status"], second["status"]) == ("invalid", "valid")
    assert [d["code"] for d in first["diagnostics"]] == ["rule.scout_path"]
    assert code == 1


# -- game numbers past 2^31 and 2^63 -----------------------------------------------------


def test_game_numbers_past_2_31_are_read_and_past_2_63_kept_without_a_number(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    for number in (2**31, 2**63 - 1, 2**64):
        (folder / game_named(number, "2014.5")).write_bytes(GAME.replace(b"2014.4", b"2014.5"))
    games = st.read_games(folder, run=1)
    numbers = dict(zip(games.games["game_id"], games.games["number"], strict=True))
    assert numbers[f"classic-2014.5-{2**31}"] == 2**31
    assert numbers[f"classic-2014.5-{2**63 - 1}"] == 2**63 - 1
    assert games.games["number"].isna().sum() == 1
    code, _out, err = cli("export", "-o", str(tmp_path / "out"), "--jobs", "1", str(folder))
    assert code == 0, err
    assert "3 games = 3 valid" in err + _out


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
def test_generate_first_number_past_2_31_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "gen.zip"
    code, _, err = cli("generate", "-n", "2", "-o", str(out), "--first-number", str(2**31))
    assert code == 0, err
    code, _, err = cli("stats", "--jobs", "1", str(out))
    assert code == 0, err
    code, _, err = cli("export", "-o", str(tmp_path / "tables"), "--jobs", "1", str(out))
    assert code == 0, err


# -- a lake mark on an ordinary square ---------------------------------------------------


def test_a_lake_mark_off_the_lakes_is_refused_and_never_taken_for_a_piece(tmp_path: Path) -> None:
    field = re.search(rb'content="([^"]+)"', GAME)
    assert field is not None
    squares = bytearray(field.group(1))
    squares[48] = ord("_")  # I5, where red's first move (I4-I5) goes
    path = tmp_path / game_named(30)
    path.write_bytes(GAME.replace(field.group(1), bytes(squares)))
    code, out, _ = cli("validate", "--format", "json", "--jobs", "1", str(path))
    (game,) = json.loads(out)["games"]
    codes = [d["code"] for d in game["diagnostics"]]
    assert codes == ["setup.lake", "rule.lake"]
    assert "flag" not in json.dumps(game)
    assert code == 1
    code, _, err = cli("export", "-o", str(tmp_path / "out"), "--jobs", "1", str(path))
    assert code in (0, 1) and "Traceback" not in err and "out of bounds" not in err
    games = st.read_games(path, run=1)
    assert list(games.games["status"]) == ["invalid"]


# -- only regular files, in bounded time and memory --------------------------------------


def test_a_fifo_named_zip_never_hangs_a_command(tmp_path: Path) -> None:
    fifo = tmp_path / "games.zip"
    os.mkfifo(fifo)
    (tmp_path / game_named(1)).write_bytes(GAME)
    for args in (["validate", str(fifo)], ["validate", str(tmp_path)]):
        _, out, err = cli(*args, "--jobs", "1", timeout=60)
        assert "not a regular file" in out + err
        assert "Traceback" not in err
    for command in ("stats", "export"):  # ends (a hang fails after the timeout)
        _, out, err = cli(command, str(fifo), "-o", str(tmp_path / command), timeout=60)
        assert "Traceback" not in err


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_symlink_named_zip_to_a_device_is_refused_before_reading(
    tmp_path: Path, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist on this machine")
    for name in ("games.zip", "game.xml", "game.gsn"):
        (tmp_path / name).symlink_to(device)
    list(read_records([GRAVON / "classic-2014.4-17.xml"]))  # imports done: not in the peak
    work = count_zip_work(monkeypatch)
    tracemalloc.start()
    records = list(read_records([tmp_path / "games.zip", tmp_path / "game.xml"]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [r.diagnostics[0].message for r in records] == [
        "not a readable zip archive: not a regular file (a FIFO, device or socket)",
        "not a regular file (a FIFO, device or socket)",
    ]
    assert work == {"directories": 0, "entries": 0, "members": 0, "inflated": 0}  # not read
    assert peak < 8 * 1024 * 1024
    _, out, err = cli("validate", "--jobs", "1", str(tmp_path), timeout=60)
    assert "0 games" in out and "3 unreadable inputs" in out, out + err  # .gsn is a record too


def count_zip_work(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the work done on zips from now on: central directories read, directory entries
    parsed, members read and bytes inflated (work counted, not time: a test must not fail
    because the machine is busy)."""
    work = {"directories": 0, "entries": 0, "members": 0, "inflated": 0}

    def read_directory(handle: BinaryIO, size: int) -> list[zipdir.ZipEntry]:
        entries = zipdir.read_directory(handle, size)
        work["directories"] += 1
        work["entries"] += len(entries)
        return entries

    def read_entry(handle: BinaryIO, entry: zipdir.ZipEntry, limit: int) -> bytes:
        work["members"] += 1
        data = zipdir.read_entry(handle, entry, limit)
        work["inflated"] += len(data)
        return data

    monkeypatch.setattr(sources, "read_directory", read_directory)
    monkeypatch.setattr(sources, "read_entry", read_entry)
    return work


def many_members_zip(path: Path, count: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for number in range(count):
            archive.writestr(f"g/{game_named(number)}", b"x")
    return path


@pytest.mark.parametrize("count", [1_000, 16_000])
def test_work_is_linear_in_the_members_of_one_zip(
    tmp_path: Path, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = many_members_zip(tmp_path / f"m{count}.zip", count)
    work = count_zip_work(monkeypatch)
    # The batches a worker reads: as the CLI cuts them for --jobs 1 (200 units each).
    batches = list(iter_batches(expand([path]), jobs=1))
    assert len(batches) >= 8  # several batches: a directory read per batch would show
    total = sum(sum(1 for _ in read_units(batch, check=False)) for batch in batches)
    assert total == count
    # The directory is read once (not once per batch: that would be quadratic), and each
    # member once, with one seek.
    assert work == {"directories": 1, "entries": count, "members": count, "inflated": count}


def test_an_overlapping_zip_bomb_is_refused_with_bounded_work_and_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bomb.zip"
    inflated = fifield_bomb(path, members=60, kernel_bytes=20 * 1024 * 1024)
    assert inflated > 1_000_000_000 and path.stat().st_size < 100_000
    with zipfile.ZipFile(path) as archive:  # a real overlapping bomb: zipfile would follow it
        assert archive.read("classic-2014.4-58.xml")[:4] == b"PK\x03\x04"
    work = count_zip_work(monkeypatch)
    tracemalloc.start()
    records = list(read_records(path, check=False))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    reasons = [r.diagnostics[0].message for r in records if not r.readable]
    assert len(records) == 60 and len(reasons) >= 59
    # Refused by the budget on declared bytes first, and by the overlap check anyway.
    assert all("declare more than" in m or "overlaps another member" in m for m in reasons)
    assert any("overlaps another member" in m for m in reasons)
    # Bounded work: the directory once, each member at most once, and nothing inflated past
    # one game's limit (refused on the declared sizes before inflating).
    assert work["directories"] == 1 and work["members"] <= 60, work
    assert work["inflated"] <= archive_budget(path.stat().st_size), work
    assert peak < 64 * 1024 * 1024, peak
    _, out, err = cli("validate", "--jobs", "1", str(path), timeout=60)
    assert re.search(r"(59|60) unreadable inputs", out), out + err


def test_members_may_declare_only_what_deflate_can_make_of_the_archive(tmp_path: Path) -> None:
    path = tmp_path / "liar.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number in range(4):
            archive.writestr(game_named(number), GAME)
    data = bytearray(path.read_bytes())
    declared = 30 * 1024 * 1024  # each under the 64 MiB limit of one game
    at = 0
    while (at := data.find(b"PK\x01\x02", at)) >= 0:
        struct.pack_into("<L", data, at + 24, declared)
        at += 4
    path.write_bytes(bytes(data))
    assert 4 * declared > archive_budget(len(data))
    units = expand(path)
    assert [u.error is not None and "declare more than" in u.error for u in units] == [
        False,
        False,
        True,
        True,
    ]


# -- unreadable inputs are not games -----------------------------------------------------


def test_export_counts_a_missing_path_apart_from_the_games(tmp_path: Path) -> None:
    (tmp_path / game_named(1)).write_bytes(GAME)
    _, out, err = cli(
        "export",
        "-o",
        str(tmp_path / "out"),
        "--jobs",
        "1",
        str(tmp_path / game_named(1)),
        str(tmp_path / "nowhere.xml"),
    )
    assert "1 game = 1 valid + 0 invalid + 0 unchecked; 1 unreadable input" in out + err
    tables = st.read_dataset(tmp_path / "out")
    assert sorted(tables.games["status"]) == ["unreadable", "valid"]


# -- paths: a str, a Path or an iterable of them -----------------------------------------


def test_every_path_taking_function_takes_a_str_a_path_or_an_iterable(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    for number in (1, 2):
        (folder / game_named(number)).write_bytes(GAME)
    text = str(folder) + "/"
    for paths in (text, folder, [text], (p for p in [folder])):
        assert len(list(st.read_records(paths))) == 2
    assert len(st.read_games(text, run=1)) == 2
    assert st.validate(folder).summary.games == 2
    with pytest.raises(TypeError, match="iterable of paths"):
        list(st.read_records(42))  # type: ignore[arg-type]


def test_a_reader_failure_on_one_game_is_one_invalid_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main
    from strat_tools.formats import fastscan

    for number in (1, 2):
        name = b"Player 1" if number == 1 else b"Bug"
        (tmp_path / game_named(number)).write_bytes(GAME.replace(b"Player 1", name))
    real = fastscan.scan

    def failing(data: bytes) -> fastscan.FastGame | None:
        if b">Bug<" in data:
            raise RuntimeError("a reader bug")
        return real(data)

    monkeypatch.setattr(fastscan, "scan", failing)
    result = CliRunner().invoke(
        main, ["validate", "--format", "json", "--jobs", "1", str(tmp_path)]
    )
    doc = json.loads(result.output)
    assert [(g["status"], [d["code"] for d in g["diagnostics"]]) for g in doc["games"]] == [
        ("valid", []),
        ("invalid", ["internal.reader"]),
    ]
    assert result.exit_code == 1
