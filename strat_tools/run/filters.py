"""Game filters: one definition of "which games", parsed and checked once, applied anywhere.

A :class:`GameFilter` holds every selection a command accepts (``--variant``,
``--period``, ``--plies``, ``--ending``, ``--winner``, ``--ids``, ``--pattern`` or
``--anywhere`` with ``--pattern-side``, ``--duplicates``). :meth:`GameFilter.parse` reads
the options' text and raises :class:`FilterError` (a ``ValueError``; the CLI turns it into
a usage error, exit 2) naming the option and what it expects. Then:

- :meth:`GameFilter.accepts` judges one :class:`~strat_tools.core.records.GameRecord`: top level
  and picklable with the filter, so it runs in the worker that read the record (the input
  driver's per-game ``select`` hook). Everything but ``duplicates``, which needs all games;
- :meth:`GameFilter.mask` judges the rows of a ``games`` table (with its ``setups`` for a
  pattern), duplicates included: ``exclude`` keeps the first game of each game fingerprint
  (:mod:`strat_tools.setups.identity`) in input order, ``only`` keeps every game whose fingerprint
  occurs more than once.

Periods are the ``games`` table's calendar months, ``YYYY-MM`` (Gravon's zip names count
months from 0: ``strados2014-0.zip`` holds 2014-01). A pattern matches a game when either
side's setup matches it (owner's view, :mod:`strat_tools.setups.patterns`; ``--anywhere``: a
smaller pattern at any offset), or with ``pattern_side`` when red's, blue's or both setups
do (:data:`PATTERN_SIDES`).

This module reads no files (``--ids FILE`` is read by :func:`read_id_file`) and writes none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from strat_tools.core.errors import OptionError, UsageError
from strat_tools.core.records import GameRecord, Termination, parse_variant
from strat_tools.io.sources import MAX_GAME_BYTES, SourceError, open_regular
from strat_tools.setups.identity import Codes, codes_of_strings, owner_codes, setup_array
from strat_tools.setups.patterns import AnywherePattern, PatternError, SetupPattern, parse_pattern
from strat_tools.tables.columns import to_frame

Duplicates = Literal["only", "exclude"]
DUPLICATES: Final = ("only", "exclude")
WINNERS: Final = {"red": 1, "blue": 2, "draw": 3}
"""``--winner`` names and the Gravon winner code each stands for (the games table says
``winner`` red/blue and ``draw``; a record says the code)."""
WINNER_NAMES: Final = {code: name for name, code in WINNERS.items()}

ENDING_NAMES: Final = {t.label: t.value for t in Termination if t is not Termination.UNKNOWN}
"""``--ending`` names (the ``termination`` labels of the games table) and their result type."""

PATTERN_SIDES: Final = ("red", "blue", "both")
"""``--pattern-side`` values: the games whose red, blue, or both setups match (default
either)."""

_PERIOD: Final = re.compile(r"^(\d{4})-(\d{1,2})$", re.ASCII)
_NUMBERED: Final = re.compile(r"(.+)#(\d+)")


class FilterError(UsageError):
    """A filter option that cannot be read: ``option`` names its flag (``'--plies'``),
    ``reason`` says why, and the message starts with the flag. A usage error: the filters
    are read before any work starts."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}", option=option)
        self.reason = message


