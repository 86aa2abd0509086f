"""Every Python block of README.md runs (issue 25, point 22), on the shipped sample and, for
the block that names the archive's zips, on one month of the real archive (skipped with the
reason when it is absent). Shell blocks are not Python and are not run here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import strat_tools as st

REPO = Path(__file__).resolve().parent.parent

BLOCKS = re.findall(r"^```python\n(.*?)^```", (REPO / "README.md").read_text(), re.S | re.M)


def my_function(games: Any) -> int:
    """The README's "your own per-batch reduction": the games of a batch."""
    return len(games.games)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_every_python_block_of_the_readme_runs(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    code = BLOCKS[index]
    if "strados2014-*.zip" in code:  # skips with the reason when the archive is absent
        gravon_dir: Path = request.getfixturevalue("gravon_dir")
        code = code.replace("strados2014-*.zip", str(gravon_dir / "strados2014-5.zip"))
    code = code.replace('"data/"', repr(f"{REPO / 'data'}/"))  # the blocks run in a scratch folder
    if "import torch" in code:
        pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {
        "st": st,
        "paths": [str(REPO / "data")],
        "my_function": my_function,
    }
    exec(compile(code, f"README.md block {index + 1}", "exec"), namespace)
