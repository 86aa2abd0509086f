"""Shared test helpers (from test_hostile.py): imported by the tests that need them, so no test
module imports another."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

HOSTILE = Path(__file__).parent / "fixtures" / "hostile"


GRAVON = Path(__file__).parent / "fixtures" / "gravon"


GAME = (GRAVON / "classic-2014.4-17.xml").read_bytes()


SECRET = "TOP-SECRET-7f3a9c-do-not-leak"


def external_entity(secret: Path) -> bytes:
    """An XXE attempt: an external entity pointing at a local secret file."""
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE stratego [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
        '<stratego><game type="classic"><player id="1">&xxe;</player></game></stratego>\n'
    ).encode()


def build(folder: Path, secret: Path) -> dict[str, str]:
    """Write every hostile (and every odd but safe) input; return name → expected first code."""
    folder.mkdir()
    expected: dict[str, str] = {}
    for path in sorted(HOSTILE.iterdir()):
        shutil.copy(path, folder / path.name)
    expected |= {
        "billion_laughs.xml": "xml.doctype",
        "external_dtd.xml": "xml.doctype",
        "parameter_entity.xml": "xml.doctype",
        "utf16.xml": "xml.encoding",
        "latin1_declared.xml": "xml.encoding",
        "random_bytes.xml": "xml.malformed",
        "undefined_entity.xml": "xml.entity",
    }
    files = {
        "xxe.xml": (external_entity(secret), "xml.doctype"),
        "xxe_utf16.xml": (external_entity(secret).decode().encode("utf-16"), "xml.encoding"),
        "huge_attribute.xml": (
            GAME.replace(b'content="', b'content="' + b"A" * 30_000_000),
            "xml.limit",
        ),
        "deep_nesting.xml": (
            b"<stratego>" + b"<a>" * 200_000 + b"</a>" * 200_000 + b"</stratego>",
            "xml.limit",
        ),
        "invalid_utf8.xml": (GAME.replace(b"Player 1", b"Pl\xff\xfeyer"), "xml.encoding"),
        "truncated.xml": (GAME[: len(GAME) // 2], "xml.truncated"),
        "empty.xml": (b"", "xml.empty"),
        "utf8_bom.xml": (b"\xef\xbb\xbf" + GAME, ""),
    }
    for name, (data, code) in files.items():
        (folder / name).write_bytes(data)
        expected[name] = code
    with (
        zipfile.ZipFile(folder / "bomb.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        archive.open("classic-2014.4-1.xml", "w", force_zip64=True) as member,
    ):
        chunk = b"\0" * (1 << 24)
        for _ in range(128):  # 2 GiB of zeros, about 2 MB on disk
            member.write(chunk)
    expected["bomb.zip!classic-2014.4-1.xml"] = "source.unreadable"
    (folder / "fake.zip").write_bytes(b"this is no zip at all")
    expected["fake.zip"] = "source.unreadable"
    data = (GRAVON / "non_xml_members.zip").read_bytes()
    corrupted = bytearray(data)
    corrupted[40:80] = b"\xff" * 40  # inside the first member's compressed data
    (folder / "corrupted.zip").write_bytes(bytes(corrupted))
    expected["corrupted.zip!classic-2014.4-17.xml"] = "source.unreadable"
    expected["corrupted.zip!sub/classic-2014.4-18.xml"] = ""
    shutil.copy(GRAVON / "unsafe_member_names.zip", folder / "unsafe_member_names.zip")
    expected["unsafe_member_names.zip!../../etc/classic-2014.4-1.xml"] = "source.member_name"
    expected["unsafe_member_names.zip!/abs/classic-2014.4-2.xml"] = "source.member_name"
    (folder / "loop").mkdir()
    (folder / "loop" / "classic-2014.4-9.xml").write_bytes(GAME)
    expected["loop/classic-2014.4-9.xml"] = ""
    (folder / "loop" / "back").symlink_to(folder, target_is_directory=True)
    os.mkfifo(folder / "fifo.xml")
    expected["fifo.xml"] = "source.unreadable"
    return expected
