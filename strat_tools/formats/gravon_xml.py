"""The Gravon StraDoS2 XML reader: one game file's bytes → :class:`GameRecord`.

Two paths give identical records. The *fast path* (:mod:`strat_tools.formats.fastscan`) decodes
files
that match the archive's exact byte layout with one compiled regex; everything else (any odd
or hostile input) goes to the *strict path* here: lxml ``iterparse`` with safe settings (no
DTD, no entities, no network, no huge trees), squares decoded inside the loop, elements
cleared as they are read so no DOM is kept. What each field means (names, the setup field,
move ids) is :mod:`strat_tools.formats.gravon_fields`, shared with the .gsn reader.

What it does: decodes the variant, the file-name metadata (year, calendar month, number),
the setup (``None`` without a ``field``), moves (ply by position, ``id`` checked 1..N, bad
squares as -1), ultimate lightning rescues (raw; column ``J`` in rescue moves repaired to
``K``, reported), players and result, and reports unknown elements and attributes, each
diagnostic with its XML line. An input that is not a game record at all (empty, truncated,
malformed, wrong encoding, a DOCTYPE, another root) gives a record with ``readable=False``
and an ``xml.*`` error. It never raises for bad input.

What it does not do: judge the setup or the result (``checks.py``) or the moves
(``replay.py``). It knows no rules.
"""

from __future__ import annotations

import re
from io import BytesIO
from typing import Any, Final

from lxml import etree

from strat_tools.core.record_formats import Parsed
from strat_tools.core.records import SYNTHETIC_MARK, GameRecord, Rescue, Result
from strat_tools.formats import fastscan
from strat_tools.formats.gravon_fields import (
    ERROR,
    NAME_ESCAPED,
    SQUARES,
    WARNING,
    check_move_ids,
    check_variant,
    decode_field,
    new_record,
    parse_int,
    report_column_j,
    unescape_name,
)
from strat_tools.formats.refusals import refuse

__all__ = [
    "SYNTHETIC_PROLOG",
    "blank_record",
    "from_fast",
    "parse_strict",
    "parse_xml",
]

_KNOWN_ATTRIBUTES: Final = {
    "stratego": (),
    "game": ("type",),
    "field": ("content",),
    "move": ("id", "source", "target"),
    "rescue": ("rescuefield", "rescuepiece"),
    "player": ("id", "escaped"),
    "result": ("type", "winner"),
}
_PARENT: Final = {
    "game": "stratego",
    "field": "game",
    "move": "game",
    "player": "game",
    "result": "game",
    "rescue": "move",
}
_STAGE: Final = {"field": 0, "move": 1, "player": 2, "result": 3}


_PARSE_OPTIONS: Final[dict[str, Any]] = {
    "events": ("end",),
    "resolve_entities": False,  # never expand an entity (billion laughs, XXE)
    "no_network": True,  # never fetch a URL
    "load_dtd": False,  # never load an external DTD
    "huge_tree": False,  # keep libxml2's depth and size limits
    "remove_comments": True,
    "remove_pis": True,
}
"""lxml settings of the strict parser; see docs/security.md."""


