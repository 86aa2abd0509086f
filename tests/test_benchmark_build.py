"""bench build: a tiny benchmark made of the sample's games, its manifest read back checked.

The shipped definition names the archive's 23 zips; here it is swapped for three tiny zips
cut from ``data/strados2026-10.zip`` (train, val, test), one classic game copied from train
into test so that the test split has a seen game. The archive-wide counts are
``test_benchmark_archive.py``'s.
"""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from strat_tools.benchmark import build as build_module
from strat_tools.benchmark import manifest as manifest_module
from strat_tools.benchmark.build import MissingZip, ZipMismatch, build_benchmark, zip_digest
from strat_tools.benchmark.definition import Split, Zip
from strat_tools.benchmark.manifest import (
    ManifestError,
    manifest_of,
    read_manifest,
    split_folder,
)
from strat_tools.cli import main
from strat_tools.core.errors import UsageError
from strat_tools.exports.observation_files import observation_games, read_observations
from strat_tools.formats.readers import read_records
from strat_tools.io.output import OutputError
from strat_tools.io.owned import file_digest

DATA = Path(__file__).resolve().parent.parent / "data"
SAMPLE = DATA / "strados2026-10.zip"
NAMES = ("strados2030-0.zip", "strados2030-1.zip", "strados2030-2.zip")


def _members() -> list[str]:
    with zipfile.ZipFile(SAMPLE) as archive:
        return sorted(n for n in archive.namelist() if n.endswith(".xml"))


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Gravon folder of three tiny zips (every 8th game of the sample, all variants),
    shipped as the definition's train, val and test; the first classic train game is in
    test too (a seen game)."""
    members = _members()[::8]
    parts = [members[0::3], members[1::3], members[2::3]]
    first_classic = next(m for m in parts[0] if "classic-" in m)
    parts[2] = [*parts[2], first_classic]
    folder = tmp_path / "gravon"
    folder.mkdir()
    with zipfile.ZipFile(SAMPLE) as archive:
        for name, part in zip(NAMES, parts, strict=True):
            with zipfile.ZipFile(folder / name, "w") as out:
                for member in part:
                    out.writestr(member, archive.read(member))
    splits = tuple(
        Split(split, (Zip(name, file_digest(folder / name)),))
        for split, name in zip(("train", "val", "test"), NAMES, strict=True)
    )
    monkeypatch.setattr(build_module, "SPLITS", splits)
    monkeypatch.setattr(manifest_module, "SPLITS", splits)
    return folder


def _classic_counts(path: Path) -> int:
    """Classic games with moves in a zip, from its records alone (the sample's are valid)."""
    return sum(1 for r in read_records(path) if r.variant == "classic" and r.plies > 0)


def test_a_tiny_benchmark_holds_each_splits_classic_games_and_the_seen_one(
    tiny: Path, tmp_path: Path
) -> None:
    out = tmp_path / "bench"
    summary = build_benchmark(tiny, out, run=1)
    manifest = read_manifest(out)
    for split, name in zip(("train", "val", "test"), NAMES, strict=True):
        assert manifest.splits[split].games == _classic_counts(tiny / name) > 0
        assert manifest.splits[split].zips[0].name == name
        assert manifest.splits[split].zips[0].month == "2030-" + f"{int(name[12]) + 1:02d}"
        rows = read_observations(out / split)
        assert rows.num_rows == manifest.splits[split].rows
        assert set(rows.column("variant").to_pylist()) == {"classic"}
        assert set(rows.column("game_id").to_pylist()) == set(manifest.game_ids(split))

    # the view by setups compared directly (each side's 40 squares, in its owner's view,
    # and the mirror image), not through the fingerprints
    def setups(path: Path) -> dict[str, set[bytes]]:
        found = {}
        for r in read_records(path):
            if r.variant != "classic" or r.setup is None:
                continue
            field = np.array(r.setup).reshape(10, 10)
            red = field[:4].copy()
            blue = (field[6:][::-1, ::-1] - 12).clip(0)
            found[r.game_id] = {
                s.tobytes() for side in (red, blue) for s in (side, side[:, ::-1].copy())
            }
        return found

    train = set().union(*setups(tiny / NAMES[0]).values())
    test = setups(tiny / NAMES[2])
    expected = {gid: "seen" if sides & train else "fresh" for gid, sides in test.items()}
    views = {g.game_id: g.view for g in manifest.games if g.split == "test"}
    assert views == expected
    assert "seen" in views.values() and "fresh" in views.values()
    assert summary.fresh["test"] == manifest.splits["test"].games - len(
        manifest.game_ids("test", "seen")
    )
    assert all(g.view is None for g in manifest.games if g.split != "test")
    games = observation_games(out / "test")
    assert {"period", "ending", "red_mirror_fingerprint"} <= set(games.column_names)
    assert split_folder(out, manifest, "test") == out / "test"
    fewer = dataclasses.replace(manifest, games=manifest.games[1:])
    with pytest.raises(ManifestError, match="not in the manifest's train but gave rows"):
        split_folder(out, fewer, "train")


def test_a_build_into_its_own_folder_again_replaces_it_and_refuses_a_stranger(
    tiny: Path, tmp_path: Path
) -> None:
    out = tmp_path / "bench"
    build_benchmark(tiny, out, run=1)
    build_benchmark(tiny, out, run=1)  # its own files: replaced
    assert read_manifest(out).splits["train"].games > 0
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "manifest.json").write_text("{}")
    with pytest.raises(OutputError, match="not written by strat-tools"):
        build_benchmark(tiny, stranger, run=1)
    assert (stranger / "manifest.json").read_text() == "{}"


