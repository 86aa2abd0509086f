"""Stratego as a two-player PettingZoo AEC environment with Gymnasium spaces (docs/env.md).

:func:`env` gives the environment wrapped as PettingZoo's classic board games are (an
illegal action ends the game with -1 for its player, an action outside the space is
refused, the calls must come in the AEC order); :class:`raw_env` is the bare one. Two
agents, ``player_0`` (red, moves first) and ``player_1`` (blue), over a
:class:`~strat_tools.engine.position.position.Position`, whose rules are the library's:

- **actions**: :class:`~gymnasium.spaces.Discrete` (10,000): our action ids
  (:mod:`strat_tools.engine.encodings.actions`), a move from its player's own seat;
- **observations**: a :class:`~gymnasium.spaces.Dict` of ``observation`` (the truth-free
  planes of :mod:`strat_tools.env.observe`, ``(10, 10, 32)`` booleans) and
  ``action_mask`` (10,000 ``int8``, 1 for each legal action of the player to move; zeros
  for the other player); ``infos[agent]["legal_ids"]`` lists the same ids, ascending;
- **rewards** at the end only: +1 the winner, -1 the loser, 0 each for a draw (or a
  recorded ending whose winner nobody knows); 0 on every other step;
- **start**: ``reset(seed=...)`` draws both setups from the game generator's setup model
  of the variant (:mod:`strat_tools.generate.setups`: where people put their pieces);
  ``reset(options={"record": record})`` starts from a record's setups under its rules,
  ``options={"replay": record}`` too, and the record's own ending (a resignation, a clock,
  a draw agreed) then ends the game once its last move has been played as recorded;
  ``options={"position": pos}`` starts from any :class:`Position` (its move stack is
  followed, so each side knows what it saw) or a StraDos3 string.

:func:`record_actions` gives a record's moves as action ids, so a record replays with
``env.step`` to its end; :meth:`raw_env.record` gives the game played as a
:class:`~strat_tools.core.records.GameRecord` for the library's writers and ``validate``.
Ultimate lightning's rescues are not actions: a rescue is only ever made by following a
record that made it (``options={"replay": record}``).
"""

from __future__ import annotations

import random
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from strat_tools.core.board import Side
from strat_tools.core.errors import IllegalMove, OptionError
from strat_tools.core.records import GameRecord, RecordedMove, Rescue, Result
from strat_tools.core.rules import RuleSet, get_rules, rules_for
from strat_tools.engine.encodings.actions import (
    ACTION_COUNT,
    action_id,
    action_squares,
    legal_actions,
)
from strat_tools.engine.position.position import Position
from strat_tools.engine.rules.outcome import Outcome
from strat_tools.env.observe import PLANES_SHAPE, Observer
from strat_tools.generate.setups import SETUP_MODELS, draw_setup, setup_field

__all__ = ["AGENTS", "env", "play_random", "raw_env", "record_actions"]

AGENTS: Final = ("player_0", "player_1")
"""The agents, red first (PettingZoo's names for a two-player board game)."""
SIDE_OF: Final = {"player_0": Side.RED, "player_1": Side.BLUE}


def record_actions(record: GameRecord) -> list[int]:
    """The action ids of ``record``'s moves, each from its player's seat (red moves first).

    >>> from strat_tools.formats.readers import read_records
    >>> (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    >>> record_actions(record)[:2]  # I4-I5, then blue's move from its own seat
    [3848, 3949]
    """
    sides = (Side.RED, Side.BLUE)
    return [
        action_id(move.source, move.target, sides[index % 2])
        for index, move in enumerate(record.moves)
    ]


def play_random(game: Any, seed: int | None = None) -> int:
    """Play ``game`` (an AEC environment of this module, wrapped or not, after its
    ``reset``) to its end through the AEC loop, each player choosing uniformly among the
    legal actions its observation's mask allows; returns the plies played.

    >>> game = env(max_plies=40)
    >>> game.reset(seed=1)
    >>> play_random(game, seed=1), game.unwrapped.truncations  # cut at 40 plies
    (40, {})
    """
    rng = random.Random(seed)
    plies = 0
    for _agent in game.agent_iter():
        observation, _reward, terminated, truncated, _info = game.last()
        action = None
        if not (terminated or truncated):
            action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            plies += 1
        game.step(action)
    return plies


