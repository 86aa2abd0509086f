"""Shared test helpers (from test_selection.py): imported by the tests that need them, so no test
module imports another."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.formats.readers import read_records
from strat_tools.formats.xml_writer import write_games
from strat_tools.generate.games import generate_games


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two monthly zips; the second holds a copy of the first zip's first game."""
    folder = tmp_path_factory.mktemp("selection")
    mix = {"classic": 3.0, "barrage": 1.0}
    write_games(generate_games(40, variant=mix, seed=5, month=3), folder / "strados2026-2.zip")
    first = next(iter(read_records([str(folder / "strados2026-2.zip")])))
    first.month, first.number = 9, 4242
    write_games([first], folder / "strados2026-8.zip")
    return folder


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr
