"""The setup model of the synthetic game generator: where people put their flag, bombs and pieces.

:class:`SetupModel` holds one variant's weights, measured on the real archive (see
docs/generator.md); :func:`draw_setup` draws one side's setup from it and
:func:`setup_field` puts two of them on the board. Nothing here plays or knows the rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from strat_tools.core.board import LAKES, Side, from_owner_view
from strat_tools.core.pieces import ARMIES, EMPTY, LAKE, PieceKind, piece_code

B, SPY, SC, MI, SE, LT, CA, MA, CO, GE, MS, FL = PieceKind

Weights = tuple[float, ...]


@dataclass(frozen=True, slots=True)
class SetupModel:
    """How one variant's players set up, as weights for a sequential draw.

    The flag is placed first (``flag_rows`` x ``flag_cols``); then guard bombs on the flag's
    neighbours (one of three styles chosen with ``guard_styles``: all neighbours, each
    neighbour with probability ``guard_partial``, or none); then, with chance ``cover``, a
    movable piece right in front of it; then every other piece, kind by kind in ``order``,
    on a free square drawn with weight ``rows[kind][row] * cols[kind][col]``.
    Rows are 1..4 from the owner's back row, columns 1..10 from the owner's left.
    """

    variant: str
    flag_rows: Weights
    flag_cols: Weights
    guard_styles: Weights
    """Probabilities of the fortress, partial and open styles of guarding the flag."""
    guard_partial: float
    guard_front_first: bool
    """Try the square in front of the flag first (classic); else the neighbours in random order."""
    cover: float
    """Chance that a movable piece stands right in front of the flag if no bomb does."""
    rows: dict[PieceKind, Weights]
    cols: dict[PieceKind, Weights]
    order: tuple[PieceKind, ...]

    @property
    def army(self) -> tuple[int, ...]:
        """Counts per kind value of the variant's army."""
        return ARMIES[self.variant]


_EVEN: Final = (1.0,) * 10
_CLASSIC_ORDER: Final = (MS, GE, SPY, CO, MA, CA, LT, B, MI, SE, SC)
_SMALL_ORDER: Final = (MS, GE, SPY, B, MI, SC)

# Weights measured on the 24,798 classic setups of the Gravon archive (2004-2014), owner's
# view, rounded; see docs/generator.md for the table and how the model reproduces it.
CLASSIC_MODEL: Final = SetupModel(
    variant="classic",
    flag_rows=(0.88, 0.09, 0.02, 0.01),
    flag_cols=(0.10, 0.03, 0.07, 0.15, 0.12, 0.09, 0.19, 0.09, 0.03, 0.13),
    guard_styles=(0.40, 0.32, 0.28),
    guard_partial=0.5,
    guard_front_first=True,
    cover=0.0,
    rows={
        B: (0.30, 0.36, 0.20, 0.14),
        SPY: (0.05, 0.33, 0.50, 0.12),
        SC: (0.17, 0.21, 0.27, 0.35),
        MI: (0.45, 0.32, 0.15, 0.09),
        SE: (0.27, 0.22, 0.20, 0.31),
        LT: (0.16, 0.20, 0.23, 0.41),
        CA: (0.13, 0.25, 0.29, 0.33),
        MA: (0.11, 0.30, 0.31, 0.28),
        CO: (0.04, 0.34, 0.41, 0.20),
        GE: (0.01, 0.12, 0.55, 0.32),
        MS: (0.03, 0.15, 0.50, 0.33),
    },
    cols={
        B: _EVEN,
        SPY: (0.02, 0.03, 0.17, 0.22, 0.06, 0.06, 0.25, 0.15, 0.03, 0.02),
        SC: (0.13, 0.12, 0.08, 0.07, 0.11, 0.11, 0.07, 0.07, 0.13, 0.12),
        MI: (0.09, 0.09, 0.11, 0.12, 0.09, 0.09, 0.12, 0.11, 0.09, 0.09),
        SE: (0.14, 0.11, 0.07, 0.08, 0.09, 0.10, 0.07, 0.08, 0.11, 0.14),
        LT: (0.11, 0.13, 0.08, 0.07, 0.11, 0.12, 0.07, 0.08, 0.13, 0.11),
        CA: (0.10, 0.10, 0.09, 0.09, 0.12, 0.11, 0.08, 0.09, 0.11, 0.10),
        MA: (0.08, 0.10, 0.11, 0.11, 0.10, 0.11, 0.12, 0.11, 0.09, 0.08),
        CO: (0.06, 0.08, 0.14, 0.14, 0.08, 0.08, 0.12, 0.16, 0.07, 0.06),
        GE: (0.06, 0.07, 0.13, 0.13, 0.09, 0.10, 0.12, 0.17, 0.07, 0.07),
        MS: (0.07, 0.06, 0.17, 0.14, 0.08, 0.07, 0.15, 0.16, 0.06, 0.05),
    },
    order=_CLASSIC_ORDER,
)

