"""The report's section on what pieces and secrecy are worth, and the win model's score.

Fills the ``values`` section from the piece-value rows the report read
(:attr:`~strat_tools.report.inputs.ReportInputs.values`): the headline piece values, the
secrecy values (each rank hidden and known), both from :mod:`strat_tools.stats.piece_values`,
and the shipped win model's calibration on these games (:mod:`strat_tools.stats.win_model`).
A model the games cannot carry (too few of them) is said to be refused, with the reason.
"""

from __future__ import annotations

import pandas as pd

from strat_tools.core.errors import StratToolsError
from strat_tools.core.records import DEFAULT_VARIANT
from strat_tools.report.inputs import ReportInputs
from strat_tools.stats.piece_values import TooFewGames, piece_value_table
from strat_tools.stats.win_model import calibrate
from strat_tools.stats.win_model_file import shipped_win_model
from strat_tools.views.document import Section

__all__ = ["values_section"]

_INTRO = (
    "What one piece more than the opponent is worth: a logistic regression of 'the side to "
    "move wins' on the count differences of each kind after every 10th ply of the decided "
    "classic games, while both flags stand, with an intercept; 95% intervals from standard "
    "errors clustered by game; relative: the scout is 1 (docs/values.md states the model). "
    "Associations, not causes: the better player takes pieces and wins."
)


def values_section(section: Section, data: ReportInputs) -> bool:
    """Fill ``section``; ``False`` (left out) when there is no classic game at all. From
    tables (no game records to replay) it says why the values are not there."""
    rows = data.values
    if rows is None:
        variants = data.games["variant"].astype(str) if "variant" in data.games else None
        if variants is None or not (variants == DEFAULT_VARIANT).any():
            return False
        section.text(_INTRO)
        section.text(f"No piece values here: {data.values_absent}.")
        return True
    section.text(_INTRO)
    try:
        headline = piece_value_table(rows)
    except TooFewGames as exc:
        section.text(f"No piece values: {exc}.")
        return True
    section.table(_caption("Piece values", headline), _shown(headline))
    try:
        secrecy = piece_value_table(rows, "secrecy")
        section.text(
            "The value of secrecy: each rank split into the pieces the opponent has not "
            "identified (hidden) and those it has (known: shown in a battle or proved by a "
            "move)."
        )
        section.table(_caption("Secrecy values", secrecy), _shown(secrecy))
    except TooFewGames as exc:
        section.text(f"No secrecy values: {exc}.")
    try:
        model = shipped_win_model(DEFAULT_VARIANT)
        assert model is not None  # the package ships the classic model
        scores, reliability = calibrate(model, rows)
    except StratToolsError as exc:
        section.text(f"No calibration: {exc}.")
        return True
    months = ", ".join(model.provenance.get("months", [])) or "months not known"
    section.text(
        "Who is winning: the win model the package ships (fitted on "
        f"{model.provenance.get('games', 0):,} games of {months}) scored on these games "
        "after every 5th ply, beside the material-only model and the training rate (red's "
        "share of the wins in the training months; lower is better). Where these games "
        "are among the ones it was fitted on, the score is not a held-out one "
        "(docs/values.md quotes that)."
    )
    section.table("Win model scores (Brier, log-loss)", _digits(scores, 4))
    section.table(
        "Reliability of the win model by predicted chance (observed share with a 95% "
        "interval clustered by game)",
        _digits(reliability, 3),
    )
    return True


def _caption(title: str, table: pd.DataFrame) -> str:
    first = table.iloc[0]
    return f"{title}, classic ({int(first.games):,} games, {int(first.rows):,} rows)"


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    return _digits(table[["piece", "term", "value", "low", "high", "relative"]], 3)


def _digits(table: pd.DataFrame, digits: int) -> pd.DataFrame:
    """Float columns as text with ``digits`` decimals (the document shows one otherwise)."""
    out = table.copy()
    for column in out.columns:
        if pd.api.types.is_float_dtype(out[column].dtype):
            out[column] = [f"{v:.{digits}f}" if v == v else "" for v in out[column]]
    return out
