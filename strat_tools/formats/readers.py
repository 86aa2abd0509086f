"""Reading game records of any registered format: bytes → parsed → checked :class:`GameRecord`.

The one place where a file's format is chosen and where parsing is followed by the record
checks. :func:`parse_record` picks the format from the registry
(:mod:`strat_tools.core.record_formats`:
the name's suffix, or the bytes when they say otherwise), calls that format's parser, then
:func:`~strat_tools.core.checks.check_record`. :func:`read_units` and :func:`read_records` do it
for a stream of inputs, one record per input, unreadable ones included; :func:`read_game`
finds one game by its id.

The format parsers (``gravon_xml.py``, ``gsn.py``, ...) sit a floor below: they never check, and
this module is the only reader code that imports ``checks.py``. It does not replay moves
(``replay.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from importlib import import_module
from typing import Protocol, cast

from strat_tools.core.checks import check_record
from strat_tools.core.errors import InputError, NothingReadable
from strat_tools.core.record_formats import (
    FORMATS,
    Parsed,
    RecordFormat,
    choose_format,
    format_for_name,
)
from strat_tools.core.records import UNREADABLE_CODE, GameRecord, Severity
from strat_tools.io.sources import (
    MAX_GAME_BYTES,
    Paths,
    SourceError,
    Unit,
    UnitReader,
    iter_units,
    path_list,
)


class Parser(Protocol):
    """A format's ``parse``: bytes → :class:`~strat_tools.core.record_formats.Parsed`, never
    raising."""

    def __call__(
        self, data: bytes, source: str, member: str | None = None, *, fast: bool = True
    ) -> Parsed[GameRecord]: ...


@cache
def resolve(path: str) -> object:
    """The object a registry entry names as ``"module:name"``, imported on first use."""
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def parser_of(fmt: RecordFormat) -> Parser:
    """The parse function a registry entry names (imported on first use)."""
    return cast(Parser, resolve(fmt.parse))


def blank_of(fmt: RecordFormat) -> Callable[[str, str | None], GameRecord]:
    """The function giving a record with what a file name alone says, for ``fmt``."""
    return cast(Callable[[str, str | None], GameRecord], resolve(fmt.blank))


def parse_record(
    data: bytes,
    source: str,
    member: str | None = None,
    *,
    fast: bool = True,
    check: bool = True,
    format: RecordFormat | None = None,
) -> GameRecord:
    """One game file's bytes → :class:`GameRecord`, with record checks unless ``check=False``.

    The format comes from the name (``member``, else ``source``) and the bytes, unless
    ``format`` is given. A file named for one format that holds another is read as what it
    holds, with a ``source.format`` warning. Raises ``TypeError`` when ``data`` is not bytes
    or a name is not a string.

    >>> data = (b'<?xml version="1.0" encoding="UTF-8"?>\\n<stratego>\\n <game type="classic">\\n'
    ...         b'  <player id="1">ann</player>\\n  <player id="2">bob</player>\\n'
    ...         b'  <result type="3" winner="1"/>\\n </game>\\n</stratego>')
    >>> record = parse_record(data, "classic-2014.5-7.xml")
    >>> record.game_id, record.result, [d.code for d in record.diagnostics]
    ('classic-2014.5-7', Result(type=3, winner=1), ['setup.missing'])
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"parse_record() takes the file's bytes, not {type(data).__name__}")
    if not isinstance(source, str) or not (member is None or isinstance(member, str)):
        raise TypeError("parse_record() takes the source (and member) names as str")
    data = bytes(data)
    name = member if member is not None else source
    claimed = None
    if format is None:
        format, claimed = choose_format(name, data)
    record, setup_line, result_line = parser_of(format)(data, source, member, fast=fast)
    if claimed is not None:
        record.add(
            "source.format",
            Severity.WARNING,
            f"named as {claimed.name} ({claimed.suffix}) but holds {format.name}; read as "
            f"{format.name}",
            line=1,
        )
    if check and record.readable:
        check_record(record, setup_line=setup_line, result_line=result_line)
    record.count_left_out()  # the exact count past the cap (records.MAX_PER_CODE)
    return record


def blank_for(unit: Unit) -> GameRecord:
    """A record holding only what the unit's file (or member) name says."""
    fmt = format_for_name(unit.member if unit.member is not None else unit.source) or FORMATS[0]
    return blank_of(fmt)(unit.source, unit.member)


def unreadable_record(unit: Unit, reason: str) -> GameRecord:
    """The record standing for a unit whose bytes could not be read (name metadata kept)."""
    record = blank_for(unit)
    record.add(UNREADABLE_CODE, Severity.ERROR, reason)
    record.readable = False
    return record