@dataclass(frozen=True)
class GameFilter:
    """Which games to keep; ``None`` (or empty) fields select everything.

    >>> f = GameFilter.parse(variant="classic", period="2014-01:2014-06", plies="100:")
    >>> f.describe()
    'classic; periods 2014-01 to 2014-06; at least 100 plies'
    >>> GameFilter.parse(plies="9:3")
    Traceback (most recent call last):
    ...
    strat_tools.run.filters.FilterError: --plies: MIN 9 is larger than MAX 3
    """

    variants: frozenset[str] | None = None
    period: tuple[str | None, str | None] | None = None
    plies: tuple[int | None, int | None] | None = None
    endings: frozenset[int] | None = None
    winner: int | None = None
    ids: frozenset[str] | None = None
    pattern: SetupPattern | None = None
    mirror: bool = False
    pattern_side: str | None = None
    duplicates: Duplicates | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def parse(
        cls,
        *,
        variant: str | Sequence[str] | None = None,
        period: str | None = None,
        plies: str | None = None,
        ending: str | Sequence[str] | None = None,
        winner: str | None = None,
        ids: Iterable[str] | None = None,
        pattern: str | SetupPattern | None = None,
        mirror: bool = False,
        duplicates: str | None = None,
        anywhere: str | None = None,
        pattern_side: str | None = None,
    ) -> GameFilter:
        """Read the options' text; raise :class:`FilterError` for a bad value."""
        if pattern is not None and anywhere is not None:
            raise FilterError("--anywhere", "give --pattern or --anywhere, not both")
        side = _pattern_side(pattern_side)
        if side is not None and pattern is None and anywhere is None:
            raise FilterError("--pattern-side", "needs --pattern or --anywhere")
        made = cls(
            variants=_variants(variant),
            period=_period(period) if period else None,
            plies=_plies(plies) if plies else None,
            endings=_endings(ending),
            winner=_winner(winner),
            ids=frozenset(_clean_id(i) for i in ids) if ids is not None else None,
            pattern=_pattern(anywhere, "--anywhere") if anywhere is not None else _pattern(pattern),
            mirror=mirror,
            pattern_side=side,
            duplicates=_duplicates(duplicates),
        )
        if made.pattern is not None and made.variants:
            notes = tuple(why for v in sorted(made.variants) if (why := made.pattern.impossible(v)))
            made = replace(made, notes=notes)
        return made

    @property
    def active(self) -> bool:
        """Whether the filter leaves anything out at all."""
        return self != GameFilter()

    @property
    def per_game(self) -> GameFilter | None:
        """The part judged game by game (all but ``duplicates``; an id ``NAME#2`` as every
        game ``NAME``), for the input driver's ``select`` hook; ``None`` when that part keeps
        everything."""
        ids = self.ids
        if ids is not None and self.shared_names:
            ids = frozenset(i for i in ids if not _NUMBERED.fullmatch(i)) | self.shared_names
        part = replace(self, duplicates=None, notes=(), ids=ids)
        return part if part.active else None

    def __call__(self, record: GameRecord) -> bool:
        """:meth:`accepts`: a filter is the driver's per-game ``select`` predicate."""
        return self.accepts(record)

    def rows(self, tables: dict[str, Any]) -> npt.NDArray[np.bool_]:
        """:meth:`mask` over Arrow tables (``games``, ``setups``): the driver applies it to
        the batches of a dataset folder (a pattern reads the games' setup strings; the
        setups table only where those cannot say, classicfree)."""
        games = to_frame(tables["games"])
        needs_setups = self.pattern is not None and not self.strings_suffice(games)
        return self.mask(games, to_frame(tables["setups"]) if needs_setups else None)

    @staticmethod
    def strings_suffice(games: pd.DataFrame) -> bool:
        """Whether the ``red_setup``/``blue_setup`` strings hold every setup of ``games``
        (not where a setup has no 40-letter string: classicfree, or an older export)."""
        if "red_setup" not in games.columns or "has_setup" not in games.columns:
            return False
        has = games["has_setup"].astype("boolean").fillna(False).to_numpy(dtype=bool)
        strings = games["red_setup"].notna().to_numpy(dtype=bool) & games[
            "blue_setup"
        ].notna().to_numpy(dtype=bool)
        return bool((strings | ~has).all())

    def string_hits(self, games: pd.DataFrame) -> npt.NDArray[np.bool_]:
        """:meth:`game_hits` of each row of ``games`` through its setup strings (a game
        without a setup never matches)."""
        table = pa.Table.from_pandas(games[["red_setup", "blue_setup"]], preserve_index=False)
        red, red_known = codes_of_strings(table.column("red_setup"))
        blue, blue_known = codes_of_strings(table.column("blue_setup"))
        return self.game_hits(red, blue) & red_known & blue_known

    @property
    def needs_all_games(self) -> bool:
        """Whether judging a game needs the other games too (``duplicates``, or an id
        ``NAME#2``: which game of a shared name is the second is known once all are read)."""
        return self.duplicates is not None or bool(self.shared_names)

    @cached_property
    def shared_names(self) -> frozenset[str]:
        """The names of the listed ids that name a later game of a shared name: ``NAME``
        for ``NAME#2`` (the tables' id of the second game called ``NAME``, in input order)."""
        return frozenset(m[1] for i in self.ids or () if (m := _NUMBERED.fullmatch(i)))

    def listed(self, game_ids: pd.Series) -> npt.NDArray[np.bool_]:
        """Which of the run's ``game_ids`` the ``ids`` name: the id itself (``NAME#2``), or
        its file name (``NAME`` names every game of that name)."""
        if self.ids is None:
            return np.ones(len(game_ids), dtype=bool)
        ids = game_ids.astype(str)
        plain = ids.str.replace(r"#\d+$", "", regex=True)
        return (ids.isin(self.ids) | plain.isin(self.ids)).to_numpy(dtype=bool)

    def arguments(self) -> list[str]:
        """The filter options that select the same games, for a command a page can name
        (``strat-tools view PATHS ...``); ``--ids FILE`` stands for a listed set of ids.

        >>> GameFilter.parse(variant="classic", period="2014-01:", winner="red").arguments()
        ['--variant', 'classic', '--period', '2014-01:', '--winner', 'red']
        """
        args: list[str] = []
        if self.variants:
            args += ["--variant", ",".join(sorted(self.variants))]
        for flag, bounds in (("--period", self.period), ("--plies", self.plies)):
            if bounds:
                args += [flag, ":".join("" if b is None else str(b) for b in bounds)]
        if self.endings:
            args += ["--ending", ",".join(str(t) for t in sorted(self.endings))]
        if self.winner:
            args += ["--winner", WINNER_NAMES[self.winner]]
        if self.ids is not None:
            args += ["--ids", "FILE"]
        if self.pattern is not None:
            flag = "--anywhere" if isinstance(self.pattern, AnywherePattern) else "--pattern"
            args += [flag, "/".join(str(self.pattern).replace(" ", "").splitlines())]
        if self.pattern_side:
            args += ["--pattern-side", self.pattern_side]
        if self.duplicates:
            args += ["--duplicates", self.duplicates]
        return args

    def describe(self) -> str:
        """A short line for titles and messages: what the filter keeps."""
        parts = []
        if self.variants:
            parts.append(", ".join(sorted(self.variants)))
        if self.period:
            low, high = self.period
            parts.append(f"periods {low or 'first'} to {high or 'last'}")
        if self.plies:
            low_plies, high_plies = self.plies
            if high_plies is None:
                parts.append(f"at least {low_plies} plies")
            elif low_plies is None:
                parts.append(f"at most {high_plies} plies")
            else:
                parts.append(f"{low_plies} to {high_plies} plies")
        if self.endings:
            names = {v: k for k, v in ENDING_NAMES.items()}
            parts.append(
                "ending " + " or ".join(names.get(t, str(t)) for t in sorted(self.endings))
            )
        if self.winner:
            parts.append("won by " + {1: "red", 2: "blue", 3: "nobody (draw)"}[self.winner])
        if self.ids is not None:
            parts.append(f"{len(self.ids):,} listed ids")
        if self.pattern is not None:
            kind = " anywhere" if isinstance(self.pattern, AnywherePattern) else ""
            whose = f"{self.pattern_side} " if self.pattern_side else ""
            noun = "setups" if self.pattern_side == "both" else "setup"
            mirrored = " or its mirror" if self.mirror else ""
            parts.append(f"{whose}{noun} pattern{kind}{mirrored}")
        if self.duplicates:
            parts.append(
                {"only": "duplicated games only", "exclude": "no duplicate games"}[self.duplicates]
            )
        return "; ".join(parts) if parts else "all games"

    def accepts(self, record: GameRecord) -> bool:
        """Whether one record passes (every field but ``duplicates``)."""
        if self.variants and record.variant not in self.variants:
            return False
        if self.period:
            if record.year is None or record.month is None:
                return False
            if not _in_period(f"{record.year:04d}-{record.month:02d}", self.period):
                return False
        if self.plies and not _in_range(record.plies, self.plies):
            return False
        result = record.result
        if self.endings is not None and (result is None or result.type not in self.endings):
            return False
        if self.winner is not None and (result is None or result.winner != self.winner):
            return False
        if self.ids is not None and record.game_id not in self.ids:
            return False
        if self.pattern is not None:
            if record.setup is None or len(record.setup) != 100:
                return False
            red, blue = owner_codes([record.setup])
            return bool(self.game_hits(red, blue)[0])
        return True

    def mask(
        self, games: pd.DataFrame, setups: pd.DataFrame | None = None
    ) -> npt.NDArray[np.bool_]:
        """Which rows of a ``games`` frame pass; ``setups`` is needed for a pattern."""
        keep = np.ones(len(games), dtype=bool)
        if self.variants:
            keep &= games["variant"].isin(self.variants).to_numpy(dtype=bool)
        if self.period:
            period = games["period"].astype("string")
            low, high = self.period
            known = period.notna().to_numpy(dtype=bool)
            keep &= known
            if low:
                keep &= (period >= low).fillna(False).to_numpy(dtype=bool)
            if high:
                keep &= (period <= high).fillna(False).to_numpy(dtype=bool)
        if self.plies:
            keep &= _range_mask(games["plies"].to_numpy(dtype=np.int64), self.plies)
        if self.endings is not None:
            keep &= games["result_type"].isin(self.endings).fillna(False).to_numpy(dtype=bool)
        if self.winner is not None:
            name = WINNER_NAMES[self.winner]
            won = games["draw"] if name == "draw" else games["winner"] == name
            keep &= pd.Series(won).fillna(False).to_numpy(dtype=bool)
        if self.ids is not None:
            keep &= self.listed(games["game_id"])
        if self.pattern is not None:
            if setups is None and not self.strings_suffice(games):
                raise ValueError("a pattern filter needs the setups table")
            if setups is None:
                keep &= self.string_hits(games)
            else:
                keep &= games["game_id"].isin(self.pattern_games(setups)).to_numpy(dtype=bool)
        if self.duplicates is not None:
            keep &= duplicate_mask(games["game_fingerprint"], self.duplicates)
        return keep

    def game_hits(self, red: Codes, blue: Codes) -> npt.NDArray[np.bool_]:
        """Per game (row ``i`` of red's and blue's setup codes): whether the pattern
        matches the setups ``pattern_side`` asks for (either side's by default)."""
        if self.pattern is None:
            return np.ones(len(red), dtype=bool)
        red_hit = self.pattern.match(red, mirror=self.mirror)
        blue_hit = self.pattern.match(blue, mirror=self.mirror)
        if self.pattern_side == "red":
            return red_hit
        if self.pattern_side == "blue":
            return blue_hit
        if self.pattern_side == "both":
            return red_hit & blue_hit
        return red_hit | blue_hit

    def pattern_games(self, setups: pd.DataFrame) -> set[str]:
        """The ids of the games whose setups the pattern matches (see :meth:`game_hits`)."""
        if self.pattern is None:
            return set()
        found = setup_array(setups)
        hit = self.pattern.match(found.codes, mirror=self.mirror)
        sides = np.asarray(found.side, dtype=object)
        if self.pattern_side in ("red", "blue"):
            hit &= sides == self.pattern_side
        if self.pattern_side == "both":
            ids = pd.Series(found.game_id[hit])
            return set(ids[ids.duplicated(keep=False)].tolist())
        return set(found.game_id[hit].tolist())


