"""Games, setups, moves, diagnostics and events as Arrow tables: their schemas
(:mod:`~strat_tools.tables.schemas`), game ids, building them from records
(:mod:`~strat_tools.tables.build`, re-exported here) and the owned dataset folders they are
written to and read from (:mod:`~strat_tools.tables.dataset`).
"""

from __future__ import annotations

from strat_tools.tables.build import *  # noqa: F403  (the names of its __all__)
from strat_tools.tables.build import __all__ as __all__
