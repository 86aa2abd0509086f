"""Setup identity: the 40 squares of one side as bytes, their fingerprints, and game fingerprints.

A *setup code* is one side's starting position as its owner sees it, 40 bytes, back row first
and each row left to right from the owner's seat: red's ``content[0:40]``, blue's
``content[60:100]`` reversed (a 180 degree turn, not a mirror). Each byte is the piece's kind
written as red's board code (1 bomb .. 12 flag, :mod:`strat_tools.core.pieces`), 0 an empty square,
and :data:`OTHER` anything that is not the owner's piece (a lake or an enemy piece: only
classicfree has those). So a red and a blue setup that look the same to their owners have
the same code, and ``CODE_LETTERS[byte]`` spells it in red's Gravon letters.

The *fingerprint* of a setup is a stable, printable id: 16 hex digits of a 64-bit hash of its
40 bytes (:func:`fingerprints`). The *mirror fingerprint* is the fingerprint of whichever of
the setup and its left-right mirror has the smaller code, so it is equal for a setup and its
mirror image. A *game fingerprint* hashes the whole 100-square field and every move
(:func:`game_fingerprint`): two records with the same one are the same game, whatever their
file names.

Everything here works on whole ``[n, 40]`` uint8 arrays with NumPy, never setup by setup.
This module reads no files and counts nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from hashlib import blake2b
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from strat_tools.core.pieces import CODE_LETTERS, KIND_LABELS
from strat_tools.setups.strings import code_strings

Codes = npt.NDArray[np.uint8]
"""Setup codes: an ``[n, 40]`` uint8 array, one row per setup."""

GAME_IDENTITY_COLUMNS: Final = (
    "red_fingerprint",
    "blue_fingerprint",
    "red_mirror_fingerprint",
    "blue_mirror_fingerprint",
    "game_fingerprint",
)
"""The identity columns of the ``games`` table (null for a game without a setup)."""

SETUP_STRING_COLUMNS: Final = ("red_setup", "blue_setup")
"""The ``games`` table's setup strings: each side's setup in the ``owner`` encoding of
:mod:`strat_tools.setups.strings` (40 red Gravon letters, ``A`` empty .. ``M`` flag, back
row first, left to right from the owner's seat), null for a game without a setup or with a
piece outside its owner's four rows (classicfree). :func:`codes_of_strings` reads them back
as setup codes with one NumPy subtraction."""

SQUARES: Final = 40
OTHER: Final = 13
"""Byte of a square that holds no piece of the owner's and is not empty (classicfree only)."""

_SEED: Final = np.uint64(0x9E3779B97F4A7C15)
_M1: Final = np.uint64(0xBF58476D1CE4E5B9)
_M2: Final = np.uint64(0x94D049BB133111EB)
_HEX: Final = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)

MIRROR_INDEX: Final = np.array([r * 10 + 9 - c for r in range(4) for c in range(10)])
"""Square ``i`` of a setup's left-right mirror is square ``MIRROR_INDEX[i]`` of the setup."""

BOARD_SYMBOLS: Final = ("B", "S", "2", "3", "4", "5", "6", "7", "8", "9", "X", "F")
"""One character per kind (bomb .. flag) in drawn setups: modern ranks, ``X`` the marshal
(10), ``S`` the spy, as rhalbersma/gravon writes them."""

_DRAW: Final = ("_", *BOARD_SYMBOLS, "#")
"""Character of each setup byte 0..13: ``_`` empty, ``#`` not the owner's piece."""


def codes_of_strings(strings: pa.Array | pa.ChunkedArray) -> tuple[Codes, npt.NDArray[np.bool_]]:
    """Setup codes of an Arrow column of :data:`SETUP_STRING_COLUMNS` strings, and which
    rows had one (a null row's codes are zeros): the strings' bytes as one ``[n, 40]``
    array, less ``ord("A")``. No Python loop over the rows.

    >>> codes, known = codes_of_strings(pa.array(["M" + "A" * 39, None]))
    >>> codes[:, :2].tolist(), known.tolist()
    ([[12, 0], [0, 0]], [True, False])
    """
    column = pa.chunked_array([strings]) if isinstance(strings, pa.Array) else strings
    known = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    filled = column.fill_null("A" * SQUARES).combine_chunks().cast(pa.string())
    buffers = filled.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[
        filled.offset : filled.offset + len(filled) + 1
    ]
    data = (
        np.frombuffer(buffers[2], dtype=np.uint8)
        if buffers[2] is not None
        else np.zeros(0, np.uint8)
    )
    if len(filled) and not (np.diff(offsets) == SQUARES).all():
        raise ValueError("a setup string that is not 40 characters long")
    raw = data[offsets[0] : offsets[0] + SQUARES * len(filled)].reshape(-1, SQUARES)
    codes = raw.astype(np.int16) - ord("A")
    if len(codes) and (codes.min() < 0 or codes.max() > 12):
        raise ValueError("a setup string with a letter outside A..M")
    return codes.astype(np.uint8), known


