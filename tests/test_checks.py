"""Record checks: setups and results judged without replay, with messages that say what and why."""

from __future__ import annotations

import pytest

from strat_tools.core.board import parse_square
from strat_tools.core.checks import army_counts, check_record
from strat_tools.core.pieces import ARMIES, letter_code
from strat_tools.core.records import GameRecord, Result

CLASSIC = (
    "EEFFJBMKIHEEGDDBBHCDFFDGDBLGDDGBIIJBHHDE"
    "AA__AA__AAAA__AA__AA"
    "PRTXSPPVTPNSWSUPRNPNQVSPONURUNYQRQTQTNPQ"
)
BARRAGE = "BCDDEKLM" + "A" * 32 + "AA__AA__AAAA__AA__AA" + "A" * 32 + "NOPPQWXY"


def record(field: str | None, variant: str = "classic", result: Result | None = None) -> GameRecord:
    """A record with a setup written as a 100-letter Gravon field (row 1 first)."""
    setup = None if field is None else tuple(letter_code(c) for c in field)
    return GameRecord("t.xml", variant=variant, setup=setup, result=result or Result(3, 1))


def put(field: str, square: str, letter: str) -> str:
    """``field`` with ``letter`` on ``square``."""
    i = parse_square(square)
    return field[:i] + letter + field[i + 1 :]


def found(rec: GameRecord) -> list[tuple[str, str]]:
    """(code, message) of each diagnostic after checking."""
    check_record(rec, setup_line=5, result_line=11)
    return [(d.code, d.message) for d in rec.diagnostics]


def test_real_style_setups_pass() -> None:
    assert found(record(CLASSIC)) == []
    assert found(record(BARRAGE, "barrage")) == []


def test_army_counts_per_side() -> None:
    setup = tuple(letter_code(c) for c in CLASSIC)
    assert tuple(army_counts(setup, 1)) == ARMIES["classic"]
    assert tuple(army_counts(setup, 2)) == ARMIES["classic"]


def test_wrong_army_says_what_was_found_and_what_was_expected() -> None:
    field = put(CLASSIC, "F1", "D")  # red bomb on F1 becomes a scout
    assert found(record(field)) == [
        ("setup.army", "red army has 5 bombs, classic needs 6; 9 scouts, classic needs 8")
    ]


def test_missing_flag_and_extra_spy_for_blue() -> None:
    field = put(CLASSIC, "A10", "O")  # blue flag on A10 becomes a spy
    assert found(record(field)) == [
        ("setup.army", "blue army has 2 spies, classic needs 1; 0 flags, classic needs 1")
    ]


def test_piece_outside_its_rows() -> None:
    field = put(put(BARRAGE, "A1", "A"), "A8", "B")  # red bomb moved from A1 to A8
    assert found(record(field, "barrage")) == [
        ("setup.zone", "red bomb on A8: outside red's rows 1-4")
    ]


def test_middle_rows_must_start_empty() -> None:
    field = put(put(BARRAGE, "B1", "A"), "E6", "C")  # red spy moved to E6
    assert found(record(field, "barrage")) == [
        ("setup.middle", "rows 5-6 must start empty; found red spy on E6")
    ]


def test_piece_on_a_lake_and_lake_mark_elsewhere() -> None:
    field = put(put(BARRAGE, "C5", "A"), "D4", "_")  # lake mark off C5, onto D4
    field = put(put(field, "E10", "A"), "G6", "P")  # blue scout from E10 onto the G6 lake
    diagnostics = found(record(field, "barrage"))
    assert diagnostics[:2] == [
        ("setup.lake", "lake squares not marked as lake: C5, G6 (found empty, blue scout)"),
        ("setup.lake", "lake mark on D4, which are not lakes"),
    ]
    assert ("setup.middle", "rows 5-6 must start empty; found blue scout on G6") in diagnostics


def test_classicfree_allows_any_army_anywhere_but_keeps_the_lakes() -> None:
    field = put(put(CLASSIC, "E5", "L"), "F1", "A")
    assert found(record(field, "classicfree")) == []
    assert [c for c, _ in found(record(put(CLASSIC, "C5", "A"), "classicfree"))] == ["setup.lake"]


def test_no_setup() -> None:
    assert found(record(None)) == [
        ("setup.missing", "no setup (no <field>): the game ended before the setup was done")
    ]
    with_moves = record(None)
    with_moves.sources, with_moves.targets = [33], [43]
    assert [c for c, _ in found(with_moves)] == ["setup.missing"]
    assert with_moves.errors


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (Result(1, 2), []),
        (Result(4, 3), []),
        (Result(7, 1), ["result.type"]),
        (Result(3, 5), ["result.winner"]),
        (Result(2, 1), ["result.inconsistent"]),
        (Result(1, 3), ["result.inconsistent"]),
        (Result(4, 1), ["result.draw_winner"]),
        (Result(10, 3), []),
        (Result(12, 1), []),
    ],
)
def test_result_checks(result: Result, expected: list[str]) -> None:
    rec = record(CLASSIC, result=result)
    assert [c for c, _ in found(rec)] == expected
    assert all(d.line == 11 for d in rec.diagnostics)


def test_draw_winner_is_only_a_warning() -> None:
    rec = record(CLASSIC, result=Result(4, 2))
    check_record(rec)
    assert rec.errors == [] and rec.diagnostics[0].code == "result.draw_winner"
