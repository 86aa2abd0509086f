"""strat_tools.env: the PettingZoo AEC environment (the ``env`` extra).

PettingZoo's own API checker passes; a record's actions replay to its recorded result (the
sample month here, 100 real games on the archive); random games played through the
environment, written as records, are valid under ``validate``; a player's observation shows
only what that player could know.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra: pip install 'strat-tools[env]'")

from pettingzoo.test import api_test

from strat_tools.core.errors import IllegalMove, OptionError
from strat_tools.core.pieces import letter_code
from strat_tools.core.records import GameRecord, Status
from strat_tools.engine.information.knowledge import pushed_knowledge
from strat_tools.engine.information.planes import CHANNELS, encode_boards, to_planes
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.env import env, play_random, raw_env, record_actions
from strat_tools.exports.validate import validate
from strat_tools.formats.readers import read_records
from strat_tools.formats.xml_writer import game_file_name, record_to_xml

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "strados2026-10.zip"
RANDOM_GAMES = 10
"""Random games played here, about 1,300 plies each (bench/env_random_games.py plays 1,000)."""


@pytest.mark.parametrize("make", [env, raw_env], ids=["wrapped", "raw"])
def test_pettingzoos_api_checker_passes(make: object) -> None:
    api_test(make(), num_cycles=1000)  # type: ignore[operator]


def replayed_to_the_end(record: GameRecord, rules: object = None) -> raw_env:
    """``record``'s actions stepped through the environment (it follows the record)."""
    game = raw_env()
    game.reset(options={"replay": record, "rules": rules})
    for action in record_actions(record):
        assert not game.terminations[game.agent_selection], record.game_id
        assert action in game.infos[game.agent_selection]["legal_ids"]
        game.step(action)
    return game


def expected_rewards(record: GameRecord) -> dict[str, float]:
    assert record.result is not None
    winner = record.result.winner
    if winner not in (1, 2):
        return {"player_0": 0.0, "player_1": 0.0}
    return {"player_0": 1.0 if winner == 1 else -1.0, "player_1": 1.0 if winner == 2 else -1.0}


def assert_reaches_its_result(record: GameRecord, rules: object = None) -> None:
    game = replayed_to_the_end(record, rules)
    assert game.terminations == {"player_0": True, "player_1": True}, record.game_id
    assert game.outcome is not None and game.outcome.result == record.result, record.game_id
    assert game.rewards == expected_rewards(record), record.game_id


def test_a_records_actions_replay_to_its_recorded_result() -> None:
    records = list(read_records([str(SAMPLE)]))[:25]
    endings = {r.result.termination.name for r in records if r.result is not None}
    assert len(endings) >= 2  # the board's endings and the record's own
    for record in records:
        assert_reaches_its_result(record)


def test_a_hundred_real_games_replay_to_their_recorded_results(gravon_dir: Path) -> None:
    """Every tenth game of May 2014 (classic and barrage; flags captured, no moves left,
    resignations and a draw agreed): 27,103 plies."""
    records = list(read_records([str(gravon_dir / "strados2014-5.zip")]))[::10][:100]
    assert len(records) == 100 and sum(r.plies for r in records) == 27_103
    for record in records:
        replayed = replay(record)
        assert replayed.status is Status.VALID, record.game_id
        assert_reaches_its_result(record, replayed.rules)


def test_rescues_are_made_by_following_a_record_that_made_them(
    gravon_dir: Path, tmp_path: Path
) -> None:
    """Ultimate lightning's rescues are no actions: following a record, the env makes the
    record's rescue with its move, reaches the recorded result and writes the rescues."""
    records = [
        r
        for r in read_records([str(gravon_dir / "strados2005-5.zip")])
        if r.variant == "ultimate lightning" and r.rescues
    ]
    assert len(records) >= 2
    for record in records:
        replayed = replay(record)
        if replayed.status is not Status.VALID:
            continue
        assert_reaches_its_result(record, replayed.rules)
        game = replayed_to_the_end(record, replayed.rules)
        made = game.record(
            variant=record.variant, year=record.year, month=record.month, number=record.number
        )
        assert made.rescues == record.rescues
        (tmp_path / game_file_name(made)).write_bytes(record_to_xml(made))
    report = validate(str(tmp_path), run=1)
    assert report.summary.games >= 2 and report.summary.by_status == {"valid": report.summary.games}


