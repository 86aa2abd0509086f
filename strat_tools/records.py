"""Game records and diagnostics: the values that pass between reader, engine and tables.

A :class:`GameRecord` is what a file says, decoded (squares as ints, the setup as board
codes) but not judged: it is built by a reader (``gravon.py``, ``gsn.py``) or by hand, and
checked by ``checks.py`` and ``replay.py``. A bad game is data, not an exception: problems are
:class:`Diagnostic` values collected on the record, never raised.

This module knows no file format and no rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import PurePosixPath
from typing import Final, NamedTuple

from strat_tools.board import Side, Square, parse_square, square_name
from strat_tools.errors import OptionError, StratToolsError
from strat_tools.record_formats import strip_record_suffix

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


def parse_variant(text: str, allowed: tuple[str, ...] = VARIANTS) -> str:
    """The variant a player means, in any case, with ``-`` or ``_`` for the space
    (``Ultimate-Lightning``); ``OptionError`` (a ``ValueError``) lists the ``allowed`` names.

    >>> parse_variant("Classic"), parse_variant("ultimate_lightning")
    ('classic', 'ultimate lightning')
    >>> parse_variant("clasic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    strat_tools.errors.OptionError: unknown variant 'clasic'; choose from classic, barrage, ...
    """
    word = " ".join(text.strip().lower().replace("-", " ").replace("_", " ").split())
    if word in allowed:
        return word
    raise OptionError(f"unknown variant {text!r}; choose from {', '.join(allowed)}")


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


class Move(NamedTuple):
    """One recorded move. ``source``/``target`` are squares, or -1 where the name was bad."""

    ply: int
    source: Square
    target: Square
    line: int | None = None
    rescue: Rescue | None = None

    @classmethod
    def from_str(cls, text: str, ply: int = 1) -> Move:
        """``Move.from_str('D4-D5')``; accepts Gravon's ``K:`` too."""
        left, sep, right = text.partition("-")
        if not sep:
            raise ValueError(f"not a move: {text!r} (expected like 'D4-D5')")
        return cls(ply, parse_square(left.strip()), parse_square(right.strip()))

    def to_str(self) -> str:
        """``'D4-D5'``; bad squares as ``'??'``."""

        def name(sq: int) -> str:
            return square_name(sq) if 0 <= sq < 100 else "??"

        return f"{name(self.source)}-{name(self.target)}"


@dataclass(slots=True)
class GameRecord:
    """One game as recorded: where it came from, its setup, its moves and its result.

    The setup is a tuple of 100 board codes (see ``pieces.py``), or ``None`` when the file
    has no usable ``field``. Moves are kept as parallel int lists (fast to build and replay);
    :attr:`moves` gives them as :class:`Move` values.
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
    def moves(self) -> tuple[Move, ...]:
        """The moves as values (built on demand; hot code should use the int lists)."""
        lines = self.lines if len(self.lines) == len(self.sources) else [None] * len(self.sources)
        return tuple(
            Move(i + 1, s, t, ln, self.rescues.get(i + 1))
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
        """Record a diagnostic located in this game's file and member."""
        diag = Diagnostic(code, severity, message, self.source, self.member, line, ply)
        self.diagnostics.append(diag)
        return diag


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