def env(**kwargs: Any) -> Any:
    """The environment as PettingZoo's board games come (``chess_v6.env()``): :class:`raw_env`
    (``kwargs`` go to it) in ``TerminateIllegalWrapper`` (an illegal action ends the game,
    -1 for its player), ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``."""
    made: Any = raw_env(**kwargs)
    made = wrappers.TerminateIllegalWrapper(made, illegal_reward=-1)
    made = wrappers.AssertOutOfBoundsWrapper(made)
    return wrappers.OrderEnforcingWrapper(made)


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's name
    """Stratego in PettingZoo's AEC API (see the module docstring).

    ``variant`` (classic, barrage or duell) is the army of the setups drawn by
    :meth:`reset`; ``rules`` a rule set name or :class:`~strat_tools.core.rules.RuleSet`
    (default: the variant's, as ``rules_for`` gives a record of it); ``max_plies`` truncates
    a game that has not ended after that many plies (``None``: never).

    >>> game = raw_env()
    >>> game.reset(seed=3)
    >>> observation, reward, terminated, truncated, info = game.last()
    >>> observation["observation"].shape, int(observation["action_mask"].sum()) > 0
    ((10, 10, 32), True)
    >>> game.step(info["legal_ids"][0]); game.agent_selection
    'player_1'
    """

    metadata: Final[dict[str, Any]] = {  # PettingZoo reads it from the class
        "render_modes": ["ansi"],
        "name": "stratego_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = "classic",
        rules: RuleSet | str | None = None,
        max_plies: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if variant not in SETUP_MODELS:
            known = ", ".join(SETUP_MODELS)
            raise OptionError(f"no setup model for variant {variant!r}; expected {known}")
        if render_mode not in (None, "ansi"):
            raise OptionError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if max_plies is not None and max_plies < 1:
            raise OptionError(f"max_plies must be 1 or more (or None), got {max_plies}")
        self.variant = variant
        self.rules = (
            rules_for(GameRecord("env", variant=variant)) if rules is None else get_rules(rules)
        )
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {agent: spaces.Discrete(ACTION_COUNT) for agent in AGENTS}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, PLANES_SHAPE, dtype=np.bool_),
                    "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self._rng = random.Random()
        self._replaying: GameRecord | None = None
        """The record followed (``options={"replay": record}``) while its moves are played."""
        self._rescues: dict[int, Rescue] = {}
        """The rescues made so far (by following a record), by ply."""
        self.position = Position(setup_field(*self._draw()), self.rules)
        """The game's position now (the whole truth: for rendering and analysis)."""
        self._start()

    # -- the spaces -----------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- starting ---------------------------------------------------------------------

    def _draw(self) -> tuple[list[int], list[int]]:
        model = SETUP_MODELS[self.variant]
        return draw_setup(model, self._rng), draw_setup(model, self._rng)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (see the module docstring for ``options``: ``record``, ``replay``,
        ``position``, and ``rules`` to play a record or position under other rules; other
        keys are ignored, as PettingZoo's API checker passes one of its own)."""
        if seed is not None:
            self._rng = random.Random(seed)
        options = dict(options or {})
        starts = [key for key in ("record", "replay", "position") if options.get(key) is not None]
        if len(starts) > 1:
            raise OptionError(f"give one start, not {' and '.join(starts)}")
        rules = options.get("rules")
        self._replaying = None
        self._rescues = {}
        if "position" in starts:
            given = options["position"]
            if isinstance(given, str):
                given = Position.from_strados3(given, rules or self.rules)
            if not isinstance(given, Position):
                raise OptionError(f"a position to start from, not {type(given).__name__}")
            self.position = given.copy()
            self._start(Observer.follow(self.position))
            return
        if starts:
            record = options[starts[0]]
            if not isinstance(record, GameRecord) or record.setup is None:
                raise OptionError("a record with a setup to start from")
            self.position = Position(record.setup, rules or rules_for(record))
            self._replaying = record if starts[0] == "replay" else None
        else:
            self.position = Position(setup_field(*self._draw()), rules or self.rules)
        self._start()

    def _start(self, seen: Observer | None = None) -> None:
        pos = self.position
        self._seen = seen or Observer(pos)
        self._setup = tuple(pos.board) if pos.history is None and not pos.plies else None
        self._sources: list[int] = []
        self._targets: list[int] = []
        self._legal: list[int] | None = None
        self._outcome: Outcome | None = None
        self.agents = list(AGENTS)
        self.agent_selection = AGENTS[0] if pos.side == Side.RED else AGENTS[1]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {"legal_ids": []} for agent in AGENTS}
        ending = pos.outcome()
        if ending is not None:
            self._end(ending)
        else:
            self.infos[self.agent_selection]["legal_ids"] = self._legal_ids()

    # -- playing ----------------------------------------------------------------------

    def _legal_ids(self) -> list[int]:
        if self._legal is None:
            self._legal = legal_actions(self.position)
        return self._legal

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """``agent``'s observation now: its truth-free planes and its action mask."""
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask[self._legal_ids()] = 1
        return {"observation": self._seen.planes(SIDE_OF[agent]), "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play ``action`` (an id of :func:`record_actions`' kind) for the agent to move;
        ``None`` for an agent whose game has ended. An id that is no legal move now raises
        :class:`~strat_tools.core.errors.IllegalMove` (:func:`env` ends the game instead)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalMove("rule.no_action", f"{agent} is to move: give an action id")
        pos = self.position
        chosen = int(action)
        if chosen not in self._legal_ids():
            raise IllegalMove("rule.not_legal", f"action {chosen} is no legal move of {agent}")
        source, target = action_squares(chosen, pos.side)
        move = self._recorded(source, target)
        if move is not None:
            pos.push(move)
            if move.rescue is not None:
                self._rescues[len(self._sources) + 1] = move.rescue
        else:
            pos.push(source, target)
        self._seen.pushed(pos)
        self._sources.append(source)
        self._targets.append(target)
        self._legal = None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        ending = pos.outcome() or self._recorded_ending()
        if ending is not None:
            self._end(ending)
        elif self.max_plies is not None and len(self._sources) >= self.max_plies:
            self.truncations = dict.fromkeys(self.agents, True)
            self.infos = {name: {"legal_ids": []} for name in self.agents}
        self._accumulate_rewards()
        self.agent_selection = AGENTS[0] if pos.side == Side.RED else AGENTS[1]
        if not (self._outcome or any(self.truncations.values())):
            self.infos = {name: {"legal_ids": []} for name in self.agents}
            self.infos[self.agent_selection]["legal_ids"] = self._legal_ids()

    def _recorded(self, source: int, target: int) -> RecordedMove | None:
        """The followed record's move at this ply if it is ``source``→``target`` (with its
        rescue); ``None`` otherwise, and the record is no longer followed."""
        record = self._replaying
        if record is None:
            return None
        ply = len(self._sources)
        if ply < record.plies and (record.sources[ply], record.targets[ply]) == (source, target):
            return record.moves[ply]
        self._replaying = None
        return None

    def _recorded_ending(self) -> Outcome | None:
        """The followed record's ending once its last move has been played as recorded."""
        record = self._replaying
        if record is None or len(self._sources) < record.plies:
            return None
        result = record.result or Result(None, None)
        return Outcome.of_result(result)

    def _end(self, ending: Outcome) -> None:
        self._outcome = ending
        self.terminations = dict.fromkeys(self.agents, True)
        for agent in self.agents:
            won = ending.winner is not None and SIDE_OF[agent] == ending.winner
            lost = ending.winner is not None and not won
            self.rewards[agent] = 1.0 if won else -1.0 if lost else 0.0
            self.infos[agent] = {"legal_ids": [], "termination": ending.termination.name.lower()}

    # -- what was played ----------------------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended (the board's ending, or a followed record's), ``None`` while
        it goes on (or was truncated)."""
        return self._outcome

    def record(self, **fields: Any) -> GameRecord:
        """The game played since :meth:`reset` as a record (marked synthetic), for the
        library's writers and ``validate``; ``fields`` set the record's other fields
        (``variant``, ``year``, ``month``, ``number``, ``players``...). A game that did not
        start from a setup (a position in mid-game) has none to write: ``OptionError``."""
        if self._setup is None:
            raise OptionError("a game started from a position in mid-game has no setup to write")
        made: dict[str, Any] = {"source": "env.xml", "variant": self.variant, **fields}
        return GameRecord(
            setup=self._setup,
            sources=list(self._sources),
            targets=list(self._targets),
            rescues=dict(self._rescues),
            result=None if self._outcome is None else self._outcome.result,
            synthetic=True,
            **made,
        )

    # -- showing ----------------------------------------------------------------------

    def render(self) -> str | None:
        """The whole board as text (``render_mode="ansi"``; the truth, for people)."""
        if self.render_mode is None:
            return None
        return str(self.position)

    def close(self) -> None:
        """Nothing to release (no window)."""
