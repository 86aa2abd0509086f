"""A submission: its card checked, its Parquet files read and lined up with a split's rows.

A submission is a folder ``PRED/``: Parquet files (any ``*.parquet`` under it, read in
path order) with ``game_id`` (string), ``ply`` (integer) and ``log_probs`` (a list of
float32, float64 accepted, aligned with that row's legal action ids in ascending order),
and ``PRED/card.json`` (:data:`CARD_FIELDS`). :func:`aligned_log_probs` refuses, naming
the first offending rows (at most :data:`SHOWN`, with their file and row), a row of a game
not in the split or of a ply the game does not have, a repeated row, a missing row, a list
of the wrong length or with a null, a non-finite value, and a row whose probabilities do
not sum to 1 within :data:`TOLERANCE`: :class:`SubmissionError`, a usage error (exit 2).

The belief task's submission (``task="belief"``, ``docs/benchmark.md``) has a fourth key
column, ``square`` (the mover's view, as ``board_view``): one row per unidentified piece,
``log_probs`` over the 12 kinds; :func:`aligned_log_probs` refuses it as above and, where
the caller gives them, rows with mass (a probability above ``NO_MASS``) where none may be.

The submission's SHA-256 (:func:`submission_sha256`) is that of the lines ``sha256sum``
prints for ``card.json`` and each Parquet file, by path: ``<sha256>  <path>\\n``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Generator, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from strat_tools.benchmark.metrics import block_spans
from strat_tools.core.errors import UsageError
from strat_tools.engine.information.beliefs import NO_MASS
from strat_tools.io.owned import FileStamp, file_digest, handle_digest

__all__ = [
    "CARD",
    "CARD_FIELDS",
    "SHOWN",
    "TASK_KEYS",
    "TOLERANCE",
    "Submission",
    "SubmissionError",
    "SubmissionStream",
    "aligned_log_probs",
    "check_card",
    "game_codes",
    "read_submission",
    "submission_sha256",
]

CARD: Final = "card.json"
TOLERANCE: Final = 1e-3
"""How far a row's probabilities may sum from 1."""
SHOWN: Final = 5
"""Offending rows named in a refusal, at most."""
TASK_KEYS: Final = {"move": ("game_id", "ply"), "belief": ("game_id", "ply", "square")}
"""Each task's key columns: a row of a move submission is a ply, a belief's a piece."""

CARD_FIELDS: Final[dict[str, tuple[type, ...]]] = {
    "model": (str,),
    "parameters": (int,),
    "training_data": (str,),
    "training_months": (list,),
    "external_data": (str,),
    "compute": (str,),
    "seed": (int, type(None)),
    "trained_on_val": (bool,),
}
"""The card's fields and their JSON types: the model's name, its number of parameters,
the data it was trained on and its calendar months (``YYYY-MM`` each), any external data
(setup lists, other games: ``"none"`` if none), the compute it took, its seed (null if it
has none) and whether it was trained on val."""


class SubmissionError(UsageError):
    """A submission that cannot be scored as it is (its card, a file, or rows: the message
    names the first offending rows). The caller's mistake: exit status 2."""


@dataclass(frozen=True)
class Submission:
    """A submission read: its card, its rows (``game_id``, ``ply``, ``log_probs``, one
    table), where each row comes from (file index and row within it) and the SHA-256."""

    card: dict[str, Any]
    table: pa.Table
    files: list[str]
    file_of_row: npt.NDArray[np.int64]
    row_in_file: npt.NDArray[np.int64]
    sha256: str


def check_card(card: Any, where: str = CARD) -> dict[str, Any]:
    """``card`` if it is a submission card (:data:`CARD_FIELDS`, each of its type; other
    fields allowed), else :class:`SubmissionError` naming the field."""
    if not isinstance(card, Mapping):
        raise SubmissionError(f"{where} is not a JSON object")
    for name, kinds in CARD_FIELDS.items():
        if name not in card:
            raise SubmissionError(f"{where} has no {name!r} (a card has {', '.join(CARD_FIELDS)})")
        value = card[name]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise SubmissionError(f"{where}: {name!r} is {value!r}, not a {kinds[0].__name__}")
    if card["parameters"] < 0 or not card["model"].strip():
        raise SubmissionError(f"{where}: a model needs a name and a count of parameters >= 0")
    if not all(isinstance(m, str) for m in card["training_months"]):
        raise SubmissionError(f"{where}: 'training_months' is not a list of YYYY-MM months")
    return dict(card)


