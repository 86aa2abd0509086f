"""``setups`` and ``search`` end to end: setup strings, variants kept apart, every promise of
the common-setups and pattern-search commands, on data/ and generated archives."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.board import Side
from strat_tools.core.errors import OptionError
from strat_tools.run.driver import read_games
from strat_tools.setups.strings import SETUP_FORMATS, parse_setup, setup_columns, setup_strings
from strat_tools.stats.repeats import common_setups, setup_outcomes


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def sample() -> Any:
    return read_games("data/", setups_only=True, run=1)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(SETUP_FORMATS))
def test_each_setup_string_is_that_of_its_games_setup(sample: Any, fmt: str) -> None:
    # Independent of the setups table's path: formats.setup_strings reads the setups
    # table (rows, columns, piece names) directly.
    table = common_setups(sample, top=0, setup_format=fmt)
    columns = setup_columns(fmt)
    assert list(columns) == list(table.columns[2 : 2 + len(columns)])
    outcomes = setup_outcomes(sample).frame
    owner = outcomes.drop_duplicates("fingerprint").set_index("fingerprint")
    expected = setup_strings(sample.setups, fmt).set_index(["game_id", "side"])["setup"]
    assert len(table) == len(owner) > 500
    checked = 0
    for row in table.to_dict("records"):
        game_id, side = owner.loc[row["fingerprint"], ["game_id", "side"]]
        for column, colour in columns.items():
            # A per-colour column is checked where the setup was played in that colour.
            if colour is None or colour.label == side:
                assert row[column] == expected[(game_id, side)]
                checked += 1
    assert checked == len(table)


def test_an_ataraxos_string_is_the_owner_string_reversed_and_reads_back(sample: Any) -> None:
    table = common_setups(sample, top=3, setup_format="ataraxos")
    owner = common_setups(sample, top=3, setup_format="owner")
    assert [s[::-1] for s in owner["setup_owner"]] == table["setup_ataraxos"].tolist()
    # Read back as red's setup, the board's first 40 squares spell the owner string.
    board = parse_setup(str(table.at[0, "setup_ataraxos"]), Side.RED, "ataraxos")
    letters = "".join("ABCDEFGHIJKLM"[code] for code in board[:40])
    assert letters == str(owner.at[0, "setup_owner"]) == str(owner.at[0, "setup"])


def test_an_unknown_setup_format_is_refused_by_name(sample: Any) -> None:
    with pytest.raises(OptionError, match="unknown setup format 'yorktown'; choose from owner"):
        common_setups(sample, setup_format="yorktown")


@pytest.mark.slow
def test_setups_prints_the_chosen_string_in_every_format() -> None:
    code, out, err = run("setups", "data/", "--top", "3", "--setup-format", "ataraxos")
    assert code == 0, err
    expected = common_setups(
        read_games("data/", setups_only=True, run=1), top=3, setup_format="ataraxos"
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
    # stratego_env's loader flips player 1 (red) once more than player 2: one string per
    # colour; blue's is the Ataraxos line, red's that line's rows each mirrored.
    blue = [r["setup_stratego_env_blue"] for r in rows_json]
    assert blue == expected["setup_ataraxos"][:2].tolist()
    red = [r["setup_stratego_env_red"] for r in rows_json]
    assert red == ["".join(line[i : i + 10][::-1] for i in range(0, 40, 10)) for line in blue]
    code, out, err = run("setups", "data/", "--top", "1", "--setup-format", "stratego_env")
    assert code == 0, err
    head = out.splitlines()[0]
    assert f" stratego_env red {red[0]} blue {blue[0]} (" in head
    # The choices are the registry's.
    code, _, err = run("setups", "data/", "--setup-format", "nope")
    assert code == 2
    assert all(name in err for name in SETUP_FORMATS)


@pytest.fixture(scope="module")
def month(gravon_dir: Any) -> str:
    """One real month of the archive: 877 classic games, setups played up to 65 times."""
    return str(gravon_dir / "strados2014-5.zip")


@pytest.mark.slow
def test_setups_options_keep_their_promises_on_a_real_month(month: str, tmp_path: Any) -> None:
    code, out, err = run("setups", month, "--top", "0", "--format", "json", "--jobs", "1")
    assert code == 0, err
    every = json.loads(out)
    # --top 0 is every distinct setup, most played first, each with its results.
    assert f"{len(every):,} distinct" in err
    counts = [r["count"] for r in every]
    assert counts == sorted(counts, reverse=True) and counts[0] > 20
    for row in every:
        assert row["wins"] + row["draws"] + row["losses"] <= row["count"]
        assert row["first_period"] <= row["last_period"]
        if row["wins"] + row["losses"]:  # decided games: a rate inside both intervals
            assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
            assert row["cluster_ci_low"] <= row["win_rate"] <= row["cluster_ci_high"]
        else:  # only draws: no rate, and null, not zero, in the JSON
            assert row["win_rate"] is None and row["ci_low"] is None
    code, out, err = run("setups", month, "--top", "0", "--min-count", "5", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [int(r["count"]) for r in rows] == [c for c in counts if c >= 5]
    code, out, err = run("setups", month, "--top", "2", "--mirror", "--format", "json")
    mirrored = json.loads(out)
    assert mirrored[0]["count"] >= every[0]["count"] and len(mirrored) == 2
    code, out, err = run("setups", month, "--top", "3", "--near", "3", "--format", "json")
    near = json.loads(out)
    assert sum(r["count"] for r in near) >= sum(counts[:3])
    assert any(r["distinct_setups"] > 1 for r in near)
    # The table draws each board (four rows of ten) under a line naming what it covers.
    code, out, err = run("setups", month, "--top", "2")
    head, *board = out.split("\n\n")[0].splitlines()
    assert head.startswith(f"#1 {every[0]['fingerprint']} (classic): {counts[0]} setups")
    assert "win rate" in head and "clustered" in head and "seen 2014-" in head
    assert len(board) == 4 and all(len(line.split()) == 10 for line in board)
    assert "\n".join(line.strip() for line in board) == every[0]["board"]
    picture = tmp_path / "top.png"
    code, _, err = run("setups", month, "--top", "4", "-o", str(picture), "--jobs", "1")
    assert code == 0 and picture.read_bytes()[:4] == b"\x89PNG"
    code, _, err = run("setups", month, "-o", str(tmp_path / "top.txt"))
    assert code == 2 and "use a name ending .png, .svg or .pdf" in err


@pytest.mark.slow
def test_search_keeps_its_promises_on_a_real_month(month: str) -> None:
    from strat_tools.stats.repeats import search_setups

    games = read_games([month], setups_only=True, run=1)
    flag_left = "........../........../........../F........."
    code, out, err = run("search", month, "--pattern", flag_left, "--format", "json")
    assert code == 0, err
    found = json.loads(out)
    library = search_setups(games, flag_left)
    assert found["variant"] == "classic"
    assert found["games"] == library.game_ids and len(found["games"]) > 50
    assert found["matching"]["count"] + found["rest"]["count"] == len(setup_outcomes(games))
    assert found["z"] == pytest.approx(library.z) and found["matching"]["score_z"] is not None
    # Names, a set and a negation read as the letters do; the pattern is drawn back.
    named = (
        ". . . . . . . . . . / . . . . . . . . . . / . . . . . . . . . . / flag . . . . . . . . ."
    )
    code, out, err = run("search", month, "--pattern", named, "--list-games")
    assert code == 0, err
    assert "    F . . . . . . . . ." in out.splitlines()[4]
    listed = out.split("z (matching against the rest): ")[1].splitlines()[1:]
    # One line per matching setup: id, side, as drawn (no --mirror: never the mirror image).
    assert list(dict.fromkeys(line.split("\t")[0] for line in listed)) == library.game_ids
    assert {tuple(line.split("\t")[1:]) for line in listed} <= {
        ("red", "as drawn"),
        ("blue", "as drawn"),
    }
    code, out, err = run("search", month, "--pattern", flag_left, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["match"] for r in rows] == ["matching", "rest"]
    assert {r["variant"] for r in rows} == {"classic"} and rows[0]["z"] == rows[1]["z"]
    # An empty square in a classic setup: the search says it can never match.
    code, out, err = run("search", month, "--pattern", "_" + flag_left[1:], "--format", "json")
    assert code == 0 and "can never match" in err and "no empty square" in err
    assert json.loads(out)["matching"]["count"] == 0


def test_the_variant_filter_takes_a_players_spelling() -> None:
    code, out, err = run(
        "setups", "data/", "--variant", "Barrage", "--top", "1", "--format", "json"
    )
    assert code == 0, err
    assert json.loads(out)[0]["variant"] == "barrage"
    code, _, err = run("setups", "data/", "--variant", "clasic")
    assert code == 2 and "unknown variant 'clasic'; choose from classic" in err


def test_a_search_never_pools_variants(sample: Any) -> None:
    from strat_tools.stats.repeats import search_setups

    with pytest.raises(OptionError, match="one variant; these are barrage, classic"):
        search_setups(
            sample, "........../........../........../F.........", variant=["classic", "barrage"]
        )
    code, _, err = run(
        "search",
        "data/",
        "--pattern",
        "........../........../........../F.........",
        "--variant",
        "classic,barrage",
    )
    assert code == 2 and "compares setups of one variant" in err
