"""Who is winning, at every ply: a win-probability model, fitted, saved, scored.

The model (:data:`FEATURES`): a logistic regression of "the side to move wins" on the rows
of :mod:`strat_tools.stats.value_rows` taken after every 5th ply (both sides to move) of
decided games, while both flags stand, with the features

- ``intercept`` and ``red_to_move`` (+1 red, -1 blue: the first mover's edge);
- the headline's 11 differences (the side to move's count minus the opponent's, bomb and
  each movable rank);
- ``known``: the side to move's pieces the opponent has identified minus the opponent's it
  has identified (what secrecy is worth, all ranks pooled);
- ``movable_share``: (own movable - opponent's movable) / (both), the material lead
  relative to what is left;
- ``movable_by_ply``: the movable difference times ply / 100 (material counts more late).

:func:`fit_win_model` fits it (and, beside it, the two models it is judged against: the
constant base rate and the material-only model, the headline's features on the same rows)
and gives a :class:`WinModel` that saves as a small JSON with its provenance (months,
games, rows, the form). :func:`calibrate` scores a saved model on other rows: Brier score
and log-loss of the three, and a reliability table by probability bin.
:func:`win_probability` is the model's chance for one set of counts (the viewer's, in a
side's view: see ``engine/material.py``'s ``view_material``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.core.errors import InputError
from strat_tools.engine.material import MATERIAL_KINDS
from strat_tools.stats.logit import fit_logit, predict_logit
from strat_tools.stats.value_rows import MoverView, ValueRows, counts_view, mover_view

__all__ = [
    "FEATURES",
    "FORM",
    "WinModel",
    "calibrate",
    "fit_win_model",
    "load_win_model",
    "red_chances",
    "shipped_win_model",
    "win_features",
    "win_probability",
]

_KINDS: Final = tuple(k.label for k in MATERIAL_KINDS)
FEATURES: Final = (
    "intercept",
    "red_to_move",
    *_KINDS,
    "known",
    "movable_share",
    "movable_by_ply",
)
MATERIAL_FEATURES: Final = ("intercept", *_KINDS)
"""The material-only model's columns (the headline's, on the win model's rows)."""
FORM: Final = (
    "logit P(side to move wins) = b . [1, red to move (+1/-1), 11 count differences (bomb, "
    "spy..marshal: own minus opponent's), known (own identified minus opponent's), "
    "movable share ((own - opp) / (own + opp) movable), movable difference x ply / 100]; "
    "rows after every 5th ply of decided games while both flags stand; fitted by Newton's "
    "method"
)
BINS: Final = 10
SHIPPED: Final = "win_model.json"


