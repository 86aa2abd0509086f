"""Convert game records between formats: any readable record in, one file per game out.

:func:`convert` reads every game under its inputs (any registered format, mixed), writes
each one in the target format (:mod:`strat_tools.record_formats`: ``xml`` or ``gsn``) under that
format's own file name, and accounts for every input: written, or not converted with the
reason (unreadable, or holding what the target format cannot say, or named like a game
already written). Nothing is judged: an invalid but readable game is written as it reads,
with the reader's in-memory repairs applied.

The output is a ``.zip`` file or a folder, written atomically (a temporary file or folder
renamed into place at the end, so a failure leaves no partial output), and never over an
input: an output that is, contains or lies inside an input is refused before anything is
written. Reading and encoding run per batch in worker processes (``jobs``) or on Dask.

>>> report = convert(["strados2014-4.zip"], "gsn-2014-4.zip", to="gsn")  # doctest: +SKIP
>>> report.line()  # doctest: +SKIP
'converted 623 of 623 games to gsn-2014-4.zip (gsn)'
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Final, cast

from strat_tools.errors import OptionError
from strat_tools.output import atomic_folder, refuse_overlap
from strat_tools.pipeline import ProgressCallback, map_batches
from strat_tools.readers import NothingReadable, read_units, resolve, unreadable_reason
from strat_tools.record_formats import RecordFormat, format_named, strip_record_suffix
from strat_tools.records import GameRecord
from strat_tools.sources import Paths, Skipped, Unit, iter_units, path_list
from strat_tools.writer import write_files

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
        text = f"converted {self.written} of {self.games} games to {self.out} ({self.to})"
        if self.failed:
            text += f"; {len(self.failed)} not converted"
        if self.skipped:
            n = len(self.skipped)
            text += f"; {n} non-game {'entry' if n == 1 else 'entries'} skipped"
        return text


Namer = Callable[[GameRecord], str]
Encoder = Callable[[GameRecord], bytes]


def writer_of(fmt: RecordFormat) -> tuple[Namer, Encoder]:
    """The (file name, encode) functions a registry entry names; ``ValueError`` if none."""
    if not fmt.writable:
        raise OptionError(f"the project cannot write {fmt.name} records")
    return cast(Namer, resolve(fmt.file_name)), cast(Encoder, resolve(fmt.encode))


def file_name_for(record: GameRecord, fmt: RecordFormat) -> str:
    """The format's own name for ``record``, or the input's name with the format's suffix
    when the record lacks what the format's names say (variant, period, number); a name
    that is not UTF-8 (its bytes carried as ``\\xNN``) gets ``_xNN``: a file name has no ``\\``."""
    name_of, _encode = writer_of(fmt)
    try:
        return name_of(record)
    except ValueError:
        return (strip_record_suffix(record.name) + fmt.suffix).replace("\\", "_")


def encode_units(units: list[Unit], to: str) -> list[tuple[str, bytes] | NotConverted]:
    """Read one batch of units and encode each game in format ``to`` (runs in a worker)."""
    fmt = format_named(to)
    _name_of, encode = writer_of(fmt)
    out: list[tuple[str, bytes] | NotConverted] = []
    for unit, record in zip(units, read_units(units, check=False), strict=True):
        if not record.readable:
            reason = unreadable_reason(record)
            out.append(NotConverted(unit.source, unit.member, UNREADABLE + reason))
            continue
        try:
            out.append((file_name_for(record, fmt), encode(record)))
        except ValueError as exc:
            out.append(NotConverted(unit.source, unit.member, str(exc)))
    return out


def _named_files(
    results: Iterable[list[tuple[str, bytes] | NotConverted]],
    units: deque[Unit],
    report: ConvertReport,
    inputs: list[str],
) -> Iterator[tuple[str, bytes]]:
    """The files to write, in order; failures, repeated names and bad names go to ``report``;
    :class:`~strat_tools.readers.NothingReadable` (before anything is put in place) when not
    one input could be read."""
    seen: set[str] = set()
    checked = ""
    for batch in results:
        for item in batch:
            unit = units.popleft()  # the units in flight, in order: maps results to inputs
            if unit.source != checked:  # one check per file (a zip's members share it)
                refuse_overlap([unit.source], report.out)
                checked = unit.source
            if isinstance(item, NotConverted):
                report.failed.append(item)
                continue
            name, data = item
            if name in seen or not name or "/" in name or "\\" in name or name.startswith("."):
                why = "another input is written" if name in seen else "not a plain file name:"
                report.failed.append(NotConverted(unit.source, unit.member, f"{why} {name!r}"))
                continue
            seen.add(name)
            report.written += 1
            yield name, data
    if all(f.reason.startswith(UNREADABLE) for f in report.failed) and not report.written:
        # Raised before the output is put in place: nothing is written.
        raise NothingReadable(inputs, [f.reason.removeprefix(UNREADABLE) for f in report.failed])


def convert(
    paths: Paths,
    out: str | os.PathLike[str],
    *,
    to: str,
    jobs: int | None = None,
    dask: bool = False,
    dask_address: str | None = None,
    progress: ProgressCallback | None = None,
) -> ConvertReport:
    """Write every game under ``paths`` in format ``to`` into ``out`` (a ``.zip`` or a folder).

    Raises ``ValueError`` (nothing written) for an unknown or read-only format, an output
    that overlaps an input or an existing non-empty output folder;
    :class:`~strat_tools.readers.NothingReadable` (nothing written) when the inputs hold no
    readable game record at all.
    """
    inputs = path_list(paths)
    fmt = format_named(to)
    writer_of(fmt)
    out_text = os.fspath(out)
    refuse_overlap(inputs, out_text)
    report = ConvertReport(out=out_text, to=fmt.name)
    stream = iter_units(inputs, skipped=report.skipped)
    first = next(stream, None)
    if first is None:
        raise NothingReadable(inputs)
    units: deque[Unit] = deque()

    def remembered() -> Iterator[Unit]:
        for unit in chain([first], stream):
            units.append(unit)
            yield unit

    results = map_batches(
        partial(encode_units, to=fmt.name),
        remembered(),
        jobs=jobs,
        dask=dask,
        dask_address=dask_address,
        progress=progress,
    )
    files = _named_files(results, units, report, inputs)
    out_path = Path(out_text)
    if out_path.suffix.lower() == ".zip" and not out_path.is_dir():
        write_files(files, out_path, zip=True)  # through output.atomic_output
    else:
        with atomic_folder(out_path) as building:
            write_files(files, building, zip=False)
    return report
