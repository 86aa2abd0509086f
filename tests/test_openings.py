"""Opening statistics (``strat_tools.stats.openings``, ``strat-tools openings``).

The judge of every count is an independent one: the first moves read straight from the raw
XML with the standard library (no strat-tools reader, no replay), on the shipped sample and
on one real archive month.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.errors import OptionError
from strat_tools.run.driver import read_games
from strat_tools.setups.identity import setup_array
from strat_tools.setups.patterns import Pattern
from strat_tools.stats.frames import game_frame
from strat_tools.stats.openings import Openings, openings, openings_of_paths

DATA = Path(__file__).resolve().parent.parent / "data"
FIELD = (
    "EEFFJBMKIHEEGDDBBHCDFFDGDBLGDDGBIIJBHHDEAA__AA__AAAA__AA__AA"
    "PRTXSPPVTPNSWSUPRNPNQVSPONURUNYQRQTQTNPQ"
)


def raw_first_lines(zip_path: Path, depth: int, variant: str = "classic") -> Counter[str]:
    """Lines of ``depth`` plies of the ``variant`` games in a zip, from the XML alone."""
    found: Counter[str] = Counter()
    with zipfile.ZipFile(zip_path) as archive:
        for name in archive.namelist():
            if not name.endswith(".xml"):
                continue
            game = ET.fromstring(archive.read(name)).find("game")
            if game is None or game.get("type") != variant:
                continue
            moves = game.findall("move")[:depth]
            if len(moves) == depth:
                found[" ".join(f"{m.get('source')}-{m.get('target')}" for m in moves)] += 1
    return found


def counted(table: Openings) -> dict[str, int]:
    lines = table.lines
    return dict(zip(lines["line"], lines["games"].astype(int), strict=True))


def game_xml(moves: list[tuple[str, str]], result: str = '<result type="3" winner="2"/>') -> str:
    body = "".join(
        f'  <move id="{i}" source="{s}" target="{t}"/>\n' for i, (s, t) in enumerate(moves, 1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<stratego>\n <game type="classic">\n'
        f'  <field content="{FIELD}"/>\n{body}'
        '  <player id="1">Player 1</player>\n  <player id="2">Player 2</player>\n'
        f"  {result}\n </game>\n</stratego>\n"
    )


@pytest.fixture(scope="module")
def sample_games():  # type: ignore[no-untyped-def]
    return read_games(str(DATA), run=1)


def test_depth_one_equals_the_raw_first_moves_of_the_sample(sample_games) -> None:  # type: ignore[no-untyped-def]
    expected = raw_first_lines(DATA / "strados2026-10.zip", 1)
    found = openings(sample_games, depth=1, top=0)
    assert counted(found) == dict(expected)
    assert found.games == sum(expected.values())


def test_depth_two_equals_the_raw_lines_and_the_tree_adds_up(sample_games) -> None:  # type: ignore[no-untyped-def]
    found = openings(sample_games, depth=2, top=0)
    assert counted(found) == dict(raw_first_lines(DATA / "strados2026-10.zip", 2))
    tree = found.tree()
    assert tree["games"] == found.games
    for first in tree["children"]:
        assert first["plies"] == 1 and " " not in first["line"]
        assert sum(c["games"] for c in first["children"]) <= first["games"]
        assert all(c["line"].startswith(first["line"] + " ") for c in first["children"])
        for node in (first, *first["children"]):
            assert node["red_wins"] + node["blue_wins"] + node["draws"] == node["games"]
    assert [c["games"] for c in tree["children"]] == sorted(
        (c["games"] for c in tree["children"]), reverse=True
    )


def test_a_game_shorter_than_the_depth_counts_in_the_shorter_lines_only(tmp_path: Path) -> None:
    (tmp_path / "classic-2014.4-1.xml").write_text(game_xml([("I4", "I5")]))
    (tmp_path / "classic-2014.4-2.xml").write_text(game_xml([("I4", "I5"), ("A7", "A6")]))
    found = openings(read_games(str(tmp_path), run=1), depth=2, top=0)
    rows = found.table.set_index("line")
    assert rows.loc["I4-I5", "games"] == 2
    assert rows.loc["I4-I5 A7-A6", "games"] == 1
    assert rows.loc["I4-I5", "blue_wins"] == 2 and rows.loc["I4-I5", "win_rate"] == 0.0
    assert list(found.lines["line"]) == ["I4-I5 A7-A6"]


def test_clustered_interval_is_wider_when_one_setup_repeats(tmp_path: Path) -> None:
    # The same setups and opening six times: one cluster, so the clustered interval is
    # that of one observation, the plain one that of six.
    for number in range(1, 7):
        winner = 1 if number % 3 else 2
        text = game_xml([("I4", "I5")], f'<result type="3" winner="{winner}"/>')
        (tmp_path / f"classic-2014.4-{number}.xml").write_text(text)
    row = openings(read_games(str(tmp_path), run=1), depth=1).lines.iloc[0]
    assert (row["games"], row["red_wins"], row["blue_wins"]) == (6, 4, 2)
    assert row["distinct_setups"] == 1
    assert row["cluster_ci_low"] < row["ci_low"] and row["cluster_ci_high"] > row["ci_high"]


def test_side_and_pattern_ask_that_side_s_setup(sample_games) -> None:  # type: ignore[no-untyped-def]
    pattern = "........../........../........../F........."
    red = openings(sample_games, depth=1, top=0, side="red", pattern=pattern, mirror=True)
    blue = openings(sample_games, depth=1, top=0, side="blue", pattern=pattern, mirror=True)

    found = setup_array(sample_games.setups)
    hit = Pattern.parse(pattern).match(found.codes, mirror=True)
    classic = set(game_frame(sample_games, variant="classic")["game_id"])
    for side, result in (("red", red), ("blue", blue)):
        ids = {g for g, s, h in zip(found.game_id, found.side, hit, strict=True) if h and s == side}
        assert result.games == len(ids & classic)
    assert set(blue.table["side"]) == {"blue"}


def test_bad_options_are_option_errors(sample_games) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(OptionError, match="depth"):
        openings(sample_games, depth=0)
    with pytest.raises(OptionError, match="side"):
        openings(sample_games, side="green")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="one variant"):
        openings(sample_games, variant=["classic", "barrage"])  # type: ignore[arg-type]


def test_cli_csv_and_json_on_the_sample() -> None:
    runner = CliRunner()
    done = runner.invoke(
        main, ["openings", str(DATA), "--depth", "1", "--top", "0", "--format", "csv"]
    )
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert list(rows[0])[:5] == ["line", "plies", "games", "red_wins", "blue_wins"]
    assert "draws" in rows[0] and "win_rate" in rows[0] and "cluster_ci_low" in rows[0]
    got = {row["line"]: int(row["games"]) for row in rows}
    assert got == dict(raw_first_lines(DATA / "strados2026-10.zip", 1))
    done = runner.invoke(main, ["openings", str(DATA), "--top", "3", "--format", "json"])
    assert done.exit_code == 0, done.output
    tree = json.loads(done.stdout)
    assert tree["line"] == "" and tree["children"][0]["children"][0]["plies"] == 2
    assert sum(len(c["children"]) for c in tree["children"]) == 3


def test_cli_text_and_usage_errors() -> None:
    runner = CliRunner()
    done = runner.invoke(main, ["openings", str(DATA), "--top", "2"])
    assert done.exit_code == 0, done.output
    assert "red win %" in done.stdout and "clustered" in done.stdout
    for args, needle in (
        (["--depth", "0"], "--depth"),
        (["--pattern", "FB"], "4 rows"),
        (["--variant", "classic,barrage"], "one variant"),
        (["--mirror"], "--mirror"),
        (["--side", "green"], "--side"),
    ):
        done = runner.invoke(main, ["openings", str(DATA), *args])
        assert done.exit_code == 2, (args, done.output)
        assert needle in done.output and "Traceback" not in done.output
    done = runner.invoke(main, ["openings", "no/such/folder"])
    assert done.exit_code == 2 and "Traceback" not in done.output


@pytest.mark.slow
def test_an_exported_folder_gives_the_records_answer(tmp_path: Path, sample_games) -> None:  # type: ignore[no-untyped-def]
    sample_games.export(str(tmp_path / "out"))
    from_records = openings_of_paths([str(DATA)], depth=2, top=0, run=1)
    from_folder = openings_of_paths([str(tmp_path / "out")], depth=2, top=0, run=1)
    assert from_records.table.equals(from_folder.table)
    assert from_records.table.equals(openings(sample_games, depth=2, top=0).table)


@pytest.mark.archive
@pytest.mark.slow
def test_depth_one_equals_the_raw_first_moves_of_an_archive_month(gravon_dir: Path) -> None:
    month = gravon_dir / "strados2014-5.zip"
    expected = raw_first_lines(month, 1)
    found = openings_of_paths([str(month)], depth=1, top=0, run=1)
    assert counted(found) == dict(expected)
    assert found.games == sum(expected.values()) > 500
