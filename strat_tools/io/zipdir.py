"""Zip archives read defensively: the central directory once, members by offset, bounded.

Python's :mod:`zipfile` trusts an archive more than a reader of hostile input may: one
member name flagged UTF-8 with invalid bytes makes the whole archive unreadable, two members
of one name both read the last one, members may share their compressed data (an overlapping
zip bomb inflates gigabytes from kilobytes), and every reader that opens the archive parses
its whole central directory again. This module reads the directory once into
:class:`ZipEntry` values that carry everything needed to read one member later, in any
process, with one seek (:func:`read_entry`), so reading N members costs O(N) however they
are batched.

What it refuses, each as a :class:`ZipError` for that member only (the others stay readable):

- data that overlaps another member's local header or the central directory: each entry's
  ``bound`` is where the next member (or the directory) begins, and its data must end there;
- encryption, and compression methods other than stored and deflate;
- inflating past the declared size or the caller's limit (reading stops one byte past it),
  and a CRC that does not match.

Names: bytes flagged UTF-8 are decoded as UTF-8 with ``surrogateescape`` (an invalid byte
``0xNN`` becomes ``U+DCNN``), others as CP437 (what :mod:`zipfile` does); turning such a
name into printable text is :func:`strat_tools.io.sources.printable`'s job.

This module knows nothing of games; it is used by ``sources.py`` only.
"""

from __future__ import annotations

import struct
import zlib
from collections import Counter
from typing import BinaryIO, Final, NamedTuple

from strat_tools.core.errors import StratToolsError

_EOCD: Final = struct.Struct("<4s4H2LH")
_EOCD_SIG: Final = b"PK\x05\x06"
_LOCATOR: Final = struct.Struct("<4sLQL")
_LOCATOR_SIG: Final = b"PK\x06\x07"
_EOCD64: Final = struct.Struct("<4sQ2H2L4Q")
_EOCD64_SIG: Final = b"PK\x06\x06"
_CENTRAL: Final = struct.Struct("<4s4B4HL2L5H2L")
_CENTRAL_SIG: Final = b"PK\x01\x02"
_LOCAL: Final = struct.Struct("<4s2B4HL2L2H")
_LOCAL_SIG: Final = b"PK\x03\x04"
_MAX_COMMENT: Final = 0xFFFF
_CHUNK: Final = 1 << 16
_UTF8_FLAG: Final = 0x800
_ENCRYPTED_FLAG: Final = 0x1
STORED: Final = 0
DEFLATED: Final = 8


class ZipError(StratToolsError):
    """The archive, or one member of it, cannot be read; the message says why."""


class ZipEntry(NamedTuple):
    """One central-directory entry: what is needed to read the member with one seek."""

    name: str
    """The member's name (surrogate-escaped where its bytes do not decode)."""
    flags: int
    method: int
    crc: int
    compressed: int
    size: int
    """Declared uncompressed size."""
    offset: int
    """Where the member's local header starts in the file."""
    bound: int
    """Where the next member's local header (or the central directory) starts: the
    member's data must end at or before it."""

    @property
    def is_dir(self) -> bool:
        """Whether the entry is a folder (its name ends with ``/``)."""
        return self.name.endswith("/")


def _decode_name(raw: bytes, flags: int) -> str:
    if flags & _UTF8_FLAG:
        return raw.decode("utf-8", "surrogateescape")
    return raw.decode("cp437")


def _zip64_values(extra: bytes, wanted: list[bool]) -> list[int]:
    """The zip64 extra field's 8-byte values, one per field that holds 0xFFFFFFFF."""
    at = 0
    while at + 4 <= len(extra):
        kind, size = struct.unpack_from("<2H", extra, at)
        if kind == 1:
            body = extra[at + 4 : at + 4 + size]
            count = sum(wanted)
            if len(body) < 8 * count:
                raise ZipError("zip64 extra field too short")
            return list(struct.unpack_from(f"<{count}Q", body))
        at += 4 + size
    if any(wanted):
        raise ZipError("zip64 sizes announced but no zip64 extra field")
    return []


def _end_record(handle: BinaryIO, file_size: int) -> tuple[int, int, int, int]:
    """(entries, directory size, directory offset, where the end record starts)."""
    tail_size = min(file_size, _EOCD.size + _MAX_COMMENT)
    handle.seek(file_size - tail_size)
    tail = handle.read(tail_size)
    at = tail.rfind(_EOCD_SIG)
    if at < 0 or at + _EOCD.size > len(tail):
        raise ZipError("no end of central directory record (not a zip archive)")
    _sig, _disk, _cd_disk, _here, entries, cd_size, cd_offset, _comment = _EOCD.unpack_from(
        tail, at
    )
    end_at = file_size - tail_size + at
    if 0xFFFF in (entries,) or 0xFFFFFFFF in (cd_size, cd_offset):
        if end_at < _LOCATOR.size:
            raise ZipError("zip64 end record locator missing")
        handle.seek(end_at - _LOCATOR.size)
        sig, _disk64, eocd64_at, _disks = _LOCATOR.unpack(handle.read(_LOCATOR.size))
        if sig != _LOCATOR_SIG or eocd64_at + _EOCD64.size > end_at:
            raise ZipError("zip64 end record locator missing or broken")
        handle.seek(eocd64_at)
        fields = _EOCD64.unpack(handle.read(_EOCD64.size))
        if fields[0] != _EOCD64_SIG:
            raise ZipError("zip64 end record missing")
        entries, cd_size, cd_offset = fields[7], fields[8], fields[9]
        end_at = eocd64_at
    return entries, cd_size, cd_offset, end_at