def duplicate_mask(fingerprints: pd.Series, duplicates: Duplicates) -> npt.NDArray[np.bool_]:
    """``exclude``: the first game of each fingerprint (and games without one); ``only``:
    every game whose fingerprint occurs more than once."""
    known = fingerprints.notna().to_numpy(dtype=bool)
    if duplicates == "exclude":
        return ~fingerprints.duplicated(keep="first").to_numpy(dtype=bool) | ~known
    return fingerprints.duplicated(keep=False).to_numpy(dtype=bool) & known


def read_id_file(path: str | Path) -> list[str]:
    """Game ids from a file, one a line (blank lines and ``#`` comments, at a line's start
        or after a space, skipped: ``NAME#2`` is an id; a trailing
        ``.xml`` is dropped; a UTF-8 byte-order mark, as Windows editors write, is not part of
        the first id). Raises :class:`FilterError` when it cannot be read, or when a line holds a
    control character (no game id does: a binary file is not a list of ids): only a regular
        file of at most ``MAX_GAME_BYTES`` is read (a FIFO never blocks, ``/dev/zero`` is never
        read), as for game records."""
    try:
        handle, size = open_regular(str(path))
        with handle:
            if size > MAX_GAME_BYTES:
                raise SourceError(f"{size:,} bytes, more than {MAX_GAME_BYTES:,}")
            text = handle.read(MAX_GAME_BYTES).decode("utf-8-sig")
    except (SourceError, OSError, UnicodeDecodeError) as exc:
        raise FilterError("--ids", f"cannot read {path}: {exc}") from None
    # A comment starts a line or follows a space: NAME#2 is an id (the second game NAME).
    ids = [re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip() for line in text.splitlines()]
    for number, game_id in enumerate(ids, 1):
        if not game_id.isprintable():  # a game id is printable text: a binary file is no list
            shown = repr(game_id) if len(game_id) <= 40 else f"{game_id[:37]!r}..."
            raise FilterError("--ids", f"{path} line {number}: {shown} is not a game id")
    return [i for i in ids if i]


