"""The per-player part of ``notebooks/human_play.ipynb``, which the archive (every player
"Player 1" or "Player 2") and the sample never reach: run on game sides whose records do
name players, one name hostile, it shows one row per named player with the name escaped,
and leaves the placeholders out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "human_play.ipynb"


def test_named_players_get_a_row_each_with_the_name_escaped() -> None:
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    (source,) = ["".join(c["source"]) for c in cells if "PLACEHOLDERS" in "".join(c["source"])]
    per_game = pd.DataFrame(
        {
            "game_id": ["g1", "g1", "g2", "g2"],
            "side": ["red", "blue", "red", "blue"],
            "mean": [0.5, 0.25, 0.75, 0.5],
            "size": [10, 12, 20, 22],
        }
    )
    players = {"g1": ("<b>eve</b>", "Player 2"), "g2": ("Player 1", "<b>eve</b>")}
    shown: list[Any] = []
    namespace = {"per_game": per_game, "players": players, "display": shown.append}
    exec(compile(source, "human_play cell", "exec"), namespace)
    (table,) = shown
    assert list(table.index) == ["&lt;b&gt;eve&lt;/b&gt;"]
    row = table.iloc[0]
    assert (row["games"], row["plies"], row["top1"]) == (2, 32, 0.5)
