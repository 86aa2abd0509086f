"""Reading back a file the project wrote itself: still an input, checked field by field.

A marker, a manifest or a model file that strat-tools wrote can be edited, damaged, copied
from a newer version or made by hand, so reading one back trusts nothing: :func:`load_json`
opens it as every input is opened (a regular file only, non-blocking, its size bounded:
:func:`strat_tools.io.sources.open_regular`) and parses strict JSON (no ``NaN`` or
``Infinity``, no key given twice, no nesting past :data:`MAX_DEPTH`); the ``expect_*``
checks then take each field as the code expects it (the keys an object may and must have,
an integer in its range and never a ``bool``, a finite number, a flag that is a real
``true``/``false``, a text matching its pattern, a file name that stays inside its folder),
raising :class:`FieldError` with the field's path in the file (``files["a.parquet"].bytes``)
and what was found, for the caller to name the file.

>>> data = loads('{"files": {"games.parquet": {"bytes": -1}}}')
>>> expect_int(data["files"]["games.parquet"]["bytes"], 'files["games.parquet"].bytes', low=0)
Traceback (most recent call last):
...
strat_tools.io.own_files.FieldError: files["games.parquet"].bytes: -1 is not a whole number \
from 0 to 4611686018427387904
>>> loads('{"x": NaN}')
Traceback (most recent call last):
...
strat_tools.io.own_files.FieldError: NaN is not a number a file of ours holds
"""

from __future__ import annotations

import gc
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from importlib.resources.abc import Traversable
from pathlib import PurePosixPath
from typing import Any, Final

from strat_tools.core.errors import InputError
from strat_tools.io.sources import SourceError, open_regular

__all__ = [
    "MAX_DEPTH",
    "FieldError",
    "collector_paused",
    "expect_flag",
    "expect_int",
    "expect_keys",
    "expect_name",
    "expect_number",
    "expect_object",
    "expect_text",
    "load_json",
    "load_json_or_shipped",
    "loads",
    "read_own",
]

MAX_DEPTH: Final = 64
"""The deepest nesting of objects and lists a file of ours may hold (ours hold three)."""
LARGEST: Final = 1 << 62
"""The largest whole number a field may hold unless it says otherwise (a size, a count)."""


class FieldError(InputError):
    """A file of ours that is not as the code wrote it: the message names the field (its
    path in the file) and what was found there."""


def _no_constant(name: str) -> float:
    raise FieldError(f"{name} is not a number a file of ours holds")


class LongInteger:
    """A whole number of more digits than any file of ours holds (20), kept unconverted: the
    field's own check then refuses it by the field's name, and a 400-digit number costs no
    conversion."""

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


def _bounded_int(digits: str) -> int | LongInteger:
    return int(digits) if len(digits.lstrip("-")) <= 20 else LongInteger(digits)


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):  # a key twice: the first one repeated named
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise FieldError(f"the key {key!r} is given twice")
            seen.add(key)
    return found


def _depth(value: Any) -> int:
    """How deep a parsed value's objects and lists nest (a number or text: 0), walked a
    level at a time without recursion and left as soon as it is past :data:`MAX_DEPTH`.

    >>> _depth(1), _depth([]), _depth({"a": [1, {"b": []}]})
    (0, 1, 4)
    """
    deepest = 0
    level = [value] if isinstance(value, (dict, list)) else []
    while level and deepest <= MAX_DEPTH:
        deepest += 1
        level = [
            inner
            for item in level
            for inner in (item.values() if isinstance(item, dict) else item)
            if isinstance(inner, (dict, list))
        ]
    return deepest


def loads(text: str) -> Any:
    """``text`` as strict JSON (see the module docstring); :class:`FieldError` if it is not.

    >>> loads('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    strat_tools.io.own_files.FieldError: the key 'a' is given twice
    """
    try:
        value = json.loads(
            text,
            parse_constant=_no_constant,
            parse_int=_bounded_int,
            object_pairs_hook=_no_repeats,
        )
    except RecursionError:  # deeper than the interpreter's limit: the parser stops itself
        raise FieldError(f"nested more than {MAX_DEPTH} deep") from None
    except json.JSONDecodeError as exc:
        raise FieldError(f"not JSON: {exc}") from None
    except ValueError as exc:  # an integer of thousands of digits
        if isinstance(exc, FieldError):
            raise
        raise FieldError(str(exc)) from None
    if _depth(value) > MAX_DEPTH:
        raise FieldError(f"nested more than {MAX_DEPTH} deep")
    return value


