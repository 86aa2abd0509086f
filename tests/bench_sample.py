"""A small benchmark for the scorer's and the baselines' tests, made by ``bench build``.

The shipped definition names the archive's 23 zips; here three tiny zips cut from the
sample month (``data/strados2026-10.zip``: its classic games, 60 for train, 10 for val,
40 for test plus 5 copied from train, which are seen) stand in for train, val and test,
and 20 more make an extra test set, ``later``:
:func:`sample_splits` is the definition to patch in (``patch_definition``) wherever the
folder is built or read.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from strat_tools.benchmark import build as build_module
from strat_tools.benchmark import manifest as manifest_module
from strat_tools.benchmark.build import build_benchmark
from strat_tools.benchmark.definition import Split, Zip
from strat_tools.io.owned import file_digest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "strados2026-10.zip"
NAMES = ("strados2030-0.zip", "strados2030-1.zip", "strados2030-2.zip")
SIZES = (60, 10, 40)
EXTRA = "strados2031-0.zip"
"""An extra test set (``--extra later=...``): 20 more classic games."""
SEEN = 5


def _write_zips(folder: Path) -> None:
    with zipfile.ZipFile(SAMPLE) as archive:
        classic = sorted(n for n in archive.namelist() if "classic-" in n and n.endswith(".xml"))
        starts = [0, SIZES[0], SIZES[0] + SIZES[1]]
        parts = [classic[s : s + n] for s, n in zip(starts, SIZES, strict=True)]
        parts[2] += parts[0][:SEEN]
        parts.append(classic[sum(SIZES) : sum(SIZES) + 20])
        folder.mkdir()
        for name, part in zip((*NAMES, EXTRA), parts, strict=True):
            with zipfile.ZipFile(folder / name, "w") as out:
                for member in part:
                    info = zipfile.ZipInfo(member, date_time=(2030, 1, 1, 0, 0, 0))
                    out.writestr(info, archive.read(member))


def sample_splits(gravon: Path) -> tuple[Split, ...]:
    """The definition of the sample benchmark: the three tiny zips as train, val, test."""
    return tuple(
        Split(split, (Zip(name, file_digest(gravon / name)),))
        for split, name in zip(("train", "val", "test"), NAMES, strict=True)
    )


def patch_definition(monkeypatch: pytest.MonkeyPatch, gravon: Path) -> None:
    """Make the sample's splits the definition the build and the manifest's reader use."""
    splits = sample_splits(gravon)
    monkeypatch.setattr(build_module, "SPLITS", splits)
    monkeypatch.setattr(manifest_module, "SPLITS", splits)


def make_bench(folder: Path) -> None:
    """``folder/gravon`` (the tiny zips) and ``folder/bench`` (the benchmark built)."""
    _write_zips(folder / "gravon")
    with pytest.MonkeyPatch.context() as monkeypatch:
        patch_definition(monkeypatch, folder / "gravon")
        extras = {"later": [str(folder / "gravon" / EXTRA)]}
        build_benchmark(folder / "gravon", folder / "bench", extras=extras, run=1)
