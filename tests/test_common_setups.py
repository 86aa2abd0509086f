"""``setups`` and ``search`` end to end: setup strings, variants kept apart, every promise of
the common-setups and pattern-search commands, on data/ and generated archives."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from click.testing import CliRunner

from strat_tools.board import Side
from strat_tools.cli import main
from strat_tools.driver import read_games
from strat_tools.errors import OptionError
from strat_tools.formats.setups import SETUP_FORMATS, parse_setup, setup_strings
from strat_tools.stats.repeats import common_setups, setup_outcomes


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def sample() -> Any:
    return read_games("data/", setups_only=True, jobs=1)


@pytest.mark.parametrize("fmt", list(SETUP_FORMATS))
def test_each_setup_string_is_that_of_its_games_setup(sample: Any, fmt: str) -> None:
    # Independent of the setups table's path: formats.setup_strings reads the setups
    # table (rows, columns, piece names) directly.
    table = common_setups(sample, top=0, setup_format=fmt)
    assert f"setup_{fmt}" == table.columns[2]
    outcomes = setup_outcomes(sample).frame
    owner = outcomes.drop_duplicates("fingerprint").set_index("fingerprint")
    expected = setup_strings(sample.setups, fmt).set_index(["game_id", "side"])["setup"]
    assert len(table) == len(owner) > 500
    for row in table.itertuples():
        game_id, side = owner.loc[row.fingerprint, ["game_id", "side"]]
        assert getattr(row, f"setup_{fmt}") == expected[(game_id, side)]


def test_an_ataraxos_string_is_the_owner_string_reversed_and_reads_back(sample: Any) -> None:
    table = common_setups(sample, top=3, setup_format="ataraxos")
    owner = common_setups(sample, top=3, setup_format="owner")
    assert [s[::-1] for s in owner["setup_owner"]] == table["setup_ataraxos"].tolist()
    # Read back as red's setup, the board's first 40 squares spell the owner string.
    board = parse_setup(table.at[0, "setup_ataraxos"], Side.RED, "ataraxos")
    letters = "".join("ABCDEFGHIJKLM"[code] for code in board[:40])
    assert letters == owner.at[0, "setup_owner"] == owner.at[0, "setup"]


def test_an_unknown_setup_format_is_refused_by_name(sample: Any) -> None:
    with pytest.raises(OptionError, match="unknown setup format 'yorktown'; choose from owner"):
        common_setups(sample, setup_format="yorktown")


def test_setups_prints_the_chosen_string_in_every_format() -> None:
    code, out, err = run("setups", "data/", "--top", "3", "--setup-format", "ataraxos")
    assert code == 0, err
    expected = common_setups(
        read_games("data/", setups_only=True, jobs=1), top=3, setup_format="ataraxos"
    )
    heads = [line for line in out.splitlines() if line.startswith("#")]
    for head, (fingerprint, string) in zip(
        heads, expected[["fingerprint", "setup_ataraxos"]].itertuples(index=False), strict=True
    ):
        assert head.startswith(f"#{heads.index(head) + 1} {fingerprint} ataraxos {string} ")
    code, out, err = run(
        "setups", "data/", "--top", "3", "--setup-format", "owner", "--format", "csv"
    )
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["setup_owner"] for r in rows] == [r["setup"] for r in rows]
    assert list(rows[0])[:3] == ["rank", "fingerprint", "setup_owner"]
    code, out, err = run(
        "setups", "data/", "--top", "2", "--setup-format", "stratego_env", "--format", "json"
    )
    assert code == 0, err
    rows_json = json.loads(out)
    # stratego_env ships the same strings as Ataraxos.
    assert [r["setup_stratego_env"] for r in rows_json] == expected["setup_ataraxos"][:2].tolist()
    # The choices are the registry's.
    code, _, err = run("setups", "data/", "--setup-format", "nope")
    assert code == 2
    assert all(name in err for name in SETUP_FORMATS)
