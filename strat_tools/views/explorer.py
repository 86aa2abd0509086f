"""The setup explorer: one self-contained page to ask setup questions at the speed of clicks.

What an opening explorer is to chess players: a 4x10 setup board on which each click
requires a piece, a set of pieces, "not this piece" or anything on a square, and at once
the page shows the matching setups, the distinct ones, their games, their win rate with
the plain and the clustered interval against the rest's, where each remaining piece
stands among the matches (a heatmap over the squares the pattern leaves free), and the
most played matching setups with their games. The state is the pattern in the search
syntax of :mod:`strat_tools.setups.patterns` (front row first, rows split by ``/``, sets
``[FB]``, negated sets ``[!FB]``, ``!B``), kept in the URL as ``#pattern=...&mirror=1``,
so a link reopens the same question.

The setups travel packed (:func:`explorer_data`): each distinct setup once, as 40 bytes of
setup codes (:mod:`strat_tools.setups.identity`) in one base64 block, with its count, wins, draws
and losses, its mirror class (the clusters of the clustered interval, as in
:func:`strat_tools.stats.repeats.search_setups`), and per setup row its game and side; the
script matches with typed arrays, so the archive's 15,377 classic setups answer a click in
a few milliseconds and the page stays under 3 MB. Game ids and names from files are data:
the JSON is escaped for a script element and the script inserts them as text only.

:func:`write_explorer` reads paths through the input driver (the game filters apply) and
writes the page atomically, never over an input; ``strat-tools explore`` calls it. It keeps
of each batch only what the page carries (:class:`SetupRows`): each distinct setup once, a
packed word a setup and each game's id. The page lists every game (a setup's games are its
links, and the matching games are counted at each click), so that part grows with the games,
by what the page itself grows (about 30 bytes a game), and no more.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from strat_tools.core.errors import NothingToRead, OptionError, UsageError
from strat_tools.core.pieces import ARMIES, KIND_LABELS
from strat_tools.core.records import DEFAULT_VARIANT, parse_variant
from strat_tools.core.text import printable, script_json
from strat_tools.io.output import check_output, write_file_atomically
from strat_tools.run.options import Run, RunArg
from strat_tools.setups.identity import OTHER, SQUARES
from strat_tools.setups.patterns import PATTERN_GRAMMAR
from strat_tools.stats.frames import TableSet
from strat_tools.stats.intervals import t_quantile_975
from strat_tools.stats.repeats import SetupOutcomes, setup_outcomes
from strat_tools.views.viewer import MAX_GAMES, view_command

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter

__all__ = [
    "ExplorerSummary",
    "SetupRows",
    "add_setup_rows",
    "explorer_data",
    "explorer_html",
    "setup_rows",
    "write_explorer",
]

RESULT_CODES: Final = {"win": 0, "draw": 1, "loss": 2}
"""A setup row's result in its packed word (3: the record names none)."""
MAX_PAGE_BYTES: Final = 3_000_000
"""What the page is sized for (the archive's classic setups take about half)."""


def _b64(values: np.ndarray[Any, Any]) -> str:
    """Little-endian bytes of ``values``, base64 (what the script reads into a typed array)."""
    return base64.b64encode(
        np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<")).tobytes()
    ).decode()


@dataclass(frozen=True)
class SetupRows:
    """What the page carries of some setups, and no more: each distinct setup once
    (``fingerprints``, ``mirrors`` and ``codes``, in order of first appearance), and per
    setup row (input order) its distinct setup (``setup``) and its packed word (``words``:
    game index * 8 + side (blue: 1) * 4 + result code, :data:`RESULT_CODES`); ``games``
    names the games by index. Parts of several batches join with :func:`add_setup_rows`,
    so a streamed read keeps 8 bytes a setup and a game's id, never its setup's frame."""

    fingerprints: np.ndarray[Any, np.dtype[np.object_]]
    mirrors: np.ndarray[Any, np.dtype[np.object_]]
    codes: np.ndarray[Any, np.dtype[np.uint8]]
    setup: np.ndarray[Any, np.dtype[np.uint32]]
    words: np.ndarray[Any, np.dtype[np.uint32]]
    games: pa.Array


