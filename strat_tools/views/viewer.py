"""The game viewer: one self-contained HTML page to step through games in a browser.

:func:`viewer_html` turns replayed records into one page (no network, no external files:
its script and style come from ``strat_tools/assets`` and are inlined). Each game travels
as compact JSON: the setup, the moves, and per ply only the squares whose board code or
knowledge flags changed (from :func:`~strat_tools.engine.information.knowledge.knowledge`), so the
script rebuilds every ply's true board and each side's knowledge without knowing the
rules. :func:`write_viewer` reads paths through the input driver (a
:class:`~strat_tools.run.filters.GameFilter` picks the games: a first pass without replays
chooses them, then only the first ones the page can hold are replayed, in the workers) and
writes the page atomically; ``strat-tools view`` calls it.

The page exposes its state on the element with id ``board``: ``data-ply``, ``data-view``
(``all``, ``red``, ``blue``), ``data-field`` (the true position as a Gravon field string)
and, in a side view, ``data-known`` (the same with each piece that side cannot identify
written ``?``). Game names and player names are data: the JSON is escaped for a script
element and the script inserts them as text only.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from strat_tools.core.board import LAKES, Side
from strat_tools.core.errors import NothingKept, NothingToRead
from strat_tools.core.pieces import CLASSIC_LABELS, CODE_LETTERS, KIND_LABELS, MODERN_LABELS
from strat_tools.core.records import GameRecord
from strat_tools.core.rules import check_rules, resolve_rules
from strat_tools.core.text import count_of, printable
from strat_tools.core.text import script_json as _script_json
from strat_tools.engine.events.event_kinds import EVENT_KINDS
from strat_tools.engine.events.key_events import game_events
from strat_tools.engine.information.knowledge import KNOWN, LONG, MOVED, RESCUED, REVEALED
from strat_tools.engine.replays.replay import Replay, replay_safely
from strat_tools.io.output import write_file_atomically
from strat_tools.run.batch_work import failure_of
from strat_tools.run.inputs import Inputs
from strat_tools.run.options import Run, RunArg, check_select
from strat_tools.setups.strings import format_setup
from strat_tools.tables.game_ids import GameIds
from strat_tools.views.chances import game_chances
from strat_tools.views.page_deltas import changes
from strat_tools.views.svg import STYLE
from strat_tools.views.viewer_models import MOVE_SCALE, ViewerModels, game_models

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.tables.game_ids import GameIds

__all__ = [
    "MAX_GAMES",
    "MAX_PAGE_BYTES",
    "MAX_VIEW_PLIES",
    "ViewerSummary",
    "game_data",
    "notebook_html",
    "view_command",
    "viewer_html",
    "write_viewer",
]

MAX_GAMES: Final = 500
"""Most games one page holds by default (a page stays quick to open)."""
MAX_PAGE_BYTES: Final = 25_000_000
"""The page's game data never passes this many bytes: a game that would take it past is
left out (and said to be)."""
MAX_VIEW_PLIES: Final = 100_000
"""A game recorded with more plies than this is left out of the page before it is replayed
(said to be, with its length): its page data would pass 2.5 MB (about 27 bytes a ply, a
legal game of 1,000,000 plies made 27 MB) and its replay, boards and deltas in memory,
would cost far more (1.4 GB for that game), where the longest archive game has a few
thousand plies."""

VIEWS: Final = ("all", "red", "blue")


def game_data(
    record: GameRecord, result: Replay | None, models: ViewerModels | None = None
) -> dict[str, Any]:
    """One game as the page's script reads it (plain JSON types only); text from the file
    (names, players, reasons) with control and bidi characters shown escaped
    (:func:`strat_tools.core.text.printable`), as in every other output. ``models``: add
    what the shipped models say of it (:func:`~strat_tools.views.viewer_models.game_models`:
    each side's likely moves and beliefs)."""
    events = game_events(result, record)
    data: dict[str, Any] = {
        "id": printable(record.game_id),
        "variant": printable(record.variant),
        "players": [printable(name) for name in record.players],
        "rules": result.rules.name if result is not None else "",
        "plies": 0,
        "recorded": record.plies,
        "end": printable(events["detail"][-1]),
        "events": [
            [ply, kind, printable(detail)]
            for ply, kind, detail in zip(
                events["ply"], events["kind"], events["detail"], strict=True
            )
        ],
    }
    if result is None or record.setup is None or len(record.setup) != 100:
        data["field"] = ""
        return data
    know = result.knowledge()
    n = result.plies_replayed
    data.update(game_chances(result, know, record.variant))
    if models is not None:
        data.update(game_models(result, know, record.variant, *models.load()))
    data.update(
        plies=n,
        field="".join(CODE_LETTERS[c] for c in record.setup),
        setups=[_owner_setup(record.setup, side) for side in (Side.RED, Side.BLUE)],
        moves=[s * 100 + t for s, t in zip(record.sources[:n], record.targets[:n], strict=True)],
        squares=changes(know.boards, know.flags),
        captured=changes(know.captured),
        unseen=changes(know.unseen),
        unseen0=know.unseen[0].ravel().tolist(),
        lostUnseen=changes(know.captured_unseen),
        armyShown=know.army_shown,
        rescues={
            str(ply): rescue.square
            for ply, rescue in record.rescues.items()
            if ply in result.rescued and rescue.square is not None
        },
        battles={
            str(i + 1): [
                result.movers[i],
                result.defenders[i],
                result.outcomes[i],
                result.revealed[i],
            ]
            for i in range(n)
            if result.defenders[i]
        },
    )
    return data


def _owner_setup(setup: Sequence[int], side: Side) -> str:
    """``side``'s setup in the ``owner`` encoding (as ``setups --setup-format owner``
    writes it), or ``""`` when a piece stands outside its four rows (classicfree)."""
    try:
        return format_setup(setup, side, "owner")
    except ValueError:
        return ""


def page_keys(ids: Sequence[str]) -> list[str]:
    """A unique id per game on one page, spelled as the tables spell a second game of the
    same name (``NAME#2``, then ``#3``: :class:`~strat_tools.tables.game_ids.GameIds`), so
    a link opens that game and ``view --game NAME#2`` builds a page of it.

    >>> page_keys(["a", "b", "a", "a#2"])
    ['a', 'b', 'a#2', 'a#2#2']
    """
    claimed = GameIds()
    return [claimed.claim(game_id) for game_id in ids]


def view_command(paths: Sequence[str], select: GameFilter | None = None) -> str:
    """The shell command that writes a viewer of the games of ``paths`` that ``select``
    keeps, numbered as the run numbers them (add ``--game ID`` for one game).

    >>> view_command(["a b.zip"])
    "strat-tools view 'a b.zip'"
    """
    args = select.arguments() if select is not None else []
    return shlex.join(["strat-tools", "view", *(printable(p) for p in paths), *args])


def _asset(name: str) -> str:
    return files("strat_tools.views").joinpath("assets", name).read_text(encoding="utf-8")


def viewer_html(
    games: Sequence[dict[str, Any]],
    *,
    title: str = "Stratego game viewer",
    numbering: str = "modern",
    note: str = "",
    spoilers: bool = True,
    build: str = "",
) -> str:
    """The page for ``games`` (each from :func:`game_data`); ``spoilers=False`` keeps the
    result and the events that give the outcome away hidden until the last ply (the page's
    ``#spoilers=0`` does the same). A link to a game the page lacks says so, naming
    ``build`` (the command that made the page, without ``--game``) with ``--game ID``."""
    keys = page_keys([str(game["id"]) for game in games])  # unique already from a run
    games = [{**game, "id": key} for game, key in zip(games, keys, strict=True)]
    config = {
        "kinds": list(KIND_LABELS),
        "spoilers": bool(spoilers),
        "style": STYLE,
        "labels": {"modern": list(MODERN_LABELS), "classic": list(CLASSIC_LABELS)},
        "numbering": numbering if numbering in ("modern", "classic") else "modern",
        "flags": {
            "moved": MOVED,
            "revealed": REVEALED,
            "long": LONG,
            "known": KNOWN,
            "rescued": RESCUED,
        },
        "letters": CODE_LETTERS,
        "eventKinds": EVENT_KINDS,
        "views": list(VIEWS),
        "lakes": sorted(LAKES),
        "note": note,
        "build": build,
        "moveScale": MOVE_SCALE,
    }
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_asset('viewer.css')}</style></head><body>"
        f"{_asset('viewer.html')}"
        f'<script type="application/json" id="viewer-config">{_script_json(config)}</script>'
        f'<script type="application/json" id="viewer-games">{_script_json(list(games))}</script>'
        f"<script>{_asset('shell.js')}\n{_asset('viewer_parts.js')}\n{_asset('viewer_models.js')}</script>"
        f"<script>{_asset('viewer.js')}</script></body></html>\n"
    )


