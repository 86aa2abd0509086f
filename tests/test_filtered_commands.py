"""The game filters in events, observations, convert and view: each one really narrows
the output, the games it leaves out are counted, and a bad game it keeps is still reported.

The archive is the one of test_selection (40 generated games in one month's zip, the first
of them again in another month); the expected games are counted here from the records
themselves (variant, month, winner as read), not through the filters.
"""

from __future__ import annotations

import json
import os
import re
import threading
import zipfile
from io import BytesIO
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from selection_archive import archive, run

from strat_tools.exports.convert import convert
from strat_tools.exports.event_table import EventsWork, read_events
from strat_tools.exports.observation_files import export_observations
from strat_tools.exports.validate import validate
from strat_tools.formats.readers import read_records
from strat_tools.formats.xml_writer import write_games
from strat_tools.generate.games import generate_games
from strat_tools.run.batch_work import RecordWork
from strat_tools.run.filters import GameFilter
from strat_tools.run.options import Run
from strat_tools.run.tally import Tally

__all__ = ["archive"]  # the fixture, imported for these tests


def ids_where(path: Path, keep: Any) -> list[str]:
    """The ids of the records under ``path`` that ``keep(record)`` is true for, as read."""
    return [r.game_id for r in read_records([str(path)]) if keep(r)]


def page_games(page: Path) -> list[dict[str, Any]]:
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="viewer-games">(.*?)</script>', text)
    assert found is not None
    games: list[dict[str, Any]] = json.loads(found.group(1))
    return games


def test_events_variant_narrows_to_those_games(archive: Path) -> None:
    barrage = ids_where(archive, lambda r: r.variant == "barrage")
    assert 0 < len(barrage) < 41
    code, out, err = run(
        "events",
        str(archive),
        "--variant",
        "barrage",
        "--kind",
        "end",
        "--format",
        "json",
        "--jobs",
        "1",
    )
    assert code == 0, err
    rows = json.loads(out)
    assert sorted(row["game_id"] for row in rows) == sorted(barrage)
    assert f"{41 - len(barrage)} games left out by the filters" in err
    tally = Tally()
    frame = read_events(
        [str(archive)],
        select=GameFilter.parse(variant="barrage"),
        run=Run(jobs=1, tally=tally),
    )
    assert set(frame["game_id"]) == set(barrage) and len(frame) > len(barrage)  # battles too
    assert (tally.games, tally.dropped) == (len(barrage), 41 - len(barrage))


def test_observations_winner_narrows_games_and_rows(archive: Path, tmp_path: Path) -> None:
    red = ids_where(archive, lambda r: r.result is not None and r.result.winner == 1)
    assert 0 < len(red) < 41
    out = tmp_path / "obs"
    code, _, err = run("observations", str(archive), "--winner", "red", "-o", str(out), "-j", "1")
    assert code == 0, err
    games = pq.read_table(out / "games").to_pydict()
    assert sorted(games["game_id"]) == sorted(red)
    rows = pq.read_table(out / "observations").to_pydict()
    assert set(rows["game_id"]) == set(red)
    assert sum(games["observations"]) == len(rows["game_id"])
    assert f"{41 - len(red)} left out by the filters" in err


def test_convert_period_revalidates_to_exactly_the_selected_games(
    archive: Path, tmp_path: Path
) -> None:
    later = ids_where(archive, lambda r: (r.year, r.month) >= (2026, 9))
    assert len(later) == 1
    out = tmp_path / "later.zip"
    code, _, err = run(
        "convert",
        str(archive),
        "--to",
        "xml",
        "--period",
        "2026-09:",
        "-o",
        str(out),
        "--jobs",
        "1",
    )
    assert code == 0, err
    assert "Converted 1 of 1 game " in err and "40 left out by the filters" in err
    report = validate([str(out)], run=1)
    assert [g.game_id for g in report.games] == later and report.summary.valid == 1
    earlier = tmp_path / "earlier"
    done = convert([str(archive)], earlier, to="gsn", select=GameFilter.parse(period=":2026-03"))
    assert (done.written, done.dropped, done.failed) == (40, 1, [])
    assert len(list(earlier.iterdir())) == 40


def test_view_variant_puts_only_those_games_on_the_page(tmp_path: Path) -> None:
    duell = ids_where(Path("data"), lambda r: r.variant == "duell")
    assert len(duell) == 20
    page = tmp_path / "duell.html"
    code, _, err = run("view", "data/", "--variant", "duell", "-o", str(page), "--jobs", "1")
    assert code == 0, err
    games = page_games(page)
    assert [g["id"] for g in games] == duell and {g["variant"] for g in games} == {"duell"}
    assert "20 games in" in err and "380 left out by the filters" in err
    # The page's bound applies to the games the filters keep, in input order.
    code, _, err = run(
        "view", "data/", "--variant", "duell", "--limit", "3", "-o", str(page), "--jobs", "1"
    )
    assert code == 0, err
    assert [g["id"] for g in page_games(page)] == duell[:3]
    assert "17 more left out" in err
    code, _, err = run("view", "data/", "--variant", "ultimate lightning", "-o", str(page))
    assert (
        code == 2 and "400 games read in data/; the filters (ultimate lightning) kept none" in err
    )


@pytest.fixture()
def bad_games(tmp_path: Path) -> Path:
    """Three classic games of 2026-11 (one with an illegal first move), one barrage game
    of 2026-04, and a file named as a classic game of 2026-11 that is not XML at all."""
    folder = tmp_path / "bad"
    games = list(generate_games(3, variant="classic", seed=3)) + list(
        generate_games(1, variant="barrage", seed=4, month=3)
    )
    games[1].targets[0] = games[1].sources[0]  # a move to where the piece stands
    write_games(games, folder)
    (folder / "classic-2026.10-9999.xml").write_bytes(b"\x00 not a record")
    return folder


