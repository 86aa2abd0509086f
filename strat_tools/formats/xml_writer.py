"""Write game records as StraDoS2 XML, byte for byte in the Gravon archive's own layout.

:func:`record_to_xml` turns one :class:`GameRecord` into the bytes Gravon would have written
(same declaration, indentation, blank line after ``<game>``, attribute order, no trailing
newline), so a rewritten archive record is identical to the original and a written record
parses back to the same record. :func:`write_games` writes many records as one file per game
(``classic-2026.9-17.xml``, Gravon's names, month counted from 0) or as one zip archive, each
file written atomically.

This module knows the file layout only: it does not check that a record is legal, complete
or consistent (that is ``checks.py`` and ``replay.py``), and it never modifies its input.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Final
from xml.sax.saxutils import escape, quoteattr

from strat_tools.core.board import square_name
from strat_tools.core.errors import InputError
from strat_tools.core.pieces import CODE_LETTERS
from strat_tools.core.records import SYNTHETIC_MARK, GameRecord
from strat_tools.formats.gravon_fields import NAME_ESCAPED, xml_name_text
from strat_tools.io.output import atomic_output, write_file_atomically
from strat_tools.io.owned import refuse_owned

_DECLARATION: Final = '<?xml version="1.0" encoding="UTF-8"?>\n'
_HEAD: Final = "<stratego>\n <game type={}>\n  \n"
_SYNTHETIC_LINE: Final = SYNTHETIC_MARK.decode("ascii") + "\n"
_TAIL: Final = " </game>\n</stratego>"
# Beyond &, < and >: a raw carriage return in element text reads back as a line feed.
_TEXT_ENTITIES: Final = {"\r": "&#13;"}

# Gravon names, row 10 written ':' (the character after '9').
_NAMES: Final = tuple(square_name(sq, gravon=True) for sq in range(100))
# Gravon's known defect: in rescue moves only, column K is written J.
_RESCUE_NAMES: Final = tuple(("J" + name[1:]) if name[0] == "K" else name for name in _NAMES)


def _square(square: int, names: tuple[str, ...], record: GameRecord, ply: int) -> str:
    if not 0 <= square < 100:
        raise InputError(
            f"{record.game_id}: move {ply} has no readable square ({square}); "
            "a record with unreadable moves cannot be written back"
        )
    return names[square]


def _field_line(setup: tuple[int, ...] | None) -> str:
    if setup is None:
        return ""
    if len(setup) != 100:
        raise InputError(f"a setup has 100 squares, this one has {len(setup)}")
    return f'  <field content="{"".join(CODE_LETTERS[code] for code in setup)}"/>\n'


def _move_lines(record: GameRecord, gravon_quirks: bool) -> list[str]:
    lines = []
    rescues = record.rescues
    for index, (source, target) in enumerate(zip(record.sources, record.targets, strict=True)):
        ply = index + 1
        rescue = rescues.get(ply)
        names = _RESCUE_NAMES if rescue is not None and gravon_quirks else _NAMES
        head = (
            f'  <move id="{ply}" source="{_square(source, names, record, ply)}" '
            f'target="{_square(target, names, record, ply)}"'
        )
        if rescue is None:
            lines.append(head + "/>\n")
        else:
            # The number as Gravon writes it (a .gsn rescue line pads it to two digits).
            piece = rescue.raw_piece if rescue.piece is None else str(rescue.piece)
            lines.append(
                f"{head}>   <rescue rescuefield={quoteattr(rescue.raw_field)} "
                f"rescuepiece={quoteattr(piece)}/>\n  </move>\n"
            )
    return lines


def _player_line(player_id: int, name: str) -> str:
    """The ``<player>`` line: a carriage return as ``&#13;`` (a raw one would read back as a
    line feed), a name XML 1.0 cannot carry escaped (:func:`xml_name_text`)."""
    text, escaped = xml_name_text(name)
    mark = f' escaped="{NAME_ESCAPED}"' if escaped else ""
    return f'  <player id="{player_id}"{mark}>{escape(text, _TEXT_ENTITIES)}</player>\n'


def record_to_xml(record: GameRecord, *, gravon_quirks: bool = False) -> bytes:
    r"""The StraDoS2 XML of ``record``, in the archive's exact layout.

    ``gravon_quirks=True`` also reproduces Gravon's one known writing defect (column K
    written ``J`` in the source and target of rescue moves), so that rewriting a real
    archive record gives back its original bytes. Raises ``ValueError`` for what no valid
    file can say: a move with an unreadable square (-1) or a setup not of 100 squares.

    >>> record = GameRecord("x.xml", variant="classic", sources=[33], targets=[43])
    >>> record_to_xml(record).splitlines()[4]
    b'  <move id="1" source="D4" target="D5"/>'

    A player name is written as it is, unless it holds characters XML 1.0 cannot carry
    (control characters, U+FFFE, U+FFFF, lone surrogates): then they are ``\uXXXX``
    escapes, backslashes are doubled and the element says ``escaped="backslash"``
    (:func:`~strat_tools.formats.gravon_fields.xml_name_text`); the reader undoes it.

    >>> record = GameRecord("x.xml", variant="classic", players=("ann\x1b", "bob"))
    >>> record_to_xml(record).splitlines()[4]
    b'  <player id="1" escaped="backslash">ann\\u001b</player>'

    A generated record (``record.synthetic``) gets :data:`~strat_tools.core.records.SYNTHETIC_MARK`
    on the line after the declaration.
    """
    parts = [
        _DECLARATION,
        _SYNTHETIC_LINE if record.synthetic else "",  # generated games say so in the file
        _HEAD.format(quoteattr(record.variant)),
        _field_line(record.setup),
    ]
    parts.extend(_move_lines(record, gravon_quirks))
    for player_id, name in enumerate(record.players, start=1):
        parts.append(_player_line(player_id, name))
    result = record.result
    if result is not None:
        attrs = "".join(
            f' {key}="{int(value)}"'  # a number even for a Side, which prints its name
            for key, value in (("type", result.type), ("winner", result.winner))
            if value is not None
        )
        parts.append(f"  <result{attrs}/>\n")
    parts.append(_TAIL)
    return "".join(parts).encode("utf-8")


def game_file_name(record: GameRecord) -> str:
    """Gravon's file name for ``record``: ``classic-2026.9-17.xml`` for October 2026, game 17.

    Gravon counts months from 0, so the name carries ``record.month - 1``. Raises
    ``ValueError`` when the record lacks its variant, year, month or number.
    """
    if not record.variant or record.year is None or record.month is None or record.number is None:
        raise InputError(
            f"{record.game_id}: a file name needs variant, year, month and number "
            f"(have {record.variant!r}, {record.year}, {record.month}, {record.number})"
        )
    if not 1 <= record.month <= 12:
        raise InputError(f"{record.game_id}: month must be 1..12, got {record.month}")
    return f"{record.variant}-{record.year}.{record.month - 1}-{record.number}.xml"


def archive_name(year: int, month: int) -> str:
    """Gravon's monthly zip name: ``archive_name(2026, 10) == 'strados2026-9.zip'``."""
    if not 1 <= month <= 12:
        raise InputError(f"month must be 1..12, got {month}")
    return f"strados{year}-{month - 1}.zip"


