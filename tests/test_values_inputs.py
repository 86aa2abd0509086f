"""`values` and its model file (issue 45, points 1, 7 to 10): a model file is an input
(every field checked before a game is read, opened like a record), the barrage model has
barrage's features, and an option that does not apply to the job is a usage error."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from strat_tools.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"
NOWHERE = "no-such-games/"
"""Games that do not exist: a model refused before reading says so, not "nothing readable"."""


def _shipped() -> dict[str, Any]:
    """The classic model the package ships, as its JSON."""
    from importlib import resources

    text = resources.files("strat_tools.stats").joinpath("data", "win_model.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def _calibrate(model: Path, *more: str) -> Any:
    args = ["values", NOWHERE, "--jobs", "1", "--calibrate", "--model", str(model), *more]
    return CliRunner().invoke(main, args)


def _set(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    return {**data, key: value}


def _coef(value: Any, i: int = 3) -> Any:
    def edit(data: dict[str, Any]) -> dict[str, Any]:
        coef = list(data["coef"])
        coef[i] = value
        return _set(data, "coef", coef)

    return edit


BAD_NUMBERS = {
    "base rate above 1": (lambda d: _set(d, "base_rate", 1.5), "base_rate"),
    "base rate below 0": (lambda d: _set(d, "base_rate", -1), "base_rate"),
    "base rate 0": (lambda d: _set(d, "base_rate", 0), "base_rate"),
    "huge coefficient": (_coef(1e308), "coef[3]"),
    "text coefficient": (_coef("1"), "coef[3]"),
    "true coefficient": (_coef(True), "coef[3]"),
    "material features reordered": (
        lambda d: _set(d, "material_features", d["material_features"][::-1]),
        "material_features",
    ),
    "features reordered": (lambda d: _set(d, "features", d["features"][::-1]), "features"),
    "short material coef": (
        lambda d: _set(d, "material_coef", d["material_coef"][:-1]),
        "material_coef",
    ),
    "long coef": (lambda d: _set(d, "coef", [*d["coef"], 0.0]), "coef"),
    "unknown variant": (lambda d: _set(d, "variant", "chess"), "variant"),
    "games negative": (
        lambda d: _set(d, "provenance", {**d["provenance"], "games": -1}),
        "provenance.games",
    ),
    "an unknown field": (lambda d: _set(d, "coefs", []), "unknown field"),
}


@pytest.mark.parametrize("name", list(BAD_NUMBERS))
def test_every_field_of_a_model_file_is_checked_before_any_game(name: str, tmp_path: Path) -> None:
    edit, field = BAD_NUMBERS[name]
    model = tmp_path / "m.json"
    model.write_text(json.dumps(edit(_shipped())))
    result = _calibrate(model)
    assert result.exit_code == 2, result.output
    assert "'--model'" in result.stderr and field in result.stderr
    assert "nothing readable" not in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(
    "text, why",
    [
        ('"coef": [NaN', "NaN is not a number"),
        ('"coef": [Infinity', "Infinity is not a number"),
        ('"coef": [' + "9" * 400, "coef[0]: an integer of 400 digits is not a number"),
    ],
)
def test_json_a_model_file_cannot_hold_is_refused(text: str, why: str, tmp_path: Path) -> None:
    shipped = json.dumps(_shipped())
    model = tmp_path / "m.json"
    first = re.compile(r'"coef": \[[^,]+')  # the first coefficient replaced
    model.write_text(first.sub(lambda _: text, shipped, count=1))
    result = _calibrate(model)
    assert result.exit_code == 2 and why in result.stderr, result.output


def test_json_nested_100000_deep_is_refused_at_once(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    model.write_text("[" * 100_000 + "]" * 100_000)
    result = _calibrate(model)
    assert result.exit_code == 2 and "nested more than" in result.stderr, result.output


@pytest.mark.timeout(60)
def test_a_fifo_or_a_device_as_the_model_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero):
        result = _calibrate(path)
        assert result.exit_code == 2 and "not a regular file" in result.stderr, result.output


def test_a_shipped_model_is_read_back_whole(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    model.write_text(json.dumps(_shipped()))
    result = CliRunner().invoke(
        main, ["values", str(DATA), "--jobs", "1", "--calibrate", "--model", str(model)]
    )
    assert result.exit_code == 0, result.output


# --- barrage: the ranks its army lacks are no features ------------------------------------


def test_barrage_fits_a_model_of_its_own_army(tmp_path: Path) -> None:
    model = tmp_path / "barrage.json"
    fitted = CliRunner().invoke(
        main,
        ["values", str(DATA), "--jobs", "1", "--variant", "barrage", "--fit", "-o", str(model)],
    )
    assert fitted.exit_code == 0, fitted.output
    from strat_tools.stats.win_model import features_of  # imported here: the test runs on
    # the code before the fix too, and fails there on what it checks, not on an import

    saved = json.loads(model.read_text())
    assert saved["variant"] == "barrage" and saved["features"] == list(features_of("barrage"))
    assert "colonel" not in saved["features"] and "known_colonel" not in saved["features"]
    # A barrage model scores barrage games, and is refused (before reading) on classic ones.
    scored = _calibrate(model, "--variant", "barrage")
    assert scored.exit_code == 2 and "nothing readable" in scored.stderr
    wrong = _calibrate(model)
    assert wrong.exit_code == 2 and "a barrage win model cannot score classic" in wrong.stderr


def test_a_variant_with_no_shipped_model_says_so() -> None:
    result = CliRunner().invoke(
        main, ["values", str(DATA), "--jobs", "1", "--calibrate", "--variant", "duell"]
    )
    assert result.exit_code == 2 and "ships no win model for duell" in result.stderr


# --- an option that does not apply is a usage error -----------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--secrecy", "--fit", "-o", "m.json"],
        ["--by", "phase", "--fit", "-o", "m.json"],
        ["--quiet", "--fit", "-o", "m.json"],
        ["--secrecy", "--calibrate"],
        ["--by", "phase", "--calibrate"],
    ],
)
def test_a_piece_value_option_with_the_win_model_is_a_usage_error(
    args: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "m.json"
    given = [str(out) if a == "m.json" else a for a in args]
    result = CliRunner().invoke(main, ["values", str(DATA), "--jobs", "1", *given])
    assert result.exit_code == 2 and "not the win model" in result.stderr, result.output
    assert not out.exists()