def win_features(view: MoverView, ply: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The model's columns (:data:`FEATURES`) for rows seen from the side to move."""
    diff = view.own - view.opp
    bomb = _KINDS.index("bomb")
    movable = [i for i in range(len(_KINDS)) if i != bomb]
    own_m, opp_m = view.own[:, movable].sum(axis=1), view.opp[:, movable].sum(axis=1)
    total = np.maximum(own_m + opp_m, 1.0)
    known = view.own_known.sum(axis=1) - view.opp_known.sum(axis=1)
    plies = np.asarray(ply, dtype=np.float64)
    return np.column_stack(
        [
            np.ones(len(diff)),
            np.where(view.red, 1.0, -1.0),
            diff,
            known,
            (own_m - opp_m) / total,
            (own_m - opp_m) * plies / 100.0,
        ]
    )


def _material(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.asarray(x[:, [FEATURES.index(f) for f in MATERIAL_FEATURES]])


@dataclass(frozen=True, slots=True)
class WinModel:
    """A fitted win model: coefficients (and the two baselines') with provenance."""

    coef: tuple[float, ...]
    material_coef: tuple[float, ...]
    base_rate: float
    provenance: dict[str, Any] = field(default_factory=dict)

    def predict(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """P(side to move wins) for rows of :func:`win_features`."""
        return predict_logit(x, self.coef)

    def to_json(self) -> dict[str, Any]:
        """The saved form (what :func:`load_win_model` reads)."""
        return {
            "form": FORM,
            "features": list(FEATURES),
            "coef": list(self.coef),
            "material_features": list(MATERIAL_FEATURES),
            "material_coef": list(self.material_coef),
            "base_rate": self.base_rate,
            "provenance": self.provenance,
        }

    def save(self, path: str | Path) -> None:
        """Write the JSON (atomically)."""
        from strat_tools.io.output import write_file_atomically

        write_file_atomically(path, (json.dumps(self.to_json(), indent=2) + "\n").encode())


def fit_win_model(rows: ValueRows, *, provenance: dict[str, Any] | None = None) -> WinModel:
    """Fit the model, the material-only model and the base rate on ``rows``."""
    view = mover_view(rows)
    x = win_features(view, rows.ply)
    if len(np.unique(rows.game)) < 2:
        raise InputError("too few games to fit a win model")
    fit = fit_logit(x, view.y, rows.game)
    material = fit_logit(_material(x), view.y, rows.game)
    months = sorted({int(m) for m in rows.month[np.unique(rows.game)] if m})
    about = {
        "months": [f"{m // 100}-{m % 100:02d}" for m in months],
        "games": len(np.unique(rows.game)),
        "rows": len(rows.ply),
        **(provenance or {}),
    }
    return WinModel(
        tuple(float(b) for b in fit.coef),
        tuple(float(b) for b in material.coef),
        float(view.y.mean()),
        about,
    )


def load_win_model(path: str | Path | None = None) -> WinModel:
    """A saved model (None: the one the package ships); :class:`InputError` if it is not one."""
    if path is None:
        text = resources.files("strat_tools.stats").joinpath("data", SHIPPED).read_text()
        where = "the shipped model"
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the model {path}: {exc}") from None
        where = str(path)
    try:
        data = json.loads(text)
        if list(data["features"]) != list(FEATURES) or len(data["coef"]) != len(FEATURES):
            raise InputError(f"{where} is a win model of another form: {data['features']}")
        return WinModel(
            tuple(float(b) for b in data["coef"]),
            tuple(float(b) for b in data["material_coef"]),
            float(data["base_rate"]),
            dict(data.get("provenance", {})),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{where} is not a win model: {exc!r}") from None


def shipped_win_model() -> WinModel:
    """The model the package ships (fitted on the 23 archive months; see its provenance)."""
    return load_win_model(None)


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
    red = view.red
    p = model.predict(win_features(view, ply))
    return np.asarray(np.where(red, p, 1.0 - p))


def calibrate(model: WinModel, rows: ValueRows) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores of ``model`` on ``rows`` (Brier, log-loss; beside the base rate and the
    material-only model) and its reliability table (per probability bin: rows, mean
    predicted, observed share)."""
    view = mover_view(rows)
    if not len(view.y):
        raise InputError("no rows to score the model on")
    x = win_features(view, rows.ply)
    y = view.y
    games = len(np.unique(rows.game))
    predictions = {
        "win model": model.predict(x),
        "material only": predict_logit(_material(x), model.material_coef),
        "base rate": np.full(len(y), model.base_rate),
    }
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
    p = predictions["win model"]
    bin_of = np.minimum((p * BINS).astype(int), BINS - 1)
    reliability = pd.DataFrame(
        {
            "bin": [f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}" for b in range(BINS)],
            "rows": np.bincount(bin_of, minlength=BINS),
            "predicted": np.bincount(bin_of, p, BINS)
            / np.maximum(np.bincount(bin_of, None, BINS), 1),
            "observed": np.bincount(bin_of, y, BINS)
            / np.maximum(np.bincount(bin_of, None, BINS), 1),
        }
    )
    return scores, reliability
