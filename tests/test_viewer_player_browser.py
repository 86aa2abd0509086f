"""The viewer as a player keeps it open (issue 29), driven in headless Chromium by keys,
clicks and window sizes: back to the last battle and event, the flip in every view, the
pieces left, the narrow width, spoiler-free replay and copying the position out."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import headless_chromium

from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, KIND_LABELS
from strat_tools.core.records import GameRecord
from strat_tools.engine.encodings.strados3 import strados3_at
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import board_at
from strat_tools.exports.event_table import read_events
from strat_tools.formats.readers import read_records
from strat_tools.setups.strings import format_setup
from strat_tools.views.viewer import write_viewer

pytestmark = pytest.mark.browser

MONTH = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"
"""The month the project ships (synthetic games), so a fresh clone runs these tests."""


@pytest.fixture(scope="module")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with headless_chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@pytest.fixture(scope="module")
def battles() -> tuple[GameRecord, list[int], list[int]]:
    """The classic game of the month with the most battles, its battle plies and the plies
    of its other key events, from the events table."""
    events = read_events([str(MONTH)], run=1)
    classic = events[events["game_id"].str.startswith("classic-")]
    per_game = classic[classic["kind"] == "battle"].groupby("game_id").size()
    game_id = str(per_game.idxmax())
    of_game = classic[classic["game_id"] == game_id]
    record = next(r for r in read_records([MONTH]) if r.game_id == game_id)
    battle_plies = sorted(int(p) for p in of_game[of_game["kind"] == "battle"]["ply"])
    event_plies = sorted({int(p) for p in of_game[of_game["kind"] != "battle"]["ply"]})
    return record, battle_plies, event_plies


@pytest.fixture(scope="module")
def page(
    battles: tuple[GameRecord, list[int], list[int]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    record = battles[0]
    out = tmp_path_factory.mktemp("viewer") / "game.html"
    write_viewer([str(MONTH)], out, game_id=record.game_id)
    return out


def open_at(chrome: Any, page: Path, fragment: str = "") -> None:
    """The page opened afresh (not only its address's fragment changed) at ``fragment``."""
    chrome.get("about:blank")
    chrome.get(page.as_uri() + fragment)
    chrome.find_element("id", "board")


def board(chrome: Any, name: str) -> str:
    return str(chrome.find_element("id", "board").get_attribute(f"data-{name}"))


def press(chrome: Any, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    actions = ActionChains(chrome)
    for key in keys:
        actions.send_keys(key)
    actions.perform()


def shift(chrome: Any, key: str) -> None:
    """Shift and ``key`` (the browser sees ``key.upper()`` with shiftKey, as from a person)."""
    press(chrome, key.upper())


def test_shift_b_and_shift_e_go_back_to_the_last_battle_and_event(
    chrome: Any, page: Path, battles: tuple[GameRecord, list[int], list[int]]
) -> None:
    _record, battle_plies, event_plies = battles
    assert len(battle_plies) >= 20, "a game with many battles"
    start = battle_plies[len(battle_plies) // 2] + 3
    open_at(chrome, page, f"#ply={start}")
    assert board(chrome, "ply") == str(start)
    shift(chrome, "B")
    before = max(p for p in battle_plies if p < start)
    assert board(chrome, "ply") == str(before)
    shift(chrome, "B")
    assert board(chrome, "ply") == str(max(p for p in battle_plies if p < before))
    open_at(chrome, page, f"#ply={start}")
    shift(chrome, "E")
    assert board(chrome, "ply") == str(max(p for p in event_plies if p < start))
    chrome.find_element("id", "prev-battle").click()  # the button does what the key does
    shown = int(board(chrome, "ply"))
    assert shown in battle_plies and shown < start


def test_f_flips_the_board_in_every_view(chrome: Any, page: Path) -> None:
    open_at(chrome, page, "#ply=40")
    for view in ("all", "red", "blue"):
        assert board(chrome, "view") == view
        first = board(chrome, "flipped")
        press(chrome, "f")
        assert board(chrome, "flipped") == ("false" if first == "true" else "true")
        press(chrome, "f")
        assert board(chrome, "flipped") == first
        press(chrome, "v")
    assert board(chrome, "view") == "all"


def test_the_pieces_left_are_the_pieces_on_the_board_shown(
    chrome: Any, page: Path, battles: tuple[GameRecord, list[int], list[int]]
) -> None:
    record = battles[0]
    for ply in (0, 57, battles[1][-1]):
        open_at(chrome, page, f"#ply={ply}")
        squares = board_at(record, ply).board
        panel = chrome.find_element("id", "remaining")
        for side, attribute in ((1, "data-red"), (2, "data-blue")):
            counted = Counter(
                KIND_LABELS[CODE_KIND[code]] for code in squares if CODE_SIDE[code] == side
            )
            assert json.loads(panel.get_attribute(attribute)) == dict(counted), (ply, side)
        assert panel.text.strip(), "a readable panel, not only data"


def test_a_narrow_window_does_not_scroll_sideways(chrome: Any, page: Path) -> None:
    try:
        chrome.set_window_size(420, 900)
        open_at(chrome, page, "#ply=30")
        inner = chrome.execute_script("return window.innerWidth")
        wide = chrome.execute_script("return document.documentElement.scrollWidth")
        assert wide <= inner, f"the page is {wide} px wide in a {inner} px window"
    finally:
        chrome.set_window_size(1200, 900)


def test_no_spoilers_hides_the_result_until_the_last_ply(
    chrome: Any, page: Path, battles: tuple[GameRecord, list[int], list[int]]
) -> None:
    from selenium.webdriver.common.keys import Keys

    open_at(chrome, page, "#spoilers=0")
    assert board(chrome, "spoilers") == "false"
    header = chrome.find_element("id", "game-meta").text
    open_at(chrome, page, "")
    told = chrome.find_element("id", "game-meta").text
    assert header != told, "the result is in the header only with spoilers"
    open_at(chrome, page, "#spoilers=0")
    press(chrome, Keys.END)
    assert chrome.find_element("id", "game-meta").text == told


def test_a_malformed_address_still_draws_the_board(chrome: Any, page: Path) -> None:
    open_at(chrome, page, "#ply=%")
    assert board(chrome, "ply") == "0" and board(chrome, "field")


def test_the_position_and_the_setups_copy_out_as_the_library_writes_them(
    chrome: Any, page: Path, battles: tuple[GameRecord, list[int], list[int]]
) -> None:
    record = battles[0]
    result = replay(record)
    open_at(chrome, page, "#ply=25")
    value = chrome.find_element("id", "position-string").get_attribute("value")
    assert value == strados3_at(result, 25)
    assert record.setup is not None
    red = chrome.find_element("id", "setup-red").get_attribute("value")
    blue = chrome.find_element("id", "setup-blue").get_attribute("value")
    assert red == format_setup(record.setup, Side.RED, "owner")
    assert blue == format_setup(record.setup, Side.BLUE, "owner")


def test_clicking_the_material_graph_jumps_to_that_ply(
    chrome: Any, page: Path, battles: tuple[GameRecord, list[int], list[int]]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    plies = replay(battles[0]).plies_replayed
    open_at(chrome, page, "#ply=5")
    graph = chrome.find_element("id", "graph").find_element("css selector", "svg")
    chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", graph)
    width = graph.size["width"]
    ActionChains(chrome).move_to_element_with_offset(graph, width // 4, 0).click().perform()
    shown = int(board(chrome, "ply"))
    assert abs(shown - plies * 3 // 4) <= plies // 10, (shown, plies)


def test_pointing_at_a_piece_shows_its_history(
    chrome: Any, page: Path, battles: tuple[GameRecord, list[int], list[int]]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    record = battles[0]
    open_at(chrome, page, "#ply=60")
    squares = board_at(record, 60).board
    moved = next(
        sq
        for sq in range(100)
        if CODE_SIDE[squares[sq]] == 1 and squares[sq] != (record.setup or ())[sq]
    )
    box = chrome.find_element("id", "board").find_element("css selector", "svg")
    chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    cell = box.size["width"] / 10.6  # ten squares and the row labels
    col, row = moved % 10, moved // 10
    x = int(box.size["width"] - 10 * cell + (col + 0.5) * cell - box.size["width"] / 2)
    y = int((9 - row + 0.5) * cell - box.size["height"] / 2)
    ActionChains(chrome).move_to_element_with_offset(box, x, y).perform()
    info = chrome.find_element("id", "piece-info")
    assert info.get_attribute("data-square"), info.text
    assert "set up on" in info.text


@pytest.mark.slow  # a page of the sample's 400 games
def test_typing_in_the_filter_narrows_the_game_picker(chrome: Any, tmp_path: Path) -> None:
    data = Path(__file__).resolve().parent.parent / "data"
    out = tmp_path / "games.html"
    write_viewer([str(data)], out, limit=400)
    open_at(chrome, out)
    picker = chrome.find_element("id", "game-picker")
    options = picker.find_elements("tag name", "option")
    first = options[0].text.split("-")[0]  # a variant, as game ids start
    other = next(o.text.split("-")[0] for o in options if not o.text.startswith(first))
    wanted = [o for o in options if o.text.startswith(other)]
    assert wanted and len(wanted) < len(options)
    chrome.find_element("id", "game-filter").send_keys(other)
    shown = [o for o in options if o.get_attribute("hidden") is None]
    assert shown == wanted
    count = chrome.find_element("id", "filter-count").text
    assert count == f"{len(wanted)} of {len(options)}"
    assert other in chrome.find_element("id", "game-title").text
