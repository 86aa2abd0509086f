"""Output targets: what ``-o`` does to a file, a symlink, a FIFO, a device, a socket, and to
an export folder (owned files only, one writer, marked, checked on reading, never overlapping
an input).

Devices are made with ``mknod`` in the test's own folder (root only: skipped otherwise), so
no test can touch the machine's ``/dev``.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.errors import DatasetError
from strat_tools.io.output import OutputError, output_kind
from strat_tools.io.owned import MARKER_NAME, OwnedFolder
from strat_tools.tables.dataset import read_dataset
from strat_tools.tables.schemas import TABLE_NAMES

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
TWO_BATTLES = REPO / "tests" / "fixtures" / "tables" / "two_battles"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def generate_into(target: Path) -> tuple[int, str, str]:
    return run("generate", "-n", "2", "--seed", "1", "-o", str(target), "--jobs", "1")


def char_device(path: Path, minor: int) -> Path:
    """A character device node like /dev/null (minor 3) or /dev/full (minor 7)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    return path


def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "games.zip"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so the writer need not wait
    try:
        code, _, err = generate_into(fifo)
        data = b""
        while chunk := os.read(reader, 65536):
            data += chunk
    finally:
        os.close(reader)
    assert code == 0, err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [name.endswith(".xml") for name in zipfile.ZipFile(_bytes_io(data)).namelist()] == [
        True,
        True,
    ]


def _bytes_io(data: bytes) -> object:
    import io

    return io.BytesIO(data)


def test_a_character_device_is_written_through_never_replaced(tmp_path: Path) -> None:
    null = char_device(tmp_path / "null.png", 3)
    code, _, err = run("heatmap", str(DATA), "-o", str(null), "--jobs", "1")
    assert code == 0, err
    assert stat.S_ISCHR(null.lstat().st_mode) and null.lstat().st_rdev == os.makedev(1, 3)
    assert not [p for p in tmp_path.iterdir() if p != null]  # no temporary file left


def test_a_full_device_fails_the_run_and_survives(tmp_path: Path) -> None:
    full = char_device(tmp_path / "full.zip", 7)
    code, _, err = generate_into(full)
    assert code == 3 and "No space left" in err, err
    assert stat.S_ISCHR(full.lstat().st_mode) and full.lstat().st_rdev == os.makedev(1, 7)


def test_a_socket_or_a_folder_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    sock_path = tmp_path / "s.png"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(sock_path))
        code, _, err = run("heatmap", str(DATA), "-o", str(sock_path), "--jobs", "1")
    finally:
        server.close()
    assert code == 3 and "it is a socket, not a regular file" in err, err
    assert stat.S_ISSOCK(sock_path.lstat().st_mode)
    with pytest.raises(OutputError, match="it is a folder"):
        output_kind(tmp_path)


def test_a_symlink_is_followed_its_target_replaced_and_its_mode_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.zip"
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.zip"
    link.symlink_to(real.name)
    code, _, err = generate_into(link)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == real.name
    assert zipfile.is_zipfile(real) and stat.S_IMODE(real.stat().st_mode) == 0o640
    dangling = tmp_path / "dangling.zip"
    dangling.symlink_to("made.zip")
    assert generate_into(dangling)[0] == 0
    assert dangling.is_symlink() and zipfile.is_zipfile(tmp_path / "made.zip")


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_the_umask_mode(tmp_path: Path, mask: int, mode: int) -> None:
    old = os.umask(mask)
    try:
        code, _, err = generate_into(tmp_path / "new.zip")
    finally:
        os.umask(old)
    assert code == 0, err
    assert stat.S_IMODE((tmp_path / "new.zip").stat().st_mode) == mode


# --- export folders ----------------------------------------------------------------------


def export(*args: str) -> tuple[int, str, str]:
    return run("export", *args, "--jobs", "1")


