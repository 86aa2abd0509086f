"""Gravon's older text records, ``.gsn`` ("Stratego-Notation", 2003-2004): read and write.

A file, line by line (``docs/gravon-format.md`` has the details and the sources)::

    #X38FA11 Stratego-Notation v2        header, v1 or v2 (read alike)
    type 0                               0 classic, 1 barrage, 2 free setup, 3 ultimate lightning
    AAAMADBAAA...                        the 100-letter field; absent if the game ended first
    B2-B3                                one move a line, squares as in the XML (row 10 ':')
    E7:22                                after a move: its rescue (ultimate lightning)
    END
    red vs blue result 3 winner 1        players, result type, winner counted from 0

:func:`parse_gsn` gives the same :class:`GameRecord` the XML reader gives for the same game (variant
and type, period and number from the daily file name ``<variant>.<YYYY>.<MM>.<DD>.<n>.gsn`` or a
StraDoS2 name, setup, moves, rescues, players, result; the winner shifted to the XML's 1 red, 2
blue, 3 draw). The two known defects of real files are repaired in memory and reported as ``info``:
more than one ``END`` (the move segments are joined and the first result line kept) and an ``END``
followed by more moves after its result line. Every other oddity is a diagnostic with its line
number; a file that does not start with the header is not a game record (``readable=False``). It
never raises for bad input.

Writing is :mod:`strat_tools.formats.gsn_writer` (``record_to_gsn``, ``gsn_file_name``),
in the grammar this module states (:data:`HEADER`, :data:`TYPE_OF_VARIANT`,
:data:`SQUARESQUARE_NAMES`, :data:`RESULT_LINE`); :func:`split_result_line` reads back the names
it quotes. Day ``00`` in a daily name means "day unknown".

What it does not do: judge the setup or the result (``checks.py``) or the moves
(``replay.py``); it knows no rules. It never modifies its input.
"""

from __future__ import annotations

import json
import re
from typing import Final, NamedTuple

from strat_tools.core.board import square_lookup, square_name
from strat_tools.core.record_formats import Parsed
from strat_tools.core.records import GameRecord, Rescue, Result
from strat_tools.core.text import first_of
from strat_tools.formats.gravon_fields import (
    DAILY_WORDS,
    ERROR,
    INFO,
    WARNING,
    check_variant,
    decode_field,
    new_record,
    report_column_j,
)

HEADER: Final = "#X38FA11 Stratego-Notation v"
"""The first line, before its version digit."""
VERSIONS: Final = (1, 2)
"""The header versions real files carry; no public source tells them apart."""

GSN_TYPES: Final = {
    0: "classic",
    1: "barrage",
    2: "classicfree",
    3: "ultimate lightning",
    4: "duell",
}
"""``type N`` → variant. 0-3 are Gravon's; 4 (duell, which Gravon played only after the
.gsn years) is this project's, so that every XML game can be written."""
TYPE_OF_VARIANT: Final = {variant: number for number, variant in GSN_TYPES.items()}

WORD_OF_VARIANT: Final = {variant: word for word, variant in DAILY_WORDS.items()}

# ASCII only: a non-ASCII digit ('٠', '²') is no number in a record.
_TYPE_LINE: Final = re.compile(r"type\s*(\d{1,3})", re.ASCII)
RESULT_LINE: Final = re.compile(
    r"(?P<players>.*) result (?P<type>\S*) winner (?P<winner>\S*)\s*", re.ASCII
)
_NUMBER: Final = re.compile(r"-?\d{1,9}", re.ASCII)
WINNERS: Final = (0, 1, 2)
"""The result line's winners, counted from 0: red, blue, draw."""

SQUARES: Final = square_lookup()
SQUARE_NAMES: Final = tuple(square_name(sq, gravon=True) for sq in range(100))
_MOVE_LINES: Final = {
    f"{a}-{b}": (i, j) for i, a in enumerate(SQUARE_NAMES) for j, b in enumerate(SQUARE_NAMES)
}
"""Every well-formed move line → (source, target): one dict lookup per move."""


def blank_record(source: str, member: str | None = None) -> GameRecord:
    """A record holding only what the file name says."""
    return new_record(source, member)[0]


