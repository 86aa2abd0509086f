"""Observations: a hand-made game row by row, the export, and the archive's ground truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from conftest import older_shards
from strat_tools.core.board import parse_square, view_square
from strat_tools.core.errors import InputError, OptionError
from strat_tools.core.pieces import CODE_KIND, CODE_SIDE, letter_code
from strat_tools.core.records import GameRecord
from strat_tools.engine.encodings.actions import action_id
from strat_tools.engine.information.knowledge import KNOWN as KNOWLEDGE_KNOWN
from strat_tools.engine.information.planes import CHANNELS, board_diagram, hidden_truth, to_planes
from strat_tools.engine.position.position import Position, play_known
from strat_tools.engine.replays.replay import replay
from strat_tools.engine.rules.rule_tables import DISTANCE
from strat_tools.exports.observation_files import (
    ObservationsSummary,
    export_observations,
    read_observations,
)
from strat_tools.exports.observation_rows import OBSERVATIONS_SCHEMA
from strat_tools.exports.observations import (
    ENDINGS,
    FINGERPRINT_COLUMNS,
    boards_of,
    iter_observations,
    observe,
)
from strat_tools.formats.readers import read_records
from strat_tools.run.options import Run
from strat_tools.tables.build import tables_for_records

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture
def thirty_games(tmp_path: Path) -> Path:
    """A folder of 30 games of the sample (every 13th: all variants), as plain .xml files."""
    import zipfile

    folder = tmp_path / "thirty"
    folder.mkdir()
    with zipfile.ZipFile(DATA / "strados2026-10.zip") as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".xml"))[::13][:30]:
            (folder / Path(name).name).write_bytes(archive.read(name))
    return folder


def scout_meets_sergeant() -> GameRecord:
    """Red's scout runs E4-E6 (a long move: blue now knows it), blue's sergeant takes it,
    red's marshal steps out, the sergeant steps on, the marshal again."""
    field = ["A"] * 100
    for square in (42, 43, 46, 47, 52, 53, 56, 57):
        field[square] = "_"
    for name, letter in {"A1": "M", "E4": "D", "A4": "L", "K10": "Y", "E7": "R", "K7": "N"}.items():
        field[parse_square(name)] = letter
    moves = ["E4-E6", "E7-E6", "A4-A5", "E6-E5", "A5-A6"]
    return GameRecord(
        "scout_meets_sergeant.xml",
        variant="classicfree",
        setup=tuple(letter_code(c) for c in field),
        sources=[parse_square(m[:2]) for m in moves],
        targets=[parse_square(m[3:]) for m in moves],
    )


BLUE_BEFORE_PLY_2 = """\
10   .   .   .   .   .   .   .   .   .  -?
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .  -?
 6   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .  -2  ~~  ~~   .   .
 4  +B   .   .   .   .  +4   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  +F   .   .   .   .   .   .   .   .   ."""

RED_BEFORE_PLY_3 = """\
10   .   .   .   .   .   .   .   .   .  -?
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .  -?
 6   .   .  ~~  ~~  -4   .  ~~  ~~   .   .
 5   .   .  ~~  ~~   .   .  ~~  ~~   .   .
 4 +10   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  +F   .   .   .   .   .   .   .   .   ."""

BLUE_BEFORE_PLY_4 = """\
10   .   .   .   .   .   .   .   .   .  -?
 9   .   .   .   .   .   .   .   .   .   .
 8   .   .   .   .   .   .   .   .   .   .
 7   .   .   .   .   .   .   .   .   .   .
 6   .   .  ~~  ~~   .   .  ~~  ~~   .  -m
 5   .   .  ~~  ~~   .  +4  ~~  ~~   .   .
 4  +B   .   .   .   .   .   .   .   .   .
 3   .   .   .   .   .   .   .   .   .   .
 2   .   .   .   .   .   .   .   .   .   .
 1  +F   .   .   .   .   .   .   .   .   ."""


