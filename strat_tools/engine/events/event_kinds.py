"""The kinds of key event, each with what it means: the one list the events table, the
viewer's "next event", ``strat-tools events --kind`` and the docs take.

Its own module, importing nothing, so that the command line can offer the kinds as
choices (and show them in ``--help``) without loading NumPy with the event finder
(:mod:`strat_tools.engine.events.key_events`).

>>> list(EVENT_KINDS)[:2]
['battle', 'first_capture']
"""

from __future__ import annotations

from typing import Final

__all__ = ["EVENT_KINDS"]

EVENT_KINDS: Final[dict[str, str]] = {
    "battle": "a piece attacked another: both squares, both ranks and the outcome",
    "first_capture": "the first piece of the game removed from the board",
    "marshal_lost": "a side lost its marshal",
    "general_lost": "a side lost its general",
    "spy_takes_marshal": "a spy attacked the marshal and took it",
    "bomb_removed": "a bomb was taken off the board",
    "rescue": "a piece reached the enemy back row and brought back a captured piece",
    "flag_captured": "a flag was captured",
    "end": "the game's end and its reason (or why the replay stopped)",
}
"""Every event kind and what it means; a ply's rows come in the
order of ``strat_tools.engine.events.key_events``'s ``_ORDER``."""
