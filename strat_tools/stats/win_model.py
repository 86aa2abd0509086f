"""Who is winning, at every ply: a win-probability model per variant, fitted, saved, scored.

The model of a variant (:func:`features_of`): a logistic regression of "the side to move
wins" on the rows of :mod:`strat_tools.stats.value_rows` taken after every 5th ply (both
sides to move) of decided games of that variant, while both flags stand. Its columns, by
name (a rank the variant's army lacks gives no column: barrage has no colonel):

- ``intercept``;
- ``bomb`` .. ``marshal``: the count differences (the side to move's minus the opponent's);
- ``known_bomb`` .. ``known_marshal``: per rank, the side to move's pieces of it the
  opponent has identified minus the opponent's it has identified ("identified": has fought,
  or moved as only that rank can; ``engine/information/knowledge.py``);
- ``movable_share``: (own movable - opponent's movable) / (both);
- ``strongest_1`` .. ``strongest_7`` (:data:`STRONGEST`): each side's movable pieces lined
  up from the strongest down (marshal, general, ... scout, spy), the k-th of each compared:
  +1 when the side to move's k-th strongest outranks the opponent's, -1 when it is
  outranked, 0 when they are of one rank (a side with fewer than k movable pieces has no
  k-th and is outranked by any; neither has one: 0). ``strongest_1``: who holds the
  highest piece;
- ``strongest_by_ply``: the sum of the seven times ply / 100;
- ``safe_marshal``: +1 when the side to move has a marshal and the opponent no spy (the
  marshal is safe), -1 when the opponent has one and the side to move no spy, else 0.

Every column is public in classic: a capture shows both pieces and the army is fixed, so
each side's count per rank is known to both players. Classic (and every variant but
barrage: a rank its army lacks gives no column; no model is shipped for them) uses all of
them (33), chosen on the held-out months (docs/values.md has the comparison). Barrage,
chosen on its own, ``intercept``, the differences, ``movable_share`` and the known
differences (the ``strongest_k`` made it worse there).

:func:`win_features` also makes the columns of the forms compared before (not in a shipped
form): ``red_to_move`` (+1 red, -1 blue), ``movable_by_ply`` (the movable difference times
ply / 100) and ``RANK_by_ply`` (a rank's difference times ply / 100).

:func:`fit_win_model` fits it (and, beside it, the material-only model: ``intercept`` and
the count differences on the same rows; and the training rate: red's share of the training
rows' wins) and gives a :class:`WinModel` that saves as a small JSON with its provenance.
:func:`calibrate` scores a model on other rows (Brier score and log-loss of the three, and
a reliability table by probability bin with intervals clustered by game).
:mod:`strat_tools.stats.win_model_file` reads a saved model back, checking every field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.core.errors import InputError, UsageError
from strat_tools.core.pieces import ARMIES
from strat_tools.engine.information.material import MATERIAL_KINDS
from strat_tools.stats.formulas import Z95
from strat_tools.stats.logit import NotConverged, fit_logit, predict_logit
from strat_tools.stats.value_rows import MoverView, ValueRows, counts_view, mover_view

__all__ = [
    "BASELINES",
    "WIN_VARIANTS",
    "WinModel",
    "army_kinds",
    "calibrate",
    "check_model_variant",
    "features_of",
    "fit_win_model",
    "form_of",
    "kth_strongest",
    "material_features_of",
    "red_chances",
    "win_features",
    "win_probability",
]

KINDS: Final = tuple(k.label for k in MATERIAL_KINDS)
"""Every kind a count is kept of: bomb, spy, scout, ... marshal."""
WIN_VARIANTS: Final = ("classic", "barrage")
"""The variants whose win model the package ships (the others have too few games)."""
STRONGEST: Final = 7
"""How many of each side's strongest movable pieces are compared (``strongest_1`` ..)."""
SAFE: Final = "safe_marshal"
BASELINES: Final = ("material only", "training rate")
BINS: Final = 10
MAX_COEF: Final = 50.0
"""No coefficient of a model is larger (the fit refuses one that grows past it)."""


