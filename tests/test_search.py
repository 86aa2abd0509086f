"""``strat-tools search``: anywhere patterns, sides, both setups, listings, bad patterns.

The counts are checked against an independent reading of the raw records: the field
strings of each XML file, read with zipfile and a regular expression.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from peak_memory import PEAK_MIB_CODE

from strat_tools.cli import main

SAMPLE = "data/strados2026-10.zip"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--jobs", "1"])
    return result.exit_code, result.stdout, result.stderr


def raw_setups(archive: str | Path) -> list[tuple[str, str, list[str]]]:
    """(game id, side, its four rows as field letters) of every classic game with a field."""
    found = []
    with zipfile.ZipFile(archive) as zipped:
        for name in zipped.namelist():
            text = zipped.read(name).decode("utf-8", "replace")
            kind = re.search(r'<game type="([^"]+)"', text)
            field = re.search(r'<field content="([^"]{100})"', text)
            if not kind or kind[1] != "classic" or not field:
                continue
            board = field[1]
            game_id = Path(name).stem
            found.append((game_id, "red", [board[r * 10 : r * 10 + 10] for r in range(4)]))
            found.append((game_id, "blue", [board[r * 10 : r * 10 + 10] for r in range(6, 10)]))
    return found


def spy_beside_general(side: str, rows: list[str]) -> bool:
    """A spy and the general side by side in a row, either way round (the setup or its
    mirror image holds "SG"): red's letters C and K, blue's O and W."""
    spy, general = ("C", "K") if side == "red" else ("O", "W")
    return any(spy + general in row or general + spy in row for row in rows)


def test_spy_next_to_the_general_anywhere_counts_what_the_records_hold() -> None:
    expected = [(g, s) for g, s, rows in raw_setups(SAMPLE) if spy_beside_general(s, rows)]
    code, out, err = run("search", SAMPLE, "--anywhere", "SG", "--mirror", "--format", "json")
    assert code == 0, err
    found = json.loads(out)
    assert found["anywhere"] and found["mirror"] and found["pattern"] == "S 9"
    assert found["matching"]["count"] == len(expected) > 10
    assert sorted((s["game_id"], s["side"]) for s in found["setups"]) == sorted(expected)
    # Without --mirror only "spy, then the general" as the owner sees it: fewer, and the
    # ones matched only as a mirror image are exactly the rest.
    code, out, err = run("search", SAMPLE, "--anywhere", "SG", "--format", "json")
    plain = json.loads(out)
    assert 0 < plain["matching"]["count"] < len(expected)
    through_mirror = [s for s in found["setups"] if s["mirror"]]
    assert len(through_mirror) + plain["matching"]["count"] == len(expected)


def test_the_listing_names_the_side_and_the_mirror_image() -> None:
    code, out, err = run("search", SAMPLE, "--anywhere", "SG", "--mirror", "--list-games")
    assert code == 0, err
    lines = out.split("z (matching against the rest): ")[1].splitlines()[1:]
    fields = [line.split("\t") for line in lines]
    assert {f[1] for f in fields} == {"red", "blue"}
    assert {f[2] for f in fields} == {"as drawn", "mirror image"}
    assert out.startswith("pattern anywhere (or its mirror, front row first):\n    S 9\n")


def test_side_and_both_pick_the_setups_they_name() -> None:
    anywhere = ["--anywhere", "B/F", "--mirror", "--format", "json"]
    every = json.loads(run("search", SAMPLE, *anywhere)[1])
    red = json.loads(run("search", SAMPLE, *anywhere, "--side", "red")[1])
    blue = json.loads(run("search", SAMPLE, *anywhere, "--side", "blue")[1])
    both = json.loads(run("search", SAMPLE, *anywhere, "--both")[1])
    assert red["matching"]["count"] + blue["matching"]["count"] == every["matching"]["count"]
    assert {s["side"] for s in red["setups"]} == {"red"}
    classic_games = len({g for g, _, _ in raw_setups(SAMPLE)})
    assert red["matching"]["count"] + red["rest"]["count"] == classic_games
    # --both: the games whose two setups both match, each game's two setups.
    per_game: dict[str, int] = {}
    for s in every["setups"]:
        per_game[s["game_id"]] = per_game.get(s["game_id"], 0) + 1
    twice = sorted(g for g, n in per_game.items() if n == 2)
    assert sorted(set(both["games"])) == twice and both["matching"]["count"] == 2 * len(twice)
    assert both["matching"]["wins"] == both["matching"]["losses"]  # one of each per game


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--anywhere", "[!F!B]"], "'!' may only open a set"),
        (["--pattern", "[!F!B]"], "a pattern has 4 rows"),
        (["--pattern", "........../........../........../[!F!B]........."], "only open a set"),
        (["--anywhere", "S[G"], "not closed with ]"),
        (["--anywhere", "SG/B"], "equally wide"),
        (
            ["--anywhere", "SG", "--pattern", "F........./........../........../.........."],
            "one of",
        ),
        ([], "give one of --pattern"),
        (["--anywhere", "SG", "--side", "green"], "'green' is not one of"),
    ],
)
def test_bad_patterns_are_usage_errors_naming_the_problem(args: list[str], message: str) -> None:
    code, out, err = run("search", SAMPLE, *args)
    assert code == 2 and message in err and "Traceback" not in err and out == ""


@pytest.mark.parametrize("command", ["filter", "stats"])
def test_the_game_filters_take_the_same_patterns(command: str) -> None:
    code, _, err = run(command, SAMPLE, "--anywhere", "[!F!B]")
    assert code == 2 and "'--anywhere'" in err and "only open a set" in err
    code, _, err = run(command, SAMPLE, "--pattern-side", "both")
    assert code == 2 and "needs --pattern or --anywhere" in err


def test_the_filter_keeps_the_games_whose_named_setups_match() -> None:
    raw = raw_setups(SAMPLE)
    red = sorted({g for g, s, rows in raw if s == "red" and spy_beside_general(s, rows)})
    classic = ["--variant", "classic"]
    code, out, err = run("filter", SAMPLE, *classic, "--anywhere", "SG", "--pattern-side", "red")
    assert code == 0, err  # without --mirror: spy, then general
    listed = out.split()
    assert set(listed) <= set(red) and 0 < len(listed) < len(red)
    code, out, err = run(
        "filter", SAMPLE, *classic, "--anywhere", "SG", "--mirror", "--pattern-side", "red"
    )
    assert sorted(out.split()) == red
    code, out, err = run("filter", SAMPLE, *classic, "--anywhere", "S", "--pattern-side", "both")
    assert len(out.split()) == len({g for g, _, _ in raw})  # every classic game has two spies


QUESTIONS = [
    ["search", "--anywhere", "SG", "--mirror", "--list-games"],
    ["search", "--pattern", "........../........../........../[!FB]F........", "--format", "json"],
    ["search", "--anywhere", "B/F", "--side", "blue", "--both", "--format", "csv"],
    ["search", "--anywhere", "BFB", "--variant", "barrage", "--period", "2026-10:"],
    ["setups", "--top", "5", "--format", "json"],
    ["setups", "--mirror", "--top", "3", "--anywhere", "SG", "--pattern-side", "red"],
]


def same_answers(records: str, folder: str, questions: list[list[str]]) -> None:
    """Each question has the same stdout on the records and on their export."""
    for question in questions:
        on_records = run(question[0], records, *question[1:])
        on_folder = run(question[0], folder, *question[1:])
        assert on_records[0] == on_folder[0] == 0, (question, on_records[2], on_folder[2])
        assert on_folder[1] == on_records[1], question


@pytest.mark.slow  # over 2 s: the full tier (the quick one keeps to 3 minutes)
def test_an_exported_folder_answers_as_its_records_do(tmp_path: Path) -> None:
    from strat_tools.run.driver import export_dataset
    from strat_tools.stats.setup_search import folder_outcomes

    out = tmp_path / "out"
    export_dataset(["data/"], str(out), run=1)
    assert folder_outcomes(str(out)) is not None  # the games table answers alone
    same_answers("data/", str(out), QUESTIONS)


@pytest.mark.archive
@pytest.mark.slow
def test_an_exported_month_answers_as_its_zip_does(gravon_dir: Path, tmp_path: Path) -> None:
    from strat_tools.run.driver import export_dataset

    month = str(gravon_dir / "strados2014-5.zip")
    out = tmp_path / "out"
    export_dataset([month], str(out), run=1)
    # A pattern filter too (QUESTIONS[5]): the month's classicfree games have no setup
    # strings, which once made the folder's pattern filter refuse (a traceback). Not
    # QUESTIONS[3]: its months (2026) are none of this month's.
    same_answers(month, str(out), QUESTIONS[:3] + QUESTIONS[4:])


def test_a_folder_the_games_table_cannot_answer_alone_is_read_whole(tmp_path: Path) -> None:
    """A CSV export is not read through the games table alone, and answers the same."""
    from strat_tools.run.driver import export_dataset
    from strat_tools.stats.setup_search import folder_outcomes

    out = tmp_path / "out"
    export_dataset(["data/"], str(out), run=1, format="csv")
    assert folder_outcomes(str(out)) is None  # CSV: read whole
    same_answers("data/", str(out), QUESTIONS[:1])


# --- memory does not grow with the games (issue 39 point 8) ----------------------------------

SAMPLE_ZIP = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"
MEMORY_RUNNER = PEAK_MIB_CODE + (
    "import sys\n"
    "from strat_tools.cli import main\n"
    "try:\n"
    "    main(sys.argv[2:], standalone_mode=False)\n"
    "finally:\n"
    "    open(sys.argv[1], 'w').write(str(peak_mib()))\n"
)


def peak_of(args: list[str], tmp_path: Path) -> float:
    """The peak memory (MiB, the process's own) of one command in a fresh process."""
    out = tmp_path / "peak.txt"
    subprocess.run(
        [sys.executable, "-c", MEMORY_RUNNER, str(out), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=True,
        timeout=600,
    )
    return float(out.read_text())


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["search", "--pattern", "........../........../........../F........."],
        ["setups"],
        ["explore", "-o", "{out}"],
    ],
    ids=lambda command: command[0],
)
def test_memory_does_not_grow_with_the_number_of_games(command: list[str], tmp_path: Path) -> None:
    """``search``, ``setups`` and ``explore`` on records keep counts per distinct setup
    (``explore``: and what its page carries of each game), never a batch's tables: the
    sample named 4 times (1,600 games) and 16 times (6,400 games) peak within 16 MiB of
    each other, where each game cost about 24 KB (110 MiB more). Four copies, not one: a
    process's first few batches warm its allocator (about 20 MiB), whatever the command
    keeps."""
    args = [a.format(out=tmp_path / "page.html") for a in command]
    few, many = (
        peak_of([args[0], *[str(SAMPLE_ZIP)] * copies, *args[1:], "--jobs", "1"], tmp_path)
        for copies in (4, 16)
    )
    assert many - few < 16, (few, many)


