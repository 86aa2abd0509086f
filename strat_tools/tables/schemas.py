"""The five tables' columns, types and vocabularies, declared once; conforming and pandas frames.

Every table (``games``, ``setups``, ``moves``, ``diagnostics``, ``events``) has one Arrow
schema here (:data:`SCHEMAS`); the Parquet and CSV export, reading back, pandas frames and
statistics take their columns and types from it. The rules a pandas user can rely on:

* **One name, one meaning, one type.** ``game_id`` is the game's key everywhere; ``ply``
  counts moves from 1; ``side`` is ``red``/``blue``; ``piece`` is a piece kind; a column
  holding a board square is ``square``, ``from_square`` or ``to_square`` (``A1`` .. ``K10``);
  ``source`` is always the input file a game came from (never a square).
* **Piece columns are ordered by rank and have a numeric rank beside them**
  (:data:`ORDERED_COLUMNS`, :data:`RANK_COLUMNS`: ``rank``, ``defender_rank`` ...).
* **Enumerations are categoricals with fixed categories** (:data:`DICTIONARIES`): the same
  categories in the same order whatever the input, in every batch, after any round trip, and
  in an empty table; so ``frame.dtypes`` never depends on the data.
* **Sides and winners are words, not Gravon's codes.** ``winner`` is ``red``, ``blue`` or
  null; ``draw`` says whether the record calls the game a draw (Gravon's winner code 3), so a
  null winner with ``draw`` false means no winner is known (no result, an unknown code, an
  unfinished game). ``replay_winner``/``replay_draw`` are the same as the replayed board
  shows them. ``result_type`` stays Gravon's raw number beside the named ``termination``.

Open vocabularies stay plain strings: a diagnostic's ``code`` (each module adds its own),
``rules`` (a rule-set name with any ``+option``), file names, messages and sentences.

>>> from strat_tools.tables.columns import empty_table, to_frame
>>> to_frame(empty_table("moves")).dtypes.astype(str).to_dict()  # doctest: +NORMALIZE_WHITESPACE
{'game_id': 'str', 'ply': 'Int32', 'side': 'category', 'piece': 'category', 'rank': 'Int8',
 'from_square': 'category', 'to_square': 'category', 'distance': 'Int8',
 'defender': 'category', 'defender_rank': 'Int8', 'outcome': 'category',
 'rescued': 'category', 'rescued_rank': 'Int8'}
>>> to_frame(empty_table("games"))["winner"].cat.categories.tolist()
['red', 'blue']

This module declares; :mod:`strat_tools.tables.columns` makes columns and tables to these
schemas (categoricals, a file's table conformed, pandas frames, empty and joined tables). Neither
builds tables from records (see :mod:`strat_tools.tables.build`) nor writes files (see
:mod:`strat_tools.tables.dataset`).
"""

from __future__ import annotations

from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.core.board import COLUMNS
from strat_tools.core.pieces import KIND_LABELS
from strat_tools.core.records import VARIANTS, Severity, Status, Termination
from strat_tools.core.rules import OUTCOME_LABELS
from strat_tools.engine.events.event_kinds import EVENT_KINDS
from strat_tools.setups.identity import GAME_IDENTITY_COLUMNS, SETUP_STRING_COLUMNS

__all__ = [
    "BUILT_SCHEMAS",
    "DICTIONARIES",
    "OUTCOME_CATEGORIES",
    "RANK_COLUMNS",
    "SCHEMAS",
    "SIDE_LABELS",
    "SQUARE_NAMES",
    "TABLE_NAMES",
    "add_ranks",
    "dictionary_type",
]

TABLE_NAMES: Final = ("games", "setups", "moves", "diagnostics", "events")
"""The tables of a dataset, in export order."""

