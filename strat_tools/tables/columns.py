"""Columns and tables made to the schemas of :mod:`strat_tools.tables.schemas`: categorical
columns over the fixed categories, the ``events`` table of a batch's event codes, tables from
plain columns, a table read back from a file conformed, pandas frames, Parquet's file schemas,
and empty and joined tables.

>>> to_frame(empty_table("games"))["winner"].cat.categories.tolist()
['red', 'blue']
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from strat_tools.engine.events.event_words import EMPTY, VOCABULARY
from strat_tools.engine.events.key_events import EventCodes
from strat_tools.setups.identity import (
    GAME_IDENTITY_COLUMNS,
    SETUP_STRING_COLUMNS,
    fingerprint_rows,
)
from strat_tools.tables.schemas import (
    BUILT_SCHEMAS,
    DICTIONARIES,
    ORDERED_COLUMNS,
    RANK_COLUMNS,
    SCHEMAS,
    TABLE_NAMES,
    add_ranks,
    dictionary_type,
)

__all__ = [
    "concat_tables",
    "conform",
    "dictionary_column",
    "empty_table",
    "empty_tables",
    "events_table",
    "file_schema",
    "labels_column",
    "table_from_columns",
    "to_frame",
]

_DICT_ARRAYS: Final = {name: pa.array(values, pa.string()) for name, values in DICTIONARIES.items()}


def dictionary_column(
    name: str, indices: npt.NDArray[Any], mask: npt.NDArray[np.bool_] | None = None
) -> pa.DictionaryArray:
    """A categorical column over the fixed categories of ``name``; ``mask`` marks nulls."""
    values = indices.astype(np.int8, copy=False)
    if mask is not None:
        values = np.where(mask, 0, values).astype(np.int8, copy=False)
    index = pa.array(values, pa.int8(), mask=mask)
    return pa.DictionaryArray.from_arrays(
        index, _DICT_ARRAYS[name], ordered=name in ORDERED_COLUMNS
    )


def events_table(game_ids: pa.Array, codes: EventCodes) -> pa.Table:
    """The ``events`` table of a batch's event codes; ``game_ids[i]`` names game ``i``."""
    table = pa.table(
        [
            pc.take(game_ids, pa.array(codes.game)),
            pa.array(codes.ply, pa.int32()),
            dictionary_column("kind", codes.kind),
            dictionary_column("mover", codes.mover, codes.mover < 0),
            dictionary_column("mover_piece", codes.mover_piece, codes.mover_piece < 0),
            dictionary_column("from_square", codes.from_square, codes.from_square < 0),
            dictionary_column("to_square", codes.to_square, codes.to_square < 0),
            dictionary_column("defender_piece", codes.defender_piece, codes.defender_piece < 0),
            dictionary_column("outcome", codes.outcome - 1, codes.outcome < 1),
            dictionary_column("loser", codes.loser, codes.loser < 0),
            dictionary_column("rescued_piece", codes.rescued_piece, codes.rescued_piece < 0),
            dictionary_column("winner", codes.winner, codes.winner < 0),
            dictionary_column("termination", codes.termination, codes.termination < 0),
            _sentences(codes),
        ],
        schema=BUILT_SCHEMAS["events"],
    )
    return add_ranks("events", table)


_VOCABULARY: Final = pa.array(VOCABULARY, pa.string())


def _sentences(codes: EventCodes) -> pa.Array:
    """The ``detail`` column: each row's fragments looked up and joined by Arrow (one take,
    one join), the same sentences :meth:`EventCodes.labels` joins in Python."""
    rows, width = codes.detail.shape
    words = pa.concat_arrays([_VOCABULARY, pa.array(codes.texts, pa.string())])
    fragments = words.take(pa.array(np.where(codes.detail < 0, EMPTY, codes.detail).ravel()))
    offsets = pa.array(np.arange(0, rows * width + 1, width, dtype=np.int32))
    joined: pa.Array = pc.binary_join(pa.ListArray.from_arrays(offsets, fragments), "")
    return joined


