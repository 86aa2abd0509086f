"""Sources: expanding paths, folders, globs and zips into units, and reading them safely."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_paths import DEEP, deep_folder, remove_deep_folder

from strat_tools.io.output import OutputOverInput, refuse_overlap
from strat_tools.io.reached import estimated_games, iter_reached
from strat_tools.io.sources import (
    Skipped,
    SourceError,
    Unit,
    UnitReader,
    expand,
    is_unsafe_member_name,
    iter_units,
)

GRAVON = Path(__file__).parent / "fixtures" / "gravon"
GAME = (GRAVON / "classic-2014.4-17.xml").read_bytes()


def tree(root: Path) -> Path:
    """root/b.xml, root/a.xml, root/sub/c.xml, root/notes.txt, root/games.zip (2 xml + 1 txt)."""
    (root / "sub").mkdir(parents=True)
    for name in ("b.xml", "a.xml", "sub/c.xml"):
        (root / name).write_bytes(GAME)
    (root / "notes.txt").write_text("not a game")
    with zipfile.ZipFile(root / "games.zip", "w") as archive:
        archive.writestr("z.xml", GAME)
        archive.writestr("y.xml", GAME)
        archive.writestr("readme.txt", "no")
    return root


def labels(units: list[Unit], root: Path) -> list[str]:
    """Unit labels relative to ``root``."""
    return [os.path.relpath(u.source, root) + (f"!{u.member}" if u.member else "") for u in units]


def test_folder_sorted_recursive_with_zip_members_in_name_order(tmp_path: Path) -> None:
    root = tree(tmp_path / "games")
    skipped: list[Skipped] = []
    units = expand([root], skipped=skipped)
    assert labels(units, root) == [
        "a.xml",
        "b.xml",
        "games.zip!y.xml",
        "games.zip!z.xml",
        "sub/c.xml",
    ]
    assert all(u.error is None for u in units)
    assert sorted((Path(s.source).name, s.member, s.reason) for s in skipped) == [
        ("games.zip", "readme.txt", "not a game record file (.xml, .gsn)"),
        ("notes.txt", None, "not a game record file (.xml, .gsn or .zip)"),
    ]


def test_arguments_keep_their_order_and_globs_expand_sorted(tmp_path: Path) -> None:
    root = tree(tmp_path / "games")
    units = expand([str(root / "sub"), str(root / "*.xml")])
    assert labels(units, root) == ["sub/c.xml", "a.xml", "b.xml"]


def test_missing_path_and_unmatched_glob_are_error_units(tmp_path: Path) -> None:
    units = expand([tmp_path / "nope.xml", str(tmp_path / "*.zip")])
    assert [u.error for u in units] == ["no such file or folder", "no file matches this pattern"]


def test_broken_and_fake_zips_are_error_units() -> None:
    for name in ("broken.zip", "truncated.zip"):
        (unit,) = expand([GRAVON / name])
        assert unit.member is None and unit.error is not None
        assert unit.error.startswith("not a readable zip archive")


def test_symlink_loop_visits_each_file_once(tmp_path: Path) -> None:
    root = tree(tmp_path / "games")
    (root / "sub" / "loop").symlink_to(root, target_is_directory=True)
    (root / "again").symlink_to(root / "sub", target_is_directory=True)
    skipped: list[Skipped] = []
    units = expand([root], skipped=skipped)
    assert len(units) == 5
    assert sum("already visited" in s.reason for s in skipped) == 2


def test_fifo_is_an_error_unit_and_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.xml"
    os.mkfifo(fifo)
    (unit,) = expand([tmp_path])
    assert unit.error == "not a regular file (a FIFO, device or socket)"
    with UnitReader() as reader, pytest.raises(SourceError):
        reader.read(unit)
    with UnitReader() as reader, pytest.raises(SourceError, match="not a regular file"):
        reader.read(Unit(str(fifo)))  # a unit made by hand, not by expand: still never opened


def test_unreadable_file_gives_the_os_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "locked.xml"
    path.write_bytes(GAME)
    real_open = os.open

    def deny(file: object, *args: object, **kwargs: object) -> object:
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", deny)
    with UnitReader() as reader, pytest.raises(SourceError, match="Permission denied"):
        reader.read(Unit(str(path)))


def test_reader_opens_each_zip_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path / "games")
    opened: list[str] = []
    real = os.open

    def counting(file: str, *args: object, **kwargs: object) -> int:
        opened.append(str(file))
        return real(file, *args, **kwargs)  # type: ignore[arg-type]

    units = expand([root / "games.zip"])
    monkeypatch.setattr(os, "open", counting)
    with UnitReader() as reader:
        assert [reader.read(u) for u in units] == [GAME, GAME]
    assert len(opened) == 1


def test_iter_units_lists_a_path_only_when_the_stream_reaches_it(tmp_path: Path) -> None:
    # Streaming: ten copies of an archive must not mean ten directories read up front.
    root = tree(tmp_path / "games")
    taken: list[Path] = []

    def paths() -> Iterator[Path]:
        for path in (root / "a.xml", root / "games.zip", root / "sub"):
            taken.append(path)
            yield path

    stream = iter_units(paths())
    assert os.path.basename(next(stream).source) == "a.xml"
    assert taken == [root / "a.xml"]
    assert labels(list(stream), root) == ["games.zip!y.xml", "games.zip!z.xml", "sub/c.xml"]
    assert sum(1 for _ in iter_units([root])) == len(expand([root])) == 5


def test_reader_keeps_only_the_current_zip_open_and_reopens_on_return(tmp_path: Path) -> None:
    root = tree(tmp_path / "games")
    with zipfile.ZipFile(root / "other.zip", "w") as archive:
        archive.writestr("x.xml", GAME + b"<!-- other -->")
    first, other = expand([root / "games.zip"]), expand([root / "other.zip"])
    with UnitReader() as reader:
        got = [reader.read(u) for u in (first[0], other[0], first[1])]
        assert len(reader._archives) == 1
    assert got == [GAME, GAME + b"<!-- other -->", GAME]


def test_size_limit_applies_to_files_and_inflated_members(tmp_path: Path) -> None:
    big = tmp_path / "big.xml"
    big.write_bytes(b" " * 5000)
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros.xml", b"\0" * 200_000)
    (member,) = expand([tmp_path / "bomb.zip"])
    with UnitReader(limit=4096) as reader:
        with pytest.raises(SourceError, match="limit"):
            reader.read(Unit(str(big)))
        with pytest.raises(SourceError, match="limit"):
            reader.read(member)
    with UnitReader(limit=1_000_000) as reader:
        assert len(reader.read(member)) == 200_000


def test_lying_declared_size_is_caught_while_inflating(tmp_path: Path) -> None:
    path = tmp_path / "liar.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.xml", b"\0" * 100_000)
    data = bytearray(path.read_bytes())
    # Patch the declared uncompressed size (local header offset 22, central header +24) to 10.
    local = data.find(b"PK\x03\x04")
    central = data.find(b"PK\x01\x02")
    data[local + 22 : local + 26] = (10).to_bytes(4, "little")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    (unit,) = expand([path])
    with UnitReader(limit=4096) as reader, pytest.raises(SourceError, match=r"CRC|declared size"):
        reader.read(unit)


@pytest.mark.parametrize(
    ("name", "unsafe"),
    [
        ("classic-2014.4-1.xml", False),
        ("sub/classic-2014.4-1.xml", False),
        ("../classic.xml", True),
        ("a/../../b.xml", True),
        ("/etc/passwd.xml", True),
        ("C:/games/x.xml", True),
        ("..\\x.xml", True),
        ("a..b.xml", False),
    ],
)
def test_unsafe_member_names(name: str, unsafe: bool) -> None:
    assert is_unsafe_member_name(name) is unsafe


def test_unit_label() -> None:
    assert Unit("a.zip", "b.xml").label == "a.zip!b.xml"
    assert Unit("c.xml").label == "c.xml"


def test_a_folder_deeper_than_the_recursion_limit_is_walked_globbed_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39 point 6: every walk is a loop (sources, ``**`` globs, the output check's walk
    for a hard link), so a folder 1,100 levels deep is read, never a ``RecursionError``."""
    top = deep_folder(tmp_path / "games", DEEP)
    try:
        for given in (top, top / "**" / "*.xml"):
            units = expand(given)
            assert [u.source.split(os.sep).count("d") for u in units] == [DEEP], given
            assert units[0].error is None
        hard = tmp_path / "hard.zip"
        os.link(units[0].source, hard)
        with pytest.raises(OutputOverInput, match="is the input"):
            refuse_overlap([top], hard)
        # The check's walk resolves links only where there are links: a realpath a level
        # (each a lstat of every level above) made it quadratic, 35 s on this folder.
        calls: list[str] = []
        real = os.path.realpath

        def counted(path: object, *args: object, **kwargs: object) -> str:
            calls.append(os.fspath(path))  # type: ignore[arg-type]
            return real(path, *args, **kwargs)  # type: ignore[arg-type, call-overload, no-any-return]

        monkeypatch.setattr(os.path, "realpath", counted)
        assert sum(1 for _ in iter_reached([top])) == DEEP + 2  # every folder, the game
        assert len(calls) <= 2, calls[:5]
    finally:
        remove_deep_folder(top)


def test_the_estimate_of_games_reads_no_zip_and_is_near_the_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The observation export's choice of path is made from this estimate: file sizes only
    (a zip's directory is never read for it), within a fifth of the true count on the
    shipped month, one game per loose record file."""
    from strat_tools.io import sources

    sample = Path(__file__).parent.parent / "data"
    counted = sum(1 for _ in iter_units(sample))

    def refused(*args: object) -> None:
        raise AssertionError("a zip's directory was read")

    monkeypatch.setattr(sources, "read_directory", refused)
    estimate = estimated_games(sample)
    assert abs(estimate - counted) <= counted / 5, (estimate, counted)
    folder = tree(tmp_path / "t")
    assert estimated_games(folder) == 3 + 1  # three loose records; a tiny zip counts one
    assert estimated_games(tmp_path / "nowhere") == 0