_NAME_PERIOD: Final = re.compile(r"-(\d{4})\.(\d{1,2})-\d+\.xml$", re.ASCII)


ZIP_YEARS: Final = range(1980, 2108)
"""The years a zip entry's timestamp (an MS-DOS date) can hold."""


def zip_info(name: str) -> zipfile.ZipInfo:
    """The zip entry for game file ``name``: a fixed timestamp (the first day of the game's
    month, read from its Gravon name) keeps archives reproducible; a name whose month is
    not one a zip can date (before 1980, after 2107, no such month) gets 1980-01-01, so no
    name can stop a writer.

    >>> zip_info("classic-2014.4-17.xml").date_time
    (2014, 5, 1, 0, 0, 0)
    >>> zip_info("classic-2200.0-1.xml").date_time, zip_info("x-1979.11-1.xml").date_time
    ((1980, 1, 1, 0, 0, 0), (1980, 1, 1, 0, 0, 0))
    """
    found = _NAME_PERIOD.search(name)
    year, month = (int(found[1]), int(found[2]) + 1) if found else (1980, 1)
    if year not in ZIP_YEARS or not 1 <= month <= 12:
        year, month = 1980, 1
    info = zipfile.ZipInfo(name, date_time=(year, month, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def _claim(name: str, seen: set[str]) -> None:
    if name in seen:
        raise InputError(f"two games would both be written as {name!r}")
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise InputError(f"not a plain file name: {name!r}")
    seen.add(name)


def _write_zip(files: Iterable[tuple[str, bytes]], out: Path) -> int:
    seen: set[str] = set()
    with atomic_output(out) as handle, zipfile.ZipFile(handle, "w") as archive:
        for name, data in files:
            _claim(name, seen)
            archive.writestr(zip_info(name), data, compresslevel=9)
    return len(seen)


def _write_folder(files: Iterable[tuple[str, bytes]], out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    for name, data in files:
        _claim(name, seen)
        write_file_atomically(out / name, data)
    return len(seen)


def write_files(
    files: Iterable[tuple[str, bytes]], out: str | os.PathLike[str], *, zip: bool | None = None
) -> int:
    """Write ready-made game files, ``(name, bytes)`` pairs, into folder or zip file ``out``.

    ``zip=None`` decides by the name: a path ending in ``.zip`` becomes one archive (written
    to a temporary file and renamed, so a failure leaves the old archive or none); a folder
    gets one file each, each written atomically (never into an export's folder:
    :class:`~strat_tools.io.output.OutputOfAnotherKind`). Pairs are consumed as they come, so a
    million games need no list. Returns the number of files written; raises ``ValueError``
    when two files would get the same name.
    """
    path = Path(out)
    as_zip = path.suffix.lower() == ".zip" if zip is None else zip
    if as_zip:
        if path.is_dir():
            raise InputError(f"{path} is a folder; give a .zip file name to write an archive")
        if not path.parent.is_dir():
            raise InputError(f"folder {path.parent} does not exist")
        return _write_zip(files, path)
    if path.exists() and not path.is_dir():
        raise InputError(f"{path} exists and is not a folder")
    refuse_owned(path, "game files")  # an export's folder: its tables, not records
    return _write_folder(files, path)


def write_games(
    records: Iterable[GameRecord],
    out: str | os.PathLike[str],
    *,
    zip: bool | None = None,
    gravon_quirks: bool = False,
) -> int:
    """Write ``records`` into folder ``out`` (one Gravon-named file each) or zip file ``out``.

    As :func:`write_files`, with each record named by :func:`game_file_name` and written by
    :func:`record_to_xml`. Returns the number of games written.

    >>> write_games(generate_games(100, seed=1), "strados2026-10.zip")  # doctest: +SKIP
    100
    """
    files = (
        (game_file_name(record), record_to_xml(record, gravon_quirks=gravon_quirks))
        for record in records
    )
    return write_files(files, out, zip=zip)
