"""Generate synthetic Stratego games: human-like setups and a simple randomised playing policy.

:func:`generate_games` yields :class:`GameRecord` values that look like Gravon records: a
setup drawn from :class:`SetupModel` (where people put their flag, bombs and pieces, with
weights measured on the real archive; see docs/generator.md), then moves chosen by a
short-sighted policy (take what is known to be weaker, probe with cheap pieces, keep strong
pieces away from unknown bombs and known stronger pieces, advance on the enemy), randomised
from one seed. Every move comes from the engine's ``Position.reference_pairs``, and every game is
replayed by the engine and must come out valid before it is yielded.

This module does not know the XML format (``writer.py`` writes the records) and has no rules
of its own: moves, battles and repetition limits are the engine's (``rules.py``,
``replay.py``). Its games are synthetic: they show the statistics of setups, not of real play.

The setup model is :mod:`strat_tools.generate.setups`, the playing policy
:mod:`strat_tools.generate.play`; this module makes games of them and runs them on the pipeline
(``st.generate`` offers the names of all three).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from functools import partial

from strat_tools.core.errors import OptionError, RunError
from strat_tools.core.records import VARIANTS, GameRecord, Severity, Status, variant_not_covered
from strat_tools.core.rules import rules_for
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import parse_record
from strat_tools.formats.xml_writer import game_file_name, record_to_xml
from strat_tools.generate.play import (
    DEFAULT_POLICY,
    MAX_PLIES,
    Policy,
    play_game,
)
from strat_tools.generate.setups import (
    SETUP_MODELS,
    draw_setup,
    setup_field,
)
from strat_tools.run.options import Run, RunArg
from strat_tools.run.pipeline import map_batches

__all__ = [
    "GenerationError",
    "generate_files",
    "generate_game",
    "generate_games",
    "parse_period",
    "parse_variant_mix",
    "plan_games",
    "verify_game",
]


def _variant_weights(variant: str | Mapping[str, float]) -> tuple[list[str], list[float]]:
    mix = {variant: 1.0} if isinstance(variant, str) else dict(variant)
    unknown = [name for name in mix if name not in SETUP_MODELS]
    known_not_made = [name for name in unknown if name in VARIANTS]
    if known_not_made:  # a variant Gravon has, which the generator does not make
        raise OptionError(variant_not_covered(known_not_made[0], SETUP_MODELS, "generate"))
    if unknown or not mix:
        known = ", ".join(SETUP_MODELS)
        names = ", ".join(map(repr, unknown)) or "(none)"
        raise OptionError(f"cannot generate variant {names}; expected {known}")
    if any(weight < 0 for weight in mix.values()) or sum(mix.values()) <= 0:
        raise OptionError(f"variant weights must be >= 0 with a positive sum, got {mix!r}")
    return list(mix), list(mix.values())


def parse_variant_mix(text: str) -> str | dict[str, float]:
    """Read ``'classic'`` or a weighted mix ``'classic=8,barrage=1,duell=1'``.

    >>> parse_variant_mix("classic=8,barrage=2")
    {'classic': 8.0, 'barrage': 2.0}
    """
    if "=" not in text:
        _variant_weights(text.strip())
        return text.strip()
    mix: dict[str, float] = {}
    for part in text.split(","):
        name, sep, weight = part.partition("=")
        try:
            mix[name.strip()] = float(weight)
        except ValueError:
            raise OptionError(f"not a variant weight: {part!r} (expected like classic=8)") from None
        if not sep:
            raise OptionError(f"not a variant weight: {part!r} (expected like classic=8)")
    _variant_weights(mix)
    return mix


def parse_period(text: str) -> tuple[int, int]:
    """Read a calendar period ``'2026-11'`` as (year, month)."""
    year, sep, month = text.partition("-")
    digits = (year + month).isascii() and year.isdigit() and month.isdigit()
    if not (sep and digits and len(year) == 4 and len(month) <= 2 and 1 <= int(month) <= 12):
        raise OptionError(f"not a period: {text!r} (expected YYYY-MM, e.g. 2026-11)")
    return int(year), int(month)


def generate_game(
    number: int,
    variant: str,
    seed: int,
    *,
    year: int = 2026,
    month: int = 11,
    policy: Policy = DEFAULT_POLICY,
    max_plies: int = MAX_PLIES,
) -> GameRecord:
    """Game ``number`` of a generated month, drawn from its own seed (``seed``, ``number``)."""
    rng = random.Random(f"strat-tools/{seed}/{number}")
    model = SETUP_MODELS[variant]
    setup = setup_field(draw_setup(model, rng), draw_setup(model, rng))
    record = GameRecord(
        source=f"{variant}-{year}.{month - 1}-{number}.xml",
        variant=variant,
        year=year,
        month=month,
        number=number,
        setup=setup,
        players=("Player 1", "Player 2"),
        synthetic=True,
    )
    sources, targets, result = play_game(
        setup, rules_for(record), rng, policy=policy, max_plies=max_plies
    )
    record.sources, record.targets, record.result = sources, targets, result
    return record


class GenerationError(RunError):
    """A generated game failed its own checks: a bug in the generator or the engine."""


def verify_game(record: GameRecord) -> bytes:
    """Write ``record``, read it back and replay it; return the XML if all is well.

    Raises :class:`GenerationError` unless the file reads back as the same game, neither
    reader nor engine has anything to say (no error, no warning) and the engine finds it
    valid.
    """
    name = game_file_name(record)
    data = record_to_xml(record)
    parsed = parse_record(data, name)
    same = (
        parsed.setup == record.setup
        and parsed.sources == record.sources
        and parsed.targets == record.targets
        and parsed.result == record.result
        and (parsed.variant, parsed.year, parsed.month, parsed.number)
        == (record.variant, record.year, record.month, record.number)
    )
    checked = replay(parsed)
    problems = [
        str(d)
        for d in (*parsed.diagnostics, *checked.diagnostics)
        if d.severity in (Severity.ERROR, Severity.WARNING)
    ]
    if not same:
        problems.append("the written file reads back as a different game")
    if problems or checked.status is not Status.VALID:
        raise GenerationError(f"generated game {name} is not valid: " + "; ".join(problems))
    return data


def plan_games(
    n: int, variant: str | Mapping[str, float], seed: int, first_number: int = 1
) -> list[tuple[int, str]]:
    """(number, variant) of each game to generate: the variant of a mix drawn from the seed."""
    if n < 0:
        raise OptionError(f"the number of games must be >= 0, got {n}")
    names, weights = _variant_weights(variant)
    picker = random.Random(f"strat-tools/{seed}/variants")
    return [
        (first_number + index, names[0] if len(names) == 1 else picker.choices(names, weights)[0])
        for index in range(n)
    ]


def generate_games(
    n: int,
    *,
    variant: str | Mapping[str, float] = "classic",
    seed: int = 0,
    year: int = 2026,
    month: int = 11,
    first_number: int = 1,
    policy: Policy = DEFAULT_POLICY,
    max_plies: int = MAX_PLIES,
    verify: bool = True,
) -> Iterator[GameRecord]:
    """Yield ``n`` generated games numbered from ``first_number``, all dated ``year``-``month``.

    ``variant`` is one variant or a mix such as ``{'classic': 8, 'barrage': 1, 'duell': 1}``
    (each game's variant drawn with those weights). The same arguments always give the same
    games. With ``verify`` (the default) each game is written, read back and replayed by the
    engine before it is yielded (see :func:`verify_game`).

    >>> games = list(generate_games(3, variant="barrage", seed=7))
    >>> [g.game_id for g in games]
    ['barrage-2026.10-1', 'barrage-2026.10-2', 'barrage-2026.10-3']
    """
    if not 1 <= month <= 12:
        raise OptionError(f"month must be 1..12, got {month}")
    for number, chosen in plan_games(n, variant, seed, first_number):
        record = generate_game(
            number, chosen, seed, year=year, month=month, policy=policy, max_plies=max_plies
        )
        if verify:
            verify_game(record)
        yield record


def _generate_batch(
    plan: list[tuple[int, str]],
    *,
    seed: int,
    year: int,
    month: int,
    policy: Policy,
    max_plies: int,
    verify: bool,
) -> list[tuple[str, bytes]]:
    """Worker: generate the planned games and return them as (file name, XML) pairs."""
    out = []
    for number, variant in plan:
        record = generate_game(
            number, variant, seed, year=year, month=month, policy=policy, max_plies=max_plies
        )
        data = verify_game(record) if verify else record_to_xml(record)
        out.append((game_file_name(record), data))
    return out


def generate_files(
    n: int,
    *,
    variant: str | Mapping[str, float] = "classic",
    seed: int = 0,
    year: int = 2026,
    month: int = 11,
    first_number: int = 1,
    policy: Policy = DEFAULT_POLICY,
    max_plies: int = MAX_PLIES,
    verify: bool = True,
    run: RunArg = None,
) -> Iterator[tuple[str, bytes]]:
    """The games of :func:`generate_games` as (file name, XML) pairs, made where ``run``
    says (a number of worker processes, or a :class:`~strat_tools.run.options.Run`; one
    process when not given) and yielded in order, for
    :func:`writer.write_files`.

    Each game depends only on the seed and its number, so the output is the same for any
    number of jobs. Workers ship XML bytes, never records.

    >>> files = generate_files(10_000, seed=1, run=2)
    >>> write_files(files, "strados2026-10.zip")  # doctest: +SKIP
    10000
    """
    if not 1 <= month <= 12:
        raise OptionError(f"month must be 1..12, got {month}")
    plan = plan_games(n, variant, seed, first_number)
    work = partial(
        _generate_batch,
        seed=seed,
        year=year,
        month=month,
        policy=policy,
        max_plies=max_plies,
        verify=verify,
    )
    run = Run.of(run) if run is not None else Run(jobs=1)
    for batch in map_batches(work, plan, run=run, batch_size=20):
        yield from batch
