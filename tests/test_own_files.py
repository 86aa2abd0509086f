"""A file the project wrote itself is still an input: the export marker and ``--ids``.

Round five (issue 45.1, the generic part): every field of a file strat-tools reads back is
checked (the keys it writes and no other, numbers whole, finite and in range, flags real
flags, names inside their folder, strict JSON of bounded size and depth), else it is refused
with a message naming the field. Before, a marker with ``"bytes": -1``, ``"complete":
"no"`` (taken as true), an unknown key, a run id of ``7`` or a file named ``../x`` was read
as if it were sound. One test per class of defect, on a real export's marker.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.errors import DatasetError
from strat_tools.io.output import OutputError
from strat_tools.io.owned import MARKER_NAME, read_marker
from strat_tools.run.driver import export_dataset, read_games
from strat_tools.run.filters import FilterError, read_id_file

GAME = Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real export's marker, as JSON."""
    folder = tmp_path_factory.mktemp("export") / "tables"
    export_dataset(GAME, folder, setups_only=True, run=1)
    data: dict[str, Any] = json.loads((folder / MARKER_NAME).read_text())
    return data


def marked(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "tables"
    folder.mkdir(parents=True)
    (folder / MARKER_NAME).write_text(text)
    return folder


def refused(tmp_path: Path, data: Any) -> str:
    folder = marked(tmp_path, data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(OutputError) as caught:
        read_marker(folder)
    return str(caught.value)


def first_file(data: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = next(iter(data["files"].values()))
    return entry


def test_the_sound_marker_reads(sound: dict[str, Any], tmp_path: Path) -> None:
    marker = read_marker(marked(tmp_path, json.dumps(sound)))
    assert marker is not None and marker.complete and marker.output == "dataset"


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("complete", "no", "complete: 'no' is not true or false"),
        ("complete", 1, "complete: 1 is not true or false"),
        ("run_id", 7, "run_id: 7 is not a run id"),
        ("run_id", "not-hex", "run_id: 'not-hex' is not a run id"),
        ("output", ["dataset"], "output: ['dataset'] is not a kind of output"),
        ("files", [], "files: [] is not an object"),
    ],
)
def test_a_wrong_typed_field_is_refused_by_name(
    sound: dict[str, Any], tmp_path: Path, field: str, value: Any, named: str
) -> None:
    assert named in refused(tmp_path, {**sound, field: value})


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (-1, "-1 is not a whole number"),
        ("12", "'12' is not a whole number"),
        (12.5, "12.5 is not a whole number"),
        (True, "True is not a whole number"),
        (10**400, "an integer of 401 digits is not a whole number"),
    ],
    ids=["negative", "text", "fraction", "bool", "400 digits"],
)
def test_a_size_out_of_its_range_is_refused(
    sound: dict[str, Any], tmp_path: Path, value: Any, named: str
) -> None:
    data = json.loads(json.dumps(sound))
    first_file(data)["bytes"] = value
    message = refused(tmp_path, data)
    assert ".bytes: " in message and named in message


def test_nan_and_infinity_are_refused(sound: dict[str, Any], tmp_path: Path) -> None:
    text = json.dumps(sound)
    size = first_file(sound)["bytes"]
    for constant in ("NaN", "Infinity", "-Infinity"):
        message = refused(
            tmp_path / constant, text.replace(f'"bytes": {size}', f'"bytes": {constant}')
        )
        assert f"{constant} is not a number a file of ours holds" in message


@pytest.mark.parametrize("where", ["top", "file"])
def test_an_unknown_key_is_refused_not_ignored(
    sound: dict[str, Any], tmp_path: Path, where: str
) -> None:
    data = json.loads(json.dumps(sound))
    (data if where == "top" else first_file(data))["extra"] = 1
    assert "unknown key 'extra'" in refused(tmp_path, data)


@pytest.mark.parametrize("name", ["../outside.parquet", "/etc/passwd", "a//b", "games\\x", ""])
def test_a_file_name_outside_its_folder_is_refused(
    sound: dict[str, Any], tmp_path: Path, name: str
) -> None:
    data = json.loads(json.dumps(sound))
    data["files"][name] = first_file(data)
    assert "is not a file name inside its folder" in refused(tmp_path, data)


def test_a_digest_that_is_no_sha256_is_refused(sound: dict[str, Any], tmp_path: Path) -> None:
    data = json.loads(json.dumps(sound))
    first_file(data)["sha256"] = "abc"
    assert "'abc' is not a SHA-256" in refused(tmp_path, data)


def test_malformed_json_is_refused(sound: dict[str, Any], tmp_path: Path) -> None:
    text = json.dumps(sound)
    twice = text.replace('"kind":', '"run_id": "x", "kind":', 1)
    assert "is given twice" in refused(tmp_path / "twice", twice)
    deep = "[" * 100_000 + "]" * 100_000
    assert "nested more than" in refused(tmp_path / "deep", deep)
    assert "is not an object" in refused(tmp_path / "list", "[]")


def test_a_marker_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    os.mkfifo(folder / MARKER_NAME)
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(_refusal(folder)), daemon=True)
    reader.start()
    reader.join(60)  # a hang guard: it answers at once
    assert result and "not a regular file" in result[0]


def _refusal(folder: Path) -> str:
    try:
        read_marker(folder)
    except OutputError as exc:
        return str(exc)
    return ""


def test_reading_a_dataset_with_a_bad_marker_names_the_field(
    sound: dict[str, Any], tmp_path: Path
) -> None:
    folder = tmp_path / "tables"
    export_dataset(GAME, folder, setups_only=True, run=1)
    data = json.loads((folder / MARKER_NAME).read_text())
    first_file(data)["bytes"] = -5
    (folder / MARKER_NAME).write_text(json.dumps(data))
    with pytest.raises(DatasetError, match=r"\.bytes: -5 is not a whole number"):
        read_games(folder, run=1)
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert result.exit_code == 3 and ".bytes: -5" in result.output, result.output


def test_an_ids_file_with_a_control_character_is_refused(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_bytes(b"classic-2014.4-17\nbad\x00id\n")
    with pytest.raises(FilterError, match=r"line 2: 'bad\\x00id' is not a game id"):
        read_id_file(ids)
    ids.write_bytes(b"\xef\xbb\xbfclassic-2014.4-17  # a comment\nNAME#2\n")
    assert read_id_file(ids) == ["classic-2014.4-17", "NAME#2"]


def test_a_staging_folder_naming_no_possible_process_is_left_alone(tmp_path: Path) -> None:
    """A staging folder's name holds the process id of the run that made it; one naming a
    process id no system gives (a name no run of ours wrote) is left alone, never an
    ``OverflowError`` from ``kill`` (a traceback, before)."""
    folder = tmp_path / "tables"
    export_dataset(GAME, folder, setups_only=True, run=1)
    stranger = folder / ".dataset.tmp-99999999999999999999-abcdefgh"
    stranger.mkdir()
    export_dataset(GAME, folder, setups_only=True, run=1)
    assert stranger.is_dir()


def test_the_collector_is_put_back_as_it_was_even_after_an_error() -> None:
    """The manifest is read with the cyclic collector paused: afterwards it is on again if it
    was on, off if the caller had turned it off, whatever the reading raised."""
    import gc

    from strat_tools.io.own_files import collector_paused

    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        assert not gc.isenabled()
        raise ValueError("a manifest that failed its checks")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
