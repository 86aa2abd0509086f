"""The .gsn reader and writer: hand-written fixtures named after their quirk, and the archive.

The fixtures in tests/fixtures/gsn/ were written by hand for this project, to the grammar
of docs/gravon-format.md (see the README there); none comes from Gravon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from strat_tools.core.diagrams import render_board
from strat_tools.core.records import GameRecord, Rescue, Result, Severity
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import board_at
from strat_tools.formats.gsn import parse_gsn
from strat_tools.formats.gsn_writer import gsn_file_name, record_to_gsn
from strat_tools.formats.readers import parse_record, read_records
from strat_tools.generate.games import generate_games

FIXTURES = Path(__file__).parent / "fixtures" / "gsn"
HAND_FIELD = (
    "BMBBEEFBCKBEDFGHHIBLDDGGFFHHIJDEDEDIJGDDAA__AA__AAAA__AA__AA"
    "PQPQPUVSPPPPSSRRTTUVNQPRSTTUNXNYNNQQRNOW"
)
"""The setup of the hand-written classic game (v1_header.gsn and its variants)."""


def read(name: str) -> GameRecord:
    (record,) = read_records([FIXTURES / name])
    return record


def codes(record: GameRecord) -> list[tuple[str, str, int | None, int | None]]:
    return [(d.code, d.severity.value, d.line, d.ply) for d in record.diagnostics]


def test_a_game_written_by_hand_to_the_grammar_reads_as_expected() -> None:
    record = read("v1_header.gsn")
    assert (record.variant, record.game_id, record.players) == (
        "classic",
        "v1_header",
        ("ann", "bob"),
    )
    assert record.setup is not None
    assert "".join("ABCDEFGHIJKLMNOPQRSTUVWXY_"[c] for c in record.setup) == HAND_FIELD
    assert [m.to_str() for m in record.moves] == ["A4-A5", "A7-A6", "B4-B5", "B7-B6", "A5-A6"]
    assert record.lines == [4, 5, 6, 7, 8]
    assert record.result == Result(3, 2)  # winner 1 counted from 0: blue
    assert codes(record) == []
    assert replay(record).status == "valid"
    assert render_board(board_at(record).board) == (
        "      A   B   C   D   E   F   G   H   I   K\n"
        "10  bB  bF  bB  bB  b3  b3  b4  bB  b1  b9\n"
        " 9  bB  b3  b2  b4  b5  b6  b6  b7  bB b10\n"
        " 8  b2  b2  b5  b5  b4  b4  b6  b6  b7  b8\n"
        " 7   .   .  b2  b3  b2  b7  b8  b5  b2  b2\n"
        " 6   .  b3  ~~  ~~   .   .  ~~  ~~   .   .\n"
        " 5   .  r3  ~~  ~~   .   .  ~~  ~~   .   .\n"
        " 4   .   .  r2  r3  r2  r7  r8  r5  r2  r2\n"
        " 3  r2  r2  r5  r5  r4  r4  r6  r6  r7  r8\n"
        " 2  rB  r3  r2  r4  r5  r6  r6  r7  rB r10\n"
        " 1  rB  rF  rB  rB  r3  r3  r4  rB  r1  r9"
    )


@pytest.mark.parametrize("name", ["v2_header.gsn", "utf8_bom_crlf.gsn"])
def test_header_versions_and_line_ends_read_alike(name: str) -> None:
    first, other = read("v1_header.gsn"), read(name)
    for attr in ("variant", "setup", "sources", "targets", "lines", "players", "result"):
        assert getattr(other, attr) == getattr(first, attr), attr
    assert codes(other) == []


def test_a_repeated_end_joins_the_move_segments_and_keeps_the_first_result() -> None:
    record = read("end_repeated.gsn")
    assert [m.to_str() for m in record.moves] == ["A4-A5", "A7-A6", "B4-B5", "B7-B6"]
    assert record.lines == [4, 5, 8, 9]
    assert record.result == Result(3, 2)  # line 7's, not line 11's "result 1 winner 0"
    assert codes(record) == [("repair.gsn_end_repeated", "info", 10, None)]
    assert "lines 6, 10" in record.diagnostics[0].message
    assert "line 11 dropped" in record.diagnostics[0].message
    assert replay(record).status == "valid"


def test_moves_after_the_result_line_are_the_last_moves() -> None:
    record = read("end_not_second_to_last.gsn")
    assert [m.to_str() for m in record.moves] == ["A4-A5", "A7-A6", "B4-B5", "B7-B6"]
    assert record.result == Result(3, 2)
    assert codes(record) == [("repair.gsn_end_misplaced", "info", 6, None)]
    assert "2 move lines after its result line" in record.diagnostics[0].message


def test_no_field_line_means_the_game_ended_during_the_setup() -> None:
    record = read("no_field.gsn")
    assert (record.variant, record.setup, record.plies, record.result) == (
        "barrage",
        None,
        0,
        Result(3, 1),
    )
    assert codes(record) == [("setup.missing", "info", 2, None)]


def test_a_rescue_line_belongs_to_the_move_before_it() -> None:
    record = read("rescue_line.gsn")
    assert record.variant == "ultimate lightning"
    assert [m.to_str() for m in record.moves] == ["D2-D3", "D9-D8", "D3-D4", "D8-D7"]
    assert record.rescues == {3: Rescue(2, 22, "C1", "22")}  # C1, piece 22
    assert record.lines == [4, 5, 6, 8]
    assert codes(record) == []


def test_column_j_before_a_rescue_line_is_read_as_k_and_reported() -> None:
    record = read("rescue_with_column_j.gsn")
    assert [m.to_str() for m in record.moves] == ["K2-K3", "K9-K8", "K3-K4"]
    assert record.rescues == {3: Rescue(9, 7, "K1", "07")}
    assert codes(record) == [("repair.column_j", "info", 6, 3)]


def test_every_other_oddity_is_a_diagnostic_with_its_line() -> None:
    record = read("bad_lines.gsn")
    assert codes(record) == [
        ("gsn.blank_line", "warning", 5, None),
        ("gsn.line", "error", 6, None),
        ("rescue.orphan", "error", 7, None),
        ("move.square", "error", 8, 2),
        ("result.type", "error", 10, None),
    ]
    assert (record.sources, record.targets) == ([30, 60], [40, -1])
    assert record.result == Result(None, 2)


def test_a_file_without_end_reads_its_last_line_as_the_result() -> None:
    record = read("no_end.gsn")
    assert (record.plies, record.result) == (1, Result(3, 2))
    assert codes(record) == [("gsn.end", "error", 5, None)]


def test_a_file_without_the_header_is_not_a_game_record() -> None:
    record = read("not_gsn.gsn")
    assert not record.readable
    assert codes(record) == [("gsn.header", "error", 1, None)]


def test_a_gsn_name_holding_xml_is_read_as_xml_with_a_warning() -> None:
    record = read("holds_xml.gsn")
    assert (record.variant, record.players, record.result) == (
        "barrage",
        ("ann", "bob"),
        Result(3, 1),
    )
    assert codes(record)[0] == ("source.format", "warning", 1, None)


ODD_NAMES = [
    ("classic.2003.6.7.12.GSN", "classic", (2003, 6, 7, 12), []),
    ("freesetup.2003.11.00.9.gsn", "classicfree", (2003, 11, None, 9), []),
    (
        "ultimate.2003.13.40.3.gsn",
        "ultimate lightning",
        (None, None, None, 3),
        ["name.month", "name.day"],
    ),
    ("lightning.2003.06.07.4.gsn", "ultimate lightning", (2003, 6, 7, 4), ["name.variant"]),
    ("barrage.2003.07.01.5.gsn", "classic", (2003, 7, 1, 5), ["name.variant"]),
    ("my game.gsn", "barrage", (None, None, None, None), []),
]


@pytest.mark.parametrize(("name", "variant", "when", "warned"), ODD_NAMES)
def test_odd_file_names(
    name: str, variant: str, when: tuple[int | None, ...], warned: list[str]
) -> None:
    record = read(f"odd_names/{name}")
    assert record.variant == variant
    assert (record.year, record.month, record.day, record.number) == when
    assert [d.code for d in record.diagnostics if d.severity is Severity.WARNING] == warned


def test_the_written_text_follows_the_grammar_line_by_line() -> None:
    record = read("rescue_with_column_j.gsn")
    record.players = ("ann", "bob")
    lines = record_to_gsn(record).decode().split("\n")
    assert lines[:2] == ["#X38FA11 Stratego-Notation v2", "type 3"]
    assert lines[3:] == [
        "K2-K3",
        "K9-K8",
        "K3-K4",
        "K1:07",
        "END",
        "ann vs bob result 3 winner 0",
        "",
    ]


def test_written_games_read_back_as_the_same_records() -> None:
    for game in generate_games(12, variant={"classic": 1, "barrage": 1, "duell": 1}, seed=4):
        name = gsn_file_name(game)
        back = parse_gsn(record_to_gsn(game), name).record
        for attr in (
            "variant",
            "year",
            "month",
            "number",
            "setup",
            "sources",
            "targets",
            "players",
            "result",
        ):
            assert getattr(back, attr) == getattr(game, attr), (name, attr)
        assert back.diagnostics == []
        assert name.endswith(f".{game.year}.{game.month:02d}.00.{game.number}.gsn")


def test_a_daily_name_keeps_its_day_through_writing() -> None:
    record = parse_record((FIXTURES / "no_field.gsn").read_bytes(), "barrage.2003.07.31.8.gsn")
    assert (record.year, record.month, record.day, record.number) == (2003, 7, 31, 8)
    assert gsn_file_name(record) == "barrage.2003.07.31.8.gsn"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"variant": "chess"}, "no .gsn type number"),
        ({"sources": [-1], "targets": [40]}, "unreadable square"),
        ({"rescues": {1: Rescue(None, 3, "Z9", "3")}}, "unreadable rescue"),
    ],
)
def test_the_writer_refuses_what_the_format_cannot_say(
    change: dict[str, object], message: str
) -> None:
    record = GameRecord("x.xml", variant="classic", sources=[30], targets=[40], result=Result(3, 1))
    for key, value in change.items():
        setattr(record, key, value)
    with pytest.raises(ValueError, match=message):
        record_to_gsn(record)


def test_a_record_without_result_is_written_so_that_it_reads_as_missing() -> None:
    record = GameRecord("x.xml", variant="classic", players=("ann", "bob"))
    back = parse_gsn(record_to_gsn(record), "x.gsn").record
    assert back.result is None and back.players == ("ann", "bob")
    assert [d.code for d in back.diagnostics] == ["result.missing"]


def test_bytes_that_are_not_utf8_are_read_as_latin1_with_a_warning_on_their_line() -> None:
    data = (FIXTURES / "no_field.gsn").read_bytes().replace(b"ann", b"J\xf6rg")
    record = parse_gsn(data, "barrage.2003.07.01.6.gsn").record
    assert record.players == ("J\u00f6rg", "bob")
    assert codes(record) == [("gsn.encoding", "warning", 4, None)]


def test_a_game_number_too_large_for_a_table_is_a_warning_not_a_crash() -> None:
    name = "classic.2003.06.07." + "9" * 5000 + ".gsn"
    record = parse_gsn((FIXTURES / "no_field.gsn").read_bytes(), name).record
    assert (record.year, record.month, record.day, record.number) == (2003, 6, 7, None)
    assert [d.code for d in record.diagnostics if d.severity is Severity.WARNING] == [
        "name.number",
        "name.variant",
    ]