class _StrictParser:
    """State of one strict parse: the record being built and where things were seen."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.stage = 0
        self.field_line: int | None = None
        self.result_line: int | None = None
        self.rescue: Rescue | None = None
        self.rescue_line: int | None = None
        self.ids: list[str | None] = []
        self.players: dict[int, str] = {}
        self.counts = {"field": 0, "game": 0, "result": 0}
        self.in_game = 0
        self.dropped = 0
        self.moves_elsewhere = 0
        self.game_line: int | None = None

    def unknown_attributes(self, el: Any, tag: str) -> None:
        """Warn about attributes the format does not define."""
        known = _KNOWN_ATTRIBUTES[tag]
        for name in el.keys():  # noqa: SIM118 - lxml: keys() is the attribute list
            if name not in known:
                self.record.add(
                    "xml.unknown_attribute",
                    WARNING,
                    f"<{tag}> has unknown attribute {name!r}",
                    line=el.sourceline,
                )

    def structure(self, el: Any, tag: str, parent: Any) -> None:
        """Where the element stands: inside the right parent, in the expected order."""
        want = _PARENT.get(tag)
        if want is not None and (parent is None or parent.tag != want):
            found = "the document root" if parent is None else f"<{parent.tag}>"
            self.record.add(
                "xml.structure",
                ERROR,
                f"<{tag}> inside {found}, expected inside <{want}>",
                line=el.sourceline,
            )
        stage = _STAGE.get(tag)
        if stage is not None:
            if stage < self.stage:
                self.record.add(
                    "xml.order",
                    WARNING,
                    f"<{tag}> after later elements; expected field, moves, players, result",
                    line=el.sourceline,
                )
            self.stage = max(self.stage, stage)

    def move(self, el: Any) -> None:
        """A move off the hot path: odd attributes, bad squares, rescue, or out of place."""
        record = self.record
        line = el.sourceline or 0
        parent = el.getparent()
        if parent is None or parent.tag != "game":
            self.moves_elsewhere += 1
        self.structure(el, "move", parent)
        self.unknown_attributes(el, "move")
        self.ids.append(el.get("id"))
        src, tgt = el.get("source"), el.get("target")
        ply = len(record.sources) + 1
        rescue = self.rescue
        if rescue is not None:
            self.rescue = None
            record.rescues[ply] = rescue
            src, tgt = self.repair_column_j(src, tgt, ply, line)
        record.sources.append(self.square(src, "source", ply, line))
        record.targets.append(self.square(tgt, "target", ply, line))
        record.lines.append(line)

    def square(self, name: str | None, what: str, ply: int, line: int) -> int:
        """A square name → index, or -1 with a ``move.square`` error."""
        sq = SQUARES.get(name, -1) if name is not None else -1
        if sq < 0:
            shown = "missing" if name is None else repr(name[:20])
            self.record.add(
                "move.square",
                ERROR,
                f"move {what} is {shown}, not a square A1..K10",
                line=line,
                ply=ply,
            )
        return sq

    def repair_column_j(
        self, src: str | None, tgt: str | None, ply: int, line: int
    ) -> tuple[str | None, str | None]:
        """Column J in a rescue move means K (a known archive defect): repair and report."""
        fixed = [s if s is None or not s.startswith("J") else "K" + s[1:] for s in (src, tgt)]
        if fixed != [src, tgt]:
            report_column_j(self.record, src or "", tgt or "", ply, line)
        return fixed[0], fixed[1]

    def rescue_element(self, el: Any) -> None:
        """``<rescue>``: kept raw for the move that ends next."""
        raw_field, raw_piece = el.get("rescuefield", ""), el.get("rescuepiece", "")
        square = SQUARES.get(raw_field)
        if square is None:
            self.record.add(
                "rescue.square",
                ERROR,
                f"rescuefield {raw_field[:20]!r} is not a square",
                line=el.sourceline,
            )
        piece = (
            int(raw_piece)
            if raw_piece.isascii() and raw_piece.isdigit() and len(raw_piece) < 6
            else None
        )
        if piece is None:
            self.record.add(
                "rescue.piece",
                ERROR,
                f"rescuepiece {raw_piece[:20]!r} is not a number",
                line=el.sourceline,
            )
        self.rescue = Rescue(square, piece, raw_field, raw_piece)

    def player(self, el: Any) -> None:
        """``<player id>name</player>``."""
        pid = parse_int(self.record, el.get("id"), "player id", "player.id", el.sourceline)
        if pid not in (1, 2):
            if pid is not None:
                self.record.add(
                    "player.id", ERROR, f"player id {pid}; expected 1 or 2", line=el.sourceline
                )
            return
        if pid in self.players:
            self.record.add(
                "player.repeated", WARNING, f"player {pid} given twice", line=el.sourceline
            )
        self.players[pid] = self.player_name(el)

    def player_name(self, el: Any) -> str:
        """The name: as written, or with the writer's backslash escapes undone."""
        text: str = el.text or ""
        escaped = el.get("escaped")
        if escaped is None:
            return text
        name = unescape_name(text) if escaped == NAME_ESCAPED else None
        if name is None:
            self.record.add(
                "player.escaped",
                WARNING,
                f"<player escaped={escaped[:20]!r}> holds no name escaped the writer's way "
                f"('{NAME_ESCAPED}': \\\\ and \\uXXXX); the text is kept as written",
                line=el.sourceline,
            )
            return text
        return name

    def result(self, el: Any) -> None:
        """``<result type winner>``, raw ints (checks.py judges them)."""
        line = el.sourceline
        self.counts["result"] += 1
        if self.counts["result"] > 1:
            self.record.add("result.repeated", ERROR, "more than one <result>", line=line)
        self.result_line = line
        rtype = parse_int(self.record, el.get("type"), "result type", "result.type", line)
        winner = parse_int(self.record, el.get("winner"), "result winner", "result.winner", line)
        self.record.result = Result(rtype, winner)

    def field(self, el: Any) -> None:
        """``<field content>``: the setup."""
        self.counts["field"] += 1
        if self.counts["field"] > 1:
            self.record.add("setup.field", ERROR, "more than one <field>", line=el.sourceline)
            return
        self.field_line = el.sourceline
        content = el.get("content")
        if content is None:
            self.record.add(
                "setup.field", ERROR, "<field> has no content attribute", line=el.sourceline
            )
            return
        decode_field(self.record, content, el.sourceline)

    def run(self, data: bytes, named: str | None) -> None:
        """Parse ``data``; raises lxml's ``XMLSyntaxError`` for XML that is not well formed."""
        record = self.record
        sources, targets, lines, ids = record.sources, record.targets, record.lines, self.ids
        square = SQUARES.get
        el: Any = None
        hot = False  # whether the next move may take the hot path (recomputed after slow ones)
        seen = 0  # elements read off the hot path
        for _event, el in etree.iterparse(BytesIO(data), **_PARSE_OPTIONS):
            if el.tag == "move":
                # Hot loop: one call for all attributes; anything unusual takes move().
                items = el.items()
                if hot and len(items) == 3:
                    (k_id, mid), (k_src, src), (k_tgt, tgt) = items
                    sq_src, sq_tgt = square(src, -1), square(tgt, -1)
                    if (
                        k_src == "source"
                        and k_tgt == "target"
                        and k_id == "id"
                        and sq_src >= 0 <= sq_tgt
                    ):
                        ids.append(mid)
                        sources.append(sq_src)
                        targets.append(sq_tgt)
                        lines.append(el.sourceline)
                        if len(ids) & 1023 == 0:
                            self.drop_read_moves(el)
                        continue
                self.move(el)
            elif isinstance(el.tag, str):
                if el.tag == "game":
                    self.in_game += len(ids) - self.moves_elsewhere
                self.element(el, el.tag, named)
            seen += 1
            if seen & 1023 == 0:  # bad moves and unknown elements too: no DOM builds up
                self.drop_read_moves(el)
            hot = self.stage == 1 and self.rescue is None
        if el is None:
            raise ValueError("no element found")
        self.finish(el.tag if isinstance(el.tag, str) else "?")

    def drop_read_moves(self, el: Any) -> None:
        """Delete the game's children read so far, so no DOM builds up in a long game."""
        parent = el.getparent()
        if parent is not None and parent.tag == "game":
            # Only earlier siblings: libxml2 may already have parsed elements after this one.
            done = parent.index(el)
            self.dropped += done
            del parent[:done]

    def element(self, el: Any, tag: str, named: str | None) -> None:
        """Every element but an ordinary move."""
        line = el.sourceline
        parent = el.getparent()
        if parent is not None and parent.tag == "game":
            self.in_game += 1
        if tag not in _KNOWN_ATTRIBUTES:
            self.record.add(
                "xml.unknown_element", WARNING, f"unknown element <{tag[:40]}>", line=line
            )
            el.clear()
            return
        self.structure(el, tag, parent)
        self.unknown_attributes(el, tag)
        if tag == "game":
            self.game(el, named)
        elif tag == "field":
            self.field(el)
        elif tag == "rescue":
            self.rescue_element(el)
        elif tag == "player":
            self.player(el)
        elif tag == "result":
            self.result(el)

    def game(self, el: Any, named: str | None) -> None:
        """The end of ``<game>``: its type, and whether every child was seen where expected."""
        self.counts["game"] += 1
        self.game_line = el.sourceline
        self.stage = max(self.stage, len(_STAGE))  # anything after the game is out of place
        if self.counts["game"] > 1:
            return
        check_variant(self.record, el.get("type"), named, self.game_line)
        if len(el) + self.dropped != self.in_game:
            self.record.add(
                "xml.structure",
                ERROR,
                f"<game> has {len(el) + self.dropped} child elements but {self.in_game} were"
                " read in place;"
                " a <move> is nested where it does not belong",
                line=self.game_line,
            )
        el.clear()

    def finish(self, root: str) -> None:
        """After the parse: root, game count, ids, result and players."""
        record = self.record
        game_line = self.game_line
        if root != "stratego":
            record.add(
                "xml.root", ERROR, f"root element is <{root[:40]}>, expected <stratego>", line=1
            )
            record.readable = False
            return
        if self.counts["game"] != 1:
            found = (
                "no <game>" if not self.counts["game"] else f"{self.counts['game']} <game> elements"
            )
            record.add("xml.game", ERROR, f"{found}; expected exactly one", line=game_line)
            if not self.counts["game"]:
                record.readable = False
                return
        self.check_ids()
        if record.result is None:
            record.add("result.missing", ERROR, "no <result>", line=game_line)
        if set(self.players) != {1, 2}:
            missing = " and ".join(str(p) for p in (1, 2) if p not in self.players)
            record.add("player.missing", WARNING, f"no <player> with id {missing}", line=game_line)
        record.players = (self.players.get(1, ""), self.players.get(2, ""))

    def check_ids(self) -> None:
        """Move ids must run 1..N with no gaps or repeats; plies follow position anyway."""
        check_move_ids(self.record, self.ids)


