"""Every panel of a side's view in the page, under every rule option, is what that side knew.

Two pages of one hand-made game that differ only where the rules hide it from a side: in free
setup the rank of a blue piece red never meets (a bomb made a marshal), under silent defense
the rank of a blue piece red takes without its rank shown (and, once, a red piece blue never
meets, in blue's view). Stepped ply by ply in that side's view, everything the page shows it
(the board it knew, the pieces left and lost, what it has not identified, the status line,
the key events and the moves, red's chance and its graph, the copy-out boxes) is the same on
both pages. The page's ``data-field`` test hook is the
truth in every view and is left out. Runs where Chromium and chromedriver are installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import headless_chromium
from hand_games import free_setup_game, with_piece

from strat_tools.core.records import GameRecord
from strat_tools.core.rules import OPTIONS
from strat_tools.engine.replays.replay import replay
from strat_tools.views.viewer import game_data, viewer_html

pytestmark = pytest.mark.browser

SHOWN = """
const text = (id) => document.getElementById(id).textContent;
const markup = (id) => document.getElementById(id).innerHTML;
const board = document.getElementById("board");
const left = document.getElementById("remaining").dataset;
const box = (id) => document.getElementById(id).value;
return {
  ply: board.dataset.ply, view: board.dataset.view, known: board.dataset.known,
  chance: board.dataset.chance, svg: markup("board"), right: text("right"),
  remaining: [left.red, left.blue, left.identified, left.unidentified],
  status: text("status"), meta: text("game-meta"), chanceText: text("chance-text"),
  graphs: markup("graph") + markup("chance-graph"),
  copy: [box("position-string"), box("setup-red"), box("setup-blue")],
};
"""
"""What the page shows, read in one call."""


@pytest.fixture(scope="module")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with headless_chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


def sees(
    chrome: Any, record: GameRecord, rules: str, page: Path, view: str
) -> list[dict[str, Any]]:
    """What ``view`` (red or blue) of the page shows at every ply."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    page.write_text(viewer_html([game_data(record, replay(record, rules))]), encoding="utf-8")
    chrome.get(page.as_uri() + f"#ply=0&view={view}")
    seen = [chrome.execute_script(SHOWN)]
    for _ in range(record.plies):
        ActionChains(chrome).send_keys(Keys.ARROW_RIGHT).perform()
        seen.append(chrome.execute_script(SHOWN))
    return seen


def as_variant(record: GameRecord, variant: str) -> GameRecord:
    return GameRecord(
        record.source,
        variant=variant,
        year=record.year,
        month=record.month,
        setup=record.setup,
        sources=list(record.sources),
        targets=list(record.targets),
    )


PAIRS = {
    "free setup, a never-seen bomb made a marshal": (free_setup_game(), "K7", "X", "red"),
    "silent defense, the piece taken unseen": (
        with_piece(free_setup_game(), "A7", "R"),
        "A7",
        "S",
        "red",
    ),
    "classic, a never-seen bomb made a marshal": (
        as_variant(free_setup_game(), "classic"),
        "K7",
        "X",
        "red",
    ),
    "blue's view, free setup, a red miner blue never met made a marshal": (
        free_setup_game(),
        "K1",
        "L",
        "blue",
    ),
}
"""A game, the square and the letter that change, and the view that must not see it."""

CASES = [
    *((pair, option) for pair in list(PAIRS)[:2] for option in ["", *sorted(OPTIONS)]),
    *((pair, "") for pair in list(PAIRS)[2:]),
]
"""Every rule option for the free-setup and the silent-defense pairs; the others once."""


@pytest.mark.parametrize(("pair", "option"), CASES)
def test_a_side_view_shows_nothing_the_rules_hid_from_that_side(
    chrome: Any, tmp_path: Path, pair: str, option: str
) -> None:
    options = (["silent"] if pair.startswith("silent") else []) + ([option] if option else [])
    rules = "auto" + "".join(f"+{o}" for o in dict.fromkeys(options))
    record, square, letter, view = PAIRS[pair]
    first = sees(chrome, record, rules, tmp_path / "first.html", view)
    changed = with_piece(record, square, letter)
    second = sees(chrome, changed, rules, tmp_path / "second.html", view)
    assert [s["ply"] for s in first] == [str(p) for p in range(record.plies + 1)]
    assert all(s["view"] == view for s in first)
    for ply, (one, two) in enumerate(zip(first, second, strict=True)):
        for key in one:
            assert one[key] == two[key], f"ply {ply}: {key}"
    if pair.startswith("silent"):  # red saw a blue piece go, not which
        right = first[-1]["right"]
        assert "Bluehaslost:?\u00d71" in right.replace(" ", "")
