"""Key events: hand-made games with every kind, a rescue, unreplayable records, the CLI."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner
from hand_games import game, lightning

from strat_tools.cli import main
from strat_tools.core.board import parse_square
from strat_tools.core.records import GameRecord, Rescue, Result, Severity
from strat_tools.engine.events.event_kinds import EVENT_KINDS
from strat_tools.engine.events.key_events import EVENT_COLUMNS, EventBatch, game_events
from strat_tools.engine.replays.replay import replay
from strat_tools.exports.event_table import events_batch, read_events
from strat_tools.io.sources import iter_units
from strat_tools.tables.columns import events_table
from strat_tools.tables.schemas import EVENTS_SCHEMA

BIG_LOSSES = game(
    {"E5": "r1", "E6": "b10", "B4": "r3", "B7": "bB", "F4": "r9", "F7": "b10", "I7": "bF"},
    "E5-E6 F7-F6 B4-B5 F6-F5 B5-B6 F5-F4 B6-B7 A10-A9 K1-K2 A9-A8",
    result=(3, 2),
)
"""Spy takes marshal, a miner defuses a bomb, a marshal takes a general; red resigns."""


def rows(events: dict[str, list[object]]) -> list[tuple[object, ...]]:
    """(ply, kind, mover, loser, winner, detail) per row: whose each side is, by name."""
    columns = ("ply", "kind", "mover", "loser", "winner", "detail")
    return list(zip(*(events[name] for name in columns), strict=True))


def test_every_battle_and_its_consequences() -> None:
    events = game_events(replay(BIG_LOSSES))
    assert list(events) == list(EVENT_COLUMNS)
    assert rows(events) == [
        (1, "battle", "red", None, None, "red spy E5 takes blue marshal E6"),
        (1, "first_capture", "red", None, None, "red spy E5 takes blue marshal E6"),
        (1, "spy_takes_marshal", "red", "blue", None, "red spy takes the marshal on E6"),
        (1, "marshal_lost", "red", "blue", None, "blue loses its marshal on E6"),
        (6, "battle", "blue", None, None, "blue marshal F5 takes red general F4"),
        (6, "general_lost", "blue", "red", None, "red loses its general on F4"),
        (7, "battle", "red", None, None, "red miner B6 takes blue bomb B7"),
        (7, "bomb_removed", "red", "blue", None, "blue bomb on B7 removed by the miner"),
        (10, "end", None, None, "blue", "red resigned or left: blue wins"),
    ]
    # The pieces: the mover's, the one it attacked; the spy's row is not the marshal's side.
    pieces = list(zip(events["mover_piece"], events["defender_piece"], strict=True))
    assert pieces[:4] == [("spy", "marshal")] * 4
    assert pieces[4:8] == [("marshal", "general")] * 2 + [("miner", "bomb")] * 2
    assert events["outcome"][:8] == ["attacker"] * 8 and events["rescued_piece"] == [None] * 9
    assert events["from_square"][4:6] == ["F5", "F5"] and events["to_square"][4] == "F4"
    assert events["termination"][-1] == "resigned" and events["outcome"][-1] is None


def test_a_mover_that_loses_its_marshal_is_both_mover_and_loser() -> None:
    """The case the old ``side``/``piece`` columns let be misread: the loser is named."""
    events = game_events(replay(game({"E5": "r10", "E6": "bB"}, "E5-E6", result=(3, 2))))
    assert rows(events)[2:4] == [
        (1, "marshal_lost", "red", "red", None, "red loses its marshal on E6"),
        (1, "end", None, None, "blue", "red resigned or left: blue wins"),
    ]
    assert (events["mover_piece"][2], events["defender_piece"][2]) == ("marshal", "bomb")
    assert events["outcome"][2] == "defender"


def test_flag_capture_ends_the_game() -> None:
    record = game({"A9": "r5", "B10": "b5"}, "A9-A10", result=(1, 1))
    record.setup = tuple(
        code if sq != parse_square("A10") else 24 for sq, code in enumerate(record.setup or ())
    )
    assert rows(game_events(replay(record)))[-2:] == [
        (1, "flag_captured", "red", "blue", None, "red captures the flag on A10"),
        (1, "end", None, None, "red", "red captured the flag"),
    ]


def test_lightning_rescue_and_one_time_bomb() -> None:
    pieces = {"E8": "r7", "E9": "b8", "D9": "r9", "B2": "b5", "G3": "rB", "G4": "b4"}
    record = lightning(pieces, "E8-E9 G4-G3 D9-D10", {3: Rescue(parse_square("E4"), 8, "E4", "8")})
    events = game_events(replay(record))
    assert rows(events)[2:] == [
        (2, "battle", "blue", None, None, "blue sergeant G4 attacks red bomb G3: both removed"),
        (2, "bomb_removed", "blue", "red", None, "red bomb on G3 removed by the sergeant"),
        (3, "rescue", "red", None, None, "red general reaches D10 and brings back the major on E4"),
        (3, "end", None, None, None, "no result recorded"),
    ]
    assert events["rescued_piece"][4] == "major" and events["mover_piece"][4] == "general"
    assert events["defender_piece"][4] is None


def test_games_that_cannot_be_replayed_still_have_their_end() -> None:
    illegal = game({"E4": "r5"}, "E4-E6")
    assert rows(game_events(replay(illegal))) == [
        (
            0,
            "end",
            None,
            None,
            None,
            "replay stopped at ply 1: red's move E4-E6 is illegal: "
            "a lieutenant moves at most 1 square(s), not 2 (E4: red lieutenant; E6: empty)",
        ),
    ]
    no_setup = GameRecord(source="t.xml", variant="classic", result=Result(4, 3))
    assert rows(game_events(None, no_setup)) == [
        (0, "end", None, None, None, "not replayed: the record has no setup")
    ]
    broken = GameRecord(source="bad.xml", readable=False)
    broken.add("xml.syntax", Severity.ERROR, "no root")
    assert rows(game_events(None, broken))[0][5] == "unreadable: no root"


def test_a_batch_finds_each_games_events_in_turn_around_games_without_plies() -> None:
    """One vectorised pass over several games: games with no replayed ply between others,
    an end on the same ply as a flag capture, a rescue; rows in ply order, game by game."""
    flag = game({"A9": "r5", "B10": "b5"}, "A9-A10", result=(1, 1))
    flag.setup = tuple(
        code if sq != parse_square("A10") else 24 for sq, code in enumerate(flag.setup or ())
    )
    pieces = {"E8": "r7", "E9": "b8", "D9": "r9", "B2": "b5", "G3": "rB", "G4": "b4"}
    rescue = lightning(pieces, "E8-E9 G4-G3 D9-D10", {3: Rescue(parse_square("E4"), 8, "E4", "8")})
    no_setup = GameRecord(source="t.xml", variant="classic", result=Result(4, 3))
    illegal = game({"E4": "r5"}, "E4-E6")
    games = [
        (None, no_setup),
        (replay(BIG_LOSSES), BIG_LOSSES),
        (replay(illegal), illegal),
        (None, no_setup),
        (replay(flag), flag),
        (replay(rescue), rescue),
        (None, no_setup),
    ]
    batch = EventBatch()
    for result, record in games:
        batch.add(result, record)
    codes = batch.codes()
    expected = [game_events(result, record) for result, record in games]
    assert codes.labels() == {
        name: [v for e in expected for v in e[name]] for name in EVENT_COLUMNS
    }
    assert codes.game.tolist() == [i for i, e in enumerate(expected) for _ in e["ply"]]
    assert [(row[0], row[1]) for row in rows(expected[1])] == [
        (1, "battle"),
        (1, "first_capture"),
        (1, "spy_takes_marshal"),
        (1, "marshal_lost"),
        (6, "battle"),
        (6, "general_lost"),
        (7, "battle"),
        (7, "bomb_removed"),
        (10, "end"),
    ]
    assert [row[1] for row in rows(expected[4])] == [
        "battle",
        "first_capture",
        "flag_captured",
        "end",
    ]
    assert [len(e["ply"]) for e in expected] == [1, 9, 1, 1, 4, 6, 1]


def test_arrow_and_python_join_the_same_sentences_on_every_kind() -> None:
    """The export's detail column (fragments joined by Arrow) against game_events (joined in
    Python) on data/: every kind's sentences, rescues and ends included."""
    from strat_tools.formats.readers import read_units

    table = events_batch(list(iter_units(["data/"])))
    expected = []
    for record in read_units(iter_units(["data/"])):
        expected += game_events(replay(record) if record.setup else None, record)["detail"]
    assert table.column("detail").to_pylist() == expected
    kinds = set(table.column("kind").cast(pa.string()).to_pylist())
    assert kinds >= {"battle", "first_capture", "marshal_lost", "bomb_removed", "end"}