def setup_rows(outcomes: SetupOutcomes) -> SetupRows:
    """The :class:`SetupRows` of ``outcomes`` (each game's setups in them: one batch)."""
    frame = outcomes.frame
    key, distinct = pd.factorize(frame["fingerprint"].to_numpy(dtype=object))
    first = np.zeros(len(distinct), dtype=np.int64)
    first[key[::-1]] = np.arange(len(key))[::-1]  # the first row of each distinct setup
    result = frame["result"].astype("string").map(RESULT_CODES).fillna(3).to_numpy(np.int64)
    game_key, game_ids = pd.factorize(frame["game_id"].to_numpy(dtype=object))
    side = (frame["side"].to_numpy() == "blue").astype(np.int64)
    return SetupRows(
        np.asarray(distinct, dtype=object),
        frame["mirror_fingerprint"].to_numpy(dtype=object)[first],
        outcomes.codes[first].astype(np.uint8).reshape(-1, SQUARES),
        key.astype(np.uint32),
        (game_key * 8 + side * 4 + result).astype(np.uint32),
        pa.array([str(game_id) for game_id in game_ids], pa.string()),
    )


def add_setup_rows(parts: Sequence[SetupRows]) -> SetupRows:
    """The rows of several parts, in order, as one (each game in one part)."""
    fingerprints = np.concatenate([part.fingerprints for part in parts])
    key, distinct = pd.factorize(fingerprints)
    first = np.zeros(len(distinct), dtype=np.int64)
    first[key[::-1]] = np.arange(len(key))[::-1]
    starts = np.cumsum([0, *(len(part.fingerprints) for part in parts)])
    game_starts = np.cumsum([0, *(len(part.games) for part in parts)])
    return SetupRows(
        np.asarray(distinct, dtype=object),
        np.concatenate([part.mirrors for part in parts])[first],
        np.concatenate([part.codes for part in parts])[first],
        np.concatenate(
            [key[start + part.setup] for start, part in zip(starts, parts, strict=False)]
        ).astype(np.uint32),
        np.concatenate(
            [part.words + np.uint32(8 * at) for at, part in zip(game_starts, parts, strict=False)]
        ).astype(np.uint32),
        pa.concat_arrays([part.games for part in parts]),
    )


def explorer_data(
    data: TableSet | SetupOutcomes | SetupRows,
    variant: str = DEFAULT_VARIANT,
    *,
    source: str = "",
) -> dict[str, Any]:
    """The page's data for the ``variant`` setups of ``data`` (invalid games left out;
    ``data`` may be the :class:`SetupRows` of any number of batches): distinct setups most
    played first, packed as the module docstring says.

    >>> from strat_tools.run.driver import read_games
    >>> packed = explorer_data(read_games("data/", setups_only=True, run=1))
    >>> packed["setups"], packed["distinct"], len(packed["games"]), packed["variant"]
    (606, 606, 303, 'classic')
    """
    if not isinstance(data, SetupRows):
        data = setup_rows(
            data if isinstance(data, SetupOutcomes) else setup_outcomes(data, variant)
        )
    distinct = len(data.fingerprints)
    counts = np.bincount(data.setup, minlength=distinct)
    by_name = np.empty(distinct, dtype=np.int64)
    by_name[np.argsort(data.fingerprints.astype(str), kind="stable")] = np.arange(distinct)
    # Most played first, ties by fingerprint: the order `setups` lists them in.
    order = np.lexsort((by_name, -counts))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    setup_of_row = rank[data.setup] if len(data.setup) else np.zeros(0, np.int64)
    rows = np.argsort(setup_of_row, kind="stable")  # each setup's rows, in input order
    result = (data.words & 3).astype(np.int64)
    tallies = np.zeros((distinct, 4), dtype=np.int64)
    np.add.at(tallies, (setup_of_row, result), 1)
    clusters, _ = pd.factorize(data.mirrors[order], sort=True)
    starts = np.searchsorted(setup_of_row[rows], np.arange(distinct + 1))
    army = ARMIES.get(variant)
    return {
        "variant": variant,
        "source": printable(source),
        "setups": len(data.setup),
        "distinct": distinct,
        "codes": _b64(data.codes[order].astype(np.uint8)),
        "counts": _b64(counts[order].astype(np.uint32)),
        "wins": _b64(tallies[:, 0].astype(np.uint32)),
        "draws": _b64(tallies[:, 1].astype(np.uint32)),
        "losses": _b64(tallies[:, 2].astype(np.uint32)),
        "clusters": _b64(clusters.astype(np.uint32)),
        "rowStarts": _b64(starts.astype(np.uint32)),
        "rows": _b64(data.words[rows].astype(np.uint32)),
        "fingerprints": "".join(data.fingerprints[order].astype(str)),
        "games": [printable(str(g)) for g in data.games.to_pylist()],  # as the viewer names them
        "army": list(army) if army is not None else None,
    }


