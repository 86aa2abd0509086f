"""The report: its numbers, its self-containedness, its atomic writing, and a real browser."""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html
import pandas as pd
import pytest
from matplotlib.figure import Figure
from PIL import Image

from strat_tools import stats
from strat_tools.core.checks import check_record
from strat_tools.core.records import GameRecord
from strat_tools.formats.readers import parse_record
from strat_tools.formats.xml_writer import record_to_xml
from strat_tools.generate.games import generate_games
from strat_tools.report import advice as report_advice
from strat_tools.report import inputs as report_inputs
from strat_tools.report import page as report
from strat_tools.run.driver import read_games
from strat_tools.stats import arrangement, tip_rates, tips
from strat_tools.tables.build import tables_for_records
from strat_tools.tables.dataset import GameSet
from strat_tools.views import charts, document, plots, setup_area

IMAGE_SOURCE = re.compile(r'<img [^>]*src="([^"]*)"')
DATA_PNG = "data:image/png;base64,"


def broken_record() -> GameRecord:
    """A generated game whose third move starts from an empty middle square."""
    record = next(generate_games(1, seed=5, year=2014, month=3, first_number=900))
    xml = record_to_xml(record).decode()
    xml, replaced = re.subn(
        r'<move id="3" source="[^"]+" target="[^"]+"/>',
        '<move id="3" source="E5" target="E6"/>',
        xml,
    )
    assert replaced == 1
    broken = parse_record(xml.encode(), "classic-2014.2-900.xml")
    check_record(broken)
    return broken


@pytest.fixture(scope="module")
def gameset() -> GameSet:
    """26 generated games in two periods and two variants, plus one invalid game."""
    records = [
        *generate_games(20, variant="classic", seed=1, year=2013, month=10),
        *generate_games(6, variant="barrage", seed=2, year=2014, month=3, first_number=50),
        broken_record(),
    ]
    return GameSet(tables_for_records(records))


@pytest.fixture(scope="module")
def html_text(gameset: GameSet) -> str:
    """The HTML report of the fixture games."""
    return report.report_text(gameset, "html", title="Test games")


def read_table(text: str, caption_start: str) -> pd.DataFrame:
    """The report table whose caption starts with ``caption_start``, as strings."""
    tree = lxml.html.fromstring(text)
    found = [t for t in tree.iter("table") if t.findtext("caption", "").startswith(caption_start)]
    assert len(found) == 1, caption_start
    markup = lxml.html.tostring(found[0], encoding="unicode")
    return pd.read_html(io.StringIO(markup), flavor="lxml")[0].astype(str)


def number(text: object) -> float:
    """A formatted cell back to a number: '1,234' → 1234, '12.5%' → 0.125."""
    clean = str(text).replace(",", "").replace("\u2212", "-")
    return float(clean[:-1]) / 100 if clean.endswith("%") else float(clean)


@pytest.mark.slow
def test_every_section_is_there_in_reading_order(html_text: str) -> None:
    headings = re.findall(r"<h2>([^<]+)</h2>", html_text)
    assert headings == [
        "The corpus",
        "Endings and game lengths",
        "Flag and bomb placement",
        "All pieces",
        "Scout usage",
        "Repeated setups",
        "Win rates",
        "What the rulebooks advise, tested",
        "What a piece is worth, and who is winning",
    ]
    assert "No piece values here: the piece values need what each side knew" in html_text
    assert html_text.startswith("<!DOCTYPE html>") and "<title>Test games</title>" in html_text


def captions(text: str) -> list[str]:
    """Every figure caption of an HTML report."""
    return [html.unescape(c) for c in re.findall(r"<figcaption>([^<]+)</figcaption>", text)]


def test_difference_maps_name_the_test_the_level_and_the_samples(html_text: str) -> None:
    maps = [c for c in captions(html_text) if "winners minus losers" in c]
    assert [c.split(":")[0] for c in maps] == ["Flag", "Bomb"]
    for caption in maps:
        assert "two-proportion z-test per square, Holm-corrected over the 40 squares" in caption
        assert "family-wise level 5%" in caption
        assert re.search(r"n = \d+ setups of winners, \d+ setups of losers", caption)
    assert "Holm's correction for testing 40 squares at once" in html.unescape(html_text)