@dataclass(slots=True)
class ViewerSummary:
    """What :func:`write_viewer` put on the page, and what it left out."""

    path: Path
    games: list[str] = field(default_factory=list)
    left_out: int = 0
    """Games past the page's bound (``limit`` games or :data:`MAX_PAGE_BYTES`)."""
    bytes: int = 0
    dropped: int = 0
    """Games the filters left out (not on the page, not counted in ``left_out``)."""
    too_long: list[str] = field(default_factory=list)
    """``id (N plies)`` of the games left out as too long for a page (:data:`MAX_VIEW_PLIES`,
    or alone past :data:`MAX_PAGE_BYTES`); counted in ``left_out`` too."""

    def line(self) -> str:
        """One line for the user: ``'3 games in game.html (41 KB)'``."""
        count = len(self.games)
        text = f"{count_of(count, 'game')} in {self.path} ({self.bytes // 1024:,} KB)"
        if self.too_long:
            text += f"; {too_long_note(self.too_long)}"
        if self.left_out > len(self.too_long):
            more = self.left_out - len(self.too_long)
            text += f"; {more:,} more left out (the page holds at most the first ones)"
        if self.dropped:
            text += f"; {self.dropped:,} left out by the filters"
        return text


def too_long_note(games: Sequence[str]) -> str:
    """What the user reads about the games left out as too long for one page."""
    shown = ", ".join(games[:3]) + (f" and {len(games) - 3:,} more" if len(games) > 3 else "")
    return (
        f"{count_of(len(games), 'game')} left out as too long for one page ({shown}; a page "
        f"holds games of up to {MAX_VIEW_PLIES:,} plies and {MAX_PAGE_BYTES // 1_000_000} MB)"
    )