# Barrage: 1,440 games, 2,880 setups. The pieces stand in the open lanes (columns 1-2, 5-6,
# 9-10), the movable ones mostly on the front row.
_LANES: Final = (0.14, 0.15, 0.02, 0.03, 0.13, 0.13, 0.03, 0.03, 0.19, 0.15)
BARRAGE_MODEL: Final = SetupModel(
    variant="barrage",
    flag_rows=(0.78, 0.12, 0.03, 0.07),
    flag_cols=(0.27, 0.05, 0.01, 0.10, 0.02, 0.04, 0.08, 0.02, 0.05, 0.36),
    guard_styles=(0.55, 0.0, 0.45),
    guard_partial=0.0,
    guard_front_first=False,
    cover=0.45,
    rows={
        B: (0.40, 0.25, 0.05, 0.30),
        SPY: (0.08, 0.15, 0.12, 0.66),
        SC: (0.23, 0.23, 0.10, 0.43),
        MI: (0.20, 0.18, 0.11, 0.51),
        GE: (0.12, 0.10, 0.11, 0.68),
        MS: (0.07, 0.10, 0.07, 0.76),
    },
    cols={B: _LANES, SPY: _LANES, SC: _LANES, MI: _LANES, GE: _LANES, MS: _LANES},
    order=_SMALL_ORDER,
)

# Duell: only 31 real games (62 setups), too few to copy; the flag is drawn between the
# barrage and classic habits, the rest as measured with the lane preference of barrage.
DUELL_MODEL: Final = SetupModel(
    variant="duell",
    flag_rows=(0.75, 0.13, 0.07, 0.05),
    flag_cols=(0.15, 0.06, 0.04, 0.10, 0.10, 0.06, 0.10, 0.08, 0.06, 0.25),
    guard_styles=(0.35, 0.45, 0.20),
    guard_partial=0.5,
    guard_front_first=False,
    cover=0.4,
    rows={
        B: (0.30, 0.25, 0.20, 0.25),
        SPY: (0.21, 0.13, 0.40, 0.26),
        SC: (0.18, 0.23, 0.23, 0.36),
        MI: (0.17, 0.20, 0.15, 0.48),
        GE: (0.11, 0.13, 0.26, 0.50),
        MS: (0.07, 0.10, 0.30, 0.53),
    },
    cols={B: _LANES, SPY: _LANES, SC: _LANES, MI: _LANES, GE: _LANES, MS: _LANES},
    order=_SMALL_ORDER,
)

SETUP_MODELS: Final[dict[str, SetupModel]] = {
    m.variant: m for m in (CLASSIC_MODEL, BARRAGE_MODEL, DUELL_MODEL)
}
"""The setup model of each variant the generator plays."""


def _area_neighbours(index: int) -> list[int]:
    row, col = divmod(index, 10)
    out = []
    for dr, dc in ((1, 0), (0, -1), (0, 1), (-1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < 4 and 0 <= c < 10:
            out.append(r * 10 + c)
    return out


def _guard_flag(
    model: SetupModel, area: list[int], flag: int, bombs: int, rng: random.Random
) -> int:
    """Put guard bombs next to the flag; returns how many bombs are left to place."""
    style = rng.choices(range(3), model.guard_styles)[0]
    if style == 2 or bombs == 0:
        return bombs
    around = _area_neighbours(flag)
    rng.shuffle(around)
    if model.guard_front_first:
        around.sort(key=lambda sq: sq != flag + 10)
    for square in around:
        if bombs == 0:
            break
        if style == 0 or rng.random() < model.guard_partial:
            area[square] = B
            bombs -= 1
    return bombs


def _place(
    area: list[int], kind: PieceKind, rows: Weights, cols: Weights, rng: random.Random
) -> None:
    free = [i for i in range(40) if area[i] < 0]
    weights = [rows[i // 10] * cols[i % 10] for i in free]
    if not any(weights):
        weights = [1.0] * len(free)
    area[rng.choices(free, weights)[0]] = kind


def draw_setup(model: SetupModel, rng: random.Random) -> list[int]:
    """One side's setup in the owner's view: 40 kind values (-1 for empty), back row first.

    Index ``i`` is row ``i // 10 + 1`` (1 = the owner's back row), column ``i % 10 + 1``
    (1 = the owner's left), as in the ``setups`` table.

    >>> area = draw_setup(CLASSIC_MODEL, random.Random(1))
    >>> len(area), area.count(PieceKind.BOMB), area.count(PieceKind.FLAG), area.count(-1)
    (40, 6, 1, 0)
    """
    area = [-1] * 40
    flag_row = rng.choices(range(4), model.flag_rows)[0]
    flag_col = rng.choices(range(10), model.flag_cols)[0]
    flag = flag_row * 10 + flag_col
    area[flag] = FL
    counts = list(model.army)
    counts[B] = _guard_flag(model, area, flag, counts[B], rng)
    if flag < 30 and area[flag + 10] < 0 and rng.random() < model.cover:
        # Small armies leave lanes open: people often put a piece in front of the flag.
        movable = [k for k in model.order if k != B for _ in range(counts[k])]
        kind = rng.choice(movable)
        area[flag + 10] = kind
        counts[kind] -= 1
    for kind in model.order:
        for _ in range(counts[kind]):
            _place(area, kind, model.rows[kind], model.cols[kind], rng)
    return area


def setup_field(red: Sequence[int], blue: Sequence[int]) -> tuple[int, ...]:
    """The 100 board codes of a game from both sides' owner-view setups (see :func:`draw_setup`)."""
    board = [EMPTY] * 100
    for square in LAKES:
        board[square] = LAKE
    for side, area in ((Side.RED, red), (Side.BLUE, blue)):
        for index, kind in enumerate(area):
            if kind >= 0:
                square = from_owner_view(index // 10 + 1, index % 10 + 1, side)
                board[square] = piece_code(side, PieceKind(kind))
    return tuple(board)
