"""What the stepping API and the knowledge model read of a replayed game: a
:class:`~strat_tools.engine.replays.replay.Replay`, or a game pushed on a position, named as a
``Protocol`` so that neither imports the replay (nor numpy, for stepping).

This module holds a type only.
"""

from __future__ import annotations

from typing import Protocol

from strat_tools.core.records import GameRecord
from strat_tools.core.rules import RuleSet

__all__ = ["Replayed"]


class Replayed(Protocol):
    """What stepping and :func:`~strat_tools.engine.information.knowledge.knowledge` read of a
    :class:`~strat_tools.engine.replays.replay.Replay`."""

    @property
    def record(self) -> GameRecord: ...

    @property
    def rules(self) -> RuleSet: ...

    @property
    def plies_replayed(self) -> int: ...

    @property
    def movers(self) -> list[int]: ...

    @property
    def defenders(self) -> list[int]: ...

    @property
    def outcomes(self) -> list[int]: ...

    @property
    def distances(self) -> list[int]: ...

    @property
    def revealed(self) -> list[int]: ...

    @property
    def rescued(self) -> dict[int, int]: ...