def _parquet_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.parquet") if p.is_file())


def submission_sha256(directory: str | os.PathLike[str]) -> str:
    """The SHA-256 of what ``sha256sum`` prints for the card and each Parquet file."""
    root = Path(directory)
    names = [CARD, *(p.relative_to(root).as_posix() for p in _parquet_files(root))]
    return _digest_lines([(file_digest(root / name), name) for name in names])


def _digest_lines(digests: list[tuple[str, str]]) -> str:
    lines = "".join(f"{digest}  {name}\n" for digest, name in digests)
    return hashlib.sha256(lines.encode()).hexdigest()


def _file_bytes(path: Path, name: str) -> npt.NDArray[np.uint8]:
    """A file's bytes, read once into one NumPy array: NumPy asks for huge pages for an
    array this large, so that a 78 MB file costs some 200 page faults instead of the 19,000
    of a ``bytes`` (0.03 to 0.1 CPU s of the kernel's on a busy machine). A file that holds
    more than its size when opened (still being written) is refused."""
    try:
        with open(path, "rb", buffering=0) as handle:
            size = os.fstat(handle.fileno()).st_size
            data = np.empty(size, np.uint8)
            view, got = data.data, 0
            while got < size and (count := handle.readinto(view[got:])):
                got += count
            if got != size or handle.read(1):
                raise SubmissionError(f"{name} was written while it was read")
    except OSError as exc:
        raise SubmissionError(f"cannot read {name}: {exc}") from None
    return data


def _read_file(
    data: npt.NDArray[np.uint8], name: str, task: str = "move", threads: bool = True
) -> pa.Table:
    """A predictions file's key columns and ``log_probs`` from its bytes (read once: hashed,
    then parsed; with pyarrow's threads or on this one)."""
    columns = [*TASK_KEYS[task], "log_probs"]
    try:
        table = pq.read_table(
            pa.BufferReader(pa.py_buffer(data)),
            columns=columns,
            read_dictionary=["game_id"],
            use_threads=threads,
        )
    except (OSError, pa.ArrowException, KeyError) as exc:
        raise SubmissionError(
            f"{name} is not a predictions file ({', '.join(columns)}): {exc}"
        ) from None
    return _checked(table, name, task)


def _checked(table: pa.Table, name: str, task: str) -> pa.Table:
    """A predictions file's rows (all or some) once their types are checked: game ids text
    (a dictionary), the keys integers (made int64), ``log_probs`` a list of floats."""
    columns = [*TASK_KEYS[task], "log_probs"]
    kinds = {f.name: f.type for f in table.schema}
    values = kinds["log_probs"]
    if not (pa.types.is_list(values) or pa.types.is_large_list(values)) or not (
        pa.types.is_floating(values.value_type)
    ):
        raise SubmissionError(f"{name}: log_probs is {values}, not a list of float32")
    for key in columns[1:-1]:
        if not pa.types.is_integer(kinds[key]):
            raise SubmissionError(f"{name}: {key} is {kinds[key]}, not an integer")
    ids = table.column("game_id")
    if not (pa.types.is_dictionary(ids.type) and pa.types.is_string(ids.type.value_type)):
        raise SubmissionError(f"{name}: game_id is {kinds['game_id']}, not text")
    keys = {key: table.column(key).cast(pa.int64()) for key in columns[1:-1]}
    return pa.table({"game_id": ids, **keys, "log_probs": table.column("log_probs")})


def _card_and_files(root: Path) -> tuple[dict[str, Any], bytes, list[Path]]:
    """A submission folder's card (checked), its bytes and its Parquet files in path order."""
    if not root.is_dir():
        raise SubmissionError(f"{root} is not a folder of predictions")
    try:
        card_bytes = (root / CARD).read_bytes()
        card = check_card(json.loads(card_bytes), str(root / CARD))
    except (OSError, ValueError) as exc:
        if isinstance(exc, SubmissionError):
            raise
        raise SubmissionError(f"cannot read the card {root / CARD}: {exc}") from None
    paths = _parquet_files(root)
    if not paths:
        raise SubmissionError(f"{root} holds no Parquet file of predictions")
    return card, card_bytes, paths


