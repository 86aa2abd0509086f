"""The rulebooks' setup advice put to the test: tips as setup features, adoption, win rates.

Each setup tip of the seed rule texts (Greek 000_, Finnish 002_; the German, Lithuanian and
Romanian texts give no concrete setup tip) becomes a named :class:`Tip` with its source
sentence, an English translation and one exact definition, computed for every setup
``(game_id, side)`` at once with numpy over a ``(setups, 40)`` grid of kinds in the owner's view
(row 1 = that side's back row, col 1 = that player's left). Then:

- :func:`setup_features`: one row per setup, one nullable boolean column per tip (NA where the
  variant's army makes the tip meaningless, e.g. barrage has one bomb);
- :func:`tip_adoption`: how many setups follow each tip, by variant and period;
- :func:`tip_win_rates`: win rate of followers against the rest, Wilson 95% intervals;
- :func:`adjacency`: which kinds stand next to each other more or less often than chance;
- :func:`placement_entropy`: how predictable each kind's square is, in bits.

The input is the setups table joined with game context (``stats.setup_context``). This module
does not read files, replay games or draw anything; it does not claim that a tip *causes*
wins (see docs/advice.md for what the comparison can and cannot show).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from strat_tools.board import LAKES, Side, from_owner_view
from strat_tools.dataset import empty_gameset
from strat_tools.driver import Select, Tally, reduce_batches
from strat_tools.errors import OptionError
from strat_tools.pieces import ARMIES, KIND_LABELS, PieceKind
from strat_tools.pipeline import ProgressCallback
from strat_tools.sources import Paths
from strat_tools.stats import Data, TableSet, piece_placements, setup_frame, wilson_interval
from strat_tools.stats.stream import sum_counts

IntArray = npt.NDArray[np.int64]
"""An int64 numpy array (grids, counts, cells)."""
BoolArray = npt.NDArray[np.bool_]
"""A boolean numpy array: one value per setup."""

ROWS: Final = 4
COLS: Final = 10
CELLS: Final = ROWS * COLS
"""A setup area is 4 rows of 10 squares, indexed ``(row - 1) * 10 + (col - 1)`` in the owner's
view: cell 0 is the back-left corner, cells 30..39 the front row."""

EMPTY_CELL: Final = -1
"""Grid value of an empty cell (barrage, duell and ultimate lightning leave some)."""
STRONG_MIN: Final = int(PieceKind.MAJOR)
"""'High-ranked' / 'strong' pieces: major (7) and above."""
WEAK_MAX: Final = int(PieceKind.LIEUTENANT)
"""'Low-ranked' / 'weak' movable pieces: spy (1) to lieutenant (5)."""

# Neighbour codes beside real cell indices 0..39.
_EDGE: Final = -1
_LAKE: Final = -2
_OPEN: Final = -3


def _neighbour_table() -> IntArray:
    """For each of the 40 cells its 4 orthogonal neighbours: a cell, or edge / lake / open.

    The square in front of the front row lies in the middle rows: a lake there (owner's cols
    3, 4, 7, 8) seals that side, an empty middle square leaves it open to the enemy.
    """
    table = np.empty((CELLS, 4), dtype=np.int64)
    for cell in range(CELLS):
        row, col = divmod(cell, COLS)
        for i, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
            r, c = row + dr, col + dc
            if not 0 <= c < COLS or r < 0:
                table[cell, i] = _EDGE
            elif r == ROWS:
                ahead = from_owner_view(ROWS + 1, c + 1, Side.RED)
                table[cell, i] = _LAKE if ahead in LAKES else _OPEN
            else:
                table[cell, i] = r * COLS + c
    return table


NEIGHBOUR_CELLS: Final = _neighbour_table()
"""``(40, 4)``: each cell's neighbours, a cell index or -1 edge / -2 lake / -3 open square."""
ADJACENT: Final = np.zeros((CELLS, CELLS), dtype=np.bool_)
"""``ADJACENT[a, b]``: cells a and b are orthogonal neighbours within the setup area."""
for _cell in range(CELLS):
    for _nb in NEIGHBOUR_CELLS[_cell]:
        if _nb >= 0:
            ADJACENT[_cell, _nb] = True
EDGES: Final = np.argwhere(np.triu(ADJACENT))
"""The 66 unordered neighbour pairs of the 4x10 setup area (36 side by side, 30 front-back)."""

_LABEL_KIND: Final = {label: kind for kind, label in enumerate(KIND_LABELS)}


# ---------------------------------------------------------------------------------------
# Setups as a grid
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupGrid:
    """All setups as an ``(n, 40)`` int array of kind values (-1 empty) plus one row of context.

    ``meta`` has one row per setup (game_id, side and whatever context columns the input had);
    only setups whose pieces match their variant's fixed army are kept; ``dropped`` counts the
    others (classicfree, malformed setups).
    """

    kinds: IntArray
    meta: pd.DataFrame
    dropped: int

    def count(self, kind: PieceKind, cells: slice = slice(None)) -> IntArray:
        """Pieces of ``kind`` per setup within ``cells`` (a slice of the 40 cells)."""
        return np.asarray((self.kinds[:, cells] == kind).sum(axis=1), dtype=np.int64)

    def where(self, kind: PieceKind) -> IntArray:
        """The cell of the first piece of ``kind`` in each setup (for one-of kinds)."""
        return np.asarray((self.kinds == kind).argmax(axis=1), dtype=np.int64)


