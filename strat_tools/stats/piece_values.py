"""What a piece is worth, and what secrecy is worth, learned from decided games.

The headline model (``material``), exactly: decided games of one variant (classic unless
told); one row after every 10th ply (after 10, 20, ... plies: red is always to move) while
both flags stand; the outcome is "the side to move wins"; the 11 features are, for each of
the 10 movable ranks and for bombs, the side to move's count on the board minus the
opponent's; a logistic regression with an intercept (so at equal material, the intercept is
red's edge as the side to move), its standard errors clustered by game
(:func:`strat_tools.stats.logit.fit_logit`: the sandwich with statsmodels' small-sample
factor), 95% intervals ``b +- 1.96 se``.

The secrecy model (``secrecy``) splits the count of each rank of :data:`SECRET_RANKS` that
the data allow (each part not zero in at least :data:`MIN_GAMES` games) in two: the pieces
the opponent has not identified (``hidden``) and those it has (``known``; shown in a battle
or proved by a move, ``engine/information/knowledge.py``), each as the side to move's minus the
opponent's. The scout stays whole: it is the unit.

``by="phase"`` fits the model apart in each band of :data:`PHASES`, each on the same
games: those that reach the last band (:func:`phase_sample`). ``quiet`` keeps only the
rows whose pieces on the board are the same 5 plies before and after
(:func:`~strat_tools.stats.value_rows.quiet_rows`). A model refuses
(:class:`TooFewGames`) when a feature is not zero in at least :data:`MIN_GAMES` games of its
sample, or when the data separate the outcome: no value is printed that the data cannot
carry. A kind the variant's army has not (barrage has no colonel) is no feature of its
model.

The table has a row per piece (and per part, ``term``; the intercept last): ``value`` in
log-odds with ``low`` and ``high``, ``relative`` (the value over the scout's, with
Fieller's interval: :func:`ratio_interval`), and the sample: ``games`` and ``rows``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.core.errors import StratToolsError
from strat_tools.core.pieces import ARMIES, PieceKind
from strat_tools.engine.information.material import MATERIAL_KINDS
from strat_tools.io.sources import Paths
from strat_tools.run.options import RunArg
from strat_tools.stats.formulas import Z95
from strat_tools.stats.logit import LogitFit, NotConverged, fit_logit
from strat_tools.stats.value_rows import ValueRows, mover_view, quiet_rows, read_value_rows

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter

__all__ = [
    "BY",
    "HEADLINE_STEP",
    "MIN_GAMES",
    "MODELS",
    "PHASES",
    "SECRET_RANKS",
    "TooFewGames",
    "phase_sample",
    "piece_value_table",
    "piece_values",
    "ratio_interval",
]

HEADLINE_STEP: Final = 10
"""The headline models keep the rows after every 10th ply."""
MIN_GAMES: Final = 50
"""A feature must be not zero in at least this many games of a model's sample."""
MODELS: Final = ("material", "secrecy")
BY: Final = ("phase",)
PHASES: Final[dict[str, tuple[int, int]]] = {
    "opening": (1, 100),
    "middle": (101, 300),
    "end": (301, 10**6),
}
"""Ply bands (inclusive) of ``by="phase"``: after 10 to 100 plies, 110 to 300, 310 on."""
SECRET_RANKS: Final = tuple(
    k for k in reversed(MATERIAL_KINDS) if k not in (PieceKind.BOMB, PieceKind.SCOUT)
)
"""The ranks the secrecy model may split: every movable rank but the scout (the unit)."""
ORDER: Final = (*(k for k in reversed(MATERIAL_KINDS) if k is not PieceKind.BOMB), PieceKind.BOMB)
"""Pieces in the table: marshal down to spy, then the bomb."""


class TooFewGames(StratToolsError):
    """A model's sample cannot carry one of its features (or any model at all)."""


@dataclass(frozen=True, slots=True)
class Design:
    """A model's columns: a name and a term per column, the matrix, outcome and clusters."""

    pieces: list[str]
    terms: list[str]
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    game: npt.NDArray[np.int32]


def piece_value_table(
    rows: ValueRows,
    model: str = "material",
    by: str | None = None,
    *,
    variant: str = "classic",
    quiet: bool = False,
) -> pd.DataFrame:
    """The piece-value table of ``rows`` (see the module docstring); ``by="phase"`` one
    block per phase, on the games that reach the last band; ``quiet`` only the rows whose
    pieces on the board are the same 5 plies before and after.
    :class:`TooFewGames` when a model's sample cannot carry it."""
    if model not in MODELS:
        raise StratToolsError(f"unknown model {model!r}; choose from {', '.join(MODELS)}")
    if by is not None and by not in BY:
        raise StratToolsError(f"unknown grouping {by!r}; choose from {', '.join(BY)}")
    keep = (rows.ply % HEADLINE_STEP) == 0
    if quiet:
        keep &= quiet_rows(rows)
    headline = rows.subset(keep)
    bands = PHASES if by == "phase" else {"all": (0, 10**6)}
    if by == "phase":  # the same games in every band: those that reach the last one
        headline = phase_sample(headline)
    blocks = []
    for phase, (first, last) in bands.items():
        sample = headline.subset((headline.ply >= first) & (headline.ply <= last))
        design = _design(sample, model, variant)
        label = f"the {model} model" + ("" if phase == "all" else f" ({phase})")
        _check_sample(design, label)
        try:
            fit = fit_logit(design.x, design.y, design.game)
        except NotConverged as exc:
            raise TooFewGames(f"{label} cannot be fitted: {exc}") from None
        block = _table(design, fit)
        block.insert(0, "phase", phase)
        blocks.append(block)
    out = pd.concat(blocks, ignore_index=True)
    out.insert(0, "model", model)
    out.insert(1, "variant", variant)
    return out


