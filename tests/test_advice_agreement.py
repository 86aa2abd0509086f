"""The rulebooks' advice reads the same everywhere: CLI, report and library agree on data/.

Three doors to one computation (:mod:`strat_tools.stats.advice`): ``strat-tools advice --format
json``, the report's advice section (its HTML tables read back) and the library calls the
notebook makes. Counts must be equal; rates equal to the precision each door prints (JSON:
10 decimals; the report: 0.1 percentage point, the same rounding as its formatter).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import lxml.html
import pandas as pd
import pytest
from click.testing import CliRunner
from PIL import Image

from strat_tools.cli import main
from strat_tools.report import inputs as report_inputs
from strat_tools.report import page as report
from strat_tools.run.driver import read_games
from strat_tools.stats import advice, arrangement, tip_rates, tips
from strat_tools.tables.dataset import GameSet
from strat_tools.views import document, setup_area

SAMPLE = Path(__file__).resolve().parents[1] / "data"
COUNTS = (
    "setups",
    "distinct_setups",
    "followed",
    "n_follow",
    "distinct_follow",
    "wins_follow",
    "n_other",
    "distinct_other",
    "wins_other",
    "h2h_games",
    "h2h_wins",
)
RATES = (
    "share",
    "rate_follow",
    "low_follow",
    "high_follow",
    "cluster_ci_low_follow",
    "cluster_ci_high_follow",
    "rate_other",
    "low_other",
    "high_other",
    "cluster_ci_low_other",
    "cluster_ci_high_other",
    "h2h_rate",
    "h2h_low",
    "h2h_high",
)
REPORT_RATES_TABLE = {
    "followed": "followed",
    "n_follow": "follow n",
    "distinct_follow": "follow distinct",
    "n_other": "other n",
    "distinct_other": "other distinct",
    "share": "share",
    "rate_follow": "follow rate",
    "rate_other": "other rate",
    "follow ci": ("low_follow", "high_follow"),
    "follow cluster ci": ("cluster_ci_low_follow", "cluster_ci_high_follow"),
    "other ci": ("low_other", "high_other"),
    "other cluster ci": ("cluster_ci_low_other", "cluster_ci_high_other"),
}
"""tip_rates.tip_summary column → the header of the report's win-rate table, or header →
the (low, high) columns of its interval cells."""
REPORT_H2H_TABLE = {
    "h2h_games": "games",
    "h2h_wins": "follower wins",
    "h2h_rate": "win rate",
    "ci": ("h2h_low", "h2h_high"),
}
"""The same for the report's head-to-head table."""

pytestmark = pytest.mark.skipif(not SAMPLE.is_dir(), reason="the shipped sample data/ is absent")


