"""The command line: exit codes, output formats, messages on stderr, help with examples.

Inputs are made here: legal games from the generator, and broken files written by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.formats.xml_writer import write_games
from strat_tools.generate.games import generate_games

TRUNCATED = b'<?xml version="1.0" encoding="UTF-8"?>\n<stratego>\n <game type="classic">\n  <fie'


@pytest.fixture(scope="module")
def legal_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six generated games (classic, barrage, duell), every one legal, in one zip."""
    path = tmp_path_factory.mktemp("legal") / "strados2026-10.zip"
    mix = {"classic": 1.0, "barrage": 1.0, "duell": 1.0}
    write_games(generate_games(6, variant=mix, seed=3, month=11), path)
    return path


@pytest.fixture()
def mixed_folder(tmp_path: Path, legal_zip: Path) -> Path:
    """A folder with the legal zip, a truncated record and an empty file."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / legal_zip.name).write_bytes(legal_zip.read_bytes())
    (folder / "classic-2014.5-1.xml").write_bytes(TRUNCATED)
    (folder / "classic-2014.5-2.xml").write_bytes(b"")
    return folder


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_validate_legal_games_exits_zero_with_a_summary(legal_zip: Path) -> None:
    code, out, _ = run("validate", str(legal_zip))
    assert code == 0, out
    assert out.strip().splitlines()[-1].startswith("6 games in 1 file: 6 valid, 0 invalid")


def test_validate_json_is_one_object_accounting_for_every_input(mixed_folder: Path) -> None:
    code, out, _ = run("validate", str(mixed_folder), "--format", "json", "--jobs", "1")
    assert code == 1
    doc = json.loads(out)
    summary = doc["summary"]
    assert summary["games"] == 8 == len(doc["games"])
    assert summary["games"] == summary["valid"] + summary["invalid"] + summary["unchecked"]
    assert summary["invalid"] == 2 and summary["valid"] == 6
    bad = {g["member"] or Path(g["source"]).name: g for g in doc["games"] if g["status"] != "valid"}
    assert set(bad) == {"classic-2014.5-1.xml", "classic-2014.5-2.xml"}
    for game in bad.values():
        assert game["diagnostics"] and game["diagnostics"][0]["severity"] == "error"
        assert set(game["diagnostics"][0]) == {"code", "severity", "message", "line", "ply"}


def test_validate_output_is_the_same_for_any_jobs(mixed_folder: Path) -> None:
    outs = {
        run("validate", str(mixed_folder), "--format", "jsonl", "--jobs", j)[1] for j in ("1", "2")
    }
    assert len(outs) == 1
    assert len(outs.pop().splitlines()) == 8


def test_validate_csv_has_a_row_per_diagnostic_or_game(mixed_folder: Path) -> None:
    code, out, err = run("validate", str(mixed_folder), "--format", "csv")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("source,member,game_id,variant,status")
    assert sum(",valid," in line for line in lines) == 6
    assert "8 games" in err


def test_validate_text_names_file_line_and_code_then_summarises(mixed_folder: Path) -> None:
    code, out, _ = run("validate", str(mixed_folder))
    assert code == 1
    problems = [line for line in out.splitlines() if "classic-2014.5-1.xml" in line]
    assert problems and " error [xml." in problems[0]
    assert "8 games in 3 files: 6 valid, 2 invalid, 0 unchecked" in out


def test_missing_path_is_an_unreadable_input_not_a_game_and_the_run_goes_on(
    legal_zip: Path,
) -> None:
    code, out, _ = run("validate", str(legal_zip), "/no/such/file.xml", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    summary = doc["summary"]
    assert (summary["games"], summary["invalid"], summary["unreadable"]) == (6, 0, 1)
    assert [g["status"] for g in doc["games"]][-1] == "unreadable"
    code, out, _ = run("validate", str(legal_zip), "/no/such/file.xml")
    assert "6 games in 1 file: 6 valid, 0 invalid, 0 unchecked; 1 unreadable input" in out


def test_no_records_at_all_is_an_error_not_success(tmp_path: Path) -> None:
    code, out, err = run("validate", str(tmp_path))
    assert code == 2 and "no game records found" in err and out == ""  # usage, not "invalid"


def test_unknown_rule_set_is_a_usage_error(legal_zip: Path) -> None:
    code, _, err = run("validate", str(legal_zip), "--rules", "nonsense")
    assert code == 2 and "unknown rule set" in err


def rules_commands() -> list[str]:
    """Every command that takes --rules, read from the command line itself."""
    return sorted(
        name
        for name, command in main.commands.items()
        if any(param.name == "rules" for param in command.params)
    )


def test_the_rules_commands_are_the_ones_expected() -> None:
    """A new command with --rules joins the test below by itself; this list is the check
    that the test is not empty."""
    expected = ["events", "export", "filter", "observations", "report", "show", "stats"]
    assert rules_commands() == sorted([*expected, "validate", "values", "view"])


@pytest.mark.parametrize("command", rules_commands())
@pytest.mark.parametrize("rules", ["nonsense", "gravon-2013+nonsense"])
def test_an_unknown_rule_set_is_refused_before_any_work(
    command: str, rules: str, legal_zip: Path, tmp_path: Path
) -> None:
    """Exit 2 and click's own wording, on stderr only, before the inputs are read (the
    library checks once where the run starts): the message is the same for every command,
    stdout stays empty (also validate's JSON) and no output is begun."""
    name = rules.rpartition("+")[2]
    kind = "rule option" if "+" in rules else "rule set"
    args = [command, str(legal_zip), "--rules", rules]
    options = {opt for param in main.commands[command].params for opt in param.opts}
    if "--output" in options:
        suffix = {"report": ".html", "view": ".html", "show": ".png"}.get(command, "")
        args += ["-o", str(tmp_path / "out" / f"out{suffix}")]
    if command == "show":
        args += ["--game", "1"]
    if command == "values":  # its -o is the model --fit writes
        args += ["--fit"]
    if command == "validate":
        args += ["--format", "json"]
    code, out, err = run(*args)
    assert code == 2, err
    assert err.splitlines()[-1].startswith(
        f"Error: Invalid value for '--rules': unknown {kind} '{name}'; expected one of "
    ), err
    assert "Traceback" not in err and out == ""
    assert list(tmp_path.iterdir()) == []


def test_validate_without_paths_is_a_usage_error() -> None:
    code, _, err = run("validate")
    assert code == 2 and "PATHS" in err


def test_every_command_has_help_with_an_example() -> None:
    for name, command in main.commands.items():
        code, _, _ = run(name, "--help")
        assert code == 0, name
        assert command.help and "Example" in command.help, f"{name} help has no example"


def test_version_and_module_entry_point() -> None:
    code, out, _ = run("--version")
    assert code == 0 and "strat-tools" in out


def test_non_game_entries_are_skipped_visibly_not_counted(tmp_path: Path, legal_zip: Path) -> None:
    import zipfile

    archive = tmp_path / legal_zip.name
    archive.write_bytes(legal_zip.read_bytes())
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("readme.txt", "not a game")
    (tmp_path / "notes.txt").write_text("not a game either")
    code, out, err = run("validate", str(tmp_path), "--format", "json")
    assert code == 0
    summary = json.loads(out)["summary"]
    assert summary["games"] == 6
    assert sorted((Path(s["source"]).name, s["member"]) for s in summary["skipped"]) == [
        ("notes.txt", None),
        (legal_zip.name, "readme.txt"),
    ]
    code, out, err = run("validate", str(tmp_path))
    assert "(2 non-game entries skipped)" in out and "readme.txt: skipped" in err


def test_an_engine_crash_on_one_game_is_an_invalid_entry_not_a_stopped_run(
    legal_zip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    # the module, not st.replay
    engine = importlib.import_module("strat_tools.engine.replays.replay")
    real = engine.replay

    def crash_on_the_second_game(record, rules=None):  # type: ignore[no-untyped-def]
        if record.game_id.endswith("-2"):
            raise RuntimeError("boom")
        return real(record, rules)

    monkeypatch.setattr(engine, "replay", crash_on_the_second_game)
    code, out, _ = run("validate", str(legal_zip), "--format", "json", "--jobs", "1")
    assert code == 1
    doc = json.loads(out)
    assert doc["summary"]["games"] == 6 and doc["summary"]["invalid"] == 1
    bad = [g for g in doc["games"] if g["status"] == "invalid"]
    assert [d["code"] for d in bad[0]["diagnostics"]] == ["internal.replay"]
    assert "RuntimeError: boom" in bad[0]["diagnostics"][0]["message"]


# --- mistakes get an error, not zeros (issue 14) ------------------------------------------

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize(
    "args, text",
    [
        (["--piece", "nope"], "unknown piece 'nope'; choose from flag, bomb, spy"),
        (["--piece", "flagg"], "unknown piece 'flagg'"),
        (["--variant", "clasic"], "unknown variant 'clasic'; choose from classic, barrage"),
        (["--stat", "win-rate", "--feature", "nope"], "'nope' is not one of 'flag_back_row'"),
    ],
)
def test_unknown_names_are_usage_errors_listing_the_choices(
    legal_zip: Path, args: list[str], text: str
) -> None:
    stat = [] if "--stat" in args else ["--stat", "rows"]  # given once: twice is refused
    code, out, err = run("stats", str(legal_zip), *stat, *args)
    assert code == 2 and text in err and out == "", err


@pytest.mark.parametrize("spelling", ["Flag", "F", "flag", "FLAG", "flags"])
def test_a_piece_is_taken_as_a_player_types_it(legal_zip: Path, spelling: str) -> None:
    expected = run("stats", str(legal_zip), "--stat", "rows", "--piece", "flag", "-j", "1")
    got = run("stats", str(legal_zip), "--stat", "rows", "--piece", spelling, "-j", "1")
    assert got[0] == 0 and got[1] == expected[1]


def test_a_variant_is_taken_in_any_case_everywhere(legal_zip: Path, tmp_path: Path) -> None:
    assert run("stats", str(legal_zip), "--variant", "Classic", "-j", "1")[0] == 0
    assert run("advice", str(legal_zip), "--variant", "CLASSIC", "-j", "1")[0] == 0
    code, _, err = run("heatmap", str(legal_zip), "--variant", "Barage", "-o", "x.png")
    assert code == 2 and "unknown variant 'Barage'" in err
    code, _, err = run("generate", "-n", "1", "-o", str(tmp_path / "g.zip"), "--variant", "chess")
    assert code == 2 and "cannot generate variant 'chess'" in err


@pytest.mark.parametrize("name", ["missing", "notes.txt"])
def test_no_games_read_is_an_error_not_a_table_of_zeros(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".txt"):
        path.write_text("not a game\n")
    code, out, err = run("stats", str(path), "-j", "1")
    assert code == 2 and out == "" and "Error: nothing readable in" in err, (out, err)


def test_heatmap_refuses_by_with_moves_and_titles_one_side(tmp_path: Path) -> None:
    code, _, err = run("heatmap", str(DATA), "--moves", "path", "--by", "won", "-o", "x.png")
    assert code == 2 and "a --moves map cannot be split by it" in err
    out = tmp_path / "blue.svg"
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none"}):
        code, _, err = run("heatmap", str(DATA), "--side", "blue", "-o", str(out), "-j", "1")
    assert code == 0, err
    assert "classic, blue side only, source:" in out.read_text()


def test_show_says_what_ply_it_shows_and_the_result_at_the_end(legal_zip: Path) -> None:
    import zipfile

    member = zipfile.ZipFile(legal_zip).namelist()[0].removesuffix(".xml")
    code, out, err = run("show", str(legal_zip), "--game", member, "--ply", "99999")
    assert code == 0, err
    plies = int(out.splitlines()[0].split("ply ")[1].split("/")[0])
    assert f"ply 99,999 is past the end of the game: showing ply {plies:,}, the last" in err
    assert out.splitlines()[-1].startswith("result: ")
    code, out, _ = run("show", str(legal_zip), "--game", member, "--ply", "1")
    assert code == 0 and not out.splitlines()[-1].startswith("result: ")


def test_wide_tables_fit_a_100_column_terminal_and_csv_keeps_every_column(
    legal_zip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    for view in ("tips", "catalogue"):
        code, out, err = run("advice", str(legal_zip), "--view", view, "-j", "1")
        assert code == 0, err
        assert max(len(line) for line in out.splitlines()) <= 100, view
    code, out, _ = run("advice", str(legal_zip), "--format", "csv", "-j", "1")
    header = out.splitlines()[0].split(",")
    assert code == 0 and "h2h_high" in header and len(header) > 15
    code, out, _ = run("advice", str(legal_zip), "-j", "1")
    # The default text is the compact digest (issue 25 point 25): one short row per tip; the
    # full record is the csv's and json's.
    assert code == 0 and out.split()[:3] == ["variant", "tip", "followed"], out
    assert "h2h_high" not in out and "verdict" in out.splitlines()[0]


def test_counts_read_one_way_with_the_singular() -> None:
    from strat_tools.core.text import count_of
    from strat_tools.exports.validate import Summary

    summary = Summary(games=1, files={"a.zip"})
    assert summary.line().startswith("1 game in 1 file: ")
    assert Summary(games=13980, files={"a", "b"}).line().startswith("13,980 games in 2 files")
    assert count_of(1, "game") == "1 game" and count_of(13980, "game") == "13,980 games"


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
@pytest.mark.parametrize(
    "command",
    [
        ["stats"],
        ["validate", "-q"],
        ["events", "--kind", "end"],
        ["filter", "--winner", "red"],
        ["export", "-o", "{out}/tables"],
        ["convert", "--to", "gsn", "-o", "{out}/games.zip"],
        ["observations", "-o", "{out}/obs"],
        ["openings", "--variant", "duell"],
    ],
    ids=lambda args: args[0],
)
def test_inputs_are_expanded_once_whether_or_not_a_bar_is_drawn(
    command: list[str],
    terminal: bool,
    legal_zip: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each zip's directory is read once a run: the progress bar's total comes from the
    driver's own expansion, and only when a bar is drawn (once there was a counting pass
    of its own, bar or no bar)."""
    from strat_tools.cli import render
    from strat_tools.io import sources

    reads: list[object] = []
    real = sources.read_directory  # type: ignore[attr-defined]

    def counted(handle: Any, size: int) -> Any:
        reads.append(handle)
        return real(handle, size)

    monkeypatch.setattr(sources, "read_directory", counted)
    monkeypatch.setattr(render, "stderr_is_terminal", lambda: terminal)
    name, *options = command
    args = [name, str(legal_zip), *(o.format(out=tmp_path) for o in options), "--jobs", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert len(reads) == 1
