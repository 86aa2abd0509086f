"""The models in the viewer (``view --with-model``), in a real headless Chromium driven by
keys as a player would: step to a ply and read the model's likely moves and the move
played's chance; turn on the guesses and the flag heat and point at a piece; follow a
surprising move's link to its ply. And the side view's secrecy on the page: red's view
shows the same probabilities and beliefs whatever two of blue's pieces red never
identified are, while a swap red can see (two of its own pieces) changes them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import headless_chromium
from model_swaps import short_classic_game, swap_pair, swapped

from strat_tools.benchmark.game_models import game_beliefs, game_move_model
from strat_tools.core.board import Side
from strat_tools.core.pieces import KIND_LABELS
from strat_tools.core.records import GameRecord
from strat_tools.engine.replays.replay import replay
from strat_tools.views.viewer import game_data, viewer_html
from strat_tools.views.viewer_models import MOVE_SCALE, ViewerModels

pytestmark = [pytest.mark.browser]

SHOWN = """
const board = document.getElementById("board");
return {
  ply: board.dataset.ply, view: board.dataset.view, svg: board.innerHTML,
  model: document.getElementById("model").textContent,
  top: board.dataset.modelTop, played: board.dataset.modelPlayed,
  surprises: document.getElementById("surprises").innerHTML,
  info: document.getElementById("piece-info").textContent,
};
"""
"""What the page shows of the models, read in one call."""


@pytest.fixture(scope="module")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with headless_chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


def write_page(record: GameRecord, path: Path) -> Path:
    path.write_text(viewer_html([game_data(record, replay(record), ViewerModels())]), "utf-8")
    return path


def press(chrome: Any, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    actions = ActionChains(chrome)
    for key in keys:
        actions.send_keys(key)
    actions.perform()


def shown(chrome: Any) -> dict[str, Any]:
    return dict(chrome.execute_script(SHOWN))


def point_at(chrome: Any, square: int) -> str:
    """Point at ``square`` (Gravon, the board not flipped); the piece panel's text."""
    from selenium.webdriver.common.action_chains import ActionChains

    box = chrome.find_element("id", "board").find_element("css selector", "svg")
    chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    cell = box.size["width"] / 10.6  # ten squares and the row labels
    col, row = square % 10, square // 10
    x = int(box.size["width"] - 10 * cell + (col + 0.5) * cell - box.size["width"] / 2)
    y = int((9 - row + 0.5) * cell - box.size["height"] / 2)
    ActionChains(chrome).move_to_element_with_offset(box, x, y).perform()
    return str(chrome.find_element("id", "piece-info").text)


def percent(p: float) -> str:
    """A probability as the page writes it (stored to 1 / MOVE_SCALE first, as the page
    stores it: 0.008949 is kept as 0.00895 and shown as 0.90%)."""
    value = 100 * round(p * MOVE_SCALE) / MOVE_SCALE
    if 0 < value < 0.01:
        return "<0.01%"
    return (
        f"{value:.0f}" if value >= 10 else f"{value:.1f}" if value >= 1 else f"{value:.2f}"
    ) + "%"


