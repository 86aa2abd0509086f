"""Games, setups, moves, diagnostics and events as Arrow tables: their schemas
(:mod:`~strat_tools.tables.schemas`) and the columns and tables made to them
(:mod:`~strat_tools.tables.columns`), game ids (:mod:`~strat_tools.tables.game_ids`), building
them from records (:mod:`~strat_tools.tables.build`) and the owned dataset folders they are
written to and read from (:mod:`~strat_tools.tables.dataset`). This package is their face,
``st.tables``: the names of the first four modules' ``__all__``.
"""

from __future__ import annotations

from strat_tools.tables import build, columns, game_ids, schemas
from strat_tools.tables.build import *  # noqa: F403  (the names of its __all__)
from strat_tools.tables.columns import *  # noqa: F403
from strat_tools.tables.game_ids import *  # noqa: F403
from strat_tools.tables.schemas import *  # noqa: F403

__all__ = [*build.__all__, *columns.__all__, *game_ids.__all__, *schemas.__all__]
