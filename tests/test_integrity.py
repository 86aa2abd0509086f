"""Data integrity across the whole pipeline: every input is accounted for, nothing leaks,
runs stay bounded, and outputs are all or nothing.

One mixed folder holds every hostile input of ``test_hostile.build`` (bombs, XXE, broken
zips, a FIFO, a symlink loop, ...), a zip of generated legal games and a couple of plain
legal ``.xml`` files. It goes through the real command line (``python -m strat_tools``,
in a subprocess) as ``validate``, ``export`` and ``report``: each must count inputs =
valid + invalid + unchecked with the exact numbers put in, exit with its documented code,
report every hostile entry with its diagnostic, and never print or write the text of the
secret file an external entity points at.

Then the outputs: an export killed with SIGKILL halfway must leave the old dataset (or
the new one), never a mix; a figure or report whose write fails midway leaves the old file.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner
from hostile_folder import SECRET, build

from strat_tools.cli import main
from strat_tools.core.errors import DatasetError
from strat_tools.core.records import UNREADABLE_CODE
from strat_tools.formats.xml_writer import write_games
from strat_tools.generate.games import generate_games
from strat_tools.io.owned import MARKER_NAME
from strat_tools.io.sources import Skipped, expand
from strat_tools.run.driver import read_games
from strat_tools.tables import dataset_writer
from strat_tools.tables.dataset import GameSet, read_dataset
from strat_tools.tables.schemas import TABLE_NAMES

REPO = Path(__file__).resolve().parent.parent
GENERATED = 24
"""Legal games in the generated zip of the mixed folder."""
PLAIN = 2
"""Legal games written as plain .xml files at the top of the mixed folder."""
NOT_HOSTILE = ("", "source.member_name")
"""Expected first codes of ``build()`` entries whose content is a legal game (an unsafe
member name is never used as a path, so the game inside is read, with a warning)."""
SKIP_REASONS = {
    "not a game record file (.xml, .gsn)",
    "folder inside the zip",
    "folder already visited (symlink loop or repeat)",
}
"""Documented reasons for entries that are not game files (visible, not counted)."""


@dataclass(frozen=True)
class Mixed:
    """The mixed input folder and what each game file in it must come out as."""

    folder: Path
    hostile: dict[str, str]
    """``build()``'s entries: name (``file`` or ``zip!member``) → expected first code."""
    legal: frozenset[str]
    """Names of the generated legal games (zip members and plain files)."""

    @property
    def total(self) -> int:
        """Game files put in (non-game entries, which are skipped, excluded)."""
        return len(self.hostile) + len(self.legal)

    @property
    def unreadable(self) -> set[str]:
        """Entries whose bytes cannot be read: unreadable inputs, counted apart from games."""
        return {name for name, code in self.hostile.items() if code == UNREADABLE_CODE}

    @property
    def games(self) -> int:
        """Game files put in: every input but the unreadable ones."""
        return self.total - len(self.unreadable)

    @property
    def invalid(self) -> set[str]:
        """Game entries that must be reported invalid (unreadable inputs are not games)."""
        return {
            name
            for name, code in self.hostile.items()
            if code not in NOT_HOSTILE and code != UNREADABLE_CODE
        }


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Mixed:
    """Every hostile input, a zip of generated legal games and two plain legal files."""
    root = tmp_path_factory.mktemp("integrity")
    secret = root / "secret.txt"
    secret.write_text(SECRET)
    folder = root / "mixed"
    hostile = build(folder, secret)
    mix = {"classic": 6.0, "barrage": 1.0, "duell": 1.0}
    zipped = list(generate_games(GENERATED, variant=mix, seed=11))
    write_games(zipped, folder / "strados2026-10.zip")
    plain = list(generate_games(PLAIN, seed=12, first_number=501))
    write_games(plain, folder)
    legal = {f"strados2026-10.zip!{g.game_id}.xml" for g in zipped}
    legal |= {f"{g.game_id}.xml" for g in plain}
    assert len(legal) == GENERATED + PLAIN
    return Mixed(folder, hostile, frozenset(legal))


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python -m strat_tools ARGS`` in a subprocess, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "strat_tools", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=REPO,
    )


def entry_name(folder: Path, source: str, member: str | None) -> str:
    """A game's name as ``build()`` spells it: path under the folder, ``!member`` if any."""
    name = os.path.relpath(source, folder)
    return f"{name}!{member}" if member else name


def assert_no_secret(*texts: str) -> None:
    """Fail if any text holds the secret file's content."""
    for text in texts:
        assert SECRET not in text


