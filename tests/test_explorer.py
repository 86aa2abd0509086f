"""The setup explorer's data and command (``strat_tools.views.explorer``, ``strat-tools explore``).

What the page does with the data is tested by clicks in Chromium
(``tests/test_explorer_browser.py``); here: the packing decodes to exactly the setups,
results and games of the library, and the command's outputs and errors are clean.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.run.driver import read_games
from strat_tools.setups.identity import fingerprints
from strat_tools.stats.repeats import setup_outcomes
from strat_tools.views.explorer import explorer_data, explorer_html

DATA = Path(__file__).resolve().parent.parent / "data"
GAME = (Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml").read_bytes()


def unpack(data: dict, name: str, dtype: str = "<u4") -> np.ndarray:  # type: ignore[type-arg]
    return np.frombuffer(base64.b64decode(data[name]), dtype=dtype)


@pytest.fixture(scope="module")
def sample():  # type: ignore[no-untyped-def]
    return read_games(str(DATA), setups_only=True, run=1)


def test_the_packing_decodes_to_the_library_s_setups(sample) -> None:  # type: ignore[no-untyped-def]
    data = explorer_data(sample)
    outcomes = setup_outcomes(sample)
    n = data["distinct"]
    codes = unpack(data, "codes", "u1").reshape(n, 40)
    counts, wins = unpack(data, "counts"), unpack(data, "wins")
    draws, losses = unpack(data, "draws"), unpack(data, "losses")
    starts, rows = unpack(data, "rowStarts"), unpack(data, "rows")
    assert data["setups"] == len(outcomes) == counts.sum() == len(rows)
    assert list(fingerprints(codes)) == re.findall(".{16}", data["fingerprints"])
    assert list(counts) == sorted(counts, reverse=True)  # most played first
    # Every setup row comes back: its game, its side, its result, under its own setup.
    frame = outcomes.frame.assign(fp=outcomes.frame["fingerprint"])
    back = []
    for s in range(n):
        for word in rows[starts[s] : starts[s + 1]]:
            game, side = data["games"][word >> 3], "blue" if word >> 2 & 1 else "red"
            result = ["win", "draw", "loss", None][word & 3]
            back.append((game, side, result, data["fingerprints"][16 * s : 16 * s + 16]))
        assert wins[s] + draws[s] + losses[s] <= counts[s]
    expected = sorted(
        (g, s, r if isinstance(r, str) else None, f)
        for g, s, r, f in zip(
            frame["game_id"], frame["side"], frame["result"], frame["fp"], strict=True
        )
    )
    assert sorted(back, key=str) == sorted(expected, key=str)
    clusters = unpack(data, "clusters")
    mirror_classes = {}
    for s, fp in enumerate(re.findall(".{16}", data["fingerprints"])):
        mirror = frame.loc[frame["fp"] == fp, "mirror_fingerprint"].iloc[0]
        assert mirror_classes.setdefault(mirror, clusters[s]) == clusters[s]
    assert len(set(clusters)) == len(mirror_classes)


def test_the_page_escapes_names_from_files() -> None:
    data = {"source": "</script><img src=x onerror=alert(1)>", "games": ["a&b</script>"]}
    page = explorer_html(data | {"distinct": 0}, title="<b>title</b>")
    assert page.count("</script>") == 3  # the two data blocks and the script, no more
    assert "<img" not in page and "<b>title" not in page


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def test_explore_writes_one_self_contained_page(tmp_path: Path) -> None:
    out = tmp_path / "explore.html"
    code, _, err = run("explore", str(DATA), "-o", str(out), "--jobs", "1")
    assert code == 0, err
    assert "606 classic setups (606 distinct as drawn) of 303 games" in err and "synthetic" in err
    page = out.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing from the network
    assert (
        json.loads(re.search(r'id="explorer-data">(.*?)</script>', page).group(1))["setups"] == 606
    )
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left


def test_explore_errors_are_clean(tmp_path: Path) -> None:
    # Over an input, or a name the read takes inside an input folder: refused before
    # anything is read (a page there is fine, as for every command: tests/test_output.py).
    code, _, err = run("explore", str(DATA), "-o", str(DATA / "explore.xml"))
    assert code == 2 and "inside the input" in err and not (DATA / "explore.xml").exists()
    target = tmp_path / "game.xml"
    target.write_bytes(GAME)
    code, _, err = run("explore", str(target), "-o", str(target))
    assert code == 2 and target.read_bytes() == GAME
    code, _, err = run(
        "explore", str(DATA), "--variant", "classic,barrage", "-o", str(tmp_path / "x.html")
    )
    assert code == 2 and "one variant" in err
    code, _, err = run(
        "explore", str(target), "--variant", "barrage", "-o", str(tmp_path / "x.html")
    )
    assert code == 2 and "1 game read in " in err and "the filters (barrage) kept none" in err
    code, _, err = run("explore", str(tmp_path / "missing"), "-o", str(tmp_path / "x.html"))
    assert code == 2
    code, _, err = run("explore", str(DATA), "--pattern", "F/B", "-o", str(tmp_path / "x.html"))
    assert code == 2 and "4 rows" in err
    assert not (tmp_path / "x.html").exists()


@pytest.mark.archive
@pytest.mark.slow
def test_the_archive_s_classic_setups_fit_in_three_megabytes(
    gravon_dir: Path, tmp_path: Path
) -> None:
    from strat_tools.views.explorer import write_explorer

    summary = write_explorer(str(gravon_dir), tmp_path / "explore.html", run=1)
    assert (summary.setups, summary.distinct, summary.games) == (24_798, 15_377, 12_399)
    assert summary.bytes == (tmp_path / "explore.html").stat().st_size <= 3_000_000


@pytest.mark.slow  # over 2 s: the sample read twice
def test_the_page_read_in_many_small_batches_is_the_page_read_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The streamed page's data (each batch's rows, joined every two batches) equals the
    whole read's, on the sample named twice: every setup repeats across batches, the
    second copy's games renamed ``#2``."""
    from strat_tools.run import driver
    from strat_tools.stats import setup_search
    from strat_tools.views.explorer import add_setup_rows, setup_rows

    zipped = [str(DATA / "strados2026-10.zip")] * 2
    whole = explorer_data(read_games(zipped, setups_only=True, run=1))
    monkeypatch.setattr(driver, "TABLE_BATCH", 40)
    monkeypatch.setattr(setup_search, "MERGE_EVERY", 2)
    rows = setup_search.reduce_setups(zipped, setup_rows, add_setup_rows, run=1)
    assert explorer_data(rows) == whole
    assert whole["distinct"] * 2 == whole["setups"] == 1212