def setup_grid(context: pd.DataFrame) -> SetupGrid:
    """Pivot a long setups/context frame (one row per piece) to one grid row per setup.

    Needs columns game_id, side, row, col, piece, variant; keeps the others (first value per
    setup) as context. Setups of variants without a fixed army, or whose pieces do not match
    that army, are dropped and counted.
    """
    fixed = context["variant"].isin(list(ARMIES)).to_numpy(np.bool_)
    other = context.loc[~fixed, ["game_id", "side"]].astype(str).drop_duplicates()
    frame = context.loc[fixed]
    game_codes = pd.factorize(frame["game_id"])[0].astype(np.int64)
    blue = _lookup(frame["side"], {"blue": 1}, 0)
    setup_ids = pd.factorize(game_codes * 2 + blue)[0].astype(np.int64)
    n = int(setup_ids.max()) + 1 if len(setup_ids) else 0
    kinds = np.full((n, CELLS), EMPTY_CELL, dtype=np.int64)
    cell = (frame["row"].to_numpy(np.int64) - 1) * COLS + frame["col"].to_numpy(np.int64) - 1
    kind = _lookup(frame["piece"], _LABEL_KIND, -1)
    ok_row = (cell >= 0) & (cell < CELLS) & (kind >= 0)
    kinds[setup_ids[ok_row], cell[ok_row]] = kind[ok_row]
    _, first = np.unique(setup_ids, return_index=True)
    meta = frame.iloc[first].drop(columns=["row", "col", "piece", "square"], errors="ignore")
    meta = meta.reset_index(drop=True)
    bad_rows = np.bincount(setup_ids, weights=~ok_row, minlength=n)
    rows_per_setup = np.bincount(setup_ids, minlength=n)
    variants = meta["variant"].astype(str).to_numpy()
    valid = _army_matches(kinds, variants, rows_per_setup) & (bad_rows == 0)
    dropped = int((~valid).sum()) + len(other)
    return SetupGrid(kinds[valid], meta[valid].reset_index(drop=True), dropped)


def _lookup(column: pd.Series, table: dict[str, int], default: int) -> IntArray:
    """Map a label column to ints, through the categories when it is categorical (fast)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        values = np.array(
            [table.get(str(c), default) for c in column.cat.categories] + [default],
            dtype=np.int64,
        )
        return values[np.asarray(column.cat.codes, dtype=np.int64)]
    mapped = column.astype(object).map(table).fillna(default)
    return np.asarray(mapped, dtype=np.int64)


def _army_matches(kinds: IntArray, variants: npt.NDArray[np.object_], rows: IntArray) -> BoolArray:
    """Whether each setup holds exactly its variant's army, one piece per cell."""
    counts = np.stack([(kinds == k).sum(axis=1) for k in range(len(KIND_LABELS))], axis=1)
    ok = np.zeros(len(kinds), dtype=np.bool_)
    for variant, army in ARMIES.items():
        mine = variants == variant
        ok[mine] = (counts[mine] == np.array(army)).all(axis=1) & (rows[mine] == sum(army))
    return ok


# ---------------------------------------------------------------------------------------
# The tips
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tip:
    """One setup tip of a rule text: where it comes from, what it means here, how to test it."""

    name: str
    title: str
    seed: str
    language: str
    original: str
    english: str
    definition: str
    applies: Callable[[Sequence[int]], bool]
    follows: Callable[[SetupGrid], BoolArray]

    def applies_to(self, variant: str) -> bool:
        """Whether the variant's fixed army allows both following and breaking the tip."""
        army = ARMIES.get(variant)
        return army is not None and self.applies(army)


def _flag_surroundings(grid: SetupGrid) -> tuple[IntArray, BoolArray]:
    """The flag's 4 neighbour codes per setup, and which of them hold an own bomb."""
    nbs = NEIGHBOUR_CELLS[grid.where(PieceKind.FLAG)]
    rows = np.arange(len(grid.kinds))[:, None]
    bomb = (nbs >= 0) & (grid.kinds[rows, np.maximum(nbs, 0)] == PieceKind.BOMB)
    return nbs, bomb


def flag_bombs(grid: SetupGrid) -> IntArray:
    """Bombs orthogonally next to each setup's flag."""
    return np.asarray(_flag_surroundings(grid)[1].sum(axis=1), dtype=np.int64)


def _flag_bombed_in(grid: SetupGrid) -> BoolArray:
    nbs, bomb = _flag_surroundings(grid)
    sealed = bomb | (nbs == _EDGE) | (nbs == _LAKE)
    return np.asarray(sealed.all(axis=1))


def _corner_decoy(grid: SetupGrid) -> BoolArray:
    flag = grid.where(PieceKind.FLAG)
    out = np.zeros(len(grid.kinds), dtype=np.bool_)
    for corner, guards in ((0, (1, COLS)), (COLS - 1, (COLS - 2, 2 * COLS - 1))):
        decoy = flag != corner
        for guard in guards:
            decoy &= (grid.kinds[:, guard] == PieceKind.BOMB) & ~ADJACENT[flag, guard]
        out |= decoy
    return out


def _few_front_bombs(grid: SetupGrid) -> BoolArray:
    return grid.count(PieceKind.BOMB, slice(30, 40)) <= 1


def _mixed_front(grid: SetupGrid) -> BoolArray:
    front = grid.kinds[:, 20:40]
    strong = ((front >= STRONG_MIN) & (front <= PieceKind.MARSHAL)).any(axis=1)
    weak = ((front >= PieceKind.SPY) & (front <= WEAK_MAX)).any(axis=1)
    return np.asarray(strong & weak)


def _scouts_forward(grid: SetupGrid) -> BoolArray:
    return 2 * grid.count(PieceKind.SCOUT, slice(20, 40)) >= grid.count(PieceKind.SCOUT)


def _scouts_in_reserve(grid: SetupGrid) -> BoolArray:
    return grid.count(PieceKind.SCOUT, slice(0, 20)) >= 1


def _spy_next_to_general(grid: SetupGrid) -> BoolArray:
    return np.asarray(ADJACENT[grid.where(PieceKind.SPY), grid.where(PieceKind.GENERAL)])


def _high_ranks_front(grid: SetupGrid) -> BoolArray:
    front = grid.kinds[:, 30:40]
    return np.asarray(((front >= STRONG_MIN) & (front <= PieceKind.MARSHAL)).any(axis=1))


def _miners_back(grid: SetupGrid) -> BoolArray:
    need = np.minimum(2, grid.count(PieceKind.MINER))
    return grid.count(PieceKind.MINER, slice(0, 20)) >= need


def _bombs_flag_plus_spare(grid: SetupGrid) -> BoolArray:
    near = flag_bombs(grid)
    return (near >= 2) & (grid.count(PieceKind.BOMB) - near >= 1)