def test_export_refuses_to_replace_tables_it_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    theirs = out / "games.csv"
    theirs.write_text("someone else's data\n")
    code, _, err = export(str(TWO_BATTLES), "-o", str(out), "--format", "csv")
    assert code == 3 and "games.csv was not written by strat-tools export" in err, err
    assert theirs.read_text() == "someone else's data\n"
    assert sorted(p.name for p in out.iterdir()) == ["games.csv"]  # no temporary file left
    other = tmp_path / "other"
    other.mkdir()
    (other / "moves.parquet").symlink_to(theirs)
    code, _, err = export(str(TWO_BATTLES), "-o", str(other))
    assert code == 3 and "is not a regular file" in err, err
    # Inside a table's folder too: a file the marker does not list is not ours to remove.
    mine = tmp_path / "mine"
    assert export(str(TWO_BATTLES), "-o", str(mine))[0] == 0
    (mine / "moves" / "notes.txt").write_text("mine")
    code, _, err = export(str(TWO_BATTLES), "-o", str(mine))
    assert code == 3 and "notes.txt was not written by strat-tools export" in err, err
    assert (mine / "moves" / "notes.txt").read_text() == "mine"
    (mine / "moves" / "notes.txt").unlink()
    shutil.rmtree(mine / "games")
    (mine / "games").symlink_to(mine / "moves")
    code, _, err = export(str(TWO_BATTLES), "-o", str(mine))
    assert code == 3 and "games: it is not a folder" in err, err


