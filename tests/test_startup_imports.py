"""What ``import strat_tools`` costs: the heavy libraries load on first use, not with the package.

bench/compare.py found ``import strat_tools`` nine times slower (0.61 s of CPU against 0.07 s)
after the floors became subpackages: ``strat_tools.formats`` re-exported the setup strings
eagerly, and every reader import passes through it, so numpy and pandas came with the package.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib")


def loaded_after(statement: str) -> list[str]:
    """The heavy libraries in sys.modules after ``statement``, in a fresh interpreter."""
    code = "\n".join(
        [
            "import json, sys",
            statement,
            f"print(json.dumps(sorted(set({HEAVY!r}) & set(sys.modules))))",
        ]
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(run.stdout)
    return loaded


@pytest.mark.parametrize(
    "statement",
    [
        "import strat_tools",
        "from strat_tools.formats.readers import read_records",
        "from strat_tools.exports.validate import validate",
    ],
)
def test_the_package_and_its_readers_load_no_heavy_library(statement: str) -> None:
    assert loaded_after(statement) == []


def test_the_setup_strings_still_come_through_formats_when_asked_for() -> None:
    statement = "from strat_tools.formats import SETUP_FORMATS, format_setup, parse_setup"
    assert "numpy" in loaded_after(statement)
