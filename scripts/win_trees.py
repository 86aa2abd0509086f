"""Gradient-boosted trees against the shipped win model, on the benchmark's months.

The question of issue 46, point 3: does a model with more freedom than the shipped
logistic form (``stats/win_model.py``) predict "the side to move wins" better on
months it was not fitted on? The trees here are histogram-based gradient boosting of the
log-loss written in NumPy (no new dependency): features binned into at most 64 bins on the
training rows, trees grown level by level to a fixed depth, each leaf's value the Newton
step ``-G / (H + lambda)`` times the learning rate, a random half of the rows per tree, and
the number of trees chosen by early stopping on the val months.

The features are public ones, from the side to move's chair (``stats/value_rows.py``,
``mover_view``), the same the shipped model's columns are made of: per kind the side to
move's and the opponent's count, their difference, how many of each the other side has
identified and that difference; the movable difference and share; the ply; whether red is
to move (70 columns). They are what either player can know in classic (every capture shows
both pieces, the army is fixed), never a hidden rank. Trees of kind ``trees`` start from the
training rate; of kind ``on-logistic`` from the shipped form's log-odds fitted on train
(they correct it).

Split (``strat_tools/benchmark/definition.py``): fitted on train (``strados2004-11`` ..
``strados2014-6``), chosen on val (``strados2014-7``, ``-8``), reported per month on test
(``strados2014-9`` .. ``-11``), beside the shipped form and material-only fitted on the same
train rows. The difference in log-loss against the shipped form carries a 95% interval from
a bootstrap over games (1,000 resamples of whole games, rows of a game kept together).

    python scripts/win_trees.py ../shared/gravon [--rows DIR]

``--rows DIR`` keeps each zip's rows as ``DIR/<variant>/<zip>.npz`` (arrays ``counts``,
``ply``, ``game``, ``winner``, ``month`` of :class:`~strat_tools.stats.value_rows.ValueRows`)
and reads them from there when present, so a second run does not replay the archive.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from strat_tools.benchmark.definition import SPLITS
from strat_tools.stats.value_rows import MoverView, ValueRows, mover_view, read_value_rows
from strat_tools.stats.win_model import WinModel, fit_win_model, win_features

Array = npt.NDArray[Any]
BINS = 64
LAMBDA = 1.0
MIN_HESSIAN = 20.0
SUBSAMPLE = 0.5
MAX_TREES = 400
PATIENCE = 30
RESAMPLES = 1000


def rows_of(gravon: Path, zip_name: str, variant: str, cache: Path | None) -> ValueRows:
    """The value rows of one zip (from the cache when there)."""
    kept = cache / variant / f"{zip_name}.npz" if cache else None
    if kept is not None and kept.exists():
        d = np.load(kept)
        return ValueRows(d["counts"], d["ply"], d["game"], d["winner"], d["month"])
    rows = read_value_rows([gravon / zip_name], variant=variant)
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            kept,
            counts=rows.counts,
            ply=rows.ply,
            game=rows.game,
            winner=rows.winner,
            month=rows.month,
        )
    return rows


def features(view: MoverView, ply: Array) -> Array:
    """The public columns from the side to move's chair: per kind the two counts, their
    difference, the two identified counts and their difference; the movable difference
    and share; the ply; whether red is to move (70 columns)."""
    own_m, opp_m = view.own[:, 1:].sum(axis=1), view.opp[:, 1:].sum(axis=1)  # 0: bomb
    return np.column_stack(
        [
            view.own,
            view.opp,
            view.own - view.opp,
            view.own_known,
            view.opp_known,
            view.own_known - view.opp_known,
            own_m - opp_m,
            (own_m - opp_m) / np.maximum(own_m + opp_m, 1.0),
            np.asarray(ply, dtype=np.float64),
            view.red.astype(np.float64),
        ]
    )


def bin_edges(x: Array) -> list[Array]:
    """Per column its split points: every value where it has at most 64, else quantiles."""
    edges = []
    for column in x.T:
        values = np.unique(column)
        if len(values) > BINS:
            values = np.unique(np.quantile(column, np.linspace(0, 1, BINS + 1)[1:-1]))
        edges.append(values[:-1] if len(values) > 1 else values)
    return edges


def binned(x: Array, edges: list[Array]) -> Array:
    """Bin index of each value: the number of split points below it (x <= edge goes left)."""
    columns = [np.searchsorted(e, x[:, j], side="left") for j, e in enumerate(edges)]
    return np.asfortranarray(np.column_stack(columns).astype(np.uint8))


@dataclass
class Tree:
    """A full binary tree of ``depth`` levels: per inner node its column and bin split
    (bin <= split goes left), per leaf its value."""

    column: Array
    split: Array
    leaf: Array

    def predict(self, xb: Array) -> Array:
        node = np.zeros(len(xb), dtype=np.int64)
        for level in range(int(np.log2(len(self.leaf)))):
            first = 2**level - 1
            inner = first + node
            go_right = xb[np.arange(len(xb)), self.column[inner]] > self.split[inner]
            node = 2 * node + go_right
        return np.asarray(self.leaf[node])


def grow(xb: Array, g: Array, h: Array, depth: int, lr: float) -> Tree:
    """One tree fitted to gradients ``g`` and hessians ``h`` (histograms per level)."""
    n, f = xb.shape
    inner = 2**depth - 1
    column = np.zeros(inner, dtype=np.int64)
    split = np.full(inner, BINS, dtype=np.int64)  # BINS: no split, everything left
    node = np.zeros(n, dtype=np.int64)
    for level in range(depth):
        nodes = 2**level
        best_gain = np.zeros(nodes)
        for j in range(f):
            key = node * (BINS + 1) + xb[:, j]
            hg = np.bincount(key, g, nodes * (BINS + 1)).reshape(nodes, BINS + 1)
            hh = np.bincount(key, h, nodes * (BINS + 1)).reshape(nodes, BINS + 1)
            gl, hl = np.cumsum(hg, axis=1)[:, :-1], np.cumsum(hh, axis=1)[:, :-1]
            gt, ht = hg.sum(axis=1, keepdims=True), hh.sum(axis=1, keepdims=True)
            gr, hr = gt - gl, ht - hl
            gain = gl**2 / (hl + LAMBDA) + gr**2 / (hr + LAMBDA) - gt**2 / (ht + LAMBDA)
            gain[(hl < MIN_HESSIAN) | (hr < MIN_HESSIAN)] = 0.0
            at = gain.argmax(axis=1)
            top = gain[np.arange(nodes), at]
            better = top > best_gain
            first = 2**level - 1
            column[first : first + nodes][better] = j
            split[first : first + nodes][better] = at[better]
            best_gain[better] = top[better]
        first = 2**level - 1
        here = first + node
        node = 2 * node + (xb[np.arange(n), column[here]] > split[here])
    leaves = 2**depth
    gs, hs = np.bincount(node, g, leaves), np.bincount(node, h, leaves)
    return Tree(column, split, -lr * gs / (hs + LAMBDA))


def log_loss_rows(p: Array, y: Array) -> Array:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.asarray(-(y * np.log(p) + (1 - y) * np.log(1 - p)))


def boost(
    xb: Array,
    y: Array,
    vb: Array,
    vy: Array,
    depth: int,
    lr: float,
    offset: tuple[Array, Array] | None = None,
    seed: int = 0,
) -> tuple[float, list[Tree], list[float]]:
    """Trees fitted on ``xb`` (from ``offset``'s margins on train and val, if given, else
    the training rate), stopped when the val log-loss has not improved for
    :data:`PATIENCE` trees; the base score, the trees up to the best, and the val curve."""
    rng = np.random.default_rng(seed)
    base = float(np.log(y.mean() / (1 - y.mean()))) if offset is None else 0.0
    f, fv = np.full(len(y), base), np.full(len(vy), base)
    if offset is not None:
        f, fv = f + offset[0], fv + offset[1]
    curve = [float(log_loss_rows(1 / (1 + np.exp(-fv)), vy).mean())]
    trees: list[Tree] = []
    for _ in range(MAX_TREES):
        p = 1 / (1 + np.exp(-f))
        pick = rng.random(len(y)) < SUBSAMPLE
        tree = grow(xb[pick], (p - y)[pick], (p * (1 - p))[pick], depth, lr)
        trees.append(tree)
        f += tree.predict(xb)
        fv += tree.predict(vb)
        curve.append(float(log_loss_rows(1 / (1 + np.exp(-fv)), vy).mean()))
        if len(curve) - 1 - int(np.argmin(curve)) >= PATIENCE:
            break
    best = int(np.argmin(curve))
    return base, trees[:best], curve


def predict(base: float, trees: list[Tree], xb: Array, offset: Array | None = None) -> Array:
    f = np.full(len(xb), base) + (0.0 if offset is None else offset)
    for tree in trees:
        f += tree.predict(xb)
    return np.asarray(1 / (1 + np.exp(-f)))


def bootstrap(a: Array, b: Array, game: Array, seed: int = 0) -> tuple[float, float, float]:
    """Mean of ``a - b`` over rows and its 95% interval, games resampled whole."""
    _, label = np.unique(game, return_inverse=True)
    g = int(label.max()) + 1
    diff = np.bincount(label, a - b, g)
    rows = np.bincount(label, None, g)
    weights = np.random.default_rng(seed).multinomial(g, np.full(g, 1 / g), size=RESAMPLES)
    stats = (weights @ diff) / (weights @ rows)
    low, high = np.quantile(stats, [0.025, 0.975])
    return float(diff.sum() / rows.sum()), float(low), float(high)


def fit_net(
    x: Array,
    y: Array,
    vx: Array,
    vy: Array,
    hidden: int,
    epochs: int,
    offset: tuple[Array, Array] | None = None,
    seed: int = 0,
) -> tuple[Callable[[Array, Array | None], Array], list[float]]:
    """A net of one ``tanh`` layer of ``hidden`` units on the standardised columns, fitted
    by Adam (rate 0.001, batches of 1,024) for at most ``epochs`` passes, kept at the pass
    of the lowest val log-loss (stopped after 3 passes without one)."""
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    xs, vxs = (x - mean) / scale, (vx - mean) / scale
    o, vo = (np.zeros(len(y)), np.zeros(len(vy))) if offset is None else offset
    base = float(np.log(y.mean() / (1 - y.mean()))) if offset is None else 0.0
    params = [
        rng.normal(0, 1 / np.sqrt(x.shape[1]), (x.shape[1], hidden)),
        np.zeros(hidden),
        rng.normal(0, 0.01, hidden),
        np.array([base]),
    ]
    moments = [np.zeros_like(q) for q in params]
    squares = [np.zeros_like(q) for q in params]

    def forward(data: Array, off: Array, ps: list[Array]) -> tuple[Array, Array]:
        z = np.tanh(data @ ps[0] + ps[1])
        return z, np.asarray(1 / (1 + np.exp(-(z @ ps[2] + ps[3][0] + off))))

    curve: list[float] = []
    best = [q.copy() for q in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), 1024):
            batch = order[start : start + 1024]
            z, p = forward(xs[batch], o[batch], params)
            d = (p - y[batch]) / len(batch)
            dz = np.outer(d, params[2]) * (1 - z**2)
            grads = [xs[batch].T @ dz, dz.sum(axis=0), z.T @ d, np.array([d.sum()])]
            step += 1
            for k, g in enumerate(grads):
                moments[k] = 0.9 * moments[k] + 0.1 * g
                squares[k] = 0.999 * squares[k] + 0.001 * g**2
                m_hat = moments[k] / (1 - 0.9**step)
                v_hat = squares[k] / (1 - 0.999**step)
                params[k] = params[k] - 0.001 * m_hat / (np.sqrt(v_hat) + 1e-8)
        curve.append(float(log_loss_rows(forward(vxs, vo, params)[1], vy).mean()))
        if curve[-1] == min(curve):
            best = [q.copy() for q in params]
        elif len(curve) - 1 - int(np.argmin(curve)) >= 3:
            break

    def predict_net(data: Array, off: Array | None) -> Array:
        return forward((data - mean) / scale, np.zeros(len(data)) if off is None else off, best)[1]

    return predict_net, curve


def margin(model: WinModel, view: MoverView, ply: Array) -> Array:
    """The shipped form's log-odds on rows (the start of the ``on logistic`` trees)."""
    return np.asarray(win_features(view, ply, model.features) @ np.asarray(model.coef))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gravon", type=Path)
    parser.add_argument("--rows", type=Path, default=None)
    parser.add_argument("--variant", default="classic")
    parser.add_argument(
        "--try",
        dest="tries",
        nargs="+",
        default=["trees:4:0.2", "on-logistic:3:0.05", "on-logistic:3:0.1"],
        help="KIND:DEPTH:RATE, KIND trees (from the training rate) or on-logistic (from "
        "the shipped form's fitted log-odds); or net:UNITS:PASSES, net-on-logistic:UNITS:PASSES",
    )
    args = parser.parse_args()
    split = {s.name: [z.name for z in s.zips] for s in SPLITS}
    t0 = time.time()

    def load(names: list[str]) -> ValueRows:
        return ValueRows.join(rows_of(args.gravon, n, args.variant, args.rows) for n in names)

    train, val = load(split["train"]), load(split["val"])
    months = {"val": val, **{n: load([n]) for n in split["test"]}, "test": load(split["test"])}
    logit = fit_win_model(train, variant=args.variant)
    tv = mover_view(train)
    x = features(tv, train.ply)
    edges = bin_edges(x)
    xb, y = binned(x, edges), tv.y
    views = {m: mover_view(r) for m, r in months.items()}
    binned_rows = {m: binned(features(views[m], r.ply), edges) for m, r in months.items()}
    margins = {m: margin(logit, views[m], r.ply) for m, r in months.items()}
    train_margin = margin(logit, tv, train.ply)
    print(f"train {train.games} games {len(y)} rows", file=sys.stderr)

    losses: dict[str, dict[str, Array]] = {m: {} for m in months}
    for m, r in months.items():
        chances = logit.chances(views[m], r.ply)
        losses[m]["material only"] = log_loss_rows(chances["material only"], views[m].y)
        losses[m]["shipped logistic form"] = log_loss_rows(chances["win model"], views[m].y)
    raw = {m: features(views[m], r.ply) for m, r in months.items()}
    for spec in args.tries:
        kind, depth, lr = spec.split(":")
        on = kind.endswith("on-logistic")
        if kind.startswith("net"):
            net, curve = fit_net(
                x,
                y,
                raw["val"],
                views["val"].y,
                int(depth),
                int(lr),
                (train_margin, margins["val"]) if on else None,
            )
            name = f"{kind} {depth} units, {int(np.argmin(curve)) + 1} passes"
            for m in months:
                losses[m][name] = log_loss_rows(net(raw[m], margins[m] if on else None), views[m].y)
            print(f"{name}: val {min(curve):.4f} ({time.time() - t0:.0f}s)", file=sys.stderr)
            continue
        base, trees, curve = boost(
            xb,
            y,
            binned_rows["val"],
            views["val"].y,
            int(depth),
            float(lr),
            (train_margin, margins["val"]) if on else None,
        )
        name = f"{kind} depth {depth} rate {lr}, {len(trees)} trees"
        for m in months:
            p = predict(base, trees, binned_rows[m], margins[m] if on else None)
            losses[m][name] = log_loss_rows(p, views[m].y)
        print(f"{name}: val {min(curve):.4f} ({time.time() - t0:.0f}s)", file=sys.stderr)

    print("| model | " + " | ".join(months) + " |")
    print("|---|" + "---|" * len(months))
    for model in losses["val"]:
        print(f"| {model} | " + " | ".join(f"{losses[m][model].mean():.4f}" for m in months) + " |")
    print("\nDifference to the shipped form, 95% interval by a bootstrap over games:")
    for model in list(losses["val"])[2:]:
        cells = []
        for m, r in months.items():
            d, lo, hi = bootstrap(losses[m][model], losses[m]["shipped logistic form"], r.game)
            cells.append(f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]")
        print(f"| {model} | " + " | ".join(cells) + " |")
    print(f"({time.time() - t0:.0f}s)", file=sys.stderr)


if __name__ == "__main__":
    main()