def test_export_replaces_its_own_tables_and_removes_its_other_format(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(str(TWO_BATTLES), "-o", str(out))[0] == 0
    assert export(str(TWO_BATTLES), "-o", str(out), "--format", "csv")[0] == 0
    assert not list(out.rglob("*.parquet")) and len(list(out.glob("*/*.csv"))) == len(TABLE_NAMES)
    assert len(read_dataset(out)) == 1


def test_one_export_at_a_time_per_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with OwnedFolder(out):  # another export holds the folder
        code, _, err = export(str(TWO_BATTLES), "-o", str(out))
    assert code == 3 and "another export is writing into" in err, err
    assert not out.exists()  # the refused export wrote nothing; the holder's empty folder went
    assert export(str(TWO_BATTLES), "-o", str(out))[0] == 0  # free again afterwards


def test_tables_mixed_from_two_exports_are_refused_on_reading(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert export(str(TWO_BATTLES), "-o", str(one))[0] == 0
    assert export(str(DATA), "-o", str(two))[0] == 0
    shutil.copy(two / "moves" / "part-00000.parquet", one / "moves" / "part-00000.parquet")
    with pytest.raises(DatasetError, match=r"moves/part-00000\.parquet is not the file export"):
        read_dataset(one)
    code, _, err = run("stats", str(one), "--stat", "endings")
    assert code == 3 and "from another export" in err, err


def test_a_folder_of_tables_without_a_marker_is_not_read(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(str(TWO_BATTLES), "-o", str(out))[0] == 0
    (out / MARKER_NAME).unlink()
    code, _, err = run("stats", str(out), "--stat", "endings")
    assert code == 3 and "has no export marker" in err, err


def test_an_output_folder_overlapping_an_input_is_refused(tmp_path: Path) -> None:
    records = tmp_path / "records"
    shutil.copytree(TWO_BATTLES, records)
    for out in (records, records / "tables", tmp_path):
        code, _, err = export(str(records), "-o", str(out))
        assert code == 2 and "write it elsewhere" in err, (out, err)
    assert sorted(p.name for p in records.iterdir()) == sorted(
        p.name for p in TWO_BATTLES.iterdir()
    )


def test_a_folder_with_records_and_tables_says_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(str(TWO_BATTLES), "-o", str(out))[0] == 0
    for record in TWO_BATTLES.iterdir():
        shutil.copy(record, out / record.name)
    code, _, err = run("stats", str(out), "--stat", "endings")
    assert code == 3 and "holds both an export's tables and game records" in err, err


def _flip(path: Path, offset: int, bit: int = 0) -> bytes:
    original = path.read_bytes()
    damaged = bytearray(original)
    damaged[offset] ^= 1 << bit
    path.write_bytes(bytes(damaged))
    return original


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_flipped_bit_anywhere_makes_every_read_fail(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "out"
    assert export(str(DATA), "-o", str(out), "--format", fmt)[0] == 0
    table = out / "moves" / f"part-00000.{fmt}"
    size = table.stat().st_size
    for trial in range(24):
        original = _flip(table, (trial * 7919 + 13) % size, trial % 8)
        with pytest.raises(DatasetError, match="damaged"):
            read_dataset(out)
        table.write_bytes(original)
    assert len(read_dataset(out)) == 400


def test_parquet_pages_carry_checksums_that_reading_verifies(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(str(DATA), "-o", str(out))[0] == 0
    table = out / "moves" / "part-00000.parquet"
    start = pq.ParquetFile(table).metadata.row_group(0).column(0).data_page_offset
    clean = pq.read_table(table)
    # Find a bit whose flip an unchecked read would swallow: the checksum must catch it.
    for offset in range(start + 40, start + 4000, 37):
        original = _flip(table, offset)
        try:
            unchecked = pq.read_table(table)
        except (OSError, ValueError):
            table.write_bytes(original)
            continue
        if unchecked.equals(clean):
            table.write_bytes(original)
            continue
        with pytest.raises(OSError, match="CRC"):
            pq.read_table(table, page_checksum_verification=True)
        return
    pytest.fail("no bit flip changed the data silently (the test needs another offset)")


def test_a_file_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    code, _, err = generate_into(tmp_path / "nowhere" / "games.zip")
    assert code == 3 and "does not exist" in err, err
    assert not (tmp_path / "nowhere").exists()


def test_a_missing_input_overlaps_nothing_and_a_glob_is_judged_by_its_matches(
    tmp_path: Path,
) -> None:
    from strat_tools.io.output import refuse_overlap

    refuse_overlap([tmp_path / "nowhere.xml"], tmp_path / "out")  # nothing to overlap
    records = tmp_path / "records"
    shutil.copytree(TWO_BATTLES, records)
    refuse_overlap([str(records / "*.xml")], tmp_path / "out")
    with pytest.raises(OutputError, match="holds the input"):
        refuse_overlap([str(records / "*.xml")], records)


def test_an_owned_folder_removes_only_the_empty_folders_it_created(tmp_path: Path) -> None:
    new = tmp_path / "a" / "b"
    with OwnedFolder(new):
        assert new.is_dir()
    assert not (tmp_path / "a").exists()  # created and still empty: removed, parents too
    kept = tmp_path / "kept"
    kept.mkdir()
    with OwnedFolder(kept):
        pass
    assert kept.is_dir()  # not ours to remove
    with OwnedFolder(new):
        (new / "games.parquet").write_bytes(b"x")
    assert (new / "games.parquet").exists()  # not empty: kept


def test_an_output_that_is_an_input_through_a_hard_link_is_refused(tmp_path: Path) -> None:
    from strat_tools.io.output import OutputOverInput, refuse_overlap

    records = tmp_path / "records"
    shutil.copytree(TWO_BATTLES, records)
    first = sorted(records.iterdir())[0]
    twin = tmp_path / "elsewhere.html"
    os.link(first, twin)  # one file, two names: writing one replaces the other's bytes
    with pytest.raises(OutputOverInput, match=f"is the input {first}"):
        refuse_overlap([records], twin)
    with pytest.raises(OutputOverInput, match="is the input"):
        refuse_overlap([first], twin)
    refuse_overlap([records], tmp_path / "page.html")
    refuse_overlap([records], records / "page.html")  # a page beside the games: not read
    with pytest.raises(OutputOverInput, match="lies inside the input"):
        refuse_overlap([records], records / "x.xml")  # a record there would be read next time
    with pytest.raises(OutputOverInput, match="lies inside the input"):
        refuse_overlap([records], records / "tables", folder=True)  # reading walks a folder


def symlinked_archive(tmp_path: Path) -> tuple[Path, Path, bytes]:
    """Issue 39, point 2: ``in/games.zip -> ../ext/games.zip``, a real archive of 3 games
    reached through a symlink inside the input folder."""
    inputs, ext = tmp_path / "in", tmp_path / "ext"
    inputs.mkdir()
    ext.mkdir()
    archive = ext / "games.zip"
    game = (TWO_BATTLES / sorted(p.name for p in TWO_BATTLES.iterdir())[0]).read_bytes()
    with zipfile.ZipFile(archive, "w") as zipped:
        for number in (1, 2, 3):
            zipped.writestr(f"classic-2014.4-{number}.xml", game)
    (inputs / "games.zip").symlink_to("../ext/games.zip")
    return inputs, archive, archive.read_bytes()


@pytest.mark.parametrize(
    "command",
    [
        ["view"],
        ["report"],
        ["explore"],
        ["heatmap", "--piece", "flag"],
        ["convert", "--to", "xml"],
        ["filter", "--ids", "{ids}"],
    ],
    ids=lambda command: command[0],
)
def test_an_archive_reached_through_a_symlink_in_an_input_folder_is_never_replaced(
    tmp_path: Path, command: list[str]
) -> None:
    """Compared by real file, not by the names given: ``-o ext/games.zip`` is the archive
    ``in/`` reads through its link, for every command that writes a file."""
    inputs, archive, before = symlinked_archive(tmp_path)
    ids = tmp_path / "ids.txt"
    ids.write_text("classic-2014.4-1\n", encoding="utf-8")
    args = [a.format(ids=ids) for a in command]
    code, _, err = run(args[0], str(inputs), *args[1:], "-o", str(archive), "--jobs", "1")
    assert code == 2, err
    assert f"the output {archive} is the input" in err and "write it elsewhere" in err, err
    assert archive.read_bytes() == before
    assert (inputs / "games.zip").is_symlink()


@pytest.mark.parametrize("command", ["export", "observations", "filter"])
def test_a_folder_output_holding_an_archive_reached_through_a_symlink_is_refused(
    tmp_path: Path, command: str
) -> None:
    inputs, archive, before = symlinked_archive(tmp_path)
    extra = ["--format", "parquet"] if command == "filter" else []
    code, _, err = run(command, str(inputs), *extra, "-o", str(archive.parent), "--jobs", "1")
    assert code == 2 and "holds the input" in err, err
    assert sorted(p.name for p in archive.parent.iterdir()) == ["games.zip"]
    assert archive.read_bytes() == before


@pytest.mark.parametrize("command", ["view", "report", "explore", "heatmap"])
def test_a_page_goes_into_an_input_folder_under_one_rule_for_every_command(
    tmp_path: Path, command: str
) -> None:
    """Issue 39, point 3: ``explore g -o g/explore.html`` was refused while ``report``,
    ``view`` and ``heatmap`` wrote there; now one rule: a new page or figure inside an input
    folder is fine (reading does not take it), a record name there never."""
    games = tmp_path / "g"
    shutil.copytree(TWO_BATTLES, games)
    kept = {p.name: p.read_bytes() for p in games.iterdir()}
    extra = ["--piece", "flag"] if command == "heatmap" else []
    name = "figure.png" if command == "heatmap" else f"{command}.html"
    code, _, err = run(command, str(games), *extra, "-o", str(games / name), "--jobs", "1")
    assert code == 0, err
    assert (games / name).stat().st_size > 0
    assert {p.name: p.read_bytes() for p in games.iterdir() if p.name != name} == kept
    if command != "heatmap":  # a figure's suffix is checked first
        code, _, err = run(command, str(games), "-o", str(games / "x.xml"), "--jobs", "1")
        assert code == 2 and "lies inside the input folder" in err, err
        assert not (games / "x.xml").exists()


MISSING_FOLDER_COMMANDS = [
    ["report"],
    ["heatmap", "--piece", "flag"],
    ["view"],
    ["explore"],
    ["setups"],
    ["convert", "--to", "xml"],
    ["filter"],
    ["generate", "-n", "2"],
]


@pytest.mark.parametrize("command", MISSING_FOLDER_COMMANDS, ids=lambda command: command[0])
def test_an_output_in_a_missing_folder_stops_the_run_before_reading(
    tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 36: ``report ../gravon -o nodir/r.html`` computed for 31 s, then exited 3
    naming a temporary file. The check comes before anything is read (reading would fail
    the test) and names the path as given."""
    import strat_tools.run.driver as driver
    from strat_tools.io.sources import UnitReader

    def no_reading(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("an input was read before the output was checked")

    monkeypatch.setattr(driver, "iter_units", no_reading)  # no folder listed
    monkeypatch.setattr(UnitReader, "read", no_reading)  # no file read
    name = (
        "out.png" if command[0] == "heatmap" else "out.zip" if command[0] == "convert" else "r.html"
    )
    if command[0] == "generate":
        name = "games.zip"
    out = f"nodir/{name}"
    monkeypatch.chdir(tmp_path)
    paths = [] if command[0] == "generate" else [str(DATA)]
    code, _, err = run(command[0], *paths, *command[1:], "-o", out, "--jobs", "1")
    assert code == 3, err
    assert f"cannot write {out}: the folder nodir does not exist" in err, err
    assert ".tmp" not in err
    assert not (tmp_path / "nodir").exists()


def test_a_failed_final_write_names_the_path_given_never_a_temporary_file(tmp_path: Path) -> None:
    """``/proc`` takes no new file: the message names ``/proc/nope.png``, not
    ``/proc/.nope.png.21chx75w.tmp`` (and the check finds it before any work)."""
    from strat_tools.io.output import atomic_output

    code, _, err = run("heatmap", str(DATA), "--piece", "flag", "-o", "/proc/nope.png")
    assert code == 3 and "cannot write /proc/nope.png" in err and ".tmp" not in err, err
    with (
        pytest.raises(OutputError, match=r"^cannot write /proc/nope\.png: ") as caught,
        atomic_output("/proc/nope.png") as handle,
    ):
        handle.write(b"x")
    assert ".tmp" not in str(caught.value)