def army_kinds(variant: str) -> tuple[str, ...]:
    """The kinds of ``variant``'s army (every kind where the army is free: classicfree)."""
    army = ARMIES.get(variant)
    if army is None:
        return KINDS
    return tuple(k.label for k in MATERIAL_KINDS if army[k] > 0)


def features_of(variant: str) -> tuple[str, ...]:
    """The win model's columns for ``variant``, in order (see the module docstring).

    >>> features_of("barrage")  # doctest: +NORMALIZE_WHITESPACE
    ('intercept', 'bomb', 'spy', 'scout', 'miner', 'general', 'marshal', 'movable_share',
     'known_bomb', 'known_spy', 'known_scout', 'known_miner', 'known_general', 'known_marshal')
    >>> len(features_of("classic"))
    33
    """
    kinds = army_kinds(variant)
    known = tuple(f"known_{k}" for k in kinds)
    if variant == "barrage":
        return ("intercept", *kinds, "movable_share", *known)
    strongest = tuple(f"strongest_{k}" for k in range(1, STRONGEST + 1))
    return ("intercept", *kinds, *known, "movable_share", *strongest, "strongest_by_ply", SAFE)


def material_features_of(variant: str) -> tuple[str, ...]:
    """The material-only model's columns: the intercept and the count differences."""
    return ("intercept", *army_kinds(variant))


def form_of(variant: str) -> str:
    """The model of ``variant`` in one line (saved with it, checked when read back): its
    columns and the definitions of those it uses (a form without the ``strongest_k`` says
    what it said before they came, so barrage's saved model reads back unchanged)."""
    names = features_of(variant)
    terms = "X_by_ply: X difference x ply / 100"
    if "strongest_1" in names:
        terms = (
            "strongest_k: sign of (rank of own k-th strongest movable piece - opponent's "
            "k-th; none ranks below the spy), strongest_by_ply: their sum x ply / 100, "
            "safe_marshal: (own marshal and no opponent's spy) - (opponent's marshal and no "
            "own spy)"
        )
    return (
        f"logit P(side to move wins) = b . [{', '.join(names)}]; count "
        "differences own minus opponent's, known_R: own pieces of rank R the opponent has "
        "identified minus the opponent's identified, movable_share (own - opp) / (own + opp) "
        f"movable, {terms}; rows after every 5th ply of decided "
        f"{variant} games while both flags stand; fitted by Newton's method"
    )


def kth_strongest(counts: npt.NDArray[Any], k: int) -> npt.NDArray[np.int64]:
    """Per row of per-kind counts (:data:`KINDS` order), the rank of each of the ``k``
    strongest movable pieces (spy 1, scout 2, ... marshal 10; 0: fewer pieces than that),
    counts rounded to whole pieces.

    >>> row = np.zeros((1, len(KINDS)))
    >>> row[0, KINDS.index("marshal")], row[0, KINDS.index("major")] = 1, 2
    >>> row[0, KINDS.index("bomb")] = 6  # bombs do not move: never in the line
    >>> kth_strongest(row, 5).tolist()
    [[10, 7, 7, 0, 0]]
    """
    whole = np.rint(np.asarray(counts, dtype=np.float64)[:, 1:])  # spy .. marshal
    down = np.cumsum(whole[:, ::-1], axis=1)  # pieces of rank marshal, >= general, ...
    ranks = np.zeros((len(whole), k), dtype=np.int64)
    for i in range(k):
        has = down > i
        ranks[:, i] = np.where(has.any(axis=1), whole.shape[1] - np.argmax(has, axis=1), 0)
    return ranks


