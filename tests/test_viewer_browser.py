"""The game viewer in a real headless Chromium, driven by key presses and clicks.

For a real archive game of every variant: after N presses ``data-field`` equals the
library's position after N plies, the side views hide exactly what that side had not
identified, and the page makes no request beyond its own file (the browser's proxy points
nowhere, so the network is off). Runs where Chromium and chromedriver are installed; under
CI (``STRAT_TOOLS_REQUIRE_BROWSER``) a missing browser fails instead of skipping.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import headless_chromium

from strat_tools.core.pieces import CODE_LETTERS, CODE_SIDE
from strat_tools.core.records import GameRecord
from strat_tools.engine.events.key_events import game_events
from strat_tools.engine.information.knowledge import KNOWN
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import board_at
from strat_tools.formats.readers import read_records
from strat_tools.views.viewer import write_viewer

pytestmark = [pytest.mark.browser, pytest.mark.archive]

GAMES = {
    "classic": ("strados2004-11.zip", "classic-2004.11-0"),
    "barrage": ("strados2004-11.zip", "barrage-2004.11-104"),
    "duell": ("strados2014-10.zip", "duell-2014.10-1113"),
    "classicfree": ("strados2005-5.zip", "classicfree-2005.5-5864"),
    "ultimate lightning": ("strados2005-5.zip", "ultimate lightning-2005.5-2105"),
}
"""One real game per variant; the lightning one has three rescues and turning captains."""


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium (:func:`browser.headless_chromium`)."""
    with headless_chromium(
        tmp_path_factory.mktemp("chromium"), size="1200,900", logs={"performance": "ALL"}
    ) as chrome:
        yield chrome


def archive_game(gravon_dir: Path, variant: str) -> GameRecord:
    zip_name, game_id = GAMES[variant]
    found = [r for r in read_records([gravon_dir / zip_name]) if r.game_id == game_id]
    assert len(found) == 1, game_id
    return found[0]


def field_of(board: list[int]) -> str:
    return "".join(CODE_LETTERS[c] for c in board)


def state(chrome: Any) -> dict[str, str | None]:
    board = chrome.find_element("id", "board")
    return {name: board.get_attribute(f"data-{name}") for name in ("ply", "view", "field", "known")}


