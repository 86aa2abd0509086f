"""The shipped move model beside the tables (``benchmark/model_columns.py``,
``events --with-model``): each row's probability and rank are the game's model's
(``game_move_model``) at that ply, null (never zero) where there is no model row (another
variant, an unreadable game), and the plain ``events`` keeps its columns."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner

from strat_tools.benchmark.game_models import game_move_model
from strat_tools.benchmark.model_columns import (
    MOVE_MODEL_SCHEMA,
    iter_model_events,
    read_move_model,
)
from strat_tools.benchmark.policies import DEFAULTS, load
from strat_tools.benchmark.policy import MovePolicy
from strat_tools.cli import main
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import read_records

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "strados2026-10.zip"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two classic games, one barrage game and one truncated record."""
    folder = tmp_path_factory.mktemp("mixed")
    with zipfile.ZipFile(SAMPLE) as archive:
        names = sorted(archive.namelist())
        wanted = [n for n in names if n.startswith("classic-")][:2]
        wanted += [n for n in names if n.startswith("barrage-")][:1]
        for name in wanted:
            (folder / name).write_bytes(archive.read(name))
    shutil.copy(REPO / "tests" / "fixtures" / "gravon" / "truncated.xml", folder)
    return folder


@pytest.fixture(scope="module")
def per_ply(mixed: Path) -> pa.Table:
    return read_move_model(mixed, run=1)


def test_each_ply_s_row_is_the_game_model_s(mixed: Path, per_ply: pa.Table) -> None:
    table = per_ply
    assert table.schema.equals(MOVE_MODEL_SCHEMA)
    human = load(DEFAULTS["move"])
    assert isinstance(human, MovePolicy)
    classic = [r for r in read_records(mixed) if r.variant == "classic"]
    assert set(table.column("game_id").to_pylist()) == {r.game_id for r in classic}
    for record in classic:
        model = game_move_model(replay(record), human)
        assert model is not None
        rows = table.filter(pa.compute.equal(table.column("game_id"), record.game_id))
        assert rows.column("ply").to_pylist() == list(range(1, model.plies + 1))
        probs = np.exp(model.played_log_probs())
        assert np.allclose(rows.column("move_prob").to_numpy(), probs, rtol=1e-12)
        assert rows.column("move_rank").to_pylist() == model.ranks().tolist()
        assert rows.column("legal_moves").to_pylist() == np.diff(model.offsets).tolist()
        sides = rows.column("side").to_pylist()
        assert sides == ["blue" if b else "red" for b in model.blue]


def test_events_carry_the_model_s_columns_null_where_no_model_row(
    mixed: Path, per_ply: pa.Table
) -> None:
    expected_rows = per_ply.to_pandas().set_index(["game_id", "ply"])
    events = pa.concat_tables(list(iter_model_events(mixed, run=1))).to_pandas()
    classic = events[events["game_id"].str.startswith("classic-")]
    assert len(classic) > 2
    expected = expected_rows.loc[list(zip(classic["game_id"], classic["ply"], strict=True))]
    assert np.allclose(classic["move_prob"].to_numpy(), expected["move_prob"].to_numpy())
    assert (classic["move_rank"].to_numpy() == expected["move_rank"].to_numpy()).all()
    others = events[~events["game_id"].str.startswith("classic-")]
    assert {"barrage", "truncated"} <= {g.split("-")[0] for g in others["game_id"]}
    assert others[["legal_moves", "move_prob", "move_rank"]].isna().all().all()


def test_the_flag_adds_the_columns_and_the_plain_events_stay_as_they_were(mixed: Path) -> None:
    runner = CliRunner()
    plain = runner.invoke(main, ["events", str(mixed), "--format", "csv", "-j", "1"])
    model = runner.invoke(
        main,
        ["events", str(mixed), "--format", "csv", "-j", "1", "--with-model", "--policy", "uniform"],
    )
    assert plain.exit_code == 0 and model.exit_code == 0, model.output
    header = plain.stdout.splitlines()[0]
    assert "move_prob" not in header
    assert model.stdout.splitlines()[0] == header + ",legal_moves,move_prob,move_rank"
    assert len(model.stdout.splitlines()) == len(plain.stdout.splitlines())


@pytest.mark.parametrize(
    "args", [["--policy", "counts"], ["--with-model", "--policy", "belief-prior"]]
)
def test_a_wrong_policy_is_a_usage_error(mixed: Path, args: list[str]) -> None:
    done = CliRunner().invoke(main, ["events", str(mixed), "-j", "1", *args])
    assert done.exit_code == 2
    assert done.stdout == ""