def frame_text(frame: pd.DataFrame) -> str:
    """Every cell of a frame as text, for leak checks."""
    return frame.astype(str).to_csv(index=False)


# --- inputs are what we think they are ------------------------------------------------------


@pytest.mark.slow
def test_mixed_folder_holds_the_game_files_we_count_and_only_documented_skips(
    mixed: Mixed,
) -> None:
    skipped: list[Skipped] = []
    units = expand([str(mixed.folder)], skipped=skipped)
    names = [entry_name(mixed.folder, u.source, u.member) for u in units]
    assert sorted(names) == sorted([*mixed.hostile, *mixed.legal])
    assert skipped, "the fixture should include non-game entries (non-XML members, a loop)"
    assert {s.reason for s in skipped} <= SKIP_REASONS
    xxe = (mixed.folder / "xxe.xml").read_text()
    secret_file = mixed.folder.parent / "secret.txt"
    assert str(secret_file) in xxe and secret_file.read_text() == SECRET  # the bait is real


# --- validate -------------------------------------------------------------------------------

SUMMARY = re.compile(r"(\d+) games in (\d+) files?: (\d+) valid, (\d+) invalid, (\d+) unchecked")


def test_validate_accounts_for_every_input_and_exits_1(mixed: Mixed) -> None:
    run = cli("validate", str(mixed.folder))
    assert run.returncode == 1, run.stderr[-2000:]
    assert_no_secret(run.stdout, run.stderr)
    match = SUMMARY.search(run.stdout)
    assert match, run.stdout[-2000:]
    games, _, valid, invalid, unchecked = map(int, match.groups())
    assert games == mixed.games == valid + invalid + unchecked
    assert invalid == len(mixed.invalid)
    assert valid == mixed.games - len(mixed.invalid) and unchecked == 0
    assert mixed.unreadable, "the fixture should include unreadable inputs"
    assert f"; {len(mixed.unreadable)} unreadable inputs (not counted as games)" in run.stdout
    skipped: list[Skipped] = []
    expand([str(mixed.folder)], skipped=skipped)
    shown = re.search(r"\((\d+) non-game entr(?:y|ies) skipped\)", run.stdout)
    assert shown and int(shown.group(1)) == len(skipped), run.stdout[-2000:]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_validate_reports_every_hostile_entry_invalid_with_its_diagnostic(
    mixed: Mixed, fmt: str
) -> None:
    run = cli("validate", str(mixed.folder), "--format", fmt)
    assert run.returncode == 1, run.stderr[-2000:]
    assert_no_secret(run.stdout, run.stderr)
    if fmt == "json":
        doc = json.loads(run.stdout)
        verdicts, summary = doc["games"], doc["summary"]
        assert summary["games"] == mixed.games
        assert summary["games"] == summary["valid"] + summary["invalid"] + summary["unchecked"]
        assert summary["unreadable"] == len(mixed.unreadable)
    elif fmt == "jsonl":
        verdicts = [json.loads(line) for line in run.stdout.splitlines()]
    else:
        verdicts = _csv_verdicts(run.stdout)
    if fmt != "json":
        assert f"{mixed.games} games in" in run.stderr  # the summary goes to stderr
    got = {entry_name(mixed.folder, v["source"], v["member"]): v for v in verdicts}
    assert len(got) == len(verdicts) == mixed.total
    assert set(got) == set(mixed.hostile) | mixed.legal
    for name, code in mixed.hostile.items():
        verdict = got[name]
        codes = [d["code"] for d in verdict["diagnostics"]]
        if code in NOT_HOSTILE:
            assert verdict["status"] == "valid", (name, verdict)
            assert codes == ([code] if code else []), name
            continue
        wanted = "unreadable" if code == UNREADABLE_CODE else "invalid"
        assert verdict["status"] == wanted, (name, verdict)
        assert codes and codes[0] == code, (name, codes)
        assert any(d["severity"] == "error" for d in verdict["diagnostics"]), name
    for name in mixed.legal:
        assert got[name]["status"] == "valid" and not got[name]["diagnostics"], got[name]


def _csv_verdicts(text: str) -> list[dict[str, object]]:
    """``validate --format csv`` rows (one per diagnostic, or one per clean game) as verdicts."""
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    verdicts = []
    for (source, member), rows in frame.groupby(["source", "member"], sort=False):
        diagnostics = [
            {"code": r.code, "severity": r.severity} for r in rows.itertuples() if r.code
        ]
        assert rows["status"].nunique() == 1
        verdicts.append(
            {
                "source": source,
                "member": member or None,
                "status": rows["status"].iloc[0],
                "diagnostics": diagnostics,
            }
        )
    return verdicts


