"""The registry of game-record formats: which files are game records, and who reads them.

One :class:`RecordFormat` per kind of record file says how to recognise it (its name
suffixes, the bytes its files start with) and names the functions that read and write it,
as ``"module:function"`` strings. The strings are resolved on first use by
:mod:`strat_tools.formats.readers` (reading) and :mod:`strat_tools.exports.convert` (writing), so
this module
imports nothing of the project and every floor may ask it questions: :mod:`strat_tools.io.sources`
asks which file names are game records, :mod:`strat_tools.core.records` which suffix to drop from a
game id.

Adding a format is one module (its parser, and its writer if it has one) and one entry in
:data:`FORMATS` (or a call to :func:`register_format` from a notebook).

The function contracts, for a format module::

    parse(data: bytes, source: str, member: str | None = None, *, fast: bool = True) -> Parsed
    blank(source: str, member: str | None = None) -> GameRecord   # what the name alone says
    encode(record: GameRecord) -> bytes                          # optional: writable formats
    file_name(record: GameRecord) -> str                         # optional: writable formats

``parse`` never raises for bad input and never judges the game (no checks, no rules): it
returns the record with its reading diagnostics, and the lines where the setup and the
result stand, for the checks' messages. (:class:`Parsed` is generic in the record's type,
``Parsed[GameRecord]``: :mod:`strat_tools.core.records` asks this module about suffixes, so
this one imports nothing back, not even for a type.)

>>> [f.name for f in FORMATS]
['xml', 'gsn']
>>> format_for_name("classic.2003.06.07.505.GSN").name
'gsn'
>>> is_record_name("notes.txt")
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

R = TypeVar("R")
"""The record type of a :class:`Parsed` (a :class:`~strat_tools.core.records.GameRecord`)."""

_BOM = b"\xef\xbb\xbf"
_SNIFF = 256
"""How many bytes of a file's start are compared with the formats' headers."""


class Parsed(NamedTuple, Generic[R]):
    """What a format's ``parse`` returns: the record (a ``GameRecord``: ``Parsed[GameRecord]``)
    and where its setup and result stand."""

    record: R
    setup_line: int | None
    result_line: int | None


@dataclass(frozen=True, slots=True)
class RecordFormat:
    """One kind of game-record file.

    ``suffixes`` are lower-case, the first one is written; ``header`` is what the format's
    files start with (after an optional UTF-8 byte-order mark and white space), to tell a
    file named with one format's suffix that holds another's.
    """

    name: str
    title: str
    suffixes: tuple[str, ...]
    header: bytes
    parse: str
    blank: str
    encode: str = ""
    file_name: str = ""

    @property
    def suffix(self) -> str:
        """The suffix this format's files are written with: ``'.gsn'``."""
        return self.suffixes[0]

    @property
    def writable(self) -> bool:
        """Whether the project can write this format (``convert --to``)."""
        return bool(self.encode and self.file_name)

    def matches(self, head: bytes) -> bool:
        """Whether ``head`` (a file's bytes, or their start) starts like this format's files."""
        return head.startswith(self.header) or (
            head[:_SNIFF].removeprefix(_BOM).lstrip().startswith(self.header)
        )


FORMATS: tuple[RecordFormat, ...] = (
    RecordFormat(
        name="xml",
        title="Gravon StraDoS2 XML (2004-2014 archives)",
        suffixes=(".xml",),
        header=b"<",
        parse="strat_tools.formats.gravon_xml:parse_xml",
        blank="strat_tools.formats.gravon_xml:blank_record",
        encode="strat_tools.formats.xml_writer:record_to_xml",
        file_name="strat_tools.formats.xml_writer:game_file_name",
    ),
    RecordFormat(
        name="gsn",
        title="Gravon Stratego-Notation text (.gsn, 2003-2004)",
        suffixes=(".gsn",),
        header=b"#X38FA11 Stratego-Notation",
        parse="strat_tools.formats.gsn:parse_gsn",
        blank="strat_tools.formats.gsn:blank_record",
        encode="strat_tools.formats.gsn_writer:record_to_gsn",
        file_name="strat_tools.formats.gsn_writer:gsn_file_name",
    ),
)
"""Every format the project reads, in the order they are tried when sniffing."""


