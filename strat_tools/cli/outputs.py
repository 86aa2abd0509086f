"""What every command's ``-o`` shares: the check that it never names an input.

The check itself is the output module's (:func:`strat_tools.io.output.refuse_overlap`); this
module gives it the command's inputs (its paths and its ``--ids`` file) and what reading a
folder takes, and turns a refusal into a usage error (exit 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import click

from strat_tools.cli.errors import NoInput
from strat_tools.cli.options import IDS_FILE_KEY

READ_SUFFIXES: Final = (".zip", ".parquet", ".csv", ".json")
"""Besides the record suffixes, what reading an input folder takes: archives of records and
an exported dataset's tables and marker."""


def read_by_folder(name: str) -> bool:
    """Whether reading a folder would take a file named ``name`` (a record, a zip, a table).

    >>> read_by_folder("a.xml"), read_by_folder("games.parquet"), read_by_folder("r.html")
    (True, True, False)
    """
    from strat_tools.core.record_formats import is_record_name

    return is_record_name(name) or name.lower().endswith(READ_SUFFIXES)


def refuse_output_over_inputs(
    paths: str | Sequence[str], out: str | None, *, folder: bool = False
) -> None:
    """The check every ``-o`` makes before any work: refuse (exit 2, nothing written) an
    output that is an input (``paths``, and the ``--ids`` file), the same file through a
    link, a folder holding one, or a file inside an input folder that reading it would take
    (``folder``: a folder output or an archive of records refuses anything inside an input
    folder). See :func:`strat_tools.io.output.refuse_overlap`."""
    from strat_tools.io.output import OutputOverInput, refuse_overlap

    if out is None:
        return
    inputs = [paths] if isinstance(paths, str) else list(paths)
    ctx = click.get_current_context(silent=True)
    ids_file = ctx.meta.get(IDS_FILE_KEY) if ctx is not None else None
    if ids_file:
        inputs.append(ids_file)
    try:
        refuse_overlap(inputs, out, reads=None if folder else read_by_folder)
    except OutputOverInput as exc:
        from strat_tools.core.text import printable_lines

        raise NoInput(printable_lines(str(exc))) from None
