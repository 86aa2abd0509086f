"""The viewer page without a browser: what it carries, its bounds, its escaping, the CLI;
board pictures (SVG, PNG, ``show -o``) and the notebook displays."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from circling_game import circling_game
from click.testing import CliRunner
from hand_games import game, lightning
from same_name_games import same_name_zips

import strat_tools as st
from strat_tools.cli import main
from strat_tools.core.board import parse_square
from strat_tools.core.records import GameRecord, Rescue
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.replays.stepping import board_at
from strat_tools.exports.validate import validate
from strat_tools.views import viewer
from strat_tools.views.svg import board_svg
from strat_tools.views.viewer import (
    game_data,
    notebook_html,
    viewer_html,
    write_viewer,
)

SAMPLE = "data/"


def rebuild(data: dict[str, object], key: str, width: int, start: list[int]) -> list[list[int]]:
    """Apply the page's per-ply changes the way its script does."""
    rows, row = [start[:]], start[:]
    step = 3 if key == "squares" else 2
    for changes in data[key]:  # type: ignore[attr-defined]
        row = row[:]
        for at in range(0, len(changes), step):
            row[changes[at]] = changes[at + 1]
        rows.append(row)
    assert all(len(r) == width for r in rows)
    return rows


def test_the_page_carries_exactly_the_knowledge_arrays() -> None:
    pieces = {"E8": "r7", "E9": "b8", "D9": "r9", "B2": "b5", "E3": "r6"}
    record = lightning(pieces, "E8-E9 B2-B1 D9-D10 B1-B2 E3-F4", {3: Rescue(34, 8, "E4", "8")})
    result = replay(record)
    know = result.knowledge()
    data = game_data(record, result)
    boards = rebuild(data, "squares", 100, list(record.setup or ()))
    assert np.array_equal(np.array(boards), know.boards)
    assert data["battles"] == {"1": [8, 21, 2, 3]}
    captured = rebuild(data, "captured", 24, [0] * 24)
    assert np.array_equal(np.array(captured), know.captured.reshape(-1, 24))
    unnamed = rebuild(data, "lostUnseen", 24, [0] * 24)
    assert np.array_equal(np.array(unnamed), know.captured_unseen.reshape(-1, 24))
    assert data["armyShown"] is True  # ultimate lightning: the rules show its army
    assert data["end"] == "no result recorded" and data["plies"] == 5


def test_names_from_files_are_escaped() -> None:
    record = game({"E4": "r5"}, "E4-E5")
    record.source = 'x<b>"&<img src=x onerror=alert(1)>.xml'
    page = viewer_html([game_data(record, replay(record))], title=record.game_id)
    assert "<img src=x" not in page and "x<b>" not in page
    assert "<title>x&lt;b&gt;&quot;&amp;&lt;img" in page
    blob = re.search(r'id="viewer-games">(.*?)</script>', page, re.S)
    assert blob is not None
    assert json.loads(blob.group(1))[0]["id"] == 'x<b>"&<img src=x onerror=alert(1)>'
    assert notebook_html(record).count("<iframe") == 1