BOUNDED = textwrap.dedent(
    """
    import json, resource, subprocess, sys
    run = subprocess.run(
        [sys.executable, "-m", "strat_tools", "validate", "--format", "jsonl", sys.argv[1]],
        capture_output=True, text=True, timeout=120,
    )
    rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"code": run.returncode, "lines": len(run.stdout.splitlines()),
                      "max_rss_mib": rss_kib / 1024}))
    """
)


def test_validate_hostile_folder_in_bounded_time_and_memory(mixed: Mixed) -> None:
    """Measured from a fresh parent, so only this validate run (and its workers) count."""
    run = subprocess.run(
        [sys.executable, "-c", BOUNDED, str(mixed.folder)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    numbers = json.loads(run.stdout)
    assert numbers["code"] == 1 and numbers["lines"] == mixed.total
    assert numbers["max_rss_mib"] < 1024, numbers


# --- export ---------------------------------------------------------------------------------

EXPORTED = re.compile(r"([\d,]+) games = ([\d,]+) valid \+ ([\d,]+) invalid \+ ([\d,]+) unchecked")


def _numbers(match: re.Match[str] | None, text: str) -> list[int]:
    assert match, text[-2000:]
    return [int(group.replace(",", "")) for group in match.groups()]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_export_accounts_for_every_input_and_leaks_nothing(
    mixed: Mixed, tmp_path: Path, fmt: str
) -> None:
    out = tmp_path / "tables"
    run = cli("export", str(mixed.folder), "-o", str(out), "--format", fmt)
    assert run.returncode == 0, run.stderr[-2000:]
    assert_no_secret(run.stdout, run.stderr)
    games, valid, invalid, unchecked = _numbers(EXPORTED.search(run.stderr), run.stderr)
    assert games == mixed.games == valid + invalid + unchecked
    assert invalid == len(mixed.invalid) and unchecked == 0
    assert f"; {len(mixed.unreadable)} unreadable inputs;" in run.stderr
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    tables = [f"{name}/part-00000.{fmt}" for name in TABLE_NAMES]
    assert files == sorted([*tables, MARKER_NAME])  # no temporary file left
    for path in out.rglob("*"):
        if path.is_file():
            assert_no_secret(path.read_bytes().decode("utf-8", "replace"))
    dataset = read_dataset(out)
    for name in TABLE_NAMES:
        assert_no_secret(frame_text(getattr(dataset, name)))
    table = dataset.games
    names = [
        entry_name(mixed.folder, s, None if pd.isna(m) else m)
        for s, m in zip(table["source"], table["member"], strict=True)
    ]
    assert sorted(names) == sorted([*mixed.hostile, *mixed.legal])
    status = dict(zip(names, table["status"], strict=True))
    errors = dict(zip(names, table["n_errors"], strict=True))
    for name in mixed.invalid:
        assert status[name] == "invalid" and errors[name] >= 1, name
    for name in mixed.unreadable:
        assert status[name] == "unreadable" and errors[name] == 1, name
    for name in set(names) - mixed.invalid - mixed.unreadable:
        assert status[name] == "valid" and errors[name] == 0, name
    assert table["game_id"].is_unique  # the key every other table joins on
    by_id = dict(zip(table["game_id"], names, strict=True))
    diagnostics = dataset.diagnostics
    assert set(diagnostics["game_id"]) <= set(by_id)
    for game_id, rows in diagnostics.groupby("game_id", observed=True):
        name = by_id[str(game_id)]
        assert (rows["severity"] == "error").sum() == errors[name], name
        if mixed.hostile.get(name):
            assert rows["code"].iloc[0] == mixed.hostile[name], name
    hostile_codes = {name for name, code in mixed.hostile.items() if code}
    assert hostile_codes <= set(map(by_id.get, map(str, diagnostics["game_id"])))


# --- report ---------------------------------------------------------------------------------

CORPUS = re.compile(r"([\d,]+) games from ([\d,]+) input file")


@pytest.mark.slow
def test_report_accounts_for_every_input_and_leaks_nothing(mixed: Mixed, tmp_path: Path) -> None:
    names = set(mixed.hostile) | mixed.legal
    out = tmp_path / "report.html"
    run = cli("report", str(mixed.folder), "-o", str(out))
    assert run.returncode == 0, run.stderr[-3000:]
    assert_no_secret(run.stdout, run.stderr)
    page = out.read_text()
    assert_no_secret(page)
    assert f"{len(mixed.unreadable)} unreadable input(s) (not counted as games" in page
    games, _ = _numbers(CORPUS.search(page), page[:3000])
    assert games == len(names) - len(mixed.unreadable)
    validity = next(
        t for t in pd.read_html(io.StringIO(page), flavor="lxml") if "unchecked" in t.columns
    )
    totals = validity[["games", "valid", "invalid", "unchecked"]].astype(int).sum()
    assert totals["games"] == len(names) - len(mixed.unreadable)
    assert totals["games"] == totals["valid"] + totals["invalid"] + totals["unchecked"]
    assert totals["invalid"] == len(mixed.invalid & names)
    assert [t for t in os.listdir(tmp_path) if t != "report.html"] == []


# --- the same file name in two places ---------------------------------------------------------


@pytest.fixture()
def same_name_twice(tmp_path: Path) -> Path:
    """Two different legal games, both called ``classic-2026.10-1.xml``, in two folders."""
    first, second = list(generate_games(2, seed=21))
    second.number = first.number
    for sub, game in (("a", first), ("b", second)):
        write_games([game], tmp_path / sub)
    return tmp_path


def test_two_inputs_with_one_file_name_stay_two_games_in_every_table(
    same_name_twice: Path,
) -> None:
    games = read_in_process(same_name_twice)
    assert len(games.games) == 2
    assert games.games["game_id"].is_unique
    per_game = games.setups.groupby("game_id", observed=True).size()
    assert sorted(per_game.index) == sorted(games.games["game_id"]) and set(per_game) == {80}
    plies = dict(zip(games.games["game_id"], games.games["plies"], strict=True))
    moves = games.moves.groupby("game_id", observed=True).size()
    assert moves.to_dict() == plies


@pytest.mark.parametrize("command", ["stats", "heatmap"])
def test_commands_survive_two_inputs_with_one_file_name(
    same_name_twice: Path, command: str
) -> None:
    args = [command, str(same_name_twice), "--jobs", "1"]
    if command == "heatmap":
        args += ["-o", str(same_name_twice / "flag.png")]
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 0, result.output


def read_in_process(path: Path) -> GameSet:
    """Records read (and replayed) in this process."""
    return read_games([str(path)], run=1)


# --- atomic outputs -------------------------------------------------------------------------


def _tables_equal(left: GameSet, right: GameSet) -> bool:
    return all(left.tables[n].equals(right.tables[n]) for n in TABLE_NAMES)


def _export_tables(paths: list[str], out: Path, *extra: str) -> GameSet:
    """Export in this process (one job) and read the dataset back."""
    result = CliRunner().invoke(main, ["export", *paths, "-o", str(out), "--jobs", "1", *extra])
    assert result.exit_code == 0, result.output
    return read_dataset(out)


@pytest.fixture(scope="module")
def small_zips(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two different zips of generated games: an 'old' input and a 'new' one."""
    root = tmp_path_factory.mktemp("small")
    old, new = root / "strados2026-9.zip", root / "strados2026-10.zip"
    write_games(generate_games(6, seed=31, month=10), old)
    write_games(generate_games(9, seed=32, month=11), new)
    return old, new


def _temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name)


def _wait_for_temp(folder: Path, proc: subprocess.Popen[bytes], limit: float) -> bool:
    """Poll until the export has opened its temporary files (or ends, or time runs out)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        if _temp_files(folder):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.archive
@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 2.0])
def test_export_killed_midway_leaves_the_old_dataset(
    gravon_dir: Path, small_zips: tuple[Path, Path], tmp_path: Path, delay: float
) -> None:
    out = tmp_path / "tables"
    old = _export_tables([str(small_zips[0])], out)
    before = sorted(p.name for p in out.iterdir())
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "strat_tools",
            "export",
            str(gravon_dir),
            "-o",
            str(out),
            "--jobs",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
        start_new_session=True,  # its own process group: the kill takes any worker too
    )
    try:
        assert _wait_for_temp(out, proc, 60), "the export never opened its temporary files"
        time.sleep(delay)
        assert proc.poll() is None, "the archive export finished before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    strays = _temp_files(out)
    assert strays, "a SIGKILL leaves its temporary files (nothing can remove them)"
    assert all(name.startswith(".") for name in strays)  # hidden, never NAME.parquet
    assert sorted(p.name for p in out.iterdir() if p.name not in strays) == before
    assert _tables_equal(read_dataset(out), old)
    new = _export_tables([str(small_zips[1])], out)  # a later export is not confused
    assert len(new) == 9 and _tables_equal(read_dataset(out), new)