def test_a_missing_zip_is_named_and_a_changed_one_refused(tiny: Path, tmp_path: Path) -> None:
    (tiny / NAMES[1]).rename(tmp_path / NAMES[1])
    with pytest.raises(MissingZip, match=r"strados2030-1\.zip \(val\)"):
        build_benchmark(tiny, tmp_path / "bench", run=1)
    result = CliRunner().invoke(main, ["bench", "build", str(tiny), "-o", str(tmp_path / "b")])
    assert result.exit_code == 2 and "strados2030-1.zip (val)" in result.output
    data = (tmp_path / NAMES[1]).read_bytes()
    (tiny / NAMES[1]).write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(ZipMismatch, match=r"not Gravon's strados2030-1\.zip"):
        build_benchmark(tiny, tmp_path / "bench", run=1)
    result = CliRunner().invoke(main, ["bench", "build", str(tiny), "-o", str(tmp_path / "b")])
    assert result.exit_code == 2 and "refused" in result.output
    assert not (tmp_path / "b").exists() and not (tmp_path / "bench").exists()


def test_a_fifo_named_like_a_benchmark_zip_is_refused_not_waited_on(
    tiny: Path, tmp_path: Path
) -> None:
    """Hashing opens each zip as every input is opened: a FIFO (opening it for reading
    would block until a writer comes) is refused at once, in a split and as an extra."""
    (tiny / NAMES[1]).unlink()
    os.mkfifo(tiny / NAMES[1])
    with pytest.raises(ZipMismatch, match=r"strados2030-1\.zip: .*not a regular file"):
        build_benchmark(tiny, tmp_path / "bench", run=1)
    os.mkfifo(tmp_path / "strados2031-0.zip")
    with pytest.raises(ZipMismatch, match="not a regular file"):
        zip_digest(str(tmp_path / "strados2031-0.zip"))
    assert not (tmp_path / "bench").exists()


def test_an_extra_test_set_of_months_nobody_named_gets_rows_and_views(
    tiny: Path, tmp_path: Path
) -> None:
    out = tmp_path / "bench"
    loose = []
    with zipfile.ZipFile(SAMPLE) as archive:
        for member in [m for m in _members() if "classic-" in m][:2]:
            loose.append(tmp_path / Path(member).name)
            loose[-1].write_bytes(archive.read(member))
    result = CliRunner().invoke(
        main,
        [
            *("bench", "build", str(tiny), "-o", str(out), "--jobs", "1"),
            *("--extra", f"sample={DATA}", "--extra", f"loose={loose[0]},{loose[1]}"),
        ],
    )
    assert result.exit_code == 0, result.output
    manifest = read_manifest(out)
    assert list(manifest.splits) == ["train", "val", "test", "sample", "loose"]
    assert [(z.name, z.month) for z in manifest.splits["loose"].zips] == [
        (path.name, None) for path in loose
    ]
    assert manifest.splits["loose"].games == 2
    extra = manifest.splits["sample"]
    assert [(z.name, z.month) for z in extra.zips] == [("strados2026-10.zip", "2026-11")]
    assert extra.games == _classic_counts(SAMPLE)
    views = {g.view for g in manifest.games if g.split == "sample"}
    assert views == {"fresh", "seen"}  # the sample holds the tiny train's games
    assert read_observations(out / "sample").num_rows == extra.rows
    bad = CliRunner().invoke(main, ["bench", "build", str(tiny), "-o", str(out), "--extra", "x"])
    assert bad.exit_code == 2 and "NAME=PATHS" in bad.output
    with pytest.raises(UsageError, match="extra test set's name"):
        build_benchmark(tiny, out, extras={"test": [str(DATA)]})


def test_every_field_of_the_manifest_is_checked_and_named(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    build_benchmark(tiny, out, run=1)
    good = json.loads((out / "manifest.json").read_text())
    manifest_of(good)

    def refused(change: object, field: str) -> None:
        data = json.loads(json.dumps(good))
        change(data)  # type: ignore[operator]
        with pytest.raises(ManifestError, match=field):
            manifest_of(data)

    refused(lambda d: d.update(version=2), "version")
    refused(lambda d: d.update(benchmark="x"), "benchmark")
    refused(lambda d: d.pop("month_note"), "has no 'month_note'")
    refused(lambda d: d.update(extra=1), "unknown field 'extra'")
    refused(lambda d: d["splits"]["val"]["zips"][0].update(sha256="0" * 64), r"splits\.val\.zips")
    refused(lambda d: d["splits"]["val"]["zips"][0].update(month="2030-01"), r"zips\[0\]\.month")
    refused(lambda d: d["splits"]["test"].update(games=0), r"splits\.test\.games")
    refused(lambda d: d["splits"]["train"].update(rows=-1), r"splits\.train\.rows")
    refused(lambda d: d["games"][0].update(view="fresh"), r"games\[0\]\.view")
    refused(lambda d: d["games"][-1].update(view=None), r"games\[\d+\]\.view")
    refused(lambda d: d["games"][0].update(red_fingerprint="X"), r"games\[0\]\.red_fingerprint")
    refused(lambda d: d["games"][1].update(game_id=d["games"][0]["game_id"]), "listed twice")
    refused(lambda d: d["games"][0].update(split="nope"), r"games\[0\]\.split")
    # (the checks made in bulk leave any doubt to the game-by-game ones, which name it)
    upper = "0123456789ABCDEF"
    refused(
        lambda d: d["games"][2].update(blue_mirror_fingerprint=upper), r"games\[2\]\.blue_mirror"
    )
    refused(lambda d: d["games"][3].update(game_id=""), r"games\[3\]\.game_id")
    refused(lambda d: d["games"].append(5), r"games\[\d+\] is not an object")
    (out / "manifest.json").write_text(json.dumps(good))  # same fields, other bytes
    with pytest.raises(ManifestError, match="not a finished benchmark build"):
        read_manifest(out)