def _clean_id(game_id: str) -> str:
    text = game_id.strip()
    return text[:-4] if text.lower().endswith(".xml") else text


def _variants(variant: str | Sequence[str] | None) -> frozenset[str] | None:
    if not variant:
        return None
    names = [v.strip() for v in ([variant] if isinstance(variant, str) else variant)]
    names = [n for part in names for n in part.split(",") if n.strip()]
    try:
        # A player's spelling, as every --variant takes it: any case, - or _ for the space.
        return frozenset(parse_variant(name) for name in names)
    except OptionError as exc:
        raise FilterError("--variant", str(exc)) from None


def _month(text: str) -> str:
    found = _PERIOD.match(text.strip())
    if found is None or not 1 <= int(found[2]) <= 12:
        raise FilterError("--period", f"{text!r} is not a month like 2014-01 (months 1..12)")
    return f"{int(found[1]):04d}-{int(found[2]):02d}"


def _period(text: str) -> tuple[str | None, str | None]:
    low, sep, high = text.partition(":")
    if not sep:
        month = _month(low)
        return month, month
    bounds = (_month(low) if low.strip() else None, _month(high) if high.strip() else None)
    if bounds == (None, None):
        raise FilterError("--period", "give FROM:TO, FROM: or :TO, like 2014-01:2014-06")
    if bounds[0] and bounds[1] and bounds[0] > bounds[1]:
        raise FilterError("--period", f"FROM {bounds[0]} is later than TO {bounds[1]}")
    return bounds


