"""Two zips that each hold a member ``classic-2026.10-1.xml``, two different games of the
shipped sample (its games 1 and 2): the run calls the second ``classic-2026.10-1#2``
(docs/tables.md), and every page and command must say the same."""

from __future__ import annotations

import zipfile
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "strados2026-10.zip"
NAME = "classic-2026.10-1"
SECOND = f"{NAME}#2"
MEMBERS = ("classic-2026.10-1.xml", "classic-2026.10-2.xml")
"""The sample's members the two zips hold, in order, both under the name ``NAME.xml``."""


def same_name_zips(folder: Path) -> list[Path]:
    """Write ``a.zip`` and ``b.zip`` into ``folder``; return their paths."""
    zips = []
    with zipfile.ZipFile(SAMPLE) as sample:
        for name, member in zip("ab", MEMBERS, strict=True):
            path = folder / f"{name}.zip"
            with zipfile.ZipFile(path, "w") as archive:
                archive.writestr(f"{NAME}.xml", sample.read(member))
            zips.append(path)
    return zips


def field_of(member: str) -> str:
    """The ``<field content>`` of one sample member: the game's start as the viewer's
    ``data-field`` shows it at ply 0."""
    with zipfile.ZipFile(SAMPLE) as sample:
        text = sample.read(member).decode()
    start = text.index('<field content="') + len('<field content="')
    return text[start : text.index('"', start)]
