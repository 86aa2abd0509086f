"""Repeated setups on the real archive, against an independent count from the raw files.

The independent count reads every zip with :mod:`zipfile` and two regular expressions (the
game type and ``field/@content``), turns each side's 40 squares into its owner's view with
plain string slicing (red ``content[0:40]``; blue ``content[60:100]`` reversed, its letters
shifted back by 12), and counts with :class:`collections.Counter`: nothing from strat_tools.
Also hand-made GameSets where the answer is known.
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import shared_value
from strat_tools.run.driver import read_games
from strat_tools.stats.repeats import (
    common_setups,
    search_setups,
    setup_counts,
    setup_outcomes,
)

TYPE = re.compile(rb'<game type="([a-z ]+)"')
FIELD = re.compile(rb'<field content="([A-Y_]{100})"')
WINNER = re.compile(rb'<result type="\d+" winner="(\d)"')


def blue_to_red(letters: str) -> str:
    return "".join(chr(ord(ch) - 12) if "N" <= ch <= "Y" else ch for ch in letters)


def mirrored(setup: str) -> str:
    return "".join(setup[row * 10 : row * 10 + 10][::-1] for row in range(4))


@pytest.fixture(scope="module")
def raw_classic(
    gravon_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> list[tuple[str, str]]:
    """(owner-view setup in red letters, result for its owner) of every classic setup, read
    once per run."""
    return shared_value(tmp_path_factory, "raw-classic", lambda: read_raw_classic(gravon_dir))


def read_raw_classic(gravon_dir: Path) -> list[tuple[str, str]]:
    """The raw files' classic setups and results, by regular expression (no reader)."""
    found = []
    for path in sorted(gravon_dir.glob("*.zip")):
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                data = archive.read(name)
                kind, field = TYPE.search(data), FIELD.search(data)
                if kind is None or field is None or kind[1] != b"classic":
                    continue
                content = field[1].decode()
                won = WINNER.search(data)
                winner = won[1].decode() if won else ""
                for side, setup in (("1", content[:40]), ("2", blue_to_red(content[60:][::-1]))):
                    result = "draw" if winner == "3" else "win" if winner == side else "loss"
                    found.append((setup, result if winner in "123" and winner else ""))
    return found


@pytest.fixture(scope="module")
def archive_outcomes(gravon_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return shared_value(
        tmp_path_factory,
        "archive-outcomes",
        lambda: setup_outcomes(read_games([str(gravon_dir)], setups_only=True, run=1)),
    )


@pytest.mark.slow
def test_setup_counts_match_the_raw_files(
    raw_classic: list[tuple[str, str]], archive_outcomes: Any
) -> None:
    setups = Counter(s for s, _ in raw_classic)
    canonical = Counter(min(s, mirrored(s)) for s, _ in raw_classic)
    counts = setup_counts(archive_outcomes).set_index("variant").loc["classic"]
    assert counts["setups"] == len(raw_classic) == 24_798
    assert counts["distinct_setups"] == len(setups)
    assert counts["mirror_distinct_setups"] == len(canonical)
    assert counts["top_count"] == setups.most_common(1)[0][1]
    assert counts["repeated"] == sum(n for n in setups.values() if n > 1)


def test_the_most_played_setups_match_the_raw_files(
    raw_classic: list[tuple[str, str]], archive_outcomes: Any
) -> None:
    setups = Counter(s for s, _ in raw_classic)
    table = common_setups(archive_outcomes, top=5)
    assert table["setup"].tolist()[:1] == [setups.most_common(1)[0][0]]
    assert table["count"].tolist() == [n for _, n in setups.most_common(5)]
    top = table.iloc[0]
    results = Counter(r for s, r in raw_classic if s == top["setup"])
    assert (top["wins"], top["draws"], top["losses"]) == (
        results["win"],
        results["draw"],
        results["loss"],
    )
    mirror_table = common_setups(archive_outcomes, top=1, mirror=True)
    canonical = Counter(min(s, mirrored(s)) for s, _ in raw_classic)
    assert mirror_table.at[0, "count"] == canonical.most_common(1)[0][1]


PATTERNS = [
    # (pattern, mirror, the same test on the owner-view string: index 0 = back row, col 1)
    ("........../........../........../F.........", False, lambda s: s[0] == "M"),
    ("........../........../........../F.........", True, lambda s: "M" in (s[0], s[9])),
    (
        "........../........../B........./FB........",
        False,
        lambda s: s[0] == "M" and s[1] == "B" and s[10] == "B",
    ),
    ("!B!B!B!B!B!B!B!B!B!B/........../........../..........", False, lambda s: "B" not in s[30:40]),
    ("[2X]........./........../........../..........", False, lambda s: s[30] in "DL"),
    (
        ". . . . . . . . . . / . . . . . . . . . . / . . . . . . . . . . / . . . . . . flag . . .",
        False,
        lambda s: s[6] == "M",
    ),
]


@pytest.mark.parametrize(("pattern", "mirror", "test"), PATTERNS)
def test_pattern_matches_match_the_raw_files(
    raw_classic: list[tuple[str, str]], archive_outcomes: Any, pattern: str, mirror: bool, test: Any
) -> None:
    found = search_setups(archive_outcomes, pattern, mirror=mirror)
    expected = [r for s, r in raw_classic if test(s)]
    matching = found.summary.set_index("match").loc["matching"]
    assert matching["count"] == len(expected) > 0
    assert matching["wins"] == expected.count("win")
    assert matching["losses"] == expected.count("loss")
    rest = found.summary.set_index("match").loc["rest"]
    assert rest["count"] == len(raw_classic) - len(expected)


@pytest.mark.slow
def test_the_reports_streamed_win_rates_count_each_setup_once(
    gravon_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches hand their setups over as categoricals (the report compacts its frames); the
    combined count must not cast one batch's setups into another's categories."""
    from strat_tools import stats
    from strat_tools.report.inputs import report_inputs_of_paths

    month = [str(gravon_dir / "strados2014-5.zip")]
    monkeypatch.setattr("strat_tools.run.driver.REDUCE_BATCH", 50)  # 21 batches: folded twice
    streamed = report_inputs_of_paths(month, setups_only=True, run=1).stats
    whole = read_games(month, setups_only=True, run=1)
    for feature in ("flag_corner", "flag_enclosed"):
        expected = stats.compute("win-rate", whole, by=["variant"], feature=feature)
        got = streamed[f"win-rate:{feature}"]
        assert got["distinct_setups"].tolist() == expected["distinct_setups"].tolist()
        assert got[["cluster_ci_low", "cluster_ci_high"]].to_numpy() == pytest.approx(
            expected[["cluster_ci_low", "cluster_ci_high"]].to_numpy()
        )
