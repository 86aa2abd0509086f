"""The Arrow tables: schemas, the per-batch builder, setups in the owner's view, moves.

Fixtures (tests/fixtures/tables/, one folder per quirk, Gravon file names inside so the
reader finds year and month):

- ``two_battles``: a classic game whose blue setup is red's turned 180 degrees; a scout
  moves two squares, the blue marshal takes it, another scout attacks the marshal and loses.
- ``bad_square``: blue's second move names ``J7`` (Gravon has no column J).
- ``no_field``: a record without ``<field>`` (the game ended before the setup was done).
- ``not_xml``: a file that is not XML at all.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from strat_tools import tables
from strat_tools.core.board import Side, parse_square
from strat_tools.core.pieces import CODE_LETTERS, PieceKind, piece_code
from strat_tools.io.sources import expand
from strat_tools.setups import identity
from strat_tools.tables.build import tables_for_units
from strat_tools.tables.columns import table_from_columns, to_frame
from strat_tools.tables.schemas import SCHEMAS, TABLE_NAMES

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tables"
TWO_BATTLES = FIXTURES / "two_battles" / "classic-2014.4-1.xml"

SYMBOLS = {
    "bomb": "B",
    "spy": "S",
    "scout": "2",
    "miner": "3",
    "sergeant": "4",
    "lieutenant": "5",
    "captain": "6",
    "major": "7",
    "colonel": "8",
    "general": "9",
    "marshal": "M",
    "flag": "F",
}

# Red's setup of two_battles, as its owner sees it: row 4 (front) on top, col 1 on the left.
# Blue's field letters are red's turned 180 degrees, so blue's own view is the same picture.
OWNER_VIEW = """
2 2 2 2 2 2 2 2 S M
B B 3 3 3 3 3 8 8 9
B B 5 6 6 6 6 7 7 7
F B B 4 4 4 4 5 5 5
"""


def diagram(setups: Any, game_id: str, side: str) -> str:
    """A 4x10 owner's-view picture of one side's setup from the setups table."""
    rows = setups[(setups["game_id"] == game_id) & (setups["side"] == side)]
    grid = [["."] * 10 for _ in range(4)]
    for row, col, piece in zip(rows["row"], rows["col"], rows["piece"], strict=True):
        grid[4 - row][col - 1] = SYMBOLS[piece]
    return "\n".join(" ".join(line) for line in grid)


@pytest.fixture(scope="module")
def fixture_tables() -> dict[str, pa.Table]:
    return tables_for_units(expand([FIXTURES]))


def test_every_table_has_one_schema_and_the_contract_columns() -> None:
    assert tuple(SCHEMAS) == TABLE_NAMES == ("games", "setups", "moves", "diagnostics", "events")
    contract = {
        "games": [
            "game_id",
            "source",
            "member",
            "variant",
            "year",
            "month",
            "number",
            "rules",
            "status",
            "result_type",
            "termination",
            "winner",
            "draw",
            "plies",
            "n_errors",
            "n_warnings",
            "has_setup",
        ],
        "setups": ["game_id", "side", "row", "col", "square", "piece"],
        "moves": [
            "game_id",
            "ply",
            "side",
            "piece",
            "from_square",
            "to_square",
            "distance",
            "defender",
            "outcome",
        ],
        "diagnostics": ["game_id", "code", "severity", "message", "line", "ply"],
        "events": [
            "game_id",
            "ply",
            "kind",
            "mover",
            "mover_piece",
            "from_square",
            "to_square",
            "defender_piece",
            "outcome",
            "loser",
            "rescued_piece",
            "winner",
            "termination",
            "detail",
        ],
    }
    for name, columns in contract.items():
        assert [c for c in SCHEMAS[name].names if c in columns] == columns, name
    games = SCHEMAS["games"]
    assert games.field("year").type == pa.int16() and games.field("month").type == pa.int8()
    assert games.field("number").type == pa.int64() and games.field("plies").type == pa.int32()
    assert SCHEMAS["setups"].field("row").type == pa.int8()
    assert SCHEMAS["moves"].field("distance").type == pa.int8()


def test_every_input_unit_is_one_games_row_in_input_order(
    fixture_tables: dict[str, pa.Table],
) -> None:
    for name, table in fixture_tables.items():
        assert table.schema == SCHEMAS[name], name
    games = to_frame(fixture_tables["games"])
    assert list(games["game_id"]) == [
        "classic-2014.4-4",
        "classic-2014.8-3",
        "classic-2014.4-2",
        "classic-2014.4-1",
    ]
    status = dict(zip(games["game_id"], games["status"], strict=True))
    assert status == {
        "classic-2014.4-1": "valid",
        "classic-2014.4-4": "invalid",
        "classic-2014.8-3": "valid",
        "classic-2014.4-2": "invalid",
    }
    unreadable = games.set_index("game_id").loc["classic-2014.4-2"]
    assert not unreadable["readable"] and not unreadable["replayed"]
    assert unreadable["n_errors"] == 1 and pd_isna(unreadable["rules"])
    diagnostics = to_frame(fixture_tables["diagnostics"])
    codes = diagnostics.groupby("game_id")["code"].apply(list).to_dict()
    assert codes["classic-2014.4-2"] == ["xml.malformed"]
    assert "move.square" in codes["classic-2014.4-4"]


def pd_isna(value: Any) -> bool:
    """Whether a frame cell is null (None, NaN or NA)."""
    return bool(pd.isna(value))


def test_games_row_metadata_of_two_battles(fixture_tables: dict[str, pa.Table]) -> None:
    games = to_frame(fixture_tables["games"]).set_index("game_id")
    game = games.loc["classic-2014.4-1"]
    # Gravon months count from 0: "2014.4" is May.
    assert (game["year"], game["month"], game["period"], game["number"]) == (2014, 5, "2014-05", 1)
    assert (game["variant"], game["rules"], game["termination"]) == (
        "classic",
        "gravon-2013",
        "resigned",
    )
    assert (game["result_type"], game["winner"], game["draw"]) == (3, "blue", False)
    assert (game["plies"], game["plies_replayed"]) == (5, 5)
    assert pd_isna(game["replay_winner"]) and not game["replay_draw"]  # resigned: board open
    assert game["has_setup"] and game["replayed"] and game["n_errors"] == 0
    no_field = games.loc["classic-2014.8-3"]
    assert not no_field["has_setup"] and no_field["plies"] == 0


def test_setups_in_the_owner_view_as_diagrams(fixture_tables: dict[str, pa.Table]) -> None:
    setups = to_frame(fixture_tables["setups"])
    expected = OWNER_VIEW.strip()
    assert diagram(setups, "classic-2014.4-1", "red") == expected
    assert diagram(setups, "classic-2014.4-1", "blue") == expected
    assert set(setups["game_id"]) == {"classic-2014.4-1", "classic-2014.4-4"}
    assert len(setups) == 2 * 2 * 40


def test_setups_agree_square_by_square_with_the_field_string(
    fixture_tables: dict[str, pa.Table],
) -> None:
    content = TWO_BATTLES.read_text().split('content="')[1].split('"')[0]
    setups = to_frame(fixture_tables["setups"])
    rows = setups[setups["game_id"] == "classic-2014.4-1"]
    seen = {}
    for side, square, piece in zip(rows["side"], rows["square"], rows["piece"], strict=True):
        code = piece_code(Side.RED if side == "red" else Side.BLUE, PieceKind.from_label(piece))
        seen[parse_square(square)] = CODE_LETTERS[code]
    on_board = {i: ch for i, ch in enumerate(content) if ch not in "A_"}
    assert seen == on_board
    # Owner's view: blue's row/col is the board turned 180 degrees.
    blue_flag = rows[(rows["side"] == "blue") & (rows["piece"] == "flag")].iloc[0]
    assert (blue_flag["square"], blue_flag["row"], blue_flag["col"]) == ("K10", 1, 1)


def test_moves_of_two_battles(fixture_tables: dict[str, pa.Table]) -> None:
    moves = to_frame(fixture_tables["moves"])
    game = moves[moves["game_id"] == "classic-2014.4-1"]
    columns = [
        "ply",
        "side",
        "piece",
        "from_square",
        "to_square",
        "distance",
        "defender",
        "outcome",
    ]
    rows = [
        tuple(None if pd_isna(v) else v for v in row)
        for row in game[columns].itertuples(index=False)
    ]
    assert rows == [
        (1, "red", "scout", "A4", "A6", 2, None, None),
        (2, "blue", "marshal", "A7", "A6", 1, "scout", "attacker"),
        (3, "red", "scout", "B4", "B5", 1, None, None),
        (4, "blue", "marshal", "A6", "A5", 1, None, None),
        (5, "red", "scout", "B5", "A5", 1, "marshal", "defender"),
    ]


def test_a_bad_square_is_null_and_unreplayed_plies_keep_their_rows(
    fixture_tables: dict[str, pa.Table],
) -> None:
    moves = to_frame(fixture_tables["moves"])
    game = moves[moves["game_id"] == "classic-2014.4-4"].reset_index(drop=True)
    assert list(game["ply"]) == [1, 2]
    assert game.loc[0, "piece"] == "scout" and game.loc[0, "distance"] == 2
    assert pd_isna(game.loc[1, "from_square"]) and game.loc[1, "to_square"] == "A6"
    assert pd_isna(game.loc[1, "distance"]) and pd_isna(game.loc[1, "piece"])


def test_setups_only_skips_the_replay() -> None:
    result = tables_for_units(expand([FIXTURES]), setups_only=True)
    assert result["moves"].num_rows == 0 and result["events"].num_rows == 0
    assert result["setups"].num_rows == 160
    games = to_frame(result["games"]).set_index("game_id")
    assert games["rules"].isna().all() and not games["replayed"].any()
    assert (games["plies_replayed"] == 0).all()
    # The record checks' verdict stands; nothing is called valid without a replay.
    assert games.loc["classic-2014.4-2", "status"] == "invalid"
    assert games.loc["classic-2014.4-4", "status"] == "invalid"  # the reader saw J7
    assert games.loc["classic-2014.4-1", "status"] == "unchecked"


def test_an_engine_crash_is_a_diagnostic_not_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(record: Any, rules: Any = None) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(
        importlib.import_module("strat_tools.engine.replays.replay"), "replay", broken
    )
    result = tables_for_units(expand([TWO_BATTLES]))
    games = to_frame(result["games"])
    assert list(games["status"]) == ["invalid"]
    diagnostics = to_frame(result["diagnostics"])
    assert list(diagnostics["code"]) == ["internal.replay"]
    assert "RuntimeError: boom" in diagnostics["message"].iloc[0]


def test_label_columns_use_fixed_dictionaries() -> None:
    table = table_from_columns("moves", {"game_id": ["g"], "ply": [1], "side": ["blue"]})
    side = table.column("side").combine_chunks()
    assert side.dictionary.to_pylist() == ["red", "blue"]
    assert table.column("piece").null_count == 1
    with pytest.raises(ValueError, match="unknown piece label 'dragon'"):
        table_from_columns(
            "setups",
            {
                "game_id": ["g"],
                "side": ["red"],
                "row": [1],
                "col": [1],
                "square": ["A1"],
                "piece": ["dragon"],
            },
        )


def test_conform_reads_plain_strings_back_to_the_schema() -> None:
    plain = pa.table(
        {
            "game_id": ["g"],
            "side": ["blue"],
            "row": pa.array([1], pa.int64()),
            "col": pa.array([10], pa.int64()),
            "square": ["A10"],
            "piece": ["flag"],
        }
    )
    table = tables.conform("setups", plain)
    assert table.schema == SCHEMAS["setups"]
    # A table written before the fingerprints existed gets them from its own rows: here a
    # lone flag on the back row's last square, the canonical one of the pair (its first
    # square is empty, its mirror's holds the flag).
    lone_flag = np.zeros((1, 40), np.uint8)
    lone_flag[0, 9] = 12
    assert to_frame(table).iloc[0].to_dict() == {
        "game_id": "g",
        "side": "blue",
        "row": 1,
        "col": 10,
        "square": "A10",
        "piece": "flag",
        "rank": None,
        "fingerprint": identity.fingerprints(lone_flag)[0],
        "mirror_fingerprint": identity.fingerprints(lone_flag)[0],
    }
    with pytest.raises(ValueError, match="lacks the columns piece"):
        tables.conform("setups", plain.drop_columns(["piece"]))


# --- a pandas user's contract: dtypes, fixed categories, words for sides and winners ----------

CATEGORICAL = {
    "games": ["variant", "status", "termination", "winner", "replay_termination", "replay_winner"],
    "setups": ["side", "square", "piece"],
    "moves": ["side", "piece", "from_square", "to_square", "defender", "outcome", "rescued"],
    "diagnostics": ["severity"],
    "events": [
        "kind",
        "mover",
        "mover_piece",
        "from_square",
        "to_square",
        "defender_piece",
        "outcome",
        "loser",
        "rescued_piece",
        "winner",
        "termination",
    ],
}


def frame_types(parts: dict[str, pa.Table]) -> dict[str, dict[str, str]]:
    """Every table's pandas dtypes, categories written out (so two dtypes compare equal only
    when their categories do)."""
    out = {}
    for name in TABLE_NAMES:
        frame = to_frame(parts[name])
        out[name] = {
            column: (
                f"category{list(dtype.categories)}"
                if isinstance(dtype, pd.CategoricalDtype)
                else str(dtype)
            )
            for column, dtype in frame.dtypes.items()
        }
    return out


@pytest.fixture(scope="module")
def data_tables() -> dict[str, pa.Table]:
    from strat_tools.run.driver import read_games

    return read_games("data/", run=1).tables


def test_dtypes_do_not_depend_on_the_input(
    fixture_tables: dict[str, pa.Table], data_tables: dict[str, pa.Table], gravon_dir: Path
) -> None:
    from strat_tools.run.driver import read_games

    month = read_games(gravon_dir / "strados2005-7.zip", run=1).tables
    empty = tables.empty_tables()
    expected = frame_types(empty)
    for parts in (fixture_tables, data_tables, month, tables_for_units([])):
        assert frame_types(parts) == expected
    for name, columns in CATEGORICAL.items():
        for column in columns:
            categories = list(to_frame(empty[name])[column].cat.categories)
            assert categories == list(tables.DICTIONARIES[column]), (name, column)
    # The Gravon month's games are all there, each with an end event.
    games, events = to_frame(month["games"]), to_frame(month["events"])
    ends = events[events["kind"] == "end"]
    assert list(ends["game_id"]) == list(games["game_id"])


def test_categories_are_fixed_and_documented() -> None:
    assert tables.DICTIONARIES["winner"] == tables.DICTIONARIES["side"] == ("red", "blue")
    assert tables.DICTIONARIES["variant"] == (
        "classic",
        "barrage",
        "duell",
        "ultimate lightning",
        "classicfree",
    )
    assert tables.DICTIONARIES["status"] == ("valid", "invalid", "unchecked", "unreadable")
    assert tables.DICTIONARIES["termination"][:2] == ("no_moves", "flag_captured")
    for name, schema in SCHEMAS.items():
        for f in schema:
            # A categorical column is one whose name has fixed categories, in every table.
            assert pa.types.is_dictionary(f.type) == (f.name in tables.DICTIONARIES), (name, f)


def test_sides_and_winners_are_words_never_gravon_codes(data_tables: dict[str, pa.Table]) -> None:
    games = to_frame(data_tables["games"])
    for column in ("winner", "replay_winner"):
        assert set(games[column].dropna()) <= {"red", "blue"}
    assert games["winner"].notna().any() and games["draw"].any()
    # A draw has no winner; every decided game has one, red or blue, as its record says.
    assert games.loc[games["draw"], "winner"].isna().all()
    for name, column in (("setups", "side"), ("moves", "side"), ("events", "mover")):
        assert set(to_frame(data_tables[name])[column].dropna()) == {"red", "blue"}, name
    # The replay's verdict uses the same words: a flag capture names the capturer.
    flags = games[games["replay_termination"] == "flag_captured"]
    assert len(flags) and (flags["replay_winner"].astype(str) == flags["winner"].astype(str)).all()


def test_events_are_a_table_of_every_replayed_game(fixture_tables: dict[str, pa.Table]) -> None:
    events = to_frame(fixture_tables["events"])
    game = events[events["game_id"] == "classic-2014.4-1"]
    rows = [
        tuple(None if pd_isna(v) else v for v in row)
        for row in game[
            [
                "ply",
                "kind",
                "mover",
                "from_square",
                "to_square",
                "defender_piece",
                "outcome",
                "winner",
                "termination",
            ]
        ].itertuples(index=False)
    ]
    assert rows == [
        (2, "battle", "blue", "A7", "A6", "scout", "attacker", None, None),
        (2, "first_capture", "blue", "A7", "A6", "scout", "attacker", None, None),
        (5, "battle", "red", "B5", "A5", "marshal", "defender", None, None),
        (5, "end", None, None, None, None, None, "blue", "resigned"),
    ]
    # Every input has its end row, the unreadable one too, saying why.
    ends = events[events["kind"] == "end"].set_index("game_id")["detail"]
    assert set(ends.index) == set(to_frame(fixture_tables["games"])["game_id"])
    assert ends["classic-2014.4-2"].startswith("unreadable: ")


def test_an_unknown_variant_is_null_and_its_diagnostic_names_it() -> None:
    from strat_tools.core.records import GameRecord, Severity

    record = GameRecord("dragon-2014.4-1.xml", variant="dragon")
    record.add("game.variant", Severity.ERROR, "unknown game type 'dragon'")
    parts = tables.tables_for_records([record])
    games, diagnostics = to_frame(parts["games"]), to_frame(parts["diagnostics"])
    assert pd_isna(games["variant"].iloc[0]) and games["status"].iloc[0] == "invalid"
    assert "'dragon'" in diagnostics["message"].iloc[0]


def test_gameset_and_validation_reprs_are_one_short_line(data_tables: dict[str, pa.Table]) -> None:
    from strat_tools.tables.dataset import GameSet

    text = repr(GameSet(data_tables))
    assert "\n" not in text and len(text) < 200, text
    assert text.startswith("<GameSet 400 games: ") and " events>" in text
    # The validation report too (it once printed every verdict: 84 KB).
    from strat_tools.exports.validate import validate

    report = validate("data/", run=1)
    assert repr(report).startswith("<ValidationReport 400 games") and len(repr(report)) < 200
    assert len(repr(report.summary)) < 200


DOCS = Path(__file__).resolve().parent.parent / "docs" / "tables.md"


def test_the_data_dictionary_lists_every_column_and_its_examples_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import re

    text = DOCS.read_text()
    for name, schema in SCHEMAS.items():
        section = text.split(f"\n## {name}:")[1].split("\n## ")[0].split("\n### The shipped")[0]
        listed = re.findall(r"^\| `(\w+)` \| (\w+) \|", section, flags=re.MULTILINE)
        frame = to_frame(tables.empty_table(name))
        assert listed == [(c, str(frame[c].dtype)) for c in schema.names], name
    monkeypatch.chdir(DOCS.parent.parent)
    own = text.split(CLIENTS)[0] + "\n## Older exports" + text.split("\n## Older exports")[1]
    assert run_examples(own, "tables.md") >= 8


CLIENTS = "\n## The files, and reading them with DuckDB, Polars or plain pandas"


def run_examples(text: str, name: str) -> int:
    """Run the ``>>>`` examples of ``text``; how many were tried (every one must pass)."""
    import doctest

    test = doctest.DocTestParser().get_doctest(text, {}, name, name, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
    return result.attempted


def test_the_documented_duckdb_polars_and_pandas_queries_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("duckdb", reason="DuckDB is not installed (pip install duckdb)")
    pytest.importorskip("polars", reason="Polars is not installed (pip install polars)")
    section = DOCS.read_text().split(CLIENTS)[1].split("\n## Older exports")[0]
    monkeypatch.chdir(DOCS.parent.parent)
    assert run_examples(section, "tables.md (clients)") >= 10


def test_the_games_table_carries_each_sides_owner_setup_string() -> None:
    """red_setup/blue_setup are ``setups --setup-format owner``'s strings, and an
    independent decoding of the record's field: red's first 40 letters, blue's last 40
    turned round with its letters moved back to red's (N..Y -> B..M)."""
    from strat_tools.run.driver import read_games
    from strat_tools.setups.strings import setup_strings

    games = read_games("data/", setups_only=True, run=1)
    frame = games.games.set_index("game_id")
    owner = setup_strings(games.setups, "owner").set_index(["game_id", "side"])["setup"]
    for side in ("red", "blue"):
        expected = owner.xs(side, level="side")
        assert frame.loc[expected.index, f"{side}_setup"].tolist() == expected.tolist()
    assert frame["red_setup"].notna().all() and len(frame) == 400
    import re
    import zipfile

    with zipfile.ZipFile("data/strados2026-10.zip") as zipped:
        for name in zipped.namelist()[:60]:
            field = re.search(rb'<field content="([^"]{100})"', zipped.read(name))
            assert field is not None
            board = field[1].decode()
            blue = "".join(chr(ord(c) - 12) if c >= "N" else c for c in reversed(board[60:]))
            row = frame.loc[name.removesuffix(".xml")]
            assert (row["red_setup"], row["blue_setup"]) == (board[:40], blue)


def test_setup_strings_read_back_as_setup_codes() -> None:
    from strat_tools.run.driver import read_games
    from strat_tools.setups.identity import codes_of_strings, setup_array

    games = read_games("data/", setups_only=True, run=1)
    found = setup_array(games.setups)
    red = found.side == "red"
    table = pa.Table.from_pandas(games.games[["game_id", "red_setup"]], preserve_index=False)
    codes, known = codes_of_strings(table.column("red_setup"))
    at = {g: i for i, g in enumerate(games.games["game_id"])}
    rows = [at[g] for g in found.game_id[red]]
    assert known.all() and (codes[rows] == found.codes[red]).all()
    with pytest.raises(ValueError, match="40 characters"):
        codes_of_strings(pa.array(["MA"]))
    with pytest.raises(ValueError, match="outside A\\.\\.M"):
        codes_of_strings(pa.array(["Z" * 40]))