def win_features(view: MoverView, ply: npt.ArrayLike, names: tuple[str, ...]) -> npt.NDArray[Any]:
    """The columns ``names`` (of :func:`features_of`, or the earlier forms' of the module
    docstring) for rows seen from the side to move."""
    diff = view.own - view.opp
    known = view.own_known - view.opp_known
    plies = np.asarray(ply, dtype=np.float64)
    bomb = KINDS.index("bomb")
    movable = [i for i in range(len(KINDS)) if i != bomb]
    own_m, opp_m = view.own[:, movable].sum(axis=1), view.opp[:, movable].sum(axis=1)
    columns: list[npt.NDArray[np.float64]] = []
    ladder = np.zeros((len(diff), STRONGEST))
    if any(name.startswith("strongest_") for name in names):
        ladder = np.sign(kth_strongest(view.own, STRONGEST) - kth_strongest(view.opp, STRONGEST))
    for name in names:
        if name == "intercept":
            columns.append(np.ones(len(diff)))
        elif name == "red_to_move":
            columns.append(np.where(view.red, 1.0, -1.0))
        elif name == "movable_share":
            columns.append((own_m - opp_m) / np.maximum(own_m + opp_m, 1.0))
        elif name == "strongest_by_ply":
            columns.append(ladder.sum(axis=1) * plies / 100.0)
        elif name.startswith("strongest_"):
            columns.append(ladder[:, int(name.removeprefix("strongest_")) - 1])
        elif name == SAFE:
            spy, marshal = KINDS.index("spy"), KINDS.index("marshal")
            own_safe = (view.own[:, marshal] > 0.5) & (view.opp[:, spy] < 0.5)
            opp_safe = (view.opp[:, marshal] > 0.5) & (view.own[:, spy] < 0.5)
            columns.append(own_safe.astype(np.float64) - opp_safe)
        elif name == "movable_by_ply":
            columns.append((own_m - opp_m) * plies / 100.0)
        elif name.startswith("known_"):
            columns.append(known[:, KINDS.index(name.removeprefix("known_"))])
        elif name.endswith("_by_ply"):
            columns.append(diff[:, KINDS.index(name.removesuffix("_by_ply"))] * plies / 100.0)
        else:
            columns.append(diff[:, KINDS.index(name)])
    return np.column_stack(columns) if columns else np.zeros((len(diff), 0))


@dataclass(frozen=True, slots=True)
class WinModel:
    """A fitted win model of one variant: coefficients (and the material-only model's, and
    the training rate) with provenance. Its columns are :func:`features_of` its variant."""

    variant: str
    coef: tuple[float, ...]
    material_coef: tuple[float, ...]
    base_rate: float
    """Red's share of the wins over the training rows (the training rate: the side to move's
    chance is this when red is to move, one minus it when blue is)."""
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def features(self) -> tuple[str, ...]:
        return features_of(self.variant)

    @property
    def material_features(self) -> tuple[str, ...]:
        return material_features_of(self.variant)

    def chances(self, view: MoverView, ply: npt.ArrayLike) -> dict[str, npt.NDArray[Any]]:
        """P(side to move wins) by the model and by its two baselines (:data:`BASELINES`)."""
        red = np.asarray(view.red)
        return {
            "win model": predict_logit(win_features(view, ply, self.features), self.coef),
            "material only": predict_logit(
                win_features(view, ply, self.material_features), self.material_coef
            ),
            "training rate": np.where(red, self.base_rate, 1.0 - self.base_rate),
        }

    def to_json(self) -> dict[str, Any]:
        """The saved form (what :func:`strat_tools.stats.win_model_file.load_win_model`
        reads)."""
        return {
            "form": form_of(self.variant),
            "variant": self.variant,
            "features": list(self.features),
            "coef": list(self.coef),
            "material_features": list(self.material_features),
            "material_coef": list(self.material_coef),
            "base_rate": self.base_rate,
            "provenance": self.provenance,
        }

    def save(self, path: str | Path) -> None:
        """Write the JSON (atomically)."""
        from strat_tools.io.output import write_file_atomically

        write_file_atomically(path, (json.dumps(self.to_json(), indent=2) + "\n").encode())