def read_own(path: str, *, limit: int) -> bytes:
    """The bytes of the file at ``path``, read as every input is (a regular file, opened
    non-blocking, of at most ``limit`` bytes): :class:`FieldError` if it is anything else (a
    FIFO, a device, a folder, a file too large, one that cannot be read)."""
    try:
        handle, size = open_regular(path)
        with handle:
            if size > limit:
                raise FieldError(f"{size:,} bytes, more than the {limit:,} a file of ours holds")
            raw = handle.read(limit + 1)
    except SourceError as exc:
        raise FieldError(str(exc)) from None
    except OSError as exc:
        raise FieldError(f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise FieldError(f"more than the {limit:,} bytes a file of ours holds")
    return raw


def load_json(path: str, *, limit: int) -> Any:
    """The strict JSON of the file at ``path``, read as every input is (:func:`read_own`,
    UTF-8): :class:`FieldError` if it is anything else."""
    raw = read_own(path, limit=limit)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FieldError(f"not UTF-8 text: {exc}") from None
    return loads(text)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a large file of ours becomes objects (a
    benchmark's manifest: some 100,000 dicts, lists and tuples, none in a cycle), then put
    back as it was. Its passes over the growing tree, a collection every 700 objects,
    cost that parse and its checks half their time again (best of 15: 71 against 58 ms,
    mean 101 against 66); reference counting frees everything as before.

    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def load_json_or_shipped(path: str | None, shipped: Traversable, *, limit: int) -> Any:
    """The strict JSON of the file at ``path`` (:func:`load_json`), or, when ``path`` is
    None, of ``shipped`` (a file the package ships: ``importlib.resources``)."""
    if path is None:
        return loads(shipped.read_text(encoding="utf-8"))
    return load_json(path, limit=limit)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def expect_object(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` if it is an object (a dict)."""
    if not isinstance(value, dict):
        raise FieldError(f"{where}: {_shown(value)} is not an object")
    return value


def expect_keys(
    value: Any, where: str, *, required: Iterable[str], optional: Iterable[str] = ()
) -> Mapping[str, Any]:
    """``value`` if it is an object with every ``required`` key and no key but those and
    the ``optional`` ones (a key the code does not know is refused, never ignored).

    >>> expect_keys({"a": 1, "b": 2}, "marker", required=["a"])
    Traceback (most recent call last):
    ...
    strat_tools.io.own_files.FieldError: marker: unknown key 'b' (known: a)
    """
    data = expect_object(value, where)
    need, may = list(required), list(optional)
    missing = [key for key in need if key not in data]
    if missing:
        raise FieldError(f"{where}: the key {missing[0]!r} is missing")
    unknown = sorted(key for key in data if key not in need and key not in may)
    if unknown:
        known = ", ".join(sorted([*need, *may]))
        raise FieldError(f"{where}: unknown key {unknown[0]!r} (known: {known})")
    return data


def expect_int(value: Any, where: str, *, low: int = 0, high: int = LARGEST) -> int:
    """``value`` if it is a whole number from ``low`` to ``high`` (a ``bool`` is none)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FieldError(f"{where}: {_shown(value)} is not a whole number from {low} to {high}")
    return value


def expect_number(value: Any, where: str, *, low: float, high: float) -> float:
    """``value`` if it is a finite number from ``low`` to ``high`` (a ``bool`` is none).

    >>> expect_number(1.5, "base_rate", low=0.0, high=1.0)
    Traceback (most recent call last):
    ...
    strat_tools.io.own_files.FieldError: base_rate: 1.5 is not a finite number from 0.0 to 1.0
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not low <= value <= high
    ):
        raise FieldError(f"{where}: {_shown(value)} is not a finite number from {low} to {high}")
    return float(value)


def expect_flag(value: Any, where: str) -> bool:
    """``value`` if it is ``true`` or ``false`` (``"no"`` or ``1`` is neither)."""
    if not isinstance(value, bool):
        raise FieldError(f"{where}: {_shown(value)} is not true or false")
    return value


def expect_text(value: Any, where: str, pattern: str | None = None, *, what: str = "") -> str:
    """``value`` if it is a string (matching ``pattern`` in full, when given; ``what``
    says what the pattern means)."""
    if not isinstance(value, str) or (pattern is not None and not re.fullmatch(pattern, value)):
        raise FieldError(f"{where}: {_shown(value)} is not {what or 'a text'}")
    return value


def expect_name(value: Any, where: str) -> str:
    """``value`` if it names a file inside the folder it is read in: a relative POSIX path
    without ``..``, empty parts, a backslash or a control character.

    >>> expect_name("../outside.parquet", "files")
    Traceback (most recent call last):
    ...
    strat_tools.io.own_files.FieldError: files: '../outside.parquet' is not a file name inside \
its folder
    """
    ok = isinstance(value, str) and value != "" and value.isprintable() and "\\" not in value
    parts = PurePosixPath(value).parts if ok else ()
    if (
        not ok
        or value.startswith("/")
        or any(part in ("..", ".") for part in parts)
        or "//" in value
        or value.endswith("/")
    ):
        raise FieldError(f"{where}: {_shown(value)} is not a file name inside its folder")
    return str(value)