def _flag_next_to_bomb(grid: SetupGrid) -> BoolArray:
    return flag_bombs(grid) >= 1


def _bombs(army: Sequence[int]) -> int:
    return army[PieceKind.BOMB]


def _strong_and_weak(army: Sequence[int]) -> bool:
    strong = sum(army[STRONG_MIN : PieceKind.MARSHAL + 1])
    weak = sum(army[PieceKind.SPY : WEAK_MAX + 1])
    return strong >= 1 and weak >= 1


_GREEK = "000_a903b6a7c915b209.txt"
_FINNISH = "002_8ced4ba86565e581.txt"

TIPS: Final[tuple[Tip, ...]] = (
    Tip(
        "flag_bombed_in",
        "Flag sealed by bombs",
        _GREEK,
        "Greek",
        "Η Σημαία είναι το πιο σημαντικό πιόνι, γι’ αυτό είναι καλό να την περικυκλώσετε με "
        "Βόμβες έτσι ώστε μόνο οι Σαμποτέρ (3) να μπορούν να την κατακτήσουν.",
        "The Flag is the most important piece, so it is good to surround it with Bombs so that "
        "only the Miners (3) can capture it.",
        "Every orthogonal neighbour of the flag is an own bomb, the board edge or a lake; a "
        "flag in the front row with an open middle-row square ahead of it never qualifies. "
        "Needs at least 2 bombs (a back corner has 2 neighbours): not barrage.",
        lambda army: _bombs(army) >= 2,
        _flag_bombed_in,
    ),
    Tip(
        "corner_decoy",
        "Bombed corner without the flag",
        _GREEK,
        "Greek",
        "Θα ήταν επίσης σκόπιμο να προστατεύσετε τη γωνιακή θέση με τις Βόμβες, όπως θα κάνατε "
        "εάν βρισκόταν σε αυτή τη θέση η Σημαία σας, έτσι ώστε να δημιουργήσετε "
        "αντιπερισπασμό (η Σημαία μπορεί στην πραγματικότητα να βρίσκεται κάπου στο κέντρο "
        "του δικού σας πεδίου).",
        "It would also be wise to protect the corner position with Bombs, as you would if "
        "your Flag were there, to create a diversion (the Flag may in fact be somewhere in "
        "the centre of your own field).",
        "A back-row corner (row 1, col 1 or col 10) that does not hold the flag has bombs on "
        "both of its neighbours (row 1 next to it and row 2 in front of it), and neither of "
        "those two bombs touches the flag (so they are not the flag's own bombs). Needs at "
        "least 2 bombs: not barrage.",
        lambda army: _bombs(army) >= 2,
        _corner_decoy,
    ),
    Tip(
        "few_front_bombs",
        "Few bombs in the front row",
        _GREEK,
        "Greek",
        "Μην τοποθετείτε πολλές Βόμβες στη μπροστινή σειρά γιατί αυτό θα περιορίσει και τις "
        "δικές σας κινήσεις.",
        "Do not put many Bombs in the front row, because that will also restrict your own moves.",
        "At most one bomb in the front row (row 4). Needs at least 2 bombs, else it cannot be "
        "broken: not barrage.",
        lambda army: _bombs(army) >= 2,
        _few_front_bombs,
    ),
    Tip(
        "mixed_front",
        "Strong and weak pieces in the two front rows",
        _GREEK,
        "Greek",
        "Φροντίζετε να τοποθετείτε πιόνια με μεγάλο αλλά και μικρό βαθμό στις δύο μπροστινές "
        "σειρές. Έτσι για παράδειγμα, εάν ένας αντίπαλος Λοχαγός (6) επιτεθεί στον Υπολοχαγό "
        "σας (5), τότε ο Ταγματάρχης σας (7) είναι απαραίτητος για να κάνετε την αντεπίθεση.",
        "Make sure to place pieces of high and of low rank in the two front rows. For "
        "example, if an enemy Captain (6) attacks your Lieutenant (5), your Major (7) is "
        "needed to strike back.",
        "Rows 3-4 hold at least one strong piece (major 7 or higher) and at least one weak "
        "movable piece (spy 1 to lieutenant 5). Applies to every fixed army.",
        _strong_and_weak,
        _mixed_front,
    ),
    Tip(
        "scouts_forward",
        "Scouts in the front rows",
        _GREEK,
        "Greek",
        "Τοποθετείστε σημαντικό αριθμό Ανιχνευτών (3) στις πρώτες σειρές. Αυτό θα σας "
        "βοηθήσει να ανιχνεύσετε αναπτυσσόμενα στρατεύματα.",
        "Place a good number of Scouts (the text says 3, a misprint for 2) in the first rows. "
        "This will help you detect advancing troops. (Finnish 002_ agrees: 'Luotainten "
        "tulisi olla etulinjassa' - scouts should be in the front line.)",
        "At least half of the army's scouts stand in the two front rows (rows 3-4): 4 of 8 "
        "in classic, 2 of 4 in ultimate lightning, 1 of 2 in barrage and duell.",
        lambda army: army[PieceKind.SCOUT] >= 1,
        _scouts_forward,
    ),
    Tip(
        "scouts_in_reserve",
        "A scout kept back",
        _GREEK,
        "Greek",
        "Φροντίστε όμως να έχετε Ανιχνευτές μέχρι το τέλος του παιχνιδιού.",
        "But make sure you still have Scouts at the end of the game.",
        "At least one scout in the two back rows (rows 1-2). Applies to every fixed army.",
        lambda army: army[PieceKind.SCOUT] >= 1,
        _scouts_in_reserve,
    ),
    Tip(
        "spy_next_to_general",
        "Spy next to the general",
        _GREEK,
        "Greek",
        "Τοποθετείστε την Κατάσκοπο (1) κοντά στο Στρατηγό (9). Εάν ο αντίπαλος Στρατάρχης "
        "(10) απειλήσει το Στρατηγό σας (9), τότε η Κατάσκοπός σας (1) μπορεί να τον "
        "καλύψει.",
        "Place the Spy (1) near the General (9). If the enemy Marshal (10) threatens your "
        "General (9), your Spy (1) can cover it.",
        "The spy stands orthogonally next to the general: then a marshal that takes the "
        "general lands next to the spy, which can strike it at once (a diagonal spy could "
        "not). Applies to every fixed army.",
        lambda army: army[PieceKind.SPY] >= 1 and army[PieceKind.GENERAL] >= 1,
        _spy_next_to_general,
    ),
    Tip(
        "high_ranks_front",
        "High-ranked pieces in the front line",
        _FINNISH,
        "Finnish",
        "Sijoita muutama korkea-arvoinen nappula etulinjaan, mutta ole varovainen! Jos "
        "menetät ne pelin alkuvaiheessa, olet heikossa asemassa.",
        "Place a few high-ranked pieces in the front line, but be careful! If you lose them "
        "early in the game, you are in a weak position.",
        "At least one piece of rank 7 or higher (major, colonel, general, marshal) in the "
        "front row (row 4). Applies to every fixed army.",
        lambda army: sum(army[STRONG_MIN : PieceKind.MARSHAL + 1]) >= 1,
        _high_ranks_front,
    ),
    Tip(
        "miners_back",
        "Miners kept in the back rows",
        _FINNISH,
        "Finnish",
        "Sijoittakaa muutamia kaivostyöläisiä takalinjoille pelin loppua varten, jossa niitä "
        "tarvitaan pommien purkamiseen.",
        "Put a few miners in the back lines for the end of the game, when they are needed to "
        "defuse bombs.",
        "At least two miners in the two back rows (rows 1-2); with fewer than two miners in "
        "the army (barrage), all of them.",
        lambda army: army[PieceKind.MINER] >= 1,
        _miners_back,
    ),
    Tip(
        "bombs_flag_plus_spare",
        "Bombs around the flag plus one or two elsewhere",
        _FINNISH,
        "Finnish",
        "Sijoita pommeja lipun ympärille suojellaksesi sitä. Aseta kuitenkin pommi tai kaksi "
        "muualle hämmentämään vastustajaasi.",
        "Place bombs around the flag to protect it. But put a bomb or two elsewhere to "
        "confuse your opponent.",
        "At least two bombs next to the flag and at least one bomb not next to it. (Read "
        "as 'exactly one or two elsewhere' it would force 4 bombs around the flag in "
        "classic, whose 6 bombs leave 4-5 after a corner or edge flag's 2-3 neighbours.) "
        "Needs at least 3 bombs: classic only.",
        lambda army: _bombs(army) >= 3,
        _bombs_flag_plus_spare,
    ),
    Tip(
        "flag_next_to_bomb",
        "Bombs protect the flag",
        _FINNISH,
        "Finnish",
        "Aseta pommisi taitavasti. Ne suojelevat pelilaudan arvokkainta nappulaa, lippuasi.",
        "Place your bombs skilfully. They protect the most valuable piece on the board, your flag.",
        "At least one bomb orthogonally next to the flag. Applies to every fixed army "
        "(barrage's single bomb included).",
        lambda army: _bombs(army) >= 1,
        _flag_next_to_bomb,
    ),
)
"""Every setup tip found in the seed texts, in the order of the texts."""