def test_no_repeated_setup_means_no_most_played_boards_but_a_sentence(html_text: str) -> None:
    text = html.unescape(html_text)
    assert "no setup was played twice, so there is no list of most played setups" in text
    assert text.count("played twice") == 1  # said once, not twice
    assert not [c for c in captions(html_text) if "most played" in c]
    assert "1 setups" not in html_text and "1 times" not in html_text


def test_sections_come_from_the_registry_in_its_order(
    gameset: GameSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(document, "figure_png", FigureSpy(plots.setup_heatmap).figure_png)
    sections = report.build_sections(gameset)  # once: the pictures are not looked at here
    anchors = [s.anchor for s in sections]
    left_out = ("statistics",)
    registered = [e.anchor for e in report.REPORT_SECTIONS if e.anchor not in left_out]
    assert anchors == registered  # no statistic asks for a section here
    titles = {e.anchor: e.title for e in report.REPORT_SECTIONS}
    assert [titles[a] for a in anchors] == [s.title for s in sections]


def test_report_is_self_contained(html_text: str) -> None:
    sources = IMAGE_SOURCE.findall(html_text)
    # flag, bomb, flag per variant, the two winners-minus-losers maps, all pieces, scouts,
    # battles, the win-rate chart, the neighbours; no most-played boards (no setup repeats)
    assert len(sources) == 11
    assert all(src.startswith(DATA_PNG) for src in sources)
    for tag in ("<script", "<link", "<iframe", "@import", "url("):
        assert tag not in html_text
    assert not re.search(r"(src|href)=\"(?!data:|#)", html_text)


def test_every_image_is_a_valid_png(html_text: str) -> None:
    for src in IMAGE_SOURCE.findall(html_text):
        png = base64.b64decode(src[len(DATA_PNG) :], validate=True)
        with Image.open(io.BytesIO(png)) as image:
            image.verify()
        with Image.open(io.BytesIO(png)) as image:
            assert image.format == "PNG" and image.width > 300 and image.height > 200


def test_corpus_tables_account_for_every_game(html_text: str, gameset: GameSet) -> None:
    periods = read_table(html_text, "Games per period and variant")
    assert dict(zip(periods.iloc[:, 0], periods["all"].map(number), strict=True)) == {
        "2013-10": 20,
        "2014-03": 7,
    }
    validity = read_table(html_text, "Validity per variant")
    by_variant = validity.set_index("variant")
    assert number(by_variant.loc["classic", "games"]) == 21
    assert number(by_variant.loc["classic", "invalid"]) == 1
    assert number(by_variant.loc["barrage", "valid"]) == 6
    assert by_variant.loc["barrage", "valid pct"] == "100.0%"
    codes = read_table(html_text, "Diagnostics by code")
    expected = gameset.diagnostics["code"].astype(str).value_counts()
    assert dict(zip(codes["code"], codes["count"].map(number), strict=True)) == dict(expected)


def test_side_win_rates_with_wilson_intervals(html_text: str, gameset: GameSet) -> None:
    table = read_table(html_text, "Red (moves first) against blue").set_index("variant")
    games = gameset.games
    decided = games[(games["status"] != "invalid") & games["winner"].notna()]
    classic = decided[decided["variant"] == "classic"]
    red = int((classic["winner"] == "red").sum())
    low, high = (float(x) for x in stats.wilson(red, len(classic)))
    row = table.loc["classic"]
    assert (number(row["games"]), number(row["red wins"])) == (len(classic), red)
    assert number(row["ci low"]) == pytest.approx(low, abs=0.0005)
    assert number(row["ci high"]) == pytest.approx(high, abs=0.0005)


def test_setup_win_rates_name_their_sample(html_text: str, gameset: GameSet) -> None:
    table = read_table(html_text, "Win rate by flag back row, classic")
    expected = stats.win_rate(gameset, "flag_back_row", variant="classic")
    assert table["setups"].map(number).sum() == expected["setups"].sum()
    assert list(table["win rate"]) == [f"{r * 100:.1f}%" for r in expected["win_rate"]]


def test_numbers_right_aligned_text_left(html_text: str) -> None:
    row = re.search(r"<tr><td >classic</td><td class=\"num\">", html_text)
    assert row is not None


def test_unknown_format_is_refused(gameset: GameSet) -> None:
    with pytest.raises(ValueError, match="unknown report format"):
        report.report_text(gameset, "pdf")  # type: ignore[arg-type]


@pytest.mark.slow
def test_setups_only_report_says_there_are_no_moves() -> None:
    records = list(generate_games(4, seed=9))
    games = GameSet(tables_for_records(records, setups_only=True))
    text = report.report_text(games, "html")
    assert "No moves in this data set" in text
    assert len(IMAGE_SOURCE.findall(text)) == 9  # no scout or battle maps; advice, setups


def test_no_games_is_an_error_not_an_empty_report() -> None:
    from strat_tools.tables.dataset import empty_gameset

    with pytest.raises(ValueError, match="no games to report on"):
        report.report_text(empty_gameset())


def test_only_invalid_games_gives_the_corpus_and_says_why() -> None:
    games = GameSet(tables_for_records([broken_record()]))
    text = report.report_text(games, "md")
    assert "## The corpus" in text and "## Endings" not in text
    assert "Every game is invalid" in text
    assert "| rule.empty_source | error | 1 | 1 |" in text  # the move from an empty E5


@pytest.mark.slow
def test_write_report_markdown_atomically_with_the_format_from_the_suffix(
    tmp_path: Path, gameset: GameSet
) -> None:
    target = tmp_path / "report.md"
    target.write_text("old")
    report.write_report(gameset, target, title="Test games")
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]
    assert target.stat().st_mode & 0o644 == 0o644
    text = target.read_text()
    assert text.startswith("# Test games\n")
    assert "## The corpus" in text and "## Win rates" in text
    images = re.findall(r"!\[[^\]]*\]\(([^)]*)\)", text)
    assert len(images) == 11 and all(src.startswith(DATA_PNG) for src in images)
    assert text.index("## Win rates") < text.index("## What the rulebooks advise, tested")
    assert "| variant | games | valid | invalid | unchecked | valid pct |" in text
    assert "http" not in text