def explorer_html(
    data: dict[str, Any],
    *,
    title: str = "Stratego setup explorer",
    viewer: str = "game.html",
    build: str = "strat-tools view PATHS",
) -> str:
    """The page for ``data`` (from :func:`explorer_data`); game links go to ``viewer``
    (a page written by ``strat-tools view``), as ``viewer#game=ID``; ``build`` is the
    command that writes a viewer naming games as this page does
    (:func:`~strat_tools.views.viewer.view_command`: the same paths and filters)."""
    config = {
        "build": build,
        "viewerGames": MAX_GAMES,
        "grammar": PATTERN_GRAMMAR,
        "names": ["empty", *KIND_LABELS],
        "other": OTHER,
        "t975": [float(t) for t in t_quantile_975(np.arange(31))],
        "viewer": viewer,
        "title": title,
    }
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_asset('explorer.css')}</style></head><body>"
        f"{_asset('explorer.html')}"
        f'<script type="application/json" id="explorer-config">{script_json(config)}</script>'
        f'<script type="application/json" id="explorer-data">{script_json(data)}</script>'
        f"<script>{_asset('shell.js')}\n{_asset('explorer.js')}</script></body></html>\n"
    )


def _asset(name: str) -> str:
    return files("strat_tools.views").joinpath("assets", name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class ExplorerSummary:
    """What :func:`write_explorer` wrote."""

    path: Path
    variant: str
    setups: int
    distinct: int
    games: int
    bytes: int
    dropped: int = 0

    def line(self, *, filters: bool = True) -> str:
        """One line for the user (``filters``: with the games the filters left out)."""
        text = (
            f"{self.setups:,} {self.variant} setups ({self.distinct:,} distinct as drawn) of "
            f"{self.games:,} games in {self.path} ({self.bytes // 1024:,} KB)"
        )
        dropped = f"; {self.dropped:,} games left out by the filters"
        return text + (dropped if filters and self.dropped else "")


def write_explorer(
    paths: str | Iterable[str],
    output: str | os.PathLike[str],
    *,
    variant: str = DEFAULT_VARIANT,
    select: GameFilter | None = None,
    viewer: str = "game.html",
    run: RunArg = None,
) -> ExplorerSummary:
    """Read the setups under ``paths`` (setups only, no replay; ``select`` applies),
    and write the explorer of their ``variant`` setups to ``output`` atomically (never
    over or into an input). Raises :class:`~strat_tools.core.errors.NothingToRead` when there is
    no such setup (:class:`~strat_tools.core.errors.NothingReadable` when not one input could
    be read).

    >>> write_explorer("data/", "explore.html")  # doctest: +SKIP
    """
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.inputs import Inputs
    from strat_tools.stats.setup_search import reduce_setups

    try:  # classicfree is a known variant, but no army is common to its setups
        variant = parse_variant(variant, tuple(ARMIES), what="the explorer")
    except OptionError as exc:
        raise UsageError(str(exc), option="variant") from None
    inputs = Inputs.of(paths)
    names = inputs.given
    check_output(output, names)  # before reading: writable, and no input
    chosen = select if select is not None else GameFilter()
    run, counted = Run.of(run).counting()
    rows = reduce_setups(  # streamed: the page's rows of each batch, joined
        inputs, setup_rows, add_setup_rows, chosen, variant, run=run, from_table=False
    )
    counted.require(names, chosen)  # the reader's reasons, or the filters kept none
    if not len(rows.setup):
        kept = f" ({chosen.describe()})" if chosen.active else ""
        raise NothingToRead(f"no {variant} setups{kept} in {' '.join(names)}")
    source = printable(" ".join(names))  # names are data
    data = explorer_data(rows, variant, source=source)
    title = f"Setup explorer: {variant}, {source}"
    build = view_command(names, select)  # the same games, numbered the same way
    page = explorer_html(data, title=title, viewer=viewer, build=build)
    target = Path(output)
    encoded = page.encode("utf-8")
    write_file_atomically(target, encoded)
    return ExplorerSummary(
        target,
        variant,
        data["setups"],
        data["distinct"],
        len(data["games"]),
        len(encoded),
        counted.dropped,
    )
