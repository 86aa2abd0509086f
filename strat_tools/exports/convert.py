"""Convert game records between formats: any readable record in, one file per game out.

:func:`convert` reads every game under its inputs (any registered format, mixed), writes
each one in the target format (:mod:`strat_tools.core.record_formats`: ``xml`` or ``gsn``) under
that
format's own file name, and accounts for every input: written, or not converted with the
reason (unreadable, or holding what the target format cannot say, or named like a game
already written). Nothing is judged: an invalid but readable game is written as it reads,
with the reader's in-memory repairs applied.

The output is a ``.zip`` file or a folder, written atomically (a temporary file or folder
renamed into place at the end, so a failure leaves no partial output), and never over an
input: an output that is, contains or lies inside an input is refused before anything is
written. A character device or FIFO (``/dev/null``, a named pipe) gets the zip written
through, as every other ``-o`` does (:func:`strat_tools.io.output.atomic_output`); a folder
cannot be written to one. Reading and encoding run per batch through the input driver
(:func:`strat_tools.run.driver.map_records`: worker processes or Dask, one failing game
contained as a not-converted one), which also applies a
:class:`~strat_tools.run.filters.GameFilter`: the games it leaves out are neither written nor
"not converted"; the report counts them (``dropped``), as ``validate`` and ``export`` do.

>>> report = convert(["strados2014-4.zip"], "gsn-2014-4.zip", to="gsn")  # doctest: +SKIP
>>> report.line()  # doctest: +SKIP
'converted 623 of 623 games to gsn-2014-4.zip (gsn)'
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, cast

from strat_tools.core.errors import NothingReadable, OptionError
from strat_tools.core.record_formats import RecordFormat, format_named, strip_record_suffix
from strat_tools.core.records import GameRecord
from strat_tools.core.text import count_of
from strat_tools.formats.gravon_fields import is_game_name
from strat_tools.formats.readers import resolve, unreadable_reason
from strat_tools.formats.xml_writer import write_files
from strat_tools.io.output import OutputError, atomic_folder, check_output, refuse_overlap
from strat_tools.io.sources import Skipped
from strat_tools.run.batch_work import failure_of
from strat_tools.run.driver import map_records
from strat_tools.run.inputs import Inputs, InputsArg
from strat_tools.run.options import Run, RunArg
from strat_tools.run.tally import Tally

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.tables.game_ids import GameIds

UNREADABLE: Final = "unreadable: "
"""How the reason of an input that could not be read starts."""


@dataclass(frozen=True, slots=True)
class NotConverted:
    """An input game that was not written, and why."""

    source: str
    member: str | None
    reason: str

    @property
    def label(self) -> str:
        """``file`` or ``file!member``, for messages."""
        return self.source if self.member is None else f"{self.source}!{self.member}"


@dataclass(slots=True)
class ConvertReport:
    """What a conversion wrote: every input is either written or in ``failed``."""

    out: str
    to: str
    written: int = 0
    failed: list[NotConverted] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    """Entries met in the inputs that are not game files (not counted as games)."""
    dropped: int = 0
    """Games the filters left out: read, neither written nor counted as not converted."""

    @property
    def games(self) -> int:
        """Input games: written plus not converted."""
        return self.written + len(self.failed)

    @property
    def ok(self) -> bool:
        """True when every input game was written."""
        return not self.failed

    def line(self) -> str:
        """One summary line: ``'converted 9 of 10 games to out.zip (gsn); 1 not converted'``."""
        games = count_of(self.games, "game")
        text = f"converted {self.written:,} of {games} to {self.out} ({self.to})"
        if self.failed:
            text += f"; {len(self.failed):,} not converted"
        if self.dropped:
            text += f"; {self.dropped:,} left out by the filters"
        if self.skipped:
            n = len(self.skipped)
            text += f"; {count_of(n, 'non-game entry', 'non-game entries')} skipped"
        return text


Namer = Callable[[GameRecord], str]
Encoder = Callable[[GameRecord], bytes]


def writer_of(fmt: RecordFormat) -> tuple[Namer, Encoder]:
    """The (file name, encode) functions a registry entry names; ``ValueError`` if none."""
    if not fmt.writable:
        raise OptionError(f"the project cannot write {fmt.name} records")
    return cast(Namer, resolve(fmt.file_name)), cast(Encoder, resolve(fmt.encode))


def file_name_for(record: GameRecord, fmt: RecordFormat) -> str:
    """The name ``record`` is written under in format ``fmt``, keeping its game id.

    The id is the join key (``show --game``, ``--ids`` files, tables), so a game whose file
    name is a game name of either format keeps it and only the suffix changes
    (``classic-2014.5-2245.xml`` → ``classic-2014.5-2245.gsn`` and back; every reader reads
    both formats' names). Another record gets the format's own name, or the input's name
    with the format's suffix when it lacks what the format's names say (variant, period,
    number); a name that is not UTF-8 (its bytes carried as ``\\xNN``) gets ``_xNN``: a file
    name has no ``\\``.

    >>> from strat_tools.core.record_formats import format_named
    >>> record = GameRecord("strados2014-5.zip", "classic-2014.5-2245.xml", variant="classic")
    >>> file_name_for(record, format_named("gsn"))
    'classic-2014.5-2245.gsn'
    """
    stem = strip_record_suffix(record.name)
    if is_game_name(stem + fmt.suffix):
        return stem + fmt.suffix
    name_of, _encode = writer_of(fmt)
    try:
        return name_of(record)
    except ValueError:
        return (stem + fmt.suffix).replace("\\", "_")


@dataclass(frozen=True, slots=True)
class Encoded:
    """One input game encoded: where it came from, its file name and bytes."""

    source: str
    member: str | None
    name: str
    data: bytes


FAILED: Final = "internal.convert"
"""The error code of a game the conversion itself failed on (it is not converted)."""


@dataclass(frozen=True, slots=True)
class ConvertWork:
    """Encode a batch of records in format ``to`` (a
    :class:`~strat_tools.run.batch_work.RecordWork`; records are read without checks)."""

    to: str
    code: str = FAILED
    rules: str | None = None
    check: bool = False

    def __call__(self, records: Iterable[GameRecord]) -> list[Encoded | NotConverted]:
        fmt = format_named(self.to)
        _name_of, encode = writer_of(fmt)
        out: list[Encoded | NotConverted] = []
        for record in records:
            where = (record.source, record.member)
            failure = failure_of(record, self.code)
            if failure is not None:
                out.append(NotConverted(*where, failure))
            elif not record.readable:
                out.append(NotConverted(*where, UNREADABLE + unreadable_reason(record)))
            else:
                try:
                    out.append(Encoded(*where, file_name_for(record, fmt), encode(record)))
                except ValueError as exc:
                    out.append(NotConverted(*where, str(exc)))
        return out

    def combine(self, parts: list[list[Encoded | NotConverted]]) -> list[Encoded | NotConverted]:
        return [item for part in parts for item in part]

    def renumber(
        self, ids: GameIds, items: list[Encoded | NotConverted]
    ) -> list[Encoded | NotConverted]:
        return items  # files are named by the format; a repeated name is not converted


def _named_files(
    results: Iterable[list[Encoded | NotConverted]],
    report: ConvertReport,
    tally: Tally,
    inputs: list[str],
    select: GameFilter | None,
) -> Iterator[tuple[str, bytes]]:
    """The files to write, in order; failures, repeated names and bad names go to
    ``report``; :class:`~strat_tools.core.errors.NothingReadable` (before anything is put in
    place) when not one input could be read."""
    seen: set[str] = set()
    checked = ""
    for batch in results:
        for item in batch:
            if item.source != checked:  # one check per file (a zip's members share it)
                refuse_overlap([item.source], report.out, folder=True)  # a zip is taken too
                checked = item.source
            if isinstance(item, NotConverted):
                report.failed.append(item)
                continue
            name = item.name
            if name in seen or not name or "/" in name or "\\" in name or name.startswith("."):
                why = "another input is written" if name in seen else "not a plain file name:"
                report.failed.append(NotConverted(item.source, item.member, f"{why} {name!r}"))
                continue
            seen.add(name)
            report.written += 1
            yield name, item.data
    if not report.written and not tally.games:
        tally.require(inputs, select)  # the filters kept none: nothing put in place
    failures = report.failed
    unreadable = all(f.reason.startswith(UNREADABLE) for f in failures)
    if unreadable and not report.written and not tally.dropped:
        raise NothingReadable(inputs, [f.reason.removeprefix(UNREADABLE) for f in failures])


def writes_through(out: str | os.PathLike[str]) -> bool:
    """Whether ``out`` is a character device or FIFO (the zip is written through it).

    >>> writes_through("/dev/null"), writes_through("data/")
    (True, False)
    """
    try:
        mode = os.stat(out).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def convert(
    paths: InputsArg,
    out: str | os.PathLike[str],
    *,
    to: str,
    select: GameFilter | None = None,
    run: RunArg = None,
) -> ConvertReport:
    """Write every game under ``paths`` that ``select`` keeps in format ``to`` into
    ``out`` (a ``.zip``, a folder, or a device or FIFO that gets the zip).

    Raises ``ValueError`` (nothing written) for an unknown or read-only format, an output
    that overlaps an input, an existing non-empty output folder or a folder asked for on a
    device (``/dev/null/``); :class:`~strat_tools.core.errors.NothingReadable` (nothing
    written) when the inputs hold no readable game record at all.
    """
    inputs = Inputs.of(paths)
    fmt = format_named(to)
    writer_of(fmt)
    out_text = os.fspath(out)
    through = writes_through(out_text.rstrip("/") or out_text)
    if through and out_text.endswith("/"):
        raise OutputError(f"cannot write a folder of games to {out_text}: it is a device")
    folder = not (through or (out_text.lower().endswith(".zip") and not os.path.isdir(out_text)))
    check_output(out_text, inputs.given, folder=folder)
    report = ConvertReport(out=out_text, to=fmt.name)
    run, seen = Run.of(run).counting()
    results = map_records(
        ConvertWork(fmt.name), inputs, select=select, run=run, skipped=report.skipped
    )
    files = _named_files(results, report, seen, inputs.given, select)
    out_path = Path(out_text)
    if through or (out_path.suffix.lower() == ".zip" and not out_path.is_dir()):
        write_files(files, out_path, zip=True)  # through output.atomic_output
    else:
        with atomic_folder(out_path) as building:
            write_files(files, building, zip=False)
    report.dropped = seen.dropped
    return report