def test_an_empty_batch_is_an_empty_table() -> None:
    table = events_table(pa.array([], pa.string()), EventBatch().codes())
    assert table.schema == EVENTS_SCHEMA and table.num_rows == 0


def test_the_table_has_one_end_per_game(tmp_path: Path) -> None:
    table = events_batch(list(iter_units(["data/"])))
    assert table.schema == EVENTS_SCHEMA
    frame = table.to_pandas()
    kinds = frame["kind"].astype(str)
    assert (kinds == "end").sum() == frame["game_id"].nunique() == 400
    assert set(kinds) <= set(EVENT_KINDS)
    marshals = read_events("data/", run=1, kinds=["marshal_lost"])
    assert len(marshals) and set(marshals["kind"]) == {"marshal_lost"}
    with pytest.raises(ValueError, match="unknown event kind"):
        read_events("data/", kinds=["castling"])


def test_cli_events(tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(
        main, ["events", "data/", "--jobs", "1", "--kind", "end", "--format", "csv"]
    )
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()  # stderr says the games are synthetic
    assert lines[0] == (
        "game_id,ply,kind,mover,mover_piece,mover_rank,from_square,to_square,defender_piece,"
        "defender_rank,outcome,loser,rescued_piece,rescued_rank,winner,termination,detail"
    )
    assert len(lines) == 401
    bad = runner.invoke(main, ["events", "data/", "--kind", "castling"])
    assert bad.exit_code == 2 and "castling" in bad.output
    empty = runner.invoke(main, ["events", str(tmp_path)])
    assert empty.exit_code == 2 and "no game records found" in empty.output


def test_the_cli_streams_batch_by_batch_the_rows_of_read_events() -> None:
    """data/ is read in 8 batches with --jobs 1: each format is still one document."""
    import io
    import json

    import pandas as pd

    expected = read_events("data/", run=1, kinds=["battle", "end"])
    runner = CliRunner()
    args = ["events", "data/", "--jobs", "1", "--kind", "battle", "--kind", "end", "--format"]
    as_json = json.loads(runner.invoke(main, [*args, "json"]).stdout)
    lines = runner.invoke(main, [*args, "jsonl"]).stdout.splitlines()
    as_csv = pd.read_csv(io.StringIO(runner.invoke(main, [*args, "csv"]).stdout))
    assert len(as_json) == len(lines) == len(as_csv) == len(expected) > 400
    assert [row["game_id"] for row in as_json] == expected["game_id"].tolist()
    assert as_csv["detail"].tolist() == expected["detail"].tolist()


def test_the_cli_prints_nulls_blank_and_names_whose_side_each_is() -> None:
    runner = CliRunner()
    args = ["events", "data/", "--jobs", "1", "--kind", "marshal_lost", "--kind", "end"]
    table = runner.invoke(main, args).stdout
    csv = runner.invoke(main, [*args, "--format", "csv"]).stdout
    for text in (table, csv):
        assert not {"NaN", "nan", "None", "<NA>", "null"} & set(text.replace(",", " ").split())
    # An end row names its winner and leaves the move's columns blank.
    end = next(line for line in csv.splitlines() if ",end," in line)
    fields = end.split(",")  # game_id, ply, kind, mover .. rescued_rank, winner, ...
    assert fields[3:14] == [""] * 11 and fields[14] in ("red", "blue")
    # A marshal_lost row says who moved and who lost, each by name.
    lost = next(block for block in table.split("\n\n") if "kind marshal_lost" in block)
    assert "mover " in lost and "loser " in lost and " side " not in lost