def test_a_record_is_followed_only_while_its_moves_are_played() -> None:
    """Leave the record's line and its ending (a resignation) no longer applies."""
    (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    game = raw_env()
    game.reset(options={"replay": record})
    actions = record_actions(record)
    for action in actions[:-1]:
        game.step(action)
    other = [a for a in game.infos[game.agent_selection]["legal_ids"] if a != actions[-1]]
    game.step(other[0])
    assert game.outcome is None and not any(game.terminations.values())
    started = raw_env()
    started.reset(options={"record": record})  # the setups only: never the record's ending
    for action in actions:
        started.step(action)
    assert started.outcome == Position(record.setup).outcome() is None


def test_random_games_through_the_env_are_valid_records(tmp_path: Path) -> None:
    """Every game a random policy plays through the wrapped environment, written by the
    library's XML writer, is valid under ``validate`` with the ending the env gave it."""
    for number in range(1, RANDOM_GAMES + 1):
        game = env()
        game.reset(seed=number)
        play_random(game, seed=number)
        record = game.unwrapped.record(year=2026, month=11, number=number)
        assert record.result is not None
        (tmp_path / game_file_name(record)).write_bytes(record_to_xml(record))
    report = validate(str(tmp_path), run=1)
    assert report.summary.games == RANDOM_GAMES
    assert report.summary.by_status == {"valid": RANDOM_GAMES}, report.summary.line()


def test_the_observation_is_the_knowledge_models_view_at_every_ply() -> None:
    """The environment's incremental observer equals the knowledge model built from the
    setup (``Position.knowledge()``), for both players, all along a random game."""
    game = raw_env(max_plies=300)
    game.reset(seed=7)
    rng = random.Random(7)
    setup = list(game.position.board)
    moves: list[tuple[int, int, None]] = []
    events = []
    while not (game.terminations["player_0"] or game.truncations["player_0"]):
        action = rng.choice(game.infos[game.agent_selection]["legal_ids"])
        game.step(action)
        last = game.position.history
        assert last is not None
        moves.append((last.move.source, last.move.target, None))
        events.append(last.event)
        if len(moves) % 50:
            continue
        know = pushed_knowledge(setup, game.position.rules, moves, events)
        for agent, side in (("player_0", 1), ("player_1", 2)):
            boards = encode_boards(know.boards[-1:], know.flags[-1:], [side])
            expected = to_planes(boards)[0].transpose(1, 2, 0)
            assert np.array_equal(game.observe(agent)["observation"], expected)
    assert len(moves) >= 100


SETUP = (
    "MBDDDDDDDD" "BBBBBEEEEE" "FFFFGGGGHH" "HHIIIJJKLC"
    "AA__AA__AA" "AA__AA__AA"
    "OXWVVUUUTT" "TTSSSSRRRR" "QQQQQNNNNN" "PPPPPPPPNY"
)  # fmt: skip
"""A classic game's field, row 1 (red's back row) first (``B``-``M`` red, ``N``-``Y``
blue, bomb to flag): blue's marshal ``X`` on its front row, bombs ``N`` behind."""
MARSHAL, BOMB = SETUP.index("X"), SETUP.index("N")


def field(text: str) -> tuple[int, ...]:
    return tuple(letter_code(c) for c in text)


def test_an_unidentified_piece_shows_only_that_it_moved_or_not() -> None:
    """Swap an unmoved blue marshal with a blue bomb: red's view is unchanged (the rules
    hide it), blue's own view is not; a blue piece that moves shows red only that it moved."""
    swapped = list(SETUP)
    swapped[MARSHAL], swapped[BOMB] = "N", "X"
    views = []
    for text in (SETUP, "".join(swapped)):
        game = raw_env()
        game.reset(options={"position": Position(field(text))})
        views.append({agent: game.observe(agent)["observation"] for agent in game.agents})
    assert np.array_equal(views[0]["player_0"], views[1]["player_0"])
    assert not np.array_equal(views[0]["player_1"], views[1]["player_1"])
    game = raw_env()
    game.reset(options={"position": Position(field(SETUP))})
    game.step(game.infos["player_0"]["legal_ids"][0])
    game.step(game.infos["player_1"]["legal_ids"][0])
    red = game.observe("player_0")["observation"]
    moved, unmoved = (CHANNELS.index(f"opponent_unknown_{w}") for w in ("moved", "unmoved"))
    assert int(red[..., moved].sum()) == 1 and int(red[..., unmoved].sum()) == 39
    identified = [CHANNELS.index(f"opponent_{k}") for k in ("marshal", "bomb", "flag")]
    assert not red[..., identified].any()


def test_a_position_with_moves_keeps_what_each_side_saw() -> None:
    """Started from a position with a move stack, the env follows the stack: the moved
    piece is known to have moved, as when the moves are played through the env."""
    pos = Position(field(SETUP))
    pos.push("A4-A5")
    game = raw_env()
    game.reset(options={"position": pos})
    moved = CHANNELS.index("opponent_unknown_moved")
    assert int(game.observe("player_1")["observation"][..., moved].sum()) == 1
    assert game.agent_selection == "player_1"
    with pytest.raises(OptionError, match="no setup to write"):
        game.record()
    game.reset(options={"position": pos.strados3()})  # a string: nothing seen before it
    assert int(game.observe("player_1")["observation"][..., moved].sum()) == 0


def test_the_mask_and_legal_ids_are_the_player_to_moves_only() -> None:
    game = raw_env()
    game.reset(seed=5)
    ids = game.infos["player_0"]["legal_ids"]
    mask = game.observe("player_0")["action_mask"]
    assert ids == sorted(ids) and np.flatnonzero(mask).tolist() == ids
    assert not game.observe("player_1")["action_mask"].any()
    assert game.infos["player_1"]["legal_ids"] == []


def test_an_illegal_action_raises_and_the_wrapped_env_ends_the_game_for_it() -> None:
    game = raw_env()
    game.reset(seed=2)
    illegal = next(a for a in range(10_000) if a not in game.infos["player_0"]["legal_ids"])
    with pytest.raises(IllegalMove, match="no legal move"):
        game.step(illegal)
    wrapped = env()
    wrapped.reset(seed=2)
    wrapped.step(illegal)  # PettingZoo logs a warning and ends the game
    assert wrapped.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(wrapped.terminations.values())


def test_the_same_seed_draws_the_same_setups() -> None:
    first, second, other = raw_env(), raw_env(), raw_env()
    first.reset(seed=11)
    second.reset(seed=11)
    other.reset(seed=12)
    assert first.position == second.position != other.position


def test_bad_starts_and_settings_are_option_errors() -> None:
    with pytest.raises(OptionError, match="setup model"):
        raw_env(variant="ultimate lightning")
    with pytest.raises(OptionError, match="max_plies"):
        raw_env(max_plies=0)
    game = raw_env()
    (record,) = read_records(["tests/fixtures/gravon/classic-2014.4-17.xml"])
    with pytest.raises(OptionError, match="one start"):
        game.reset(options={"record": record, "position": Position(record.setup)})
    with pytest.raises(OptionError, match="a position"):
        game.reset(options={"position": 3})


def test_without_the_extra_the_import_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['pettingzoo'] = None  # as if the env extra were not installed\n"
        "try:\n"
        "    import strat_tools.env\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "pip install 'strat-tools[env]'" in run.stdout, run.stderr