def read_units(
    units: Iterable[Unit], *, check: bool = True, fast: bool = True, limit: int = MAX_GAME_BYTES
) -> Iterator[GameRecord]:
    """One record per unit, in order; each zip is opened once for the whole batch.

    Contained per unit: a unit that cannot be read is an unreadable record, and a reader
    or check that fails on one game (a bug: they never raise for bad input) is an
    ``internal.reader`` error on that game's record, never a stopped run.
    """
    with UnitReader(limit) as reader:
        for unit in units:
            try:
                data = reader.read(unit)
            except SourceError as exc:
                yield unreadable_record(unit, str(exc))
                continue
            try:
                record = parse_record(data, unit.source, unit.member, fast=fast, check=check)
            except Exception as exc:  # one bad game must never stop a run
                record = blank_for(unit)
                record.add(
                    "internal.reader",
                    Severity.ERROR,
                    f"the reader failed on this game: {type(exc).__name__}: {str(exc)[:200]}",
                )
                record.readable = False
            yield record


def read_records(
    paths: Paths,
    *,
    check: bool = True,
    fast: bool = True,
    limit: int = MAX_GAME_BYTES,
) -> Iterator[GameRecord]:
    """Every game under ``paths`` (files, folders, globs, zips; any registered format) as
    records, in a stable order. ``paths`` is one path (str or Path) or an iterable of them.

    >>> for record in read_records("strados2014-4.zip"):  # doctest: +SKIP
    ...     print(record.game_id, record.plies)
    """
    return read_units(iter_units(paths), check=check, fast=fast, limit=limit)


def read_game(
    paths: Paths,
    game: str | None = None,
    *,
    check: bool = True,
    fast: bool = True,
    limit: int = MAX_GAME_BYTES,
) -> GameRecord:
    """The one game under ``paths`` that ``game`` names (its game id, its member path with
    or without the record suffix, or its file name: :meth:`GameRecord.matches`; ``NAME#2``
    the second game of that id, as the tables call it); without ``game``, the only game
    there. Reads the inputs once and keeps only the matches.

    Raises :class:`~strat_tools.core.errors.InputError` (a usage error: exit 2 in the CLI) when
    no game matches, when several do (members of the same name in different folders: name
    the member path), or when the game's file cannot be read (:class:`NothingReadable`,
    also when not one input could be read).

    >>> read_game("tests/fixtures/gravon/classic-2014.4-17.xml").game_id
    'classic-2014.4-17'
    """
    names = path_list(paths)
    found: list[GameRecord] = []
    reasons: list[str] = []
    readable = False
    # NAME#k, as the tables name the k-th game called NAME in input order (GameIds).
    numbered = re.fullmatch(r"(.+)#([2-9]|[1-9]\d+)", game) if game is not None else None
    same: list[GameRecord] = []
    for record in read_records(names, check=check, fast=fast, limit=limit):
        readable |= record.readable
        if not record.readable and len(reasons) < 3:
            reasons.append(unreadable_reason(record))
        if game is None or record.matches(game):
            found.append(record)
        elif numbered is not None and record.game_id == numbered[1]:
            same.append(record)
    if numbered is not None and not found and len(same) >= int(numbered[2]):
        found = [same[int(numbered[2]) - 1]]
    where = " ".join(names)
    if not found or (not readable and game is None):
        if not readable:
            raise NothingReadable(names, reasons)
        raise InputError(f"no game {game} in {where}")
    if len(found) > 1:
        raise SeveralGames(where, len(found), game, found[0].member or found[0].game_id)
    if not found[0].readable:
        raise NothingReadable(names, [unreadable_reason(found[0])])
    return found[0]


def unreadable_reason(record: GameRecord) -> str:
    """Why ``record`` could not be read: its errors, or ``'not a game record'``.

    >>> unreadable_reason(GameRecord("x.xml", readable=False))
    'not a game record'
    """
    reasons = [d.message for d in record.diagnostics if d.severity is Severity.ERROR]
    return "; ".join(reasons) or "not a game record"


class SeveralGames(InputError):
    """More than one game matches (:func:`read_game`): ``where`` holds ``count`` games
    (named ``game``); ``pick`` names the first one unambiguously (its member path).

    >>> str(SeveralGames("two.zip", 2, "x", "a/x.xml"))
    'two.zip holds 2 games named x; name one (a game id or member path, e.g. a/x.xml)'
    """

    def __init__(self, where: str, count: int, game: str | None, pick: str) -> None:
        self.where, self.count, self.game, self.pick = where, count, game, pick
        super().__init__(
            f"{where} holds {count:,} games{self.named}; name one (a game id or member path, "
            f"e.g. {pick})"
        )

    @property
    def named(self) -> str:
        """`` named <game>`` when a name was given, else nothing."""
        return f" named {self.game}" if self.game is not None else ""
