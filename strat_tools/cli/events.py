"""``strat-tools events``: the key events of every game (battles, losses, rescues, ends)."""

from __future__ import annotations

import click

from strat_tools.cli.common import (
    format_option,
    jobs_option,
    library_errors,
    paths_argument,
    render,
    rules_option,
)
from strat_tools.engine.events import EVENT_KINDS


@click.command()
@paths_argument
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(list(EVENT_KINDS)),
    help="Only events of this kind (repeat for several). Default: all.",
)
@format_option()
@rules_option
@jobs_option
@library_errors
def events(
    paths: tuple[str, ...], kinds: tuple[str, ...], fmt: str, rules: str, jobs: int | None
) -> None:
    """List every game's key events: each battle (ply, squares, both ranks, outcome), the
    first capture, marshals and generals lost, the spy taking the marshal, bombs removed,
    rescues, the flag captured, and the end with its reason.

    Every game has an 'end' row, also one that could not be read or replayed (it says why).

    \b
    Example:
      strat-tools events strados2014-5.zip --kind marshal_lost --format csv
      strat-tools events classic-2014.5-2245.xml
    """
    from strat_tools.events import read_events

    render(read_events(paths, rules=rules, jobs=jobs, kinds=kinds or None), fmt)
