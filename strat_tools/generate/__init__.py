"""Synthetic games in Gravon's format, legal by construction: setups drawn from a model
(:mod:`~strat_tools.generate.setups`), play by a simple policy (:mod:`~strat_tools.generate.play`),
every game replayed before it is written (:mod:`~strat_tools.generate.games`). This package is
their face, ``st.generate``: the names below, each imported from the module that defines it.
"""

from __future__ import annotations

from strat_tools.generate.games import (
    GenerationError,
    generate_files,
    generate_game,
    generate_games,
    parse_period,
    parse_variant_mix,
    plan_games,
    verify_game,
)
from strat_tools.generate.play import (
    DEFAULT_POLICY,
    FLAG_BELIEF,
    MAX_PLIES,
    PIECE_VALUES,
    RESIGN_RATIO,
    Policy,
    choose_move,
    play_game,
)
from strat_tools.generate.setups import (
    BARRAGE_MODEL,
    CLASSIC_MODEL,
    DUELL_MODEL,
    SETUP_MODELS,
    SetupModel,
    draw_setup,
    setup_field,
)

__all__ = [
    "BARRAGE_MODEL",
    "CLASSIC_MODEL",
    "DEFAULT_POLICY",
    "DUELL_MODEL",
    "FLAG_BELIEF",
    "MAX_PLIES",
    "PIECE_VALUES",
    "RESIGN_RATIO",
    "SETUP_MODELS",
    "GenerationError",
    "Policy",
    "SetupModel",
    "choose_move",
    "draw_setup",
    "generate_files",
    "generate_game",
    "generate_games",
    "parse_period",
    "parse_variant_mix",
    "plan_games",
    "play_game",
    "setup_field",
    "verify_game",
]
