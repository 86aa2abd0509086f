"""``strat-tools values``: piece values and secrecy values learned from games; the win model
fitted (``--fit``) and scored (``--calibrate``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from strat_tools.run.filters import GameFilter
    from strat_tools.run.options import Run
    from strat_tools.stats.value_rows import ValueRows
    from strat_tools.stats.win_model import WinModel

from strat_tools.cli.errors import NoInput, library_errors
from strat_tools.cli.options import (
    VariantName,
    format_option,
    game_filter_options_but,
    paths_argument,
    rules_option,
    run_options,
)
from strat_tools.cli.outputs import check_output
from strat_tools.cli.reading import read_through
from strat_tools.cli.render import message, render
from strat_tools.core.records import DEFAULT_VARIANT, VARIANTS

SHOWN = (
    "piece",
    "term",
    "value",
    "low",
    "high",
    "relative",
    "relative_low",
    "relative_high",
    "games",
    "rows",
)


@click.command()
@paths_argument
@click.option(
    "--variant",
    default=DEFAULT_VARIANT,
    show_default=True,
    type=VariantName(VARIANTS),
    help="The variant whose decided games are used.",
)
@click.option(
    "--secrecy",
    is_flag=True,
    help="The secrecy model: each rank the data allow valued while hidden and once known.",
)
@click.option(
    "--by",
    type=click.Choice(["phase"]),
    default=None,
    help="phase: one model per ply band (opening 10-100, middle 110-300, end 310 on), "
    "each on the same games: those that reach the end band.",
)
@click.option(
    "--quiet",
    is_flag=True,
    help="Only quiet rows: no piece taken within 5 plies either side of the row.",
)
@click.option("--fit", is_flag=True, help="Fit the win model and save it to -o (JSON).")
@click.option(
    "--calibrate",
    is_flag=True,
    help="Score a saved win model (--model; default the shipped one) on these games.",
)
@click.option(
    "--model",
    "model_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="The win model --calibrate scores (default: the one the package ships).",
)
@click.option(
    "--belief-model",
    "belief",
    metavar="NAME",
    default=None,
    help="With --secrecy: instead of the regression, each marshal by how sure the opponent's "
    "belief (this registry model; 'default' for the shipped default) was of it before its "
    "first battle: its side's wins and its survival, per band (classic; docs/values.md).",
)
@click.option("-o", "--output", default=None, help="--fit: the model file to write (.json).")
@format_option()
@game_filter_options_but("--variant")
@rules_option
@run_options
@library_errors
def values(
    paths: tuple[str, ...],
    variant: str,
    secrecy: bool,
    by: str | None,
    quiet: bool,
    fit: bool,
    calibrate: bool,
    model_path: str | None,
    belief: str | None,
    output: str | None,
    fmt: str,
    game_filter: GameFilter,
    rules: str,
    run: Run,
) -> None:
    """What a piece is worth, learned from decided games: per piece its value in log-odds
    of winning (the side to move's count minus the opponent's) with a 95% interval
    clustered by game, the same relative to a scout, and the sample (games, rows).

    The model, exactly: decided games of --variant; a row after every 10th ply while both
    flags stand; the outcome "the side to move wins"; the features the 11 count
    differences (bomb and each movable rank); a logistic regression with an intercept.
    --secrecy splits each rank the data allow into "hidden" and "known" (what the
    opponent has identified); --quiet keeps the rows with no piece taken 5 plies either
    side; --by phase fits each ply band on the games that reach the last one. --fit fits
    the win model of --variant (every 5th ply; see docs/values.md) and writes it to -o;
    --calibrate scores a saved one, or the one shipped for --variant (classic, barrage):
    Brier, log-loss beside the material-only model and red's training rate, then in the
    table format a reliability table by probability bin with intervals clustered by game,
    and with -o its plot; the json records carry a 'brier' field. Associations, not
    causes.

    \b
    Example:
      strat-tools values ../gravon/
      strat-tools values ../gravon/ --secrecy --by phase --format csv
      strat-tools values ../gravon/strados2013-*.zip --fit -o model.json
      strat-tools values ../gravon/strados2014-9.zip --calibrate --model model.json
    """
    if fit and calibrate:
        raise click.UsageError("--fit and --calibrate are two jobs: give one")
    given = [f for f, on in (("--secrecy", secrecy), ("--by", by), ("--quiet", quiet)) if on]
    if (fit or calibrate) and given:
        raise click.UsageError(
            f"{' and '.join(given)} shape the piece values, not the win model "
            f"({'--fit' if fit else '--calibrate'}): leave {'them' if len(given) > 1 else 'it'} out"
        )
    if fit and output is None:
        raise click.UsageError("--fit writes the model to -o FILE.json")
    if not (fit or calibrate) and output is not None:
        raise click.UsageError("-o is for --fit (the model file) or --calibrate (a figure)")
    if model_path is not None and not calibrate:
        raise click.UsageError("--model is the win model --calibrate scores")
    if belief is not None:
        flags = (secrecy, by, quiet, fit or calibrate)
        _belief_secrecy(paths, belief, flags, variant, fmt, game_filter, rules, run)
        return
    from strat_tools.core.rules import check_rules

    check_rules(rules)  # a usage error first (exit 2), then the output
    check_output(list(paths), output)
    model = _model(model_path, variant) if calibrate else None  # a bad file: before reading
    rows = _rows(paths, variant, game_filter, rules, run)
    if fit or calibrate:
        _win_model(rows, paths, variant, model, output, fmt)
        return
    from strat_tools.stats.piece_values import TooFewGames, piece_value_table

    try:
        table = piece_value_table(
            rows, "secrecy" if secrecy else "material", by, variant=variant, quiet=quiet
        )
    except TooFewGames as exc:
        raise NoInput(str(exc)) from None
    if fmt == "table":
        shown = table[[*(["phase"] if by else []), *SHOWN]].round(3)
        render(shown, fmt)
        message(
            "Values in log-odds of the side to move winning, per piece more than the "
            "opponent; 95% intervals clustered by game; relative: the scout is 1 (its "
            "interval by Fieller's method: wide where the scout's value is uncertain). "
            "Associations, not causes (docs/values.md)."
        )
        return
    render(table, fmt)


def _belief_secrecy(
    paths: tuple[str, ...],
    belief: str,
    flags: tuple[bool, str | None, bool, bool],
    variant: str,
    fmt: str,
    game_filter: GameFilter,
    rules: str,
    run: Run,
) -> None:
    """``--secrecy --belief-model NAME``: the marshals by the opponent's belief."""
    secrecy, by, quiet, win_model = flags
    if not secrecy or by or quiet or win_model or variant != "classic":
        raise click.UsageError(
            "--belief-model goes with --secrecy alone, on classic games (no --by, --quiet, "
            "--fit or --calibrate)"
        )
    from strat_tools.benchmark.hidden_values import (
        belief_model,
        marshal_beliefs,
        marshal_secrecy,
    )

    name = belief_model(None if belief == "default" else belief)
    rows, _ = read_through(
        paths,
        run,
        lambda run: marshal_beliefs(
            list(paths), model=name, rules=rules, select=game_filter, run=run
        ),
        label="values",
    )
    if rows.empty:
        raise NoInput("no classic game with a marshal to value")
    table = marshal_secrecy(rows)
    render(table.round(3) if fmt == "table" else table, fmt)
    if fmt == "table":
        message(
            f"Each marshal by {name}'s belief on 'marshal' at the opponent's last turn before "
            "its first battle; won: its side's share of the decided games; survived: of that "
            "battle; 95% Wilson intervals. Associations, not causes (docs/values.md)."
        )


