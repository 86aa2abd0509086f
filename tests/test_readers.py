"""The reader seam: one registry entry and one module make a new format work everywhere.

The registry (``strat_tools.core.record_formats``) decides which names are game records and which
parser
reads them; ``strat_tools.formats.readers`` parses, then checks, in one place.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core import record_formats
from strat_tools.core.record_formats import FORMATS, RecordFormat, choose_format, format_named
from strat_tools.exports.validate import validate
from strat_tools.formats.readers import parse_record, parser_of, read_records
from strat_tools.formats.xml_writer import game_file_name, record_to_xml
from strat_tools.generate.games import generate_games
from strat_tools.io.sources import Skipped, expand

REPO = Path(__file__).resolve().parent.parent

TOY_MODULE = '''
"""A toy record format: 'toy <variant>' on line 1, then one move a line, then the result."""
from strat_tools.core.record_formats import Parsed
from strat_tools.formats.gravon_xml import decode_field
from strat_tools.core.records import GameRecord, Result, Severity


def blank(source, member=None):
    return GameRecord(source=source, member=member)


def parse(data, source, member=None, *, fast=True):
    record = blank(source, member)
    lines = data.decode().splitlines()
    record.variant = lines[0].split()[1]
    decode_field(record, lines[1], 2)
    for number, line in enumerate(lines[2:-1], 3):
        if line == "??":
            record.add("toy.move", Severity.ERROR, "unreadable move", line=number)
        src, _, tgt = line.partition(" ")
        record.sources.append(int(src) if src.isdigit() else -1)
        record.targets.append(int(tgt) if tgt.isdigit() else -1)
        record.lines.append(number)
    rtype, winner = lines[-1].split()
    record.result = Result(int(rtype), int(winner))
    record.players = ("Player 1", "Player 2")
    return Parsed(record, 2, len(lines))
'''


def toy_bytes(xml: bytes) -> bytes:
    """The toy text of one generated game, made from its XML by the XML parser."""
    record = parse_record(xml, "g.xml", check=False)
    assert record.setup is not None and record.result is not None
    field = "".join("ABCDEFGHIJKLMNOPQRSTUVWXY_"[c] for c in record.setup)
    moves = [f"{s} {t}" for s, t in zip(record.sources, record.targets, strict=True)]
    lines = [f"toy {record.variant}", field, *moves, f"{record.result.type} {record.result.winner}"]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture()
def toy_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RecordFormat:
    """The toy format: one module on the path, one registry entry, nothing else touched."""
    (tmp_path / "toyformat.py").write_text(TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(record_formats, "FORMATS", FORMATS)
    entry = RecordFormat(
        name="toy",
        title="a toy format made by this test",
        suffixes=(".toy",),
        header=b"toy ",
        parse="toyformat:parse",
        blank="toyformat:blank",
    )
    record_formats.register_format(entry)
    yield entry
    sys.modules.pop("toyformat", None)


def test_a_new_format_is_one_module_and_one_entry(tmp_path: Path, toy_format: RecordFormat) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    games = list(generate_games(3, variant="classic", seed=5))
    (folder / game_file_name(games[0])).write_bytes(record_to_xml(games[0]))
    (folder / "second.toy").write_bytes(toy_bytes(record_to_xml(games[1])))
    broken = toy_bytes(record_to_xml(games[2])).decode().splitlines()
    broken[4] = "??"
    (folder / "third.toy").write_text("\n".join(broken) + "\n")
    (folder / "notes.txt").write_text("not a game")

    skipped: list[Skipped] = []
    units = expand([folder], skipped=skipped)
    assert [Path(u.source).name for u in units] == [
        game_file_name(games[0]),
        "second.toy",
        "third.toy",
    ]
    assert [s.reason for s in skipped] == ["not a game record file (.xml, .gsn, .toy or .zip)"]

    records = list(read_records([folder]))
    assert [r.game_id for r in records] == [games[0].game_id, "second", "third"]
    assert records[1].sources == games[1].sources and records[1].setup == games[1].setup

    report = validate([str(folder)], run=1)
    assert [g.status.value for g in report.games] == ["valid", "valid", "invalid"]
    third = report.games[2]
    errors = [(d.code, d.line) for d in third.diagnostics if d.severity == "error"]
    assert errors[:1] == [("toy.move", 5)]

    result = CliRunner().invoke(main, ["validate", str(folder), "--jobs", "1"])
    assert result.exit_code == 1
    assert "3 games in 3 files: 2 valid, 1 invalid" in result.stdout
    assert "third.toy:5: error [toy.move] unreadable move" in result.stdout


def test_the_registry_names_only_parsers_that_exist() -> None:
    for fmt in FORMATS:
        assert callable(parser_of(fmt)), fmt.name
        assert fmt.suffixes == tuple(s.lower() for s in fmt.suffixes)
    with pytest.raises(LookupError, match="unknown record format 'pgn'; known: xml, gsn"):
        format_named("pgn")


def test_bytes_win_over_a_suffix_that_names_another_format(toy_format: RecordFormat) -> None:
    assert choose_format("a.xml", b"toy classic\n") == (toy_format, format_named("xml"))
    assert choose_format("a.toy", b"toy classic\n") == (toy_format, None)
    assert choose_format("a.xml", b"garbage") == (format_named("xml"), None)
    assert choose_format("notes", b"garbage") == (FORMATS[0], None)


def test_register_format_refuses_suffixes_it_cannot_match() -> None:
    bad = RecordFormat("zipped", "t", (".zip",), b"PK", "m:f", "m:g")
    with pytest.raises(ValueError, match="archive"):
        record_formats.register_format(bad)
    with pytest.raises(ValueError, match="lower-case, one"):
        record_formats.register_format(RecordFormat("up", "t", (".TOY",), b"t", "m:f", "m:g"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(
    "parser",
    ["formats/gravon_xml", "formats/fastscan", "core/record_formats", "io/sources", "core/records"],
)
def test_the_parsers_and_the_registry_do_not_import_the_checks(parser: str) -> None:
    imports = _imports(REPO / "strat_tools" / f"{parser}.py")
    assert "strat_tools.core.checks" not in imports
    assert "strat_tools.formats.readers" not in imports


def test_the_registry_imports_nothing_of_the_project() -> None:
    """Not even for types: ``records`` asks the registry about suffixes, so an import back
    (``Parsed`` once named ``GameRecord`` under ``TYPE_CHECKING``; it is generic now) is a
    cycle."""
    source = (REPO / "strat_tools" / "core" / "record_formats.py").read_text()
    found = [
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("strat_tools")
    ]
    assert found == []
