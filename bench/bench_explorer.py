#!/usr/bin/env python3
"""Setup-explorer benchmark: how fast the page answers a question, as a ratio to a plain scan.

    .venv/bin/python bench/bench_explorer.py [ARCHIVE_DIR] [--repeat N]

Writes the explorer page of ARCHIVE_DIR's classic setups (default $STRAT_TOOLS_GRAVON or
../shared/gravon; ``data/`` when it is absent), untimed, opens it in headless Chromium
(/usr/bin/chromium with chromedriver, no network) and, for each pattern of
:data:`PATTERNS` (with and without the mirror image), asks the page through its URL and
reads the time the page took to answer (``#matches`` ``data-ms``: matching, counting, both
intervals and the heatmap; drawing excluded), best of ``--repeat``. The floor is one plain
JavaScript pass over the same setup bytes in the same page (count the flags). Prints the
page's size, each answer in ms and its ratio to the floor. The target (issue 27): a page of
at most 3 MB that answers each click in under 100 ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from strat_tools.views.explorer import write_explorer  # noqa: E402

PATTERNS = {
    "nothing asked": "........../........../........../..........",
    "flag back-left": "........../........../........../F.........",
    "flag walled in a corner": "........../........../B........./FB........",
    "no flag or bomb back-left": "........../........../........../[!FB].........",
    "spy beside the general": "........../........../......SX../..........",
    "six squares fixed": "........../........../BB......../FB3......2",
}

FLOOR_JS = """
var data = JSON.parse(document.getElementById("explorer-data").textContent);
var text = atob(data.codes), codes = new Uint8Array(text.length);
for (var i = 0; i < text.length; i++) { codes[i] = text.charCodeAt(i); }
var best = Infinity, flags = 0;
for (var r = 0; r < arguments[0]; r++) {
  var t = performance.now(); flags = 0;
  for (var j = 0; j < codes.length; j++) { if (codes[j] === 12) { flags++; } }
  best = Math.min(best, performance.now() - t);
}
return [best, flags];
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("STRAT_TOOLS_GRAVON") or str(REPO.parent / "shared" / "gravon")
    parser.add_argument("archive", nargs="?", default=default)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    source = args.archive if Path(args.archive).is_dir() else str(REPO / "data")

    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "explore.html"
        summary = write_explorer(source, page)
        print(summary.line())
        print(f"page size: {summary.bytes / 1e6:.2f} MB (target: at most 3 MB)")
        options = Options()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--proxy-server=http://127.0.0.1:9",
            f"--user-data-dir={tmp}/chromium",
        ):
            options.add_argument(flag)
        driver = webdriver.Chrome(
            service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
            options=options,
        )
        try:
            driver.get(page.as_uri())
            floor, _ = driver.execute_script(FLOOR_JS, args.repeat)
            print(f"floor, one JS pass over the setup bytes: {floor:.2f} ms")
            print(f"{'question':32} {'mirror':>6} {'matches':>8} {'ms':>7} {'x floor':>8}")
            worst = 0.0
            for name, pattern in PATTERNS.items():
                for mirror in (False, True):
                    times = []
                    for _ in range(args.repeat):
                        driver.execute_script(
                            "location.hash = arguments[0];",
                            f"#pattern={pattern}"
                            + ("&mirror=1" if mirror else "")
                            + "&r="
                            + str(len(times)),
                        )
                        # The page answers on hashchange and writes its own hash back.
                        WebDriverWait(driver, 10).until(
                            lambda d: "&r=" not in d.execute_script("return location.hash")
                        )
                        box = driver.find_element("id", "matches")
                        times.append(float(box.get_attribute("data-ms")))
                    best = min(times)
                    worst = max(worst, max(times))
                    count = int(box.get_attribute("data-count"))
                    print(f"{name:32} {mirror!s:>6} {count:8,} {best:7.2f} {best / floor:8.1f}")
            print(f"slowest single answer: {worst:.2f} ms (target: under 100 ms)")
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
