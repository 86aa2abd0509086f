"""Every docstring example in the package runs (and passes) as part of the suite."""

from __future__ import annotations

import doctest
import importlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for path in (ROOT / "strat_tools").rglob("*.py")
    if path.name != "__main__.py"
)


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_module_pass(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples name paths from the project's root (data/, tests/)
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={"__name__": name, **vars(module)}):
        runner.run(test, out=lambda text: None)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} example(s) of {name} fail: run python -m doctest"


def test_examples_are_found() -> None:
    """The finder sees the package's examples (so the test above can fail)."""
    module = importlib.import_module("strat_tools.stats.formulas")
    tests = doctest.DocTestFinder(exclude_empty=True).find(module)
    assert sum(len(t.examples) for t in tests) >= 5
    assert os.path.isdir(ROOT / "strat_tools")
