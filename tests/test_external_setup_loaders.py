"""Setup strings placed the way the other projects' loaders place them.

Each loader is re-implemented here from the facts read off its code (docs/observations.md,
*What was read off the other projects*), not from our formatter, so a string that loads
mirrored or turned fails here whatever ``formats.setups`` believes:

- stratego_env (JBLanier/stratego_env, ``game/util.py``
  ``create_initial_positions_from_human_data``, ``game/stratego_procedural_impl.py``
  ``create_initial_state``): each string is cut into four rows of ten, row ``i`` column
  ``j`` of a 10x10 map; player 1's map then has each row reversed; both maps have rows 0-3
  turned over (0 with 3, 1 with 2) and then every row reversed; the state takes player 1's
  map as it is and player 2's turned by 180 degrees. State row ``r`` column ``c`` is Gravon
  square ``r * 10 + c`` (player 1 on rows 1-4 is red, as Ataraxos' Gravon fields have it).
- Ataraxos (StrategoAI/ataraxos): a line is reversed, then entry ``j`` goes to square ``j``
  for red and ``99 - j`` for blue.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from strat_tools.core.board import Side
from strat_tools.core.pieces import CODE_LETTERS, CODE_SIDE
from strat_tools.core.records import GameRecord
from strat_tools.formats.readers import read_units
from strat_tools.io.sources import iter_units
from strat_tools.setups.identity import owner_codes
from strat_tools.setups.strings import code_strings, format_setup, setup_columns

DATA = Path(__file__).resolve().parent.parent / "data"


def stratego_env_places(player1: str, player2: str) -> list[str]:
    """The 100 squares (Gravon order) of stratego_env's start state: ``"R:B"`` for a red
    bomb (player 1), ``"B:M"`` for a blue flag, ``"."`` elsewhere (its piece numbers are
    mapped back to our letters, as its ``convert_letter_to_num_left`` reads them)."""
    maps = []
    for text in (player1, player2):
        grid = [["A"] * 10 for _ in range(10)]
        for i in range(4):
            grid[i] = list(text[i * 10 : i * 10 + 10])
        maps.append(grid)
    maps[0] = [row[::-1] for row in maps[0]]  # player 1 only: each row reversed
    for grid in maps:  # both: rows 0..3 turned over, then every row reversed
        grid[0], grid[1], grid[2], grid[3] = grid[3], grid[2], grid[1], grid[0]
        grid[:] = [row[::-1] for row in grid]
    state = ["."] * 100
    for r in range(10):
        for c in range(10):
            one, two = maps[0][r][c], maps[1][9 - r][9 - c]  # player 2: turned by 180
            assert one == "A" or two == "A", "two pieces on one square"
            if one != "A":
                state[r * 10 + c] = "R:" + one
            elif two != "A":
                state[r * 10 + c] = "B:" + two
    return state


def ataraxos_places(red: str, blue: str) -> list[str]:
    state = ["."] * 100
    for label, line in (("R", red), ("B", blue)):
        for j, letter in enumerate(line[::-1]):
            if letter != "A":
                state[j if label == "R" else 99 - j] = f"{label}:{letter}"
    return state


def own_squares(record: GameRecord) -> list[str]:
    """The setup's own squares in the same notation: what a loader must reproduce."""
    assert record.setup is not None
    out = []
    for code in record.setup:
        side = CODE_SIDE[code]
        if side in (Side.RED, Side.BLUE):
            out.append(("R:" if side == Side.RED else "B:") + CODE_LETTERS[(code - 1) % 12 + 1])
        else:
            out.append(".")
    return out


def setups_of(path: Path, variant: str, limit: int) -> list[GameRecord]:
    found = []
    for record in read_units(list(iter_units([path]))):
        if record.setup is not None and record.variant == variant:
            found.append(record)
        if len(found) == limit:
            break
    return found


def test_the_stratego_env_loader_reimplemented_places_a_known_string() -> None:
    # A blue flag at the start of its string (field [60:100] as written) stands on A7;
    # player 1's first letter, as its loader flips player 1 once more, stands on A4.
    state = stratego_env_places("M" + "A" * 39, "M" + "A" * 39)
    assert [sq for sq, piece in enumerate(state) if piece != "."] == [30, 60]


@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_stratego_env_strings_stand_on_their_setups_squares_for_both_colours(
    variant: str,
) -> None:
    games = setups_of(DATA, variant, 40)
    assert games, f"no {variant} game in data/"
    for record in games:
        assert record.setup is not None
        red = format_setup(record.setup, Side.RED, "stratego_env")
        blue = format_setup(record.setup, Side.BLUE, "stratego_env")
        assert stratego_env_places(red, blue) == own_squares(record), record.game_id
        # Written with the other colour's string, red would load mirrored left to right.
        mirrored = format_setup(record.setup, Side.RED, "ataraxos")
        if mirrored != red:
            assert stratego_env_places(mirrored, blue) != own_squares(record)


def test_ataraxos_strings_stand_on_their_setups_squares_for_both_colours() -> None:
    for record in setups_of(DATA, "classic", 40):
        assert record.setup is not None
        red = format_setup(record.setup, Side.RED, "ataraxos")
        blue = format_setup(record.setup, Side.BLUE, "ataraxos")
        assert ataraxos_places(red, blue) == own_squares(record), record.game_id


def test_side_free_stratego_env_strings_are_per_colour_and_load_unmirrored() -> None:
    # A setup seen from its owner's seat (identity codes), as `setups` lists them: the red
    # column seats it as player 1, the blue column as player 2, each the owner's way up.
    record = setups_of(DATA, "classic", 1)[0]
    assert record.setup is not None
    columns = setup_columns("stratego_env")
    assert list(columns) == ["setup_stratego_env_red", "setup_stratego_env_blue"]
    codes = owner_codes([record.setup])[0][0]
    red = code_strings([codes], "stratego_env", Side.RED)[0]
    blue = code_strings([codes], "stratego_env", Side.BLUE)[0]
    assert red == format_setup(record.setup, Side.RED, "stratego_env")
    assert red is not None and blue is not None
    placed = stratego_env_places(red, blue)
    # Red's setup on rows 1-4, and the same setup turned by 180 degrees on rows 7-10.
    assert placed[:40] == own_squares(record)[:40]
    assert [p.replace("B:", "R:") for p in placed[60:][::-1]] == placed[:40]
    with pytest.raises(ValueError, match="depend on the colour"):
        code_strings([codes], "stratego_env")


@pytest.mark.archive
def test_stratego_env_strings_of_a_real_month_stand_on_their_own_squares(
    gravon_dir: Path,
) -> None:
    month = gravon_dir / "strados2014-5.zip"
    games = setups_of(month, "classic", 300)
    assert len(games) == 300
    for record in games:
        assert record.setup is not None
        red = format_setup(record.setup, Side.RED, "stratego_env")
        blue = format_setup(record.setup, Side.BLUE, "stratego_env")
        assert stratego_env_places(red, blue) == own_squares(record), record.game_id
