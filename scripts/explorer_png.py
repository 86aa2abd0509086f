"""Make docs/img/explorer.png: the README's corner pattern, or its mirror image, on the
archive's explorer page, in headless Chromium (tests/browser.py).

    strat-tools explore ../gravon/ -o explore.html
    python scripts/explorer_png.py explore.html docs/img/explorer.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser import headless_chromium

CORNER = "#pattern=........../........../B........./FB........&mirror=1"


def main(page: str, output: str) -> None:
    """Open ``page`` at the README's question and write the window to ``output``."""
    with (
        tempfile.TemporaryDirectory() as profile,
        headless_chromium(Path(profile), size="1280,800") as chrome,
    ):
        chrome.get(Path(page).resolve().as_uri() + CORNER)
        chrome.find_element("css selector", "#top-setups li")  # answered
        Path(output).write_bytes(chrome.get_screenshot_as_png())


if __name__ == "__main__":
    main(*sys.argv[1:3])
