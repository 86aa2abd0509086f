"""Game filters: parsing (every bad value names its option), per record and per table.

Games are generated here (classic, barrage, duell), plus one game copied under a second
name in another month (a duplicate across files).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from same_name_games import same_name_zips

from strat_tools.formats.readers import read_records
from strat_tools.formats.xml_writer import write_games
from strat_tools.generate.games import generate_games
from strat_tools.run.driver import read_games
from strat_tools.run.filters import FilterError, GameFilter, duplicate_mask, read_id_file
from strat_tools.run.selection import select_games


@pytest.fixture(scope="module")
def folder_with_a_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 generated games in one zip, and the first of them again in another month's zip
    under another name (same field, same moves)."""
    folder = tmp_path_factory.mktemp("filters")
    mix = {"classic": 3.0, "barrage": 1.0, "duell": 1.0}
    write_games(generate_games(30, variant=mix, seed=11, month=5), folder / "strados2026-4.zip")
    first = next(iter(read_records([str(folder / "strados2026-4.zip")])))
    first.month, first.number = 7, 999
    write_games([first], folder / "strados2026-6.zip")
    return folder


@pytest.mark.parametrize(
    ("options", "option", "message"),
    [
        ({"variant": "clasic"}, "--variant", "unknown variant 'clasic'"),
        ({"period": "2014-1x"}, "--period", "not a month like 2014-01"),
        ({"period": "2014-06:2014-01"}, "--period", "later than TO"),
        ({"period": ":"}, "--period", "FROM:TO"),
        ({"plies": "40"}, "--plies", "MIN:MAX"),
        ({"plies": "a:"}, "--plies", "whole numbers"),
        ({"plies": "-3:"}, "--plies", "negative"),
        ({"ending": "checkmate"}, "--ending", "unknown ending 'checkmate'"),
        ({"ending": "7"}, "--ending", "unknown ending '7'"),
        ({"winner": "green"}, "--winner", "red, blue or draw"),
        ({"pattern": "B"}, "--pattern", "4 rows"),
        ({"duplicates": "some"}, "--duplicates", "only or exclude"),
    ],
)
def test_bad_values_name_their_option(options: dict[str, str], option: str, message: str) -> None:
    with pytest.raises(FilterError, match=message) as caught:
        GameFilter.parse(**options)  # type: ignore[arg-type]
    assert caught.value.option == option
    assert str(caught.value).startswith(option)


def test_values_read_as_documented() -> None:
    f = GameFilter.parse(
        variant="classic,barrage",
        period="2014-1:",
        plies=":200",
        ending="flag-captured,3",
        winner="Blue",
        ids=["classic-2014.5-1.xml", " b "],
        duplicates="exclude",
    )
    assert f.variants == {"classic", "barrage"}
    assert f.period == ("2014-01", None)
    assert f.plies == (None, 200)
    assert f.endings == {1, 3}
    assert f.winner == 2
    assert f.ids == {"classic-2014.5-1", "b"}
    assert f.describe() == (
        "barrage, classic; periods 2014-01 to last; at most 200 plies; "
        "ending flag_captured or resigned; won by blue; 2 listed ids; no duplicate games"
    )
    assert GameFilter.parse(period="2014-05").period == ("2014-05", "2014-05")
    assert not GameFilter.parse().active and f.active


def test_an_impossible_pattern_is_noted() -> None:
    f = GameFilter.parse(variant="classic", pattern="........../........../........../_.........")
    assert f.notes == ("a classic army fills all 40 squares: no empty square (row 1, column 1)",)


def test_record_and_table_judgements_agree(folder_with_a_copy: Path) -> None:
    games = read_games([str(folder_with_a_copy)], run=1)
    records = list(read_records([str(folder_with_a_copy)]))
    filters = [
        GameFilter.parse(variant="barrage"),
        GameFilter.parse(period="2026-07:"),
        GameFilter.parse(plies="50:120"),
        GameFilter.parse(winner="red"),
        GameFilter.parse(ending="flag_captured"),
        GameFilter.parse(ids=[records[3].game_id, "nothing-like-it"]),
        GameFilter.parse(pattern="........../........../........../[F]........."),
        GameFilter.parse(pattern="........../........../........../F.........", mirror=True),
    ]
    for f in filters:
        by_record = [r.game_id for r in records if f.accepts(r)]
        by_table = games.games["game_id"][f.mask(games.games, games.setups)].tolist()
        assert by_record == by_table, f.describe()
        assert 0 < len(by_table) < len(records), f.describe()


def test_duplicates_are_the_same_game_under_two_names(folder_with_a_copy: Path) -> None:
    games = read_games([str(folder_with_a_copy)], run=1).games
    only = games["game_id"][GameFilter.parse(duplicates="only").mask(games)].tolist()
    first = games["game_id"].iloc[0]
    assert only == [first, f"{first.split('-')[0]}-2026.6-999"]
    assert len(set(games.set_index("game_id").loc[only, "game_fingerprint"])) == 1
    kept = GameFilter.parse(duplicates="exclude").mask(games)
    assert kept.sum() == len(games) - 1 and not kept[-1]


def test_duplicate_mask_keeps_games_without_a_fingerprint() -> None:
    import pandas as pd

    ids = pd.Series(["a", None, "a", None, "b"])
    assert duplicate_mask(ids, "exclude").tolist() == [True, True, False, True, True]
    assert duplicate_mask(ids, "only").tolist() == [True, False, True, False, False]


def test_id_files(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("# chosen\nclassic-2014.5-1\n\nclassic-2014.5-2.xml  # twice?\n")
    assert read_id_file(path) == ["classic-2014.5-1", "classic-2014.5-2.xml"]
    with pytest.raises(FilterError, match="cannot read"):
        read_id_file(tmp_path / "missing.txt")
    assert GameFilter.parse(ids=read_id_file(path)).ids == {"classic-2014.5-1", "classic-2014.5-2"}


@pytest.fixture()
def same_name_in_two_zips(tmp_path: Path) -> list[str]:
    """:func:`same_name_games.same_name_zips`: the run calls the second NAME#2."""
    return [str(z) for z in same_name_zips(tmp_path)]


def test_an_id_names_the_second_game_of_a_name_as_the_tables_do(
    same_name_in_two_zips: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("classic-2026.10-1#2  # the second; a comment follows a space\n")
    assert read_id_file(path) == ["classic-2026.10-1#2"]
    chosen = GameFilter.parse(ids=read_id_file(path))
    found = select_games(same_name_in_two_zips, chosen, run=1)
    assert found.game_ids == ["classic-2026.10-1#2"]
    assert [Path(u.source).name for u in found.units()] == ["b.zip"]
    both = select_games(same_name_in_two_zips, GameFilter.parse(ids=["classic-2026.10-1"]), run=1)
    assert both.game_ids == ["classic-2026.10-1", "classic-2026.10-1#2"]  # the name: every game


def test_an_id_file_with_a_byte_order_mark_keeps_its_first_id(tmp_path: Path) -> None:
    """Windows editors start a UTF-8 file with U+FEFF: it is not part of the first id."""
    path = tmp_path / "ids.txt"
    path.write_bytes("\ufeffclassic-2014.5-1\r\nclassic-2014.5-2\r\n".encode())
    assert read_id_file(path) == ["classic-2014.5-1", "classic-2014.5-2"]
    picked = GameFilter.parse(ids=read_id_file(path))
    assert picked.ids is not None and "classic-2014.5-1" in picked.ids