def _decode(data: bytes, record: GameRecord) -> str:
    """The file's text (UTF-8, a byte-order mark allowed), or ``None`` if it cannot be one."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        record.add(
            "gsn.encoding",
            WARNING,
            f"byte {exc.start} is not UTF-8; read as Latin-1 (player names may be garbled)",
            line=data.count(b"\n", 0, exc.start) + 1,
        )
        return data.decode("latin-1")


class _Lines:
    """The parse of one file's lines (numbers 1-based) into its record."""

    def __init__(self, record: GameRecord, lines: list[str], split: _Split) -> None:
        self.record = record
        self.lines = lines
        self.numbers = split.numbers
        """The file's line number of each entry of ``lines``."""
        self.runs = split.runs
        """Entry index -> how many blank lines that one (blank) entry stands for."""
        self.field_line: int | None = None
        self.result_line: int | None = None
        self.ends: list[int] = []
        self.moves_after_result = 0
        self.last_move_line: int | None = None
        self.dropped_results: list[int] = []

    def header(self) -> bool:
        """Line 1; ``False`` (the file is not a .gsn record) unless it is the header."""
        text = self.lines[0].strip()
        version = text.removeprefix(HEADER)
        if version == text or not (version.isascii() and version.isdigit()):
            shown = text[:40] if text.isprintable() else "binary data"
            self.record.add(
                "gsn.header",
                ERROR,
                f"line 1 is {shown!r}, expected '{HEADER}1' or '{HEADER}2'",
                line=1,
            )
            return False
        if version.lstrip("0") not in {str(v) for v in VERSIONS}:
            shown = (
                version if len(version) <= 20 else f"{version[:20]}... ({len(version):,} digits)"
            )
            self.record.add(
                "gsn.version",
                WARNING,
                f"header version v{shown} is not v1 or v2; read as they are",
                line=1,
            )
        return True

    def game_type(self, named: str | None) -> None:
        """Line 2, ``type N``: the variant, compared with the file name's."""
        record = self.record
        line = self.lines[1].strip() if len(self.lines) > 1 else None
        found = _TYPE_LINE.fullmatch(line) if line is not None else None
        variant = GSN_TYPES.get(int(found[1])) if found is not None else None
        if variant is None:
            shown = "missing" if line is None else repr(line[:40])
            what = "unknown game type" if found is not None else "line 2 is"
            record.add(
                "game.variant",
                ERROR,
                f"{what} {shown}; expected 'type N' with N 0 classic, 1 barrage, "
                "2 free setup, 3 ultimate lightning or 4 duell",
                line=2,
            )
            record.variant = named if named in TYPE_OF_VARIANT else ""
            return
        check_variant(record, variant, named, 2)

    def body(self) -> None:
        """Lines 3..: field, moves and rescues, END, result; repairs the known defects."""
        lines = self.lines
        start = 2
        if len(lines) > start:
            first = lines[start].strip()
            if first != "END" and not _is_move_shaped(first):
                self.field_line = self.numbers[start]
                decode_field(self.record, first, self.field_line)
                start += 1
        # Without any END, a last line that reads as a result line is taken as one.
        no_end = all(line.strip() != "END" for line in lines[start:])
        last = len(lines) - 1 if no_end and RESULT_LINE.fullmatch(lines[-1]) else None
        after_end = False
        for index in range(start, len(lines)):
            number, text = self.numbers[index], lines[index]
            stripped = text.strip()
            if stripped == "END":
                self.ends.append(number)
                after_end = True
            elif after_end or index == last:
                after_end = False
                self.result(text, number)
            elif not stripped:
                self.blank(index, number)
            else:
                self.move_or_rescue(stripped, index)
        if after_end:
            self.record.add("result.missing", ERROR, "no result line after END", line=self.ends[-1])
        self.repairs()

    def blank(self, index: int, number: int) -> None:
        """A blank line, or a run of them read as one entry (:func:`_split_lines`)."""
        run = self.runs.get(index)
        if run is None:
            self.record.add("gsn.blank_line", WARNING, "blank line skipped", line=number)
            return
        last = number + run - 1
        self.record.add(
            "gsn.blank_line",
            WARNING,
            f"{run:,} blank lines skipped (lines {number}-{last})",
            line=number,
        )

    def move_or_rescue(self, text: str, index: int) -> None:
        """One body line that is neither END nor a result line."""
        if self.result_line is not None:
            self.moves_after_result += 1
        number = self.numbers[index]
        if len(text) >= 3 and text[2] == ":":
            self.rescue(text, number)
            return
        record = self.record
        pair = _MOVE_LINES.get(text)
        if pair is None:
            following = self.lines[index + 1].strip() if index + 1 < len(self.lines) else ""
            rescued = len(following) >= 3 and following[2] == ":"
            pair = self.odd_move(text, number, rescued)
            if pair is None:
                return
        record.sources.append(pair[0])
        record.targets.append(pair[1])
        record.lines.append(number)
        self.last_move_line = number

    def odd_move(self, text: str, number: int, rescued: bool) -> tuple[int, int] | None:
        """A line that is not a well-formed move: its squares (-1 if bad), or ``None``.

        Before a rescue line, column J means K (as in the XML): repaired and reported.
        """
        record = self.record
        ply = len(record.sources) + 1
        left, sep, right = text.partition("-")
        if not sep or len(text) > 7:
            if RESULT_LINE.fullmatch(text) is not None:
                what = "a result line that does not follow END; not read"
            else:
                what = f"{text[:40]!r}: not a move (B2-B3), a rescue (E7:22) or END; not read"
            record.add("gsn.line", ERROR, f"line {number} is {what}", line=number)
            return None
        names = [left, right]
        if rescued:
            names = ["K" + name[1:] if name.startswith("J") else name for name in names]
            if names != [left, right]:
                report_column_j(record, left, right, ply, number)
        squares = []
        for name, shown, role in zip(names, (left, right), ("source", "target"), strict=True):
            square = SQUARES.get(name, -1)
            if square < 0:
                record.add(
                    "move.square",
                    ERROR,
                    f"move {role} is {shown[:20]!r}, not a square A1..K10",
                    line=number,
                    ply=ply,
                )
            squares.append(square)
        return squares[0], squares[1]

    def rescue(self, text: str, number: int) -> None:
        """``E7:22``: the rescue of the move on the line before (square, raw piece number)."""
        record = self.record
        ply = len(record.sources)
        if self.last_move_line != number - 1:
            record.add(
                "rescue.orphan",
                ERROR,
                f"rescue line {text[:20]!r} does not follow a move line; not read",
                line=number,
            )
            return
        raw_field, raw_piece = text[:2], text[3:]
        square = SQUARES.get(raw_field)
        if square is None:
            record.add(
                "rescue.square", ERROR, f"rescue square {raw_field!r} is not a square", line=number
            )
        piece = (
            int(raw_piece)
            if raw_piece.isascii() and raw_piece.isdigit() and len(raw_piece) < 6
            else None
        )
        if piece is None:
            record.add(
                "rescue.piece",
                ERROR,
                f"rescue piece {raw_piece[:20]!r} is not a number",
                line=number,
            )
        record.rescues[ply] = Rescue(square, piece, raw_field, raw_piece)

    def result(self, text: str, number: int) -> None:
        """The line after an END: ``<red> vs <blue> result <type> winner <w>``; first one kept."""
        if self.result_line is not None:
            self.dropped_results.append(number)  # a repeated END's: reported by repairs()
            return
        record = self.record
        self.result_line = number
        names, found = split_result_line(text)
        if names is not None:
            record.players = names
        else:
            record.add(
                "player.missing",
                WARNING,
                f"result line {text[:60]!r} names no players '<red> vs <blue>'",
                line=number,
            )
        if found is None:
            record.add(
                "result.missing",
                ERROR,
                "result line has no 'result <type> winner <w>'",
                line=number,
            )
            return
        rtype = _number(record, found["type"], "result type", "result.type", number)
        winner = _number(record, found["winner"], "result winner", "result.winner", number)
        if winner is not None and winner not in WINNERS:
            # Said in the file's own numbering (from 0), not shifted to the record's.
            record.add(
                "result.winner",
                ERROR,
                f"result winner {winner}; expected 0 (red), 1 (blue) or 2 (draw)",
                line=number,
            )
            winner = None
        record.result = Result(rtype, winner + 1 if winner is not None else None)

    def repairs(self) -> None:
        """Report the two known END defects (repaired by the reading above) or a missing END."""
        record, ends = self.record, self.ends
        if not ends:
            record.add("gsn.end", ERROR, "no END line", line=self.numbers[-1])
            return
        if len(ends) > 1:
            dropped = self.dropped_results
            record.add(
                "repair.gsn_end_repeated",
                INFO,
                f"{len(ends):,} END lines (lines {first_of(ends)}): the move segments are "
                f"joined and the first result line (line {self.result_line}) is kept"
                + (f"; {_lines(dropped)} dropped" if dropped else ""),
                line=ends[1],
            )
        elif len(self.numbers) > 1 and ends[0] != self.numbers[-2]:
            record.add(
                "repair.gsn_end_misplaced",
                INFO,
                f"END on line {ends[0]} is not the second-to-last line: the "
                f"{self.moves_after_result} move lines after its result line are read as the "
                "game's last moves",
                line=ends[0],
            )


