"""bench build on the real archive: the split sizes, rows and fresh view equal a count made
here from the records themselves (the zips read one game at a time, each setup compared as
its 40 squares and their mirror image: no export, no fingerprint, no build code), and one
of the archive's months built again as an extra test set gets the same rows and views."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from strat_tools.benchmark.build import build_benchmark
from strat_tools.benchmark.definition import SPLITS
from strat_tools.benchmark.manifest import read_manifest
from strat_tools.formats.readers import read_records


def setups_of(field: tuple[int, ...]) -> set[bytes]:
    """Both sides' setups, each in its owner's view (blue's turned), with their mirror
    images: red codes 1..12 as they are, blue's 13..24 less 12."""
    board = np.asarray(field, dtype=np.int16).reshape(10, 10)
    red = board[:4]
    blue = np.where(board[6:] >= 13, board[6:] - 12, board[6:])[::-1, ::-1]
    return {
        np.ascontiguousarray(s).astype(np.uint8).tobytes()
        for side in (red, blue)
        for s in (side, side[:, ::-1])
    }


@pytest.mark.archive
@pytest.mark.slow  # the 23 months built (about 20 s on two cores) and read once more
def test_split_sizes_rows_and_the_fresh_view_equal_a_count_from_the_records(
    gravon_dir: Path, tmp_path: Path
) -> None:
    extra = gravon_dir / "strados2014-9.zip"  # a test month, as if nobody had named it
    build_benchmark(gravon_dir, tmp_path / "bench", extras={"again": [str(extra)]}, run=2)
    manifest = read_manifest(tmp_path / "bench")
    counted: dict[str, dict[str, tuple[int, set[bytes]]]] = {}
    for split in SPLITS:
        games: dict[str, tuple[int, set[bytes]]] = {}
        for record in read_records([str(gravon_dir / z.name) for z in split.zips]):
            if record.variant == "classic" and record.plies and record.setup is not None:
                games[record.game_id] = (record.plies, setups_of(record.setup))
        counted[split.name] = games
    train = set().union(*(sides for _plies, sides in counted["train"].values()))
    for name, games in counted.items():
        entry = manifest.splits[name]
        assert (entry.games, entry.rows) == (len(games), sum(p for p, _s in games.values()))
        assert set(manifest.game_ids(name)) == set(games)
    fresh = {gid for gid, (_plies, sides) in counted["test"].items() if not sides & train}
    assert set(manifest.game_ids("test", "fresh")) == fresh
    assert 0 < len(fresh) < len(counted["test"])
    month = {g for g in manifest.game_ids("test", "fresh") if ".9-" in g}
    assert set(manifest.game_ids("again", "fresh")) == month
    assert manifest.splits["again"].zips[0].month == "2014-10"
