"""Acceptance on the real Gravon archive: every game replays valid under its ``auto`` rules,
none stays unchecked, and the findings in docs/rules-findings.md hold. Skips without it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from conftest import shared_value
from strat_tools.core.pieces import CODE_KIND, PieceKind
from strat_tools.core.records import GameRecord, Status, Termination
from strat_tools.engine.replays.replay import Replay, replay
from strat_tools.formats.readers import read_records

pytestmark = [pytest.mark.archive, pytest.mark.slow]

FALLBACK_GAMES = {
    "barrage-2013.10-1649",
    "classic-2013.10-2001",
    "classic-2014.0-346",
    "classic-2014.0-496",
    "classic-2014.0-1533",
    "classic-2014.0-1754",
    "classic-2014.1-2553",
    "classic-2014.3-330",
    "classic-2014.4-876",
    "classic-2014.8-665",
    "classic-2014.8-1534",
    "classic-2014.8-2047",
    "classic-2014.8-2433",
}


@pytest.fixture(scope="module")
def replays(gravon_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Replay]:
    """Every archive game replayed, once per run (shared by the xdist workers)."""
    return shared_value(
        tmp_path_factory,
        "archive-replays",
        lambda: [replay(record) for record in read_records([str(gravon_dir)])],
    )


def test_every_game_is_valid(replays: list[Replay]) -> None:
    assert len(replays) == 13980
    statuses = Counter((r.record.variant, r.status.value) for r in replays)
    assert statuses == {
        ("classic", "valid"): 12400,
        ("barrage", "valid"): 1440,
        ("ultimate lightning", "valid"): 55,
        ("classicfree", "valid"): 54,
        ("duell", "valid"): 31,
    }
    assert not any(r.status is Status.UNCHECKED for r in replays)


def test_engine_diagnostics_are_the_documented_ones(replays: list[Replay]) -> None:
    codes = Counter(d.code for r in replays for d in r.diagnostics)
    assert codes == {"rules.two_squares_fallback": 13, "result.no_moves": 1}
    fallback = {r.record.game_id for r in replays if r.rules.name.endswith("+limit5")}
    assert fallback == FALLBACK_GAMES
    warned = [
        r.record.game_id for r in replays if any(d.code == "result.no_moves" for d in r.diagnostics)
    ]
    assert warned == ["classic-2014.10-2587"]


def test_flag_results_match_the_board(replays: list[Replay]) -> None:
    for result in replays:
        recorded = result.record.result
        if recorded is not None and recorded.type == 1:
            assert result.termination is Termination.FLAG_CAPTURED
            assert result.winner == recorded.winner


def test_no_chase_repeats_a_position(gravon_dir: Path) -> None:
    records = [r for r in read_records([str(gravon_dir / "strados2014-5.zip")])]
    statuses = Counter(replay(r, "auto+chasing").status for r in records)
    assert statuses == {Status.VALID: len(records)}


def _rescues(replays: list[Replay]) -> list[tuple[GameRecord, int, int]]:
    return [(r.record, ply, code) for r in replays for ply, code in r.rescued.items()]


def test_rescues_bring_back_captured_pieces_of_the_rescuer(replays: list[Replay]) -> None:
    rescues = _rescues(replays)
    assert len(rescues) == 83  # in 33 games
    kinds = Counter(PieceKind(CODE_KIND[code]).label for _, _, code in rescues)
    assert kinds["bomb"] == 4  # Gravon let bombs be rescued
    for record, ply, code in rescues:
        side = 1 + (ply - 1) % 2
        assert (code <= 12) == (side == 1), (record.game_id, ply)
