"""Setup codes and fingerprints: owner's view, mirror, canonical ids, game fingerprints.

Fixture: tests/fixtures/tables/two_battles (a classic game whose blue setup is red's turned
180 degrees, so both owners see the same setup).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from strat_tools.core.pieces import letter_code
from strat_tools.run.driver import read_games
from strat_tools.setups import identity
from strat_tools.setups.identity import (
    canonical,
    draw_setup,
    fingerprints,
    mirror,
    mirror_fingerprints,
    owner_codes,
    setup_array,
    setup_from_letters,
    setup_letters,
)

TWO_BATTLES = Path(__file__).resolve().parent / "fixtures" / "tables" / "two_battles"
EXAMPLE = "EEFFJBMKIHEEGDDBBHCDFFDGDBLGDDGBIIJBHHDE"  # gravon-format.md's red setup


def test_the_owner_view_of_red_and_blue() -> None:
    red_letters = EXAMPLE
    blue_field = [letter_code(ch) + 12 for ch in reversed(EXAMPLE)]  # red's turned 180 degrees
    field = [letter_code(ch) for ch in red_letters] + [0] * 20 + blue_field
    red, blue = owner_codes([field])
    assert setup_letters(red) == setup_letters(blue) == [EXAMPLE]
    assert draw_setup(red[0]) == (
        "5 B 7 7 8 B 6 6 2 3\n4 4 2 5 2 B X 5 2 2\n3 3 5 2 2 B B 6 S 2\n3 3 4 4 8 B F 9 7 6"
    )


def test_mirror_and_canonical() -> None:
    code = setup_from_letters(EXAMPLE)[None, :]
    flipped = mirror(code)
    assert draw_setup(flipped[0]).splitlines()[-1] == "6 7 9 F B 8 4 4 3 3"
    assert (mirror(flipped) == code).all()
    assert (canonical(code) == canonical(flipped)).all()
    both = np.concatenate([code, flipped])
    assert fingerprints(both)[0] != fingerprints(both)[1]
    assert mirror_fingerprints(both)[0] == mirror_fingerprints(both)[1]
    # A symmetric setup is its own mirror.
    symmetric = setup_from_letters("DDDDDDDDDD" * 4)[None, :]
    assert mirror_fingerprints(symmetric)[0] == fingerprints(symmetric)[0]


def test_fingerprints_are_stable_and_printable() -> None:
    code = setup_from_letters(EXAMPLE)[None, :]
    assert fingerprints(code).tolist() == ["c1869e1f00dfa952"]
    assert all(len(f) == 16 and int(f, 16) >= 0 for f in fingerprints(np.eye(40, dtype=np.uint8)))
    assert len(set(fingerprints(np.eye(40, dtype=np.uint8)))) == 40


def test_tables_carry_the_fingerprints_of_each_side() -> None:
    games = read_games([str(TWO_BATTLES)], run=1)
    row = games.games.iloc[0]
    assert row["red_fingerprint"] == row["blue_fingerprint"]  # the same setup, turned
    found = setup_array(games.setups)
    assert found.side.tolist() == ["red", "blue"]
    assert (found.codes[0] == found.codes[1]).all()
    assert row["red_fingerprint"] == fingerprints(found.codes)[0]
    assert row["red_mirror_fingerprint"] == mirror_fingerprints(found.codes)[0]
    per_piece = games.setups.groupby("side", observed=True)["fingerprint"].unique()
    assert per_piece.map(list).to_dict() == {
        "red": [row["red_fingerprint"]],
        "blue": [row["blue_fingerprint"]],
    }
    assert isinstance(row["game_fingerprint"], str) and len(row["game_fingerprint"]) == 16


def test_a_game_under_two_names_has_one_game_fingerprint(tmp_path: Path) -> None:
    data = next(TWO_BATTLES.glob("*.xml")).read_bytes()
    (tmp_path / "classic-2014.4-1.xml").write_bytes(data)
    (tmp_path / "classic-2014.9-77.xml").write_bytes(data)
    # The same setups with a different third move: another game.
    other = data.replace(b'source="B4" target="B5"', b'source="C4" target="C5"')
    assert other != data
    (tmp_path / "classic-2014.9-78.xml").write_bytes(other)
    games = read_games([str(tmp_path)], run=1).games.set_index("game_id")
    ids = games["game_fingerprint"]
    assert ids["classic-2014.4-1"] == ids["classic-2014.9-77"] != ids["classic-2014.9-78"]
    assert games["red_fingerprint"].nunique() == 1
    one_move_less = identity.game_fingerprint([0] * 100, [1], [2])
    assert one_move_less != identity.game_fingerprint([0] * 100, [1, 2], [2, 3])


def test_setup_array_of_an_empty_table() -> None:
    found = setup_array(pd.DataFrame(columns=["game_id", "side", "row", "col", "piece"]))
    assert len(found) == 0 and found.codes.shape == (0, 40)
