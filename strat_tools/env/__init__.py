"""A Stratego environment for reinforcement learning, in PettingZoo's AEC API
(``pip install strat-tools[env]``; docs/env.md)::

    from strat_tools.env import env

    game = env()
    game.reset(seed=42)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        action = None if termination or truncation else info["legal_ids"][0]
        game.step(action)

:func:`env` is the wrapped environment, :class:`raw_env` the bare one, as PettingZoo's own
(``chess_v6.env()``); :func:`record_actions` a record's moves as actions; :func:`play_random`
plays a game to its end with random legal actions.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as missing:  # the optional extra is not installed
    raise ImportError(
        f"strat_tools.env needs PettingZoo and Gymnasium ({missing.name} is missing): "
        "pip install 'strat-tools[env]'"
    ) from missing

from strat_tools.env.stratego import AGENTS, env, play_random, raw_env, record_actions

__all__ = ["AGENTS", "env", "play_random", "raw_env", "record_actions"]