TIP_NAMES: Final = tuple(tip.name for tip in TIPS)


def tip_catalogue() -> pd.DataFrame:
    """The tips as a table: name, title, seed file, language, original, English, definition,
    and the variants each applies to."""
    return pd.DataFrame(
        {
            "tip": [t.name for t in TIPS],
            "title": [t.title for t in TIPS],
            "seed": [t.seed for t in TIPS],
            "language": [t.language for t in TIPS],
            "original": [t.original for t in TIPS],
            "english": [t.english for t in TIPS],
            "definition": [t.definition for t in TIPS],
            "variants": [", ".join(v for v in ARMIES if t.applies_to(v)) for t in TIPS],
        }
    )


def setup_features(
    data: Data, variant: str | Sequence[str] | None = None, *, exclude_invalid: bool = True
) -> pd.DataFrame:
    """One row per setup: its context columns and one nullable boolean column per tip.

    ``data`` is a GameSet or a :func:`strat_tools.stats.setup_context` frame. A tip's column
    is NA for setups of variants where the tip cannot apply. Left out: classicfree, setups
    that do not match their variant's army and (by default, as in :mod:`strat_tools.stats`)
    invalid games.

    >>> import strat_tools as st
    >>> games = st.read_games("tests/fixtures/gravon/classic-2014.4-17.xml", setups_only=True)
    >>> features = setup_features(games)  # one row per setup: red's and blue's
    >>> tip_adoption(features, by=["variant"])[["tip", "setups", "followed"]].head(3)
                   tip  setups  followed
    0   flag_bombed_in       2         0
    1     corner_decoy       2         0
    2  few_front_bombs       2         1
    """
    return features_from_grid(_grid(data, variant, exclude_invalid))


def _grid(data: Data, variant: str | Sequence[str] | None, exclude_invalid: bool) -> SetupGrid:
    return setup_grid(setup_frame(data, None, variant, exclude_invalid=exclude_invalid))


def features_from_grid(grid: SetupGrid) -> pd.DataFrame:
    out = grid.meta.copy()
    variants = out["variant"].to_numpy() if len(out) else np.array([], dtype=object)
    for tip in TIPS:
        values = pd.array(tip.follows(grid), dtype="boolean")
        applies = np.array([tip.applies_to(v) for v in variants], dtype=np.bool_)
        values[~applies] = pd.NA
        out[tip.name] = values
    return out


# ---------------------------------------------------------------------------------------
# Adoption and win rates
# ---------------------------------------------------------------------------------------