def test_a_bad_game_under_a_filter_is_still_reported(bad_games: Path, tmp_path: Path) -> None:
    keep = GameFilter.parse(period="2026-11")
    november = ids_where(bad_games, lambda r: (r.year, r.month) == (2026, 11))
    assert len(november) == 4  # the unreadable file's name gives its month
    ends = read_events([str(bad_games)], run=1, kinds=["end"], select=keep)
    assert sorted(ends["game_id"]) == sorted(november)
    details = " | ".join(ends["detail"])
    assert "replay stopped at ply 1" in details and "unreadable: " in details
    summary = export_observations([str(bad_games)], tmp_path / "obs", select=keep, run=1)
    assert (summary.games, summary.valid, summary.readable, summary.dropped) == (4, 2, 3, 1)
    games = pq.read_table(tmp_path / "obs" / "games").to_pylist()
    assert sorted((g["status"], g["readable"]) for g in games) == [
        ("invalid", False),
        ("invalid", True),
        ("valid", True),
        ("valid", True),
    ]
    assert all(g["reason"] for g in games if g["status"] != "valid")
    code, _, err = run(
        "convert",
        str(bad_games),
        "--to",
        "gsn",
        "--period",
        "2026-11",
        "-o",
        str(tmp_path / "c.zip"),
        "--jobs",
        "1",
    )
    assert code == 1  # the unreadable one is named, not dropped
    assert "classic-2026.10-9999.xml: not converted: unreadable:" in err
    assert "Converted 3 of 4 games" in err and "1 left out by the filters" in err
    code, _, err = run("view", str(bad_games), "--period", "2026-11", "-o", str(tmp_path / "v"))
    assert code == 0, err
    page = page_games(tmp_path / "v")
    assert sorted(g["id"] for g in page) == sorted(november)
    assert any(g["end"].startswith("unreadable: ") for g in page)
    # A filter that asks what an unreadable record cannot say (its variant) leaves it out,
    # as validate and export do: counted among the games left out, never silently lost.
    tally = Tally()
    classic = read_events(
        [str(bad_games)],
        select=GameFilter.parse(variant="classic"),
        run=Run(jobs=1, tally=tally),
    )
    assert classic["game_id"].nunique() == 3 and (tally.games, tally.dropped) == (3, 2)
    code, out, err = run("validate", str(bad_games), "--variant", "classic", "-q", "-j", "1")
    assert out.startswith("3 games in") and "2 games left out by the filters" in err


class FailsOn:
    """EventsWork that raises on one game (a bug of the events step, contained)."""

    def __init__(self, game_id: str) -> None:
        self.work = EventsWork()
        self.game_id = game_id
        self.code, self.rules, self.check = self.work.code, self.work.rules, True

    def __call__(self, records: Any) -> Any:
        chosen = list(records)
        if any(r.game_id == self.game_id and r.setup is not None for r in chosen):
            raise RuntimeError("boom")
        return self.work(chosen)

    def combine(self, parts: Any) -> Any:
        return self.work.combine(parts)

    def renumber(self, ids: Any, table: Any) -> Any:
        return self.work.renumber(ids, table)


def test_a_game_the_work_fails_on_is_contained_and_named(bad_games: Path) -> None:
    from strat_tools.run.driver import map_records

    victim = ids_where(bad_games, lambda r: r.variant == "classic" and r.readable)[-1]
    work: RecordWork[Any] = FailsOn(victim)
    tally = Tally()
    keep = GameFilter.parse(period="2026-11")
    tables = map_records(work, [str(bad_games)], select=keep, run=Run(jobs=1, tally=tally))
    frame = pa.concat_tables(tables).to_pandas()
    end = frame.loc[(frame["game_id"] == victim) & (frame["kind"] == "end"), "detail"]
    assert end.tolist() == ["not replayed: [internal.events] RuntimeError: boom"]
    assert frame.loc[frame["kind"] == "end", "game_id"].nunique() == 4  # no game lost
    assert (tally.games, tally.failed, tally.dropped) == (4, 1, 1)
    assert tally.failures and victim in tally.failures[0]


def test_convert_writes_its_zip_through_devices_and_fifos(archive: Path, tmp_path: Path) -> None:
    code, _, err = run("convert", str(archive), "--to", "gsn", "-o", os.devnull, "--jobs", "1")
    assert code == 0, err
    assert "Converted 41 of 41 games to /dev/null" in err
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = convert([str(archive)], fifo, to="gsn", select=GameFilter.parse(variant="barrage"))
    reader.join(timeout=60)
    with zipfile.ZipFile(BytesIO(received[0])) as zipped:
        assert (
            len(zipped.namelist())
            == done.written
            == len(ids_where(archive, lambda r: r.variant == "barrage"))
        )
    code, _, err = run("convert", str(archive), "--to", "gsn", "-o", os.devnull + "/")
    assert code == 2 and "a folder of games cannot be written to a device" in err
    assert "Traceback" not in err


def test_records_are_read_only_once_per_game(archive: Path) -> None:
    """Each game read is counted once: the filters' count and the kept games add up."""
    tally = Tally()
    read_events([str(archive)], select=GameFilter.parse(plies="60:"), run=Run(jobs=2, tally=tally))
    long = ids_where(archive, lambda r: r.plies >= 60)
    assert (tally.games, tally.dropped) == (len(long), 41 - len(long))
