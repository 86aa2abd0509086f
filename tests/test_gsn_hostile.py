"""The .gsn reader and writer held against hostile names, headers and results (issue 25,
points 10, 14, 15, 27): names never invent a result or lose spaces, non-ASCII digits are no
numbers, a winner is reported as the file wrote it, messages stay short, ids survive."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from strat_tools.core.records import GameRecord, Result
from strat_tools.exports.convert import convert
from strat_tools.formats.gsn import parse_gsn, split_result_line
from strat_tools.formats.gsn_writer import quote_name, record_to_gsn
from strat_tools.formats.readers import parse_record, read_records

HEAD = "#X38FA11 Stratego-Notation v2\ntype 1\n"


def parsed(text: str, name: str = "barrage.2003.07.01.5.gsn") -> GameRecord:
    return parse_gsn(text.encode(), name).record


def codes(record: GameRecord) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in record.diagnostics]


HOSTILE_NAMES = [
    "bob result 1 winner 0",
    "eve   ",
    "  lead",
    "a vs b",
    "x vs",
    "vs y",
    '"quoted"',
    '"',
    "",
    "tab\there",
    "line\nbreak",
    "cr\rname",
    "bell\x07esc\x1b",
    "back\\slash",
    "ünïcødé 名前",
    "result",
    "winner 2",
]


@pytest.mark.parametrize("result", [None, Result(3, 1), Result(1, 3)])
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_name_never_invents_a_result_nor_loses_characters(
    name: str, result: Result | None
) -> None:
    for players in ((name, "bob"), ("ann", name), (name, name)):
        record = GameRecord("barrage.2003.07.01.5.gsn", variant="barrage", players=players)
        record.result = result
        again = parsed(record_to_gsn(record).decode())
        assert again.players == players
        assert again.result == result
        # The written text is one line per line: a name never breaks the file's layout.
        assert record_to_gsn(record).decode().count("\n") == 4


def test_random_names_round_trip_exactly() -> None:
    rng = random.Random(25)
    alphabet = ' "\\vsresultwinner\t\n\x00\x1bé0123-'
    for _ in range(300):
        red, blue = ("".join(rng.choices(alphabet, k=rng.randrange(12))) for _ in range(2))
        players = (red, blue)
        record = GameRecord("x.xml", variant="barrage", players=players, result=Result(2, 2))
        again = parsed(record_to_gsn(record).decode())
        assert (again.players, again.result) == (players, Result(2, 2))


def test_plain_names_are_written_as_they_are() -> None:
    assert quote_name("ann") == "ann"
    assert quote_name("Player 7") == "Player 7"
    record = GameRecord("x.xml", variant="barrage", players=("ann", "bob"), result=Result(3, 1))
    assert record_to_gsn(record).decode().splitlines()[-1] == "ann vs bob result 3 winner 0"


def test_an_unquoted_old_line_reads_as_before() -> None:
    names, found = split_result_line("ann vs bob result 3 winner 1")
    assert names == ("ann", "bob") and found is not None and found["winner"] == "1"
    # A name that merely starts with a quote is taken as it stands.
    assert split_result_line('"ann vs bob result 3 winner 1')[0] == ('"ann', "bob")


@pytest.mark.parametrize("version", ["v²", "v" + "7" * 5000, "v٢", "v1٠"])
def test_a_header_version_that_is_no_ascii_number_is_a_gsn_diagnostic(version: str) -> None:
    record = parsed(f"#X38FA11 Stratego-Notation {version}\ntype 1\nEND\nann vs bob\n")
    found = [(code, message) for code, message in codes(record) if code.startswith("gsn.")]
    assert found and found[0][0] in ("gsn.header", "gsn.version")
    assert all(len(message) < 200 for _, message in codes(record))
    assert not any(code.startswith("internal") for code, _ in codes(record))


def test_a_header_version_of_many_ascii_digits_is_read_with_a_short_warning() -> None:
    record = parsed("#X38FA11 Stratego-Notation v" + "7" * 5000 + "\ntype 1\nEND\na vs b\n")
    assert record.readable and record.variant == "barrage"
    ((_code, message),) = [(c, m) for c, m in codes(record) if c == "gsn.version"]
    assert message.startswith("header version v77777777777777777777... (5,000 digits)")


@pytest.mark.parametrize("line", ["type ٠", "type ١", "type 0\u0660", "type ²"])
def test_non_ascii_digits_are_no_game_type(line: str) -> None:
    record = parsed(f"#X38FA11 Stratego-Notation v2\n{line}\nEND\nann vs bob\n")
    assert [c for c, _ in codes(record) if c == "game.variant"] == ["game.variant"]


@pytest.mark.parametrize("winner", ["٠", "١", "²"])
def test_non_ascii_digits_are_no_result_number(winner: str) -> None:
    record = parsed(HEAD + f"END\nann vs bob result 3 winner {winner}\n")
    assert [c for c, _ in codes(record)] == ["result.winner"]
    assert record.result is not None and record.result.winner is None


def test_a_rescue_piece_of_non_ascii_digits_is_a_diagnostic() -> None:
    record = parsed(HEAD.replace("type 1", "type 3") + "A4-A5\nA1:²\nEND\nann vs bob\n")
    assert "rescue.piece" in [c for c, _ in codes(record)]


@pytest.mark.parametrize("winner", [-5, 3, 7, -1])
def test_a_winner_out_of_range_is_reported_as_the_file_wrote_it(winner: int) -> None:
    record = parsed(HEAD + f"END\nann vs bob result 3 winner {winner}\n")
    ((_code, message),) = [(c, m) for c, m in codes(record) if c == "result.winner"]
    assert message == f"result winner {winner}; expected 0 (red), 1 (blue) or 2 (draw)"
    assert record.result == Result(3, None)


def test_half_a_million_end_lines_give_a_short_message() -> None:
    text = HEAD + "END\nann vs bob result 3 winner 1\n" * 250_000
    record = parsed(text)
    ((_code, message),) = [(c, m) for c, m in codes(record) if c == "repair.gsn_end_repeated"]
    assert len(message) < 300
    assert message.startswith("250,000 END lines (lines 3, 5, 7, 9, 11, 13, 15, 17, 19, 21 and")
    assert "249,990 more" in message and "line 6, 8, 10" not in message
    assert message.endswith("lines 6, 8, 10, 12, 14, 16, 18, 20, 22, 24 and 249,989 more dropped")


def test_game_ids_survive_a_trip_to_gsn_and_back(tmp_path: Path) -> None:
    source = Path(__file__).parent / "fixtures" / "gravon" / "strados2014-4.zip"
    before = sorted(r.game_id for r in read_records([source]))
    as_gsn = tmp_path / "gsn"
    back = tmp_path / "xml"
    convert([source], as_gsn, to="gsn")
    convert([as_gsn], back, to="xml")
    gsn_ids = sorted(r.game_id for r in read_records([as_gsn]))
    xml_records = read_records([back])
    assert gsn_ids == before
    assert sorted(r.game_id for r in xml_records) == before
    original = {r.game_id: r for r in read_records([source])}
    for record in xml_records:
        first = original[record.game_id]
        assert (record.variant, record.year, record.month, record.number) == (
            first.variant,
            first.year,
            first.month,
            first.number,
        )


def test_a_daily_gsn_id_survives_a_trip_to_xml_and_back(tmp_path: Path) -> None:
    fixtures = Path(__file__).parent / "fixtures" / "gsn"
    folder = tmp_path / "in"
    folder.mkdir()
    data = (fixtures / "v2_header.gsn").read_bytes()
    (folder / "classic.2003.06.07.505.gsn").write_bytes(data)
    convert([folder], tmp_path / "xml", to="xml")
    convert([tmp_path / "xml"], tmp_path / "gsn", to="gsn")
    for where in ("xml", "gsn"):
        (record,) = read_records([tmp_path / where])
        assert record.game_id == "classic.2003.06.07.505"
        assert (record.year, record.month, record.day, record.number) == (2003, 6, 7, 505)


@pytest.mark.parametrize("piece", ["²", "٧", "7" * 5000])
def test_the_xml_reader_takes_ascii_digits_only_too(piece: str) -> None:
    fixture = Path(__file__).parent / "fixtures" / "gravon" / "rescue_with_column_j.xml"
    data = fixture.read_bytes().replace(b'rescuepiece="7"', f'rescuepiece="{piece}"'.encode())
    record = parse_record(data, "ultimate lightning-2014.3-1.xml")
    found = [(d.code, d.message) for d in record.diagnostics if d.code == "rescue.piece"]
    assert len(found) == 1 and len(found[0][1]) < 100
