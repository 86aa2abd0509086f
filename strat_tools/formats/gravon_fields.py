"""What Gravon's records mean, field by field, shared by every reader of them.

The file-name metadata (variant, year, calendar month, number; :func:`apply_name_metadata`),
the 100-letter setup field (:func:`decode_field`), the game type (:func:`check_variant`),
integer attributes (:func:`parse_int`), the column-J repair of rescue moves
(:func:`report_column_j`) and the move-id sequence (:func:`check_move_ids`). The XML reader
(:mod:`strat_tools.formats.gravon_xml`) and the .gsn reader (:mod:`strat_tools.formats.gsn`) both
use them, so a
field means the same in either format. Each reports what is wrong as a diagnostic on the
record; none raises for bad input, and none knows a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from strat_tools.core.board import square_lookup
from strat_tools.core.records import VARIANTS, GameRecord, Severity
from strat_tools.io.sources import is_unsafe_member_name, printable

ERROR: Final = Severity.ERROR
WARNING: Final = Severity.WARNING
INFO: Final = Severity.INFO

SQUARES: Final = square_lookup()
"""Square name (``'K10'`` or Gravon's ``'K:'``) → square index."""

_FIELD_CODES: Final = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXY_")}

# Game ids are kept through a conversion (only the suffix changes), so each reader reads both
# formats' names: StraDoS2's monthly ``classic-2014.5-2245`` and .gsn's daily
# ``classic.2003.06.07.505``, with either suffix. ASCII digits only.
_MEMBER_NAME: Final = re.compile(
    r"^(?P<variant>[a-z ]+)-(?P<year>\d{4})\.(?P<month>\d{1,2})-(?P<number>\d+)\.(?:xml|gsn)$",
    re.ASCII,
)
_DAILY_NAME: Final = re.compile(
    r"(?P<word>[A-Za-z]+)\.(?P<year>\d{4})\.(?P<month>\d{1,2})\.(?P<day>\d{1,2})"
    r"\.(?P<number>\d+)\.(?:gsn|xml)",
    re.IGNORECASE | re.ASCII,
)
_ZIP_NAME: Final = re.compile(
    r"^strados(?P<year>\d{4})-(?P<month>\d{1,2})\.zip$", re.IGNORECASE | re.ASCII
)

DAILY_WORDS: Final = {
    "classic": "classic",
    "barrage": "barrage",
    "freesetup": "classicfree",
    "ultimate": "ultimate lightning",
    "duell": "duell",
}
"""The variant word of a .gsn daily file name → variant (``duell`` is this project's)."""


MAX_NUMBER: Final = 2**63 - 1
"""The largest game number kept from a file name (a 64-bit table column holds it)."""


def _basename(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def apply_name_metadata(record: GameRecord) -> str | None:
    """Fill year, calendar month and number from the member/file name or the zip name.

    Returns the variant written in the file name (``None`` if the name is not Gravon's).
    Gravon counts months from 0, so ``record.month`` is the name's month + 1.

    >>> record = GameRecord(source="strados2014-5.zip", member="classic-2014.5-2245.xml")
    >>> apply_name_metadata(record), record.year, record.month, record.number
    ('classic', 2014, 6, 2245)
    """
    name = _basename(record.member if record.member is not None else record.source)
    found = _MEMBER_NAME.match(name)
    if found is None and _DAILY_NAME.fullmatch(name) is not None:
        return daily_name_metadata(record, name)
    zipped = _ZIP_NAME.match(_basename(record.source)) if record.member is not None else None
    if found is not None:
        year, month = int(found["year"]), int(found["month"])
        number = int(found["number"])
        if number <= MAX_NUMBER:
            record.number = number
        else:
            record.add(
                "name.number",
                WARNING,
                f"game number {found['number'][:30]} in the file name is past "
                f"{MAX_NUMBER:,}; read, without a number",
            )
    elif zipped is not None:
        year, month = int(zipped["year"]), int(zipped["month"])
    else:
        return None
    if zipped is not None and (int(zipped["year"]), int(zipped["month"])) != (year, month):
        record.add(
            "name.period",
            WARNING,
            f"game file name says {year}.{month} but its zip says "
            f"{zipped['year']}-{zipped['month']} (months counted from 0); using the game's",
        )
    if not 0 <= month <= 11:
        record.add("name.month", WARNING, f"month {month} in the file name is not 0..11")
    else:
        record.year, record.month = year, month + 1
    return found["variant"] if found is not None else None


def daily_name_metadata(record: GameRecord, name: str) -> str | None:
    """Fill year, month, day and number from ``<word>.<YYYY>.<MM>.<DD>.<n>.gsn`` (``.xml``).

    Returns the variant the name's word stands for (the word itself if unknown, ``None`` if
    the name is not a daily name). The month is a calendar month; day ``00`` means the day is
    not known.

    >>> record = GameRecord(source="classic.2003.06.07.505.gsn")
    >>> daily_name_metadata(record, record.source), record.year, record.month, record.day
    ('classic', 2003, 6, 7)
    """
    found = _DAILY_NAME.fullmatch(name)
    if found is None:
        return None
    digits = found["number"]
    if len(digits) <= 19 and int(digits) <= MAX_NUMBER:  # never int() a huge digit string
        record.number = int(digits)
    else:
        record.add("name.number", WARNING, f"game number {digits[:30]} is too large; not used")
    year, month, day = int(found["year"]), int(found["month"]), int(found["day"])
    if 1 <= month <= 12:
        record.year, record.month = year, month
    else:
        record.add("name.month", WARNING, f"month {month} in the file name is not 01..12")
    if 1 <= day <= 31:
        record.day = day
    elif day != 0:
        record.add("name.day", WARNING, f"day {day} in the file name is not 01..31")
    word = found["word"].lower()
    return DAILY_WORDS.get(word, word)


def is_game_name(name: str) -> bool:
    """Whether ``name`` is a game file name of either format (its stem is a game id that a
    reader turns back into variant, period and number).

    >>> is_game_name("classic-2014.5-2245.gsn"), is_game_name("classic.2003.06.07.505.xml")
    (True, True)
    >>> is_game_name("game.xml")
    False
    """
    return _MEMBER_NAME.match(name) is not None or _DAILY_NAME.fullmatch(name) is not None


def new_record(
    source: str,
    member: str | None,
    name_metadata: Callable[[GameRecord], str | None] | None = None,
) -> tuple[GameRecord, str | None]:
    """An empty record with its name metadata, and the variant its file name claims.

    ``name_metadata`` reads a format's file names (default: Gravon's StraDoS2 names,
    :func:`apply_name_metadata`); it fills the record's date and number and returns the
    variant the name claims."""
    source, member = printable(source), None if member is None else printable(member)
    record = GameRecord(source=source, member=member)
    if member is not None and is_unsafe_member_name(member):
        record.add(
            "source.member_name",
            WARNING,
            f"zip member name {member!r} is absolute or contains '..' (read, never used as a path)",
        )
    return record, (name_metadata or apply_name_metadata)(record)


_FIELD_LETTERS: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXY_"
_FIELD_TABLE: Final = bytes.maketrans(_FIELD_LETTERS, bytes(range(26)))


def decode_field(record: GameRecord, content: str, line: int | None) -> None:
    """Set ``record.setup`` from a 100-letter field string, or report why it is unusable."""
    raw = content.encode("utf-8", "replace")
    if len(content) == 100 and content.isascii() and not raw.translate(None, _FIELD_LETTERS):
        record.setup = tuple(raw.translate(_FIELD_TABLE))
        return
    bad = sorted({c for c in content[:1000] if c not in _FIELD_CODES})
    what = f"{len(content)} characters" if len(content) != 100 else ""
    if bad:
        what += (", " if what else "") + "letters " + repr("".join(bad)[:20])
    record.add(
        "setup.field", ERROR, f"field content has {what}; expected 100 of A-Y and _", line=line
    )


def report_column_j(record: GameRecord, src: str, tgt: str, ply: int, line: int | None) -> None:
    """Report the in-memory repair of column J in a rescue move (no-op if there is no J)."""
    if src.startswith("J") or tgt.startswith("J"):
        fixed = "-".join("K" + s[1:] if s.startswith("J") else s for s in (src, tgt))
        record.add(
            "repair.column_j",
            INFO,
            f"rescue move {src}-{tgt} writes column K as J; read as {fixed}",
            line=line,
            ply=ply,
        )


def check_variant(
    record: GameRecord, variant: str | None, named: str | None, line: int | None
) -> None:
    """Set the variant from ``game/@type`` and compare it with the file name's prefix."""
    if variant is None:
        record.add("game.variant", ERROR, "game has no type attribute", line=line)
        record.variant = named or ""
        return
    record.variant = variant
    if variant not in VARIANTS:
        record.add(
            "game.variant",
            ERROR,
            f"unknown game type {variant!r}; expected one of {', '.join(VARIANTS)}",
            line=line,
        )
    if named is not None and named != variant:
        record.add(
            "name.variant",
            WARNING,
            f"game type {variant!r} but the file name says {named!r}",
            line=line,
        )


def parse_int(
    record: GameRecord, text: str | None, what: str, code: str, line: int | None
) -> int | None:
    """An integer attribute, or ``None`` with an error diagnostic when absent or not a number."""
    if text is None:
        record.add(code, ERROR, f"{what} is missing", line=line)
        return None
    if text.isascii() and text.isdigit() and len(text) < 10:
        return int(text)
    record.add(code, ERROR, f"{what} is {text[:20]!r}, not a number", line=line)
    return None


_ID_TEXTS: Final = [str(i) for i in range(1, 20001)]


def check_move_ids(record: GameRecord, ids: list[str | None]) -> None:
    """Report each place where the move ``id`` sequence breaks, as ``move.id``.

    Ids must run 1..N. Each break is reported once, and the count goes on from the id found,
    so one deleted (or added) move line is one error, not one per later move.
    """
    if ids == _ID_TEXTS[: len(ids)]:
        return
    expected = 1
    for ply, mid in enumerate(ids, 1):
        if mid == str(expected):
            expected += 1
            continue
        line = record.lines[ply - 1] if ply <= len(record.lines) else None
        if mid is None:
            message = f"move at position {ply} has no id"
            expected += 1
        elif not (mid.isascii() and mid.isdigit() and len(mid) < 10):
            message = f"move id {mid[:20]!r} at position {ply} is not a number"
            expected += 1
        else:
            found = int(mid)
            if found > expected:
                gap = found - expected
                what = f"{gap} id{'s' if gap > 1 else ''} missing (a move line deleted?)"
            else:
                what = "an id repeated or going back (a move line added or moved?)"
            message = (
                f"move id {mid} at position {ply}; expected {expected}: {what}; "
                "ids run 1..N, no gaps (plies follow the position in the file)"
            )
            expected = found + 1
        record.add("move.id", ERROR, message, line=line, ply=ply)


NAME_ESCAPED: Final = "backslash"
"""The value of ``<player escaped="...">`` on a name written with backslash escapes
(:func:`xml_name_text`)."""

_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NAME_ESCAPE: Final = re.compile(r"\\(?:(\\)|u([0-9a-f]{4}))")


def xml_name_text(name: str) -> tuple[str, bool]:
    r"""A player name as the text of an XML 1.0 element: ``(text, escaped)``.

    XML 1.0 cannot carry C0 control characters (but tab, line feed and carriage return),
    lone surrogates, U+FFFE or U+FFFF, raw or as character references. A name holding none
    of them is returned as it is (``escaped=False``; the archive's names all are). Otherwise
    each such character is written ``\uXXXX`` (lower-case hex) and each backslash doubled
    (``escaped=True``; the writer marks the element ``escaped="backslash"`` and the reader
    undoes it with :func:`unescape_name`), so every name survives the trip exactly.

    >>> xml_name_text("ann"), xml_name_text("a\\b")
    (('ann', False), ('a\\b', False))
    >>> xml_name_text("red\x1b[31m\\")
    ('red\\u001b[31m\\\\', True)
    """
    if _NOT_XML.search(name) is None:
        return name, False
    doubled = name.replace("\\", "\\\\")
    return _NOT_XML.sub(lambda found: f"\\u{ord(found[0]):04x}", doubled), True


def unescape_name(text: str) -> str | None:
    r"""The name :func:`xml_name_text` escaped as ``text``, or ``None`` when ``text`` holds a
    backslash that starts no escape (``\\`` or ``\uXXXX``, lower-case hex).

    >>> unescape_name("red\\u001b[31m\\\\"), unescape_name("bad\\x")
    ('red\x1b[31m\\', None)
    """
    parts: list[str] = []
    position = 0
    for found in _NAME_ESCAPE.finditer(text):
        if "\\" in text[position : found.start()]:
            return None
        parts.append(text[position : found.start()])
        parts.append("\\" if found[1] else chr(int(found[2], 16)))
        position = found.end()
    if "\\" in text[position:]:
        return None
    parts.append(text[position:])
    return "".join(parts)