_XML_ERROR_KINDS: Final = (
    ("xml.entity", ("Entity '", "entity", "Entity")),
    ("xml.encoding", ("encoding", "Input is not proper UTF-8", "Char 0x", "invalid character")),
    ("xml.limit", ("too long", "Excessive depth", "huge", "xmlParserMaxDepth", "limit")),
    ("xml.truncated", ("Premature end", "EndTag", "Couldn't find end", "expected '>'")),
)


def _xml_error(exc: etree.XMLSyntaxError) -> tuple[str, str, int | None]:
    """(code, message, line) for a syntax error, naming what was found.

    libxml2's own first fatal error is preferred: with ``resolve_entities=False`` lxml's
    exception text can degrade to "no element found" while the log holds the real cause.
    """
    message, line = str(exc.msg or exc), exc.lineno or None
    last: Any = getattr(exc.error_log, "last_error", None)
    if last is not None and ("no element found" in message or not message):
        message, line = str(last.message), last.line or None
    message = message[:200]
    if "Document is empty" in message or "no element found" in message:
        return "xml.empty", "no XML element in the file", None
    for code, needles in _XML_ERROR_KINDS:
        if any(needle in message for needle in needles):
            what = {
                "xml.entity": "entity reference refused (no entities)",
                "xml.encoding": "bytes not valid in the declared encoding",
                "xml.limit": "beyond the parser's safety limits",
                "xml.truncated": "file ends inside an element (truncated?)",
            }[code]
            return code, f"{what}: {message}", line
    return "xml.malformed", f"not well-formed XML: {message}", line