def register_format(fmt: RecordFormat) -> None:
    """Add ``fmt`` to :data:`FORMATS` (or replace the entry of the same name), in-process.

    Worker processes started by ``spawn`` do not see it: a format for parallel runs belongs
    in :data:`FORMATS`.
    """
    global FORMATS
    if not fmt.suffixes or any(s != s.lower() or s.rfind(".") != 0 for s in fmt.suffixes):
        raise ValueError(f"suffixes must be lower-case, one '.' and a word: {fmt.suffixes!r}")
    if fmt.suffix == ".zip":
        raise ValueError("'.zip' names an archive of game files, not a game-record format")
    FORMATS = (*(f for f in FORMATS if f.name != fmt.name), fmt)


def format_named(name: str) -> RecordFormat:
    """The format called ``name`` (``'xml'``, ``'gsn'``); ``LookupError`` naming the choices."""
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    raise LookupError(f"unknown record format {name!r}; known: {', '.join(format_names())}")


def format_names(*, writable: bool = False) -> tuple[str, ...]:
    """The registered format names (only those the project can write, if ``writable``)."""
    return tuple(f.name for f in FORMATS if f.writable or not writable)


def format_for_name(name: str) -> RecordFormat | None:
    """The format whose suffix ends file name ``name`` (any case), or ``None``."""
    dot = name.rfind(".")
    return None if dot < 0 else _suffix_index().get(name[dot:].lower())


_INDEX: list[tuple[tuple[RecordFormat, ...], dict[str, RecordFormat]]] = []


def _suffix_index() -> dict[str, RecordFormat]:
    """Suffix → format, rebuilt when :data:`FORMATS` changes (one dict lookup a file name)."""
    if not _INDEX or _INDEX[0][0] is not FORMATS:
        index: dict[str, RecordFormat] = {}
        for fmt in FORMATS:
            for suffix in fmt.suffixes:
                index.setdefault(suffix, fmt)
        _INDEX[:] = [(FORMATS, index)]
    return _INDEX[0][1]


def is_record_name(name: str) -> bool:
    """Whether file name ``name`` is a game record by its suffix (``.xml``, ``.gsn``, ...)."""
    return format_for_name(name) is not None


def record_suffixes() -> tuple[str, ...]:
    """Every registered record suffix, for messages: ``('.xml', '.gsn')``."""
    return tuple(s for f in FORMATS for s in f.suffixes)


def sniff_format(head: bytes) -> RecordFormat | None:
    """The first format whose files start like ``head``, or ``None``.

    >>> sniff_format(b"#X38FA11 Stratego-Notation v2\\n").name
    'gsn'
    """
    for fmt in FORMATS:
        if fmt.matches(head):
            return fmt
    return None


def choose_format(name: str, head: bytes) -> tuple[RecordFormat, RecordFormat | None]:
    """The format to read a file with, and the one its name claims when the bytes disagree.

    By suffix first; when the bytes do not start like the suffix's format but do start like
    another's, the bytes win (the second value then names the format the name claimed). A
    name with no registered suffix is sniffed, and read as the first format if nothing fits.
    """
    named = format_for_name(name)
    if named is not None and named.matches(head):
        return named, None
    sniffed = sniff_format(head)
    if sniffed is not None:
        return sniffed, named if named is not sniffed else None
    return (named or FORMATS[0]), None


def strip_record_suffix(name: str) -> str:
    """``name`` without its record suffix; a name without a registered suffix as it is.

    >>> strip_record_suffix("classic-2014.5-2245.xml"), strip_record_suffix("notes.txt")
    ('classic-2014.5-2245', 'notes.txt')
    """
    dot = name.rfind(".")
    return name[:dot] if dot >= 0 and name[dot:].lower() in _suffix_index() else name