def _model(path: str | None, variant: str) -> WinModel:
    """The model --calibrate scores, checked (every field, its variant) before any game."""
    from strat_tools.stats.win_model import check_model_variant
    from strat_tools.stats.win_model_file import load_win_model, shipped_win_model

    if path is None:
        model = shipped_win_model(variant)
        if model is None:
            raise NoInput(
                f"the package ships no win model for {variant} (too few games: "
                "docs/values.md); give one with --model"
            )
        return model
    model = load_win_model(path)
    check_model_variant(model, variant)
    return model


def _rows(
    paths: tuple[str, ...], variant: str, game_filter: GameFilter, rules: str, run: Run
) -> ValueRows:
    """The rows of the games (read in the workers); nothing readable stops here (exit 2)."""
    from strat_tools.stats.value_rows import read_value_rows

    rows, _ = read_through(
        paths,
        run,
        lambda run: read_value_rows(
            list(paths), variant=variant, rules=rules, select=game_filter, run=run
        ),
    )
    return rows


def _win_model(
    rows: ValueRows,
    paths: tuple[str, ...],
    variant: str,
    model: WinModel | None,
    output: str | None,
    fmt: str,
) -> None:
    from strat_tools.stats.piece_values import MIN_GAMES
    from strat_tools.stats.win_model import calibrate, fit_win_model

    fit = model is None
    games = len(set(rows.game.tolist()))
    if games < MIN_GAMES:
        raise NoInput(
            f"the win model has {games:,} decided {variant} games with rows; at least "
            f"{MIN_GAMES} are needed"
        )
    if fit:
        assert output is not None
        from pathlib import Path

        inputs = sorted(Path(p).name for p in paths)
        about = {"variant": variant, "fitted_by": "strat-tools values --fit", "inputs": inputs}
        made = fit_win_model(rows, variant=variant, provenance=about)
        made.save(output)
        about = made.provenance
        message(
            f"win model fitted on {about['games']:,} games, {about['rows']:,} rows "
            f"({', '.join(about['months']) or 'months not known'}): {output}"
        )
        record = {**about, "months": " ".join(about["months"]), "output": output}
        record["inputs"] = " ".join(about["inputs"])
        render([record], fmt)
        return
    assert model is not None
    scores, reliability = calibrate(model, rows)
    render(scores.round(4) if fmt == "table" else scores, fmt)
    if output is not None:
        from strat_tools.views.charts import reliability_figure
        from strat_tools.views.figure_files import save_figure

        save_figure(reliability_figure(reliability, scores), output)
        message(f"Wrote {output}.")
    if fmt == "table":
        click.echo("\nreliability of the win model (its predictions by bin):")
        render(reliability.round(3), fmt)