def _ends_early(data: bytes, line: int | None) -> bool:
    """Whether a parse error sits on the last line of a file that stops before its root ends."""
    last_line = data.count(b"\n") + 1
    return line is not None and line >= last_line and not data.rstrip().endswith(b"</stratego>")


SYNTHETIC_PROLOG: Final = re.compile(
    rb"(?:\xef\xbb\xbf)?<\?xml[^>]{0,200}\?>\s{0,20}" + re.escape(SYNTHETIC_MARK)
)
"""The generator's mark in a file's prolog, right after the XML declaration (the strict
parser drops processing instructions, so the prolog is matched here)."""


def parse_strict(
    data: bytes, source: str, member: str | None = None
) -> tuple[GameRecord, int | None, int | None]:
    """Strict-path parse: (record, setup line, result line). Never raises for bad input.

    The setup line is the ``<field>``'s, or ``<game>``'s when there is no field.
    """
    record, named = new_record(source, member)
    refused = refuse(data)
    if refused is not None:
        record.add(refused[0], ERROR, refused[1], line=1 if refused[0] != "xml.empty" else None)
        record.readable = False
        return record, None, None
    record.synthetic = SYNTHETIC_PROLOG.match(data) is not None
    parser = _StrictParser(record)
    try:
        parser.run(data, named)
    except etree.XMLSyntaxError as exc:
        code, message, line = _xml_error(exc)
        if code == "xml.malformed" and _ends_early(data, line):
            detail = message.removeprefix("not well-formed XML: ")
            code, message = "xml.truncated", f"file ends inside an element (truncated?): {detail}"
        record.add(code, ERROR, message, line=line)
        record.readable = False
    except (ValueError, MemoryError, RecursionError) as exc:
        record.add("xml.malformed", ERROR, f"cannot parse: {type(exc).__name__}", line=None)
        record.readable = False
    # Without a <field>, setup diagnostics point at <game>, where the field should have been.
    return record, parser.field_line or parser.game_line, parser.result_line