def owner_codes(fields: npt.ArrayLike) -> tuple[Codes, Codes]:
    """Red's and blue's setup codes of ``[n, 100]`` board codes (Gravon field order).

    >>> field = [2] * 40 + [0] * 20 + [13] * 39 + [24]
    >>> red, blue = owner_codes([field])
    >>> int(red[0, 0]), int(blue[0, 0]), int(blue[0, 1])  # blue's K10 is its own back-left
    (2, 12, 1)
    """
    board = np.asarray(fields, dtype=np.int16).reshape(-1, 100)
    red = board[:, :SQUARES]
    blue = board[:, 60:][:, ::-1]
    red_codes = np.where((red >= 1) & (red <= 12), red, np.where(red == 0, 0, OTHER))
    blue_codes = np.where((blue >= 13) & (blue <= 24), blue - 12, np.where(blue == 0, 0, OTHER))
    return red_codes.astype(np.uint8), blue_codes.astype(np.uint8)


def mirror(codes: Codes) -> Codes:
    """Each setup's left-right mirror (each row reversed, the back row stays the back row)."""
    return np.ascontiguousarray(np.asarray(codes, dtype=np.uint8)[:, MIRROR_INDEX])


def canonical(codes: Codes) -> Codes:
    """Of each setup and its mirror, the one whose bytes sort first (lexicographically)."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    mirrored = mirror(codes)
    differ = codes != mirrored
    first = np.argmax(differ, axis=1)
    rows = np.arange(len(codes))
    take_mirror = differ.any(axis=1) & (mirrored[rows, first] < codes[rows, first])
    return np.where(take_mirror[:, None], mirrored, codes)


def hashes(codes: Codes) -> npt.NDArray[np.uint64]:
    """A 64-bit hash of each row of bytes: its 8-byte little-endian words folded in turn
    through the splitmix64 finaliser. The same on every platform; rows are zero-padded to
    a multiple of 8 bytes."""
    data = np.ascontiguousarray(codes, dtype=np.uint8)
    pad = -data.shape[1] % 8
    if pad:
        data = np.concatenate([data, np.zeros((len(data), pad), np.uint8)], axis=1)
    words = data.view("<u8").astype(np.uint64)
    h = np.full(len(data), _SEED, dtype=np.uint64)
    for j in range(words.shape[1]):
        h ^= words[:, j]
        h ^= h >> np.uint64(30)
        h *= _M1
        h ^= h >> np.uint64(27)
        h *= _M2
        h ^= h >> np.uint64(31)
    return h


def hex_ids(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.str_]:
    """16 lower-case hex digits per 64-bit value, most significant first."""
    raw = np.asarray(values, dtype=">u8").view(np.uint8).reshape(-1, 8)
    digits = np.empty((len(raw), 16), dtype=np.uint8)
    digits[:, 0::2] = _HEX[raw >> 4]
    digits[:, 1::2] = _HEX[raw & 15]
    return digits.view("S16").ravel().astype("U16")


def fingerprints(codes: Codes) -> npt.NDArray[np.str_]:
    """The fingerprint (16 hex digits) of each setup code.

    >>> classic = setup_from_letters("EEFFJBMKIH" "EEGDDBBHCD" "FFDGDBLGDD" "GBIIJBHHDE")
    >>> str(fingerprints(classic[None, :])[0])
    'c1869e1f00dfa952'
    """
    return hex_ids(hashes(codes))


def mirror_fingerprints(codes: Codes) -> npt.NDArray[np.str_]:
    """A fingerprint equal for a setup and its left-right mirror.

    >>> classic = setup_from_letters("EEFFJBMKIH" "EEGDDBBHCD" "FFDGDBLGDD" "GBIIJBHHDE")
    >>> pair = np.stack([classic, mirror(classic[None, :])[0]])
    >>> ids = mirror_fingerprints(pair)
    >>> bool(ids[0] == ids[1]), bool(fingerprints(pair)[0] == fingerprints(pair)[1])
    (True, False)
    """
    return fingerprints(canonical(codes))


def setup_from_letters(letters: str) -> Codes:
    """One setup code from 40 red Gravon letters (``A`` empty), back row first.

    >>> setup_from_letters("M" + "B" * 39)[:3].tolist()
    [12, 1, 1]
    """
    if len(letters) != SQUARES:
        raise ValueError(f"a setup has 40 squares, got {len(letters)} letters")
    codes = [CODE_LETTERS.find(ch) for ch in letters]
    if any(not 0 <= c <= 12 for c in codes):
        raise ValueError(f"not red Gravon letters A-M: {letters!r}")
    return np.array(codes, dtype=np.uint8)


def setup_letters(codes: Codes) -> list[str]:
    """Each setup as 40 red Gravon letters, back row first (``_`` for :data:`OTHER`)."""
    table = np.frombuffer((CODE_LETTERS[:13] + "_").encode(), dtype=np.uint8)
    data = table[np.ascontiguousarray(codes, dtype=np.uint8)]
    return [row.tobytes().decode() for row in data]


def draw_setup(code: npt.ArrayLike) -> str:
    """One setup as a 4x10 text board, as its owner sees it from their seat: the front row
    (row 4) on top, the back row last, column 1 (the owner's left) first.

    The drawing is itself a search pattern (:mod:`strat_tools.setups.patterns`) that matches
    exactly this setup.

    >>> print(draw_setup(setup_from_letters("EEFFJBMKIH" "EEGDDBBHCD" "FFDGDBLGDD" "GBIIJBHHDE")))
    5 B 7 7 8 B 6 6 2 3
    4 4 2 5 2 B X 5 2 2
    3 3 5 2 2 B B 6 S 2
    3 3 4 4 8 B F 9 7 6
    """
    values = np.asarray(code, dtype=np.uint8).reshape(4, 10)
    return "\n".join(" ".join(_DRAW[v] for v in values[row]) for row in (3, 2, 1, 0))


class SetupArray(NamedTuple):
    """Setups as parallel arrays: ``game_id`` and ``side`` (``red``/``blue``) per row of
    ``codes`` (``[n, 40]`` uint8, see the module docstring)."""

    game_id: npt.NDArray[np.object_]
    side: npt.NDArray[np.object_]
    codes: Codes

    def __len__(self) -> int:
        return len(self.codes)

    def take(self, rows: npt.NDArray[Any]) -> SetupArray:
        """The setups at ``rows`` (indices or a boolean mask)."""
        return SetupArray(self.game_id[rows], self.side[rows], self.codes[rows])


def setup_array(setups: pd.DataFrame | pa.Table) -> SetupArray:
    """The setups of a ``setups`` table (one row per piece) as ``[n, 40]`` setup codes.

    One setup per (game, side) pair, in order of first appearance; pieces off the owner's
    four setup rows (classicfree) are left out.
    """
    frame = setups.to_pandas() if isinstance(setups, pa.Table) else setups
    if not len(frame):
        empty = np.zeros(0, dtype=object)
        return SetupArray(empty, empty.copy(), np.zeros((0, SQUARES), np.uint8))
    side = np.asarray(frame["side"].astype(str), dtype=object)
    pair_codes, pairs = pd.factorize(pd.MultiIndex.from_arrays([frame["game_id"], side]))
    row = frame["row"].to_numpy(dtype=np.int64)
    col = frame["col"].to_numpy(dtype=np.int64)
    kind = pd.Categorical(frame["piece"], categories=KIND_LABELS).codes.astype(np.int64)
    keep = (row >= 1) & (row <= 4) & (col >= 1) & (col <= 10) & (kind >= 0)
    codes = np.zeros((len(pairs), SQUARES), dtype=np.uint8)
    codes[pair_codes[keep], (row[keep] - 1) * 10 + col[keep] - 1] = kind[keep] + 1
    return SetupArray(
        np.asarray(pairs.get_level_values(0), dtype=object),
        np.asarray(pairs.get_level_values(1), dtype=object),
        codes,
    )


class SetupIdentity:
    """The fingerprints of one batch's setups, for the ``games`` and ``setups`` tables.

    ``fields`` are the 100-square fields of the games that have one, ``games`` the row of
    each in the games table of ``n_games`` rows.
    """

    def __init__(self, fields: npt.ArrayLike, games: Sequence[int], n_games: int):
        red, blue = owner_codes(np.array(fields, dtype=np.int16).reshape(-1, 100))
        both = np.concatenate([red, blue])
        plain = fingerprints(both).reshape(2, -1).T
        mirrored = mirror_fingerprints(both).reshape(2, -1).T
        self.by_setup = (plain, mirrored)
        """``[k, 2]`` arrays (red, blue) of fingerprints and mirror fingerprints."""
        self.games: dict[str, list[str | None]] = {}
        rows = np.asarray(games, dtype=np.int64)
        strings = code_strings(both, "owner")
        half = len(red)
        for name, texts in (("red_setup", strings[:half]), ("blue_setup", strings[half:])):
            column: list[str | None] = [None] * n_games
            for row, text in zip(rows.tolist(), texts, strict=True):
                column[row] = text
            self.games[name] = column
        for name, values, side in (
            ("red_fingerprint", plain, 0),
            ("blue_fingerprint", plain, 1),
            ("red_mirror_fingerprint", mirrored, 0),
            ("blue_mirror_fingerprint", mirrored, 1),
        ):
            column = [None] * n_games
            for row, value in zip(rows.tolist(), values[:, side].tolist(), strict=True):
                column[row] = value
            self.games[name] = column

    def setup_columns(
        self, setups: npt.NDArray[np.int64], blue: npt.NDArray[np.bool_]
    ) -> tuple[pa.Array, pa.Array]:
        """Per piece row (its setup's index in ``fields``, and whether blue's): both ids."""
        # Each setup's ids become Arrow strings once; the piece rows take from them (a
        # NumPy unicode array per piece row converts about ten times slower).
        at = pa.array(setups * 2 + blue.astype(np.int64))
        plain, mirrored = (pa.array(ids.ravel(), pa.string()) for ids in self.by_setup)
        return plain.take(at), mirrored.take(at)


def fingerprint_rows(setups: pa.Table) -> tuple[pa.Array, pa.Array]:
    """Both fingerprints for every piece row of a ``setups`` table, from its rows alone
    (for tables written before the fingerprints were)."""
    frame = setups.select(["game_id", "side", "row", "col", "piece"]).to_pandas()
    found = setup_array(frame)
    keys = pd.MultiIndex.from_arrays([frame["game_id"], frame["side"].astype(str)])
    where = pd.MultiIndex.from_arrays([found.game_id, found.side]).get_indexer(keys)
    plain = fingerprints(found.codes)[where]
    return pa.array(plain), pa.array(mirror_fingerprints(found.codes)[where])


def game_fingerprint(
    field: Sequence[int] | None, sources: Sequence[int], targets: Sequence[int]
) -> str:
    """16 hex digits naming a game by its whole field and its moves (not its file name).

    >>> a = game_fingerprint([1] * 100, [31, 61], [41, 51])
    >>> a == game_fingerprint([1] * 100, [31, 61], [41, 51]), a == game_fingerprint(None, [], [])
    (True, False)
    """
    digest = blake2b(digest_size=8)
    digest.update(b"F" + _low_bytes(field) if field is not None else b"N")
    digest.update(_move_bytes(sources, targets))
    return digest.hexdigest()


def _low_bytes(values: Sequence[int]) -> bytes:
    """Each value's low byte; ``bytes()`` takes 0..255 in C, anything else goes the slow way."""
    try:
        return bytes(values)
    except ValueError:
        return bytes(c & 0xFF for c in values)


def _move_bytes(sources: Sequence[int], targets: Sequence[int]) -> bytes:
    """Source, target, source, ... as little-endian int16, as ``np.array(..., '<i2')`` writes
    them; squares 0..255 are placed byte by byte (ten times faster), others through NumPy.

    >>> _move_bytes([1, 2], [300, -1]) == np.array([[1, 300], [2, -1]], "<i2").tobytes()
    True
    >>> _move_bytes([31, 61], [41, 51]) == np.array([[31, 41], [61, 51]], "<i2").tobytes()
    True
    """
    n = len(sources)
    if len(targets) == n:
        try:
            out = bytearray(4 * n)
            out[0::4] = bytes(sources)
            out[2::4] = bytes(targets)
            return bytes(out)
        except ValueError:
            pass
    return np.array([sources, targets], dtype="<i2").T.ravel().tobytes()
