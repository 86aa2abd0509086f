"""The logistic win-model forms compared in docs/values.md, fitted on train, scored held out.

Issue 46: which one-line logistic form of "the side to move wins" to ship for classic. Each
form is a list of columns: those :func:`strat_tools.stats.win_model.win_features` makes (the
shipped form's and the earlier forms'), and a few tried here only (:data:`EXTRA`). Each is
fitted on the benchmark's train zips by the library's fit (``fit_logit``: Newton's method,
exact), and its log-loss printed on val (``strados2014-7``, ``-8``), on each test zip
(``strados2014-9`` .. ``-11``, calendar months 2014-10 .. 2014-12) and on the three pooled.
The rule (docs/values.md): the lowest val log-loss; of the forms within 0.001 of it, the one
with the fewest columns. Test plays no part in it.

    python scripts/win_forms.py ../shared/gravon --rows /tmp/rows [--variant barrage]

``--rows DIR``: the rows cache of ``scripts/win_trees.py`` (one ``.npz`` per zip).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).parent))
from win_trees import bootstrap, log_loss_rows, rows_of

from strat_tools.benchmark.definition import SPLITS
from strat_tools.stats.logit import fit_logit, predict_logit
from strat_tools.stats.value_rows import MoverView, ValueRows, mover_view
from strat_tools.stats.win_model import (
    KINDS,
    army_kinds,
    features_of,
    kth_strongest,
    material_features_of,
    win_features,
)

Array = npt.NDArray[Any]


def ladder(view: MoverView, k: int) -> Array:
    return np.asarray(np.sign(kth_strongest(view.own, k) - kth_strongest(view.opp, k)))


def kind(view: MoverView, name: str, side: str) -> Array:
    return np.asarray((view.own if side == "own" else view.opp)[:, KINDS.index(name)])


def share(view: MoverView) -> Array:
    own, opp = view.own[:, 1:].sum(axis=1), view.opp[:, 1:].sum(axis=1)
    return np.asarray((own - opp) / np.maximum(own + opp, 1.0))


EXTRA: dict[str, Callable[[MoverView, Array, int], Array]] = {
    # strongest_K (K > 7) and strongest_K_by_ply: the ladder's K-th term and its ply term
    "strongest": lambda v, p, k: ladder(v, k)[:, k - 1],
    "strongest_by_ply_of": lambda v, p, k: ladder(v, k).sum(axis=1) * p / 100,
    "strongest_x_ply": lambda v, p, k: ladder(v, k)[:, k - 1] * p / 100,
    "no_miner": lambda v, p, k: (
        (kind(v, "miner", "own") == 0) * 1.0 - (kind(v, "miner", "opp") == 0)
    ),
    "no_scout": lambda v, p, k: (
        (kind(v, "scout", "own") == 0) * 1.0 - (kind(v, "scout", "opp") == 0)
    ),
    "miners_for_bombs": lambda v, p, k: (
        np.minimum(kind(v, "miner", "own"), kind(v, "bomb", "opp"))
        - np.minimum(kind(v, "miner", "opp"), kind(v, "bomb", "own"))
    ),
    "movable_share_cubed": lambda v, p, k: share(v) ** 3,
}


def columns(view: MoverView, ply: Array, names: tuple[str, ...]) -> Array:
    """The columns ``names``: the library's, or :data:`EXTRA`'s (``NAME:K``)."""
    out = []
    for name in names:
        base, _, k = name.partition(":")
        if base in EXTRA:
            out.append(EXTRA[base](view, ply.astype(np.float64), int(k or 0)))
        else:
            out.append(win_features(view, ply, (name,))[:, 0])
    return np.column_stack(out)


def forms(variant: str) -> dict[str, tuple[str, ...]]:
    """The forms compared, by the name docs/values.md gives them."""
    kinds = army_kinds(variant)
    known = tuple(f"known_{k}" for k in kinds)
    late = tuple(f"{k}_by_ply" for k in ("captain", "major", "colonel", "general", "marshal"))
    core = ("intercept", *kinds, *known, "movable_share")
    if variant == "barrage":
        shipped = features_of("barrage")
        strongest6 = tuple(f"strongest:{k}" for k in range(1, 7))
        return {
            "material only": material_features_of(variant),
            "material, movable share, known per rank (shipped)": shipped,
            "the same, + safe_marshal": (*shipped, "safe_marshal"),
            "the same, + strongest_1 .. 3, strongest_by_ply, safe_marshal": (
                *shipped,
                *(f"strongest_{k}" for k in range(1, 4)),
                "strongest_by_ply_of:3",
                "safe_marshal",
            ),
            "the same, + strongest_1 .. 6, strongest_by_ply, safe_marshal": (
                *shipped,
                *strongest6,
                "strongest_by_ply_of:6",
                "safe_marshal",
            ),
        }
    previous = ("intercept", "red_to_move", *kinds, *known, "movable_share", "movable_by_ply")
    previous = (*previous, *late)

    def ladder_of(k: int) -> tuple[str, ...]:
        return tuple(f"strongest:{i}" for i in range(1, k + 1))

    return {
        "material only": material_features_of(variant),
        "known per rank, high ranks x ply (the previous model)": previous,
        "previous + no miner left": (*previous, "no_miner"),
        "previous + no scout left": (*previous, "no_scout"),
        "previous + miners against bombs": (*previous, "miners_for_bombs"),
        "previous + movable share cubed": (*previous, "movable_share_cubed"),
        "previous + safe_marshal": (*previous, "safe_marshal"),
        "previous + strongest_1 (who holds the highest piece)": (*previous, "strongest_1"),
        "previous + strongest_1 .. 5": (*previous, *ladder_of(5)),
        "previous + strongest_1 .. 10": (*previous, *ladder_of(10)),
        "previous + strongest_1 .. 10, safe_marshal": (*previous, *ladder_of(10), "safe_marshal"),
        "no ply terms, no red_to_move; strongest_1 .. 5, by ply, safe_marshal": (
            *core,
            *ladder_of(5),
            "strongest_by_ply_of:5",
            "safe_marshal",
        ),
        "the same with strongest_1 .. 6": (
            *core,
            *ladder_of(6),
            "strongest_by_ply_of:6",
            "safe_marshal",
        ),
        "the same with strongest_1 .. 7 (shipped)": features_of(variant),
        "the same with strongest_1 .. 8": (
            *core,
            *ladder_of(8),
            "strongest_by_ply_of:8",
            "safe_marshal",
        ),
        "the same with strongest_1 .. 10": (
            *core,
            *ladder_of(10),
            "strongest_by_ply_of:10",
            "safe_marshal",
        ),
        "shipped without safe_marshal": features_of(variant)[:-1],
        "shipped + red_to_move": (*features_of(variant), "red_to_move"),
        "shipped + movable share cubed": (*features_of(variant), "movable_share_cubed"),
        "strongest_1 .. 10 each x ply, safe_marshal, share cubed": (
            *core,
            *ladder_of(10),
            *(f"strongest_x_ply:{i}" for i in range(1, 11)),
            "safe_marshal",
            "movable_share_cubed",
        ),
    }


def log_loss(p: Array, y: Array) -> float:
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gravon", type=Path)
    parser.add_argument("--rows", type=Path, default=None)
    parser.add_argument("--variant", default="classic")
    args = parser.parse_args()
    split = {s.name: [z.name for z in s.zips] for s in SPLITS}

    def load(names: list[str]) -> ValueRows:
        return ValueRows.join(rows_of(args.gravon, n, args.variant, args.rows) for n in names)

    train = load(split["train"])
    held = {"val": load(split["val"]), **{n: load([n]) for n in split["test"]}}
    held["test"] = load(split["test"])
    views = {m: mover_view(r) for m, r in held.items()}
    tv = mover_view(train)
    print("| form | columns | " + " | ".join(held) + " |")
    print("|---|---|" + "---|" * len(held))
    scores = {}
    per_row: dict[str, dict[str, Array]] = {}  # the first two forms' and the shipped's
    for name, names in forms(args.variant).items():
        fit = fit_logit(columns(tv, train.ply, names), tv.y, train.game)
        chances = {
            m: predict_logit(columns(views[m], r.ply, names), fit.coef) for m, r in held.items()
        }
        cells = [log_loss(chances[m], views[m].y) for m in held]
        if name == list(forms(args.variant))[1] or "(shipped)" in name:
            per_row[name] = {m: log_loss_rows(chances[m], views[m].y) for m in held}
        scores[name] = (cells[0], len(names))
        print(f"| {name} | {len(names)} | " + " | ".join(f"{c:.4f}" for c in cells) + " |")
    if len(per_row) == 2:  # classic: the shipped form against the previous, 95% by games
        new, old = (per_row[n] for n in sorted(per_row, key=lambda n: "(shipped)" not in n))
        intervals = [bootstrap(new[m], old[m], r.game) for m, r in held.items()]
        print("\nshipped minus previous, 95% interval by a bootstrap over games:")
        print(
            "| " + " | ".join(f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]" for d, lo, hi in intervals) + " |"
        )
    best = min(v for v, _ in scores.values())
    near = {n: k for n, (v, k) in scores.items() if v <= best + 0.001}
    print(
        f"\nlowest val {best:.5f}; within 0.001: {near}; the rule picks {min(near, key=near.get)}"
    )  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