def test_each_row_is_the_movers_view_of_a_hand_made_game() -> None:
    table = observe(replay(scout_meets_sergeant()), "scout_meets_sergeant")
    rows = table.to_pylist()
    boards = boards_of(table)
    assert [r["ply"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["side"] for r in rows] == ["red", "blue", "red", "blue", "red"]
    # Blue sees its own back row at the bottom, the scout it saw run, the rest unknown.
    assert board_diagram(boards[1]) == BLUE_BEFORE_PLY_2
    assert board_diagram(boards[2]) == RED_BEFORE_PLY_3  # the sergeant was revealed
    assert board_diagram(boards[3]) == BLUE_BEFORE_PLY_4  # the marshal was seen moving
    # Blue's E7-E6 from its own seat is F4-F5, red's E4-E6 from blue's seat F7-F5.
    assert rows[1]["action"] == 3545 and rows[1]["last_moves"] == [6545]
    assert rows[1]["legal_actions"] == [3525, 3534, 3536, 3545]
    assert rows[1]["legal_count"] == 4 and rows[1]["action_index"] == 3  # the last, 3545
    assert rows[2]["last_moves"] == [3454, 6454]
    assert [r["plies_since_battle"] for r in rows] == [0, 1, 0, 1, 2]
    assert rows[2]["captured"][2] == 1 and rows[3]["captured"][12 + 2] == 1  # the scout
    # Free setup shows no army: no count of the opponent's kinds is known, whatever stands.
    assert list(rows[1]["unseen"]) == list(rows[2]["unseen"]) == [0] * 12
    assert [r["own_repetition"] for r in rows] == [0, 0, 1, 1, 1]
    assert all(r["value"] is None and r["winner"] is None for r in rows)


def test_hidden_truth_holds_the_pieces_the_mover_cannot_see() -> None:
    table = observe(replay(scout_meets_sergeant()), "scout_meets_sergeant")
    mask, kinds = hidden_truth(boards_of(table))
    # Before ply 3 red cannot see blue's bomb (K7) and flag (K10); it has seen the sergeant.
    hidden = {int(v): int(kinds[2, v]) for v in np.flatnonzero(mask[2])}
    assert hidden == {parse_square("K7"): 0, parse_square("K10"): 11}


@pytest.fixture(scope="module")
def sample_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[ObservationsSummary, Path]:
    """The sample's 400 games (data/) exported in shards of 40,000 rows, and the summary."""
    folder = tmp_path_factory.mktemp("sample") / "obs"
    return export_observations([DATA], folder, run=1, shard_rows=40_000), folder.parent


def test_export_writes_shards_and_accounts_for_every_input(
    sample_export: tuple[ObservationsSummary, Path],
) -> None:
    summary, tmp_path = sample_export
    games = pq.read_table(tmp_path / "obs" / "games").to_pylist()
    assert summary.games == len(games) == 400 and summary.valid == 400
    table = read_observations(tmp_path / "obs")
    assert table.schema.equals(OBSERVATIONS_SCHEMA)
    assert table.num_rows == summary.observations == sum(g["observations"] for g in games)
    assert len(summary.shards) == -(-table.num_rows // 40_000) >= 3
    files = sorted((tmp_path / "obs" / "observations").glob("*.parquet"))
    assert [f"observations/{f.name}" for f in files] == summary.shards
    meta = pq.read_metadata(files[0])
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert list((tmp_path / "obs").glob(".observations-*")) == []
    # the games table: period, ending and both setups' fingerprints, as the tables have them
    first = games[0]
    assert first["period"] == "2026-11" and first["ending"] in ENDINGS
    assert {g["ending"] for g in games} == {"board", "resigned", "agreed"}
    tables = tables_for_records(list(read_records(DATA))[:1])["games"].to_pylist()[0]
    for name in FINGERPRINT_COLUMNS:
        assert first[name] == tables[name] and len(first[name]) == 16
    # columns= and select= read only what is asked
    few = read_observations(
        tmp_path / "obs", columns=["ply", "game_id"], select=pc.field("ply") < 3
    )
    assert few.column_names == ["ply", "game_id"] and set(few["ply"].to_pylist()) == {1, 2}
    assert few.num_rows == 2 * sum(1 for g in games if g["observations"] >= 2)
    one = read_observations(tmp_path / "obs", columns=["action"], select=[first["game_id"]])
    assert one.column_names == ["action"] and one.num_rows == first["observations"]
    with pytest.raises(OptionError, match="no column 'bord'"):
        read_observations(tmp_path / "obs", columns=["bord"])


def test_the_action_index_is_where_the_move_played_stands_among_the_legal_ones(
    sample_export: tuple[ObservationsSummary, Path],
) -> None:
    """On the sample's rows: ``legal_count`` is each row's number of legal moves and the
    label ``action_index`` the index of ``action`` in its ascending ``legal_actions`` (the
    legal ids below the played one, counted, where the played one is there once)."""
    table = read_observations(
        sample_export[1] / "obs", columns=["action", "legal_actions", "legal_count", "action_index"]
    )
    lists = table.column("legal_actions").combine_chunks()
    counts = np.diff(lists.offsets.to_numpy())
    values = lists.values.to_numpy()
    row = np.repeat(np.arange(table.num_rows), counts)
    played = table.column("action").to_numpy()[row]
    n = table.num_rows
    assert (np.bincount(row, values == played, n) == 1).all()  # once among the legal moves
    below = np.bincount(row, values < played, n).astype(np.int64)
    assert table.column("legal_count").to_numpy().tolist() == counts.tolist()
    assert table.column("action_index").to_numpy().tolist() == below.tolist()
    assert len(set(below.tolist())) > 20  # not all first or last: the test can fail


def test_an_unreadable_input_is_a_games_row_with_its_reason(
    tmp_path: Path, thirty_games: Path
) -> None:
    broken = tmp_path / "broken.xml"
    broken.write_text("<stratego><game type='classic'>", encoding="utf-8")
    batches = list(iter_observations([broken, thirty_games], run=1))
    games = [row for b in batches for row in b["games"].to_pylist()]
    assert games[0]["status"] == "invalid" and games[0]["observations"] == 0
    assert games[0]["reason"].startswith("[")
    assert sum(g["observations"] for g in games) == sum(b["observations"].num_rows for b in batches)


def test_a_failed_export_leaves_the_folder_as_it_was(tmp_path: Path, thirty_games: Path) -> None:
    out = tmp_path / "obs"
    export_observations([thirty_games], out, run=1)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))

    def fail(_tables: object) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        export_observations([thirty_games], out, run=1, on_batch=fail)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