def _plies(text: str) -> tuple[int | None, int | None]:
    low, sep, high = text.partition(":")
    if not sep:
        raise FilterError("--plies", f"{text!r}: give MIN:MAX, MIN: or :MAX, like 40:200")
    try:
        bounds = (int(low) if low.strip() else None, int(high) if high.strip() else None)
    except ValueError:
        raise FilterError("--plies", f"{text!r}: MIN and MAX must be whole numbers") from None
    if bounds == (None, None):
        raise FilterError("--plies", "give MIN:MAX, MIN: or :MAX, like 40:200")
    if any(b is not None and b < 0 for b in bounds):
        raise FilterError("--plies", f"{text!r}: plies cannot be negative")
    if bounds[0] is not None and bounds[1] is not None and bounds[0] > bounds[1]:
        raise FilterError("--plies", f"MIN {bounds[0]} is larger than MAX {bounds[1]}")
    return bounds


def _endings(ending: str | Sequence[str] | None) -> frozenset[int] | None:
    if not ending:
        return None
    parts = [ending] if isinstance(ending, str) else list(ending)
    names = [p.strip().lower().replace("-", "_") for part in parts for p in part.split(",")]
    types = set()
    for name in filter(None, names):
        if name.isascii() and name.isdigit() and int(name) in ENDING_NAMES.values():
            types.add(int(name))
        elif name in ENDING_NAMES:
            types.add(ENDING_NAMES[name])
        else:
            choices = ", ".join(f"{v} {k}" for k, v in ENDING_NAMES.items())
            raise FilterError("--ending", f"unknown ending {name!r}; choose from {choices}")
    return frozenset(types)


def _winner(winner: str | None) -> int | None:
    if not winner:
        return None
    if winner.strip().lower() not in WINNERS:
        raise FilterError("--winner", f"unknown winner {winner!r}; choose red, blue or draw")
    return WINNERS[winner.strip().lower()]


def _pattern(pattern: str | SetupPattern | None, option: str = "--pattern") -> SetupPattern | None:
    if pattern is None or not isinstance(pattern, str):
        return pattern
    try:
        return parse_pattern(pattern, anywhere=option == "--anywhere")
    except PatternError as exc:
        raise FilterError(option, str(exc)) from None


def _pattern_side(side: str | None) -> str | None:
    if not side:
        return None
    if side.strip().lower() not in PATTERN_SIDES:
        raise FilterError("--pattern-side", f"{side!r}: choose red, blue or both")
    return side.strip().lower()


def _duplicates(duplicates: str | None) -> Duplicates | None:
    if not duplicates:
        return None
    if duplicates == "only":
        return "only"
    if duplicates == "exclude":
        return "exclude"
    raise FilterError("--duplicates", f"{duplicates!r}: choose only or exclude")


def _in_range(value: int, bounds: tuple[int | None, int | None]) -> bool:
    low, high = bounds
    return (low is None or value >= low) and (high is None or value <= high)


def _range_mask(
    values: npt.NDArray[np.int64], bounds: tuple[int | None, int | None]
) -> npt.NDArray[np.bool_]:
    low, high = bounds
    keep = np.ones(len(values), dtype=bool)
    if low is not None:
        keep &= values >= low
    if high is not None:
        keep &= values <= high
    return keep


def _in_period(period: str, bounds: tuple[str | None, str | None]) -> bool:
    low, high = bounds
    return (low is None or period >= low) and (high is None or period <= high)
