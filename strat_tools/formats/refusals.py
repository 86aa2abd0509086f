"""What the strict XML reader refuses before a parser sees a byte, by the product's own rules.

Each refusal is decided here, not by the installed libxml2, so a file gets the same
diagnostic code on every lxml release: empty files, UTF-16/32, DOCTYPE and entity
declarations, encodings other than UTF-8, and files past the product's own size and
nesting limits (:data:`MAX_VALUE_BYTES`, :data:`MAX_DEPTH`, both well inside libxml2's).
"""

from __future__ import annotations

import re
from typing import Final

import numpy as np

__all__ = ["MAX_DEPTH", "MAX_VALUE_BYTES", "refuse"]

MAX_VALUE_BYTES: Final = 1 << 20
"""The product's own limit on one attribute value or text run (1 MiB; Gravon's longest, a
setup field, is 100 characters). Checked before parsing, so a file past it is ``xml.limit``
whatever limits the installed libxml2 has (they differ between lxml releases)."""
MAX_DEPTH: Final = 64
"""The product's own limit on element nesting (Gravon's records nest 4 deep), below
libxml2's 256 and checked before parsing, for the same reason."""


def past_limits(data: bytes) -> str | None:
    """Why ``data`` is past the product's own limits, or ``None`` (one vectorised pass).

    The longest run between markup delimiters bounds every attribute value and text run; the
    nesting depth is counted from the tags (``<x``: +1, ``</`` and ``/>``: -1). Comments,
    processing instructions and CDATA are not Gravon's, so their rare ``<`` may count
    as a tag here: that can only refuse a file earlier, never let a deep one through.

    >>> past_limits(b"<a><b>x</b><c/></a>") is None
    True
    >>> past_limits(b"<a>" * 65 + b"</a>" * 65)
    'elements nest 65 deep, past the limit of 64'
    >>> past_limits(b'<a v="' + b"x" * (1 << 20) + b'"/>')
    'a value or text of 1,048,583 bytes, past the limit of 1,048,576'
    """
    view = np.frombuffer(data, dtype=np.uint8)
    if len(data) > MAX_VALUE_BYTES:  # no run in a shorter file can be longer: the pass is skipped
        delimiters = np.flatnonzero((view == 0x3C) | (view == 0x3E))  # '<' or '>'
        edges = np.concatenate(([-1], delimiters, [len(data)]))
        longest = int(np.diff(edges).max()) - 1
        if longest > MAX_VALUE_BYTES:
            return f"a value or text of {longest:,} bytes, past the limit of {MAX_VALUE_BYTES:,}"
    opens = np.flatnonzero(view[:-1] == 0x3C)
    if len(opens) <= MAX_DEPTH:
        return None
    after = view[opens + 1]
    steps = np.where(after == 0x2F, -1, np.where((after == 0x3F) | (after == 0x21), 0, 1))
    closes = np.flatnonzero((view[:-1] == 0x2F) & (view[1:] == 0x3E))  # '/>'
    where = np.concatenate((opens, closes))
    change = np.concatenate((steps, np.full(len(closes), -1)))
    depth = int(np.cumsum(change[np.argsort(where, kind="stable")]).max())
    if depth > MAX_DEPTH:
        return f"elements nest {depth:,} deep, past the limit of {MAX_DEPTH}"
    return None


def refuse(data: bytes) -> tuple[str, str] | None:
    """A reason to refuse ``data`` before parsing: (code, message), or ``None``."""
    if not data.strip():
        return "xml.empty", "empty file" if not data else "file holds only white space"
    head = data[:4]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in head:
        return "xml.encoding", "file is UTF-16 or UTF-32; Gravon records are UTF-8"
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        return (
            "xml.doctype",
            "file has a DOCTYPE or entity declaration; refused (no DTDs, no entities)",
        )
    declared = re.match(
        rb"(?:\xef\xbb\xbf)?<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]{1,40})[\"']", data
    )
    if declared is not None and declared.group(1).upper().replace(b"_", b"-") not in (
        b"UTF-8",
        b"UTF8",
        b"US-ASCII",
        b"ASCII",
    ):
        return (
            "xml.encoding",
            f"declared encoding {declared.group(1).decode('ascii')!r}; Gravon records are UTF-8",
        )
    past = past_limits(data)
    if past is not None:
        return "xml.limit", f"beyond the reader's safety limits: {past}"
    return None
