"""The viewer page in a real headless Chromium with hostile names: a zip member named with
an ``<img onerror>`` tag, quotes and an escape sequence, a player named ``</script><img
onerror>``, and a file name that is not UTF-8. The page runs its own script only (no alert,
no injected element) and shows every name as text. Skips without Chromium (fails under
``STRAT_TOOLS_REQUIRE_BROWSER``)."""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import headless_chromium

from strat_tools.views.viewer import write_viewer

pytestmark = pytest.mark.browser

GAME = (Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml").read_bytes()
MEMBER = 'classic-2014.4-51\x1b[2J<img src=x onerror="window.hacked=1">\'q.xml'
PLAYER = "&lt;/script&gt;&lt;img src=x onerror=window.hacked=2&gt;"


@pytest.fixture(scope="module")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium (:func:`browser.headless_chromium`)."""
    with headless_chromium(tmp_path_factory.mktemp("chromium"), size="1200,900") as chrome:
        yield chrome


def test_hostile_names_stay_text_in_a_real_browser(chrome: Any, tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    with zipfile.ZipFile(folder / "strados2014-3.zip", "w") as archive:
        archive.writestr(MEMBER, GAME)
    player = re.sub(rb'<player id="1">[^<]*<', b'<player id="1">' + PLAYER.encode() + b"<", GAME)
    (folder / "classic-2014.4-18.xml").write_bytes(player)
    with open(os.fsencode(folder) + b"/classic-2014.4-\xff9.xml", "wb") as handle:
        handle.write(GAME)
    page = tmp_path / "games.html"
    write_viewer(str(folder), page)
    chrome.get(page.as_uri())
    chrome.find_element("id", "board")
    assert chrome.execute_script("return window.hacked === undefined")
    assert chrome.find_elements("css selector", "img") == []
    options = [o.text for o in chrome.find_elements("css selector", "#game-picker option")]
    assert len(options) == 3
    assert any('<img src=x onerror="window.hacked=1">' in o for o in options)
    assert any("\\xff9" in o for o in options)
    picker = chrome.find_element("id", "game-picker")
    for index in range(3):
        chrome.execute_script(
            "arguments[0].selectedIndex = arguments[1];"
            "arguments[0].dispatchEvent(new Event('change'))",
            picker,
            index,
        )
        assert chrome.execute_script("return window.hacked === undefined")
        assert chrome.find_elements("css selector", "img") == []
    text = chrome.find_element("tag name", "body").text
    assert "\x1b" not in text
