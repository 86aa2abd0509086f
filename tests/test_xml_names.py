"""Player names that XML 1.0 cannot carry (issue 25, point 7): control characters, U+FFFE,
U+FFFF and lone surrogates coming from a `.gsn` record. The XML writer escapes them
(``\\uXXXX``, backslash doubled, ``<player escaped="backslash">``), so every game that
converts reads back: by strat-tools, with the name exactly as it was, and by a strict XML
parser that knows nothing of strat-tools.

The fixtures are the hand-written `.gsn` files of tests/fixtures/gsn named after the
characters their names hold.
"""

from __future__ import annotations

import random
import re
import zipfile
from pathlib import Path
from xml.dom import minidom

import pytest
from click.testing import CliRunner
from lxml import etree

from strat_tools.cli import main
from strat_tools.core.records import GameRecord, Result
from strat_tools.exports.convert import convert
from strat_tools.formats.gravon_fields import unescape_name, xml_name_text
from strat_tools.formats.gsn_writer import record_to_gsn
from strat_tools.formats.readers import parse_record, read_records
from strat_tools.formats.xml_writer import record_to_xml

PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
GSN = Path(__file__).parent / "fixtures" / "gsn"

NAMED = {
    "control_characters_in_names.gsn": ("ann\x1b[31mred\x07", "bob\x08\x7f"),
    "noncharacters_in_names.gsn": ("ann\uffff", "bob\ufffe"),
    "lone_surrogates_in_quoted_names.gsn": ("ann\ud800", "b\udfffob \\u0041"),
    "nul_and_carriage_return_in_quoted_names.gsn": ("a\x00b", "c\rd\\"),
}


def strictly_parsed(data: bytes) -> list[str]:
    """The two player names as a strict, non-recovering XML 1.0 parser reads them, with the
    documented escapes undone where the element says so."""
    minidom.parseString(data)  # expat: raises on any character XML 1.0 forbids
    root = etree.fromstring(data, etree.XMLParser(recover=False, resolve_entities=False))
    return [
        (unescape_name(el.text or "") or "?") if el.get("escaped") else (el.text or "")
        for el in root.iter("player")
    ]


@pytest.mark.parametrize("fixture", sorted(NAMED))
def test_the_fixture_reads_with_the_names_it_was_written_with(fixture: str) -> None:
    (record,) = read_records([str(GSN / fixture)])
    assert record.players == NAMED[fixture]
    assert not record.errors


@pytest.mark.parametrize("fixture", sorted(NAMED))
def test_every_name_converts_to_xml_and_reads_back_exactly(fixture: str, tmp_path: Path) -> None:
    out = tmp_path / "out.zip"
    report = convert([str(GSN / fixture)], out, to="xml", run=1)
    assert report.written == 1
    with zipfile.ZipFile(out) as archive:
        (member,) = archive.namelist()
        data = archive.read(member)
    # Any XML parser reads it; the names are plain text, escaped where XML cannot hold them.
    assert strictly_parsed(data) == list(NAMED[fixture])
    # strat-tools reads the same names back, with no diagnostic about them.
    (again,) = read_records([str(out)])
    assert again.players == NAMED[fixture]
    assert not [d for d in again.diagnostics if d.code.startswith(("xml.", "player."))]


def test_validate_accepts_the_converted_games(tmp_path: Path) -> None:
    out = tmp_path / "names.zip"
    convert([str(GSN / name) for name in sorted(NAMED)], out, to="xml", run=1)
    result = CliRunner().invoke(main, ["validate", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    assert "4 games in 1 file: 4 valid, 0 invalid" in result.stderr + result.stdout


def test_the_player_line_as_written() -> None:
    record = GameRecord("x.xml", variant="classic", players=("ann\x1b[1m\\", "c\rd"))
    lines = record_to_xml(record).decode().splitlines()
    assert lines[4:6] == [
        '  <player id="1" escaped="backslash">ann\\u001b[1m\\\\</player>',
        '  <player id="2">c&#13;d</player>',
    ]


def test_names_xml_can_hold_are_written_as_they_are() -> None:
    """The archive's names (and any printable one, backslashes included) are not escaped,
    so rewriting an archive record stays byte for byte."""
    for name in ("Player 1", "a\\u001b", "tab\there", "line\nbreak", "ünï 名前 \u2028", "\x85"):
        assert xml_name_text(name) == (name, False)
        record = GameRecord("x.xml", variant="classic", players=(name, "bob"))
        assert b"escaped=" not in record_to_xml(record)
        assert parse_record(record_to_xml(record), "x.xml").players == (name, "bob")


def test_random_hostile_names_round_trip_through_xml() -> None:
    rng = random.Random(7)
    alphabet = "ab \\u0\t\n\r\x00\x01\x1b\x7f\ufffe\uffff\ud800\udbff\udc00\udfff&<>\"'é"
    for _ in range(400):
        red, blue = ("".join(rng.choices(alphabet, k=rng.randrange(10))) for _ in range(2))
        record = GameRecord("x.xml", variant="barrage", players=(red, blue))
        record.result = Result(1, 2)
        data = record_to_xml(record)
        assert strictly_parsed(data) == list(record.players)
        again = parse_record(data, "x.xml")
        assert again.players == record.players
        assert record_to_xml(again) == data
        # And through .gsn: the same names, but for a high surrogate followed by a low one,
        # which JSON (the .gsn quoting) can only read as the one character they encode.
        if not any(PAIR.search(name) for name in record.players):
            via_gsn = parse_record(record_to_gsn(record), "barrage.2003.07.01.5.gsn")
            assert via_gsn.players == record.players


@pytest.mark.parametrize(
    ("attribute", "text"),
    [("backslash", "bad\\x"), ("backslash", "end\\"), ("hex", "a\\u0041"), ("", "a")],
)
def test_an_escape_the_writer_never_writes_is_a_warning_and_the_text_kept(
    attribute: str, text: str
) -> None:
    data = record_to_xml(GameRecord("x.xml", variant="classic", players=("ann", "bob")))
    data = data.replace(
        b'<player id="1">ann', f'<player id="1" escaped="{attribute}">{text}'.encode()
    )
    record = parse_record(data, "x.xml")
    assert record.players == (text, "bob")
    assert [d.code for d in record.diagnostics if d.code.startswith("player.")] == [
        "player.escaped"
    ]
