"""Project-wide pytest set-up; the tests' own fixtures and helpers are in tests/conftest.py.

- The docstring examples of ``strat_tools/`` (``--doctest-modules``, see pyproject.toml) run
  from the project's root, since they name paths such as ``data/`` and ``tests/fixtures/``.
- Bytecode caches are written even where ``PYTHONDONTWRITEBYTECODE`` is set: without them
  every run rewrites the assertions of every test module again (about 30 s of the
  collection on a 2-core machine, once per xdist worker); with them a second run collects
  in a few seconds. The caches go to ``__pycache__`` folders, which git ignores.
- ``strat_tools/env`` needs the ``env`` extra (the lock installs it): without PettingZoo its
  examples are not collected (``tests/test_env.py`` skips, saying so).
- The notebooks (``--nbmake``) run each in its own kernel and take tens of seconds: they are
  in the full tier (marked ``slow``).
- A test that takes the real archive (the ``gravon_dir`` fixture, directly or through another
  fixture) is marked ``archive`` and ``slow`` here, by its fixtures, not by hand: the fast
  tier is then the same with the archive beside the project and without it, and stays within
  its few minutes on a fresh clone next to ``../shared``; the full tier runs them all.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.dont_write_bytecode = False

ROOT = Path(__file__).resolve().parent

try:  # the env extra (PettingZoo, Gymnasium): without it, strat_tools/env has no examples to run
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError:
    collect_ignore_glob = ["strat_tools/env/*"]


@pytest.fixture(autouse=True)
def _examples_run_from_the_root(request: pytest.FixtureRequest) -> None:
    if isinstance(request.node, pytest.DoctestItem):
        request.getfixturevalue("monkeypatch").chdir(ROOT)


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
        if "gravon_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.archive)
            item.add_marker(pytest.mark.slow)