# -- ground truth on real games ------------------------------------------------------


def _check_game(table, result) -> int:  # type: ignore[no-untyped-def]
    """Hidden truth equals the replay's true pieces, nothing is identified before the ply
    it was shown, and planes from the stored bytes equal planes computed directly."""
    record = result.record
    boards = boards_of(table)
    know = result.knowledge()
    pos = Position(record.setup, result.rules)
    shown_at: dict[int, int] = {}  # piece id -> first ply after which its rank was shown
    piece_at = {sq: sq for sq in range(100) if CODE_SIDE[record.setup[sq]]}
    planes = to_planes(boards)
    for index in range(table.num_rows):
        side = pos.side
        truth = pos.board
        mask, kinds = hidden_truth(boards[index : index + 1])
        for square in range(100):
            view = view_square(square, side)
            code = truth[square]
            assert kinds[0, view] == (CODE_KIND[code] if CODE_SIDE[code] else -1)
            if mask[0, view]:
                assert CODE_SIDE[code] == 3 - side
            elif CODE_SIDE[code] == 3 - side and not know.flags[index, square] & KNOWLEDGE_KNOWN:
                raise AssertionError("an unknown piece is not in the hidden mask")
            if CODE_SIDE[code] == 3 - side and not mask[0, view]:
                piece = piece_at[square]
                assert piece in shown_at and shown_at[piece] <= index, (record.game_id, index)
        if index % 10 == 0:
            _direct_planes_equal(planes[index], truth, know.flags[index], side)
        source, target = record.sources[index], record.targets[index]
        assert table.column("action")[index].as_py() == action_id(source, target, side)
        _track(pos, record, result, index, piece_at, shown_at)
    return table.num_rows


