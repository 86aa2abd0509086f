"""A submission's files read: its card checked, its Parquet files read (each hashed as it
is parsed), as one table.

A submission is a folder ``PRED/``: Parquet files (any ``*.parquet`` under it, read in
path order) with ``game_id`` (string), ``ply`` (integer) and ``log_probs`` (a list of
float32, float64 accepted, aligned with that row's legal action ids in ascending order),
and ``PRED/card.json`` (:data:`CARD_FIELDS`). Every file is opened as an input is: a
regular file only, non-blocking (a FIFO in its place never blocks the reader), the card at
most :data:`MAX_CARD_BYTES`. A card with a field missing or of the wrong type, a file that
is not a predictions file, one written while it is read, and an entry named ``*.parquet``
that is not a regular file are refused: :class:`SubmissionError`, a usage error (exit 2).
Lining the rows up with a split's and checking them: :mod:`strat_tools.benchmark.submission`.

The belief task's submission (``task="belief"``, ``docs/benchmark.md``) has a fourth key
column, ``square`` (:data:`TASK_KEYS`).

The submission's SHA-256 (:func:`submission_sha256`) is that of the lines ``sha256sum``
prints for ``card.json`` and each Parquet file, by path: ``<sha256>  <path>\\n``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Generator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from strat_tools.core.errors import UsageError
from strat_tools.io.own_files import read_own
from strat_tools.io.owned import FileStamp, handle_digest, open_file

__all__ = [
    "CARD",
    "CARD_FIELDS",
    "MAX_CARD_BYTES",
    "TASK_KEYS",
    "Submission",
    "SubmissionError",
    "SubmissionStream",
    "check_card",
    "read_submission",
    "submission_sha256",
]

CARD: Final = "card.json"
MAX_CARD_BYTES: Final = 1 << 20
"""The largest card read (a card is a few hundred bytes)."""
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
    """The submission's Parquet files, in path order (in any folder under ``root``); an
    entry named ``*.parquet`` that is neither a folder nor a regular file (a FIFO, a
    device, a broken link) is refused by name, never left out."""
    found = []
    for path in sorted(root.rglob("*.parquet")):
        if path.is_dir():
            continue  # (a folder of a partitioned file: its files are listed themselves)
        if not path.is_file():
            raise SubmissionError(f"{path.relative_to(root).as_posix()} is not a regular file")
        found.append(path)
    return found


def submission_sha256(directory: str | os.PathLike[str]) -> str:
    """The SHA-256 of what ``sha256sum`` prints for the card and each Parquet file (each
    a regular file, opened non-blocking)."""
    root = Path(directory)
    names = [CARD, *(p.relative_to(root).as_posix() for p in _parquet_files(root))]
    digests = []
    for name in names:
        with _opened(root / name, name) as handle:
            digests.append((handle_digest(handle), name))
    return _digest_lines(digests)


def _opened(path: Path, name: str) -> IO[bytes]:
    """The file ``path`` (shown as ``name``) open for reading as every file of a folder is
    (:func:`~strat_tools.io.owned.open_file`: a regular file, non-blocking), else refused."""
    try:
        return open_file(path)
    except OSError as exc:
        raise SubmissionError(f"cannot read {name}: {exc}") from None


def _digest_lines(digests: list[tuple[str, str]]) -> str:
    lines = "".join(f"{digest}  {name}\n" for digest, name in digests)
    return hashlib.sha256(lines.encode()).hexdigest()


def _file_bytes(path: Path, name: str) -> npt.NDArray[np.uint8]:
    """A file's bytes (a regular file, opened non-blocking: never a FIFO), read once into
    one NumPy array, which NumPy asks huge pages for: an 88 MB file costs about 130 page
    faults instead of 21,600. A file holding more than its size when opened (still being
    written) is refused."""
    try:
        with _opened(path, name) as handle, io.FileIO(handle.fileno(), closefd=False) as raw:
            size = os.fstat(raw.fileno()).st_size
            data = np.empty(size, np.uint8)
            view, got = data.data, 0
            while got < size and (count := raw.readinto(view[got:])):
                got += count
            if got != size or raw.read(1):
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
    try:  # a regular file of at most MAX_CARD_BYTES, opened non-blocking (never a FIFO)
        card_bytes = read_own(str(root / CARD), limit=MAX_CARD_BYTES)
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
            with _opened(path, name) as handle:
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