def test_a_thousand_ply_page_stays_small() -> None:
    # Two pieces walking round and round: 1,000 plies, no battle.
    record = game({"E4": "r5", "E7": "b5"}, "")
    loop_red = ["E4-F4", "F4-F3", "F3-E3", "E3-E4"]
    loop_blue = ["E7-F7", "F7-F8", "F8-E8", "E8-E7"]
    for ply in range(1000):
        text = (loop_red if ply % 2 == 0 else loop_blue)[(ply // 2) % 4]
        source, target = (parse_square(p) for p in text.split("-"))
        record.sources.append(source)
        record.targets.append(target)
    result = replay(record)
    assert result.plies_replayed == 1000
    page = viewer_html([game_data(record, result)])
    assert len(page.encode()) < 200_000


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
def test_several_games_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = write_viewer(SAMPLE, tmp_path / "page.html", limit=3)
    assert len(summary.games) == 3 and summary.left_out == 397
    assert "397 more left out" in summary.line()
    text = (tmp_path / "page.html").read_text()
    assert text.count('"plies":') == 3 and "397 more games were left out" in text
    monkeypatch.setattr("strat_tools.views.viewer.MAX_PAGE_BYTES", 40_000)  # the byte bound
    bounded = write_viewer(SAMPLE, tmp_path / "small.html", limit=1000)
    assert 1 < len(bounded.games) < 40 and bounded.left_out == 400 - len(bounded.games)
    empty = len(viewer_html([]).encode())
    assert bounded.bytes - empty <= 40_000 + 1_000  # the games (and title, note, commas)


def test_a_game_without_moves_carries_no_changes() -> None:
    record = game({"E4": "r5"}, "")
    data = game_data(record, replay(record))
    assert data["plies"] == 0 and data["squares"] == [] and data["captured"] == []
    assert data["field"][34] == "G" and data["end"] == "no result recorded"


def test_a_game_without_setup_still_gets_a_page() -> None:
    record = GameRecord(source="nofield.xml", variant="classic")
    data = game_data(record, None)
    assert data["field"] == "" and data["end"] == "not replayed: the record has no setup"
    assert "nofield" in viewer_html([data])


def test_cli_view(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "one.html"
    done = runner.invoke(main, ["view", SAMPLE, "--game", "classic-2026.10-1", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert "1 game in" in done.stderr and done.stdout == ""
    assert out.read_text().startswith("<!DOCTYPE html>")
    missing = runner.invoke(main, ["view", SAMPLE, "--game", "nope", "-o", str(out)])
    assert missing.exit_code == 2 and "no game nope" in missing.output  # a usage error
    assert runner.invoke(main, ["view", SAMPLE, "--limit", "0"]).exit_code == 2


@pytest.fixture()
def same_name_in_two_zips(tmp_path: Path) -> list[Path]:
    """:func:`same_name_games.same_name_zips`: two games of one file name."""
    return same_name_zips(tmp_path)


def page_games(page: Path) -> list[dict[str, object]]:
    found = re.search(r'id="viewer-games">(.*?)</script>', page.read_text(), re.S)
    assert found is not None
    return json.loads(found[1])  # type: ignore[no-any-return]


def test_a_second_file_of_one_name_is_id_hash_2_as_in_the_tables(
    same_name_in_two_zips: list[Path], tmp_path: Path
) -> None:
    zips = [str(z) for z in same_name_in_two_zips]
    both, one = tmp_path / "both.html", tmp_path / "one.html"
    assert CliRunner().invoke(main, ["view", *zips, "-o", str(both)]).exit_code == 0
    ids = [g["id"] for g in page_games(both)]
    assert ids == list(st.read_games(zips, setups_only=True, run=1).games["game_id"])
    assert ids == ["classic-2026.10-1", "classic-2026.10-1#2"]
    done = CliRunner().invoke(main, ["view", *zips, "--game", ids[1], "-o", str(one)])
    assert done.exit_code == 0, done.output
    assert [g["field"] for g in page_games(one)] == [page_games(both)[1]["field"]]


def test_board_pictures_and_show_output(tmp_path: Path) -> None:
    record = game({"E5": "r8", "E6": "b7"}, "E5-E6")
    svg = board_svg(replay(record).final_board, last_move=(44, 54), battle=True)
    assert svg.count("<rect") > 100 and "#e0115f" in svg  # squares, pieces, the battle mark
    runner = CliRunner()
    for name in ("board.svg", "board.png"):
        target = tmp_path / name
        done = runner.invoke(
            main, ["show", "data/", "--game", "classic-2026.10-1", "--ply", "9", "-o", str(target)]
        )
        assert done.exit_code == 0, done.output
        data = target.read_bytes()
        assert data.startswith(b"<svg" if name.endswith(".svg") else b"\x89PNG")
    bad = runner.invoke(main, ["show", "data/", "--game", "classic-2026.10-1", "-o", "b.gif"])
    assert bad.exit_code == 2


def test_notebook_displays_and_short_reprs() -> None:
    record = next(iter(st.read_records([SAMPLE])))
    result = replay(record)
    assert repr(record).startswith("<GameRecord ") and len(repr(record)) < 100
    assert repr(result).startswith("<Replay ") and len(repr(result)) < 120
    html = notebook_html(result)
    assert html.startswith("<iframe srcdoc=") and "viewer-games" in html
    position = board_at(record, 10)
    assert st.board_svg(position.board).startswith("<svg") and repr(position).startswith(
        "<Position"
    )
    assert {"Position", "Replay", "knowledge", "write_viewer", "views"} <= set(dir(st))


@pytest.mark.parametrize("numbering", ["modern", "classic"])
def test_the_page_starts_in_the_chosen_numbering(numbering: str) -> None:
    record = game({"E4": "r10"}, "E4-E5")
    page = viewer_html([game_data(record, replay(record))], numbering=numbering)
    blob = re.search(r'id="viewer-config">(.*?)</script>', page, re.S)
    assert blob is not None and json.loads(blob.group(1))["numbering"] == numbering


def test_ipython_shows_records_and_replays_as_viewers() -> None:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    st.enable_notebook_display()
    record = next(iter(st.read_records([SAMPLE])))
    for item in (record, replay(record)):
        shown, _ = shell.display_formatter.format(item)
        assert shown["text/html"].startswith("<iframe srcdoc=")
        assert shown["text/plain"].startswith(("<GameRecord", "<Replay"))
    shown, _ = shell.display_formatter.format(board_at(record, 3))
    assert shown["image/svg+xml"].startswith("<svg")


# --- a page is bounded, and so is a game's memory (issue 39 point 7) ------------------------


def test_a_game_too_long_for_a_page_is_left_out_unreplayed_and_said_to_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game of more plies than a page holds is never replayed (its replay would cost the
    memory: 1.4 GB for a legal 1,000,000-ply game) and is named as left out; alone, it is a
    clear error (exit 2), never a page past the bound."""
    monkeypatch.setattr(viewer, "MAX_VIEW_PLIES", 500)
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "classic-2026.10-9001.xml").write_bytes(circling_game(2000))
    (folder / "classic-2026.10-9002.xml").write_bytes(circling_game(400))
    report = validate(str(folder), run=1)
    assert "2 valid, 0 invalid" in report.summary.line(), report.summary.line()
    summary = write_viewer(str(folder), tmp_path / "page.html", run=1)
    assert summary.games == ["classic-2026.10-9002"]
    assert summary.too_long == ["classic-2026.10-9001 (2,000 plies)"] and summary.left_out == 1
    assert "1 game left out as too long for one page" in summary.line()
    alone = CliRunner().invoke(
        main, ["view", str(folder / "classic-2026.10-9001.xml"), "-o", str(tmp_path / "a.html")]
    )
    assert alone.exit_code == 2 and "too long for one page" in alone.stderr, alone.stderr
    assert not (tmp_path / "a.html").exists()


def test_the_page_bound_holds_even_for_the_first_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No game takes the page's data past :data:`MAX_PAGE_BYTES`: the old check let the
    first game in whatever its size (a 27 MB page past the 25 MB bound)."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "classic-2026.10-9001.xml").write_bytes(circling_game(3000))
    (folder / "classic-2026.10-9002.xml").write_bytes(circling_game(100))
    (folder / "classic-2026.10-9003.xml").write_bytes(circling_game(2500))
    monkeypatch.setattr(viewer, "MAX_PAGE_BYTES", 60_000)
    summary = write_viewer(str(folder), tmp_path / "page.html", run=1)
    assert summary.games == ["classic-2026.10-9002"], summary.line()
    assert [t.split(" ")[0] for t in summary.too_long] == ["classic-2026.10-9001"]
    assert summary.left_out == 2


@pytest.mark.slow
def test_viewing_a_legal_million_ply_game_is_bounded(tmp_path: Path) -> None:
    """The longest game the rules allow is as long as anyone likes: a legal 1,000,000-ply
    game (46 MB of XML) peaked at 1.47 GB and wrote a 27.5 MB page; now it is left out
    before its replay: a clear error, exit 2, no page, a peak of a few hundred MB (reading
    the file twice, the selecting pass and the page's)."""
    from peak_memory import PEAK_MIB_CODE

    game = tmp_path / "classic-2026.10-9001.xml"
    game.write_bytes(circling_game(1_000_000))
    runner = PEAK_MIB_CODE + (
        "import sys\nfrom strat_tools.cli import main\n"
        "try:\n    main(sys.argv[1:])\n"
        "finally:\n    sys.stderr.write(f'PEAK {peak_mib()}\\n')\n"
    )
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", runner, "view", str(game), "-o", str(tmp_path / "page.html")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "1,000,000 plies" in done.stderr
    peak = float(done.stderr.split("PEAK ")[-1].split()[0])
    assert peak < 600, peak
    assert not (tmp_path / "page.html").exists()