def _long_tips(features: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Melt the tip columns: one row per (setup, applicable tip) with ``follows``."""
    present = [name for name in TIP_NAMES if name in features.columns]
    keep = [*by, "won"] if "won" in features.columns else list(by)
    long = features.melt(id_vars=keep, value_vars=present, var_name="tip", value_name="follows")
    return long[long["follows"].notna()]


def tip_adoption(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """How many setups follow each tip: columns [*by, tip, setups, followed, share].

    ``setups`` counts the setups where the tip applies; ``share = followed / setups``.
    """
    long = _long_tips(features, by)
    long = long.assign(followed=long["follows"].astype(bool))
    grouped = long.groupby([*by, "tip"], sort=False, observed=True)
    table = grouped.agg(setups=("followed", "size"), followed=("followed", "sum")).reset_index()
    table["share"] = table["followed"] / table["setups"]
    return _order_tips(table, by)


def tip_win_rates(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Win rate of setups following each tip against those that do not, with Wilson 95% CIs.

    Only setups with a known winner count (``won`` not NA): draws and unknown results are
    excluded; resignations, timeouts and disconnections count as the record says. Columns:
    [*by, tip, n_follow, wins_follow, rate_follow, low_follow, high_follow, n_other,
    wins_other, rate_other, low_other, high_other, difference].
    """
    long = _long_tips(features, by)
    long = long[long["won"].notna()]
    long = long.assign(
        followed=long["follows"].astype(bool), won_int=long["won"].astype(bool).astype(int)
    )
    grouped = long.groupby([*by, "tip", "followed"], sort=False, observed=True)["won_int"]
    counts = pd.DataFrame(grouped.agg(["size", "sum"]).unstack("followed", fill_value=0))
    table = pd.DataFrame(index=counts.index)
    for flag, suffix in ((True, "follow"), (False, "other")):
        n = _column(counts, "size", flag)
        wins = _column(counts, "sum", flag)
        bounds = [wilson_interval(int(k), int(m)) for k, m in zip(wins, n, strict=True)]
        low = np.array([b[0] for b in bounds], dtype=np.float64)
        high = np.array([b[1] for b in bounds], dtype=np.float64)
        table[f"n_{suffix}"] = n
        table[f"wins_{suffix}"] = wins
        table[f"rate_{suffix}"] = np.where(n > 0, wins / np.maximum(n, 1), np.nan)
        table[f"low_{suffix}"] = low
        table[f"high_{suffix}"] = high
    table["difference"] = table["rate_follow"] - table["rate_other"]
    return _order_tips(table.reset_index(), by)


def tip_head_to_head(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Games where exactly one side follows a tip: how often that side wins, Wilson 95% CI.

    Both setups of a game meet the same ending, clock and server, so this within-game view
    is less exposed to game-level noise than :func:`tip_win_rates`; it still cannot tell the
    tip from the skill of the players who choose it. Decided games only (no draws).
    Columns: [*by, tip, games, follower_wins, rate, low, high].
    """
    long = _long_tips(features, [*by, "game_id"])
    long = long[long["won"].notna()].assign(
        followed=lambda f: f["follows"].astype(bool),
        won_bool=lambda f: f["won"].astype(bool),
    )
    long = long.assign(follower_won=long["followed"] & long["won_bool"])
    per_game = long.groupby([*by, "tip", "game_id"], sort=False, observed=True).agg(
        sides=("followed", "size"), followers=("followed", "sum"), won=("follower_won", "sum")
    )
    split = per_game[(per_game["sides"] == 2) & (per_game["followers"] == 1)].reset_index()
    table = (
        split.groupby([*by, "tip"], sort=False, observed=True)
        .agg(games=("won", "size"), follower_wins=("won", "sum"))
        .reset_index()
    )
    bounds = [
        wilson_interval(int(k), int(n))
        for k, n in zip(table["follower_wins"], table["games"], strict=True)
    ]
    table["rate"] = table["follower_wins"] / table["games"]
    table["low"] = [b[0] for b in bounds]
    table["high"] = [b[1] for b in bounds]
    return _order_tips(table, by)


def _column(counts: pd.DataFrame, stat: str, flag: bool) -> IntArray:
    if (stat, flag) in counts.columns:
        return counts[(stat, flag)].to_numpy(np.int64)
    return np.zeros(len(counts), dtype=np.int64)


def _order_tips(table: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    order = {name: i for i, name in enumerate(TIP_NAMES)}
    table = table.assign(_order=table["tip"].map(order))
    return table.sort_values([*by, "_order"]).drop(columns="_order").reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# Neighbours and predictability
# ---------------------------------------------------------------------------------------


def adjacency(
    data: Data, variant: str | Sequence[str] | None = None, *, exclude_invalid: bool = True
) -> pd.DataFrame:
    """Which kinds stand orthogonally next to each other, against chance, per variant.

    Columns: variant, piece_a, piece_b (each unordered pair once, a <= b by kind value),
    setups, observed (neighbour pairs over all setups), expected, ratio = observed / expected.
    ``expected`` is analytic, not simulated: the same army shuffled uniformly over the same 40
    squares puts kinds a != b on a given neighbour pair with probability 2·na·nb / (40·39),
    a and a with na·(na-1) / (40·39); times the 66 neighbour pairs and the number of setups.
    """
    return adjacency_table(_grid(data, variant, exclude_invalid))


def adjacency_table(grid: SetupGrid) -> pd.DataFrame:
    parts = [_adjacency_of(name, grid) for name in ARMIES]
    parts = [part for part in parts if len(part)]
    return pd.concat(parts, ignore_index=True) if parts else _empty_adjacency()


def _empty_adjacency() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "variant": pd.Series(dtype=object),
            "piece_a": pd.Series(dtype=object),
            "piece_b": pd.Series(dtype=object),
            "setups": pd.Series(dtype=np.int64),
            "observed": pd.Series(dtype=np.int64),
            "expected": pd.Series(dtype=np.float64),
            "ratio": pd.Series(dtype=np.float64),
        }
    )


def _pair_probability(variant: str) -> npt.NDArray[np.float64]:
    """Chance that a given neighbour pair holds kinds (a, b), a <= b, in a shuffled army."""
    army = np.array(ARMIES[variant], dtype=np.float64)
    pair_p = 2 * np.outer(army, army)
    np.fill_diagonal(pair_p, army * (army - 1))
    return pair_p / (CELLS * (CELLS - 1))


def _adjacency_of(variant: str, grid: SetupGrid) -> pd.DataFrame:
    kinds = grid.kinds[grid.meta["variant"].astype(str).to_numpy() == variant]
    nk = len(KIND_LABELS)
    if not len(kinds):
        return pd.DataFrame()
    a = kinds[:, EDGES[:, 0]].ravel()
    b = kinds[:, EDGES[:, 1]].ravel()
    a, b = np.where(a < 0, nk, a), np.where(b < 0, nk, b)
    ordered = np.bincount(a * (nk + 1) + b, minlength=(nk + 1) ** 2).reshape(nk + 1, nk + 1)
    unordered = np.triu(ordered + ordered.T - np.diag(np.diag(ordered)))[:nk, :nk]
    ia, ib = np.triu_indices(nk)
    keep = _pair_probability(variant)[ia, ib] > 0
    ia, ib = ia[keep], ib[keep]
    counts = pd.DataFrame(
        {
            "variant": variant,
            "piece_a": [KIND_LABELS[i] for i in ia],
            "piece_b": [KIND_LABELS[i] for i in ib],
            "setups": len(kinds),
            "observed": unordered[ia, ib].astype(np.int64),
        }
    )
    return adjacency_from_counts(counts)


def adjacency_from_counts(counts: pd.DataFrame) -> pd.DataFrame:
    """:func:`adjacency`'s expected counts and ratios from its ``setups`` and ``observed``
    columns (which add up across batches of games, so a table summed over batches can be
    finished here)."""
    if not len(counts):
        return _empty_adjacency()
    index = {label: i for i, label in enumerate(KIND_LABELS)}
    ia = counts["piece_a"].map(index).to_numpy(np.int64)
    ib = counts["piece_b"].map(index).to_numpy(np.int64)
    pair_p = np.empty(len(counts), dtype=np.float64)
    variants = counts["variant"].astype(str).to_numpy()
    for variant in dict.fromkeys(variants):
        rows = variants == variant
        pair_p[rows] = _pair_probability(variant)[ia[rows], ib[rows]]
    setups = counts["setups"].to_numpy(np.int64)
    expected = len(EDGES) * setups * pair_p
    observed = counts["observed"].to_numpy(np.int64)
    return (
        counts[["variant", "piece_a", "piece_b"]]
        .assign(setups=setups, observed=observed, expected=expected, ratio=observed / expected)
        .reset_index(drop=True)
    )


def ordered_adjacency(table: pd.DataFrame | None) -> pd.DataFrame:
    """Neighbour counts in one fixed order: variants as the armies list them, then kinds."""
    if table is None:
        return pd.DataFrame()
    variants = {name: i for i, name in enumerate(ARMIES)}
    kinds = {label: i for i, label in enumerate(KIND_LABELS)}
    order = np.lexsort(
        (
            table["piece_b"].map(kinds).to_numpy(),
            table["piece_a"].map(kinds).to_numpy(),
            table["variant"].astype(str).map(variants).to_numpy(),
        )
    )
    return table.iloc[order].reset_index(drop=True)


def ordered_cells(cells: pd.DataFrame | None) -> pd.DataFrame:
    """Placement counts in one fixed order: kind, variant, row, column."""
    if cells is None:
        return pd.DataFrame()
    kinds = {label: i for i, label in enumerate(KIND_LABELS)}
    order = np.lexsort(
        (
            cells["col"].to_numpy(),
            cells["row"].to_numpy(),
            cells["variant"].astype(str).to_numpy(),
            cells["piece"].map(kinds).to_numpy(),
        )
    )
    return cells.iloc[order].reset_index(drop=True)


def adjacency_matrix(table: pd.DataFrame, variant: str = "classic") -> pd.DataFrame:
    """The :func:`adjacency` ratios of one variant as a symmetric kind-by-kind matrix."""
    rows = table[table["variant"] == variant]
    both = pd.concat(
        [rows, rows.rename(columns={"piece_a": "piece_b", "piece_b": "piece_a"})]
    ).drop_duplicates(["piece_a", "piece_b"])
    matrix = both.pivot(index="piece_a", columns="piece_b", values="ratio")
    order = [label for label in KIND_LABELS if label in matrix.index]
    return matrix.loc[order, order]


def placement_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """``stats.piece_placement`` by variant for every kind, stacked with a ``piece`` column,
    each kind counted over the setups holding it (``setups``: those setups)."""
    frame = frame[frame["variant"].isin(list(ARMIES))]
    kinds = _lookup(frame["piece"], _LABEL_KIND, -1)
    present = [label for kind, label in enumerate(KIND_LABELS) if (kinds == kind).any()]
    if not present:
        return pd.DataFrame()
    # All kinds in one pass; then each kind's sample is the setups that hold it.
    placed = piece_placements(frame, present, "variant", exclude_invalid=False)
    held = frame.loc[kinds >= 0, ["game_id", "side", "variant"]].assign(kind=kinds[kinds >= 0])
    held = held.assign(variant=held["variant"].astype(str))
    holders = (
        held.drop_duplicates(["game_id", "side", "kind"])
        .groupby(["kind", "variant"], sort=True)
        .size()
    )
    parts = []
    for label in present:
        setups: pd.Series = holders.xs(_LABEL_KIND[label], level="kind")
        table = placed[label]
        table = table[table["variant"].astype(str).isin(setups.index)].reset_index(drop=True)
        table["setups"] = table["variant"].astype(str).map(setups).astype("int64")
        table["share"] = table["count"] / table["setups"].where(table["setups"] > 0)
        parts.append(table.assign(piece=label))
    cells = pd.concat(parts, ignore_index=True)
    cells["variant"] = cells["variant"].astype(str)
    return cells


def placement_entropy(
    data: Data, variant: str | Sequence[str] | None = None, *, exclude_invalid: bool = True
) -> pd.DataFrame:
    """How predictable each kind's square is: entropy of its placement over the 40 squares.

    Columns: variant, piece, setups (holding that kind), pieces (of that kind), entropy_bits
    (plug-in estimate, in bits, of the square of a randomly chosen piece of that kind, from
    :func:`strat_tools.stats.piece_placement` counts), corrected_bits (Miller-Madow: plus
    (occupied squares - 1) / (2·pieces·ln 2), since the plug-in estimate runs low on small
    samples such as duell's 62 setups), max_bits (log2 40 = 5.32, the uniform maximum),
    relative = entropy_bits / max_bits. Sorted per variant from most predictable (lowest
    entropy) to least.
    """
    cells = placement_cells(setup_frame(data, None, variant, exclude_invalid=exclude_invalid))
    return entropy_from_cells(cells)


def entropy_from_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """:func:`placement_entropy` from placement counts per variant, piece and cell
    ([variant, row, col, count, setups, piece], which add up across batches of games)."""
    if not len(cells):
        return pd.DataFrame(
            columns=[
                "variant",
                "piece",
                "setups",
                "pieces",
                "entropy_bits",
                "corrected_bits",
                "max_bits",
                "relative",
            ]
        )
    totals = cells.groupby(["variant", "piece"], sort=False)["count"].transform("sum")
    p = (cells["count"] / totals.where(totals > 0)).fillna(0.0).to_numpy(np.float64)
    cells = cells.assign(
        _h=-p * np.log2(np.where(p > 0, p, 1.0)), _used=(cells["count"] > 0).astype(np.int64)
    )
    table = (
        cells.groupby(["variant", "piece"], sort=False)
        .agg(
            setups=("setups", "first"),
            pieces=("count", "sum"),
            entropy_bits=("_h", "sum"),
            used=("_used", "sum"),
        )
        .reset_index()
    )
    table = table[table["pieces"] > 0]
    table["corrected_bits"] = table["entropy_bits"] + (table["used"] - 1) / (
        2 * table["pieces"] * math.log(2)
    )
    table = table.drop(columns="used")
    table["max_bits"] = math.log2(CELLS)
    table["relative"] = table["entropy_bits"] / table["max_bits"]
    table["pieces"] = table["pieces"].astype(np.int64)
    return table.sort_values(["variant", "entropy_bits"]).reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# Views for the CLI, the report and notebooks
# ---------------------------------------------------------------------------------------

VIEWS: Final = ("tips", "periods", "adjacency", "entropy", "catalogue")
"""What :func:`advice_table` can show: per-tip summary, adoption by period, neighbour
ratios, placement entropy, the tip texts."""


def tip_summary(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """Adoption, win rates and head-to-head side by side: one row per tip (and group).

    The same table as :func:`tip_adoption`, :func:`tip_win_rates` and
    :func:`tip_head_to_head` merged, computed from :func:`tip_counts`.
    """
    return tip_summary_from_counts(tip_counts(features, by), by)


TIP_COUNTS: Final = (
    "setups", "followed", "n_follow", "wins_follow", "n_other", "wins_other", "h2h_games",
    "h2h_wins",
)  # fmt: skip
"""The count columns of :func:`tip_counts`: they add up across batches of games."""


def tip_counts(features: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """The counts behind :func:`tip_summary`, per group and tip: [*by, tip, setups,
    followed, n_follow, wins_follow, n_other, wins_other, h2h_games, h2h_wins].

    Counts of separate batches of games add up (a game's two setups are in one batch), so
    a summary over any number of games needs only these, summed
    (:func:`tip_summary_from_counts`), never every setup's features at once.
    """
    keys = [*by, "tip"]
    long = _long_tips(features, [*by, "game_id"])
    long = long.assign(followed=long["follows"].astype(bool))
    table = (
        long.groupby(keys, sort=False, observed=True)
        .agg(setups=("followed", "size"), followed=("followed", "sum"))
        .reset_index()
    )
    decided = long[long["won"].notna()]
    won = decided["won"].astype(bool)
    follow = decided["followed"]
    rates = (
        decided.assign(
            n_follow=follow, wins_follow=follow & won, n_other=~follow, wins_other=~follow & won
        )
        .groupby(keys, sort=False, observed=True)[["n_follow", "wins_follow", "n_other",
                                                   "wins_other"]]
        .sum()
        .reset_index()
    )  # fmt: skip
    duels = tip_head_to_head(features, by)[[*keys, "games", "follower_wins"]].rename(
        columns={"games": "h2h_games", "follower_wins": "h2h_wins"}
    )
    table = table.merge(rates, on=keys, how="left").merge(duels, on=keys, how="left")
    counts = {name: table[name].fillna(0).astype(np.int64) for name in TIP_COUNTS}
    return table.assign(**counts)[[*keys, *TIP_COUNTS]]


def tip_summary_from_counts(counts: pd.DataFrame, by: Sequence[str] = ("variant",)) -> pd.DataFrame:
    """:func:`tip_summary` from :func:`tip_counts` (of one batch, or summed over many)."""
    keys = [*by, "tip"]
    adoption = counts[keys].assign(setups=counts["setups"], followed=counts["followed"])
    adoption["share"] = adoption["followed"] / adoption["setups"]
    adoption = _order_tips(adoption, by)
    decided = counts[(counts["n_follow"] + counts["n_other"]) > 0]
    rates = decided[keys].reset_index(drop=True)
    for suffix in ("follow", "other"):
        n = decided[f"n_{suffix}"].to_numpy(np.int64)
        wins = decided[f"wins_{suffix}"].to_numpy(np.int64)
        bounds = [wilson_interval(int(k), int(m)) for k, m in zip(wins, n, strict=True)]
        rates[f"n_{suffix}"] = n
        rates[f"wins_{suffix}"] = wins
        rates[f"rate_{suffix}"] = np.where(n > 0, wins / np.maximum(n, 1), np.nan)
        rates[f"low_{suffix}"] = np.array([b[0] for b in bounds], dtype=np.float64)
        rates[f"high_{suffix}"] = np.array([b[1] for b in bounds], dtype=np.float64)
    rates["difference"] = rates["rate_follow"] - rates["rate_other"]
    rates = _order_tips(rates, by)
    split = counts[counts["h2h_games"] > 0]
    duels = split[keys].assign(
        h2h_games=split["h2h_games"].to_numpy(np.int64),
        h2h_wins=split["h2h_wins"].to_numpy(np.int64),
    )
    bounds = [
        wilson_interval(int(k), int(n))
        for k, n in zip(duels["h2h_wins"], duels["h2h_games"], strict=True)
    ]
    duels["h2h_rate"] = duels["h2h_wins"] / duels["h2h_games"]
    duels["h2h_low"] = [b[0] for b in bounds]
    duels["h2h_high"] = [b[1] for b in bounds]
    duels = _order_tips(duels, by)
    table = adoption.merge(rates, on=keys, how="left")
    table = table.merge(duels, on=keys, how="left")
    table["h2h_games"] = table["h2h_games"].fillna(0).astype(np.int64)
    table["h2h_wins"] = table["h2h_wins"].fillna(0).astype(np.int64)
    titles = {tip.name: tip.title for tip in TIPS}
    table.insert(len(by) + 1, "title", table["tip"].map(titles))
    return table


def advice_table(
    data: Data,
    view: str = "tips",
    variant: str | None = "classic",
    *,
    exclude_invalid: bool = True,
) -> pd.DataFrame:
    """One advice view as a flat table, for ``strat-tools advice`` (``variant=None``: all).

    >>> import strat_tools as st
    >>> games = st.read_games("tests/fixtures/gravon/classic-2014.4-17.xml", setups_only=True)
    >>> advice_table(games, "tips", "classic")[["tip", "setups", "followed"]].head(2)
                  tip  setups  followed
    0  flag_bombed_in       2         0
    1    corner_decoy       2         0
    """
    if view not in VIEWS:
        raise OptionError(f"unknown advice view {view!r}; choose from {', '.join(VIEWS)}")
    if variant is not None and variant not in ARMIES:
        raise OptionError(f"no fixed army for variant {variant!r}; choose from {', '.join(ARMIES)}")
    if view == "catalogue":
        return tip_catalogue()
    if view == "adjacency":
        table = adjacency(data, variant, exclude_invalid=exclude_invalid)
        return table.sort_values(["variant", "ratio"], ascending=[True, False]).reset_index(
            drop=True
        )
    if view == "entropy":
        return placement_entropy(data, variant, exclude_invalid=exclude_invalid)
    features = setup_features(data, variant, exclude_invalid=exclude_invalid)
    by = ["variant", "period"] if view == "periods" else ["variant"]
    return _plain_keys(tip_summary(features, by), by)


def _plain_keys(table: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Group columns as plain strings (categoricals would carry the input's categories)."""
    return table.astype({key: str for key in keys if key in table})


def _advice_counts(
    data: TableSet, view: str, variant: str | None, exclude_invalid: bool
) -> pd.DataFrame:
    """One batch's counts for an advice view (top-level: shipped to the workers)."""
    if view == "adjacency":
        table = adjacency_table(_grid(data, variant, exclude_invalid))
        return table[["variant", "piece_a", "piece_b", "setups", "observed"]]
    if view == "entropy":
        return placement_cells(setup_frame(data, None, variant, exclude_invalid=exclude_invalid))
    features = setup_features(data, variant, exclude_invalid=exclude_invalid)
    return tip_counts(features, ["variant", "period"] if view == "periods" else ["variant"])


def advice_table_of_paths(
    paths: Paths,
    view: str = "tips",
    variant: str | None = "classic",
    *,
    exclude_invalid: bool = True,
    select: Select | None = None,
    jobs: int | None = None,
    progress: ProgressCallback | None = None,
    tally: Tally | None = None,
) -> pd.DataFrame:
    """:func:`advice_table` of the game records under ``paths``, counted batch by batch
    where they are read (tip, neighbour and placement counts add up), so memory does not
    grow with the number of setups. Equal to ``advice_table(read_games(paths, ...))``."""
    if view == "catalogue" or view not in VIEWS or (variant is not None and variant not in ARMIES):
        # Nothing to count (or a bad view or variant): advice_table says so.
        return advice_table(empty_gameset(), view, variant, exclude_invalid=exclude_invalid)
    keys = {
        "adjacency": ("variant", "piece_a", "piece_b"),
        "entropy": ("variant", "piece", "row", "col"),
        "periods": ("variant", "period", "tip"),
    }.get(view, ("variant", "tip"))
    held: pd.DataFrame | None = None
    work = partial(_advice_counts, view=view, variant=variant, exclude_invalid=exclude_invalid)
    for part in reduce_batches(
        work, paths, setups_only=True, select=select, jobs=jobs, progress=progress,
        tally=tally,
    ):  # fmt: skip
        held = sum_counts(held, part, keys)
    if held is None:
        return advice_table(empty_gameset(), view, variant, exclude_invalid=exclude_invalid)
    if view == "adjacency":
        table = adjacency_from_counts(ordered_adjacency(held))
        return table.sort_values(["variant", "ratio"], ascending=[True, False]).reset_index(
            drop=True
        )
    if view == "entropy":
        return entropy_from_cells(ordered_cells(held))
    by = ["variant", "period"] if view == "periods" else ["variant"]
    return _plain_keys(tip_summary_from_counts(held, by), by)


def advice_section_data(
    data: Data, variant: str = "classic", *, exclude_invalid: bool = True
) -> dict[str, pd.DataFrame]:
    """Everything the report's advice section shows, computed once.

    Keys: ``catalogue`` (tip texts and definitions), ``summary`` (adoption and win rates per
    tip and variant), ``periods`` (adoption per variant and period), ``adjacency`` (long
    table, all variants), ``adjacency_matrix`` (ratios for ``variant``, kinds by kinds),
    ``entropy`` (all variants).
    """
    frame = setup_frame(data, None, None, exclude_invalid=exclude_invalid)
    grid = setup_grid(frame)
    features = features_from_grid(grid)
    neighbours = adjacency_table(grid)
    return {
        "catalogue": tip_catalogue(),
        "summary": tip_summary(features, ["variant"]),
        "periods": tip_adoption(features, ["variant", "period"]),
        "adjacency": neighbours,
        "adjacency_matrix": adjacency_matrix(neighbours, variant),
        "entropy": placement_entropy(frame, exclude_invalid=False),
    }