def _track(pos, record, result, index, piece_at, shown_at) -> None:  # type: ignore[no-untyped-def]
    """Play ply ``index`` and note which pieces it showed (a battle, a long scout move, a
    rescue), following every piece by the square it started on."""
    source, target = record.sources[index], record.targets[index]
    mover = piece_at.pop(source)
    defender = piece_at.get(target)
    distance = result.distances[index]
    kind = CODE_KIND[pos.board[source]]
    turned = kind == 6 and DISTANCE[source * 100 + target] == 0  # a lightning captain
    battle_shows = defender is not None and result.revealed[index] & 1
    if battle_shows or (distance > 1 and kind == 2) or turned:
        shown_at.setdefault(mover, index + 1)
    if defender is not None and result.revealed[index] & 2:
        shown_at.setdefault(defender, index + 1)
    rescue = None
    if index + 1 in result.rescued:
        rescue = (record.rescues[index + 1].square, result.rescued[index + 1])
    play_known(pos, source, target, rescue)
    piece_at.pop(target, None)
    if pos.board[target] and CODE_SIDE[pos.board[target]]:
        piece_at[target] = mover if pos.board[target] == result.movers[index] else defender
    if rescue is not None:
        piece_at[rescue[0]] = 1000 + index
        shown_at[1000 + index] = index + 1


def _direct_planes_equal(planes, truth, flags, side) -> None:  # type: ignore[no-untyped-def]
    """The planes of one position built square by square from the true board and the
    knowledge flags, compared with ``to_planes`` of the stored bytes."""
    from strat_tools.engine.information.knowledge import MOVED, REVEALED

    expected = np.zeros((len(CHANNELS), 10, 10), dtype=bool)
    index = {name: i for i, name in enumerate(CHANNELS)}
    labels = ("bomb", "spy", "scout", "miner", "sergeant", "lieutenant", "captain", "major")
    labels += ("colonel", "general", "marshal", "flag")
    for square in range(100):
        row, col = divmod(view_square(square, side), 10)
        code, bits = truth[square], int(flags[square])
        if code == 0:
            expected[index["empty"], row, col] = True
        elif code == 25:
            expected[index["lake"], row, col] = True
        elif CODE_SIDE[code] == side:
            expected[index["own_" + labels[CODE_KIND[code]]], row, col] = True
            expected[index["own_known_to_opponent"], row, col] = bool(bits & KNOWLEDGE_KNOWN)
            expected[index["own_moved"], row, col] = bool(bits & MOVED)
            expected[index["own_revealed"], row, col] = bool(bits & REVEALED)
        elif bits & KNOWLEDGE_KNOWN:
            expected[index["opponent_" + labels[CODE_KIND[code]]], row, col] = True
            if CODE_KIND[code] == 2 and not bits & REVEALED:
                expected[index["opponent_scout_by_move"], row, col] = True
        else:
            name = "opponent_unknown_moved" if bits & MOVED else "opponent_unknown_unmoved"
            expected[index[name], row, col] = True
    assert np.array_equal(planes, expected)


def _ground_truth(paths: list[Path], tmp_path: Path) -> int:
    from strat_tools.formats.readers import read_units
    from strat_tools.io.sources import iter_units

    export_observations(paths, tmp_path / "obs", run=1)
    stored = read_observations(tmp_path / "obs")
    starts = {}
    ids = stored.column("game_id").to_pylist()
    for row, game_id in enumerate(ids):
        starts.setdefault(game_id, row)
    rows = 0
    for record in read_units(list(iter_units(paths))):
        result = replay(record)
        if record.game_id not in starts:
            continue
        table = stored.slice(starts[record.game_id], result.plies_replayed)
        assert set(table.column("game_id").to_pylist()) == {record.game_id}
        rows += _check_game(table, result)
    assert rows == stored.num_rows
    return rows


