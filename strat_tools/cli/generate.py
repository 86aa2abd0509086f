"""``strat-tools generate``: synthetic games in Gravon's format."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.options import Run

from strat_tools.cli.errors import library_errors
from strat_tools.cli.options import run_options
from strat_tools.cli.outputs import archive_or_folder, check_output
from strat_tools.cli.render import count_of, message, progress_bar


@click.command()
@click.option(
    "-n",
    "--games",
    "count",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="How many games to generate.",
)
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(),
    help="A folder (one XML file per game) or a .zip file (one archive).",
)
@click.option(
    "--variant",
    default="classic",
    show_default=True,
    help="classic, barrage or duell, or a weighted mix: classic=8,barrage=1,duell=1.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Same seed, same games, byte for byte."
)
@click.option(
    "--period",
    default="2026-11",
    show_default=True,
    help="Calendar month the games are dated (YYYY-MM); names count months from 0.",
)
@click.option(
    "--first-number",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Game number of the first game (the n in classic-2026.10-n.xml).",
)
@run_options
@library_errors
def generate(
    count: int,
    out: str,
    variant: str,
    seed: int,
    period: str,
    first_number: int,
    run: Run,
) -> None:
    """Generate synthetic games (human-like setups, a simple policy) as Gravon XML.

    Every game is replayed by the engine and valid before it is written; the output is
    written atomically and is the same for any --jobs. The games are synthetic: see
    docs/generator.md.

    \b
    Example:
      strat-tools generate -n 300 -o strados2026-10.zip --seed 1
      strat-tools generate -n 50 -o games/ --variant classic=8,barrage=1,duell=1
    """
    import time

    check_output((), out, folder=archive_or_folder(out), create=True)  # before any work
    from strat_tools.formats.xml_writer import write_files
    from strat_tools.generate.games import generate_files, parse_period, parse_variant_mix

    try:
        mix = parse_variant_mix(variant)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--variant") from None
    try:
        year, month = parse_period(period)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--period") from None
    started = time.perf_counter()
    with progress_bar("Generating", count) as update:
        files = generate_files(
            count,
            variant=mix,
            seed=seed,
            year=year,
            month=month,
            first_number=first_number,
            run=run.with_progress(update),
        )
        written = write_files(files, out)
    seconds = time.perf_counter() - started
    message(f"Wrote {count_of(written, 'synthetic game')} to {out} in {seconds:.1f} s.")