KILL_AT_RENAME = textwrap.dedent(
    """
    import os, signal, sys
    real_replace = os.replace
    def replace_then_die(src, dst):
        real_replace(src, dst)
        os.kill(os.getpid(), signal.SIGKILL)  # a crash right after the first table is in place
    os.replace = replace_then_die
    from strat_tools.cli import main
    main(sys.argv[1:])
    """
)


def test_export_killed_between_renames_leaves_old_or_new_never_a_mix(
    small_zips: tuple[Path, Path], tmp_path: Path
) -> None:
    old_input, new_input = map(str, small_zips)
    new = _export_tables([new_input], tmp_path / "reference")
    out = tmp_path / "tables"
    old = _export_tables([old_input], out)
    run = subprocess.run(
        [sys.executable, "-c", KILL_AT_RENAME, "export", new_input, "-o", str(out), "--jobs", "1"],
        capture_output=True,
        timeout=120,
        check=False,
        cwd=REPO,
    )
    assert run.returncode == -signal.SIGKILL, run.stderr[-2000:]
    try:
        got = read_dataset(out)
    except DatasetError as exc:  # refusing a possibly mixed folder is fine too
        assert str(out) in str(exc), exc  # names the folder to export again
    else:
        assert _tables_equal(got, old) or _tables_equal(got, new)
    assert _tables_equal(_export_tables([new_input], out), new)  # the next export repairs it


