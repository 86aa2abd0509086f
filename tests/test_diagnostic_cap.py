"""One game's diagnostics are capped (issue 25, point 3): the first ``MAX_PER_CODE`` of each
code, then one ``diagnostics.capped`` diagnostic counting the rest, in every reader; and a
run of blank lines in a ``.gsn`` file is one entry, not one a line. The hostile files are
generated small: the tests count diagnostics, never time."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from strat_tools.core.records import CAPPED_CODE, MAX_PER_CODE, Diagnostic, Severity, capped
from strat_tools.formats.readers import parse_record

GAME = (Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml").read_text()
GSN_HEAD = "#X38FA11 Stratego-Notation v2\ntype 0\n"
FIELD = (
    "BMBBEEFBCKBEDFGHHIBLDDGGFFHHIJDEDEDIJGDDAA__AA__AAAA__AA__AA"
    "PQPQPUVSPPPPSSRRTTUVNQPRSTTUNXNYNNQQRNOW"
)


def codes(record_diagnostics: list[Diagnostic]) -> Counter[str]:
    return Counter(d.code for d in record_diagnostics)


def test_a_gsn_of_a_thousand_junk_lines_keeps_a_hundred_and_counts_the_rest() -> None:
    text = (
        GSN_HEAD
        + FIELD
        + "\n"
        + "this is not a move\n" * 1_000
        + "END\nann vs bob result 1 winner 0\n"
    )
    record = parse_record(text.encode(), "classic.2014.05.01.1.gsn")
    found = codes(record.diagnostics)
    assert found["gsn.line"] == MAX_PER_CODE
    (count,) = [d for d in record.diagnostics if d.code == CAPPED_CODE]
    assert (
        count.message
        == f"900 more [gsn.line] diagnostics left out (the first {MAX_PER_CODE} are kept)"
    )
    assert count.severity is Severity.ERROR  # the left-out ones were errors: still invalid


def test_a_gsn_of_blank_lines_is_one_diagnostic_with_the_right_lines() -> None:
    text = (
        GSN_HEAD + FIELD + "\n" + "\n" * 200_000 + "A4-A5\n \n\nEND\nann vs bob result 1 winner 0\n"
    )
    record = parse_record(text.encode(), "classic.2014.05.01.1.gsn")
    blank = [d for d in record.diagnostics if d.code == "gsn.blank_line"]
    assert [(d.line, d.message) for d in blank] == [
        (4, "blank line skipped"),
        (5, "199,999 blank lines skipped (lines 5-200003)"),
        (200005, "blank line skipped"),
        (200006, "blank line skipped"),
    ]
    assert record.lines == [200004]  # the move keeps its real line number
    assert CAPPED_CODE not in codes(record.diagnostics)


def test_an_xml_game_of_many_bad_moves_keeps_a_hundred_of_each_code() -> None:
    moves = "".join(f'  <move id="{i}" source="Z1" target="Q1"/>\n' for i in range(1, 401))
    text = GAME.replace('  <move id="1"', moves + '  <move id="401"', 1)
    record = parse_record(text.encode(), "classic-2014.4-99.xml")
    found = codes(record.diagnostics)
    assert found["move.square"] == MAX_PER_CODE
    (count,) = [d for d in record.diagnostics if d.code == CAPPED_CODE]
    assert count.message.startswith("700 more [move.square] diagnostics")  # 800 bad squares
    assert len(record.diagnostics) < 3 * MAX_PER_CODE


def test_capped_puts_the_count_where_the_first_left_out_was() -> None:
    chase = Diagnostic("rule.chase", Severity.WARNING, "chase")
    other = Diagnostic("rule.other", Severity.WARNING, "other")
    out = capped([chase] * (MAX_PER_CODE + 5) + [other])
    assert [d.code for d in out[-3:]] == ["rule.chase", CAPPED_CODE, "rule.other"]
    assert out[-2].message.startswith("5 more [rule.chase]")
    assert capped([chase] * 3) == [chase] * 3


def _children_left_at_the_end(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[int, int]:
    """Parse ``text`` on the strict path; (children the <game> element still held when it
    ended, children deleted while reading): the DOM the parse kept, counted."""
    from strat_tools.formats import gravon_xml

    held: list[tuple[int, int]] = []
    original = gravon_xml._StrictParser.game

    def game(self: gravon_xml._StrictParser, el: object, named: str | None) -> None:
        held.append((len(el), self.dropped))  # type: ignore[arg-type]
        original(self, el, named)

    monkeypatch.setattr(gravon_xml._StrictParser, "game", game)
    record = parse_record(text.encode(), "classic-2014.4-99.xml")
    assert record.readable and not [d for d in record.diagnostics if d.code == "xml.structure"]
    ((left, dropped),) = held
    return left, dropped


def test_a_game_of_many_bad_moves_keeps_no_dom_of_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25 point 3: 1,000,000 bad moves (46 MB) took 1.68 GB; read moves that take the
    slow path are deleted as they are read, as the good ones are: what stays is bounded."""
    n = 20_000
    moves = "".join(f'  <move id="{i}" source="Z1" target="Q1"/>\n' for i in range(1, n + 1))
    start, end = GAME.index('  <move id="1"'), GAME.index('  <player id="1"')
    left, dropped = _children_left_at_the_end(monkeypatch, GAME[:start] + moves + GAME[end:])
    assert left < 1_100 and dropped + left == n + 4  # field, moves, two players, result
    record = parse_record((GAME[:start] + moves + GAME[end:]).encode(), "classic-2014.4-99.xml")
    assert record.plies == n and len(record.diagnostics) <= 2 * MAX_PER_CODE + 10


def test_a_game_of_many_unknown_elements_keeps_no_dom(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 20_000
    text = GAME.replace('  <player id="1"', "  <junk/>\n" * n + '  <player id="1"', 1)
    left, dropped = _children_left_at_the_end(monkeypatch, text)
    assert left < 1_100 and dropped + left == n + 7  # field, 3 moves, junk, players, result
