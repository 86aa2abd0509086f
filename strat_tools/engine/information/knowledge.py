"""What each side knew at every ply: revealed, moved and scout pieces, captures, unseen ranks.

:func:`knowledge` takes a :class:`~strat_tools.engine.replays.replay.Replay` and builds, in one pass
over its plies, flat ``uint8`` arrays with one row per ply (row 0 is the setup, row ``p`` the
position after ``p`` plies):

- ``boards[p, sq]``: the board code on square ``sq`` (codes of ``pieces.py``: 0 empty,
  1..12 red, 13..24 blue, 25 lake);
- ``flags[p, sq]``: what the *opponent of the piece's owner* knows of the piece on ``sq``,
  as bits: :data:`MOVED` (it has moved, so it is neither bomb nor flag), :data:`REVEALED`
  (its rank was shown in a battle, or it came back by a rescue), :data:`LONG` (it moved more
  than one square in one move), :data:`KNOWN` (its rank is known: revealed, or proved by a
  move: a scout's long move, a lightning captain's turn), :data:`RESCUED` (it came back by
  a rescue). Red's knowledge of blue's pieces is ``flags`` on blue's squares; what blue knows
  of red's pieces is ``flags`` on red's squares. Flags travel with their piece;
- ``captured[p, s, kind]``: how many of side ``s + 1``'s pieces of each kind were removed;
- ``captured_unseen[p, s, kind]``: of those, the ones side ``s + 1``'s opponent never
  identified (taken unseen under silent defense): the opponent saw a piece go, not its rank;
- ``unseen[p, s, kind]``: how many of the *opponent's* pieces of each kind side ``s + 1``
  has never identified (on the board or captured), counted down from the army the rules
  show each player (``rules.army``: the variant's army), never from the opponent's actual
  setup. In free setup (``classicfree``, any army) no army is shown: the row is all zero
  and :attr:`Knowledge.army_shown` is false (docs/rules-findings.md, "What a free-setup
  player knew").

The rules decide what a battle shows, through the replay's ``revealed`` bits: both ranks,
or under silent defense only the attacker's (both when a scout attacks). Only information
shown directly is counted: no deduction from counts or from what a piece did not do.

Cost: one Python step per ply on ``bytearray`` rows, no objects per ply, so it is cheap
for every ply of every game. It knows no XML and checks no moves (the replay did).

>>> from strat_tools.core.pieces import letter_code
>>> from strat_tools.core.records import GameRecord, RecordError, Rescue
>>> from strat_tools.engine.replays.replay import replay
>>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8 + "Y"
>>> setup = tuple(letter_code(c) for c in field)
>>> record = GameRecord("doc.xml", variant="classicfree", setup=setup, sources=[9], targets=[39])
>>> know = replay(record).knowledge()
>>> know.known_field(1, Side.BLUE)[30:40], int(know.flags[1, 39]) == MOVED | LONG | KNOWN
('AAAAAAAAAD', True)
>>> know.known_field(1, Side.BLUE)[0:10], know.known_field(1, Side.RED)[90:100]
('?AAAAAAAAA', '?AAAAAAAA?')
>>> int(know.hidden(1, Side.RED).sum()), int(know.hidden(1, Side.BLUE).sum())
(2, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice, repeat
from typing import Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side
from strat_tools.core.diagrams import BoardNumbering, board_diagram, cell_text
from strat_tools.core.pieces import CODE_KIND, CODE_LETTERS, CODE_SIDE
from strat_tools.core.records import GameRecord, RecordError, Rescue
from strat_tools.core.rules import (
    OUTCOME_ATTACKER,
    OUTCOME_BOTH,
    OUTCOME_DEFENDER,
    OUTCOME_FLAG,
    RuleSet,
)
from strat_tools.engine.replays.replayed import Replayed
from strat_tools.engine.rules.rule_tables import CAPTAIN_CODES, DISTANCE, SCOUT_CODES

__all__ = [
    "KNOWN",
    "LONG",
    "MOVED",
    "RESCUED",
    "REVEALED",
    "ROW_LAYOUT",
    "UNKNOWN",
    "UNKNOWN_LETTER",
    "Knowledge",
    "KnowledgeState",
    "Ply",
    "Rows",
    "board_after",
    "knowledge",
    "knowledge_rows",
    "knowledge_windows",
]

MOVED: Final = 1
"""Flag bit: the piece has moved (so it is neither a bomb nor the flag)."""
REVEALED: Final = 2
"""Flag bit: its rank was shown to the opponent (a battle, or a rescue brought it back)."""
LONG: Final = 4
"""Flag bit: it moved more than one square in one move (a scout; in ultimate lightning a
two-square straight move may also be a captain's)."""
KNOWN: Final = 8
"""Flag bit: the opponent knows its rank (revealed, or proved by how it moved)."""
RESCUED: Final = 16
"""Flag bit: it was brought back onto the board by a rescue."""

UNKNOWN: Final = 26
"""The code :meth:`Knowledge.known_board` writes for a piece the viewer cannot identify."""
UNKNOWN_LETTER: Final = "?"
"""The letter :meth:`Knowledge.known_field` writes for it."""

_ROW: Final = 100


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Per-ply boards and knowledge of one replayed game (see the module docstring)."""

    boards: npt.NDArray[np.uint8]
    """``(plies + 1, 100)``: board codes after each ply; row 0 is the setup."""
    flags: npt.NDArray[np.uint8]
    """``(plies + 1, 100)``: knowledge bits of the piece on each square, as its opponent
    has them (:data:`MOVED`, :data:`REVEALED`, :data:`LONG`, :data:`KNOWN`, :data:`RESCUED`)."""
    captured: npt.NDArray[np.uint8]
    """``(plies + 1, 2, 12)``: pieces removed per side (index side - 1) and kind."""
    unseen: npt.NDArray[np.uint8]
    """``(plies + 1, 2, 12)``: per side (index side - 1) and kind, the opponent's pieces of
    that kind the side has not identified yet, counted from the army the rules show (all
    zero where they show none: see :attr:`army_shown`)."""
    captured_unseen: npt.NDArray[np.uint8] = field(
        default_factory=lambda: np.zeros((0, 2, 12), dtype=np.uint8)
    )
    """``(plies + 1, 2, 12)``: of ``captured``, per side and kind, the pieces the side's
    opponent never identified (it saw them go, not their rank)."""
    army_shown: bool = True
    """Whether the rules showed each player the opponent's army (every variant but free
    setup); where not, ``unseen`` is all zero: no count of kinds was known."""

    @property
    def plies(self) -> int:
        """How many plies the arrays cover (their length minus the setup row)."""
        return int(self.boards.shape[0]) - 1

    def known_board(self, ply: int, side: Side | int) -> npt.NDArray[np.uint8]:
        """The board after ``ply`` as ``side`` knows it: the opponent's pieces that side
        cannot identify are :data:`UNKNOWN` (26)."""
        board = self.boards[ply].copy()
        board[self.hidden(ply, side)] = UNKNOWN
        return np.asarray(board, dtype=np.uint8)

    def field(self, ply: int) -> str:
        """The true position after ``ply`` as a Gravon field string (``A`` empty, ``_``
        lake, ``B``-``M`` red, ``N``-``Y`` blue)."""
        return str(self.boards[ply].tobytes().translate(_LETTERS).decode("ascii"))

    def known_field(self, ply: int, side: Side | int) -> str:
        """:meth:`field` with each opponent piece ``side`` cannot identify written ``?``."""
        return str(self.known_board(ply, side).tobytes().translate(_LETTERS).decode("ascii"))

    def diagram(self, ply: int, side: Side | int, numbering: BoardNumbering = "modern") -> str:
        """The board after ``ply`` as ``side`` knows it, drawn like ``render_board``: an
        opponent piece it cannot identify is ``b?`` (``bm`` once it has moved), red's are
        ``r?`` and ``rm``."""
        board, flags = self.boards[ply].tolist(), self.flags[ply].tolist()
        other = Side(int(side)).other
        cells = [cell_text(code, numbering) for code in board]
        for square, (code, bits) in enumerate(zip(board, flags, strict=True)):
            if CODE_SIDE[code] == other and not bits & KNOWN:
                cells[square] = cells[square][0] + ("m" if bits & MOVED else "?")
        return board_diagram(cells)

    def lost_as_known(self, ply: int, side: Side | int, owner: Side | int) -> tuple[list[int], int]:
        """``owner``'s pieces removed by ``ply`` as ``side`` knew them: per kind the ones
        it could name, and how many more it saw go without their rank (0 when ``side`` is
        the owner: a player knows its own pieces)."""
        index = int(owner) - 1
        captured = self.captured[ply, index].astype(np.int64)
        if int(side) == int(owner):
            return captured.tolist(), 0
        unnamed = self.captured_unseen[ply, index].astype(np.int64)
        return (captured - unnamed).tolist(), int(unnamed.sum())

    def hidden(self, ply: int, side: Side | int) -> npt.NDArray[np.bool_]:
        """Per square, whether the piece there after ``ply`` is an opponent piece ``side``
        cannot identify (what ``known_board`` writes as :data:`UNKNOWN`)."""
        other = Side(int(side)).other
        return np.asarray((_SIDE_OF[self.boards[ply]] == other) & ((self.flags[ply] & KNOWN) == 0))


_SIDE_OF: Final = np.array([*CODE_SIDE, 0], dtype=np.uint8)
_LETTERS: Final = bytes.maketrans(bytes(range(27)), (CODE_LETTERS + UNKNOWN_LETTER).encode("ascii"))


def knowledge(result: Replayed) -> Knowledge:
    """Every ply's board and knowledge of a replayed game, in one pass over its plies.

    Covers the plies the replay played (``result.plies_replayed``); a record without a
    setup gives empty arrays. :func:`knowledge_windows` gives the same rows a window at a
    time.
    """
    if not hasattr(result, "record") or not hasattr(result, "plies_replayed"):
        raise TypeError(f"knowledge() takes a replay's result, not {type(result).__name__}")
    setup = result.record.setup
    if setup is None or len(setup) != 100:
        empty = np.zeros((0, 100), dtype=np.uint8)
        counts = np.zeros((0, 2, 12), dtype=np.uint8)
        return Knowledge(
            empty, empty.copy(), counts, counts.copy(), counts.copy(), result.rules.army is not None
        )
    return knowledge_rows(result).window()


def knowledge_rows(result: Replayed) -> Rows:
    """:func:`knowledge`'s rows as its one pass makes them (the setup's, then one after each
    replayed ply: :class:`Rows`, bytes), before any array is made of them: what a caller
    that reads the bytes themselves takes (``Replay.views()``:
    :func:`~strat_tools.engine.information.planes.game_views`). The record must have a
    setup."""
    state, plies = _game_plies(result)
    out = Rows()
    out.add(state)
    state.play_plies(plies, out)
    return out


def knowledge_windows(result: Replayed, rows: int) -> Iterator[Knowledge]:
    """:func:`knowledge`'s rows (the setup, then the position after each replayed ply) in
    consecutive windows of ``rows`` rows (the last one shorter), from the same one pass:
    memory is a window's, however long the game. A window's first row is the position
    after ``k * rows`` plies (its ``plies`` property counts its rows less one). The record
    must have a setup.

    >>> from strat_tools.core.pieces import letter_code
    >>> from strat_tools.core.records import GameRecord
    >>> from strat_tools.engine.replays.replay import replay
    >>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8 + "Y"
    >>> record = GameRecord("doc.xml", variant="classicfree",
    ...                     setup=tuple(letter_code(c) for c in field), sources=[9], targets=[39])
    >>> [len(window.boards) for window in knowledge_windows(replay(record), 1)]
    [1, 1]
    """
    if rows < 1:
        raise ValueError(f"a knowledge window holds at least one row, got {rows}")
    state, plies = _game_plies(result)
    out = Rows()
    out.add(state)
    if rows > result.plies_replayed:  # one window, the whole game: no slice a ply
        state.play_plies(plies, out)
        yield out.window()
        return
    state.play_plies(islice(plies, rows - 1), out)
    while True:
        yield out.window()
        if out.count < rows:  # the plies ran out before this window was full
            return
        out = Rows()
        state.play_plies(islice(plies, rows), out)
        if not out.count:
            return


def _game_plies(result: Replayed) -> tuple[KnowledgeState, Iterator[Ply]]:
    """The knowledge state at a replayed game's setup and the game's replayed plies, as
    :meth:`KnowledgeState.play_plies` takes them."""
    record = result.record
    setup = record.setup
    if setup is None or len(setup) != 100:
        raise ValueError("knowledge windows need a record with a setup")
    n = result.plies_replayed
    state = KnowledgeState(setup, result.rules)
    rescues: Iterable[tuple[int, int] | None] = repeat(None)
    if result.rescued:
        rescues = [None] * n
        for ply, code in result.rescued.items():
            found = record.rescues.get(ply)
            if found is not None and found.square is not None and ply <= n:
                rescues[ply - 1] = (found.square, code)
    sources, targets = record.sources, record.targets
    if len(sources) != n:  # a game stopped early (else the lists themselves: no copy)
        sources, targets = sources[:n], targets[:n]
    plies = zip(
        sources,
        targets,
        result.movers,
        result.defenders,
        result.outcomes,
        result.distances,
        result.revealed,
        rescues,
        strict=False,  # ``rescues`` may be an endless repeat of None
    )
    return state, plies


def board_after(result: Replayed, ply: int) -> list[int]:
    """The board codes after ``ply`` plies of a replayed game (capped at the plies it
    replayed), from the replay's own events in one pass over them: no move is pushed or
    checked again (``strat-tools show`` replays once and draws this).

    >>> from strat_tools.formats.readers import read_records
    >>> from strat_tools.engine.replays.replay import replay
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> result = replay(record)
    >>> board_after(result, 99) == result.final_board, board_after(result, 0) == list(record.setup)
    (True, True)
    """
    if result.record.setup is None:
        raise RecordError(f"{result.record.game_id}: the record has no setup to show")
    upto = max(0, min(ply, result.plies_replayed))
    window = next(knowledge_windows(result, upto + 1))
    return [int(code) for code in window.boards[-1]]


class Rows:
    """Knowledge rows as they are made (byte rows appended as they are each ply, no
    conversion: counts stay below 256), and the :class:`Knowledge` window they make."""

    __slots__ = ("army_shown", "rows")

    def __init__(self) -> None:
        self.rows = bytearray()
        """Each :attr:`KnowledgeState.row` appended, one after another."""
        self.army_shown = True

    @property
    def count(self) -> int:
        """How many rows were appended."""
        return len(self.rows) // _WIDTH

    def add(self, state: KnowledgeState) -> None:
        """Append ``state``'s current row."""
        self.rows += state.row
        self.army_shown = state.army_shown

    def window(self) -> Knowledge:
        """The rows appended, as one :class:`Knowledge` window: read-only views of them,
        uncopied (each array's rows 272 bytes apart)."""
        rows = np.frombuffer(self.rows, dtype=np.uint8).reshape(-1, _WIDTH)
        rows.flags.writeable = False
        counts = rows[:, _COUNTS:].reshape(-1, 3, 2, 12)
        boards, flags = rows[:, :_ROW], rows[:, _ROW:_COUNTS]
        return Knowledge(boards, flags, counts[:, 0], counts[:, 1], counts[:, 2], self.army_shown)


