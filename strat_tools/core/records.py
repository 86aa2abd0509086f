"""Game records and diagnostics: the values that pass between reader, engine and tables.

A :class:`GameRecord` is what a file says, decoded (squares as ints, the setup as board
codes) but not judged: it is built by a reader (``formats/gravon_xml.py``,
``formats/gsn.py``) or by hand, and checked by ``checks.py`` and ``replay.py``. A bad game
is data, not an exception: problems are :class:`Diagnostic` values collected on the record,
never raised.

This module knows no file format and no rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import PurePosixPath
from typing import Final

from strat_tools.core.board import Side, Square, parse_square, square_name
from strat_tools.core.errors import OptionError, StratToolsError
from strat_tools.core.move import Move, decode_rescue_piece
from strat_tools.core.record_formats import strip_record_suffix

VARIANTS: Final = ("classic", "barrage", "duell", "ultimate lightning", "classicfree")
"""The Gravon variants, as written in ``game/@type`` and file names."""

DEFAULT_VARIANT: Final = "classic"
"""The variant every statistic, table and picture covers when none is named (``stats``,
``heatmap``, ``setups``, ``search``, ``advice``, the report's detailed sections): armies differ
between variants, so their setups never pool unless asked (``pool_variants``)."""

ALL_VARIANTS: Final = "all"
"""The name that asks for every variant, each counted apart (one ``variant`` group each)."""

SYNTHETIC_MARK: Final = b"<?strat-tools synthetic?>"
"""The processing instruction ``strat-tools generate`` writes on the line after the XML
declaration of every game it makes: such games were never played by people. The format
allows it (XML ignores processing instructions it does not know); both readers see it."""


def parse_variant(
    text: str, allowed: tuple[str, ...] = VARIANTS, what: str = "this command"
) -> str:
    """The variant a player means, in any case, with ``-`` or ``_`` for the space
    (``Ultimate-Lightning``); ``OptionError`` (a ``ValueError``) lists the ``allowed`` names,
    or for a known variant that ``what`` does not cover says so (:func:`variant_not_covered`).

    >>> parse_variant("Classic"), parse_variant("ultimate_lightning")
    ('classic', 'ultimate lightning')
    >>> parse_variant("clasic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    strat_tools.core.errors.OptionError: unknown variant 'clasic'; choose from classic, barrage, ...
    """
    word = " ".join(text.strip().lower().replace("-", " ").replace("_", " ").split())
    if word in allowed:
        return word
    if word == ALL_VARIANTS:
        raise OptionError(f"{what} takes no 'all': name the variants, from {', '.join(allowed)}")
    if word in VARIANTS:
        raise OptionError(variant_not_covered(word, allowed, what))
    raise OptionError(f"unknown variant {text!r}; choose from {', '.join(allowed)}")


def variant_not_covered(variant: str, covered: Iterable[str], what: str = "this command") -> str:
    """What the user reads when ``variant``, a variant Gravon has, is one that ``what``
    does not cover: it names the variant as known and says which ones it covers (never
    "unknown variant" for a name the option's own list of variants holds).

    >>> variant_not_covered("classicfree", ["classic", "barrage"], "the explorer")
    "'classicfree' is a known variant, but the explorer covers classic and barrage only \
(classicfree: any army on any square)"
    """
    names = [name for name in covered if name != ALL_VARIANTS]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    why = " (classicfree: any army on any square)" if variant == "classicfree" else ""
    return f"{variant!r} is a known variant, but {what} covers {listed} only{why}"


class Severity(StrEnum):
    """How bad a diagnostic is. Only ``error`` makes a game invalid."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Status(StrEnum):
    """The verdict on one input game."""

    VALID = "valid"
    INVALID = "invalid"
    UNCHECKED = "unchecked"
    UNREADABLE = "unreadable"
    """Not a game at all: the input's bytes could not be read (a missing path, a FIFO, a
    broken zip, a member that does not inflate); counted apart from the games."""


MAX_PER_CODE: Final = 100
"""Diagnostics of one code one game keeps (its reader's, and its replay's): the rest are
counted by one :data:`CAPPED_CODE` diagnostic, so a hostile file of a million bad lines
costs a bounded list, not a million messages."""

CAPPED_CODE: Final = "diagnostics.capped"
"""The code of the diagnostic counting those of another code left out past the cap."""

UNREADABLE_CODE: Final = "source.unreadable"
"""The diagnostic code of an input whose bytes could not be read."""


class RecordError(StratToolsError, ValueError):
    """A record built by hand is inconsistent (lists of different lengths, codes out of
    range): the library cannot process it. Records from a reader never raise this."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in one game, located as precisely as the input allows.

    ``code`` is stable and dotted (``setup.army``, ``move.square``, ``rule.two_squares``);
    ``line`` is the 1-based line of the record file; ``ply`` the 1-based move number, when
    they apply.
    """

    code: str
    severity: Severity
    message: str
    source: str = ""
    member: str | None = None
    line: int | None = None
    ply: int | None = None

    @property
    def location(self) -> str:
        """``file[:member][:line]``, for one-line text output."""
        where = self.source
        if self.member is not None:
            where += f"!{self.member}"
        if self.line is not None:
            where += f":{self.line}"
        return where

    def __str__(self) -> str:
        ply = f" ply {self.ply}" if self.ply is not None else ""
        return f"{self.location}:{ply} {self.severity} [{self.code}] {self.message}"


class Termination(IntEnum):
    """How a game ended, by Gravon result type. ``UNKNOWN`` for anything else."""

    NO_MOVES = 0
    FLAG_CAPTURED = 1
    BOTH_NO_MOVES = 2
    RESIGNED = 3
    DRAW_AGREED = 4
    BOTH_MISSING = 10
    CLOCK = 11
    GAME_CLOCK = 12
    CLOCK_WHILE_MISSING = 13
    OPPONENT_MISSING = 14
    UNKNOWN = -1

    @property
    def label(self) -> str:
        """Lower-case name for tables: ``'flag_captured'``."""
        return self.name.lower()

    def __str__(self) -> str:
        """Its name, :attr:`label` (``'resigned'``), not the Gravon number.

        >>> str(Termination.RESIGNED), f"{Termination.RESIGNED:d}"
        ('resigned', '3')
        """
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        return format(int(self), spec) if spec else str(self)

    @classmethod
    def from_type(cls, result_type: int | None) -> Termination:
        """The termination for a Gravon result type (``UNKNOWN`` if not a known type)."""
        try:
            return cls(result_type) if result_type is not None and result_type >= 0 else cls.UNKNOWN
        except ValueError:
            return cls.UNKNOWN


RESULT_TYPES: Final = frozenset(t.value for t in Termination if t is not Termination.UNKNOWN)


@dataclass(frozen=True, slots=True)
class Result:
    """``<result type winner>`` as recorded. ``winner``: 1 red, 2 blue, 3 draw (raw ints)."""

    type: int | None
    winner: int | None

    @property
    def termination(self) -> Termination:
        """The ending this result type names."""
        return Termination.from_type(self.type)

    @property
    def winner_side(self) -> Side | None:
        """The winning side, or ``None`` for a draw or an unknown winner."""
        return Side(self.winner) if self.winner in (1, 2) else None

    @property
    def is_draw(self) -> bool:
        """Whether the record says draw (winner 3)."""
        return self.winner == 3


@dataclass(frozen=True, slots=True)
class Rescue:
    """Ultimate lightning's ``<rescue rescuefield rescuepiece>``, as recorded.

    ``square`` is the decoded ``rescuefield`` (``None`` if unreadable); ``piece`` the raw
    ``rescuepiece`` number, whose decoding is the engine's business.
    """

    square: Square | None
    piece: int | None
    raw_field: str
    raw_piece: str


class RecordedMove:
    """One recorded move: the :class:`~strat_tools.core.move.Move` it carries (``move``), and
    beside it its ``ply`` (1-based), the record file's ``line`` and the ``rescue`` as recorded
    (:class:`Rescue`, undecoded). It compares and hashes as the move it carries where it meets
    a :class:`Move` (so ``m in pos.legal_moves``, ``Move.of(m) == m``), prints as it
    (``'B2-B3'``) and :meth:`Position.push <strat_tools.engine.position.position.Position.push>`
    takes it. ``source``/``target`` are squares, or -1 where the name was bad (printed
    ``??``).

    >>> m = RecordedMove.from_str("B2-B3", ply=1)
    >>> str(m), m == Move.parse("B2-B3"), Move.of(m) == m, (m.ply, m.source, m.target)
    ('B2-B3', True, True, (1, 11, 21))
    """

    __slots__ = ("line", "move", "ply", "rescue")

    def __init__(
        self, ply: int, move: Move, line: int | None = None, rescue: Rescue | None = None
    ) -> None:
        self.ply = ply
        self.move = move
        self.line = line
        self.rescue = rescue

    @classmethod
    def of(
        cls,
        ply: int,
        source: Square,
        target: Square,
        line: int | None = None,
        rescue: Rescue | None = None,
    ) -> RecordedMove:
        """The move of ply ``ply`` as a record holds it: its rescue decoded into the carried
        move when the record's rescue reads (the mover is red on odd plies)."""
        carried = None
        if rescue is not None and rescue.square is not None:
            code = decode_rescue_piece(rescue.piece, Side.RED if ply % 2 else Side.BLUE)
            carried = (rescue.square, code) if code > 0 else None
        return cls(ply, Move(source, target, carried), line, rescue)

    @property
    def source(self) -> Square:
        """The source square (-1 where the record's name was bad)."""
        return self.move.source

    @property
    def target(self) -> Square:
        """The target square (-1 where the record's name was bad)."""
        return self.move.target

    @property
    def readable(self) -> bool:
        """Whether the move and its rescue, if any, read (squares 0..99, a rescued piece
        named): a move :meth:`Position.push` can judge."""
        squares_read = 0 <= self.move.source < 100 and 0 <= self.move.target < 100
        return squares_read and (self.rescue is None or self.move.rescue is not None)

    @classmethod
    def from_str(cls, text: str, ply: int = 1) -> RecordedMove:
        """``RecordedMove.from_str('D4-D5')``; accepts Gravon's ``K:`` too."""
        left, sep, right = text.partition("-")
        if not sep:
            raise ValueError(f"not a move: {text!r} (expected like 'D4-D5')")
        return cls(ply, Move(parse_square(left.strip()), parse_square(right.strip())))

    def to_str(self) -> str:
        """``'D4-D5'``; bad squares as ``'??'``."""

        def name(sq: int) -> str:
            return square_name(sq) if 0 <= sq < 100 else "??"

        return f"{name(self.source)}-{name(self.target)}"

    def uci(self) -> str:
        """As :meth:`Move.uci`: ``'D4-D5'``."""
        return self.to_str()

    __str__ = to_str

    def __repr__(self) -> str:
        rescue = "" if self.rescue is None else f", rescue={self.rescue!r}"
        return f"RecordedMove(ply={self.ply}, {self.to_str()}, line={self.line}{rescue})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordedMove):
            return (self.ply, self.move, self.line, self.rescue) == (
                other.ply,
                other.move,
                other.line,
                other.rescue,
            )
        if isinstance(other, Move):
            return self.move == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.move)


@dataclass(slots=True)
class GameRecord:
    """One game as recorded: where it came from, its setup, its moves and its result.

    The setup is a tuple of 100 board codes (see ``pieces.py``), or ``None`` when the file
    has no usable ``field``. Moves are kept as parallel int lists (fast to build and replay);
    :attr:`moves` gives them as :class:`RecordedMove` values.
    """

    source: str
    member: str | None = None
    variant: str = ""
    year: int | None = None
    month: int | None = None
    number: int | None = None
    day: int | None = None
    """The day of the month, where the file name tells it (``.gsn`` daily names)."""
    setup: tuple[int, ...] | None = None
    sources: list[int] = field(default_factory=list)
    targets: list[int] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    rescues: dict[int, Rescue] = field(default_factory=dict)
    players: tuple[str, str] = ("", "")
    result: Result | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    readable: bool = True
    """False when the input could not be read as a game record at all."""
    synthetic: bool = False
    """True for a game made by ``strat-tools generate`` (its file carries
    :data:`SYNTHETIC_MARK`), not one played by people."""
    code_counts: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    """How many diagnostics of each code :meth:`add` was given (kept or left out)."""
    capped_at: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    """Code -> index in :attr:`diagnostics` of its :data:`CAPPED_CODE` count."""

    @property
    def name(self) -> str:
        """The game file's name: the zip member, or the file path's last part."""
        return PurePosixPath(self.member if self.member is not None else self.source).name

    def __repr__(self) -> str:
        return f"<GameRecord {self.game_id}: {self.variant or 'no variant'}, {self.plies} plies>"

    @property
    def game_id(self) -> str:
        """Gravon's natural id, the file name without its record suffix (``.xml``, ``.gsn``):
        ``'classic-2014.5-2245'``, ``'classic.2003.06.07.505'``."""
        return strip_record_suffix(self.name)

    @property
    def plies(self) -> int:
        """Number of recorded moves."""
        return len(self.sources)

    @property
    def moves(self) -> tuple[RecordedMove, ...]:
        """The moves as values, each carrying its :class:`~strat_tools.core.move.Move`
        (built on demand; hot code should use the int lists)."""
        lines = self.lines if len(self.lines) == len(self.sources) else [None] * len(self.sources)
        rescues = self.rescues
        return tuple(
            RecordedMove.of(i + 1, s, t, ln, rescues.get(i + 1))
            if rescues
            else RecordedMove(i + 1, Move(s, t), ln)
            for i, (s, t, ln) in enumerate(zip(self.sources, self.targets, lines, strict=True))
        )

    @property
    def unreadable_input(self) -> bool:
        """Whether this record stands for an input whose bytes could not be read."""
        return not self.readable and any(d.code == UNREADABLE_CODE for d in self.diagnostics)

    def matches(self, game: str) -> bool:
        """Whether ``game`` names this record: its game id, or its member path (with or
        without its record suffix), or its file name.

        >>> GameRecord("a.zip", "2014/classic-2014.5-1.xml").matches("2014/classic-2014.5-1")
        True
        """
        if game == self.game_id or game == self.name:
            return True
        path = self.member if self.member is not None else self.source
        return game in (path, strip_record_suffix(path))

    @property
    def errors(self) -> list[Diagnostic]:
        """The error-severity diagnostics."""
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    def add(
        self,
        code: str,
        severity: Severity,
        message: str,
        *,
        line: int | None = None,
        ply: int | None = None,
    ) -> Diagnostic:
        """Record a diagnostic located in this game's file and member: the first
        :data:`MAX_PER_CODE` of each code, then one :data:`CAPPED_CODE` diagnostic counting
        the rest (kept up to date in constant time a call). Returns the diagnostic kept, or
        past the cap the count standing for it."""
        count = self.code_counts.get(code, 0) + 1
        self.code_counts[code] = count
        if count <= MAX_PER_CODE:
            diag = Diagnostic(code, severity, message, self.source, self.member, line, ply)
            self.diagnostics.append(diag)
            return diag
        at = self.capped_at.get(code)
        if at is None:
            at = self.capped_at[code] = len(self.diagnostics)
            self.diagnostics.append(capped_count(code, severity, 1, self.source, self.member))
        elif _is_round(count - MAX_PER_CODE):  # the exact count is set by count_left_out()
            self.diagnostics[at] = capped_count(
                code, severity, count - MAX_PER_CODE, self.source, self.member
            )
        return self.diagnostics[at]

    def count_left_out(self) -> None:
        """Bring every :data:`CAPPED_CODE` diagnostic to its exact count (the readers call
        this once a record is parsed and checked)."""
        for code, at in self.capped_at.items():
            old = self.diagnostics[at]
            left = self.code_counts[code] - MAX_PER_CODE
            self.diagnostics[at] = capped_count(code, old.severity, left, self.source, self.member)


def _is_round(n: int) -> bool:
    """1, 2, 4, 8, ...: when :meth:`GameRecord.add` refreshes a count before the exact one."""
    return n & (n - 1) == 0


def capped_count(
    code: str, severity: Severity, left_out: int, source: str = "", member: str | None = None
) -> Diagnostic:
    """The diagnostic saying ``left_out`` more diagnostics of ``code`` were left out.

    >>> capped_count("gsn.blank_line", Severity.WARNING, 5_000, "a.gsn").message
    '5,000 more [gsn.blank_line] diagnostics left out (the first 100 are kept)'
    """
    return Diagnostic(
        CAPPED_CODE,
        severity,
        f"{left_out:,} more [{code}] diagnostics left out (the first {MAX_PER_CODE} are kept)",
        source,
        member,
    )


def capped(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` with the first :data:`MAX_PER_CODE` of each code, and one
    :data:`CAPPED_CODE` diagnostic (where the first left out was) counting the rest of that
    code: the same cap as :meth:`GameRecord.add`, for a list made elsewhere (a replay's).

    >>> d = Diagnostic("rule.chase", Severity.WARNING, "chase")
    >>> [x.code for x in capped([d] * 102)][-2:]
    ['rule.chase', 'diagnostics.capped']
    """
    out: list[Diagnostic] = []
    counts: dict[str, int] = {}
    first_left: dict[str, tuple[int, Diagnostic]] = {}
    for diag in diagnostics:
        count = counts[diag.code] = counts.get(diag.code, 0) + 1
        if count <= MAX_PER_CODE:
            out.append(diag)
        elif count == MAX_PER_CODE + 1:
            first_left[diag.code] = (len(out), diag)
            out.append(diag)  # replaced below by the count
    for code, (at, diag) in first_left.items():
        out[at] = capped_count(
            code, diag.severity, counts[code] - MAX_PER_CODE, diag.source, diag.member
        )
    return out


def require_record(record: object, caller: str) -> None:
    """Raise ``TypeError`` naming ``caller`` unless ``record`` is a :class:`GameRecord`.

    >>> require_record(None, "replay")
    Traceback (most recent call last):
    ...
    TypeError: replay() takes a GameRecord (read one with strat_tools.read_records), not NoneType
    """
    if not isinstance(record, GameRecord):
        raise TypeError(
            f"{caller}() takes a GameRecord (read one with strat_tools.read_records), "
            f"not {type(record).__name__}"
        )