def read_submission(
    directory: str | os.PathLike[str], task: str = "move", *, threads: bool = True
) -> Submission:
    """The submission in ``directory``: its card checked, every Parquet file read (only
    the task's key columns and ``log_probs``, :data:`TASK_KEYS`), and its SHA-256.
    ``threads=False`` decodes on the calling thread only (a reader beside other work: a
    quarter less CPU)."""
    root = Path(directory)
    card, card_bytes, paths = _card_and_files(root)
    names = [p.relative_to(root).as_posix() for p in paths]
    digests = [(hashlib.sha256(card_bytes).hexdigest(), CARD)]
    tables = []
    with ThreadPoolExecutor(1, thread_name_prefix="hash") as beside:
        # each file hashed (hashlib, off the interpreter's lock) while its bytes are parsed
        for path, name in zip(paths, names, strict=True):
            data = _file_bytes(path, name)
            hashing = beside.submit(hashlib.sha256, data.data)
            tables.append(_read_file(data, name, task, threads))
            digests.append((hashing.result().hexdigest(), name))
    sizes = np.array([t.num_rows for t in tables], dtype=np.int64)
    file_of_row = np.repeat(np.arange(len(tables)), sizes)
    row_in_file = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    table = pa.concat_tables(_one_form(tables, names)).combine_chunks()
    return Submission(card, table, names, file_of_row, row_in_file, _digest_lines(digests))


def _one_form(tables: list[pa.Table], names: list[str]) -> list[pa.Table]:
    """Files' rows (``names``: each one's file) with one type of ``log_probs``, so that
    they read as one table: as they are where every file has the same; else each cast to
    a list of the widest float any file holds (float32 at least: a float64 file beside a
    float32 one, a list with non-null items beside one without, a large list beside a list
    are one submission, not a crash)."""
    kinds = [t.schema.field("log_probs").type for t in tables]
    if all(kind == kinds[0] for kind in kinds):
        return tables
    widest = max((kind.value_type for kind in kinds), key=lambda value: value.bit_width)
    target = pa.list_(widest if widest.bit_width >= 32 else pa.float32())
    out = []
    for table, name in zip(tables, names, strict=True):
        at = table.schema.get_field_index("log_probs")
        try:
            column = table.column(at).cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise SubmissionError(
                f"{name}: its log_probs cannot be read as {target}: {exc}"
            ) from None
        out.append(table.set_column(at, "log_probs", column))
    return out


