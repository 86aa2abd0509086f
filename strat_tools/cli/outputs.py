"""What every command's ``-o`` shares: the one check, made before anything is read, that
it can be written and never names an input.

The check itself is the output module's (:func:`strat_tools.io.output.check_output`); this
module gives it the command's inputs (its paths and its ``--ids`` file) and says what kind
of output a name is, and turns a refusal into the exit code: an output that is an input is
the user's mistake (exit 2), one that cannot be written a failed run (exit 3), each
message naming the path as the user gave it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import click

from strat_tools.cli.errors import NoInput, RunFailed
from strat_tools.cli.options import IDS_FILE_KEY


def archive_or_folder(out: str) -> bool:
    """Whether ``-o`` of a command that writes a zip or a folder (``convert``, ``filter``,
    ``generate``) names a folder: anything but a ``.zip`` name (not an existing folder) or a
    device or FIFO (which gets the zip).

    >>> archive_or_folder("games.zip"), archive_or_folder("games/"), archive_or_folder("/dev/null")
    (False, True, False)
    """
    from strat_tools.exports.convert import writes_through

    if writes_through(out.rstrip("/") or out):
        return False
    return not (out.lower().endswith(".zip") and not os.path.isdir(out))


def check_output(
    paths: str | Sequence[str],
    out: str | None,
    *,
    folder: bool = False,
    create: bool = False,
) -> None:
    """The check every ``-o`` makes before any work, nothing read or written: refuse an
    output that is an input (``paths``, and the ``--ids`` file), the same file through a
    link, a folder holding one, or a file inside an input folder that reading it would
    take (exit 2); and one that cannot be written: a missing or read-only folder, a folder
    where a file is meant (exit 3). ``folder``: the output is a folder of files; ``create``:
    the command creates missing folders on its way. See
    :func:`strat_tools.io.output.check_output`."""
    from strat_tools.core.text import printable_lines
    from strat_tools.io import output

    if out is None:
        return
    inputs = [paths] if isinstance(paths, str) else list(paths)
    ctx = click.get_current_context(silent=True)
    ids_file = ctx.meta.get(IDS_FILE_KEY) if ctx is not None else None
    if ids_file:
        inputs.append(ids_file)
    try:
        output.check_output(out, inputs, folder=folder, create=create)
    except output.OutputOverInput as exc:
        raise NoInput(printable_lines(str(exc))) from None
    except output.OutputError as exc:
        raise RunFailed(printable_lines(str(exc))) from None
