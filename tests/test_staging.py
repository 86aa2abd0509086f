"""The one stream-to-folder skeleton (:class:`strat_tools.io.staging.StagedFolder`) and the two
exports built on it: whatever fails (a write, a file that fails to close, a full disk), the
staging folder goes and the folder is left as it was.

A full disk is simulated: the Parquet writer of each export is replaced by one that raises
``ENOSPC`` on writing and again on closing, as pyarrow's does on a full tmpfs (issue 25,
point 6: the error path closed the writer first, that raised again, and the clean-up never
ran, leaving ``.observations-*.tmp`` behind).
"""

from __future__ import annotations

import errno
import os
import signal
import zipfile
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.exports import observation_files
from strat_tools.io.output import OutputError
from strat_tools.io.owned import MARKER_NAME, OwnedFolder, read_marker
from strat_tools.io.staging import StagedFolder
from strat_tools.tables import dataset_writer

DATA = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"


@pytest.fixture
def twelve_games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    with zipfile.ZipFile(DATA) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".xml"))[::31][:12]
        for name in names:
            (folder / Path(name).name).write_bytes(archive.read(name))
    return folder


def listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) with its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def no_space() -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class FullDiskWriter(pq.ParquetWriter):  # type: ignore[misc]
    """A Parquet writer on a full disk: the first write fails, and so does closing."""

    def write_table(self, table: Any, row_group_size: Any = None) -> None:
        raise no_space()

    def close(self) -> None:
        super().close()
        raise no_space()


class FailsOnClose(pq.ParquetWriter):  # type: ignore[misc]
    """Writes, then fails to close (the last page did not fit)."""

    def close(self) -> None:
        super().close()
        raise no_space()


# -- the skeleton -------------------------------------------------------------------------


def test_a_closer_that_raises_on_the_error_path_still_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    stage = StagedFolder(out, "things", list)
    stage.open()
    (stage.staging / "a.bin").write_bytes(b"half")
    closed: list[str] = []

    def broken() -> None:
        closed.append("broken")
        raise no_space()

    stage.closing(broken)
    stage.closing(lambda: closed.append("next"))
    assert stage.finish(None) == {}
    assert closed == ["broken", "next"]  # one failing closer does not stop the others
    assert not out.exists()  # the staging folder, and the folder it created, are gone
    with OwnedFolder(tmp_path / "out"):  # the lock was dropped
        pass


def test_a_closer_that_raises_on_a_clean_end_fails_the_commit_and_cleans_up(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    stage = StagedFolder(out, "things", list)
    stage.open()
    (stage.staging / "a.bin").write_bytes(b"whole")
    stage.closing(lambda: (_ for _ in ()).throw(no_space()))
    with pytest.raises(OSError, match="No space left"):
        stage.finish(["a.bin"])
    assert listing(out) == {"keep.txt": b"mine"}


def test_a_clean_end_moves_the_files_in_and_marks_them(tmp_path: Path) -> None:
    out = tmp_path / "out"
    stage = StagedFolder(out, "things", list)
    stage.open()
    (stage.staging / "sub").mkdir()
    (stage.staging / "sub" / "a.bin").write_bytes(b"abc")
    digests = stage.finish(["sub/a.bin"])
    assert sorted(listing(out)) == [MARKER_NAME, "sub/a.bin"]
    marker = read_marker(out)
    assert marker is not None and marker.complete and marker.files == digests
    assert digests["sub/a.bin"][0] == 3


def test_a_stop_while_the_files_move_in_comes_after_the_finished_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C arriving between the unfinished marker and the finished one (it came there
    once in CI: a SIGTERM 0.60 s into an export left a folder marked unfinished) is held
    until the marker is written: the run stops with its output complete."""
    out = tmp_path / "out"
    stage = StagedFolder(out, "things", list)
    stage.open()
    (stage.staging / "a.bin").write_bytes(b"abc")
    begin = OwnedFolder.begin

    def interrupted(self: OwnedFolder, names: list[str]) -> None:
        begin(self, names)
        os.kill(os.getpid(), signal.SIGINT)  # Python's own handler: KeyboardInterrupt

    monkeypatch.setattr(OwnedFolder, "begin", interrupted)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever the runner's
    try:
        with pytest.raises(KeyboardInterrupt):
            stage.finish(["a.bin"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    finally:
        signal.signal(signal.SIGINT, before)
    marker = read_marker(out)
    assert marker is not None and marker.complete and sorted(marker.files) == ["a.bin"]


def test_staging_of_a_killed_run_is_removed_a_running_ones_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    dead = out / ".things.tmp-999999999-0123abcd"  # no such pid
    alive = out / f".things.tmp-{os.getpid()}-0123abcd"  # a run still going
    other = out / ".other.tmp-999999999-0123abcd"  # another kind's: not ours to judge
    for folder in (dead, alive, other):
        folder.mkdir(parents=True)
        (folder / "part").write_bytes(b"x")
    stage = StagedFolder(out, "things", list)
    stage.open()
    stage.finish(None)
    assert not dead.exists() and alive.exists() and other.exists()


def test_a_folder_holding_files_it_did_not_write_is_refused_before_staging(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.bin").write_text("someone else's")
    stage = StagedFolder(out, "things", lambda: ["a.bin"])
    with pytest.raises(OutputError, match="was not written by strat-tools"):
        stage.open()
    assert listing(out) == {"a.bin": b"someone else's"}
    with OwnedFolder(out):  # the lock was dropped
        pass


# -- the two exports on a full disk -------------------------------------------------------

EXPORTS = {
    "observations": (observation_files, ["observations"]),
    "export": (dataset_writer, ["export"]),
}


@pytest.mark.parametrize("command", sorted(EXPORTS))
@pytest.mark.parametrize("writer", [FullDiskWriter, FailsOnClose], ids=["full", "close"])
def test_a_full_disk_exits_3_and_leaves_the_folder_as_it_was(
    command: str,
    writer: type,
    twelve_games: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module, args = EXPORTS[command]
    out = tmp_path / "out"
    first = CliRunner().invoke(main, [*args, str(twelve_games), "-o", str(out), "--jobs", "1"])
    assert first.exit_code == 0, first.output
    before = listing(out)
    monkeypatch.setattr(module.pq, "ParquetWriter", writer)
    result = CliRunner().invoke(main, [*args, str(twelve_games), "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 3, result.output
    assert "No space left on device" in result.stderr and "Traceback" not in result.output
    assert listing(out) == before  # no staging folder, the earlier export untouched
    assert [p.name for p in out.iterdir() if ".tmp" in p.name] == []


@pytest.mark.parametrize("command", sorted(EXPORTS))
def test_a_full_disk_on_a_new_folder_leaves_no_folder(
    command: str, twelve_games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, args = EXPORTS[command]
    monkeypatch.setattr(module.pq, "ParquetWriter", FullDiskWriter)
    out = tmp_path / "new" / "out"
    result = CliRunner().invoke(main, [*args, str(twelve_games), "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 3, result.output
    assert not (tmp_path / "new").exists()
