"""StraDos3 state strings and 40-character setup strings, round-tripped on real games."""

from __future__ import annotations

from pathlib import Path

import pytest

from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_LETTERS, CODE_SIDE, EMPTY, LAKE
from strat_tools.engine.encodings.strados3 import UNSEEN, parse_strados3, to_strados3
from strat_tools.engine.replays.stepping import board_at
from strat_tools.formats.readers import read_units
from strat_tools.io.sources import iter_units
from strat_tools.setups.strings import SETUP_FORMATS, format_setup, parse_setup

DATA = Path(__file__).resolve().parent.parent / "data"

# OpenSpiel yorktown's default starting position (kInitPos), as a fact to read back.
OPENSPIEL_START = (
    "FEBMBEFEEFBGIBHIBEDBGJDDDHCGJGDHDLIFKDDHAA__AA__AAAA__AA__AA"
    "STQQNSQPTSUPWPVRPXPURNQONNQSNVPTNQRRTYUP r 0"
)


def records(paths: list[Path], limit: int | None = None):  # type: ignore[no-untyped-def]
    found = 0
    for record in read_units(list(iter_units(paths))):
        if record.setup is not None:
            yield record
            found += 1
            if limit is not None and found >= limit:
                return


def test_openspiel_start_reads_as_a_gravon_field_and_back() -> None:
    state = parse_strados3(OPENSPIEL_START)
    assert state.side is Side.RED and state.plies == 0
    assert "".join(CODE_LETTERS[c] for c in state.board) == OPENSPIEL_START[:100]
    assert not any(state.visible)
    assert to_strados3(state.board, state.side, state.plies) == OPENSPIEL_START


def test_lower_case_marks_revealed_pieces_and_question_marks_the_unseen() -> None:
    state = parse_strados3(OPENSPIEL_START)
    visible = [False] * 100
    visible[0] = visible[99] = True  # a red sergeant on A1, a blue miner on K10
    text = to_strados3(state.board, Side.BLUE, 20, visible)
    assert text[0] == "f" and text[99] == "p" and text.endswith(" b 20")
    assert parse_strados3(text).visible == tuple(visible)
    red_view = to_strados3(state.board, Side.RED, 20, visible, view=Side.RED)
    assert red_view[:40] == OPENSPIEL_START[:40].replace("F", "f", 1)
    assert red_view[60:99] == "?" * 39 and red_view[99] == "p"
    assert parse_strados3(red_view).board[60] == UNSEEN


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A" * 100 + " r", "3 parts"),
        ("A" * 99 + " r 0", "100 characters"),
        ("A" * 100 + " x 0", "'r' or 'b'"),
        ("A" * 100 + " r -1", "number"),
        ("Z" + "A" * 99 + " r 0", "not a StraDos3 field letter"),
    ],
)
def test_bad_strados3_strings_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_strados3(text)


def _round_trip_positions(record) -> int:  # type: ignore[no-untyped-def]
    """Every 7th ply of a game: its StraDos3 string parsed back gives the same position."""
    checked = 0
    for ply in range(0, record.plies + 1, 7):
        pos = board_at(record, ply)
        visible = [
            code not in (EMPTY, LAKE) and square % 3 == 0 for square, code in enumerate(pos.board)
        ]
        text = to_strados3(pos.board, pos.side, ply, visible)
        state = parse_strados3(text)
        assert list(state.board) == pos.board
        assert state.side == pos.side and state.plies == ply
        assert state.visible == tuple(visible)
        for side in (Side.RED, Side.BLUE):
            seen = parse_strados3(to_strados3(pos.board, pos.side, ply, visible, view=side))
            for square, code in enumerate(seen.board):
                hidden = CODE_SIDE[pos.board[square]] == 3 - side and not visible[square]
                assert (code == UNSEEN) == hidden
                assert hidden or code == pos.board[square]
        checked += 1
    return checked


def test_strados3_round_trips_on_the_sample() -> None:
    assert sum(_round_trip_positions(r) for r in records([DATA], limit=40)) > 200


@pytest.mark.archive
def test_strados3_round_trips_on_real_games(gravon_dir: Path) -> None:
    month = gravon_dir / "strados2014-5.zip"
    assert sum(_round_trip_positions(r) for r in records([month], limit=60)) > 300


