"""Make text from files safe to print or to hand to a spreadsheet.

Names of files, zip members and players come from the input, so they are data: an attacker
can put an escape sequence, a carriage return or a right-to-left override in a file name.

- :func:`printable` shows every control character visibly (``\\x1b``, ``\\r``, ``\\u202e``),
  and a byte that was not UTF-8 in a file name (Python's surrogate escape) as ``\\xNN``, so
  a name can neither move the cursor, clear the screen nor forge a line, on a terminal or
  in a pipe. :func:`printable_lines` does the same but keeps line breaks, for messages.
- :func:`count_of` writes every count the same way: ``13,980 games``, ``1 game``.
- :func:`markdown_text` keeps text text in a Markdown document (no raw HTML, no links).
- :func:`script_json` is JSON safe inside an HTML ``<script>`` element (no raw ``<``, ``>``
  or ``&``), for the pages that carry their data inline (viewer, explorer).
- :func:`csv_cell` and :func:`neutralise_csv_table` defuse formula injection (OWASP): a text
  cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
  ``'``, unless it is a plain number (``-3`` stays ``-3``); a cell that already starts with
  ``'`` gets one more, so :func:`restore_csv_cell` (drop one leading ``'``) gives back the
  exact text.

This module imports nothing of the toolkit: every floor may use it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pyarrow as pa

_UNSAFE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\udc80-\udcff]"
)
_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    r"""``text`` with every control or invisible formatting character shown as an escape.

    >>> printable("game\x1b[2J\r1000 valid.xml")
    'game\\x1b[2J\\r1000 valid.xml'
    >>> printable("caf\udce9.xml")
    'caf\\xe9.xml'
    >>> printable("plain name.xml")
    'plain name.xml'
    """
    return _UNSAFE.sub(_escape, text)


def printable_lines(text: str) -> str:
    r"""As :func:`printable`, but line breaks stay line breaks (for multi-line messages).

    >>> printable_lines("one\ntwo\x07")
    'one\ntwo\\x07'
    """
    return "\n".join(printable(line) for line in text.split("\n"))


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """One number style everywhere: thousands separated, the singular for one.

    >>> count_of(13980, "game"), count_of(1, "game"), count_of(2, "entry", "entries")
    ('13,980 games', '1 game', '2 entries')
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def first_of(items: Sequence[object], shown: int = 10) -> str:
    """A bounded list for a message: the first ``shown`` items, then how many more.

    >>> first_of([3, 5]), first_of(range(1, 1001), 3)
    ('3, 5', '1, 2, 3 and 997 more')
    """
    head = ", ".join(str(item) for item in items[:shown])
    rest = len(items) - shown
    return f"{head} and {rest:,} more" if rest > 0 else head


_MARKDOWN: Final = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]"})


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left raw.

    >>> print(script_json({"id": "</script><b>&"}))
    {"id":"\\u003c/script\\u003e\\u003cb\\u003e\\u0026"}
    """
    import json

    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def markdown_text(text: str) -> str:
    r"""Text for a Markdown document that stays text: no raw HTML (``<``, ``>``, ``&`` as
    entities), no link or image (``[`` ``]`` escaped), no control characters.

    >>> markdown_text('<img src=x onerror="alert(1)"> [a](javascript:x)')
    '&lt;img src=x onerror="alert(1)"&gt; \\[a\\](javascript:x)'
    """
    return printable(text).translate(_MARKDOWN)


_FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r", "'")
_NUMBER: Final = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$"
_NUMBER_RE: Final = re.compile(_NUMBER, re.ASCII)


def csv_cell(value: Any) -> Any:
    """A value ready for a CSV cell: text that a spreadsheet would run as a formula gets a
    leading ``'``; numbers and other text are unchanged.

    >>> [csv_cell(v) for v in ["=HYPERLINK(1)", "-3", "-1+cmd", "'quoted", "plain", 7]]
    ["'=HYPERLINK(1)", '-3', "'-1+cmd", "''quoted", 'plain', 7]
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER_RE.match(value):
        return "'" + value
    return value


def restore_csv_cell(value: Any) -> Any:
    """The text :func:`csv_cell` was given.

    >>> restore_csv_cell("'=1+1"), restore_csv_cell("''quoted"), restore_csv_cell("-3")
    ('=1+1', "'quoted", '-3')
    """
    if isinstance(value, str) and value.startswith("'"):
        return value[1:]
    return value


def _text_columns(table: pa.Table) -> list[int]:
    import pyarrow as pa

    return [
        i
        for i, column in enumerate(table.schema)
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
    ]


def neutralise_csv_table(table: pa.Table) -> pa.Table:
    """:func:`csv_cell` on every text column of an Arrow table (vectorised)."""
    import pyarrow.compute as pc

    for i in _text_columns(table):
        column = table.column(i)
        risky = pc.and_(
            pc.match_substring_regex(column, r"^['=+@\t\r-]"),
            pc.invert(pc.match_substring_regex(column, _NUMBER)),
        )
        fixed = pc.if_else(risky, pc.binary_join_element_wise("'", column, ""), column)
        table = table.set_column(i, table.schema.field(i), fixed)
    return table


def restore_csv_table(table: pa.Table) -> pa.Table:
    """:func:`restore_csv_cell` on every text column of an Arrow table (vectorised)."""
    import pyarrow.compute as pc

    for i in _text_columns(table):
        column = table.column(i)
        quoted = pc.starts_with(column, "'")
        fixed = pc.if_else(quoted, pc.utf8_slice_codeunits(column, 1), column)
        table = table.set_column(i, table.schema.field(i), fixed)
    return table
