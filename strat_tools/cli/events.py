"""``strat-tools events``: the key events of every game (battles, losses, rescues, ends)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import (
    format_option,
    game_filter_options,
    list_option,
    paths_argument,
    rules_option,
    run_options,
)
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import render_stream
from strat_tools.engine.events.event_kinds import EVENT_KINDS


@click.command()
@paths_argument
@list_option(
    "--kind",
    "kinds",
    item=click.Choice(list(EVENT_KINDS)),
    help="Only events of these kinds (repeat or commas). Default: all.",
)
@click.option(
    "--with-model",
    is_flag=True,
    help="Add the shipped move model's columns: legal_moves, move_prob (the probability it "
    "gave the move at the row's ply) and move_rank (1: its likeliest). Classic games only; "
    "null where a row has no model row. Costs about 0.25 ms of CPU a ply with "
    "OPENBLAS_NUM_THREADS=1 (set it: NumPy's default threads cost about 4x).",
)
@click.option(
    "--policy",
    metavar="NAME",
    default=None,
    help="The move policy for --with-model, by registry name (default: the shipped default).",
)
@format_option()
@game_filter_options
@rules_option
@run_options
@library_errors
def events(
    paths: tuple[str, ...],
    game_filter: GameFilter,
    kinds: tuple[str, ...],
    with_model: bool,
    policy: str | None,
    fmt: str,
    rules: str,
    run: Run,
) -> None:
    """List every game's key events: each battle (ply, squares, both ranks, outcome), the
    first capture, marshals and generals lost, the spy taking the marshal, bombs removed,
    rescues, the flag captured, and the end with its reason.

    Every game read has an 'end' row, also one that could not be read or replayed (it
    says why). Games the filters leave out have no rows; stderr says how many. Rows are
    written batch by batch in every format, so memory stays flat; the table's columns are
    as wide as the rows so far need (or one block per row when the first batch's table
    does not fit the terminal).

    \b
    Example:
      strat-tools events strados2014-5.zip --kind marshal_lost --format csv
      strat-tools events ../gravon/ --variant barrage --kind end
      strat-tools events strados2014-5.zip --kind marshal_lost --with-model
    """
    from strat_tools.exports.event_table import events_frame, iter_events

    if policy is not None and not with_model:
        raise click.UsageError("--policy needs --with-model")

    def stream(run: Run) -> None:
        if with_model:
            from strat_tools.benchmark.model_columns import iter_model_events

            batches = iter_model_events(
                list(paths),
                policy=policy,
                rules=rules,
                kinds=kinds or None,
                select=game_filter,
                run=run,
            )
        else:
            batches = iter_events(
                list(paths),
                rules=rules,
                kinds=kinds or None,
                select=game_filter,
                run=run,
            )
        render_stream((events_frame(table) for table in batches), fmt)

    read_through(paths, run, stream, label="events", require=False)