def one_pixel_png() -> bytes:
    """A valid 1x1 PNG: the report's figures are not what this test reads."""
    buffer = io.BytesIO()
    Image.new("RGB", (1, 1)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def games() -> GameSet:
    """data/ read with setups only, as the CLI's advice command reads it."""
    return read_games([str(SAMPLE)], setups_only=True, run=1)


@pytest.fixture(scope="module")
def library(games: GameSet) -> pd.DataFrame:
    """What the notebook shows: tip_summary of setup_features, every variant."""
    return tip_rates.tip_summary(tips.setup_features(games))


def cli_json(*args: str) -> pd.DataFrame:
    """``strat-tools advice data/ ... --format json`` as a frame."""
    result = CliRunner().invoke(
        main, ["advice", str(SAMPLE), *args, "--format", "json", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.stderr
    return pd.DataFrame(json.loads(result.stdout))


@pytest.fixture(scope="module")
def report_html(games: GameSet) -> str:
    """The HTML report of data/ (figures stubbed out: only the tables are read back)."""
    png = one_pixel_png()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(document, "figure_png", lambda fig, dpi=100: png)
        return report.report_text(games, "html")


def html_table(text: str, caption_start: str) -> pd.DataFrame:
    """The report table whose caption starts with ``caption_start``, cells as strings."""
    tree = lxml.html.fromstring(text)
    found = [t for t in tree.iter("table") if t.findtext("caption", "").startswith(caption_start)]
    assert len(found) == 1, caption_start
    head = [th.text_content() for th in found[0].iter("th")]
    rows = [[td.text_content() for td in tr.iter("td")] for tr in found[0].iter("tr")]
    return pd.DataFrame([row for row in rows if row], columns=head)


def shown_as_report(value: float) -> str:
    """A rate as the report prints it ('50.8%'; '–' where there is none)."""
    return "–" if pd.isna(value) else f"{value * 100:.1f}%"


@pytest.mark.slow
def test_notebook_calls_and_the_report_data_agree(games: GameSet, library: pd.DataFrame) -> None:
    section = advice.advice_section_data(games)
    pd.testing.assert_frame_equal(section["summary"], library)
    entropy = arrangement.placement_entropy(games)
    pd.testing.assert_frame_equal(section["entropy"], entropy)
    # the report reads its own reduction (per-setup tip features, neighbour and placement
    # counts: what adds up over batches), not the GameSet
    inputs = report_inputs.report_inputs(games)
    summary = tip_rates.tip_summary_from_counts(inputs.tips, ["variant"])
    pd.testing.assert_frame_equal(summary, library)
    pd.testing.assert_frame_equal(inputs.entropy, entropy)
    pd.testing.assert_frame_equal(
        arrangement.adjacency_matrix(inputs.adjacency, "classic"), section["adjacency_matrix"]
    )


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_cli_json_equals_the_library(variant: str, library: pd.DataFrame) -> None:
    cli = cli_json("--variant", variant).set_index("tip")
    lib = library[library["variant"] == variant].set_index("tip")
    assert list(cli.index) == list(lib.index) and len(cli) >= 7
    for column in COUNTS:
        assert cli[column].astype(int).tolist() == lib[column].astype(int).tolist(), column
    for column in RATES:
        got = cli[column].astype(float).to_numpy()
        want = lib[column].astype(float).to_numpy()
        assert got == pytest.approx(want, abs=1e-9, nan_ok=True), column
    assert cli["verdict"].fillna("").tolist() == lib["verdict"].fillna("").tolist()


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_report_tables_equal_the_library(
    variant: str, library: pd.DataFrame, report_html: str
) -> None:
    """Both tip tables of the report (win rates, head to head), cell by cell."""
    lib = library[library["variant"] == variant].set_index("tip")
    for caption, columns in (
        (f"Tips followed and win rates, {variant},", REPORT_RATES_TABLE),
        (f"Head to head, {variant}:", REPORT_H2H_TABLE),
    ):
        table = html_table(report_html, caption).set_index("tip")
        assert sorted(table.index) == sorted(lib.index)
        want = lib.loc[table.index]
        for column, header in columns.items():
            if isinstance(header, tuple):
                low, high = header
                cells = [shown_interval(a, b) for a, b in zip(want[low], want[high], strict=True)]
                assert table[column].tolist() == cells, column
            elif column in COUNTS:
                got = [int(v.replace(",", "")) for v in table[header]]
                assert got == want[column].astype(int).tolist(), column
            else:
                assert table[header].tolist() == [shown_as_report(v) for v in want[column]], column
    rates = html_table(report_html, f"Tips followed and win rates, {variant},")
    assert rates["verdict"].tolist() == [
        str(v) if pd.notna(v) else "–" for v in lib.loc[rates["tip"], "verdict"]
    ]
    setups, distinct = int(lib["setups"].max()), int(lib["distinct_setups"].max())
    assert f"n = {setups:,} setups, {distinct:,} distinct" in report_html


def shown_interval(low: float, high: float) -> str:
    """An interval as the report prints it ('46.0–54.0%'; '–' where there is none)."""
    return "–" if pd.isna(low) or pd.isna(high) else f"{low * 100:.1f}–{high * 100:.1f}%"


@pytest.mark.slow
def test_entropy_agrees_in_cli_report_and_library(games: GameSet, report_html: str) -> None:
    lib = arrangement.placement_entropy(games, "classic")
    cli = cli_json("--view", "entropy")
    assert cli["piece"].tolist() == lib["piece"].tolist()
    assert cli["pieces"].tolist() == lib["pieces"].tolist()
    assert cli["entropy_bits"].to_numpy() == pytest.approx(lib["entropy_bits"].to_numpy(), 1e-9)
    table = html_table(report_html, "How predictable each piece's square is, classic")
    assert table["piece"].tolist() == [setup_area.piece_label(p) for p in lib["piece"]]
    assert table["entropy bits"].tolist() == [f"{v:.2f}" for v in lib["entropy_bits"]]
    assert [int(v.replace(",", "")) for v in table["pieces"]] == lib["pieces"].tolist()


@pytest.mark.slow
@pytest.mark.parametrize("view", ["tips", "periods", "adjacency", "entropy"])
@pytest.mark.parametrize("variant", ["classic", None])
def test_advice_counted_batch_by_batch_equals_the_whole(
    view: str, variant: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The CLI counts tips, neighbours and placements per batch and sums them: same table.
    from strat_tools.run.driver import read_games

    inputs = [str(SAMPLE), str(SAMPLE.parent / "tests" / "fixtures" / "gravon")]
    whole = advice.advice_table(read_games(inputs, setups_only=True, run=1), view, variant)
    monkeypatch.setattr("strat_tools.run.driver.REDUCE_BATCH", 60)
    streamed = advice.advice_table_of_paths(inputs, view, variant, run=1)
    assert len(whole) > 5
    pd.testing.assert_frame_equal(streamed, whole)


def test_the_default_table_is_the_compact_digest_of_the_library(library: pd.DataFrame) -> None:
    """``strat-tools advice`` prints one short row per tip (share followed, both win rates
    with their clustered intervals, the verdict), not the full record of ~33 fields."""
    from strat_tools.stats.intervals import VERDICTS, rate_label

    # At a fixed terminal width of 100 (a narrower one gets the same rows as blocks).
    result = CliRunner().invoke(
        main, ["advice", str(SAMPLE), "--jobs", "1"], env={"COLUMNS": "100"}
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "variant",
        "tip",
        "followed",
        "win_rate_following",
        "win_rate_rest",
        "verdict",
    ]
    classic = library[library["variant"] == "classic"].reset_index(drop=True)
    assert len(lines) == 1 + len(classic) and max(map(len, lines)) <= 100
    assert "cluster_ci" not in result.stdout and "h2h" not in result.stdout
    for line, (_, tip) in zip(lines[1:], classic.iterrows(), strict=True):
        assert line.split()[:3] == ["classic", tip["tip"], f"{tip['share'] * 100:.1f}%"]
        want = rate_label(
            tip["rate_follow"], tip["cluster_ci_low_follow"], tip["cluster_ci_high_follow"]
        )
        assert want in line
        verdict = tip["verdict"] if pd.notna(tip["verdict"]) else "–"
        assert line.endswith(verdict) and (verdict in VERDICTS or verdict == "–")
    assert "--format json" in result.stderr


def test_the_verdicts_the_readme_and_the_docs_name_are_the_code_s() -> None:
    """One set of words: the README and docs/advice.md name exactly the verdicts that
    :func:`~strat_tools.stats.intervals.gap_verdicts` gives."""
    import re

    from strat_tools.stats.intervals import VERDICTS

    root = SAMPLE.parent
    readme = " ".join((root / "README.md").read_text().split())
    four = f"`{VERDICTS[0]}`, `{VERDICTS[1]}`, `{VERDICTS[2]}` and `{VERDICTS[3]}`"
    assert f"the four verdicts, {four}" in readme
    docs = " ".join((root / "docs" / "advice.md").read_text().split())
    for word in VERDICTS:
        assert f"`{word}`" in docs
    named = set(re.findall(r"verdicts? `([a-z ]+)`", readme + docs))
    assert named <= set(VERDICTS), named - set(VERDICTS)


def test_every_page_with_both_spy_general_figures_says_how_they_differ() -> None:
    """The tip counts a neighbour in front or behind, ``SG`` only side by side: a page that
    gives the figures of both says so (45.15)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    pages = {
        p.name: p.read_text() for p in [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    }
    notebook = json.loads((root / "notebooks" / "setup_analysis.ipynb").read_text())
    pages["setup_analysis.ipynb"] = "\n".join("".join(c["source"]) for c in notebook["cells"])
    both = [name for name, text in pages.items() if "spy_next_to_general" in text and "SG" in text]
    assert {"README.md", "advice.md", "setup_analysis.ipynb"} <= set(both)
    for name in both:
        text = pages[name].replace("\n", " ")
        assert "in front of or behind the general" in text, name