def held_bytes(args: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """The pickled size of what one in-process run of ``args`` keeps of its setups: the
    largest answer of the setup reader (:func:`~strat_tools.stats.setup_search.reduce_setups`,
    or ``read_outcomes`` that reads every setup's row), a stand-in for its memory that
    does not depend on the allocator."""
    import pickle

    from strat_tools.stats import setup_search

    held: list[int] = []

    def keeping(reader: Any) -> Any:
        def read(*args: Any, **kwargs: Any) -> Any:
            kept = reader(*args, **kwargs)
            held.append(len(pickle.dumps(kept)))
            return kept

        return read

    for name in ("reduce_setups", "read_outcomes"):
        monkeypatch.setattr(setup_search, name, keeping(getattr(setup_search, name)))
    result = CliRunner().invoke(main, [*args, "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return max(held)


def test_search_keeps_counts_per_distinct_setup_not_per_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``search`` on records keeps a row per distinct setup (issue 39 point 8): the sample
    named twice (800 games, the same 606 distinct setups) keeps what it kept once. It used
    to keep every setup's row (its codes, game, side, result, fingerprints): 108 KB more,
    pickled, for the 400 more games."""
    pattern = ["--pattern", "........../........../........../F........."]
    once = held_bytes(["search", str(SAMPLE_ZIP), *pattern], monkeypatch)
    twice = held_bytes(["search", *[str(SAMPLE_ZIP)] * 2, *pattern], monkeypatch)
    assert twice - once < 1_000, (once, twice)


def test_explore_keeps_what_the_page_carries_per_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``explore`` keeps each distinct setup once and, per game, what the page lists of it
    (its id and a packed word a setup: the page links every game), about 31 bytes a game
    pickled; it used to keep every setup's row, about 270 bytes a game."""
    page = ["-o", str(tmp_path / "page.html")]
    once = held_bytes(["explore", str(SAMPLE_ZIP), *page], monkeypatch)
    twice = held_bytes(["explore", *[str(SAMPLE_ZIP)] * 2, *page], monkeypatch)
    assert (twice - once) / 400 < 48, (once, twice)


@pytest.mark.slow  # over 2 s: the sample read twice
def test_search_read_in_many_small_batches_answers_as_read_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The streamed search (each batch counted, the counts added every two batches) finds
    what the whole read finds, listing included, on the sample named twice: every setup
    repeats across batches, the second copy's games renamed ``#2``."""
    from functools import partial

    from strat_tools.run import driver
    from strat_tools.run.driver import read_games
    from strat_tools.setups.patterns import parse_pattern
    from strat_tools.stats import setup_search
    from strat_tools.stats.match_counts import add_match_counts
    from strat_tools.stats.repeats import finish_search, search_counts, search_setups

    zipped = [str(SAMPLE_ZIP)] * 2
    pattern = parse_pattern("SG", anywhere=True)
    options = {"mirror": True, "side": "blue"}
    whole = search_setups(read_games(zipped, setups_only=True, run=1), pattern, **options)
    monkeypatch.setattr(driver, "TABLE_BATCH", 40)
    monkeypatch.setattr(setup_search, "MERGE_EVERY", 2)
    count = partial(search_counts, pattern=pattern, **options)
    counts = setup_search.reduce_setups(zipped, count, add_match_counts, run=1)
    streamed = finish_search(counts, pattern, **options)
    assert streamed.summary.equals(whole.summary) and streamed.z == whole.z
    assert streamed.listing() == whole.listing() and len(whole.listing()) > 10