def labels_column(
    name: str,
    labels: pa.Array | pa.ChunkedArray | Sequence[str | None],
    *,
    unknown_as_null: bool = False,
) -> Any:
    """Encode labels (``'red'``, ``'K10'``...) over the fixed categories of ``name``.

    Takes plain strings or a dictionary array with any dictionary (as read back from a
    Parquet file). Nulls stay null; a label outside the categories raises ``ValueError``,
    or becomes null with ``unknown_as_null``.
    """
    values = (
        labels if isinstance(labels, pa.Array | pa.ChunkedArray) else pa.array(labels, pa.string())
    )
    if isinstance(values, pa.ChunkedArray):
        chunks = [labels_column(name, c, unknown_as_null=unknown_as_null) for c in values.chunks]
        if not chunks:
            return pa.DictionaryArray.from_arrays(
                pa.array([], pa.int8()), _DICT_ARRAYS[name], ordered=name in ORDERED_COLUMNS
            )
        return pa.chunked_array(chunks, dictionary_type(name))
    if pa.types.is_dictionary(values.type):
        # Map the (small) dictionary, then gather: no per-row string work.
        mapping = _fixed_indices(name, values.dictionary.cast(pa.string()), unknown_as_null)
        indices = pc.take(mapping, values.indices)
    else:
        indices = _fixed_indices(name, values.cast(pa.string()), unknown_as_null)
    return pa.DictionaryArray.from_arrays(
        indices, _DICT_ARRAYS[name], ordered=name in ORDERED_COLUMNS
    )


def _fixed_indices(name: str, values: pa.Array, unknown_as_null: bool) -> pa.Array:
    """int8 positions of ``values`` in the fixed categories of ``name`` (null stays null)."""
    indices = pc.index_in(values, value_set=_DICT_ARRAYS[name])
    unknown = pc.and_(pc.is_null(indices), pc.is_valid(values))
    if not unknown_as_null and pc.any(unknown).as_py():
        bad = pc.filter(values, unknown)[0].as_py()
        raise ValueError(f"unknown {name} label {bad!r}; expected one of {DICTIONARIES[name]}")
    return indices.cast(pa.int8())