def phase_sample(rows: ValueRows) -> ValueRows:
    """The rows of the games that reach the last band of :data:`PHASES` (a row after ply
    310 or later): ``by="phase"`` fits every band on these games alone, so that the bands
    differ in when in a game, not in which games."""
    reach = np.zeros(rows.games, dtype=bool)
    reach[rows.game[rows.ply >= PHASES["end"][0]]] = True
    return rows.subset(reach[rows.game])


def _design(rows: ValueRows, model: str, variant: str) -> Design:
    view = mover_view(rows)
    army = ARMIES.get(variant)
    index: dict[PieceKind, int] = {k: i for i, k in enumerate(MATERIAL_KINDS)}
    pieces: list[str] = []
    terms: list[str] = []
    columns: list[npt.NDArray[np.float64]] = []
    for kind in ORDER:
        i = index[kind]
        if (
            (army[kind] == 0)
            if army is not None
            else not (view.own[:, i].any() or view.opp[:, i].any())
        ):
            continue  # not in this variant's army
        diff = view.own[:, i] - view.opp[:, i]
        known = view.own_known[:, i] - view.opp_known[:, i]
        hidden = diff - known
        if (
            model == "secrecy"
            and kind in SECRET_RANKS
            and _carried(known, rows)
            and (_carried(hidden, rows))
        ):
            pieces += [kind.label, kind.label]
            terms += ["hidden", "known"]
            columns += [hidden, known]
        else:
            pieces.append(kind.label)
            terms.append("value")
            columns.append(diff)
    pieces.append("intercept")
    terms.append("intercept")
    columns.append(np.ones(len(rows.ply)))
    x = np.column_stack(columns) if columns else np.zeros((0, 0))
    return Design(pieces, terms, x, view.y, rows.game)


def _carried(column: npt.NDArray[np.float64], rows: ValueRows) -> bool:
    return _games_not_zero(column, rows.game) >= MIN_GAMES


def _games_not_zero(column: npt.NDArray[np.float64], game: npt.NDArray[np.int32]) -> int:
    return len(np.unique(game[column != 0]))


def _check_sample(design: Design, label: str) -> None:
    games = len(np.unique(design.game))
    if games < MIN_GAMES:
        raise TooFewGames(f"{label} has {games:,} games with rows; at least {MIN_GAMES} are needed")
    for j, (piece, term) in enumerate(zip(design.pieces, design.terms, strict=True)):
        if term == "intercept":
            continue
        n = _games_not_zero(design.x[:, j], design.game)
        if n < MIN_GAMES:
            name = piece if term == "value" else f"{piece} ({term})"
            raise TooFewGames(
                f"{label} has too few games for the feature {name}: it is not zero in {n:,} "
                f"of {games:,} games (at least {MIN_GAMES} needed)"
            )


def _table(design: Design, fit: LogitFit) -> pd.DataFrame:
    unit = _unit_column(design)
    b, cov = fit.coef, fit.cov
    relative, rel_low, rel_high = ratio_interval(b, cov, unit)
    games = len(np.unique(design.game))
    out = pd.DataFrame(
        {
            "piece": design.pieces,
            "term": design.terms,
            "value": b,
            "low": fit.low,
            "high": fit.high,
            "se": fit.se,
            "relative": relative,
            "relative_low": rel_low,
            "relative_high": rel_high,
            "games": games,
            "rows": fit.rows,
        }
    )
    intercept = out["term"] == "intercept"
    out.loc[intercept, ["relative", "relative_low", "relative_high"]] = np.nan
    return out


def _unit_column(design: Design) -> int | None:
    label = PieceKind.SCOUT.label
    return design.pieces.index(label) if label in design.pieces else None


def ratio_interval(
    b: npt.NDArray[np.float64], cov: npt.NDArray[np.float64], unit: int | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``b / b[unit]`` and its 95% interval by Fieller's method: the ``r`` with ``(b_j - r
    s)^2 <= z^2 (V_jj - 2 r V_js + r^2 V_ss)`` (``s = b[unit]``). Bounded only where the
    unit's own value is clearly not zero (``s^2 > z^2 V_ss``); otherwise infinite."""
    n = len(b)
    if unit is None:
        return np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    s, vss = b[unit], cov[unit, unit]
    z2 = Z95**2
    qa = s**2 - z2 * vss
    qb = -2 * (b * s - z2 * cov[:, unit])
    qc = b**2 - z2 * np.diag(cov)
    low, high = np.full(n, -np.inf), np.full(n, np.inf)
    if qa > 0:
        root = np.sqrt(np.maximum(qb**2 - 4 * qa * qc, 0.0))
        low, high = (-qb - root) / (2 * qa), (-qb + root) / (2 * qa)
    return np.asarray(b / s), np.asarray(low), np.asarray(high)


def piece_values(
    paths: Paths,
    *,
    secrecy: bool = False,
    by: str | None = None,
    quiet: bool = False,
    variant: str = "classic",
    select: GameFilter | None = None,
    rules: str | None = "auto",
    run: RunArg = None,
) -> pd.DataFrame:
    """The piece-value table of the games under ``paths`` (the one call ``strat-tools
    values`` makes): the headline model, or with ``secrecy`` the secrecy model; ``by="phase"``
    one block per phase. Games are read and replayed in the workers."""
    rows = read_value_rows(paths, variant=variant, rules=rules, select=select, run=run)
    model = "secrecy" if secrecy else "material"
    return piece_value_table(rows, model, by, variant=variant, quiet=quiet)
