"""Bit-board matching gives exactly the answers of the straightforward definition.

The straightforward definition of a match is written here square by square in plain
Python (:func:`fits_at`): a whole pattern holds when every square's byte is allowed; an
anywhere pattern when it holds at some placement that keeps its rows inside the setup. The
fast matcher (:mod:`strat_tools.setups.bitboards`, through ``Pattern.match``) must agree on
random patterns (any masks, sets, negations, wildcards; every size of anywhere pattern) over
setups with every byte it can meet (empty squares, ``#``, bytes past 13), on chunk
boundaries, and on the archive's own setups.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strat_tools.setups.bitboards import ALL, CHUNK, match_anywhere, match_setups
from strat_tools.setups.identity import MIRROR_INDEX, setup_from_letters
from strat_tools.setups.patterns import AnywherePattern, Pattern, parse_pattern

ARMY = "B" * 6 + "C" + "D" * 8 + "E" * 5 + "F" * 4 + "G" * 4 + "H" * 4 + "I" * 3 + "J" * 2 + "KLM"
"""A classic army in Gravon letters."""


def classic_setups(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    army = np.frombuffer(ARMY.encode(), dtype=np.uint8) - ord("A")
    return np.stack([rng.permutation(army) for _ in range(n)]).astype(np.uint8)


def allowed(mask: int, column: np.ndarray) -> np.ndarray:
    """Whether ``mask`` allows each byte of ``column``: the wildcard anything, another mask
    the bytes whose bit it sets (none past 13)."""
    table = np.array([mask == ALL or (c <= 13 and bool(mask >> c & 1)) for c in range(256)])
    return table[column]


def fits_at(codes: np.ndarray, cells: list[tuple[int, int]]) -> np.ndarray:
    """Which setups hold, for every ``(square, mask)`` of ``cells``, a byte the mask allows."""
    fits = np.ones(len(codes), dtype=bool)
    for square, mask in cells:
        fits &= allowed(mask, codes[:, square])
    return fits


def plain_whole(masks: tuple[int, ...], codes: np.ndarray) -> list[bool]:
    return list(fits_at(codes, list(enumerate(masks))).tolist())


def plain_anywhere(grid: tuple[tuple[int, ...], ...], codes: np.ndarray) -> list[bool]:
    """Placement by placement: the back-left cell on row ``r``, column ``c``."""
    height, width = len(grid), len(grid[0])
    found = np.zeros(len(codes), dtype=bool)
    for r in range(4 - height + 1):
        for c in range(10 - width + 1):
            cells = [
                ((r + height - 1 - i) * 10 + c + j, grid[i][j])
                for i in range(height)
                for j in range(width)
            ]
            found |= fits_at(codes, cells)
    return found.tolist()


# Masks as a person writes them: one piece, a set, "not", "none of", anything.
byte = st.integers(min_value=0, max_value=13)
masks = st.one_of(
    st.just(ALL),
    byte.map(lambda b: 1 << b),
    byte.map(lambda b: ALL & ~(1 << b)),
    st.sets(byte, min_size=1, max_size=13).map(lambda bs: sum(1 << b for b in bs)),
    st.sets(byte, min_size=1, max_size=3).map(lambda bs: ALL & ~sum(1 << b for b in bs)),
)


def grids(draw: st.DrawFn) -> tuple[tuple[int, ...], ...]:
    height = draw(st.integers(1, 4))
    width = draw(st.integers(1, 10))
    return tuple(tuple(draw(masks) for _ in range(width)) for _ in range(height))


grid_strategy = st.composite(grids)


def mixed_setups(seed: int, n: int = 120) -> np.ndarray:
    """Classic setups, setups with empty squares and ``#`` (13), and a few rows of bytes
    no mask allows (14 .. 255): a complement must not let those through."""
    rng = np.random.default_rng(seed)
    classic = classic_setups(n, seed)
    sparse = rng.choice(np.array([0, 0, 0, 1, 2, 3, 10, 11, 12, 13], np.uint8), (n, 40))
    odd = classic[: n // 4].copy()
    odd[rng.random(odd.shape) < 0.05] = rng.integers(14, 256, dtype=np.uint8)
    return np.concatenate([classic, sparse, odd])


@settings(max_examples=60, deadline=None)
@given(grid=grid_strategy(), seed=st.integers(0, 2**16))
def test_random_anywhere_patterns_match_as_defined(grid, seed: int) -> None:  # type: ignore[no-untyped-def]
    codes = mixed_setups(seed)
    pattern = AnywherePattern(grid)
    plain, mirrored = pattern.match_views(codes)
    assert plain.tolist() == plain_anywhere(grid, codes)
    assert mirrored.tolist() == plain_anywhere(pattern.mirrored().grid, codes)
    assert pattern.match(codes).tolist() == plain.tolist()
    assert pattern.match(codes, mirror=True).tolist() == (plain | mirrored).tolist()


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(masks, min_size=40, max_size=40), seed=st.integers(0, 2**16))
def test_random_whole_patterns_match_as_defined(cells: list[int], seed: int) -> None:
    codes = mixed_setups(seed)
    pattern = Pattern(tuple(cells))
    plain, mirrored = pattern.match_views(codes)
    assert plain.tolist() == plain_whole(pattern.masks, codes)
    assert mirrored.tolist() == plain_whole(pattern.mirrored().masks, codes)
    assert pattern.match(codes, mirror=True).tolist() == (plain | mirrored).tolist()


def test_a_pattern_of_one_setup_finds_its_copies_across_chunk_boundaries() -> None:
    """Copies of one setup scattered over several chunks, the last one partial: each found,
    nothing else (so no chunk keeps a stale plane of the one before)."""
    codes = classic_setups(2 * CHUNK + 77, seed=5)
    target = codes[0].copy()
    at = [1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, len(codes) - 1]
    codes[at] = target
    whole = Pattern(tuple(1 << int(b) for b in target))
    found = np.flatnonzero(whole.match(codes)).tolist()
    assert found == sorted({0, *at})
    mirror_hits = np.flatnonzero(whole.match(codes[:, MIRROR_INDEX], mirror=True)).tolist()
    assert mirror_hits == found


@pytest.mark.parametrize("count", [0, 1, 5])
def test_few_setups_and_none(count: int) -> None:
    codes = classic_setups(count, seed=2) if count else np.zeros((0, 40), np.uint8)
    spy_general = AnywherePattern.parse("SG")
    assert spy_general.match(codes).tolist() == plain_anywhere(spy_general.grid, codes)
    flag_corner = Pattern((1 << 12,) + (ALL,) * 39)
    assert flag_corner.match(codes).tolist() == plain_whole(flag_corner.masks, codes)
    assert match_setups([], codes) == [] and match_anywhere([], codes) == []


@settings(max_examples=60, deadline=None)
@given(
    cells=st.dictionaries(st.integers(0, 39), masks, min_size=1, max_size=3),
    seed=st.integers(0, 2**16),
)
def test_patterns_of_a_few_squares_match_as_defined(cells: dict[int, int], seed: int) -> None:
    """A few constrained squares are read column by column: the same answers."""
    codes = mixed_setups(seed)
    pattern = Pattern(tuple(cells.get(square, ALL) for square in range(40)))
    assert pattern.match(codes).tolist() == plain_whole(pattern.masks, codes)
    plain, mirrored = pattern.match_views(codes)
    assert (plain | mirrored).tolist() == pattern.match(codes, mirror=True).tolist()
    assert mirrored.tolist() == plain_whole(pattern.mirrored().masks, codes)


def test_a_wildcard_pattern_matches_every_setup() -> None:
    codes = mixed_setups(3)
    assert parse_pattern(".", anywhere=True).match(codes).all()
    assert Pattern((ALL,) * 40).match(codes, mirror=True).all()


def test_many_bytes_in_one_pattern_agree_with_the_definition() -> None:
    """More distinct bytes than the direct planes pay for: the bytes are bit-sliced."""
    codes = np.concatenate([classic_setups(3 * CHUNK // 2, seed=9), mixed_setups(4)])
    codes[::7] = setup_from_letters("DEFGHIJKLBCM" + "D" * 28)
    grid = AnywherePattern.parse("B2345678 / 9XF.[!FB]...").grid
    assert match_anywhere([grid], codes)[0].tolist() == plain_anywhere(grid, codes)
    row = Pattern.parse("........../........../........../2345678XBS")
    assert row.match(codes).tolist() == plain_whole(row.masks, codes)


ARCHIVE_PATTERNS = [
    "SG",
    "B/F",
    "BFB",
    "[!FB]9",
    "B.B/.F.",
    "[2.][2.]2222",
    "!B!B/F.",
    "X/[S2]/.",
    "B2345678",
]


@pytest.mark.slow
def test_the_archive_setups_match_as_defined(gravon_dir: Path) -> None:
    from strat_tools.run.driver import read_games
    from strat_tools.stats.repeats import setup_outcomes

    games = read_games(str(gravon_dir), setups_only=True, run=1)
    codes = setup_outcomes(games).codes
    assert len(codes) > 20_000
    for text in ARCHIVE_PATTERNS:
        pattern = AnywherePattern.parse(text)
        plain, mirrored = pattern.match_views(codes)
        assert plain.tolist() == plain_anywhere(pattern.grid, codes), text
        assert mirrored.tolist() == plain_anywhere(pattern.mirrored().grid, codes), text
    spy_general = parse_pattern("SG", anywhere=True).match(codes, mirror=True)
    by_hand = [
        any({int(r[c]), int(r[c + 1])} == {2, 10} for r in row.reshape(4, 10) for c in range(9))
        for row in codes
    ]
    assert spy_general.tolist() == by_hand
    for text in (
        "........../........../........../FB........",
        "!B!B!B!B!B!B!B!B!B!B/........../........../..........",
        "[2.][2.]2222[2.]2[2.]2/........../........../..........",
    ):
        whole = Pattern.parse(text)
        plain, mirrored = whole.match_views(codes)
        assert plain.tolist() == plain_whole(whole.masks, codes), text
        assert mirrored.tolist() == plain_whole(whole.mirrored().masks, codes), text
