"""Synthetic games in Gravon's format, legal by construction: setups drawn from a model
(:mod:`~strat_tools.generate.setups`), play by a simple policy (:mod:`~strat_tools.generate.play`),
every game replayed before it is written (:mod:`~strat_tools.generate.games`, re-exported here).
"""

from __future__ import annotations

from strat_tools.generate.games import *  # noqa: F403  (the names of its __all__)
from strat_tools.generate.games import __all__ as __all__