def _setup_round_trip(record) -> None:  # type: ignore[no-untyped-def]
    for side in (Side.RED, Side.BLUE):
        home = range(40) if side is Side.RED else range(60, 100)
        strays = [sq for sq in range(100) if CODE_SIDE[record.setup[sq]] == side and sq not in home]
        if strays:  # classicfree: pieces anywhere
            with pytest.raises(ValueError, match="outside its four setup rows"):
                format_setup(record.setup, side, "owner")
            continue
        own = [
            code if code in (EMPTY, LAKE) or CODE_SIDE[code] == side else EMPTY
            for code in record.setup
        ]
        for name in SETUP_FORMATS:
            text = format_setup(record.setup, side, name)
            assert len(text) == 40 and set(text) <= set("ABCDEFGHIJKLM")
            assert parse_setup(text, side, name) == own


def test_setup_strings_round_trip_on_the_sample() -> None:
    for record in records([DATA]):
        _setup_round_trip(record)


@pytest.mark.archive
def test_setup_strings_round_trip_and_face_the_right_way_on_real_games(
    gravon_dir: Path,
) -> None:
    """The human-inits strings end with the back row: the flag stands there in most real
    classic setups (90.5% of the archive's), and the owner string starts with it."""
    back = total = 0
    for record in records(sorted(gravon_dir.glob("strados2014-*.zip"))):
        _setup_round_trip(record)
        if record.variant != "classic":
            continue
        for side in (Side.RED, Side.BLUE):
            line = format_setup(record.setup, side, "ataraxos")
            assert line[::-1] == format_setup(record.setup, side, "owner")
            back += "M" in line[30:]
            total += 1
    assert total > 10_000
    assert back / total > 0.85


def test_blue_human_inits_line_is_its_field_rows_as_written() -> None:
    record = next(records([DATA]))
    field = "".join(CODE_LETTERS[c] for c in record.setup)
    red_letters = "".join(c if c == "A" else chr(ord(c) - 12) for c in field[60:100])
    assert format_setup(record.setup, Side.BLUE, "stratego_env") == red_letters
    assert format_setup(record.setup, Side.BLUE, "ataraxos") == red_letters
    # Red's stratego_env string: its field rows front row first, each row A to K.
    rows = [field[r * 10 : r * 10 + 10] for r in (3, 2, 1, 0)]
    assert format_setup(record.setup, Side.RED, "stratego_env") == "".join(rows)
    assert format_setup(record.setup, Side.RED, "owner") == field[:40]


def test_unknown_setup_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown setup format 'fen'"):
        format_setup([0] * 100, Side.RED, "fen")


def test_setup_strings_of_a_setups_table_match_those_of_the_records() -> None:
    import strat_tools as st
    from strat_tools.setups.strings import setup_strings

    games = st.read_games(DATA, setups_only=True, run=1)
    by_id = {r.game_id: r for r in records([DATA])}
    for fmt in SETUP_FORMATS:
        table = setup_strings(games.setups, fmt)
        assert len(table) == 2 * len(by_id)
        for row in table.itertuples():
            side = Side.RED if row.side == "red" else Side.BLUE
            assert row.setup == format_setup(by_id[row.game_id].setup, side, fmt)


def test_strados3_at_any_ply_of_a_real_game_reads_back_as_its_position() -> None:
    from strat_tools.engine.encodings.strados3 import strados3_at
    from strat_tools.engine.information.knowledge import KNOWN, REVEALED
    from strat_tools.engine.replays.replay import replay

    for record in records([DATA], limit=12):
        result = replay(record)
        know = result.knowledge()
        for ply in range(0, result.plies_replayed + 1, 5):
            state = parse_strados3(strados3_at(result, ply, know=know))
            assert list(state.board) == know.boards[ply].tolist() and state.plies == ply
            assert state.side == (Side.RED if ply % 2 == 0 else Side.BLUE)
            shown = [bool(f & REVEALED) for f in know.flags[ply].tolist()]
            assert list(state.visible) == [
                s and c not in (EMPTY, LAKE) for s, c in zip(shown, state.board, strict=True)
            ]
            seen = parse_strados3(strados3_at(result, ply, view=Side.BLUE, know=know))
            for square, code in enumerate(know.boards[ply].tolist()):
                unknown = CODE_SIDE[code] == Side.RED and not know.flags[ply, square] & KNOWN
                assert (seen.board[square] == UNSEEN) == unknown
    with pytest.raises(ValueError, match="ply must be"):
        strados3_at(result, result.plies_replayed + 1)
