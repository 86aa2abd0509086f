"""A small benchmark folder for the scorer's tests: the sample month's first games
(``data/``) exported as observations once, copied as each split, and a manifest written
per the contract of ``strat_tools/benchmark/definition.py`` (the test split's games
alternately fresh and seen, so both views have games)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from strat_tools.benchmark.definition import MONTH_NOTE, NAME, VERSION
from strat_tools.exports.observation_files import export_observations, observation_games
from strat_tools.io.owned import file_digest
from strat_tools.run.filters import GameFilter

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "strados2026-10.zip"
SPLIT_NAMES = ("train", "val", "test")


GAMES = 40
"""The sample's first games that make the benchmark (about 9,000 rows: tests stay cheap)."""


def make_bench(folder: Path) -> None:
    """Write the sample benchmark into the (empty) ``folder``."""
    with zipfile.ZipFile(SAMPLE) as archive:
        names = [Path(n).stem for n in archive.namelist() if n.endswith(".xml")][:GAMES]
    select = GameFilter.parse(ids=names)
    export_observations([str(SAMPLE)], folder / "train", run=1, select=select)
    for split in SPLIT_NAMES[1:]:
        shutil.copytree(folder / "train", folder / split)
    games = observation_games(folder / "train").to_pylist()
    with_rows = [g for g in games if g["observations"] > 0]
    zips = [{"name": SAMPLE.name, "month": "2026-11", "sha256": file_digest(SAMPLE)}]
    rows = sum(g["observations"] for g in with_rows)
    manifest = {
        "benchmark": NAME,
        "version": VERSION,
        "strat_tools": "test",
        "month_note": MONTH_NOTE,
        "splits": {s: {"zips": zips, "games": len(with_rows), "rows": rows} for s in SPLIT_NAMES},
        "games": [
            {
                "game_id": g["game_id"],
                "split": split,
                "view": (("fresh", "seen")[i % 2] if split == "test" else None),
                "red_fingerprint": "0" * 16,
                "red_mirror_fingerprint": "0" * 16,
                "blue_fingerprint": "0" * 16,
                "blue_mirror_fingerprint": "0" * 16,
            }
            for split in SPLIT_NAMES
            for i, g in enumerate(with_rows)
        ],
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