def test_failed_report_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old")

    class Broken:
        games = pd.DataFrame({"x": [1]})  # no columns a report needs
        setups = moves = diagnostics = pd.DataFrame()

    with pytest.raises(KeyError):
        report.write_report(Broken(), target)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


# --- a real browser -------------------------------------------------------------------------


@pytest.mark.browser
def test_report_reads_in_a_real_browser(tmp_path: Path, html_text: str) -> None:
    """Opened from disk in headless Chromium (the shared one: tests/browser.py, the network
    pointed at a dead proxy), as a reader would: every picture is there and drawn, the
    contents link to their sections, a click takes the reader to one, and the page is
    not blank."""
    from browser import headless_chromium
    from selenium.webdriver.common.by import By

    page = tmp_path / "report.html"
    page.write_text(html_text)
    with headless_chromium(tmp_path / "profile", size="1280,3000") as chrome:
        chrome.get(page.as_uri())
        pictures = chrome.find_elements(By.TAG_NAME, "img")
        sizes = [chrome.execute_script("return arguments[0].naturalWidth", p) for p in pictures]
        assert len(pictures) == 11 and all(p.is_displayed() for p in pictures)
        assert all(size > 300 for size in sizes), sizes  # decoded, not a broken-image icon
        links = chrome.find_elements(By.CSS_SELECTOR, "nav a")
        anchors = [link.get_attribute("href").rpartition("#")[2] for link in links]
        assert anchors[:3] == ["corpus", "endings", "placement"]
        assert all(chrome.find_elements(By.ID, anchor) for anchor in anchors)
        next(link for link in links if link.text == "Scout usage").click()
        top = chrome.execute_script(
            "return document.getElementById('scouts').getBoundingClientRect().top"
        )
        assert abs(top) < 5 and chrome.execute_script("return window.scrollY") > 0
        shot = chrome.get_screenshot_as_png()
    with Image.open(io.BytesIO(shot)) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 500  # text, tables and heatmaps, not blank


# --- the report command -------------------------------------------------------------------


