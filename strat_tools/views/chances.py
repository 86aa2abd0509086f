"""Who is winning, at every ply, in each view of the viewer: red's chance by the win model.

:func:`game_chances` gives, for one replayed game and each of the viewer's three views
(``all``: the true position; ``red`` and ``blue``: what that side knew, through
``engine/information/material.py``'s ``view_materials``: its own pieces, the opponent's it has
identified, and the rest counted by what is left unidentified, never by their true
identity), red's chance of winning after every ply by the win model the package ships for the game's
variant (``stats/win_model.py``: classic and barrage), in thousandths, and the largest
swings as key events ("ply 121: red's chance falls from 61% to 38%: red's general is
lost"). A swing's reason names a lost piece only as the view knew it. A variant with no
shipped model (ultimate lightning, duell, classicfree: too few games to fit one) gets no
chance, and ``chance_note`` says so: the page never draws one model's chance for another
variant's game.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, KIND_LABELS
from strat_tools.core.rules import OUTCOME_ATTACKER, OUTCOME_BOTH, OUTCOME_DEFENDER, OUTCOME_FLAG
from strat_tools.engine.information.material import material_rows, view_materials
from strat_tools.stats.win_model import WinModel, red_chances
from strat_tools.stats.win_model_file import shipped_win_model

if TYPE_CHECKING:
    from strat_tools.engine.information.knowledge import Knowledge
    from strat_tools.engine.replays.replay import Replay

__all__ = ["SWINGS", "game_chances", "swing_events"]

SWINGS: Final = 3
"""The largest swings listed per view (each of at least :data:`MIN_SWING`)."""
MIN_SWING: Final = 0.05
_SIDES: Final = {"red": Side.RED, "blue": Side.BLUE}


@lru_cache(maxsize=8)
def _model(variant: str) -> WinModel | None:
    return shipped_win_model(variant)


def game_chances(result: Replay, know: Knowledge, variant: str = "classic") -> dict[str, Any]:
    """``{"chance": {view: [thousandths per ply]}, "swings": {view: [[ply, text], ...]}}``
    by ``variant``'s shipped model; without one ``{"chance": None, "swings": {},
    "chance_note": why}``."""
    plies = np.arange(know.plies + 1)
    model = _model(variant)
    if model is None:
        note = f"No calibrated chance for {variant}: too few games to fit its win model."
        return {"chance": None, "swings": {}, "chance_note": note}
    chance: dict[str, list[int]] = {}
    swings: dict[str, list[list[Any]]] = {}
    for view in ("all", "red", "blue"):
        counts = material_rows(know, plies) if view == "all" else view_materials(know, _SIDES[view])
        p = red_chances(model, counts, plies)
        chance[view] = np.rint(p * 1000).astype(int).tolist()
        swings[view] = swing_events(p, result, view)
    return {"chance": chance, "swings": swings}


def swing_events(p: npt.NDArray[np.float64], result: Replay, view: str) -> list[list[Any]]:
    """The largest changes of red's chance from one ply to the next, in ply order."""
    if len(p) < 2:
        return []
    change = np.diff(p)
    order = np.argsort(-np.abs(change), kind="stable")[:SWINGS]
    out = []
    for i in sorted(int(i) for i in order if abs(change[i]) >= MIN_SWING):
        ply = i + 1
        before, after = round(100 * p[i]), round(100 * p[ply])
        verb = "rises" if change[i] > 0 else "falls"
        text = f"red's chance {verb} from {before}% to {after}%"
        reason = _reason(result, ply, view)
        out.append([ply, text + (f": {reason}" if reason else "")])
    return out


def _reason(result: Replay, ply: int, view: str) -> str:
    """What the battle of ``ply`` removed, as ``view`` knew it; '' without a battle."""
    i = ply - 1
    if i >= len(result.defenders) or not result.defenders[i]:
        return ""
    mover, defender, outcome, shown = (
        result.movers[i],
        result.defenders[i],
        result.outcomes[i],
        result.revealed[i],
    )
    lost = []
    if outcome in (OUTCOME_ATTACKER, OUTCOME_FLAG, OUTCOME_BOTH):
        lost.append((defender, bool(shown & 2)))
    if outcome in (OUTCOME_DEFENDER, OUTCOME_BOTH):
        lost.append((mover, bool(shown & 1)))
    names = [_name(code, seen, view) for code, seen in lost]
    if not names:
        return ""
    return " and ".join(names) + (" are lost" if len(names) > 1 else " is lost")


def _name(code: int, seen: bool, view: str) -> str:
    owner = "red" if CODE_SIDE[code] == Side.RED else "blue"
    if view in ("all", owner) or seen:
        return f"{owner}'s {KIND_LABELS[CODE_KIND[code]]}"
    return f"a {owner} piece"
