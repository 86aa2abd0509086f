"""The Gravon reader: fixtures named after their quirk, both paths, and the real archive."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from conftest import WHOLE_ARCHIVE
from strat_tools.core.board import parse_square, square_name
from strat_tools.core.pieces import CODE_LETTERS
from strat_tools.core.records import GameRecord
from strat_tools.formats import fastscan
from strat_tools.formats.gravon_xml import parse_strict
from strat_tools.formats.readers import parse_record, read_records, read_units
from strat_tools.io.sources import UnitReader, expand

GRAVON = Path(__file__).parent / "fixtures" / "gravon"


def read(name: str, *, fast: bool = True) -> GameRecord:
    """The one record in a fixture file."""
    (record,) = read_records([str(GRAVON / name)], fast=fast)
    return record


def codes(record: GameRecord) -> list[tuple[str, str, int | None, int | None]]:
    """(code, severity, line, ply) of every diagnostic, in order."""
    return [(d.code, str(d.severity), d.line, d.ply) for d in record.diagnostics]


def setup_diagram(record: GameRecord) -> str:
    """The setup as Gravon letters, row 10 on top (as blue faces red)."""
    assert record.setup is not None
    rows = ["".join(CODE_LETTERS[c] for c in record.setup[r * 10 : r * 10 + 10]) for r in range(10)]
    return "\n".join(reversed(rows))


def test_classic_game_decoded() -> None:
    record = read("classic-2014.4-17.xml")
    assert record.readable and record.diagnostics == []
    assert (record.variant, record.year, record.month, record.number) == ("classic", 2014, 5, 17)
    assert record.game_id == "classic-2014.4-17"
    assert setup_diagram(record) == "\n".join(
        [
            "YQRQTQTNPQ",
            "QVSPONURUN",
            "NSWSUPRNPN",
            "PRTXSPPVTP",
            "AA__AA__AA",
            "AA__AA__AA",
            "GBIIJBHHDE",
            "FFDGDBLGDD",
            "EEGDDBBHCD",
            "EEFFJBMKIH",
        ]
    )
    assert [m.to_str() for m in record.moves] == ["I4-I5", "A7-A6", "I5-I6"]
    assert record.lines == [6, 7, 8]
    assert record.players == ("Player 1", "Player 2")
    assert record.result is not None and (record.result.type, record.result.winner) == (3, 2)


def test_month_in_the_name_counts_from_zero() -> None:
    (record,) = read_records([str(GRAVON / "classic-2014.4-17.xml")])
    assert (record.year, record.month) == (2014, 5)


def test_zip_name_gives_the_period_when_the_member_name_does_not() -> None:
    records = list(read_records([str(GRAVON / "strados2014-4.zip")]))
    assert [(r.member, r.year, r.month, r.number) for r in records] == [
        ("classic-2014.4-17.xml", 2014, 5, 17),
        ("renamed.xml", 2014, 5, None),
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("truncated.xml", [("xml.truncated", "error", 11, None)]),
        ("malformed.xml", "xml.malformed"),
        ("empty.xml", [("xml.empty", "error", None, None)]),
        ("not_stratego_root.xml", "xml.root"),
        ("wrong_encoding.xml", [("xml.encoding", "error", 9, None)]),
    ],
)
def test_unreadable_inputs_give_one_invalid_record(name: str, expected: object) -> None:
    for fast in (True, False):
        record = read(name, fast=fast)
        assert not record.readable
        if isinstance(expected, str):
            assert record.errors[-1].code == expected
        else:
            assert codes(record) == expected


def test_no_field_is_a_legitimate_record() -> None:
    record = read("no_field.xml")
    assert record.readable and record.setup is None and record.plies == 0
    assert codes(record) == [("setup.missing", "info", 3, None)]
    assert read("no_field_with_moves.xml").errors[0].code == "setup.missing"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("bad_field_letters.xml", [("setup.field", "error", 5, None)]),
        ("short_field.xml", [("setup.field", "error", 5, None)]),
        ("bad_square.xml", [("move.square", "error", 6, 1)]),
        ("repeated_move_id.xml", [("move.id", "error", 8, 3)]),
        ("missing_move_id.xml", [("move.id", "error", 7, 2)]),  # one gap, one error
        ("unknown_element.xml", [("xml.unknown_element", "warning", 9, None)]),
        ("unknown_attribute.xml", [("xml.unknown_attribute", "warning", 7, None)]),
        ("unknown_result_type.xml", [("result.type", "error", 11, None)]),
        ("result_draw_with_winner.xml", [("result.inconsistent", "error", 11, None)]),
        ("variant_mismatch/classic-2014.4-3.xml", [("name.variant", "warning", 3, None)]),
        ("utf8_bom.xml", []),
        ("comment_and_spaces.xml", []),
    ],
)
def test_quirks_become_located_diagnostics(name: str, expected: list[tuple[object, ...]]) -> None:
    for fast in (True, False):
        record = read(name, fast=fast)
        assert record.readable
        assert codes(record) == expected


def test_bad_square_is_minus_one() -> None:
    record = read("bad_square.xml")
    assert record.targets[0] == -1 and record.sources[0] == parse_square("I4")
    assert "'J5'" in record.diagnostics[0].message


def test_column_j_in_a_rescue_move_is_repaired_and_reported() -> None:
    record = read("rescue_with_column_j.xml")
    assert [m.to_str() for m in record.moves] == ["A4-A5", "K9-K10", "B4-B5"]
    assert record.lines == [6, 7, 9]
    rescue = record.rescues[2]
    assert (rescue.square, rescue.piece, rescue.raw_field, rescue.raw_piece) == (35, 7, "F4", "7")
    assert codes(record) == [("repair.column_j", "info", 7, 2)]
    assert "J9-J:" in record.diagnostics[0].message


def test_unsafe_member_names_are_read_with_a_warning() -> None:
    records = list(read_records([str(GRAVON / "unsafe_member_names.zip")]))
    assert [r.game_id for r in records] == ["classic-2014.4-1", "classic-2014.4-2"]
    assert all(codes(r) == [("source.member_name", "warning", None, None)] for r in records)


def test_broken_zip_and_missing_path_are_invalid_entries() -> None:
    paths = [str(GRAVON / "broken.zip"), str(GRAVON / "truncated.zip"), str(GRAVON / "nothing.xml")]
    records = list(read_records(paths))
    assert [(r.readable, r.errors[0].code) for r in records] == [(False, "source.unreadable")] * 3
    assert "no such file" in records[2].errors[0].message


def test_fast_path_accepts_only_the_archive_layout() -> None:
    assert fastscan.scan((GRAVON / "classic-2014.4-17.xml").read_bytes()) is not None
    assert fastscan.scan((GRAVON / "rescue_with_column_j.xml").read_bytes()) is not None
    for odd in (
        "utf8_bom.xml",
        "comment_and_spaces.xml",
        "bad_square.xml",
        "missing_move_id.xml",
        "repeated_move_id.xml",
        "unknown_attribute.xml",
        "bad_field_letters.xml",
    ):
        assert fastscan.scan((GRAVON / odd).read_bytes()) is None, odd


@pytest.mark.parametrize(
    "mutation",
    [
        (b'encoding="UTF-8"', b"encoding='UTF-8'"),
        (b"Player 1", b"Player &amp; 1"),
        (b"<stratego>", b"<stratego><![CDATA[x]]>"),
        (b'<move id="2"', b'<move  id="2"'),
        (b"</stratego>", b"</stratego>\n"),
        (b'<move id="3"', b'<move id="03"'),
    ],
)
def test_any_byte_off_the_layout_takes_the_strict_path(mutation: tuple[bytes, bytes]) -> None:
    data = (GRAVON / "classic-2014.4-17.xml").read_bytes().replace(*mutation)
    assert fastscan.scan(data) is None
    assert parse_record(data, "x.xml") == parse_record(data, "x.xml", fast=False)


def test_every_fixture_reads_the_same_on_both_paths() -> None:
    units = expand([str(GRAVON)])
    assert len(units) > 25
    assert list(read_units(units)) == list(read_units(units, fast=False))


def test_parse_strict_returns_the_lines_the_checks_need() -> None:
    record, field_line, result_line = parse_strict(
        (GRAVON / "classic-2014.4-17.xml").read_bytes(), "x.xml"
    )
    assert (field_line, result_line) == (5, 11)
    assert record.diagnostics == []


@pytest.mark.archive
@pytest.mark.slow
def test_real_archive_reads_clean(gravon_dir: Path) -> None:
    units = expand([str(gravon_dir)])
    moves = 0
    no_setup: list[str] = []
    repairs: collections.Counter[str] = collections.Counter()
    errors = []
    for record in read_units(units):
        moves += record.plies
        if record.setup is None:
            no_setup.append(record.name)
        errors += record.errors
        repairs.update(d.member or "" for d in record.diagnostics if d.code == "repair.column_j")
    assert len(units) == 13_980
    assert errors == []
    assert no_setup == ["classic-2014.9-2525.xml"]
    assert moves == 4_328_697
    assert (sum(repairs.values()), len(repairs)) == (11, 10)


@pytest.mark.archive
@pytest.mark.slow
def test_real_archive_identical_on_both_paths(gravon_dir: Path) -> None:
    """The fast scanner gives what the strict parser gives, on every file with a quirk (a
    diagnostic: a repair, a note, a warning) and every third of the others (every month and
    variant; the strict parser of the whole archive was a minute and a half of CI);
    ``STRAT_TOOLS_WHOLE_ARCHIVE=1``: on every file."""
    units = expand([str(gravon_dir)])
    fast = list(read_units(units))
    chosen = [
        k for k, record in enumerate(fast) if WHOLE_ARCHIVE or k % 3 == 0 or record.diagnostics
    ]
    quirky = sum(bool(fast[k].diagnostics) for k in chosen)
    assert len(units) == 13980 and quirky > 10, quirky
    strict = read_units([units[k] for k in chosen], fast=False)
    for k, record in zip(chosen, strict, strict=True):
        assert fast[k] == record, units[k].label
    with UnitReader() as reader:
        strict_only = sum(fastscan.scan(reader.read(u)) is None for u in units)
    assert strict_only == 0  # every real file is in the archive layout


def test_fast_square_table_round_trips_with_board_names() -> None:
    assert len(fastscan.SQUARE_CODES) == 100
    for square in range(100):
        assert fastscan.SQUARE_CODES[square_name(square, gravon=True).encode()] == square


@pytest.mark.parametrize("plies", [1024, 1025, 2048, 5000])
def test_long_game_keeps_every_move_and_both_paths_agree(plies: int) -> None:
    base = (GRAVON / "classic-2014.4-17.xml").read_bytes()
    head, _, rest = base.partition(b'  <move id="1"')
    tail = rest[rest.index(b"  <player") :]
    moves = b"".join(
        b'  <move id="%d" source="%s" target="%s"/>\n'
        % (i + 1, (b"A7", b"A4")[i % 2], (b"A6", b"A5")[i % 2])
        for i in range(plies)
    )
    data = head + moves + tail
    fast, strict = parse_record(data, "long.xml"), parse_record(data, "long.xml", fast=False)
    assert fast == strict
    assert fast.plies == plies and fast.lines[-1] == plies + 5 and fast.diagnostics == []


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        (b'<move source="A7" id="2" target="A6"/>', []),
        (b'<move target="A6" source="A7" id="2"/>', []),
        (
            b'<move id="2" from="A7" target="A6"/>',
            [("xml.unknown_attribute", "warning", 7, None), ("move.square", "error", 7, 2)],
        ),
    ],
)
def test_attribute_names_and_order_are_read_not_assumed(
    move: bytes, expected: list[tuple[object, ...]]
) -> None:
    data = (GRAVON / "classic-2014.4-17.xml").read_bytes()
    data = data.replace(b'<move id="2" source="A7" target="A6"/>', move)
    record = parse_record(data, "x.xml", fast=False)
    assert codes(record) == expected
    if not expected:
        assert [m.to_str() for m in record.moves] == ["I4-I5", "A7-A6", "I5-I6"]


def test_a_move_after_the_game_is_out_of_place() -> None:
    data = (GRAVON / "classic-2014.4-17.xml").read_bytes()
    head = data[: data.index(b"  <player")]
    data = head + b' </game>\n <move id="4" source="A6" target="A5"/>\n</stratego>'
    record = parse_record(data, "x.xml", fast=False)
    assert ("xml.structure", "error", 10, None) in codes(record)
    assert record.plies == 4