class SubmissionStream:
    """A submission read a row group at a time, for a scorer that walks the split in order:
    :meth:`take` gives the next rows (file by file in path order, as :func:`read_submission`
    concatenates them) as a :class:`Submission` of those rows only. Each file is hashed
    through the handle it is then parsed from, and that handle's ``fstat`` must not change
    while it is read (the bytes scored are the bytes hashed); :attr:`sha256` is the
    submission's once every file was read (:meth:`finished`). Memory holds a row group and
    the rows taken, whatever the size of the files."""

    def __init__(self, directory: str | os.PathLike[str], task: str, batch_rows: int) -> None:
        root = Path(directory)
        self.card, card_bytes, paths = _card_and_files(root)
        self.task = task
        self.files = [p.relative_to(root).as_posix() for p in paths]
        self._paths = paths
        self._digests = [(hashlib.sha256(card_bytes).hexdigest(), CARD)]
        self._batches = self._read(batch_rows)
        self._held: list[tuple[int, int, pa.Table]] = []
        self.sha256 = ""

    def _read(self, batch_rows: int) -> Generator[tuple[int, int, pa.Table], None, None]:
        columns = [*TASK_KEYS[self.task], "log_probs"]
        for index, (path, name) in enumerate(zip(self._paths, self.files, strict=True)):
            with open(path, "rb") as handle:
                stamp = FileStamp.of(os.fstat(handle.fileno()))
                self._digests.append((handle_digest(handle), name))
                try:
                    # not pre-buffered: pyarrow would hold every row group's bytes at once
                    parquet = pq.ParquetFile(handle, read_dictionary=["game_id"], pre_buffer=False)
                    batches = parquet.iter_batches(batch_size=batch_rows, columns=columns)
                    start = 0
                    for batch in batches:
                        if FileStamp.of(os.fstat(handle.fileno())) != stamp:
                            raise SubmissionError(f"{name} was written while it was read")
                        table = _checked(pa.Table.from_batches([batch]), name, self.task)
                        yield index, start, table
                        start += batch.num_rows
                except (pa.ArrowException, KeyError) as exc:
                    raise SubmissionError(
                        f"{name} is not a predictions file ({', '.join(columns)}): {exc}"
                    ) from None
        self.sha256 = _digest_lines(self._digests)

    def take(self, rows: int) -> Submission | None:
        """The next ``rows`` rows (at least one), or None when fewer are left."""
        held = sum(t.num_rows for _, _, t in self._held)
        while held < rows:
            got = next(self._batches, None)
            if got is None:
                return None
            self._held.append(got)
            held += got[2].num_rows
        parts, owners, file_of_row, row_in_file = [], [], [], []
        need = rows
        while need:
            index, start, table = self._held[0]
            part = table.slice(0, need)
            parts.append(part)
            owners.append(self.files[index])
            file_of_row.append(np.full(part.num_rows, index, np.int64))
            row_in_file.append(np.arange(start, start + part.num_rows, dtype=np.int64))
            need -= part.num_rows
            if part.num_rows == table.num_rows:
                self._held.pop(0)
            else:
                self._held[0] = (index, start + part.num_rows, table.slice(part.num_rows))
        return Submission(
            self.card,
            pa.concat_tables(_one_form(parts, owners)),
            self.files,
            np.concatenate(file_of_row),
            np.concatenate(row_in_file),
            "",
        )

    def finished(self) -> bool:
        """Whether every row was taken (every file then read to its end and hashed)."""
        if any(t.num_rows for _, _, t in self._held):
            return False
        return all(got[2].num_rows == 0 for got in self._batches)

    def close(self) -> None:
        """Close the file being read (a stream left before its end)."""
        self._batches.close()


def _rows_text(
    what: str,
    total: int,
    game_ids: npt.NDArray[Any],
    plies: npt.NDArray[Any],
    where: list[str],
    squares: npt.NDArray[Any] | None = None,
) -> str:
    """``what`` and the first offending rows (of ``total``): ``game G ply P`` (``square S``
    for a belief; with where each is)."""
    shown = [
        f"game {game_ids[i]!s} ply {int(plies[i])}"
        + (f" square {int(squares[i])}" if squares is not None else "")
        + (f" ({where[i]})" if where else "")
        for i in range(min(total, SHOWN))
    ]
    more = f" and {total - SHOWN:,} more" if total > SHOWN else ""
    return f"{what}: {total:,} row(s): {'; '.join(shown)}{more}"


def _place(sub: Submission, rows: npt.NDArray[np.int64]) -> list[str]:
    return [f"{sub.files[sub.file_of_row[r]]} row {int(sub.row_in_file[r])}" for r in rows[:SHOWN]]


def _refuse_rows(sub: Submission, what: str, rows: npt.NDArray[np.int64]) -> None:
    if len(rows):
        ids = sub.table.column("game_id").to_numpy(zero_copy_only=False)
        plies = sub.table.column("ply").to_numpy()
        first = rows[:SHOWN]
        squares = _squares(sub)
        raise SubmissionError(
            _rows_text(
                what,
                len(rows),
                ids[first],
                plies[first],
                _place(sub, rows),
                None if squares is None else squares[first],
            )
        )


def _squares(sub: Submission) -> npt.NDArray[np.int64] | None:
    """A belief submission's squares (None for a move submission)."""
    if "square" not in sub.table.column_names:
        return None
    return np.asarray(sub.table.column("square").to_numpy(), np.int64)