Ply = tuple[int, int, int, int, int, int, int, "tuple[int, int] | None"]
"""One ply as :meth:`KnowledgeState.play_plies` takes it: source, target, the piece moved,
the defender (0: none), the battle outcome, the distance, the replay's ``revealed`` bits (1
the attacker shown, 2 the defender) and the rescue ``(square, code)`` made with it, if any."""


class KnowledgeState:
    """What each side knows now, brought forward one ply at a time: the one statement of
    what a move, a battle and a rescue show (:func:`knowledge_windows` plays a replay's plies
    through it; a caller stepping a position, such as the environment of
    :mod:`strat_tools.env`, plays each move as it is pushed, at a constant cost a ply).

    ``board``, ``flags``, ``captured``, ``unseen`` and ``hidden`` are the current row of
    :class:`Knowledge`'s arrays, as bytes (changed in place as plies are played; the three
    counts are views of one ``counts``; all are views of one 272-byte :attr:`row`, which a
    knowledge row appends at once: one append a ply).

    >>> from strat_tools.core.pieces import letter_code
    >>> from strat_tools.core.rules import get_rules
    >>> field = "M" + "A" * 8 + "D" + "A" * 30 + "AA__AA__AA" * 2 + "A" * 30 + "P" + "A" * 8 + "Y"
    >>> state = KnowledgeState([letter_code(c) for c in field], get_rules("gravon-2013"))
    >>> state.play_plies([(9, 39, letter_code("D"), 0, 0, 3, 0, None)])  # a scout's long move
    >>> state.flags[39] == MOVED | LONG | KNOWN
    True
    """

    __slots__ = ("army_shown", "board", "counts", "flags", "proves", "row")

    def __init__(self, setup: Sequence[int], rules: RuleSet) -> None:
        army = rules.army  # what each player was shown of the other's army (None: nothing)
        unseen = list(army) * 2 if army is not None else [0] * 24
        self.row = bytearray(setup) + bytearray(_ROW + 24) + bytearray(unseen + [0] * 24)
        """The board, the flags and the counts, one row of 272 bytes."""
        self.board, self.flags, self.counts = _parts(self.row)
        self.army_shown = army is not None
        """Whether the rules showed each player the other's army (not in free setup)."""
        self.proves = _proving_distance(rules)
        """The shortest straight move only a scout can make under the rules."""

    @property
    def captured(self) -> memoryview:
        """Pieces removed, per side - 1 * 12 + kind (a view of :attr:`counts`)."""
        return memoryview(self.counts)[_CAPTURED : _CAPTURED + 24]

    @property
    def unseen(self) -> memoryview:
        """Per viewer side - 1 * 12 + kind: the opponent's pieces it has not identified,
        counted down from the army the rules show (all zero where they show none)."""
        return memoryview(self.counts)[_UNSEEN : _UNSEEN + 24]

    @property
    def hidden(self) -> memoryview:
        """Captured pieces the opponent never identified, per side - 1 * 12 + kind."""
        return memoryview(self.counts)[_HIDDEN : _HIDDEN + 24]

    def copy(self) -> KnowledgeState:
        """An independent copy."""
        other = KnowledgeState.__new__(KnowledgeState)
        other.row = bytearray(self.row)
        other.board, other.flags, other.counts = _parts(other.row)
        other.army_shown, other.proves = self.army_shown, self.proves
        return other

    def play_plies(self, plies: Iterable[Ply], rows: Rows | None = None) -> None:
        """Bring the state past each of ``plies`` (:data:`Ply`) in turn, appending the row
        after each to ``rows`` if given (one loop for a whole game: no call a ply).

        The loop is a game's every ply (what bounds a whole game's observations, see
        docs/human-model.md): a battle's steps are written out in it (about a sixth of the
        plies are battles: a call each cost a tenth of the pass) and a move's that proves a
        scout (:func:`_identify`), as are the flag bits
        (``1`` :data:`MOVED`, ``4`` :data:`LONG`, ``8`` :data:`KNOWN`, ``10``
        :data:`REVEALED` | :data:`KNOWN`) and the empty square (``0``)."""
        flags, counts, proves = self.flags, self.counts, self.proves
        row = self.row
        board = row  # the row's first 100 bytes: a bytearray's items are set faster than a view's
        keep = rows is not None
        out = rows.rows if rows is not None else bytearray()  # appended to from a local
        if rows is not None:
            rows.army_shown = self.army_shown
        viewer, owner = _VIEWER_SLOT, _OWN_SLOT
        for source, target, piece, defender, outcome, distance, revealed, rescue in plies:
            mover_flags = flags[source] | 1  # MOVED
            board[source] = 0
            flags[source] = 0
            if distance > 1:
                mover_flags |= 4  # LONG
                if distance >= proves or (
                    piece in CAPTAIN_CODES and DISTANCE[source * 100 + target] == 0
                ):  # identified by its move (:func:`_identify`, written out)
                    if not mover_flags & 8 and counts[viewer[piece]]:
                        counts[viewer[piece]] -= 1
                    mover_flags |= 8
            if not defender:
                board[target] = piece
                flags[target] = mover_flags
            else:  # a battle: what it showed (the replay's ``revealed`` bits), then who stays
                defender_flags = flags[target]
                if revealed & 1:
                    if not mover_flags & 8 and counts[viewer[piece]]:
                        counts[viewer[piece]] -= 1
                    mover_flags |= 10
                if revealed & 2:
                    if not defender_flags & 8 and counts[viewer[defender]]:
                        counts[viewer[defender]] -= 1
                    defender_flags |= 10
                if outcome in (OUTCOME_ATTACKER, OUTCOME_FLAG):
                    board[target] = piece
                    flags[target] = mover_flags
                    counts[_CAPTURED + owner[defender]] += 1  # _capture, written out
                    if not defender_flags & 8:
                        counts[_HIDDEN + owner[defender]] += 1
                elif outcome == OUTCOME_DEFENDER:
                    flags[target] = defender_flags
                    counts[_CAPTURED + owner[piece]] += 1
                    if not mover_flags & 8:
                        counts[_HIDDEN + owner[piece]] += 1
                elif outcome == OUTCOME_BOTH:
                    board[target] = 0
                    flags[target] = 0
                    _capture(piece, mover_flags, counts)
                    _capture(defender, defender_flags, counts)
            if rescue is not None:
                square, code = rescue
                slot = owner[code]
                counts[_CAPTURED + slot] -= 1
                # Identified at its capture, the piece is not unseen again; else it is now.
                seen_before = KNOWN if not counts[_HIDDEN + slot] else 0
                if not seen_before:
                    counts[_HIDDEN + slot] -= 1
                board[square] = code
                flags[square] = _identify(REVEALED | RESCUED | seen_before, code, counts)
            if keep:
                out += row


