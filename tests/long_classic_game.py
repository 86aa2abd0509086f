"""The first long classic game of the shipped sample, for the viewer's chance tests (the
model's line needs plies enough to move)."""

from __future__ import annotations

from pathlib import Path

from strat_tools.core.records import GameRecord
from strat_tools.formats.readers import read_records

DATA = Path(__file__).resolve().parent.parent / "data"


def sample_game(min_plies: int = 120) -> GameRecord:
    """The first long decided classic game of the shipped sample."""
    for record in read_records([DATA]):
        if record.variant == "classic" and record.plies >= min_plies:
            return record
    raise AssertionError("no long classic game in data/")