def read_directory(handle: BinaryIO, file_size: int) -> list[ZipEntry]:
    """Every entry of the archive open in ``handle`` (``file_size`` bytes), in file order of
    their directory records; raises :class:`ZipError` if there is no readable directory."""
    entries, cd_size, cd_offset, end_at = _end_record(handle, file_size)
    # Data prepended to the archive (a self-extractor) shifts every offset by the same amount.
    shift = end_at - cd_size - cd_offset
    if shift < 0:
        raise ZipError("central directory lies outside the file")
    cd_start = cd_offset + shift
    handle.seek(cd_start)
    directory = handle.read(cd_size)
    if len(directory) != cd_size:
        raise ZipError("central directory truncated")
    raw: list[tuple[str, int, int, int, int, int, int]] = []
    at = 0
    while at + _CENTRAL.size <= len(directory):
        fields = _CENTRAL.unpack_from(directory, at)
        if fields[0] != _CENTRAL_SIG:
            raise ZipError(f"bad central directory record at byte {cd_start + at}")
        flags, method, crc = fields[5], fields[6], fields[9]
        compressed, size = fields[10], fields[11]
        name_len, extra_len, comment_len = fields[12], fields[13], fields[14]
        offset = fields[18]
        start = at + _CENTRAL.size
        name_bytes = directory[start : start + name_len]
        extra = directory[start + name_len : start + name_len + extra_len]
        wanted = [size == 0xFFFFFFFF, compressed == 0xFFFFFFFF, offset == 0xFFFFFFFF]
        if any(wanted):
            values = iter(_zip64_values(extra, wanted))
            size = next(values) if wanted[0] else size
            compressed = next(values) if wanted[1] else compressed
            offset = next(values) if wanted[2] else offset
        raw.append((_decode_name(name_bytes, flags), flags, method, crc, compressed, size, offset))
        at = start + name_len + extra_len + comment_len
    if not raw and entries:
        raise ZipError(f"central directory announces {entries} records but holds none")
    # Each member's data must end where the next member's header (or the directory) begins.
    # Two records pointing at one header share their data: bound them at their own start,
    # so both are refused.
    shared = Counter(entry[6] + shift for entry in raw)
    starts = sorted(shared)
    following = {
        here: here if shared[here] > 1 else there
        for here, there in zip(starts, [*starts[1:], cd_start], strict=True)
    }
    return [
        ZipEntry(
            name, flags, method, crc, compressed, size, offset + shift, following[offset + shift]
        )
        for name, flags, method, crc, compressed, size, offset in raw
    ]


def read_entry(handle: BinaryIO, entry: ZipEntry, limit: int) -> bytes:
    """The member's uncompressed bytes, at most ``limit`` of them; raises :class:`ZipError`.

    Reads only the member's own local header and data (one seek), checks that the data ends
    before ``entry.bound`` (no overlap with the next member or the directory), inflates at
    most ``min(limit, declared size) + 1`` bytes and checks the CRC.
    """
    if entry.flags & _ENCRYPTED_FLAG:
        raise ZipError("encrypted member (refused)")
    if entry.method not in (STORED, DEFLATED):
        raise ZipError(f"compression method {entry.method} not supported (stored or deflate)")
    if entry.size > limit:
        raise ZipError(f"larger than the {limit:,}-byte limit ({entry.size:,} bytes)")
    handle.seek(entry.offset)
    header = handle.read(_LOCAL.size)
    if len(header) != _LOCAL.size or header[:4] != _LOCAL_SIG:
        raise ZipError("no local header where the directory says the member starts")
    name_len, extra_len = _LOCAL.unpack(header)[10:12]
    data_start = entry.offset + _LOCAL.size + name_len + extra_len
    if data_start + entry.compressed > entry.bound or data_start > entry.bound:
        raise ZipError(
            "member data overlaps another member or the central directory (zip bomb?); refused"
        )
    handle.seek(data_start)
    packed = handle.read(entry.compressed)
    if len(packed) != entry.compressed:
        raise ZipError("member data truncated")
    allowed = min(limit, entry.size) + 1
    if entry.method == STORED:
        data = packed[:allowed]
    else:
        inflater = zlib.decompressobj(-15)
        try:
            data = inflater.decompress(packed, allowed)
        except zlib.error as exc:
            raise ZipError(f"bad deflate data: {exc}") from None
    if len(data) > entry.size:
        if entry.size >= limit:
            raise ZipError(f"inflates past the {limit:,}-byte limit (zip bomb?)")
        raise ZipError(
            f"inflates past its declared size of {entry.size:,} bytes (bad zip or zip bomb?)"
        )
    if len(data) != entry.size:
        raise ZipError(f"inflates to {len(data):,} bytes, not the declared {entry.size:,}")
    if zlib.crc32(data) != entry.crc:
        raise ZipError("CRC check failed (damaged member)")
    return data