def test_csv_export_over_a_parquet_export_is_what_is_read_back(
    small_zips: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "tables"
    _export_tables([str(small_zips[0])], out)
    new = _export_tables([str(small_zips[1])], out, "--format", "csv")
    assert len(new) == 9


class FailingHandle(io.BufferedWriter):
    """A file handle that writes half of what it is given, then reports a full disk."""

    def write(self, data: bytes) -> int:  # type: ignore[override]
        view = memoryview(data)
        super().write(view[: len(view) // 2])
        self.flush()
        raise OSError(28, "No space left on device")


@pytest.mark.parametrize(
    "command",
    [
        ["heatmap", "--piece", "flag", "-o"],
        ["heatmap", "--piece", "scout", "--moves", "path", "-o"],
        ["report", "--setups-only", "-o"],
    ],
    ids=["heatmap", "heatmap-moves", "report"],
)
@pytest.mark.slow
def test_failed_figure_or_report_write_keeps_the_old_file(
    small_zips: tuple[Path, Path],
    tmp_path: Path,
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = tmp_path / ("report.html" if command[0] == "report" else "figure.png")
    args = [command[0], str(small_zips[1]), "--jobs", "1", *command[1:], str(target)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    old = target.read_bytes()
    assert len(old) > 1000
    real = os.fdopen

    def fdopen(fd: int, mode: str = "r", *rest: object, **kwargs: object) -> object:
        if mode == "wb":
            return FailingHandle(io.FileIO(fd, "w"))
        return real(fd, mode, *rest, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "fdopen", fdopen)
    again = CliRunner().invoke(main, args)
    monkeypatch.undo()
    assert again.exit_code == 3, again.output
    assert "Error: " in again.output and "No space left" in again.output
    assert "Traceback" not in again.output
    assert target.read_bytes() == old
    assert sorted(os.listdir(tmp_path)) == [target.name]  # the half-written temp is gone


def test_export_failing_midway_keeps_the_old_dataset(
    small_zips: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    out = tmp_path / "tables"
    old = _export_tables([str(small_zips[0])], out)
    before = sorted(os.listdir(out))
    real_write = dataset_writer.DatasetWriter.write

    def write_then_fail(self: dataset_writer.DatasetWriter, tables: dict[str, pa.Table]) -> None:
        real_write(self, tables)
        for name in TABLE_NAMES:
            self._flush(name)  # half the data really reaches the temporary files
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dataset_writer.DatasetWriter, "write", write_then_fail)
    result = CliRunner().invoke(main, ["export", str(small_zips[1]), "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 3 and "No space left" in result.output, result.output
    assert sorted(os.listdir(out)) == before
    assert _tables_equal(read_dataset(out), old)


def test_failed_generate_write_keeps_the_old_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "strados2026-10.zip"
    args = ["generate", "-n", "3", "--jobs", "1", "-o", str(target), "--seed"]
    first = CliRunner().invoke(main, [*args, "5"])
    assert first.exit_code == 0, first.output
    old = target.read_bytes()
    real = os.fdopen

    def fdopen(fd: int, mode: str = "r", *rest: object, **kwargs: object) -> object:
        if mode == "wb":
            return FailingHandle(io.FileIO(fd, "w"))
        return real(fd, mode, *rest, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "fdopen", fdopen)
    again = CliRunner().invoke(main, [*args, "6"])
    monkeypatch.undo()
    assert again.exit_code == 3 and "No space left" in again.output, again.output
    assert target.read_bytes() == old
    assert os.listdir(tmp_path) == [target.name]
