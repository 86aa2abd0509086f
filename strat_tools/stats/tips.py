"""The rulebooks' setup tips: each a named :class:`Tip` with its source sentence, an English
translation and one exact definition over a :class:`~strat_tools.setups.grid.SetupGrid`.

Seed rule texts: Greek 000_, Finnish 002_ (the German, Lithuanian and Romanian texts give no
concrete setup tip). :func:`setup_features` gives one row per setup with one nullable
boolean column per tip (NA where the variant's army makes the tip meaningless, e.g. barrage
has one bomb); :func:`tip_catalogue` lists the texts and definitions. Computes no rate: the
adoption and win rates are :mod:`strat_tools.stats.advice`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd

from strat_tools.core.pieces import ARMIES, PieceKind
from strat_tools.core.records import ALL_VARIANTS
from strat_tools.setups.grid import (
    ADJACENT,
    COLS,
    EDGE,
    LAKE_CELL,
    NEIGHBOUR_CELLS,
    STRONG_MIN,
    WEAK_MAX,
    BoolArray,
    IntArray,
    SetupGrid,
    setup_grid,
)
from strat_tools.stats.frames import Data, setup_frame

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
    sealed = bomb | (nbs == EDGE) | (nbs == LAKE_CELL)
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

SPY_GENERAL_NOTE: Final = (
    "A spy in front of or behind the general counts, as one beside it does; "
    "`search --anywhere SG --mirror` counts only spy and general side by side in one row, "
    "so its setups and win rates differ from this tip's (both right by their definitions)."
)
"""What ``advice`` says wherever the spy-general tip and the ``SG`` search both appear."""


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
        "not). Applies to every fixed army. " + SPY_GENERAL_NOTE,
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
    """One row per setup: its context columns, its cluster (:data:`CLUSTER`, the mirror
    fingerprint as an integer) and one nullable boolean column per tip.

    ``data`` is a GameSet or a :func:`strat_tools.stats.setup_context` frame. A tip's column
    is NA for setups of variants where the tip cannot apply. Left out: classicfree, setups
    that do not match their variant's army and (by default, as in :mod:`strat_tools.stats`)
    invalid games.

    >>> import strat_tools as st
    >>> games = st.read_games("tests/fixtures/gravon/classic-2014.4-17.xml", setups_only=True)
    >>> features = setup_features(games)  # one row per setup: red's and blue's
    >>> from strat_tools.stats.advice import tip_adoption
    >>> tip_adoption(features, by=["variant"])[["tip", "setups", "followed"]].head(3)
                   tip  setups  followed
    0   flag_bombed_in       2         0
    1     corner_decoy       2         0
    2  few_front_bombs       2         1
    """
    return features_from_grid(grid_of(data, variant, exclude_invalid))


def grid_of(data: Data, variant: str | Sequence[str] | None, exclude_invalid: bool) -> SetupGrid:
    # The advice groups by variant itself: no variant named is every variant.
    scope = ALL_VARIANTS if variant is None else variant
    return setup_grid(setup_frame(data, None, scope, exclude_invalid=exclude_invalid))


CLUSTER: Final = "mirror_id"
"""The column of :func:`setup_features` naming each setup's cluster for the clustered
intervals: its mirror fingerprint as an unsigned 64-bit integer
(:meth:`~strat_tools.setups.grid.SetupGrid.mirror_ids`)."""


def features_from_grid(grid: SetupGrid) -> pd.DataFrame:
    """:func:`setup_features` of a grid: its context, :data:`CLUSTER` and one column per tip."""
    out = grid.meta.copy()
    out[CLUSTER] = grid.mirror_ids()
    variants = out["variant"].to_numpy() if len(out) else np.array([], dtype=object)
    for tip in TIPS:
        values = pd.array(tip.follows(grid), dtype="boolean")
        applies = np.array([tip.applies_to(v) for v in variants], dtype=np.bool_)
        values[~applies] = pd.NA
        out[tip.name] = values
    return out