_COUNTS: Final = 2 * _ROW
"""Where :attr:`KnowledgeState.counts` starts in its ``row``."""
_WIDTH: Final = _COUNTS + 72
"""The bytes of a :attr:`KnowledgeState.row`: the board, the flags, the counts."""
ROW_LAYOUT: Final = (_WIDTH, 0, _ROW)
"""A row of :class:`Rows` (a :attr:`KnowledgeState.row`) as bytes: its width (272), and
where its board and its flags (100 bytes each) start in it: what a reader of the bytes
themselves needs (:func:`~strat_tools.engine.information.planes.game_views`)."""


def _parts(row: bytearray) -> tuple[memoryview, memoryview, memoryview]:
    """The board, the flags and the counts of a :attr:`KnowledgeState.row`, as views."""
    view = memoryview(row)
    return view[:_ROW], view[_ROW:_COUNTS], view[_COUNTS:]


_CAPTURED: Final = 0
"""Where :attr:`KnowledgeState.captured` starts in its ``counts``."""
_UNSEEN: Final = 24
"""Where :attr:`KnowledgeState.unseen` starts."""
_HIDDEN: Final = 48
"""Where :attr:`KnowledgeState.hidden` starts."""
_OWN_SLOT: Final = tuple(
    (CODE_SIDE[code] - 1) * 12 + CODE_KIND[code] if 1 <= code <= 24 else 0 for code in range(26)
)
"""Per board code of a piece: its owner's slot (side - 1) * 12 + kind in a count row."""
_VIEWER_SLOT: Final = tuple(
    _UNSEEN + (2 - CODE_SIDE[code]) * 12 + CODE_KIND[code] if 1 <= code <= 24 else 0
    for code in range(26)
)
"""Per board code of a piece: the opponent's (the viewer's) slot in ``unseen``, within
``counts``."""