SIDE_LABELS: Final = ("red", "blue")
"""Categories of ``side``, ``winner`` and ``replay_winner`` (index 0 red, 1 blue)."""
SQUARE_NAMES: Final = tuple(COLUMNS[sq % 10] + str(sq // 10 + 1) for sq in range(100))
"""Categories of the square columns: index = square (0 = ``A1`` .. 99 = ``K10``)."""
OUTCOME_CATEGORIES: Final = OUTCOME_LABELS[1:]
"""Categories of ``outcome`` (a battle's): the engine's outcome codes 1..4, minus one
(:data:`~strat_tools.core.rules.OUTCOME_LABELS` without the no-battle code 0)."""
TERMINATION_LABELS: Final = tuple(t.label for t in Termination)
"""Categories of ``termination`` and ``replay_termination`` (Gravon's result types by name;
``unknown`` for a type Gravon never used)."""

_LABEL = pa.string()


ORDERED_COLUMNS: Final = frozenset(
    {"piece", "defender", "rescued", "mover_piece", "defender_piece", "rescued_piece"}
)
"""Categorical columns whose categories are ordered: piece kinds, by rank (bomb, spy 1 ..
marshal 10, flag: :class:`strat_tools.core.pieces.PieceKind`'s order), so ``piece > defender``
compares ranks and DuckDB and Polars sort them by rank too."""


def dictionary_type(name: str = "") -> pa.DataType:
    """The Arrow type of categorical column ``name``: int8 indices into string labels, ordered
    for the piece columns (:data:`ORDERED_COLUMNS`)."""
    return pa.dictionary(pa.int8(), _LABEL, ordered=name in ORDERED_COLUMNS)


DICTIONARIES: Final[dict[str, tuple[str, ...]]] = {
    "variant": VARIANTS,
    "status": tuple(s.value for s in Status),
    "termination": TERMINATION_LABELS,
    "replay_termination": TERMINATION_LABELS,
    "winner": SIDE_LABELS,
    "replay_winner": SIDE_LABELS,
    "side": SIDE_LABELS,
    "mover": SIDE_LABELS,
    "loser": SIDE_LABELS,
    "piece": KIND_LABELS,
    "defender": KIND_LABELS,
    "rescued": KIND_LABELS,
    "mover_piece": KIND_LABELS,
    "defender_piece": KIND_LABELS,
    "rescued_piece": KIND_LABELS,
    "square": SQUARE_NAMES,
    "from_square": SQUARE_NAMES,
    "to_square": SQUARE_NAMES,
    "outcome": OUTCOME_CATEGORIES,
    "severity": tuple(s.value for s in Severity),
    "kind": tuple(EVENT_KINDS),
}
"""The fixed categories of each categorical column, by column name (the same in every table)."""


def _field(name: str, nullable: bool = True) -> pa.Field:
    """A categorical column: its type is the same dictionary type whatever its categories."""
    return pa.field(name, dictionary_type(name), nullable=nullable)


GAMES_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("member", pa.string()),
        _field("variant"),
        pa.field("year", pa.int16()),
        pa.field("month", pa.int8()),
        pa.field("period", pa.string()),
        pa.field("number", pa.int64()),
        pa.field("rules", pa.string()),
        _field("status", nullable=False),
        pa.field("result_type", pa.int8()),
        _field("termination"),
        _field("winner"),
        pa.field("draw", pa.bool_(), nullable=False),
        _field("replay_termination"),
        _field("replay_winner"),
        pa.field("replay_draw", pa.bool_(), nullable=False),
        pa.field("plies", pa.int32(), nullable=False),
        pa.field("plies_replayed", pa.int32(), nullable=False),
        pa.field("n_errors", pa.int32(), nullable=False),
        pa.field("n_warnings", pa.int32(), nullable=False),
        pa.field("has_setup", pa.bool_(), nullable=False),
        pa.field("readable", pa.bool_(), nullable=False),
        pa.field("replayed", pa.bool_(), nullable=False),
        pa.field("synthetic", pa.bool_(), nullable=False),
        *(pa.field(name, pa.string()) for name in GAME_IDENTITY_COLUMNS),
        *(pa.field(name, pa.string()) for name in SETUP_STRING_COLUMNS),
    ],
    metadata={
        "doc": "One row per input game file. source is the file (member the zip member); "
        "variant is null for a game type Gravon does not have (a diagnostic names it); "
        "month is the calendar month 1..12; result_type is Gravon's raw result code, "
        "termination its name; winner red/blue or null, draw true for a recorded draw; "
        "replay_* are the engine's; synthetic marks games made by strat-tools generate; "
        "the fingerprints are strat_tools.setups.identity's (null without a setup); red_setup/"
        "blue_setup each side's setup as 40 letters, the owner encoding of setups "
        "--setup-format owner (null without a setup)."
    },
)
"""``games``: one row per input game file (unreadable ones too)."""

_SETUPS_BUILT: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        _field("side", nullable=False),
        pa.field("row", pa.int8(), nullable=False),
        pa.field("col", pa.int8(), nullable=False),
        _field("square", nullable=False),
        _field("piece", nullable=False),
        pa.field("fingerprint", pa.string(), nullable=False),
        pa.field("mirror_fingerprint", pa.string(), nullable=False),
    ],
    metadata={
        "doc": "One row per piece on the board at the start. row/col in the owner's view: "
        "row 1 = that side's back row, col 1 = that player's left; square is the board name; "
        "fingerprint/mirror_fingerprint name the whole setup (strat_tools.setups.identity)."
    },
)
"""``setups``: one row per piece of each side's starting position, in the owner's view."""

_MOVES_BUILT: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        _field("side", nullable=False),
        _field("piece"),
        _field("from_square"),
        _field("to_square"),
        pa.field("distance", pa.int8()),
        _field("defender"),
        _field("outcome"),
        _field("rescued"),
    ],
    metadata={
        "doc": "One row per recorded move. piece/defender/outcome come from the replay "
        "(null past the last replayed ply); from_square/to_square are null for a bad square "
        "name; rescued is the piece an ultimate lightning rescue brought back on that ply."
    },
)
"""``moves``: one row per recorded move, with what the replay saw."""

