"""One owner per output folder (issue 39, point 1): a folder one kind of output wrote is
refused by every other kind, exit 2, nothing touched.

Before, ``export g -o ds`` then ``observations g -o ds`` exited 0: the observations' games
table replaced the export's and the marker was rewritten without the export's other four
tables (the other way round, and ``filter --format parquet -o``, the same). Each kind of
folder output is one class here: the dataset writers (``export``, ``filter --format
parquet|csv``), the observation writer (``observations``) and the record writers that
write into an existing folder (``generate``); ``convert`` and ``filter`` (records) take
only a new or empty folder. Markers from before markers named their kind are told apart
by their files (tests/layouts.py makes them).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from layouts import to_old_layout, to_old_observations

from strat_tools.cli import main
from strat_tools.exports.observation_files import ShardWriter
from strat_tools.io.output import OutputOfAnotherKind
from strat_tools.tables.dataset import read_dataset
from strat_tools.tables.dataset_writer import DatasetWriter

GAMES = Path(__file__).resolve().parent / "fixtures" / "tables"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--jobs", "1"] if args[0] != "generate" else args)
    return result.exit_code, result.stderr


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


WRITERS = {
    "export": lambda out: ("export", str(GAMES), "-o", str(out)),
    "export csv": lambda out: ("export", str(GAMES), "-o", str(out), "--format", "csv"),
    "filter parquet": lambda out: ("filter", str(GAMES), "--format", "parquet", "-o", str(out)),
    "filter csv": lambda out: ("filter", str(GAMES), "--format", "csv", "-o", str(out)),
    "observations": lambda out: ("observations", str(GAMES), "-o", str(out)),
}
KIND = {
    "export": "dataset",
    "export csv": "dataset",
    "filter parquet": "dataset",
    "filter csv": "dataset",
    "observations": "observations",
}
PAIRS = [(first, second) for first in WRITERS for second in WRITERS if KIND[first] != KIND[second]]


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a} then {b}" for a, b in PAIRS])
def test_a_folder_of_one_kind_is_refused_by_another_untouched(
    tmp_path: Path, first: str, second: str
) -> None:
    out = tmp_path / "ds"
    code, err = run(*WRITERS[first](out))
    assert code == 0, err
    before = snapshot(out)
    code, err = run(*WRITERS[second](out))
    assert code == 2, err
    assert f"written by a strat-tools {KIND[first]} export" in err and "Traceback" not in err
    assert snapshot(out) == before  # nothing touched: no file replaced, none added


@pytest.mark.parametrize("first", list(WRITERS))
def test_generate_writes_no_game_files_into_an_owned_folder(tmp_path: Path, first: str) -> None:
    out = tmp_path / "ds"
    assert run(*WRITERS[first](out))[0] == 0
    before = snapshot(out)
    code, err = run("generate", "-n", "2", "-o", str(out))
    assert code == 2 and "game files are not written into it" in err, err
    assert snapshot(out) == before


def test_the_same_kind_still_writes_over_its_own(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    for writer in ("export", "filter csv", "export csv", "filter parquet"):
        code, err = run(*WRITERS[writer](out))
        assert code == 0, (writer, err)
    assert len(read_dataset(out)) == 4
    assert run(*WRITERS["observations"](tmp_path / "obs"))[0] == 0
    assert run(*WRITERS["observations"](tmp_path / "obs"))[0] == 0


def test_folders_of_the_old_layout_are_owned_by_their_kind_too(tmp_path: Path) -> None:
    old_export, old_obs = tmp_path / "old export", tmp_path / "old obs"
    assert run(*WRITERS["export"](old_export))[0] == 0
    to_old_layout(old_export)  # five NAME.parquet, a marker naming no kind
    assert run(*WRITERS["observations"](old_obs))[0] == 0
    to_old_observations(old_obs)  # games.parquet beside observations/, likewise
    for folder, writer in ((old_export, "observations"), (old_obs, "export")):
        before = snapshot(folder)
        code, err = run(*WRITERS[writer](folder))
        assert code == 2, err
        assert snapshot(folder) == before
    # The same kind takes its old folder over: the old files go, today's come in.
    assert run(*WRITERS["export"](old_export))[0] == 0
    assert not list(old_export.glob("*.parquet")) and len(read_dataset(old_export)) == 4
    assert run(*WRITERS["observations"](old_obs))[0] == 0
    assert not (old_obs / "games.parquet").exists() and (old_obs / "games").is_dir()


def test_the_library_writers_refuse_too(tmp_path: Path) -> None:
    assert run(*WRITERS["export"](tmp_path / "ds"))[0] == 0
    assert run(*WRITERS["observations"](tmp_path / "obs"))[0] == 0
    with pytest.raises(OutputOfAnotherKind, match="dataset export"), ShardWriter(tmp_path / "ds"):
        pass
    with (
        pytest.raises(OutputOfAnotherKind, match="observations export"),
        DatasetWriter(tmp_path / "obs"),
    ):
        pass


def test_an_observation_folder_given_as_tables_says_what_it_is(tmp_path: Path) -> None:
    obs = tmp_path / "obs"
    assert run(*WRITERS["observations"](obs))[0] == 0
    to_old_observations(obs)  # its games.parquet was once read as an export's games table
    code, err = run("stats", str(obs), "--stat", "flag")
    assert code == 3 and "holds a strat-tools observations export, not the tables" in err, err