def fit_win_model(
    rows: ValueRows, *, variant: str = "classic", provenance: dict[str, Any] | None = None
) -> WinModel:
    """Fit ``variant``'s model, the material-only model and the training rate on ``rows``
    (decided games of ``variant``). :class:`InputError` when the rows cannot carry it."""
    view = mover_view(rows)
    if len(np.unique(rows.game)) < 2:
        raise InputError("too few games to fit a win model")
    try:
        fit = fit_logit(win_features(view, rows.ply, features_of(variant)), view.y, rows.game)
        material = fit_logit(
            win_features(view, rows.ply, material_features_of(variant)), view.y, rows.game
        )
    except NotConverged as exc:
        raise InputError(f"the {variant} win model cannot be fitted: {exc}") from None
    games = np.unique(rows.game)
    months = sorted({int(m) for m in rows.month[games] if m})
    about = {
        "months": [f"{m // 100}-{m % 100:02d}" for m in months],
        "games": len(games),
        "rows": len(rows.ply),
        **(provenance or {}),
    }
    red_won = (rows.winner[rows.game] == 1).astype(np.float64)
    return WinModel(
        variant,
        tuple(float(b) for b in fit.coef),
        tuple(float(b) for b in material.coef),
        float(red_won.mean()),
        about,
    )


def check_model_variant(model: WinModel, variant: str) -> None:
    """:class:`UsageError` (``--model``) when ``model`` is not a model of ``variant``."""
    if model.variant != variant:
        raise UsageError(
            f"a {model.variant} win model cannot score {variant} games (give --variant "
            f"{model.variant}, or a {variant} model)",
            option="model",
        )


def win_probability(model: WinModel, counts: npt.ArrayLike, ply: int) -> float:
    """Red's chance of winning after ``ply`` from one row of 44 counts (``material_rows`` or
    a side's ``view_material``)."""
    return float(red_chances(model, np.asarray(counts)[None, :], [ply])[0])


def red_chances(
    model: WinModel, counts: npt.ArrayLike, plies: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Red's chance of winning after each of ``plies``, from its row of 44 counts."""
    ply = np.asarray(plies, dtype=np.int64)
    view = counts_view(counts, ply)
    p = predict_logit(win_features(view, ply, model.features), model.coef)
    return np.asarray(np.where(view.red, p, 1.0 - p))


def calibrate(model: WinModel, rows: ValueRows) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores of ``model`` on ``rows`` (Brier, log-loss; beside the material-only model and
    the training rate) and its reliability table: per probability bin its rows and games,
    the mean predicted chance, the observed share and its 95% interval clustered by game."""
    view = mover_view(rows)
    if not len(view.y):
        raise InputError("no rows to score the model on")
    y = view.y
    games = len(np.unique(rows.game))
    predictions = model.chances(view, rows.ply)
    scores = pd.DataFrame(
        [
            {
                "model": name,
                "brier": float(np.mean((p - y) ** 2)),
                "log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
                "games": games,
                "rows": len(y),
            }
            for name, p in predictions.items()
        ]
    )
    return scores, reliability_table(predictions["win model"], y, rows.game)


def reliability_table(
    p: npt.NDArray[Any], y: npt.NDArray[Any], game: npt.NDArray[Any]
) -> pd.DataFrame:
    """Per bin of ``p``: rows, games, mean predicted, observed share of ``y`` with a 95%
    interval clustered by game (the share's sandwich: the residuals summed per game)."""
    bin_of = np.minimum((p * BINS).astype(int), BINS - 1)
    out = []
    for b in range(BINS):
        inside = bin_of == b
        n = int(inside.sum())
        share = float(y[inside].mean()) if n else float("nan")
        groups = game[inside]
        _, label = np.unique(groups, return_inverse=True)
        g = int(label.max()) + 1 if n else 0
        if g > 1:
            sums = np.bincount(label, y[inside] - share, g)
            se = float(np.sqrt(g / (g - 1) * np.sum(sums**2)) / n)
        else:
            se = float("nan")
        out.append(
            {
                "bin": f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}",
                "rows": n,
                "games": g,
                "predicted": float(p[inside].mean()) if n else float("nan"),
                "observed": share,
                "observed_low": share - Z95 * se,
                "observed_high": share + Z95 * se,
            }
        )
    return pd.DataFrame(out)