def table_from_columns(name: str, columns: Mapping[str, Sequence[Any]]) -> pa.Table:
    """A table of schema ``name`` from plain Python columns (labels for categorical columns).

    For tests, fixtures and small hand-made data; missing nullable columns become nulls
    (missing boolean ones false).
    """
    schema = SCHEMAS[name]
    lengths = {len(v) for v in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    rows = lengths.pop() if lengths else 0
    arrays = []
    for f in schema:
        default = False if f.type == pa.bool_() and not f.nullable else None
        values = columns.get(f.name, [default] * rows)
        if pa.types.is_dictionary(f.type):
            arrays.append(labels_column(f.name, list(values)))
        else:
            arrays.append(pa.array(list(values), f.type))
    return add_ranks(name, pa.table(arrays, schema=schema))


def conform(name: str, table: pa.Table, columns: Sequence[str] | None = None) -> pa.Table:
    """Cast a table read back from a file (CSV strings, other int widths) to schema ``name``;
    with ``columns``, only those of its columns (read alone, for a question that needs no
    more)."""
    schema = SCHEMAS[name]
    if columns is not None:
        schema = pa.schema([f for f in schema if f.name in set(columns)], schema.metadata)
    table = _older_columns(name, table)
    if name in RANK_COLUMNS:  # computed from the piece columns, whatever the file held
        table = table.drop_columns([r for r in RANK_COLUMNS[name] if r in table.column_names])
        built = BUILT_SCHEMAS[name]
        absent = [f.name for f in built if f.name not in table.column_names]
        if not absent:
            table = add_ranks(name, table.select(built.names).cast(built))
    missing = [f.name for f in schema if f.name not in table.column_names]
    if missing:
        raise ValueError(
            f"{name} table lacks the columns {', '.join(missing)} (written by an older "
            "strat-tools? export it again from the game records)"
        )
    arrays = []
    for f in schema:
        column = table.column(f.name)
        if pa.types.is_dictionary(f.type):
            column = labels_column(f.name, column)
        elif column.type != f.type:
            column = column.cast(f.type)
        arrays.append(column)
    return pa.table(arrays, schema=schema)


def _older_columns(name: str, table: pa.Table) -> pa.Table:
    """A table written by an older version, brought to today's columns where that is exact:
    fingerprints computed from the setup rows for ``setups`` (null for ``games``, the setups
    table has them). Older winners (Gravon codes) and square names are not guessed at: such
    a table lacks today's columns and is refused by :func:`conform`."""
    if name == "setups" and "fingerprint" not in table.column_names:
        if not {"game_id", "side", "row", "col", "piece"} <= set(table.column_names):
            return table
        plain, mirrored = fingerprint_rows(table)
        return table.append_column("fingerprint", plain).append_column(
            "mirror_fingerprint", mirrored
        )
    if name == "games":
        for column in (*GAME_IDENTITY_COLUMNS, *SETUP_STRING_COLUMNS):
            if column not in table.column_names:
                table = table.append_column(column, pa.nulls(table.num_rows, pa.string()))
    return table


_PANDAS_TYPES: Final[dict[pa.DataType, Any]] = {
    pa.int8(): pd.Int8Dtype(),
    pa.int16(): pd.Int16Dtype(),
    pa.int32(): pd.Int32Dtype(),
    pa.int64(): pd.Int64Dtype(),
    pa.bool_(): pd.BooleanDtype(),
}


def to_frame(table: pa.Table) -> pd.DataFrame:
    """A pandas DataFrame of a table: nullable ints and booleans, categoricals for labels."""
    frame: pd.DataFrame = table.to_pandas(types_mapper=_PANDAS_TYPES.get)
    return frame


def file_schema(name: str) -> pa.Schema:
    """Table ``name``'s schema as written to Parquet: with pandas metadata (as pyarrow
    writes for a frame of :func:`to_frame`'s dtypes), so that a plain ``pd.read_parquet``
    gives the documented dtypes too: ``Int8``..``Int64`` and ``boolean`` (nulls kept, not
    ``float64``), categoricals (piece kinds ordered) and ``str``."""
    schema = SCHEMAS[name]
    return schema.with_metadata({**(schema.metadata or {}), b"pandas": _pandas_metadata()[name]})


@functools.cache
def _pandas_metadata() -> dict[str, bytes]:
    """Each table's ``pandas`` metadata, what ``pa.Schema.from_pandas`` gives for its
    :func:`to_frame` frame, from one probe frame of its few distinct columns (one per Arrow
    type, a categorical one per set of categories) rather than one frame per table: pyarrow
    describes every column on its own, by its dtype alone, so a table's entries are the
    probe's under the table's names. The same bytes for a sixth of the cost (a full frame
    round trip per table cost an export about 60 million instructions, as much as writing
    a month of moves)."""
    probes: dict[tuple[pa.DataType, tuple[str, ...]], pa.Array] = {}
    for f in (f for schema in SCHEMAS.values() for f in schema):
        probes.setdefault(_probe_key(f), _empty_column(f))
    keys = list(probes)
    frame = to_frame(pa.table(list(probes.values()), names=[str(i) for i in range(len(keys))]))
    probe = json.loads(pa.Schema.from_pandas(frame, preserve_index=False).metadata[b"pandas"])
    entries = dict(zip(keys, probe["columns"], strict=True))
    return {
        name: json.dumps(
            {
                **probe,
                "columns": [
                    {**entries[_probe_key(f)], "name": f.name, "field_name": f.name} for f in schema
                ],
            }
        ).encode("utf8")
        for name, schema in SCHEMAS.items()
    }


def _probe_key(f: pa.Field) -> tuple[pa.DataType, tuple[str, ...]]:
    return f.type, DICTIONARIES[f.name] if pa.types.is_dictionary(f.type) else ()


def _empty_column(f: pa.Field) -> pa.Array:
    if pa.types.is_dictionary(f.type):
        return dictionary_column(f.name, np.zeros(0, np.int8))
    return pa.array([], f.type)


def empty_tables() -> dict[str, pa.Table]:
    """The five tables with no rows."""
    return {name: empty_table(name) for name in TABLE_NAMES}


@functools.cache
def empty_table(name: str) -> pa.Table:
    """Table ``name`` with no rows (its categorical columns keep their fixed categories).
    Built once per name: Arrow tables are immutable, and every batch's empty tables share it."""
    return table_from_columns(name, {})


def concat_tables(parts: Iterable[dict[str, pa.Table]]) -> dict[str, pa.Table]:
    """Concatenate per-batch tables, table by table (no copy of the columns)."""
    collected: dict[str, list[pa.Table]] = {name: [] for name in TABLE_NAMES}
    for part in parts:
        for name in TABLE_NAMES:
            collected[name].append(part[name])
    return {
        name: pa.concat_tables(tables) if tables else empty_table(name)
        for name, tables in collected.items()
    }