DIAGNOSTICS_SCHEMA: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("code", pa.string(), nullable=False),
        _field("severity", nullable=False),
        pa.field("message", pa.string(), nullable=False),
        pa.field("line", pa.int32()),
        pa.field("ply", pa.int32()),
    ],
    metadata={"doc": "One row per diagnostic, the reader's, the checks' and the engine's."},
)
"""``diagnostics``: one row per problem found in a game."""

_EVENTS_BUILT: Final = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        _field("kind", nullable=False),
        _field("mover"),
        _field("mover_piece"),
        _field("from_square"),
        _field("to_square"),
        _field("defender_piece"),
        _field("outcome"),
        _field("loser"),
        _field("rescued_piece"),
        _field("winner"),
        _field("termination"),
        pa.field("detail", pa.string()),
    ],
    metadata={
        "doc": "One row per key event of a replayed game (kinds: "
        "strat_tools.engine.events.event_kinds.EVENT_KINDS); every game has an end row "
        "(termination, winner, detail why). mover/mover_piece moved, defender_piece was "
        "attacked, loser lost the piece the event is about, rescued_piece came back; empty "
        "where it does not apply."
    },
)
"""``events``: battles, first capture, big losses, rescues and each game's end."""

RANK_COLUMNS: Final[dict[str, dict[str, str]]] = {
    "setups": {"rank": "piece"},
    "moves": {"rank": "piece", "defender_rank": "defender", "rescued_rank": "rescued"},
    "events": {
        "mover_rank": "mover_piece",
        "defender_rank": "defender_piece",
        "rescued_rank": "rescued_piece",
    },
}
"""Per table, each numeric rank column and the piece column it stands beside: the piece's
modern rank (spy 1 .. marshal 10; null for bomb, flag and no piece), computed from the
piece column, never stored apart from it."""
_RANKS: Final = pa.array(
    [None if kind in ("bomb", "flag") else i for i, kind in enumerate(KIND_LABELS)], pa.int8()
)


_KIND_LABELS: Final = pa.array(KIND_LABELS, pa.string())


def _ranked(schema: pa.Schema, name: str) -> pa.Schema:
    """``schema`` with each rank column of :data:`RANK_COLUMNS` right after its piece."""
    fields = []
    beside = {piece: rank for rank, piece in RANK_COLUMNS[name].items()}
    for f in schema:
        fields.append(f)
        if f.name in beside:
            fields.append(pa.field(beside[f.name], pa.int8()))
    return pa.schema(fields, metadata=schema.metadata)


SETUPS_SCHEMA: Final = _ranked(_SETUPS_BUILT, "setups")
MOVES_SCHEMA: Final = _ranked(_MOVES_BUILT, "moves")
EVENTS_SCHEMA: Final = _ranked(_EVENTS_BUILT, "events")
BUILT_SCHEMAS: Final = {"setups": _SETUPS_BUILT, "moves": _MOVES_BUILT, "events": _EVENTS_BUILT}
"""The schemas the table builders fill, before :func:`add_ranks` adds the rank columns."""


def add_ranks(name: str, table: pa.Table) -> pa.Table:
    """Table ``name`` with its rank columns (:data:`RANK_COLUMNS`) computed from its piece
    columns and placed beside them (any rank columns it had are replaced)."""
    ranks = RANK_COLUMNS.get(name)
    if not ranks:
        return table
    stale = [rank for rank in ranks if rank in table.column_names]
    if stale:
        table = table.drop_columns(stale)
    names = table.column_names
    for rank, piece in ranks.items():
        values = pa.chunked_array(
            [_ranks_of(chunk) for chunk in table.column(piece).chunks], pa.int8()
        )
        at = names.index(piece) + 1
        table = table.add_column(at, rank, values)
        names.insert(at, rank)
    return table


def _ranks_of(pieces: pa.Array) -> pa.Array:
    """The rank of each piece label of ``pieces`` (null for bomb, flag or no piece). A
    dictionary column is ranked through its few labels and then its indices, without
    turning every row into a string (the export's moves have one a ply)."""
    if pa.types.is_dictionary(pieces.type):
        per_label = _ranks_of(pieces.dictionary)
        return pc.take(per_label, pieces.indices)
    labels = pc.cast(pieces, pa.string())
    return pc.take(_RANKS, pc.index_in(labels, value_set=_KIND_LABELS))


SCHEMAS: Final[dict[str, pa.Schema]] = {
    "games": GAMES_SCHEMA,
    "setups": SETUPS_SCHEMA,
    "moves": MOVES_SCHEMA,
    "diagnostics": DIAGNOSTICS_SCHEMA,
    "events": EVENTS_SCHEMA,
}
"""Every table's schema by name."""