def test_ground_truth_on_the_sample(tmp_path: Path, thirty_games: Path) -> None:
    assert _ground_truth([thirty_games], tmp_path) > 3_000


@pytest.mark.slow
@pytest.mark.archive
def test_ground_truth_on_real_games_of_both_periods(gravon_dir: Path, tmp_path: Path) -> None:
    """2005-5 (2004 rules, ultimate lightning) and 2014-4 (2013 rules, duell, lightning,
    classicfree): labels, identification and planes at every ply of every game."""
    months = [gravon_dir / "strados2005-5.zip", gravon_dir / "strados2014-4.zip"]
    assert _ground_truth(months, tmp_path) > 250_000


@pytest.mark.slow
def test_a_local_dask_cluster_writes_the_same_observations(
    tmp_path: Path, thirty_games: Path
) -> None:
    pytest.importorskip("dask.distributed", reason="Dask is the optional 'dist' extra")
    export_observations([thirty_games], tmp_path / "local", run=1)
    export_observations([thirty_games], tmp_path / "dask", run=Run(jobs=2, dask=True))
    assert read_observations(tmp_path / "dask").equals(read_observations(tmp_path / "local"))


def test_a_game_the_observer_fails_on_is_an_invalid_row_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, thirty_games: Path
) -> None:
    import strat_tools.exports.observations as observations

    real = observations.game_columns
    calls = []

    def flaky(result, know, legal, last_moves=8):  # type: ignore[no-untyped-def]
        calls.append(result.record.game_id)
        if len(calls) == 2:
            raise IndexError("a bug")
        return real(result, know, legal, last_moves)

    monkeypatch.setattr(observations, "game_columns", flaky)
    batches = list(iter_observations([thirty_games], run=1))
    games = [row for b in batches for row in b["games"].to_pylist()]
    failed = [g for g in games if g["reason"] and "internal.observations" in g["reason"]]
    assert len(games) == 30 and len(failed) == 1
    assert failed[0]["status"] == "invalid" and failed[0]["observations"] == 0
    assert "IndexError: a bug" in failed[0]["reason"]


def test_a_game_whose_move_is_not_among_its_legal_moves_is_an_invalid_row(
    monkeypatch: pytest.MonkeyPatch, thirty_games: Path
) -> None:
    """The label action_index is made a game at a time: a game whose played move is not
    among the legal moves given (here, none of its ids kept) is that game's invalid row with
    the reason, not a batch lost."""
    import strat_tools.exports.observations as observations

    real = observations.game_columns
    calls = []

    def no_ids(result, know, legal, last_moves=8):  # type: ignore[no-untyped-def]
        calls.append(result.record.game_id)
        if len(calls) == 2:
            legal = (legal[0], np.full_like(legal[1], -1))
        return real(result, know, legal, last_moves)

    monkeypatch.setattr(observations, "game_columns", no_ids)
    games = [
        row for b in iter_observations([thirty_games], run=1) for row in b["games"].to_pylist()
    ]
    failed = [g for g in games if g["status"] != "valid"]
    assert len(games) == 30 and [g["game_id"] for g in failed] == [calls[1]]
    assert "not once among the legal moves" in failed[0]["reason"]


def test_an_export_of_an_older_schema_is_refused_not_read_as_nulls(
    tmp_path: Path, thirty_games: Path
) -> None:
    """A version 2 shard has no board_view: pyarrow would read it as nulls (the readers
    give their schema), so the readers refuse it by name."""
    from strat_tools.exports.observation_batches import observation_batches

    export_observations([thirty_games], tmp_path / "obs", run=1)
    older_shards(tmp_path / "obs", ["board_view"], "2")
    with pytest.raises(InputError, match=r"no column 'board_view'.*schema version 2"):
        read_observations(tmp_path / "obs")
    assert read_observations(tmp_path / "obs", columns=["action"]).num_rows > 0
    with pytest.raises(InputError, match="no column 'board_view'"):
        observation_batches(tmp_path / "obs")
