"""Figures as bytes and files, as every figure goes out: the format of the suffix,
an old file kept on failure, a PNG laid out once with savefig's pixels."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from PIL import Image

from strat_tools.views import plots
from strat_tools.views.figure_files import figure_bytes, save_figure, text_as_written


@pytest.fixture
def setups() -> pd.DataFrame:
    """Two setups' flags (owner's view), enough for a heatmap with a colour bar."""
    return pd.DataFrame(
        [("g1", "red", 1, 1, "flag"), ("g2", "blue", 1, 10, "flag")],
        columns=["game_id", "side", "row", "col", "piece"],
    )


@pytest.mark.parametrize(
    "suffix, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")]
)
def test_save_figure_writes_the_format_of_the_suffix(
    tmp_path: Path, setups: pd.DataFrame, suffix: str, magic: bytes
) -> None:
    target = save_figure(plots.setup_heatmap(setups), tmp_path / f"flag.{suffix}")
    assert target.read_bytes().startswith(magic)
    assert [p.name for p in tmp_path.iterdir()] == [f"flag.{suffix}"]


def test_save_figure_keeps_the_old_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "figure.nope"
    target.write_bytes(b"old")
    with pytest.raises(ValueError):
        save_figure(Figure(), target)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["figure.nope"]


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(BytesIO(png)))


def test_a_figure_laid_out_once_has_the_pixels_savefig_draws(setups: pd.DataFrame) -> None:
    """figure_bytes skips savefig's layout-only draw: the PNG is the same, pixel for pixel
    (panel, colour bar, title; at a resolution other than the figure's own), and the figure
    keeps its layout engine and resolution."""
    reference = BytesIO()
    drawn = plots.setup_heatmap(setups, "flag", title="layout once")
    text_as_written(drawn).savefig(reference, format="png", dpi=150)
    fig = plots.setup_heatmap(setups, "flag", title="layout once")
    once = figure_bytes(fig, "png", 150)
    assert _pixels(once).shape == _pixels(reference.getvalue()).shape == (660, 1260, 4)
    assert np.array_equal(_pixels(once), _pixels(reference.getvalue()))
    assert fig.get_layout_engine().__class__.__name__ == "ConstrainedLayoutEngine"
    assert fig.get_dpi() == 100


def test_vector_formats_are_laid_out_by_their_own_renderer(setups: pd.DataFrame) -> None:
    svg = figure_bytes(plots.setup_heatmap(setups, "flag"), "svg")
    assert svg.startswith(b"<?xml") and b"<svg" in svg
