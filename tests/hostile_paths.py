"""The hostile paths the command-wide table (tests/test_hostile_commands.py) runs every
command on, and a snapshot of a folder to tell that nothing in it changed."""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

GAME = (Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml").read_bytes()


def build_inputs(root: Path, only: str | None = None) -> dict[str, Path]:
    """The hostile inputs, each in its own folder under ``root`` (the list: the docstring
    of tests/test_hostile_commands.py); ``only`` makes just that one (the others' folders
    are left empty)."""
    made: dict[str, Path] = {}

    def place(kind: str, name: bytes | str) -> Path:
        folder = root / kind
        folder.mkdir()
        return Path(os.fsdecode(os.path.join(os.fsencode(folder), os.fsencode(name))))

    for kind, (name, make) in MAKERS.items():
        if only is None or kind == only:
            made[kind] = place(kind, name)
            make(made[kind])
    return made


def truncated_zip(path: Path) -> None:
    whole = path.with_name("whole.zip")
    with zipfile.ZipFile(whole, "w", zipfile.ZIP_DEFLATED) as archive:
        for number in (1, 2):
            archive.writestr(f"classic-2014.4-{number}.xml", GAME)
    path.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    whole.unlink()


MAKERS: dict[str, tuple[bytes | str, Callable[[Path], object]]] = {
    "fifo": ("strados2014-3.zip", os.mkfifo),
    "dev_zero": ("strados2014-3.zip", lambda p: p.symlink_to("/dev/zero")),
    "truncated_zip": ("strados2014-3.zip", truncated_zip),
    "zip_bomb": (
        "strados2014-4.zip",
        lambda p: fifield_bomb(p, members=12, kernel_bytes=8 * 1024 * 1024),
    ),
    "huge_member": ("strados2014-4.zip", lambda p: huge_member_zip(p, 80 * 1024 * 1024)),
    "non_utf8": (b"classic-2014.4-\xff7.xml", lambda p: p.write_bytes(GAME)),
    "empty_dir": ("games", Path.mkdir),
    "dir_like_zip": ("strados2014-3.zip", Path.mkdir),
    "dir_like_xml": ("classic-2014.4-17.xml", Path.mkdir),
    "missing": ("classic-2014.4-404.xml", lambda p: None),
    "empty_file": ("classic-2014.4-405.xml", lambda p: p.write_bytes(b"")),
    "deep_folder": ("games", lambda p: deep_folder(p, DEEP)),
}
"""Each hostile input: its file name, and how it is made at its path."""


DEEP = 1100
"""Levels of the deep folder: past Python's recursion limit (1,000), within PATH_MAX."""


def deep_folder(top: Path, depth: int) -> Path:
    """``top/d/d/.../d/classic-2014.4-17.xml``, ``depth`` folders below ``top`` (made one
    level at a time through folder descriptors: ``os.makedirs`` itself recurses)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            below = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = below
        game = os.open("classic-2014.4-17.xml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        with os.fdopen(game, "wb") as handle:
            handle.write(GAME)
    finally:
        os.close(fd)
    return top


def huge_member_zip(path: Path, size: int) -> None:
    """A zip with one game member that inflates to ``size`` bytes of spaces (a few KB packed)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b" " * (1 << 20)
    packed = b"".join(packer.compress(chunk) for _ in range(size >> 20)) + packer.flush()
    crc = 0
    for _ in range(size >> 20):
        crc = zlib.crc32(chunk, crc)
    name = b"classic-2014.4-9.xml"
    local = struct.pack(
        "<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(packed), size, len(name), 0
    )
    central = struct.pack(
        "<4s6H3L5H2L",
        b"PK\x01\x02",
        20,
        20,
        0,
        8,
        0,
        0,
        crc,
        len(packed),
        size,
        len(name),
        0,
        0,
        0,
        0,
        0,
        0,
    )
    body = local + name + packed
    directory = central + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), len(body), 0)
    path.write_bytes(body + directory + end)
    with zipfile.ZipFile(path) as archive:  # an honest zip: only its member is too big
        assert archive.getinfo("classic-2014.4-9.xml").file_size == size


def remove_deep_folder(top: Path) -> None:
    """Remove what :func:`deep_folder` made, bottom up (``shutil.rmtree``, and so pytest's
    own clean-up of old temporary folders, recurses and would end in a ``RecursionError``)."""
    deepest = top
    while (deepest / "d").is_dir():
        deepest = deepest / "d"
    for path in [deepest, *deepest.parents]:
        for entry in path.iterdir():
            if not entry.is_dir() or entry.is_symlink():
                entry.unlink()
        path.rmdir()
        if path == top:
            break


def snapshot(root: Path) -> dict[str, tuple[str, str]]:
    """Every entry under ``root`` (symlinks not followed): its kind and its content's hash."""
    found: dict[str, tuple[str, str]] = {}
    folders = [os.fsencode(root)]  # a stack, not os.walk: it recurses (Python 3.11)
    while folders:
        folder = folders.pop()
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode):
                folders.append(path)
            if stat.S_ISLNK(mode):
                what = ("link", os.fsdecode(os.readlink(path)))
            elif stat.S_ISREG(mode):
                with open(path, "rb") as handle:
                    what = ("file", hashlib.sha256(handle.read()).hexdigest())
            else:
                what = (stat.filemode(mode)[0], "")
            found[os.fsdecode(path)] = what
    return found


def fifield_bomb(path: Path, members: int, kernel_bytes: int) -> int:
    """An overlapping zip bomb (D. Fifield, 2019): every member's deflate data runs through
    the next member's quoted local header into one shared kernel of zeros. Returns the
    bytes a reader that follows the directory would inflate."""
    kernel = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = kernel.compress(b"\0" * kernel_bytes) + kernel.flush()
    names = [f"classic-2014.4-{i}.xml".encode() for i in range(members)]

    def local(i: int, crc: int, compressed: int, size: int) -> bytes:
        return (
            struct.pack(
                "<4s2B4HL2L2H",
                b"PK\x03\x04",
                20,
                0,
                0,
                8,
                0,
                0,
                crc,
                compressed,
                size,
                len(names[i]),
                0,
            )
            + names[i]
        )

    headers: list[bytes] = [b""] * members
    sizes = [0] * members
    crcs = [0] * members
    compressed = [0] * members
    tail_out = b"\0" * kernel_bytes
    tail_packed = packed
    for i in range(members - 1, -1, -1):
        sizes[i], crcs[i], compressed[i] = len(tail_out), zlib.crc32(tail_out), len(tail_packed)
        headers[i] = local(i, crcs[i], compressed[i], sizes[i])
        if i:
            quote = struct.pack("<BHH", 0, len(headers[i]), len(headers[i]) ^ 0xFFFF)
            tail_out = headers[i] + tail_out
            tail_packed = quote + headers[i] + tail_packed
    body = bytearray()
    offsets = []
    for i in range(members):
        offsets.append(len(body))
        body += headers[i]
        if i < members - 1:
            body += struct.pack("<BHH", 0, len(headers[i + 1]), len(headers[i + 1]) ^ 0xFFFF)
    body += packed
    directory = b"".join(
        struct.pack(
            "<4s4B4HL2L5H2L",
            b"PK\x01\x02",
            20,
            0,
            20,
            0,
            0,
            8,
            0,
            0,
            crcs[i],
            compressed[i],
            sizes[i],
            len(names[i]),
            0,
            0,
            0,
            0,
            0,
            offsets[i],
        )
        + names[i]
        for i in range(members)
    )
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, members, members, len(directory), len(body), 0
    )
    path.write_bytes(bytes(body) + directory + end)
    return sum(sizes)
