"""A game's observation rows, and a long game's made and kept a window of plies at a time:
the same rows as whole, in memory that does not grow with the game (issue 39 point 7)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from circling_game import circling_game

from strat_tools.exports.observation_files import (
    export_observations,
    observation_games,
    read_observations,
)

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture
def games_longer_than_a_window(tmp_path: Path) -> Path:
    """Twelve games of the sample (every 33rd: all variants, battles, scouts, two-squares
    bans), most far longer than the 64-ply window the test sets, between shorter ones."""
    import zipfile

    folder = tmp_path / "twelve"
    folder.mkdir()
    with zipfile.ZipFile(DATA / "strados2026-10.zip") as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".xml"))[::33][:12]:
            (folder / Path(name).name).write_bytes(archive.read(name))
    return folder


def test_a_game_longer_than_a_window_gives_the_rows_it_gives_whole(
    monkeypatch: pytest.MonkeyPatch, games_longer_than_a_window: Path, tmp_path: Path
) -> None:
    """Windows of 64 plies (knowledge, legal moves, counters, last moves and battles
    carried over each edge) give every row and the games table as the whole game does,
    in order; only the Parquet row groups show the windows."""
    import strat_tools.exports.observations as observations

    export_observations([games_longer_than_a_window], tmp_path / "whole", run=1)
    monkeypatch.setattr(observations, "WINDOW_PLIES", 64)
    export_observations([games_longer_than_a_window], tmp_path / "windows", run=1)
    whole, windows = read_observations(tmp_path / "whole"), read_observations(tmp_path / "windows")
    plies = observation_games(tmp_path / "whole").column("observations").to_pylist()
    assert sum(n > 64 for n in plies) >= 6 and sum(n <= 64 for n in plies) >= 1, plies
    assert windows.num_rows == whole.num_rows and windows.equals(whole)
    assert observation_games(tmp_path / "windows").equals(observation_games(tmp_path / "whole"))
    groups = pq.ParquetFile(tmp_path / "windows" / "observations" / "part-00000.parquet")
    assert groups.metadata.num_row_groups > sum(n // 64 for n in plies)


def test_a_window_is_an_even_number_of_plies() -> None:
    from strat_tools.engine.replays.replay import replay
    from strat_tools.exports.observation_rows import packed_game
    from strat_tools.formats.readers import parse_record

    record = parse_record(circling_game(10), "x.zip", "classic-2026.10-9001.xml")
    with pytest.raises(ValueError, match="even number of plies, got 3"):
        packed_game(replay(record), 3)


@pytest.mark.slow
def test_observing_a_legal_million_ply_game_is_bounded(tmp_path: Path) -> None:
    """A legal 1,000,000-ply game (46 MB of XML) peaked at 1.09 GB, its rows' columns built
    for all its plies at once; made and kept a window at a time, it peaks at under half
    a gigabyte (the record and its replay, as ``validate``'s 0.35 GB, and a window)."""
    from peak_memory import PEAK_MIB_CODE

    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "classic-2026.10-9001.xml").write_bytes(circling_game(1_000_000))
    runner = PEAK_MIB_CODE + (
        "import sys\nfrom strat_tools.cli import main\n"
        "try:\n    main(sys.argv[1:])\n"
        "finally:\n    sys.stderr.write(f'PEAK {peak_mib()}\\n')\n"
    )
    args = ["observations", str(tmp_path / "games"), "-o", str(tmp_path / "obs"), "--jobs", "1"]
    done = subprocess.run(
        [sys.executable, "-c", runner, *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "wrote 1,000,000 observations" in done.stderr, done.stderr[-2000:]
    peak = float(done.stderr.split("PEAK ")[-1].split()[0])
    assert peak < 700, peak


def test_parts_joined_keep_each_long_games_windows_in_place(
    games_longer_than_a_window: Path,
) -> None:
    """The game-by-game path (a batch redone after a failure) joins one part per game:
    each part's windows still go before the rows that follow them, so the batch unpacks
    to the rows the whole batch gives."""
    import pyarrow as pa

    from strat_tools.exports.observations import ObservationsWork, unpacked
    from strat_tools.formats.readers import read_records

    records = list(read_records([games_longer_than_a_window]))
    work = ObservationsWork(window=64)
    joined = work.combine([work([record]) for record in records])
    whole = ObservationsWork(window=None)(records)
    rows = pa.concat_tables([part["observations"] for part in unpacked(joined)])
    assert "packed" in joined and rows.equals(whole["observations"])
    assert joined["games"].equals(whole["games"])