def test_stepping_shows_the_likely_moves_and_the_chance_of_the_move_played(
    chrome: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys

    record = short_classic_game()
    moves = game_move_model(replay(record), ViewerModels().load()[0])
    assert moves is not None
    chrome.get(write_page(record, tmp_path / "game.html").as_uri())
    press(chrome, *[Keys.ARROW_RIGHT] * 10)  # ply 10: blue's move; red moves next
    seen = shown(chrome)
    assert seen["ply"] == "10"
    assert f"gave it {percent(moves.played_prob(10))}, rank {moves.rank(10)} of " in seen["model"]
    likely = "Likely next for red: " + " \u00b7 ".join(
        f"{name.replace('-', chr(0x2013))} {percent(p)}" for name, p in moves.top(11, 3)
    )
    assert likely in seen["model"]
    assert seen["svg"].count('class="likely"') == 3
    press(chrome, "m")  # the arrows off, the line stays
    assert 'class="likely"' not in shown(chrome)["svg"] and likely in shown(chrome)["model"]
    press(chrome, "m", "v")  # red's view: blue's move of ply 10 has no chance shown
    seen = shown(chrome)
    assert seen["view"] == "red" and seen["played"] is None and "blue's pieces" in seen["model"]
    assert likely in seen["model"] and seen["svg"].count('class="likely"') == 3
    press(chrome, Keys.ARROW_RIGHT)  # ply 11, red's: its chance; blue to move: no arrows
    seen = shown(chrome)
    assert seen["played"] == str(round(moves.played_prob(11) * 100_000))
    assert 'class="likely"' not in seen["svg"] and "not shown in red's view" in seen["model"]
    chrome.save_screenshot(str(tmp_path / "likely.png"))


def test_the_guesses_and_the_flag_heat_in_red_s_view_and_how_right_in_the_full_one(
    chrome: Any, tmp_path: Path
) -> None:
    record = short_classic_game()
    result = replay(record)
    _, belief = ViewerModels().load()
    ply = 20
    red = game_beliefs(result, belief, Side.RED)[ply]
    hidden = [s for s in range(100) if red[s].sum() > 0]
    chrome.get(write_page(record, tmp_path / "game.html").as_uri() + f"#ply={ply}&view=red")
    assert 'class="piece guess"' not in shown(chrome)["svg"]
    press(chrome, "g")
    assert shown(chrome)["svg"].count('class="piece guess"') == len(hidden)
    square = hidden[0]
    kind = int(red[square].argmax())
    info = point_at(chrome, square)
    article = "the" if KIND_LABELS[kind] == "flag" else "a"
    assert f"red's belief: probably {article} {KIND_LABELS[kind]} (" in info
    assert f", {round(100 * red[square].max())}%); the flag: " in info
    press(chrome, "h")
    assert shown(chrome)["svg"].count('class="heat"') == len(hidden)
    press(chrome, "h", "g")
    assert 'class="heat"' not in shown(chrome)["svg"]
    assert 'class="piece guess"' not in shown(chrome)["svg"]
    press(chrome, "v", "v", "g")  # the full view: how right each belief was
    assert shown(chrome)["view"] == "all"
    blue = game_beliefs(result, belief, Side.BLUE)[ply]
    count = len(hidden) + sum(1 for s in range(100) if blue[s].sum() > 0)
    assert shown(chrome)["svg"].count('class="right-chance"') == count
    assert "'s belief put " in point_at(chrome, square)
    chrome.save_screenshot(str(tmp_path / "beliefs.png"))


def test_a_surprising_move_s_link_opens_its_ply(chrome: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    record = short_classic_game()
    moves = game_move_model(replay(record), ViewerModels().load()[0])
    assert moves is not None
    chrome.get(write_page(record, tmp_path / "game.html").as_uri() + "#view=red")
    links = chrome.find_elements("css selector", "#surprises a")
    expected = moves.surprising(5, Side.RED)
    assert [int(a.text.split(":")[0].split()[1]) for a in links] == expected
    links[1].send_keys(Keys.ENTER)  # focus the link, Enter: as from the keyboard
    board = chrome.find_element("id", "board")
    assert board.get_attribute("data-ply") == str(expected[1])
    assert board.get_attribute("data-view") == "red"
    assert chrome.find_element("css selector", "#surprises li.current").text == links[1].text
    press(chrome, Keys.HOME, "s")  # s: the next surprising move from the setup
    assert board.get_attribute("data-ply") == str(min(expected))
    press(chrome, Keys.END, "S")
    assert board.get_attribute("data-ply") == str(max(expected))


def red_sees(chrome: Any, record: GameRecord, page: Path) -> list[dict[str, Any]]:
    """What red's view shows of the models at every ply, the guesses and the heat on."""
    from selenium.webdriver.common.keys import Keys

    chrome.get("about:blank")
    chrome.get(write_page(record, page).as_uri() + "#ply=0&view=red")
    press(chrome, "g", "h")
    seen = []
    for _ in range(record.plies + 1):
        now = shown(chrome)
        del now["svg"]  # the board's own pieces: compared by the markers below
        now["marks"] = chrome.execute_script(
            "return Array.from(document.querySelectorAll('#board .guess, #board .guess-chance, "
            "#board .heat, #board .heat-chance, #board .likely, #board .likely-chance'))"
            ".map((e) => e.outerHTML);"
        )
        seen.append(now)
        press(chrome, Keys.ARROW_RIGHT)
    return seen


def test_red_s_view_is_the_same_whatever_blue_s_unidentified_pieces_are(
    chrome: Any, tmp_path: Path
) -> None:
    record = short_classic_game()
    pair = swap_pair(record, Side.BLUE)
    assert pair is not None
    first = red_sees(chrome, record, tmp_path / "first.html")
    second = red_sees(chrome, swapped(record, pair), tmp_path / "second.html")
    assert [s["ply"] for s in first] == [str(p) for p in range(record.plies + 1)]
    assert any(s["marks"] for s in first) and any(s["top"] for s in first)
    for ply, (one, two) in enumerate(zip(first, second, strict=True)):
        assert one == two, f"ply {ply}"


def test_the_control_a_swap_red_sees_changes_red_s_view(chrome: Any, tmp_path: Path) -> None:
    record = short_classic_game()
    pair = swap_pair(record, Side.RED)
    assert pair is not None
    first = red_sees(chrome, record, tmp_path / "first.html")
    second = red_sees(chrome, swapped(record, pair), tmp_path / "second.html")
    assert [s["model"] for s in first] != [s["model"] for s in second]
