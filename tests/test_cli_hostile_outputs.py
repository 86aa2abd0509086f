"""The commands added in round 2 (``view``, ``events``, ``convert``, ``observations``,
``show``) against issue 14's promises: a folder holding good games, a truncated XML, a zip
with hostile member names and a file name that is not UTF-8 is read to the end by every
command, every input is accounted for, names are escaped wherever printed or embedded, and
``-o`` onto a device or a symlink goes through :mod:`strat_tools.io.output`. No traceback
anywhere. (A path with nothing readable, for every command: the table of
tests/test_hostile_commands.py, class "bad path".)"""

from __future__ import annotations

import json
import os
import re
import stat
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from strat_tools.cli import main

GRAVON = Path(__file__).parent / "fixtures" / "gravon"
GAME = (GRAVON / "classic-2014.4-17.xml").read_bytes()
HOSTILE_MEMBER = "classic-2014.4-51\x1b[2J\r1000 valid<img src=x onerror=alert(1)>\"q'.xml"
HOSTILE_PLAYER = "&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    """Two good games (one with a player named ``</script><img ...>``), a truncated XML, a
    zip with a good member, a member named with an escape sequence, a carriage return, an
    ``<img onerror>`` tag and quotes, and a truncated member,
    and a file whose name holds the byte 0xff (not UTF-8): seven inputs, five readable."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "classic-2014.4-17.xml").write_bytes(GAME)
    player = re.sub(
        rb"<player id=\"1\">[^<]*<", b'<player id="1">' + HOSTILE_PLAYER.encode() + b"<", GAME
    )
    assert player != GAME
    (folder / "classic-2014.4-18.xml").write_bytes(player)
    (folder / "classic-2014.4-19.xml").write_bytes(GAME[:300])  # truncated
    with zipfile.ZipFile(folder / "strados2014-3.zip", "w") as archive:
        archive.writestr("classic-2014.4-50.xml", GAME)
        archive.writestr(HOSTILE_MEMBER, GAME)
        archive.writestr("classic-2014.4-52.xml", GAME[:200])  # truncated
    with open(os.fsencode(folder) + b"/classic-2014.4-\xff7<b>.xml", "wb") as handle:
        handle.write(GAME)
    return folder


INPUTS = 7
READABLE = 5


def assert_escaped(err: str) -> None:
    assert "\x1b" not in err and "\r" not in err and "\udcff" not in err


def test_events_accounts_for_every_input_of_a_hostile_folder(hostile_folder: Path) -> None:
    code, out, err = run("events", str(hostile_folder), "--format", "json", "--jobs", "1")
    assert code == 0, err
    ends = [row for row in json.loads(out) if row["kind"] == "end"]
    assert len(ends) == INPUTS
    assert sum(row["detail"].startswith("unreadable: ") for row in ends) == INPUTS - READABLE
    code, out, err = run("events", str(hostile_folder), "--jobs", "1", "--kind", "end")
    assert code == 0 and "\x1b" not in out and "\\x1b[2J" in out


def test_convert_accounts_for_every_input_of_a_hostile_folder(
    hostile_folder: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.zip"
    code, _, err = run("convert", str(hostile_folder), "--to", "gsn", "-o", str(out), "--jobs", "1")
    assert code == 1, err
    assert_escaped(err)
    written = len(zipfile.ZipFile(out).namelist())
    failed = err.count(": not converted: ")
    assert written + failed == INPUTS and written >= 3
    assert f"Converted {written} of {INPUTS} games" in err


def test_observations_accounts_for_every_input_of_a_hostile_folder(
    hostile_folder: Path, tmp_path: Path
) -> None:
    out = tmp_path / "obs"
    code, _, err = run("observations", str(hostile_folder), "-o", str(out), "--jobs", "1")
    assert code == 0, err
    games = pq.read_table(out / "games").to_pylist()
    assert len(games) == INPUTS
    assert sum(g["readable"] for g in games) == READABLE
    assert all(g["reason"] for g in games if not g["readable"])


def test_view_embeds_hostile_names_as_data(hostile_folder: Path, tmp_path: Path) -> None:
    page = tmp_path / "games.html"
    code, _, err = run("view", str(hostile_folder), "-o", str(page))
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    # Only the page's own four script elements: a name cannot close one or open markup.
    assert html.count("</script>") == 4 and "onerror" not in html.replace("onerror=alert", "")
    assert "<img" not in html and "\x1b" not in html
    data = re.search(r'<script type="application/json" id="viewer-games">(.*?)</script>', html)
    assert data is not None
    ids = [game["id"] for game in json.loads(data.group(1))]
    assert len(ids) == INPUTS
    assert any("<img src=x onerror=alert(1)>" in i for i in ids)  # the name, back as text
    players = [p for game in json.loads(data.group(1)) for p in game.get("players", [])]
    assert "</script><img src=x onerror=alert(2)>" in players


# -- -o onto a device or a symlink ------------------------------------------------------


def test_view_writes_through_dev_null_and_follows_a_symlink(
    hostile_folder: Path, tmp_path: Path
) -> None:
    code, _, err = run("view", str(hostile_folder), "-o", os.devnull)
    assert code == 0, err
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    target = tmp_path / "target.html"
    link = tmp_path / "link.html"
    link.symlink_to(target)
    code, _, err = run("view", str(hostile_folder), "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and target.read_text(encoding="utf-8").startswith("<!DOCTYPE")


def test_a_device_as_output_folder_is_refused(hostile_folder: Path) -> None:
    code, _, err = run("observations", str(hostile_folder), "-o", os.devnull, "--jobs", "1")
    assert code == 3 and "is not" in err, err
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    # convert writes its zip through a device like every other -o (see
    # test_filtered_commands); a folder of games asked of a device is a usage error.
    code, _, err = run("convert", str(hostile_folder), "--to", "xml", "-o", os.devnull + "/")
    assert code == 2 and "cannot be written to a device" in err, err
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("picture", [None, "board.svg"])
def test_show_a_game_without_a_setup_is_an_error_not_a_traceback(
    tmp_path: Path, picture: str | None
) -> None:
    extra = ["-o", str(tmp_path / picture)] if picture else []
    code, stdout, err = run("show", str(GRAVON / "no_field.xml"), *extra)
    assert code == 3, err
    assert "Error: no_field: the record has no setup to " in err
    assert stdout == "" and list(tmp_path.iterdir()) == []


def test_events_csv_shows_control_characters_in_names_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "classic-2014.4-7\x07\x1b[2J.xml").write_bytes(GAME)
    code, out, err = run("events", str(folder), "--format", "csv", "--kind", "end")
    assert code == 0, err
    assert "\x07" not in out and "\x1b" not in out
    assert "classic-2014.4-7\\x07\\x1b[2J,3,end" in out


@pytest.mark.parametrize("command", ["view", "show"])
def test_no_such_game_is_a_usage_error(hostile_folder: Path, tmp_path: Path, command: str) -> None:
    extra = ["-o", str(tmp_path / "page.html")] if command == "view" else []
    code, stdout, err = run(command, str(hostile_folder), "--game", "nope", *extra)
    assert code == 2 and "no game nope in" in err, err
    assert stdout == "" and not (tmp_path / "page.html").exists()