_NOT_SPACE: Final = re.compile(r"\S")


class _Split(NamedTuple):
    lines: list[str]
    numbers: list[int]
    runs: dict[int, int]


def _split_lines(text: str) -> _Split:
    r"""The file's lines (``\r`` of CRLF dropped, trailing blank lines too), with a run of
    three or more blank lines kept as its first line and one entry standing for the rest:
    a file of millions of blank lines costs a few entries and one diagnostic, not a list
    of millions. The text is searched for the next line that says something (C speed),
    so time and memory stay bounded by the lines that say something.

    >>> split = _split_lines("a\n\n \n\n\nb\r\n\n")
    >>> split.lines, split.numbers, split.runs
    (['a', '', '', 'b'], [1, 2, 3, 6], {2: 3})
    """
    lines: list[str] = []
    numbers: list[int] = []
    runs: dict[int, int] = {}
    pos, number = 0, 1  # pos: where line ``number`` starts
    while (found := _NOT_SPACE.search(text, pos)) is not None:
        start = text.rfind("\n", pos, found.start()) + 1 or pos
        blank = text.count("\n", pos, start)
        if blank >= 3:
            lines.extend(("", ""))
            numbers.extend((number, number + 1))
            runs[len(lines) - 1] = blank - 1
        else:
            lines.extend([""] * blank)
            numbers.extend(range(number, number + blank))
        number += blank
        end = text.find("\n", found.start())
        end = len(text) if end < 0 else end
        lines.append(text[start:end].removesuffix("\r"))
        numbers.append(number)
        number += 1
        pos = end + 1
    return _Split(lines, numbers, runs)