def _check_limit(limit: object) -> None:
    """A page holds at least one game: 0 would write an empty, broken page and a negative
    slice would silently drop games from the end."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a whole number of games, 1 or more; got {limit!r}")


FAILED: Final = "internal.viewer"
"""The error code of a game the viewer failed to encode (its entry says so)."""


@dataclass(frozen=True, slots=True)
class ViewerWork:
    """The page data of a batch of records (a :class:`~strat_tools.run.batch_work.RecordWork`)."""

    rules: str | None = "auto"
    code: str = FAILED
    check: bool = True
    models: ViewerModels | None = None

    def __call__(self, records: Iterable[GameRecord]) -> list[dict[str, Any]]:
        out = []
        for record in records:
            failure = failure_of(record, self.code)
            if record.plies > MAX_VIEW_PLIES:  # never replayed: bounded memory, a bounded page
                data = {"id": printable(record.game_id), "too_long": record.plies}
            elif failure is not None:
                data = game_data(record, None)
                data["end"] = printable(f"not replayed: {failure}")
            else:
                replayed = record.readable
                result = (
                    replay_safely(record, resolve_rules(self.rules, record)) if replayed else None
                )
                data = game_data(record, result, self.models)
            data["unit"] = [record.source, record.member]  # where: named by the selection
            out.append(data)
        return out

    def combine(self, parts: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
        return [game for part in parts for game in part]

    def renumber(self, ids: GameIds, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return games  # the page names games as their files do


def write_viewer(
    paths: str | Iterable[str],
    output: str | os.PathLike[str],
    *,
    game_id: str | None = None,
    select: GameFilter | None = None,
    rules: str | None = "auto",
    numbering: str = "modern",
    limit: int = MAX_GAMES,
    run: RunArg = None,
    spoilers: bool = True,
    models: ViewerModels | None = None,
) -> ViewerSummary:
    """Read ``paths``, keep the games ``select`` (and ``game_id``) keeps, up to
    ``limit`` of them and :data:`MAX_PAGE_BYTES`, and write the viewer page to ``output``
    atomically (``spoilers=False``: the result stays hidden until the last ply; ``models``:
    the shipped models' likely moves and beliefs on the page, computed in the workers,
    ``view --with-model``). Raises
    ``ValueError`` for a ``limit`` below 1, :class:`~strat_tools.core.errors.NothingToRead` when
    no game is found
    (:class:`~strat_tools.core.errors.NothingReadable` when not one input could be read).

    >>> write_viewer("data/", "game.html", game_id="classic-2026.10-1")  # doctest: +SKIP
    """
    from dataclasses import replace

    from strat_tools.run.driver import map_records
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.selection import Selection, select_games
    from strat_tools.run.tally import Tally

    _check_limit(limit)
    check_rules(rules)  # before the selecting pass: the driver's own check comes after it
    check_select(select)
    inputs = Inputs.of(paths)
    names = inputs.given
    chosen = select if select is not None else GameFilter()
    if game_id is not None:  # NAME#2, the second game NAME, as the filter reads --ids
        wanted = frozenset({game_id})
        chosen = replace(chosen, ids=wanted if chosen.ids is None else chosen.ids & wanted)
    tally = Tally()
    run = Run.of(run)
    try:  # nothing readable, or the filters kept none: as every command says it
        found = select_games(inputs, chosen, run=run.with_tally(tally))
    except NothingKept:
        if game_id is None:
            raise
        import pandas as pd

        found = Selection(pd.DataFrame(), tally.dropped, chosen)  # no such game: said below
    if game_id is not None and len(found.games):  # the id itself, not every game of the name
        found = Selection(found.games[found.games["game_id"] == game_id], found.total, chosen)
    if not len(found.games):
        which = f"no game {game_id}" if game_id else "no game records"
        kept = f" ({chosen.describe()})" if chosen.active and not game_id else ""
        raise NothingToRead(f"{which}{kept} in {' '.join(names)}")
    first = Selection(found.games.iloc[:limit], found.total, chosen)
    left_out = len(found.games) - len(first.games)
    games: list[dict[str, Any]] = []
    too_long: list[str] = []
    size = 0
    # The run's ids (NAME#2 for a second file NAME), as the tables and the explorer say.
    where = [(unit.source, unit.member) for unit in first.units()]
    named = dict(zip(where, first.game_ids, strict=True))
    for batch in map_records(
        ViewerWork(rules, models=models), inputs, select=first.select, run=run
    ):
        for game in batch:
            source, member = game.pop("unit")
            game["id"] = printable(named.get((source, member), str(game["id"])))
            length = 0 if "too_long" in game else len(_script_json(game))
            if "too_long" in game or (not games and length > MAX_PAGE_BYTES):
                plies = game.get("too_long", game.get("plies", 0))
                too_long.append(f"{game['id']} ({plies:,} plies)")
                left_out += 1
            elif size + length > MAX_PAGE_BYTES:  # the bound holds, whatever the games
                left_out += 1
            else:
                size += length
                games.append(game)
    if not games:
        raise NothingToRead(f"nothing to show: {too_long_note(too_long)}")
    title = games[0]["id"] if len(games) == 1 else f"{len(games):,} Stratego games"
    note = f"{left_out} more games were left out of this page." if left_out else ""
    build = view_command(names, select)
    text = viewer_html(
        games, title=str(title), numbering=numbering, note=note, spoilers=spoilers, build=build
    )
    target = Path(output)
    data = text.encode("utf-8")
    write_file_atomically(target, data)
    ids = [str(g["id"]) for g in games]
    return ViewerSummary(target, ids, left_out, len(data), tally.dropped, too_long)


def notebook_html(
    item: GameRecord | Replay,
    *,
    height: int = 900,
    spoilers: bool = True,
    models: ViewerModels | None = None,
) -> str:
    """A stepping viewer of one game for Jupyter: the viewer page in an ``iframe`` as wide
    as the cell (the page reflows to any width; its links stay in the page's memory where
    the notebook forbids changing the frame's address); ``models`` as :func:`game_data`."""
    result: Replay | None
    if isinstance(item, Replay):
        record, result = item.record, item
    else:
        record = item
        result = replay_safely(record) if record.readable else None
    page = viewer_html([game_data(record, result, models)], title=record.game_id, spoilers=spoilers)
    return (
        f'<iframe srcdoc="{escape(page, quote=True)}" style="width:100%;max-width:100%;'
        f'box-sizing:border-box;height:{height}px;border:1px solid #ccc" '
        f'title="{escape(record.game_id, quote=True)}"></iframe>'
    )
