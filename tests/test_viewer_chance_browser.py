"""Red's chance in the viewer, in a real headless Chromium driven by keys and clicks: the
line under the board shows the win model's chance at every ply, in the view chosen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import headless_chromium
from long_classic_game import DATA, sample_game

from strat_tools.engine.replays.replay import replay
from strat_tools.views.viewer import game_data, write_viewer

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with headless_chromium(tmp_path_factory.mktemp("chromium")) as chrome:
        yield chrome


def press(chrome: Any, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    actions = ActionChains(chrome)
    for _ in range(times):
        actions.send_keys(key)
    actions.perform()


def shown(chrome: Any) -> tuple[str, str, str]:
    board = chrome.find_element("id", "board")
    text = chrome.find_element("id", "chance-text").text
    return board.get_attribute("data-view"), board.get_attribute("data-chance"), text


def test_the_chance_follows_the_ply_and_the_view(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    record = sample_game()
    expected = game_data(record, replay(record))["chance"]
    page = tmp_path / "game.html"
    write_viewer([str(DATA)], page, game_id=record.game_id)
    driver.get(page.as_uri())
    view, chance, text = shown(driver)
    assert (view, chance) == ("all", str(expected["all"][0]))
    assert text.startswith("Win chance (classic win model, everything): red ")
    red, blue = (int(t.split()[-1].rstrip("%")) for t in text.split("\u00b7"))
    assert red + blue == 100  # blue's is what is left of red's rounded chance
    press(driver, Keys.ARROW_RIGHT, 37)
    assert shown(driver)[1] == str(expected["all"][37])
    press(driver, "v")  # the next view: red's
    view, chance, text = shown(driver)
    assert view == "red" and chance == str(expected["red"][37]) and "as red saw it" in text
    assert f"red {round(expected['red'][37] / 10)}%" in text
    driver.find_element("css selector", 'input[name="view"][value="blue"]').click()
    view, chance, text = shown(driver)
    assert view == "blue" and chance == str(expected["blue"][37]) and "as blue saw it" in text
    press(driver, Keys.END)
    assert shown(driver)[1] == str(expected["blue"][record.plies])
    assert driver.find_element("id", "chance-graph").find_elements("css selector", "path.chance")
    swings = driver.find_elements("css selector", "#events li.swing")
    assert swings and all("red's chance" in s.text for s in swings)
    driver.find_element("id", "chance-graph").click()  # the middle of the graph: a jump there
    ply = int(driver.find_element("id", "board").get_attribute("data-ply"))
    assert 0 < ply < record.plies
    assert shown(driver)[1] == str(expected["blue"][ply])
    driver.save_screenshot(str(tmp_path / "chance.png"))


def test_a_variant_without_a_model_says_so_instead_of_a_chance(driver: Any, tmp_path: Path) -> None:
    from strat_tools.formats.readers import read_records

    duell = next(r for r in read_records([DATA]) if r.variant == "duell")
    page = tmp_path / "duell.html"
    write_viewer([str(DATA)], page, game_id=duell.game_id)
    driver.get(page.as_uri())
    _view, chance, text = shown(driver)
    assert chance is None and text.startswith("No calibrated chance for duell")
    assert not driver.find_element("id", "chance-graph").find_elements("css selector", "svg")