def _lines(numbers: list[int]) -> str:
    """``line 7`` or ``lines 7, 9 and 3 more``: a bounded list of line numbers."""
    return f"line {numbers[0]}" if len(numbers) == 1 else f"lines {first_of(numbers)}"


def _is_move_shaped(text: str) -> bool:
    return len(text) <= 7 and ("-" in text or (len(text) >= 3 and text[2] == ":"))


def _number(record: GameRecord, text: str, what: str, code: str, line: int) -> int | None:
    if not text:
        record.add(code, ERROR, f"{what} is missing", line=line)
        return None
    if _NUMBER.fullmatch(text) is None:
        record.add(code, ERROR, f"{what} is {text[:20]!r}, not a number", line=line)
        return None
    return int(text)


def parse_gsn(
    data: bytes, source: str, member: str | None = None, *, fast: bool = True
) -> Parsed[GameRecord]:
    """One ``.gsn`` file's bytes → the record (unchecked) and its field and result lines
    (``fast`` is accepted for the registry's contract; there is one path).

    >>> text = "#X38FA11 Stratego-Notation v2\\ntype 1\\nEND\\nann vs bob result 3 winner 1\\n"
    >>> record = parse_gsn(text.encode(), "barrage.2003.07.01.5.gsn").record
    >>> record.variant, record.players, record.result, record.setup
    ('barrage', ('ann', 'bob'), Result(type=3, winner=2), None)
    """
    record, named = new_record(source, member)
    if not data.strip():
        record.add("gsn.empty", ERROR, "empty file" if not data else "file holds only white space")
        record.readable = False
        return Parsed(record, None, None)
    split = _split_lines(_decode(data, record))
    lines = split.lines
    if not lines:
        record.add("gsn.empty", ERROR, "file holds only a byte-order mark")
        record.readable = False
        return Parsed(record, None, None)
    state = _Lines(record, lines, split)
    if not state.header():
        record.readable = False
        return Parsed(record, None, None)
    state.game_type(named)
    state.body()
    return Parsed(record, state.field_line or 2, state.result_line)


# --- the result line's names (quoted by gsn_writer.quote_name) ------------------------------

_JSON: Final = json.JSONDecoder()


def _unquote(text: str) -> tuple[str, str] | None:
    """A quoted name at the start of ``text`` and what follows it, or ``None``."""
    if not text.startswith('"'):
        return None
    try:
        name, end = _JSON.raw_decode(text)
    except ValueError:
        return None
    return (name, text[end:]) if isinstance(name, str) else None


def split_result_line(text: str) -> tuple[tuple[str, str] | None, re.Match[str] | None]:
    """A result line's two names (``None`` without `` vs ``) and its ``result ... winner``
    part (``None`` without one). A quoted name (:func:`~strat_tools.formats.gsn_writer.quote_name`)
    is read back exactly; an unquoted one is taken as it stands, red up to the first `` vs ``, blue
    up to the last `` result <type> winner <w>``.

    >>> names, found = split_result_line('ann vs "bob result 1 winner 0"')
    >>> names, found
    (('ann', 'bob result 1 winner 0'), None)
    >>> split_result_line('"a vs b" vs bob result 3 winner 1')[0]
    ('a vs b', 'bob')
    """
    quoted = _unquote(text)
    if quoted is not None:
        red, rest = quoted
        if not rest.startswith(" vs "):
            return None, RESULT_LINE.fullmatch(text)
        rest = rest[4:]
    else:
        red, sep, rest = text.partition(" vs ")
        if not sep:
            found = RESULT_LINE.fullmatch(text)
            return None, found
    quoted = _unquote(rest)
    if quoted is not None:
        blue, tail = quoted
        found = RESULT_LINE.fullmatch("x" + tail) if tail.strip() else None
        return (red, blue), found
    found = RESULT_LINE.fullmatch(rest)
    blue = found["players"] if found is not None else rest.rstrip()
    return (red, blue), found
