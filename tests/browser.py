"""The one headless Chromium of the browser tests (viewer, hostile viewer, explorer).

Driven through chromedriver (the system's, never downloaded), with the network pointed at a
dead proxy so a page that tried to load anything would fail visibly. Without selenium,
Chromium or chromedriver the test skips with the reason, or fails when
``STRAT_TOOLS_REQUIRE_BROWSER`` is set (CI sets it).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def missing(reason: str) -> None:
    """Skip (or, where a browser is required, fail) for ``reason``."""
    if os.environ.get("STRAT_TOOLS_REQUIRE_BROWSER"):
        pytest.fail(f"STRAT_TOOLS_REQUIRE_BROWSER is set, but {reason}")
    pytest.skip(reason)


@contextmanager
def headless_chromium(
    profile: Path, *, size: str = "1200,900", logs: dict[str, str] | None = None
) -> Iterator[Any]:
    """A headless Chromium window of ``size`` with its profile in ``profile``; ``logs`` asks
    for Chromium's logs (``{"performance": "ALL"}``: the requests made)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("selenium is not installed (pip install selenium)")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if browser is None or not Path(chromedriver).exists():
        missing("no headless Chromium with chromedriver (apt-get install chromium-driver)")
    options = Options()
    options.binary_location = str(browser)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        f"--window-size={size}",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    if logs:
        options.set_capability("goog:loggingPrefs", logs)
    chrome = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield chrome
    finally:
        chrome.quit()