def from_fast(game: fastscan.FastGame, source: str, member: str | None) -> GameRecord:
    """Build the record for a fast-path scan, with the same diagnostics as the strict path."""
    record, named = new_record(source, member)
    if game.field is not None:
        decode_field(record, game.field, game.field_line)
    record.sources, record.targets, record.lines = game.sources, game.targets, game.lines
    for rescue in game.rescues:
        line = game.lines[rescue.ply - 1]
        report_column_j(record, rescue.source, rescue.target, rescue.ply, line)
        square = SQUARES[rescue.field]
        record.rescues[rescue.ply] = Rescue(square, int(rescue.piece), rescue.field, rescue.piece)
    record.players = game.players
    record.result = Result(game.result_type, game.winner)
    record.synthetic = game.synthetic
    check_variant(record, game.variant, named, game.game_line)
    return record


def parse_xml(
    data: bytes, source: str, member: str | None = None, *, fast: bool = True
) -> Parsed[GameRecord]:
    """One XML game file's bytes → the record (unchecked) and its setup and result lines.

    ``fast=False`` forces the strict path (the fast path falls back to it by itself for
    anything that is not byte-for-byte the archive's layout). Reading and checking together
    is :func:`strat_tools.formats.readers.parse_record`.

    >>> data = open("classic-2014.5-2245.xml", "rb").read()  # doctest: +SKIP
    >>> record = parse_xml(data, "classic-2014.5-2245.xml").record  # doctest: +SKIP
    >>> record.variant, record.plies  # doctest: +SKIP
    ('classic', 490)
    """
    game = fastscan.scan(data) if fast else None
    if game is not None:
        record = from_fast(game, source, member)
        return Parsed(record, game.field_line or game.game_line, game.result_line)
    return Parsed(*parse_strict(data, source, member))


def blank_record(source: str, member: str | None = None) -> GameRecord:
    """A record holding only what the file (or zip) name says."""
    return new_record(source, member)[0]
