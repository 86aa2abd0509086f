"""One game by its id, from any inputs: readers.read_game, as ``show`` and notebooks use it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import strat_tools as st
from strat_tools.cli import main
from strat_tools.core.errors import InputError, NothingReadable
from strat_tools.formats.readers import read_game, read_records

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "strados2026-10.zip"


@pytest.fixture()
def same_name_in_two_folders(tmp_path: Path, fixtures_dir: Path) -> Path:
    """The same game file in a/ and b/: its id names two games, its path one."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(fixtures_dir / "gravon" / "classic-2014.4-17.xml", tmp_path / folder)
    return tmp_path


def test_a_game_of_a_zip_by_its_id_is_the_one_read_records_gives() -> None:
    wanted = [r for r in read_records(SAMPLE) if r.readable][7]
    found = st.read_game(SAMPLE, wanted.game_id)
    assert (found.game_id, found.member, found.moves) == (
        wanted.game_id,
        wanted.member,
        wanted.moves,
    )


def test_a_missing_id_is_an_input_error(fixtures_dir: Path) -> None:
    with pytest.raises(InputError, match="no game nope in "):
        read_game(fixtures_dir / "gravon" / "classic-2014.4-17.xml", "nope")
    with pytest.raises(NothingReadable):
        read_game(fixtures_dir / "no_such_folder", "nope")


def test_an_id_naming_two_games_asks_for_the_member_path(same_name_in_two_folders: Path) -> None:
    with pytest.raises(InputError, match=r"holds 2 games named classic-2014\.4-17; name one"):
        read_game(same_name_in_two_folders, "classic-2014.4-17")
    with pytest.raises(InputError, match="holds 2 games; name one"):
        read_game(same_name_in_two_folders)
    path = str(same_name_in_two_folders / "b" / "classic-2014.4-17.xml")
    assert read_game(same_name_in_two_folders, path).source == path


def test_the_second_game_of_one_id_is_id_hash_2_as_the_tables_call_it(
    same_name_in_two_folders: Path,
) -> None:
    ids = list(st.read_games(same_name_in_two_folders, setups_only=True, run=1).games["game_id"])
    assert ids == ["classic-2014.4-17", "classic-2014.4-17#2"]
    second = read_game(same_name_in_two_folders, ids[1])
    assert Path(second.source).parent.name == "b"
    with pytest.raises(InputError, match=r"no game classic-2014\.4-17#3 in "):
        read_game(same_name_in_two_folders, "classic-2014.4-17#3")
    shown = CliRunner().invoke(main, ["show", str(same_name_in_two_folders), "--game", ids[1]])
    assert shown.exit_code == 0 and "result:" in shown.stdout


def test_show_names_a_missing_or_ambiguous_game_with_exit_2(
    same_name_in_two_folders: Path,
) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["show", str(SAMPLE), "--game", "nope"])
    assert missing.exit_code == 2 and "Error: no game nope in " in missing.stderr
    several = runner.invoke(main, ["show", str(same_name_in_two_folders)])
    assert several.exit_code == 2 and "holds 2 games" in several.stderr
    one = runner.invoke(
        main, ["show", str(same_name_in_two_folders / "a" / "classic-2014.4-17.xml")]
    )
    assert one.exit_code == 0 and "result:" in one.stdout


def test_the_package_lists_its_analysis_modules() -> None:
    names = set(dir(st))
    assert {"read_game", "setup_boards", "report_setups", "tip_rates", "arrangement"} <= names
    assert "repeats" in dir(st.stats) and st.stats.repeats.setup_counts is not None
    assert st.report_setups.verdict is not None and st.setup_boards.__name__.endswith("boards")