def _identify(bits: int, code: int, counts: memoryview) -> int:
    """``bits`` with :data:`KNOWN` set; the first time, the viewer's unseen count drops."""
    if not bits & KNOWN:
        slot = _VIEWER_SLOT[code]
        if counts[slot]:
            counts[slot] -= 1
    return bits | KNOWN


def _capture(code: int, bits: int, counts: memoryview) -> None:
    """Count ``code`` as captured (and as hidden when its opponent never identified it)."""
    slot = _OWN_SLOT[code]
    counts[_CAPTURED + slot] += 1
    if not bits & KNOWN:
        counts[_HIDDEN + slot] += 1


def _proving_distance(rules: RuleSet) -> int:
    """The shortest straight move only a scout can make under ``rules``: one square more
    than the longest reach of any other movable kind (kept per reach table: a game's
    knowledge pass asks once)."""
    steps = rules.steps
    found = _PROVING.get(steps)
    if found is None:
        scout = CODE_KIND[SCOUT_CODES[0]]
        found = _PROVING[steps] = max(s for kind, s in enumerate(steps) if kind != scout) + 1
    return found


_PROVING: dict[tuple[int, ...], int] = {}
""":func:`_proving_distance` per reach table (``RuleSet.steps``: a handful of them)."""


@dataclass(frozen=True, slots=True)
class Pushed:
    """A game as pushed on a position (what :func:`knowledge` reads of a replay)."""

    record: GameRecord
    rules: RuleSet
    plies_replayed: int
    movers: list[int] = field(default_factory=list)
    defenders: list[int] = field(default_factory=list)
    outcomes: list[int] = field(default_factory=list)
    distances: list[int] = field(default_factory=list)
    revealed: list[int] = field(default_factory=list)
    rescued: dict[int, int] = field(default_factory=dict)


def pushed_knowledge(
    start: Sequence[int],
    rules: RuleSet,
    moves: Sequence[tuple[int, int, tuple[int, int] | None]],
    events: Sequence[tuple[int, int, int, int, int]],
) -> Knowledge:
    """:func:`knowledge` of the moves pushed on a position from ``start``: ``moves``
    (source, target, rescue) and, per move, (mover, defender, outcome, distance, revealed)
    as the replay keeps them. What :meth:`Position.knowledge
    <strat_tools.engine.position.position.Position.knowledge>` gives."""
    rescues = {
        ply: Rescue(rescue[0], None, "", "")
        for ply, (_, _, rescue) in enumerate(moves, 1)
        if rescue is not None
    }
    record = GameRecord(
        "position",
        setup=tuple(start),
        sources=[m[0] for m in moves],
        targets=[m[1] for m in moves],
        rescues=rescues,
    )
    movers, defenders, outcomes, distances, revealed = (
        [event[i] for event in events] for i in range(5)
    )
    rescued = {ply: rescue[1] for ply, (_, _, rescue) in enumerate(moves, 1) if rescue}
    played = Pushed(
        record, rules, len(moves), movers, defenders, outcomes, distances, revealed, rescued
    )
    return knowledge(played)
