"""The one byte mutator of the fuzz tests (the reader's and the engine's).

An edit is ``(kind, where, new, length)``: at the relative position ``where`` (0..1),
``replace`` writes ``new``, ``insert`` inserts it, ``delete`` removes ``length`` bytes,
``duplicate`` repeats the ``length`` bytes found there and ``swap`` exchanges that line with
the line ``new[0]`` lines further on (moves out of order).
"""

from __future__ import annotations


def mutate(data: bytes, edits: list[tuple[str, float, list[int], int]]) -> bytes:
    """``data`` with ``edits`` applied in turn."""
    buf = bytearray(data)
    for kind, where, new, length in edits:
        at = int(where * len(buf))
        if kind == "replace":
            buf[at : at + len(new)] = bytes(new)
        elif kind == "insert":
            buf[at:at] = bytes(new)
        elif kind == "delete":
            del buf[at : at + length]
        elif kind == "duplicate":
            buf[at:at] = buf[at : at + length]
        elif kind == "swap":
            lines = bytes(buf).split(b"\n")
            i = int(where * len(lines))
            j = (i + new[0]) % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
            buf = bytearray(b"\n".join(lines))
        else:
            raise ValueError(f"unknown edit {kind!r}")
    return bytes(buf)