def press(chrome: Any, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    actions = ActionChains(chrome)
    for _ in range(times):
        actions.send_keys(key)
    actions.perform()


def open_page(chrome: Any, path: Path, fragment: str = "") -> None:
    chrome.get(path.as_uri() + fragment)
    chrome.find_element("id", "board")


def requests_made(chrome: Any) -> list[str]:
    """Every request a page opened from disk made (the browser's own chrome:// pages aside)."""
    urls = []
    for entry in chrome.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            params = message["params"]
            if str(params.get("documentURL", "")).startswith("file:"):
                urls.append(params["request"]["url"])
    return urls


@pytest.mark.parametrize("variant", list(GAMES))
def test_keys_step_through_a_real_game(
    driver: Any, gravon_dir: Path, tmp_path: Path, variant: str
) -> None:
    from selenium.webdriver.common.keys import Keys

    record = archive_game(gravon_dir, variant)
    result = replay(record)
    know = result.knowledge()
    page = tmp_path / "game.html"
    write_viewer([str(gravon_dir / GAMES[variant][0])], page, game_id=record.game_id)
    requests_made(driver)  # drop the log of earlier pages
    open_page(driver, page)
    assert state(driver) == {
        "ply": "0",
        "view": "all",
        "field": field_of(list(record.setup or ())),
        "known": None,
    }
    n = min(37, result.plies_replayed)
    press(driver, Keys.ARROW_RIGHT, n)
    assert state(driver)["ply"] == str(n)
    assert state(driver)["field"] == field_of(board_at(record, n).board)
    press(driver, Keys.PAGE_DOWN)
    assert state(driver)["field"] == field_of(board_at(record, n + 10).board)
    press(driver, Keys.PAGE_UP)
    press(driver, Keys.ARROW_LEFT)
    assert state(driver)["ply"] == str(n - 1)
    assert state(driver)["field"] == field_of(board_at(record, n - 1).board)
    press(driver, Keys.END)
    last = result.plies_replayed
    assert state(driver)["ply"] == str(last)
    assert state(driver)["field"] == field_of(result.final_board)
    assert "End:" in driver.find_element("id", "status").text
    press(driver, Keys.HOME)
    assert state(driver)["ply"] == "0"
    # The side views: each hides exactly the opponent pieces it has not identified.
    press(driver, Keys.ARROW_RIGHT, n)
    for view, side in (("red", 1), ("blue", 2)):
        press(driver, "v")
        seen = state(driver)
        assert seen["view"] == view and seen["field"] == know.field(n)
        assert seen["known"] == know.known_field(n, side)
        hidden = {i for i, letter in enumerate(seen["known"] or "") if letter == "?"}
        board, flags = know.boards[n], know.flags[n]
        assert hidden == {
            sq for sq in range(100) if CODE_SIDE[board[sq]] == 3 - side and not flags[sq] & KNOWN
        }
    press(driver, "v")
    assert state(driver)["view"] == "all" and state(driver)["known"] is None
    urls = requests_made(driver)
    assert urls and all(u.startswith(("file:", "data:")) for u in urls), urls


def test_buttons_lists_and_the_address(driver: Any, gravon_dir: Path, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    record = archive_game(gravon_dir, "ultimate lightning")
    result = replay(record)
    know = result.knowledge()
    page = tmp_path / "lightning.html"
    write_viewer([str(gravon_dir / GAMES["ultimate lightning"][0])], page, game_id=record.game_id)
    open_page(driver, page)
    driver.find_element("id", "next-battle").click()
    first_battle = next(i + 1 for i, d in enumerate(result.defenders) if d)
    assert state(driver)["ply"] == str(first_battle)
    driver.find_element("css selector", '#moves li[data-ply="5"]').click()
    assert state(driver)["ply"] == "5"
    driver.find_element("id", "next").click()
    driver.find_element("id", "next").click()
    driver.find_element("id", "prev").click()
    assert state(driver)["ply"] == "6"
    for ply in sorted(result.rescued):  # every rescue, as each side saw it
        open_page(driver, page, f"#ply={ply}&view=blue")
        seen = state(driver)
        assert seen["ply"] == str(ply) and seen["view"] == "blue"
        assert seen["field"] == field_of(board_at(record, ply).board)
        assert seen["known"] == know.known_field(ply, 2)
    open_page(driver, page, "#view=red")
    assert state(driver)["view"] == "red" and state(driver)["ply"] == "0"
    press(driver, "e")  # the first key event that is not a plain battle
    events = game_events(result)
    first_event = min(
        p for p, k in zip(events["ply"], events["kind"], strict=True) if k != "battle"
    )
    assert state(driver)["ply"] == str(first_event)
    driver.find_element("css selector", 'input[name="view"][value="blue"]').click()
    assert state(driver)["view"] == "blue"
    press(driver, " ")  # play ...
    WebDriverWait(driver, 10).until(lambda d: int(state(d)["ply"] or 0) >= first_event + 2)
    press(driver, " ")  # ... and pause
    paused = state(driver)["ply"]
    time.sleep(1.5)
    assert state(driver)["ply"] == paused


def test_a_zip_gets_a_game_picker_and_a_screenshot_is_not_blank(
    driver: Any, gravon_dir: Path, tmp_path: Path
) -> None:
    from PIL import Image
    from selenium.webdriver.support.ui import Select

    zip_path = gravon_dir / "strados2004-11.zip"
    page = tmp_path / "month.html"
    summary = write_viewer([str(zip_path)], page, limit=3)
    assert len(summary.games) == 3 and summary.left_out > 0
    second = next(r for r in read_records([zip_path]) if r.game_id == summary.games[1])
    open_page(driver, page)
    Select(driver.find_element("id", "game-picker")).select_by_index(1)
    assert state(driver)["field"] == field_of(list(second.setup or ()))
    assert driver.find_element("id", "game-title").text == second.game_id
    press(driver, "\ue014", 3)  # arrow right: the page takes keys again after the picker
    assert state(driver)["ply"] == "3"

    def labels() -> set[str]:
        return {t.text for t in driver.find_elements("css selector", "#board svg text.piece")}

    assert "S" not in labels() and "10" in labels()  # modern: 10 = marshal, 1 = spy
    Select(driver.find_element("id", "numbering")).select_by_value("classic")
    assert "S" in labels() and "10" not in labels()  # classic: 1 = marshal, S = spy
    with Image.open(io.BytesIO(driver.get_screenshot_as_png())) as shot:
        colours = shot.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 100
