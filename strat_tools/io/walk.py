"""Walking folders without recursion: any depth, each real folder once, link loops ended.

:func:`walk` yields every entry under a folder that is not itself a folder, depth first,
each level sorted by name, from a stack of listings (never a recursive call, so a folder
1,000 or 100,000 levels deep walks like a flat one, where a recursive walk, Python's
``os.walk`` before 3.12 or ``glob``'s ``**``, ends in a ``RecursionError``). Each real folder
is entered once, known by its device and inode, so a symlink loop or a folder linked twice
ends with a :data:`REPEAT` entry. :func:`glob_paths` is ``glob.glob(pattern,
recursive=True)`` with each ``**`` walked the same way.

A folder that cannot be listed (no permission, or its path longer than the system allows:
``PATH_MAX``, 4,096 bytes on Linux) is an :data:`ERROR` entry with the ``OSError``; nothing
here raises for what it finds on disk.
"""

from __future__ import annotations

import errno
import glob
import os
import stat
from collections.abc import Iterator
from typing import Final, Literal, NamedTuple

__all__ = ["ERROR", "FILE", "REPEAT", "Entry", "glob_paths", "walk"]

FILE: Final = "file"
"""Anything that is not a folder (a file, a FIFO, a broken link): the caller decides."""
ERROR: Final = "error"
"""A folder that could not be listed; ``error`` says why."""
REPEAT: Final = "repeat"
"""A folder already walked (the same device and inode): a link loop or a repeat."""


class Entry(NamedTuple):
    """One entry of a walk: its path, its kind and, for an :data:`ERROR`, the OS error."""

    path: str
    kind: Literal["file", "error", "repeat"]
    error: OSError | None = None


def _listing(folder: str, seen: set[tuple[int, int]]) -> Entry | Iterator[str]:
    """The sorted paths in ``folder``, or the entry that says why it is not walked."""
    try:
        info = os.stat(folder)
    except OSError as exc:
        return Entry(folder, ERROR, exc)
    key = (info.st_dev, info.st_ino)
    if key in seen:
        return Entry(folder, REPEAT)
    seen.add(key)
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        return Entry(folder, ERROR, exc)
    return iter([os.path.join(folder, name) for name in names])


def _is_folder(path: str) -> bool | OSError:
    """Whether ``path`` is a folder (through links); a path too long to look at is an error."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as exc:
        return exc if exc.errno == errno.ENAMETOOLONG else False


def walk(folder: str, seen: set[tuple[int, int]] | None = None) -> Iterator[Entry]:
    """Every entry under ``folder`` that is not a folder, depth first, sorted by name at
    each level, lazily; ``seen`` (the ``(st_dev, st_ino)`` of folders walked) is shared by
    the caller's walks, so a folder reached twice is walked once.

    >>> import tempfile
    >>> root = deep = tempfile.mkdtemp()
    >>> for _ in range(1200):  # deeper than Python's recursion limit
    ...     deep = os.path.join(deep, "d")
    ...     os.mkdir(deep)
    >>> open(os.path.join(deep, "game.xml"), "w").close()
    >>> os.symlink(root, os.path.join(deep, "loop"))
    >>> [(e.kind, os.path.basename(e.path), e.path.count(os.sep)) for e in walk(root)][:2]
    [('file', 'game.xml', 1203), ('repeat', 'loop', 1203)]
    >>> os.remove(os.path.join(deep, "game.xml")); os.remove(os.path.join(deep, "loop"))
    >>> while deep != root:  # shutil.rmtree recurses too
    ...     os.rmdir(deep)
    ...     deep = os.path.dirname(deep)
    >>> os.rmdir(root)
    """
    seen = set() if seen is None else seen
    first = _listing(folder, seen)
    if isinstance(first, Entry):
        yield first
        return
    stack = [first]
    while stack:
        path = next(stack[-1], None)
        if path is None:
            stack.pop()
            continue
        folder_or_error = _is_folder(path)
        if isinstance(folder_or_error, OSError):
            yield Entry(path, ERROR, folder_or_error)
        elif not folder_or_error:
            yield Entry(path, FILE)
        else:
            listing = _listing(path, seen)
            if isinstance(listing, Entry):
                yield listing
            else:
                stack.append(listing)


def _folders(top: str) -> Iterator[str]:
    """``top`` and every folder under it not hidden (``**``'s folders), without recursion."""
    seen: set[tuple[int, int]] = set()
    stack = [top]
    while stack:
        folder = stack.pop()
        listing = _listing(folder or os.curdir, seen)
        if isinstance(listing, Entry):
            continue
        yield folder
        below = [
            os.path.join(folder, os.path.basename(path))
            for path in listing
            if not os.path.basename(path).startswith(".") and _is_folder(path) is True
        ]
        stack.extend(reversed(below))


def glob_paths(pattern: str) -> list[str]:
    """What ``glob.glob(pattern, recursive=True)`` matches, each ``**`` (a whole path part)
    walked by :func:`walk`'s rule (no recursion, each real folder once: a link to a folder
    already walked is not walked again, where ``glob`` follows it), sorted.

    >>> import tempfile
    >>> root = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(root, "a", "b"))
    >>> for name in ("x.xml", "a/y.xml", "a/b/z.xml", "a/b/w.gsn"):
    ...     open(os.path.join(root, name), "w").close()
    >>> [p[len(root) + 1:] for p in glob_paths(os.path.join(root, "**", "*.xml"))]
    ['a/b/z.xml', 'a/y.xml', 'x.xml']
    >>> import shutil; shutil.rmtree(root)
    """
    parts = pattern.split(os.sep)
    if "**" not in parts:
        return sorted(glob.glob(pattern))
    cut = parts.index("**")
    head, rest = os.sep.join(parts[:cut]), os.sep.join(parts[cut + 1 :])
    if cut and not head:  # the pattern starts at the root: "/**/..."
        head = os.sep
    tops = [head] if not glob.has_magic(head) else glob.glob(head)
    found: set[str] = set()
    for top in tops:
        if head and not os.path.isdir(top):
            continue
        for folder in _folders(top):
            if rest:
                found.update(glob_paths(os.path.join(folder, rest)))
            else:  # a final ** names the top (as a folder), the folders and files below
                if folder:  # glob names no top for a pattern that starts with **
                    found.add(os.path.join(folder, "") if folder == top else folder)
                found.update(
                    os.path.join(folder, name)
                    for name in _names(folder)
                    if not name.startswith(".") and _is_folder(os.path.join(folder, name)) is False
                )
    return sorted(found)


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder or os.curdir)
    except OSError:
        return []
