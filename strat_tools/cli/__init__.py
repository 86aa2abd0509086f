"""The ``strat-tools`` command line: a thin click layer over the library.

Each command parses options, calls one library function and renders its result. Data goes
to stdout; progress and messages go to stderr. Library errors become ``Error: ...`` with
exit 1; usage errors stay click's exit 2. ``validate`` exits 1 when any game is invalid.
One module per command (or pair of commands); this one only gathers them into the group.
"""

from __future__ import annotations

import click

from strat_tools import __version__
from strat_tools.cli import (
    advice,
    engine,
    events,
    figures,
    filter,
    generate,
    search,
    setups,
    tables,
    validate,
    view,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="strat-tools")
def main() -> None:
    """Read, replay, validate and analyse Stratego game records (Gravon StraDoS2 XML).

    PATHS may be .xml files, folders (searched recursively), glob patterns and the monthly
    .zip archives as Gravon publishes them.

    \b
    Example:
      strat-tools validate data/
      strat-tools heatmap data/ --piece flag -o flag.png
    """


main.add_command(validate.validate)
main.add_command(generate.generate)
main.add_command(tables.export)
main.add_command(tables.stats)
main.add_command(advice.advice)
main.add_command(figures.heatmap)
main.add_command(figures.report)
main.add_command(engine.show)
main.add_command(engine.rules_command)
main.add_command(events.events)
main.add_command(view.view)
main.add_command(setups.setups)
main.add_command(search.search)
main.add_command(filter.filter_command)