@pytest.mark.slow
def test_report_command_writes_html_and_markdown(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main
    from strat_tools.formats.xml_writer import write_games

    archive = tmp_path / "strados2026-10.zip"
    write_games(generate_games(8, variant="classic", seed=6, month=11), archive)
    runner = CliRunner()
    html_out = tmp_path / "report.html"
    result = runner.invoke(main, ["report", str(archive), "-o", str(html_out), "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and "Read 8 games" in result.stderr
    text = html_out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "8 games" in text
    md_out = tmp_path / "report.txt"
    result = runner.invoke(
        main, ["report", str(archive), "-o", str(md_out), "--format", "md", "--setups-only"]
    )
    assert result.exit_code == 0, result.stderr
    assert md_out.read_text().startswith("# Stratego game records")
    missing = runner.invoke(main, ["report", str(tmp_path / "none"), "-o", str(md_out)])
    assert missing.exit_code == 2 and "Error: nothing readable" in missing.stderr


def test_corpus_names_the_rule_sets(html_text: str, gameset: GameSet) -> None:
    table = read_table(html_text, "Rule sets the games were replayed under")
    expected = gameset.games.groupby(["rules", "variant"], observed=True).size()
    got = {
        (r, v): number(n)
        for r, v, n in zip(table["rules"], table["variant"], table["games"], strict=True)
    }
    assert got == {key: float(n) for key, n in expected.items()}


# --- ranks in either numbering (issue 7) ----------------------------------------------------

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "strados2026-10.zip"
RANKS = {
    "modern": {
        "spy": "1",
        "scout": "2",
        "miner": "3",
        "sergeant": "4",
        "lieutenant": "5",
        "captain": "6",
        "major": "7",
        "colonel": "8",
        "general": "9",
        "marshal": "10",
        "bomb": "B",
        "flag": "F",
    },
    "classic": {
        "spy": "S",
        "scout": "9",
        "miner": "8",
        "sergeant": "7",
        "lieutenant": "6",
        "captain": "5",
        "major": "4",
        "colonel": "3",
        "general": "2",
        "marshal": "1",
        "bomb": "B",
        "flag": "F",
    },
}
"""Written out by hand (not read from strat_tools.core.pieces), so a wrong table there shows
here."""
OTHER = {"modern": "classic", "classic": "modern"}


def shown(numbering: str) -> list[str]:
    """How the figures title the three pieces whose rank differs most: 'Marshal (10)'."""
    return [f"{p.capitalize()} ({RANKS[numbering][p]})" for p in ("spy", "scout", "marshal")]


def one_pixel_png() -> bytes:
    """A valid 1x1 PNG, standing in for figures whose pixels a test does not look at."""
    buffer = io.BytesIO()
    Image.new("RGB", (1, 1)).save(buffer, format="PNG")
    return buffer.getvalue()


class FigureSpy:
    """Stands in for document.figure_png and plots.setup_heatmap (which draws
    every setup heatmap of the report): records every figure's titles and the numbering
    each heatmap was asked for, and renders no pixels (fast)."""

    def __init__(self, setup_heatmap: Any) -> None:
        self.titles: list[str] = []
        self.numberings: list[object] = []
        self._setup_heatmap = setup_heatmap
        self._png = one_pixel_png()

    def figure_png(self, fig: Figure, dpi: int = 100) -> bytes:
        self.titles += [fig.get_suptitle(), *(ax.get_title() for ax in fig.axes)]
        return self._png

    def setup_heatmap(self, *args: Any, **kwargs: Any) -> Figure:
        self.numberings.append(kwargs.get("numbering"))
        return self._setup_heatmap(*args, **kwargs)  # type: ignore[no-any-return]


def spied_report(data: GameSet, numbering: str) -> tuple[str, FigureSpy]:
    """The HTML report in ``numbering`` and what its figures were titled."""
    spy = FigureSpy(plots.setup_heatmap)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(document, "figure_png", spy.figure_png)
        patch.setattr(plots, "setup_heatmap", spy.setup_heatmap)
        text = report.report_text(data, "html", numbering=numbering)  # type: ignore[arg-type]
    return text, spy


@pytest.fixture(scope="module")
def sample_setups() -> GameSet:
    """The shipped sample (400 synthetic games), setups only: no replay."""
    return read_games([str(SAMPLE)], setups_only=True, run=1)


@pytest.fixture(scope="module", params=["modern", "classic"])
def numbered(request: pytest.FixtureRequest, sample_setups: GameSet) -> tuple[str, str, FigureSpy]:
    """(numbering, HTML, spy) for a setups-only report of the sample in each numbering."""
    text, spy = spied_report(sample_setups, request.param)
    return request.param, text, spy


def test_figures_title_pieces_in_the_chosen_numbering(numbered: tuple[str, str, FigureSpy]) -> None:
    numbering, _, spy = numbered
    titles = "\n".join(spy.titles)
    for label in shown(numbering):
        assert label in spy.titles  # a panel of the all-pieces figure
    for label in shown(OTHER[numbering]):
        assert label not in titles
    assert "Flag (F) placement" in titles and "Bomb (B) placement" in titles
    assert spy.numberings and set(spy.numberings) == {numbering}  # every heatmap was told


def test_html_says_which_numbering_and_never_shows_the_other(
    numbered: tuple[str, str, FigureSpy],
) -> None:
    numbering, text, _ = numbered
    found = re.search(r'<p class="meta">([^<]*)</p>', text)
    assert found is not None
    meta = html.unescape(found.group(1))
    assert f"Ranks in the {numbering} numbering" in meta
    ranks = RANKS[numbering]
    assert f"marshal {ranks['marshal']}, general {ranks['general']}," in meta
    assert f"scout {ranks['scout']}, spy {ranks['spy']};" in meta
    alt = re.search(r'alt="(twelve piece heatmaps[^"]*)"', text)
    assert alt is not None
    for label in shown(numbering):
        assert label in alt.group(1)
    for label in shown(OTHER[numbering]):
        assert label.lower() not in text.lower()


SpiedReport = tuple[str, FigureSpy, list[pd.DataFrame]]


@pytest.fixture(scope="module")
def spied_gameset(gameset: GameSet) -> Callable[[str], SpiedReport]:
    """The fixture games' report in a numbering, made once per numbering for every test
    that reads it: (HTML, what its figures were titled, the matrices the adjacency figure
    was given)."""
    made: dict[str, SpiedReport] = {}

    def report_in(numbering: str) -> SpiedReport:
        if numbering not in made:
            drawn: list[pd.DataFrame] = []
            adjacency_figure = charts.adjacency_figure

            def keep(matrix: pd.DataFrame, **kwargs: Any) -> Figure:
                drawn.append(matrix)
                return adjacency_figure(matrix, **kwargs)

            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(charts, "adjacency_figure", keep)
                text, spy = spied_report(gameset, numbering)
            made[numbering] = (text, spy, drawn)
        return made[numbering]

    return report_in


@pytest.mark.parametrize("numbering", ["modern", "classic"])
def test_scout_attack_table_names_defenders_with_their_rank(
    numbering: str, gameset: GameSet, spied_gameset: Callable[[str], SpiedReport]
) -> None:
    text, spy, _ = spied_gameset(numbering)
    table = read_table(text, "What scouts attack, classic")
    expected = stats.scout_attacks(gameset, variant="classic")
    assert len(expected) > 3  # the fixture's scouts attack several kinds
    assert list(table["defender"]) == [
        f"{name} ({RANKS[numbering][name]})" for name in expected["defender"]
    ]
    scout = f"Scout ({RANKS[numbering]['scout']})"
    assert any(t.startswith(f"Squares entered by {scout}:") for t in spy.titles)
    assert f"Scouts, rank {RANKS[numbering]['scout']} in the {numbering} numbering" in text


def test_piece_label_and_an_unknown_numbering() -> None:
    assert setup_area.piece_label("marshal", "classic") == "marshal (1)"
    assert setup_area.piece_label("Spy") == "spy (1)"
    assert setup_area.piece_label("–", "classic") == "–"  # a placeholder cell stays as it is
    with pytest.raises(ValueError, match="unknown numbering 'roman'"):
        report.build_sections(GameSet(tables_for_records([])), "roman")  # type: ignore[arg-type]


@pytest.mark.slow
def test_report_command_takes_the_numbering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from strat_tools.cli import main

    monkeypatch.setattr(document, "figure_png", FigureSpy(plots.setup_heatmap).figure_png)
    out = tmp_path / "report.html"
    runner = CliRunner()
    args = ["report", str(SAMPLE), "-o", str(out), "--setups-only", "--jobs", "1"]
    result = runner.invoke(main, [*args, "--numbering", "classic"])
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    assert "Ranks in the classic numbering" in text and "Marshal (1)" in text
    assert "Marshal (10)" not in text
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.stderr
    assert "Ranks in the modern numbering" in out.read_text()
    wrong = runner.invoke(main, [*args, "--numbering", "roman"])
    assert wrong.exit_code == 2 and "'--numbering'" in wrong.stderr
    assert "--numbering [modern|classic]" in runner.invoke(main, ["report", "--help"]).stdout


# --- the rulebooks' advice -------------------------------------------------------------------


def advice_tables(html_text: str, variant: str) -> pd.DataFrame:
    """The advice section's tip table of one variant, as strings."""
    return read_table(html_text, f"Tips followed and win rates, {variant},")


def test_advice_tables_show_what_advice_computes(html_text: str, gameset: GameSet) -> None:

    expected = tip_rates.tip_summary(tips.setup_features(gameset))
    expected = expected[expected["variant"] == "classic"].set_index("tip")
    table = advice_tables(html_text, "classic")
    assert sorted(table["tip"]) == sorted(expected.index) and len(table) == 11
    shares = [number(v) for v in table["share"]]
    assert shares == sorted(shares, reverse=True)  # most followed first
    for row in table.itertuples(index=False):
        want = expected.loc[row.tip]
        assert int(number(row.followed)) == want["followed"]
        assert want["setups"] == 40  # 20 classic games, named once in the caption
        assert int(number(row[table.columns.get_loc("follow n")])) == want["n_follow"]
        assert number(row.share) == pytest.approx(want["share"], abs=0.0005)
        rate = row[table.columns.get_loc("follow rate")]
        if want["n_follow"]:
            assert number(rate) == pytest.approx(want["rate_follow"], abs=0.0005)
        else:
            assert rate == "–"


def test_the_tip_tables_fit_the_page_rates_then_head_to_head(
    html_text: str, gameset: GameSet
) -> None:

    expected = tip_rates.tip_summary(tips.setup_features(gameset))
    expected = expected[expected["variant"] == "classic"].set_index("tip")
    rates = advice_tables(html_text, "classic")
    assert len(rates.columns) == 14 and rates.columns[-1] == "verdict"
    tree = lxml.html.fromstring(html_text)
    headers = {th.text_content(): th.get("class") for th in tree.iter("th")}
    assert headers["follow cluster ci"] == "num"  # intervals right-aligned, never wrapped
    duels = read_table(html_text, "Head to head, classic:")
    assert list(duels.columns) == ["tip", "games", "follower wins", "win rate", "ci"]
    assert list(duels["tip"]) == list(rates["tip"])  # the same order, most followed first
    for row in rates.merge(duels, on="tip").itertuples(index=False):
        want = expected.loc[row.tip]
        assert int(number(row.games)) == want["h2h_games"]
        cell = rates.loc[rates["tip"] == row.tip, "follow ci"].item()
        if want["n_follow"]:
            low, high = (float(v) / 100 for v in cell.rstrip("%").split("–"))
            assert (low, high) == pytest.approx(
                (want["low_follow"], want["high_follow"]), abs=0.0005
            )
        else:
            assert cell == "–"


def test_advice_section_names_what_it_leaves_out_and_why(html_text: str) -> None:
    section = html_text[html_text.index('<section id="advice">') :]
    text = html.unescape(re.sub(r"<[^>]+>", " ", section))
    assert "barrage (12 setups)" in text  # 6 games: under the 100-setup floor
    assert "Tips followed and win rates, barrage" not in text
    for phrase in (
        "associations, not causes",
        "draws and unknown results excluded",
        "count as recorded",
        "docs/advice.md",
    ):
        assert phrase in text
    assert "n = 40 setups" in text
    definitions = read_table(html_text, "The tips, in the rulebooks' order")
    assert definitions["definition"].str.endswith(".").all()
    assert definitions["applies to"].iloc[-1] == "classic, barrage, duell, ultimate lightning"


def test_advice_entropy_table_runs_from_flag_to_the_least_predictable(
    html_text: str, gameset: GameSet
) -> None:

    table = read_table(html_text, "How predictable each piece's square is, classic")
    expected = arrangement.placement_entropy(gameset, "classic")
    assert list(table["piece"]) == [setup_area.piece_label(p) for p in expected["piece"]]
    bits = [float(v) for v in table["entropy bits"]]
    assert bits == sorted(bits) and bits == [round(v, 2) for v in expected["entropy_bits"]]
    assert set(table["max bits"]) == {"5.32"}


def test_advice_figure_is_the_adjacency_matrix_titled_with_n(
    gameset: GameSet, spied_gameset: Callable[[str], SpiedReport]
) -> None:
    _, spy, drawn = spied_gameset("classic")

    assert len(drawn) == 1
    expected = arrangement.adjacency_matrix(arrangement.adjacency(gameset), "classic")
    pd.testing.assert_frame_equal(drawn[0], expected)
    assert "Neighbours against chance, classic, n = 40 setups" in spy.titles


def test_no_fixed_army_setups_no_advice_section() -> None:
    import dataclasses

    records = [
        dataclasses.replace(record, variant="classicfree")
        for record in generate_games(3, variant="classic", seed=3, year=2014, month=5)
    ]
    games = GameSet(tables_for_records(records))
    assert len(games.setups) == 240  # setups there are, but none of a fixed army
    section = document.Section("What the rulebooks advise, tested", "advice")
    assert (
        report_advice.advice_section(section, report_inputs.report_inputs(games), "modern") is False
    )
    assert section.blocks == []  # left out, not an empty section
    assert [s.anchor for s in report.build_sections(games)] == ["corpus", "endings"]


@pytest.mark.slow
@pytest.mark.parametrize("setups_only", [False, True])
def test_report_reduced_batch_by_batch_is_the_report_of_the_whole(
    setups_only: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The CLI reduces each batch where it is read (counts, per-game values) and combines
    # them; the report must be the very same text, figures included, as from all games.

    inputs = [str(SAMPLE), str(Path(__file__).parent / "fixtures" / "gravon")]
    whole = read_games(inputs, setups_only=setups_only, run=1)
    monkeypatch.setattr(
        "strat_tools.run.driver.REDUCE_BATCH", 60
    )  # several batches (above REDUCE_MIN_BATCH's floor: the cap wins), variants split
    reduced = report_inputs.reduce_report
    batches: list[int] = []

    def counted(data: Any) -> Any:
        batches.append(len(data.games))
        return reduced(data)

    monkeypatch.setattr(report_inputs, "reduce_report", counted)
    streamed = report_inputs.report_inputs_of_paths(inputs, setups_only=setups_only, run=1)
    assert len(batches) >= 7 and max(batches) <= 60
    assert len(streamed.games) == len(whole.games) > 400
    generated = re.compile(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")
    values = re.compile(r"\n## What a piece is worth.*?(?=\n## |\Z)", re.S)
    texts = [
        generated.sub("generated", report.report_text(data, "md")) for data in (whole, streamed)
    ]
    # The piece values need the replay's knowledge, which tables do not keep: the GameSet's
    # report says so where the records' report has them; every other line is the same.
    sections = [values.search(text) for text in texts]
    assert sections[0] is not None and sections[1] is not None
    assert "No piece values here: the piece values need what each side knew" in sections[0][0]
    assert ("Piece values, classic (" in sections[1][0]) is not setups_only
    assert values.sub("", texts[0]) == values.sub("", texts[1])
    assert ("What scouts attack, classic" in texts[0]) is not setups_only


@pytest.mark.slow
def test_report_of_an_exported_dataset_read_a_few_games_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A dataset folder streams too (iter_dataset): the same report as from the folder whole.
    from strat_tools.tables import dataset
    from strat_tools.tables.dataset import read_dataset

    read_games([str(SAMPLE)], run=1).export(tmp_path)
    monkeypatch.setattr(dataset, "DATASET_BATCH_GAMES", 45)
    monkeypatch.setattr(document, "figure_png", lambda fig, dpi=100: b"")  # text only: fast
    generated = re.compile(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")
    texts = [
        generated.sub("generated", report.report_text(data, "md"))
        for data in (
            read_dataset(tmp_path),
            report_inputs.report_inputs_of_paths([tmp_path], run=1),
        )
    ]
    assert texts[0] == texts[1] and "What scouts attack" in texts[0]
