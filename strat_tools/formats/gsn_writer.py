"""Gravon's ``.gsn`` records written: a record as ``.gsn`` text, and its daily file name.

:func:`record_to_gsn` writes a record back in the grammar :mod:`strat_tools.formats.gsn`
reads (header ``v2``), quoting a player name that could be misread (:func:`quote_name`;
:func:`~strat_tools.formats.gsn.split_result_line` reads it back exactly), and
:func:`gsn_file_name` names a record that has no game name (a converted game keeps its id,
``convert.file_name_for``; the readers read both formats' names). Day ``00`` in a daily name
means "day unknown". It raises ``ValueError`` for what the format cannot say, and never
modifies its input.
"""

from __future__ import annotations

import json
from typing import Final

from strat_tools.core.pieces import CODE_LETTERS
from strat_tools.core.records import GameRecord
from strat_tools.formats.gsn import HEADER, SQUARE_NAMES, TYPE_OF_VARIANT, WORD_OF_VARIANT

WRITTEN_VERSION: Final = 2
"""The header version written."""


def quote_name(name: str) -> str:
    """A player name as the result line writes it: as it is, or quoted when it could be
    misread (a JSON string: ``"..."`` with backslash escapes).

    A name is quoted when it is empty, starts or ends with white space, starts with ``"``,
    holds a character that is not printable (a line break, a control character) or holds
    ``vs``, ``result`` or ``winner`` (words of the line's grammar), so that no name can end
    the other name or invent a result, and trailing spaces survive (a lone surrogate: ASCII JSON).

    >>> quote_name("ann"), quote_name("bob result 1 winner 0"), quote_name("eve  ")
    ('ann', '"bob result 1 winner 0"', '"eve  "')
    """
    if (
        name
        and name.isprintable()
        and name == name.strip()
        and not name.startswith('"')
        and not any(word in name for word in _GRAMMAR_WORDS)
    ):
        return name
    return json.dumps(name, ensure_ascii=any("\ud800" <= c <= "\udfff" for c in name))


_GRAMMAR_WORDS: Final = ("vs", "result", "winner")


def _players_line(record: GameRecord) -> str:
    red, blue = record.players
    return f"{quote_name(red)} vs {quote_name(blue)}"


def record_to_gsn(record: GameRecord) -> bytes:
    """The ``.gsn`` text of ``record`` (header v2, ``\\n`` line ends, UTF-8).

    A rescue is written on the line after its move as ``<square>:<piece>``, the piece
    number zero-padded to two digits; a player name that could be misread is quoted
    (:func:`quote_name`). Raises ``ValueError`` for what the format cannot say: a variant
    without a type number, a move with an unreadable square, an unreadable rescue or a setup
    not of 100 squares.

    >>> from strat_tools.core.records import Result
    >>> record = GameRecord("x.xml", variant="barrage", sources=[33], targets=[43],
    ...                     players=("ann", "bob"), result=Result(1, 2))
    >>> print(record_to_gsn(record).decode(), end="")
    #X38FA11 Stratego-Notation v2
    type 1
    D4-D5
    END
    ann vs bob result 1 winner 1
    """
    number = TYPE_OF_VARIANT.get(record.variant)
    if number is None:
        raise ValueError(f"{record.game_id}: variant {record.variant!r} has no .gsn type number")
    parts = [f"{HEADER}{WRITTEN_VERSION}\n", f"type {number}\n"]
    if record.setup is not None:
        if len(record.setup) != 100:
            raise ValueError(f"a setup has 100 squares, this one has {len(record.setup)}")
        parts.append("".join(CODE_LETTERS[code] for code in record.setup) + "\n")
    for ply, (source, target) in enumerate(zip(record.sources, record.targets, strict=True), 1):
        if not (0 <= source < 100 and 0 <= target < 100):
            raise ValueError(f"{record.game_id}: move {ply} has an unreadable square")
        parts.append(f"{SQUARE_NAMES[source]}-{SQUARE_NAMES[target]}\n")
        rescue = record.rescues.get(ply)
        if rescue is not None:
            if rescue.square is None or rescue.piece is None or not 0 <= rescue.piece < 100:
                raise ValueError(f"{record.game_id}: move {ply} has an unreadable rescue")
            parts.append(f"{SQUARE_NAMES[rescue.square]}:{rescue.piece:02d}\n")
    parts.append("END\n")
    result = record.result
    tail = ""
    if result is not None:
        rtype = "" if result.type is None else str(int(result.type))
        winner = "" if result.winner is None else str(int(result.winner) - 1)
        tail = f" result {rtype} winner {winner}"
    parts.append(f"{_players_line(record)}{tail}\n")
    return "".join(parts).encode("utf-8")


def gsn_file_name(record: GameRecord) -> str:
    """The daily file name: ``classic.2003.06.07.505.gsn``; day ``00`` when it is not known.

    Raises ``ValueError`` when the record lacks its variant, year, month or number.
    """
    word = WORD_OF_VARIANT.get(record.variant)
    if word is None or record.year is None or record.month is None or record.number is None:
        raise ValueError(
            f"{record.game_id}: a .gsn name needs variant, year, month and number "
            f"(have {record.variant!r}, {record.year}, {record.month}, {record.number})"
        )
    if not 1 <= record.month <= 12:
        raise ValueError(f"{record.game_id}: month must be 1..12, got {record.month}")
    day = record.day or 0
    return f"{word}.{record.year:04d}.{record.month:02d}.{day:02d}.{record.number}.gsn"
