"""Test helpers for the layouts of output folders: today's (a folder per table, parts
inside; an observation export's games table in ``games/`` beside ``observations/``) and the
one before it (five ``NAME.parquet`` or ``NAME.csv`` files side by side; the observations'
``games.parquet`` at the top), which every reader must still read.

The old layout is made from a fresh export the way the old code wrote it: the same bytes
per table (the old writer wrote each table as one file, as today's writes a small table as
one part), moved to the old names, with a marker of the old form (no ``output`` field).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from strat_tools.io.owned import MARKER_NAME, file_digest
from strat_tools.tables.schemas import TABLE_NAMES


def part(folder: Path, name: str, fmt: str = "parquet", k: int = 0) -> Path:
    """Part ``k`` of table ``name`` in a dataset folder of today's layout."""
    return folder / name / f"part-{k:05d}.{fmt}"


def write_marker(folder: Path, names: list[str], *, output: str | None = "dataset") -> None:
    """A complete marker vouching for ``names`` as they are now (``output=None``: the
    marker's form before markers named their kind of output)."""
    data: dict[str, object] = {"kind": "strat-tools export"}
    if output is not None:
        data["output"] = output
    data["run_id"] = "0" * 32
    data["complete"] = True
    data["files"] = {
        name: {"bytes": (folder / name).stat().st_size, "sha256": file_digest(folder / name)}
        for name in names
    }
    (folder / MARKER_NAME).write_text(json.dumps(data, indent=1) + "\n")


def vouch(folder: Path) -> None:
    """Rewrite a dataset folder's marker to list every table file now in it, either layout
    (what a forged or stale marker would say)."""
    names = sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    )
    write_marker(folder, names)


def to_old_layout(folder: Path) -> Path:
    """Turn a fresh export of today's layout (one part per table) into the layout before
    it: ``NAME.parquet`` (or ``.csv``) side by side, an old-form marker."""
    names = []
    for name in TABLE_NAMES:
        (only,) = sorted((folder / name).iterdir())
        target = folder / f"{name}{only.suffix}"
        only.rename(target)
        shutil.rmtree(folder / name)
        names.append(target.name)
    write_marker(folder, names, output=None)
    return folder


def to_old_observations(folder: Path) -> Path:
    """Turn a fresh observation export into the layout before it: ``games.parquet`` at the
    top beside ``observations/``, an old-form marker."""
    (folder / "games" / "part-00000.parquet").rename(folder / "games.parquet")
    (folder / "games").rmdir()
    shards = sorted(f"observations/{p.name}" for p in (folder / "observations").iterdir())
    write_marker(folder, ["games.parquet", *shards], output=None)
    return folder
