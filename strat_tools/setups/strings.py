"""Setups as 40-character strings, in the orientations other projects load.

Every format writes one side's four setup rows with the red Gravon letters whatever the
side (``A`` empty, ``B`` bomb, ``C`` spy, ``D`` scout ... ``L`` marshal, ``M`` flag):

- ``owner``: the setup as its owner sees it, back row first, each row left to right from
  the owner's seat (red: field ``[0:40]``; blue: field ``[60:100]`` reversed, a 180-degree
  turn). This is the order Ataraxos places an arrangement in (its entry ``j`` goes to
  square ``j`` for red and ``99 - j`` for blue), so it is the string Ataraxos's Python
  API takes as it is: ``custom_arrs`` and ``initial_boards_to_arrangements`` (issue 36
  found 1,776 of 1,776 setups load the owner's way up from their ``owner`` strings).
- ``ataraxos``: a line of the human setups Ataraxos ships (``src/env/inits/
  full_human_inits.dat``), which is the ``owner`` string reversed: front row first, each
  row right to left from the owner's seat (for blue, exactly field ``[60:100]``). Ataraxos
  reverses each line when it compiles them in (``produce_inits.py``), so the string stands
  on its own squares for both colours: for the ``.dat`` files only; its Python entry
  points take the ``owner`` string (above).
- ``stratego_env``: a string for stratego_env's ``create_initial_positions_from_human_data``,
  which, unlike Ataraxos, does not treat its two players alike: it reverses player 1's rows
  once more than player 2's. So the string depends on the colour (player 1 is red, rows
  1-4; player 2 blue): blue's is field ``[60:100]`` as written (as ``ataraxos``), red's is
  its field rows front row first, each row A to K (``[30:40] + [20:30] + [10:20] + [0:10]``,
  a left-right mirror of red's ``ataraxos`` string).

Where these facts come from is in docs/observations.md. :data:`SETUP_FORMATS` is the one
registry of these formats (for ``setups --setup-format`` and the docs).

This module converts text only: it does not check armies (``checks.py`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.core.board import LAKES, Side
from strat_tools.core.errors import OptionError
from strat_tools.core.pieces import CODE_LETTERS, CODE_SIDE, EMPTY, KIND_LABELS, LAKE


class SetupFormat(NamedTuple):
    """One 40-character setup format: its name, what it is, and the square each character
    stands for (per side)."""

    name: str
    description: str
    squares: Callable[[Side], tuple[int, ...]]

    def owner_positions(self, side: Side | int) -> tuple[int, ...]:
        """The owner-view position (``r * 10 + c``: row ``r + 1``, column ``c + 1`` from the
        owner's seat) each character stands for: a red square is its position, a blue
        square ``sq`` is position ``99 - sq``.

        >>> SETUP_FORMATS["stratego_env"].owner_positions(Side.RED)[:3]
        (30, 31, 32)
        """
        squares = self.squares(Side(side))
        return squares if Side(side) is Side.RED else tuple(99 - sq for sq in squares)

    @property
    def per_side(self) -> bool:
        """Whether a setup's string depends on its colour (its loader treats the colours
        differently), so a side-free setup has one string per colour.

        >>> [f.name for f in SETUP_FORMATS.values() if f.per_side]
        ['stratego_env']
        """
        return self.owner_positions(Side.RED) != self.owner_positions(Side.BLUE)


def _owner_squares(side: Side) -> tuple[int, ...]:
    return tuple(range(40)) if side is Side.RED else tuple(range(99, 59, -1))


def _ataraxos_squares(side: Side) -> tuple[int, ...]:
    return _owner_squares(side)[::-1]


def _stratego_env_squares(side: Side) -> tuple[int, ...]:
    if side is Side.BLUE:
        return tuple(range(60, 100))
    return tuple(10 * (3 - k // 10) + k % 10 for k in range(40))


SETUP_FORMATS: Final[dict[str, SetupFormat]] = {
    f.name: f
    for f in (
        SetupFormat(
            "owner",
            "owner's view: back row first, left to right from the owner's seat (also what "
            "Ataraxos's Python API takes: custom_arrs, initial_boards_to_arrangements)",
            _owner_squares,
        ),
        SetupFormat(
            "ataraxos",
            "a line of Ataraxos's human_inits.dat files: the owner's view reversed (front row "
            "first); its Python API takes the owner string instead",
            _ataraxos_squares,
        ),
        SetupFormat(
            "stratego_env",
            "stratego_env create_game_from_data string, per colour: front row first, each "
            "row A to K (blue: as ataraxos; red: its mirror, as its loader flips player 1)",
            _stratego_env_squares,
        ),
    )
}
"""Every setup-string format by name."""


def setup_columns(fmt: str) -> dict[str, Side | None]:
    """The columns a side-free setup table gets for ``fmt`` (``common_setups``'
    ``setup_format``), each with the colour it is written for (``None``: either).

    >>> setup_columns("ataraxos"), list(setup_columns("stratego_env"))
    ({'setup_ataraxos': None}, ['setup_stratego_env_red', 'setup_stratego_env_blue'])
    """
    if not _format(fmt).per_side:
        return {f"setup_{fmt}": None}
    return {f"setup_{fmt}_{side.label}": side for side in (Side.RED, Side.BLUE)}


def _format(name: str) -> SetupFormat:
    try:
        return SETUP_FORMATS[name]
    except KeyError:
        names = ", ".join(SETUP_FORMATS)
        raise OptionError(f"unknown setup format {name!r}; expected one of {names}") from None


def format_setup(board: Sequence[int], side: Side | int, fmt: str = "ataraxos") -> str:
    """``side``'s setup on ``board`` (100 board codes) as a 40-character string.

    Squares that hold no piece of ``side`` are written ``A``; a ``side`` with a piece
    outside its four rows (classicfree allows that) has no such string: ``ValueError``.

    >>> board = [0] * 100
    >>> board[0], board[93] = 12, 24  # red flag A1, blue flag D10
    >>> format_setup(board, Side.RED, "owner")[:2], format_setup(board, Side.BLUE)[30:34]
    ('MA', 'AAAM')
    """
    if len(board) != 100:
        raise ValueError(f"a board has 100 squares, got {len(board)}")
    owner = Side(side)
    squares = _format(fmt).squares(owner)
    inside = set(squares)
    strays = [sq for sq, code in enumerate(board) if CODE_SIDE[code] == owner and sq not in inside]
    if strays:
        raise ValueError(
            f"{owner.label} has pieces outside its four setup rows (e.g. square {strays[0]})"
        )
    letters = []
    for square in squares:
        code = board[square]
        if code in (EMPTY, LAKE) or CODE_SIDE[code] != owner:
            letters.append("A")
        else:
            letters.append(CODE_LETTERS[(code - 1) % 12 + 1])
    return "".join(letters)


def parse_setup(text: str, side: Side | int, fmt: str = "ataraxos") -> list[int]:
    """A 100-square board holding ``side``'s setup read from ``text``; the other squares are
    empty, the lakes are lakes. Inverse of :func:`format_setup`.

    >>> parse_setup("M" + "A" * 39, Side.BLUE, "owner")[99]  # the blue flag on K10
    24
    """
    text = text.strip()
    if len(text) != 40:
        raise ValueError(f"a setup string has 40 characters, got {len(text)}")
    owner = Side(side)
    board = [LAKE if square in LAKES else EMPTY for square in range(100)]
    for square, letter in zip(_format(fmt).squares(owner), text, strict=True):
        code = CODE_LETTERS.find(letter.upper())
        if not 0 <= code <= 12:
            raise ValueError(f"{letter!r} is not a setup letter (A empty, B..M pieces)")
        if code:
            board[square] = code if owner is Side.RED else code + 12
    return board


def setup_strings(setups: pd.DataFrame, fmt: str = "ataraxos") -> pd.DataFrame:
    """One 40-character string per game and side of a ``setups`` table (the columns
    ``game_id``, ``side``, ``row``, ``col``, ``piece`` of ``GameSet.setups`` or an export),
    as columns ``game_id``, ``side``, ``setup``; for ``setups --format``-style output.

    Whole columns at once: one position per piece from its owner-view row and column (and
    its colour, for a format whose string depends on it). A setup with a piece outside its
    owner's four rows (classicfree) is left out.
    """
    chosen = _format(fmt)
    orders = {}
    for colour in (Side.RED, Side.BLUE):
        order = np.full(100, -1, dtype=np.int64)
        order[list(chosen.owner_positions(colour))] = np.arange(40)
        orders[colour.label] = order
    frame = pd.DataFrame(
        {
            "game_id": setups["game_id"].astype(str).to_numpy(),
            "side": setups["side"].astype(str).to_numpy(),
            "square": (setups["row"].to_numpy(int) - 1) * 10 + setups["col"].to_numpy(int) - 1,
            "letter": setups["piece"].map(_LETTER_OF_LABEL).to_numpy(),
        }
    )
    square = frame["square"].clip(0, 99).to_numpy()
    blue = frame["side"].to_numpy() == "blue"
    frame["position"] = np.where(blue, orders["blue"][square], orders["red"][square])
    frame.loc[frame["square"] >= 40, "position"] = -1
    out = []
    for (game_id, side), group in frame.groupby(["game_id", "side"], sort=False):
        if (group["position"] < 0).any():
            continue
        letters = np.full(40, "A", dtype="<U1")
        letters[group["position"].to_numpy()] = group["letter"].to_numpy()
        out.append((game_id, side, "".join(letters)))
    return pd.DataFrame(out, columns=["game_id", "side", "setup"])


def code_strings(
    codes: npt.ArrayLike, fmt: str = "ataraxos", side: Side | int | None = None
) -> list[str | None]:
    """Setups given as ``[n, 40]`` owner-view codes (:mod:`strat_tools.setups.identity`: position
    ``r * 10 + c`` is row ``r + 1``, column ``c + 1`` from the owner's seat, byte 0 empty, 1..12
    bomb..flag) as ``fmt`` strings for ``side`` (needed only by a format whose string
    depends on the colour, :attr:`SetupFormat.per_side`; a ``ValueError`` without it), whole
    arrays at once;
    ``None`` for a setup with a square that is neither empty nor the owner's (classicfree),
    which no 40-character format holds.

    >>> owner = np.zeros((1, 40), dtype=np.uint8)
    >>> owner[0, 0] = 12  # the flag on the owner's back-row left corner
    >>> [s[:2] + ".." + s[-2:] for s in code_strings(owner, "owner") + code_strings(owner)]
    ['MA..AA', 'AA..AM']
    >>> [s[-10:] for s in code_strings(owner, "stratego_env", Side.RED)]
    ['MAAAAAAAAA']
    """
    array = np.asarray(codes, dtype=np.uint8).reshape(-1, 40)
    chosen = _format(fmt)
    if side is None and chosen.per_side:
        raise ValueError(f"{fmt} strings depend on the colour: say which side they are for")
    order = np.asarray(chosen.owner_positions(Side.RED if side is None else side), np.int64)
    table = np.frombuffer((CODE_LETTERS[:13] + "?" * 243).encode(), dtype=np.uint8)
    letters = table[array[:, order]]
    valid = np.asarray((array <= 12).all(axis=1), dtype=bool).tolist()
    return [row.tobytes().decode() if ok else None for row, ok in zip(letters, valid, strict=True)]


_LETTER_OF_LABEL: Final = {label: CODE_LETTERS[kind + 1] for kind, label in enumerate(KIND_LABELS)}
