"""A legal game as long as asked, for the tests that bound a long game's cost (issue 39
point 7): the viewer's page and memory, the observation export's memory."""

from __future__ import annotations

from pathlib import Path

from strat_tools.core.board import parse_square

DATA = Path(__file__).resolve().parent.parent / "data"


def circling_game(plies: int, name: str = "classic-2026.10-9001.xml") -> bytes:
    """A legal game of ``plies`` plies: a sample setup whose A4 and K7 pieces leave the front
    and each go round a 2x2 square of the open middle (never back and forth, so the
    two-squares rule never stops them), red resigning at the end."""
    import dataclasses
    import zipfile

    from strat_tools.core.records import Result
    from strat_tools.formats.readers import parse_record
    from strat_tools.formats.xml_writer import record_to_xml

    with zipfile.ZipFile(DATA / "strados2026-10.zip") as archive:
        record = parse_record(archive.read("classic-2026.10-1.xml"), "x.zip", name)
    rounds = {
        1: [parse_square(s) for s in ("A4", "A5", "B5", "B6", "A6")],
        2: [parse_square(s) for s in ("K7", "K6", "I6", "I5", "K5")],
    }
    sources, targets = [], []
    for ply in range(plies):
        start, *loop = rounds[1 + ply % 2]
        step = ply // 2
        here = start if step == 0 else loop[(step - 1) % 4]
        sources.append(here)
        targets.append(loop[step % 4])
    long = dataclasses.replace(
        record, member=name, sources=sources, targets=targets, lines=[], result=Result(3, 2)
    )
    return record_to_xml(long)
