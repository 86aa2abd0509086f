"""The words of the events' ``detail`` sentences: one vocabulary, and each kind's sentence
as the fragments it joins.

A sentence is a row of :data:`WIDTH` indices into :data:`VOCABULARY` (-1: nothing there),
so a whole batch's sentences are chosen by NumPy without a Python step per event, and
joined by Arrow for the export's table (:func:`strat_tools.tables.columns.events_table`) or by
:func:`sentences` for one game. Sentences that are not made of fixed fragments (how a game
ended, why it was not replayed) are a batch's own texts, indexed after the vocabulary.

>>> import numpy as np
>>> rows = battle(*(np.array([v]) for v in (2, 23, 1, 44, 54)))
>>> sentences(VOCABULARY, rows)
['red spy E5 takes blue marshal E6']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side, square_name
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, PieceKind, piece_name
from strat_tools.core.rules import OUTCOME_ATTACKER, OUTCOME_BOTH, OUTCOME_DEFENDER, OUTCOME_FLAG

__all__ = [
    "EMPTY",
    "VOCABULARY",
    "WIDTH",
    "battle",
    "bomb_removed",
    "flag_captured",
    "lost",
    "rescue",
    "sentences",
    "spy_takes_marshal",
    "text_rows",
]

WIDTH: Final = 7
"""Fragments per sentence at most (a rescue's)."""

_I32 = npt.NDArray[np.int32]
_Ints = npt.NDArray[np.integer[Any]]

_words: list[str] = []


def _table(strings: Iterable[str]) -> int:
    """Append ``strings`` to the vocabulary; the index of the first."""
    start = len(_words)
    _words.extend(strings)
    return start


EMPTY: Final = _table([""])
"""The empty fragment (what -1, nothing, stands for when the fragments are looked up)."""
_SQUARES: Final = tuple(square_name(square) for square in range(100))
_VERDICTS: Final = {
    OUTCOME_ATTACKER: (" takes ", ""),
    OUTCOME_DEFENDER: (" attacks ", " and loses"),
    OUTCOME_BOTH: (" attacks ", ": both removed"),
    OUTCOME_FLAG: (" takes ", ""),
}
"""A battle's verb and ending by outcome: ``'{attacker} {square}{verb}{defender} {square}{ending}'``
(0, no outcome: ``' attacks '``)."""

_PIECE_ON: Final = _table(
    f"{piece_name(code)} {square}" for code in range(26) for square in _SQUARES
)
"""``'red spy E5'``, at board code * 100 + square."""
_PIECE: Final = _table(piece_name(code) for code in range(26))
_SQUARE: Final = _table(_SQUARES)
_SIDE: Final = _table(Side(side).label if side in (1, 2) else "" for side in CODE_SIDE[:26])
"""A board code's side."""
_KIND: Final = _table(PieceKind(kind).label if kind >= 0 else "" for kind in CODE_KIND[:26])
"""A board code's kind."""
_VERB: Final = _table(_VERDICTS.get(code, (" attacks ", ""))[0] for code in range(5))
_ENDING: Final = _table(_VERDICTS.get(code, ("", ""))[1] for code in range(5))
_TAKES_THE_MARSHAL_ON: Final = _table([" takes the marshal on "])
_LOSES_ITS: Final = _table([" loses its "])
_ON: Final = _table([" on "])
_REMOVED_BY_THE: Final = _table([" removed by the "])
_CAPTURES_THE_FLAG_ON: Final = _table([" captures the flag on "])
_REACHES: Final = _table([" reaches "])
_AND_BRINGS_BACK_THE: Final = _table([" and brings back the "])

VOCABULARY: Final = tuple(_words)
"""Every fragment a sentence is made of; a batch's own texts are indexed after them."""


def _rows(*columns: _Ints | int) -> _I32:
    """Columns of fragment indices (an int repeats) as ``[n, WIDTH]`` rows, -1 padded."""
    n = max(len(c) for c in columns if not isinstance(c, int))
    out = np.full((n, WIDTH), -1, dtype=np.int32)
    for at, column in enumerate(columns):
        out[:, at] = column
    return out


def battle(mover: _Ints, defender: _Ints, outcome: _Ints, source: _Ints, target: _Ints) -> _I32:
    """``'red spy E5 takes blue marshal E6'``, ``'... attacks ... and loses'``."""
    return _rows(
        _PIECE_ON + mover * 100 + source,
        _VERB + outcome,
        _PIECE_ON + defender * 100 + target,
        _ENDING + outcome,
    )


def spy_takes_marshal(mover: _Ints, target: _Ints) -> _I32:
    """``'red spy takes the marshal on E6'``."""
    return _rows(_PIECE + mover, _TAKES_THE_MARSHAL_ON, _SQUARE + target)


def lost(code: _Ints, target: _Ints) -> _I32:
    """``'blue loses its marshal on E6'`` (``code``: the lost piece)."""
    return _rows(_SIDE + code, _LOSES_ITS, _KIND + code, _ON, _SQUARE + target)


def bomb_removed(code: _Ints, mover: _Ints, target: _Ints) -> _I32:
    """``'blue bomb on B7 removed by the miner'``."""
    return _rows(_PIECE + code, _ON, _SQUARE + target, _REMOVED_BY_THE, _KIND + mover)


def flag_captured(mover: _Ints, target: _Ints) -> _I32:
    """``'red captures the flag on A10'``."""
    return _rows(_SIDE + mover, _CAPTURES_THE_FLAG_ON, _SQUARE + target)


def rescue(mover: _Ints, target: _Ints, code: _Ints, where: _Ints) -> _I32:
    """``'red general reaches D10 and brings back the major on E4'`` (``where`` -1: the
    record does not say)."""
    back = np.where(where >= 0, _SQUARE + where, -1)
    return _rows(
        _PIECE + mover, _REACHES, _SQUARE + target, _AND_BRINGS_BACK_THE, _KIND + code, _ON, back
    )


def text_rows(first: int, n: int) -> _I32:
    """Rows that are each one of a batch's own texts, ``first`` .. ``first + n - 1`` of them."""
    return _rows(len(VOCABULARY) + first + np.arange(n, dtype=np.int32))


def sentences(words: Sequence[str], rows: _I32) -> list[str]:
    """The sentences of ``rows`` (``words``: the vocabulary, then a batch's own texts)."""
    return ["".join(words[i] for i in row if i >= 0) for row in rows.tolist()]
