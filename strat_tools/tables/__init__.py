"""Games, setups, moves, diagnostics and events as Arrow tables: their schemas
(:mod:`~strat_tools.tables.schemas`), game ids, building them from records
(:mod:`~strat_tools.tables.build`, re-exported here) and the owned dataset folders they are
written to and read from (:mod:`~strat_tools.tables.dataset`).
"""

from __future__ import annotations

from strat_tools.tables.build import (
    DICTIONARIES,
    OUTCOME_LABELS,
    SCHEMAS,
    SIDE_LABELS,
    SQUARE_NAMES,
    TABLE_NAMES,
    GameIds,
    IdSet,
    check_rules,
    concat_tables,
    conform,
    dictionary_column,
    empty_table,
    empty_tables,
    labels_column,
    table_from_columns,
    tables_for_records,
    tables_for_units,
    to_frame,
)

__all__ = [
    "DICTIONARIES",
    "OUTCOME_LABELS",
    "SCHEMAS",
    "SIDE_LABELS",
    "SQUARE_NAMES",
    "TABLE_NAMES",
    "GameIds",
    "IdSet",
    "check_rules",
    "concat_tables",
    "conform",
    "dictionary_column",
    "empty_table",
    "empty_tables",
    "labels_column",
    "table_from_columns",
    "tables_for_records",
    "tables_for_units",
    "to_frame",
]