def game_codes(column: pa.ChunkedArray | pa.Array, games: pa.Array) -> npt.NDArray[np.int64]:
    """Each row's game as its index in ``games`` (-1 for a game not there), from a column
    of game ids read as a dictionary (each chunk's few distinct ids looked up once)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = []
    for chunk in chunks:
        if not pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_encode()
        found = pc.index_in(chunk.dictionary, value_set=games).fill_null(-1)
        index = np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int64)
        out.append(index[chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)])
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _keys(
    codes: npt.NDArray[np.int64],
    plies: npt.NDArray[np.int64],
    squares: npt.NDArray[np.integer[Any]] | None = None,
) -> npt.NDArray[np.int64]:
    """One int64 per (game, ply): the game's index in the high bits, the ply below; per
    (game, ply, square) for a belief: the game, 32 bits of ply, then 7 of square."""
    if squares is None:
        return (codes << 32) | (plies & 0xFFFFFFFF)
    return (codes << 39) | ((plies & 0xFFFFFFFF) << 7) | (squares & 0x7F)


def _key_parts(
    keys: npt.NDArray[np.int64], belief: bool
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64] | None]:
    """:func:`_keys` undone: the game index, the ply and (a belief's) the square."""
    if not belief:
        return keys >> 32, keys & 0xFFFFFFFF, None
    return keys >> 39, (keys >> 7) & 0xFFFFFFFF, keys & 0x7F


def _order(sub: Submission, games: pa.Array, truth: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each of the split's rows (``truth`` keys, games indexed in ``games``) the
    submission's row that predicts it; every row not accounted for refused."""
    codes = game_codes(sub.table.column("game_id"), games)
    plies = sub.table.column("ply").to_numpy()
    _refuse_rows(sub, "rows of games that are not in the split", np.flatnonzero(codes < 0))
    squares = _squares(sub)
    if squares is not None:
        outside = np.flatnonzero((squares < 0) | (squares > 99))
        _refuse_rows(sub, "rows of a square outside 0..99", outside)
    keys = _keys(codes, plies, squares)
    if len(keys) == len(truth) and (keys == truth).all():
        return np.arange(len(keys))  # in the split's order, each row once: nothing to sort
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    known = np.sort(truth)
    near = np.minimum(np.searchsorted(known, ordered), max(len(known) - 1, 0))
    extra = order[known[near] != ordered] if len(known) else order
    what = "plies" if squares is None else "plies or squares (pieces)"
    _refuse_rows(sub, f"rows of {what} the split does not have", np.sort(extra))
    again = order[1:][ordered[1:] == ordered[:-1]]
    _refuse_rows(sub, "repeated rows", np.sort(again))
    at = np.minimum(np.searchsorted(ordered, truth), max(len(ordered) - 1, 0))
    found = ordered[at] == truth if len(ordered) else np.zeros(len(truth), bool)
    if not found.all():
        missing = np.flatnonzero(~found)
        game, ply, square = _key_parts(truth[missing[:SHOWN]], squares is not None)
        raise SubmissionError(
            _rows_text(
                f"the predictions miss rows of the split (of {len(truth):,})",
                len(missing),
                games.to_numpy(zero_copy_only=False)[game],
                ply,
                [],
                square,
            )
        )
    return order[at]


def _probability_sums(
    values: npt.NDArray[np.floating[Any]],
    ends: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    workers: Executor | None = None,
) -> npt.NDArray[np.floating[Any]]:
    """Each row's sum of probabilities (``exp`` of its values; row ``i`` ends at
    ``ends[i]`` after ``counts[i]`` values), a block of rows at a time (the metrics'
    ``block_spans``, on ``workers`` where given): each block's exponentials in the cache,
    never an array as large as the values. Summed in the values' own precision: float32
    errs by ~1e-5 on a row's ~100 terms, far inside the tolerance, and a conversion to
    float64 would cost ten times the sum."""
    starts = ends - counts

    def block(span: tuple[int, int]) -> npt.NDArray[np.floating[Any]]:
        a, b = span
        with np.errstate(over="ignore", invalid="ignore"):
            exponentials = np.exp(values[starts[a] : ends[b - 1]])
        summed: npt.NDArray[np.floating[Any]] = np.add.reduceat(
            exponentials, starts[a:b] - starts[a]
        )
        return summed

    spans = block_spans(len(counts))
    parts = list(workers.map(block, spans) if workers is not None else map(block, spans))
    return np.concatenate([np.zeros(0, values.dtype), *parts])


def aligned_log_probs(
    sub: Submission,
    games: pa.Array,
    codes: npt.NDArray[np.int64],
    plies: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    *,
    squares: npt.NDArray[np.integer[Any]] | None = None,
    forbidden: Sequence[tuple[str, npt.NDArray[np.bool_]]] = (),
    workers: Executor | None = None,
) -> npt.NDArray[np.floating[Any]]:
    """The submission's log-probabilities in the split's row order, flat (row ``i``'s
    ``counts[i]`` values after the rows before it), once every row is checked: the split's
    rows are ``codes`` (each row's game, an index into ``games``), ``plies`` and
    ``counts`` (its number of legal moves; a belief's: 12, and ``squares`` its piece's
    square). ``forbidden``: (what, flat mask aligned with the values) pairs, each refusing
    the rows with a probability above :data:`NO_MASS` where the mask is set;
    ``workers``: the rows' probability sums made on them, a block at a time.
    :class:`SubmissionError` for the first offending rows (see the module's docstring)."""
    rows = _order(sub, games, _keys(codes, plies, squares))
    column = sub.table.column("log_probs")
    lists = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if lists.null_count:
        nulls = np.flatnonzero(lists.is_null().to_numpy(zero_copy_only=False))
        _refuse_rows(sub, "rows with a null log_probs", nulls)
    offsets = lists.offsets.to_numpy().astype(np.int64)
    lengths = np.diff(offsets)
    wrong = np.flatnonzero(lengths[rows] != counts)
    _refuse_rows(
        sub,
        "rows whose log_probs are not as long as their legal moves (the first one: "
        + (f"{lengths[rows[wrong[0]]]} for {counts[wrong[0]]})" if len(wrong) else ")"),
        np.sort(rows[wrong]),
    )
    ends = np.cumsum(counts)
    flat = (
        lists.values.slice(offsets[0], offsets[-1] - offsets[0]) if len(offsets) else lists.values
    )
    offsets = offsets - offsets[0]
    in_order = bool((rows == np.arange(len(rows))).all())
    take = None
    if not in_order:
        take = np.arange(int(ends[-1]) if len(ends) else 0)
        take += np.repeat(offsets[rows] - (ends - counts), counts)
    if flat.null_count:
        holes = flat.is_null().to_numpy(zero_copy_only=False)
        bad = np.unique(
            np.searchsorted(
                ends, np.flatnonzero(holes if take is None else holes[take]), side="right"
            )
        )
        _refuse_rows(sub, "rows with a null value in log_probs", np.sort(rows[bad]))
    raw = flat.to_numpy(zero_copy_only=False)
    values = raw if take is None else raw[take]
    total = _probability_sums(values, ends, counts, workers)
    # a NaN or +inf makes its row's sum so, a -inf the minimum: only then are they looked for
    if not np.isfinite(total).all() or (len(values) and np.isneginf(values.min())):
        strange = np.unique(
            np.searchsorted(ends, np.flatnonzero(~np.isfinite(values)), side="right")
        )
        _refuse_rows(sub, "rows with a non-finite value in log_probs", np.sort(rows[strange]))
    off = np.flatnonzero(np.abs(total - 1) > TOLERANCE)
    _refuse_rows(
        sub,
        f"rows whose probabilities do not sum to 1 within {TOLERANCE:g} (the first one sums "
        + (f"to {total[off[0]]:.6g})" if len(off) else ")"),
        np.sort(rows[off]),
    )
    for what, mask in forbidden:
        heavy = np.flatnonzero(mask & (values > np.log(NO_MASS)))
        bad = np.unique(np.searchsorted(ends, heavy, side="right"))
        _refuse_rows(sub, f"rows with mass (above {NO_MASS:g}) {what}", np.sort(rows[bad]))
    out: npt.NDArray[np.floating[Any]] = values
    return out
