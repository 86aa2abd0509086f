"""The notebooks' figures, not only their running (nbmake runs them): what a notebook prints
is what the library counts, under the label it prints.

The setup notebook printed the count of distinct setups *as drawn* under the label "distinct
up to a mirror image" (2,679 where the archive has 2,571, as ``search`` and the README say)
and "mirror-distinct" (3,075). The project's sample has no setup whose mirror image is also
played, so both counts agree there and a run on it could not tell them apart: the run here
reads a copy of the sample with every classic setup also played as its mirror image. The
stored outputs (a run on the real archive) must say what the README says of the same search.
"""

from __future__ import annotations

import ast
import json
import os
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "setup_analysis.ipynb"
SPY = "keep the spy right beside the"
CORNER = "mirror-distinct) in"


def mirrored_field(field: str) -> str:
    """A Gravon field with each side's setup turned into its left-right mirror image."""
    rows = [field[r * 10 : r * 10 + 10] for r in range(10)]
    return "".join(row[::-1] if r < 4 or r > 5 else row for r, row in enumerate(rows))


def archive_with_mirrors(folder: Path) -> Path:
    """The sample's games, spread over the three months the notebook replays, each classic
    game once more with both setups mirrored (and no moves: setups only)."""
    folder.mkdir()
    with zipfile.ZipFile(ROOT / "data" / "strados2026-10.zip") as sample:
        names = sample.namelist()
        parts = [names[i::3] for i in range(3)]
        for month, members in zip((9, 10, 11), parts, strict=True):
            with zipfile.ZipFile(folder / f"strados2014-{month}.zip", "w") as out:
                for name in members:
                    text = sample.read(name).decode("utf-8")
                    out.writestr(name, text)
                    if not name.startswith("classic-"):
                        continue
                    field = re.search(r'content="([^"]+)"', text)
                    assert field is not None
                    mirror = text.replace(field.group(1), mirrored_field(field.group(1)))
                    mirror = re.sub(r"\s*<move [^>]*/>", "", mirror)
                    number = int(name.removesuffix(".xml").rsplit("-", 1)[1])
                    out.writestr(f"classic-2026.10-{100_000 + number}.xml", mirror)
    return folder


def printed(archive: Path) -> list[str]:
    """Run the notebook's code cells in order, as Jupyter would, on ``archive``: the text of
    each cell's displayed Markdown."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict[str, Any] = {}
    shown = []
    here = Path.cwd()
    old = os.environ.get("STRAT_TOOLS_GRAVON")
    os.environ["STRAT_TOOLS_GRAVON"] = str(archive)
    try:
        os.chdir(NOTEBOOK.parent)
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            lines = [line for line in source.splitlines() if not line.lstrip().startswith("%")]
            tree = ast.parse("\n".join(lines))
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, "cell", "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "cell", "eval"), namespace)
                if type(value).__name__ == "Markdown":
                    shown.append(str(value.data))
    finally:
        os.chdir(here)
        if old is None:
            del os.environ["STRAT_TOOLS_GRAVON"]
        else:
            os.environ["STRAT_TOOLS_GRAVON"] = old
    return shown


def one(texts: list[str], marker: str) -> str:
    found = [text for text in texts if marker in text]
    assert len(found) == 1, marker
    return found[0]


@pytest.mark.slow  # runs every cell (about 5 s on one core)
def test_every_mirror_figure_the_notebook_prints_is_counted_up_to_a_mirror(
    tmp_path: Path,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import strat_tools as st
    from strat_tools.setups.patterns import parse_pattern
    from strat_tools.stats import repeats

    archive = archive_with_mirrors(tmp_path / "gravon")
    texts = printed(archive)
    games = st.read_games(archive, setups_only=True)
    counts = repeats.setup_counts(games, variant=None).set_index("variant").loc["classic"]
    assert counts["distinct_setups"] > counts["mirror_distinct_setups"]  # the fixture's point
    corner_flag = "\n".join(["." * 10] * 3 + ["F" + "." * 9])
    spy, corner = (
        repeats.search_setups(games, pattern, variant="classic", mirror=True)
        for pattern in (parse_pattern("SG", anywhere=True), corner_flag)
    )
    hits = [s.summary.set_index("match").astype(object).loc["matching"] for s in (spy, corner)]
    assert all(h["distinct_setups"] > h["mirror_distinct_setups"] for h in hits)
    spy_text, corner_text = one(texts, SPY), one(texts, CORNER)
    assert f"{hits[0]['mirror_distinct_setups']:,} distinct up to a mirror image)" in spy_text
    assert f"; {hits[1]['mirror_distinct_setups']:,} mirror-distinct)" in corner_text
    assert f"**{counts['mirror_distinct_setups']:,} mirror-distinct setups**" in one(
        texts, "mirror-distinct setups**"
    )
    tips = one(texts, "Followers of the tips")
    assert f"{counts['mirror_distinct_setups']:,} distinct up to a mirror image)" in tips
    # No count as drawn is printed under a mirror label anywhere.
    said = {
        int(n.replace(",", ""))
        for text in texts
        for n in re.findall(r"([\d,]+) (?:distinct up to a mirror image|mirror-distinct)", text)
    }
    as_drawn = {int(h["distinct_setups"]) for h in hits} | {int(counts["distinct_setups"])}
    assert said and not said & as_drawn


@pytest.mark.parametrize("marker", [SPY])
def test_the_stored_figures_are_the_readmes(marker: str) -> None:
    """The stored outputs come from a run on the archive, as the README's figures: the same
    search says the same numbers in both."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    outputs = [
        "".join(output.get("data", {}).get("text/markdown", []))
        for cell in cells
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
    ]
    stored = one(outputs, marker)
    readme = (ROOT / "README.md").read_text()
    pattern = (
        r"([\d,]+) of (?:the )?([\d,]+) classic setups \(([\d.]+%); "
        r"([\d,]+) distinct up to a mirror image\)"
    )
    said = re.search(pattern, readme.replace("\n", " "))
    shown = re.search(pattern, stored)
    assert said is not None and shown is not None
    assert shown.groups() == said.groups()


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_every_cell_has_an_id(path: Path) -> None:
    """nbformat 4.5 wants an id on every cell: without one nbconvert warns and invents them."""
    notebook = json.loads(path.read_text())
    assert (notebook["nbformat"], notebook["nbformat_minor"]) >= (4, 5)
    ids = [cell.get("id") for cell in notebook["cells"]]
    assert all(isinstance(i, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids), ids
    assert len(set(ids)) == len(ids)


def test_the_readme_says_how_to_open_the_notebooks_with_an_extra_that_exists() -> None:
    import tomllib

    readme = (ROOT / "README.md").read_text()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = re.findall(r"pip install -e '\.\[(\w+)\]'\n\.venv/bin/jupyter lab notebooks/", readme)
    assert named and named[0] in extras["optional-dependencies"]
    assert any("jupyter" in dep for dep in extras["optional-dependencies"][named[0]])
