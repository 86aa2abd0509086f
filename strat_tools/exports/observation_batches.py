"""An observation export as batches of NumPy arrays, for any learning framework.

:func:`observation_batches` iterates the shards an export finished
(:func:`~strat_tools.exports.observation_files.observation_folder`), one shard at a time,
and cuts the rows into batches of ``batch_size`` (only the last one shorter, unless ``drop_last``),
each a ``dict`` of NumPy arrays named in :data:`FIELDS`: labels ``int64`` (what PyTorch's
losses take), boards ``uint8``, masks ``bool``. Memory is bounded by one shard (at most
``--shard-rows`` rows) plus a batch, whatever the size of the export. NumPy arrays go
into PyTorch with ``torch.from_numpy`` and into JAX with ``jnp.asarray``, without copies
where the framework allows; docs/observations.md has both loops.

With ``shuffle=True`` the shards come in a random order and the rows of each shard are
shuffled (a shard-local shuffle: a row meets only rows of its own shard in a batch);
every iteration (epoch) draws a new order from ``seed``, reproducibly.

This module reads files only; the rows, their schema and their meaning are
:mod:`strat_tools.exports.observations`, the board code :mod:`strat_tools.engine.planes`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from strat_tools.core.errors import OptionError
from strat_tools.engine.actions import ACTION_COUNT
from strat_tools.engine.planes import hidden_truth, to_planes
from strat_tools.exports.observation_files import observation_folder
from strat_tools.exports.observation_rows import LAST_MOVES, OBSERVATIONS_SCHEMA
from strat_tools.exports.observations import boards_of

__all__ = [
    "DEFAULT_FIELDS",
    "FIELDS",
    "ObservationBatches",
    "batch_arrays",
    "observation_batches",
]

FIELDS: Final[dict[str, str]] = {
    "board": "uint8 [n, 100]: the observation board, mover's view (hidden truth included)",
    "planes": "bool [n, 32, 10, 10]: planes.to_planes of the board (C order)",
    "action": "int64 [n]: our id of the move played (0..9999)",
    "legal_mask": "bool [n, 10000]: True at the id of every legal move",
    "hidden": "bool [n, 100]: squares of opponent pieces the mover cannot identify",
    "kinds": "int64 [n, 100]: true kind of every piece (0 bomb .. 11 flag), -1 empty or lake",
    "value": "float32 [n]: 1 the mover won, -1 lost, 0 draw, NaN unknown",
    "side": "int64 [n]: the side to move, 0 red, 1 blue",
    "ply": "int64 [n]: 1 = the first move (the row is the position before it)",
    "captured": "uint8 [n, 24]: mover's pieces removed by kind, then the opponent's",
    "unseen": "uint8 [n, 12]: opponent pieces of each kind the mover has not identified",
    "own_repetition": "int64 [n]: the mover's two-squares counter",
    "opponent_repetition": "int64 [n]: the opponent's two-squares counter",
    "plies_since_battle": "int64 [n]: plies since the last battle",
    "last_moves": "int64 [n, last_moves]: earlier plies' ids, mover's view, oldest first, "
    "-1 before the first ply (left-padded, so the last column is the latest ply)",
    "game_id": "str [n]: the game each row comes from",
}
"""Every field a batch can hold, with its dtype, shape and meaning (one definition, for
the docs and the error that names an unknown field)."""

DEFAULT_FIELDS: Final = ("board", "action", "legal_mask")
"""What a policy network needs: the input board, the label, the legal-move mask."""

_COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "board": ("board",),
    "planes": ("board",),
    "hidden": ("board",),
    "kinds": ("board",),
    "action": ("action",),
    "legal_mask": ("legal_actions",),
    "value": ("value",),
    "side": ("side",),
    "ply": ("ply",),
    "captured": ("captured",),
    "unseen": ("unseen",),
    "own_repetition": ("own_repetition",),
    "opponent_repetition": ("opponent_repetition",),
    "plies_since_battle": ("plies_since_battle",),
    "last_moves": ("last_moves",),
    "game_id": ("game_id",),
}
"""The Parquet columns each field is made from (only those are read)."""


def _fixed_bytes(table: pa.Table, name: str, width: int) -> npt.NDArray[np.uint8]:
    column = table.column(name).combine_chunks()
    data = np.frombuffer(column.buffers()[1], dtype=np.uint8)
    start = column.offset * width
    return data[start : start + len(column) * width].reshape(len(column), width).copy()


def _list_parts(
    table: pa.Table, name: str
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """A list column as (row of each value, position within its row, the values)."""
    column = table.column(name).combine_chunks()
    offsets = column.offsets.to_numpy().astype(np.int64)
    values = column.values.to_numpy(zero_copy_only=False).astype(np.int64)
    values = values[offsets[0] : offsets[-1]]
    counts = np.diff(offsets)
    rows = np.repeat(np.arange(len(column), dtype=np.int64), counts)
    within = np.arange(len(values), dtype=np.int64) - (offsets[:-1] - offsets[0])[rows]
    return rows, within, values


def _legal_mask(table: pa.Table) -> npt.NDArray[np.bool_]:
    rows, _within, values = _list_parts(table, "legal_actions")
    mask = np.zeros((table.num_rows, ACTION_COUNT), dtype=np.bool_)
    mask[rows, values] = True
    return mask


def _last_moves(table: pa.Table, width: int) -> npt.NDArray[np.int64]:
    rows, within, values = _list_parts(table, "last_moves")
    counts = np.bincount(rows, minlength=table.num_rows)
    column = width - counts[rows] + within  # left-padded: the latest ply in the last column
    keep = column >= 0  # a row with more earlier plies than width keeps the latest ones
    out = np.full((table.num_rows, width), -1, dtype=np.int64)
    out[rows[keep], column[keep]] = values[keep]
    return out


def _integers(table: pa.Table, name: str) -> npt.NDArray[np.int64]:
    return np.asarray(table.column(name).to_numpy(), dtype=np.int64)


def batch_arrays(
    table: pa.Table, fields: Sequence[str] = DEFAULT_FIELDS, last_moves: int = LAST_MOVES
) -> dict[str, npt.NDArray[Any]]:
    """The ``fields`` of the rows of an observations table (any slice of an export) as
    NumPy arrays, as :func:`observation_batches` yields them.

    >>> from strat_tools.exports.observation_rows import OBSERVATIONS_SCHEMA
    >>> arrays = batch_arrays(OBSERVATIONS_SCHEMA.empty_table(), ("board", "action"))
    >>> arrays["board"].shape, arrays["action"].dtype
    ((0, 100), dtype('int64'))
    """
    out: dict[str, npt.NDArray[Any]] = {}
    boards = None
    if {"board", "planes", "hidden", "kinds"} & set(fields):
        boards = boards_of(table).copy() if table.num_rows else np.zeros((0, 100), np.uint8)
    hidden = kinds = None
    if boards is not None and {"hidden", "kinds"} & set(fields):
        hidden, kinds = hidden_truth(boards)
    for name in fields:
        if name == "board":
            assert boards is not None
            out[name] = boards
        elif name == "planes":
            assert boards is not None
            out[name] = to_planes(boards, contiguous=True)
        elif name == "hidden":
            assert hidden is not None
            out[name] = hidden
        elif name == "kinds":
            assert kinds is not None
            out[name] = kinds.astype(np.int64)
        elif name == "legal_mask":
            out[name] = _legal_mask(table)
        elif name == "last_moves":
            out[name] = _last_moves(table, last_moves)
        elif name in ("captured", "unseen"):
            out[name] = _fixed_bytes(table, name, 24 if name == "captured" else 12)
        elif name == "value":
            values = table.column("value").to_numpy(zero_copy_only=False)
            out[name] = np.asarray(values, dtype=np.float32)
        elif name == "side":
            side = table.column("side").combine_chunks()
            labels = np.asarray(side.dictionary.to_pylist())
            out[name] = (labels[side.indices.to_numpy()] == "blue").astype(np.int64)
        elif name == "game_id":
            out[name] = np.asarray(table.column("game_id").to_pylist(), dtype=np.str_)
        else:
            out[name] = _integers(table, name)
    return out


def _worker() -> tuple[int, int, int]:
    """(this worker's index, the number of workers, the epoch's seed shared by the workers)
    inside a PyTorch ``DataLoader`` worker, ``(0, 1, 0)`` anywhere else; PyTorch is looked
    at only when the program imported it."""
    data = sys.modules.get("torch.utils.data")
    info = data.get_worker_info() if data is not None else None
    if info is None:
        return 0, 1, 0
    return int(info.id), int(info.num_workers), int(info.seed) - int(info.id)


def _as_torch_dataset() -> None:
    """Have PyTorch's ``DataLoader`` take :class:`ObservationBatches` as the
    ``IterableDataset`` it is (iterated, never indexed), when the program imported torch."""
    data = sys.modules.get("torch.utils.data")
    if data is not None and not issubclass(ObservationBatches, data.IterableDataset):
        data.IterableDataset.register(ObservationBatches)


class ObservationBatches:
    """The batches of an observation export (see :func:`observation_batches`); iterate
    it once per epoch. ``len()`` is the number of batches an epoch gives this reader (its
    part: ``rank`` of ``world_size``, and inside a PyTorch ``DataLoader`` worker that
    worker's share of it), ``rows`` the rows it holds."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        batch_size: int = 1024,
        *,
        fields: Sequence[str] = DEFAULT_FIELDS,
        shuffle: bool = False,
        seed: int | None = None,
        drop_last: bool = False,
        last_moves: int = LAST_MOVES,
        rank: int = 0,
        world_size: int = 1,
    ) -> None:
        if batch_size < 1:
            raise OptionError(f"batch_size must be at least 1, got {batch_size}")
        if last_moves < 0:
            raise OptionError(f"last_moves must be 0 or more, got {last_moves}")
        if world_size < 1 or not 0 <= rank < world_size:
            raise OptionError(
                f"rank must be 0 to world_size - 1 and world_size at least 1, got rank {rank} "
                f"of world_size {world_size}"
            )
        if isinstance(fields, str):
            fields = (fields,)
        unknown = [name for name in fields if name not in FIELDS]
        if unknown or not fields:
            what = f"unknown batch field {unknown[0]!r}" if unknown else "no batch fields"
            raise OptionError(f"{what}; expected some of {', '.join(FIELDS)}")
        self.directory = directory
        self.batch_size = batch_size
        self.fields = tuple(dict.fromkeys(fields))
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.last_moves = last_moves
        self.rank = rank
        self.world_size = world_size
        self._export = observation_folder(directory)
        self._folder, self._names = self._export.folder, self._export.shards
        self.shards = [Path(directory) / name for name in self._names]
        self.columns = sorted({c for name in self.fields for c in _COLUMNS[name]})
        self._groups: list[list[int]] = []  # rows of each row group, shard by shard
        for name in self._names:
            with self._folder.open(name) as shard:
                meta = pq.ParquetFile(shard.handle).metadata
                self._groups.append(
                    [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
                )
        self._seed = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
        self._epoch = 0
        _as_torch_dataset()

    def _part(self) -> list[list[int]]:
        """The row groups this reader yields, shard by shard, in the export's order: the
        export's row groups are dealt out to ``world_size`` processes times, inside a
        DataLoader, its workers (part ``rank * workers + worker``), the largest first, each
        to the part holding the fewest rows so far. The deal depends on the folder alone
        (not on the shuffle or any seed), so every row goes to exactly one part."""
        worker, workers, _shared = _worker()
        parts = self.world_size * workers
        mine = self.rank * workers + worker
        units = [(s, g) for s, groups in enumerate(self._groups) for g in range(len(groups))]
        load = [0] * parts
        owner: dict[tuple[int, int], int] = {}
        for shard, group in sorted(units, key=lambda u: -self._groups[u[0]][u[1]]):
            part = min(range(parts), key=lambda p: (load[p], p))
            owner[shard, group] = part
            load[part] += self._groups[shard][group]
        return [
            [g for g in range(len(groups)) if owner[s, g] == mine]
            for s, groups in enumerate(self._groups)
        ]

    @property
    def rows(self) -> int:
        """The rows an epoch gives this reader (the whole export for ``world_size`` 1,
        outside a DataLoader worker)."""
        part = self._part()
        return sum(self._groups[s][g] for s, groups in enumerate(part) for g in groups)

    def __getitem__(self, index: object) -> None:
        """Batches are iterated, never indexed: say so (a PyTorch ``DataLoader`` indexes
        what it takes for a map-style dataset, as batches made before torch was imported)."""
        raise TypeError(
            "observation batches are iterated, not indexed; a torch DataLoader takes them as "
            "an IterableDataset only when torch was imported before they were made: import "
            "torch first, then call observation_batches"
        )

    def __len__(self) -> int:
        whole, rest = divmod(self.rows, self.batch_size)
        return whole + (1 if rest and not self.drop_last else 0)

    def __repr__(self) -> str:
        return (
            f"ObservationBatches({str(self.directory)!r}: {self.rows:,} rows in "
            f"{len(self.shards)} shard(s), {len(self):,} batches of {self.batch_size}, "
            f"fields {', '.join(self.fields)})"
        )

    def _tables(self) -> Iterator[pa.Table]:
        """This reader's rows, a shard's row groups (or a part of them) at a time, in this
        epoch's order. The folder is checked first (the same export, no file changed or
        added: :meth:`~strat_tools.io.verified.VerifiedFolder.check`), each shard is read
        through the very file verified (the folder checked again before each), and each
        read confirmed before it is used."""
        self._export.check()  # each epoch
        part = self._part()
        worker, _workers, shared = _worker()
        rng = np.random.default_rng([self._seed, self.rank, worker, shared, self._epoch])
        self._epoch += 1
        schema = pa.schema([OBSERVATIONS_SCHEMA.field(c) for c in self.columns])
        order = rng.permutation(len(part)) if self.shuffle else range(len(part))
        for index in order:
            if not part[index]:
                continue
            self._export.check()
            with self._folder.open(self._names[index]) as file:
                shard = pq.ParquetFile(file.handle)
                if self.shuffle:
                    table = shard.read_row_groups(part[index], columns=self.columns)
                    file.confirm()
                    yield table.cast(schema).take(rng.permutation(table.num_rows))
                    continue
                for rows in shard.iter_batches(
                    batch_size=self.batch_size, row_groups=part[index], columns=self.columns
                ):
                    file.confirm()
                    yield pa.Table.from_batches([rows]).cast(schema)

    def __iter__(self) -> Iterator[dict[str, npt.NDArray[Any]]]:
        pending: list[pa.Table] = []
        held = 0
        for table in self._tables():
            pending.append(table)
            held += table.num_rows
            if held < self.batch_size:
                continue
            rows = pa.concat_tables(pending)
            start = 0
            while rows.num_rows - start >= self.batch_size:
                chunk = rows.slice(start, self.batch_size)
                yield batch_arrays(chunk, self.fields, self.last_moves)
                start += self.batch_size
            pending = [rows.slice(start)]
            held = rows.num_rows - start
        if held and not self.drop_last:
            yield batch_arrays(pa.concat_tables(pending), self.fields, self.last_moves)


def observation_batches(
    directory: str | os.PathLike[str],
    batch_size: int = 1024,
    *,
    fields: Sequence[str] = DEFAULT_FIELDS,
    shuffle: bool = False,
    seed: int | None = None,
    drop_last: bool = False,
    last_moves: int = LAST_MOVES,
    rank: int = 0,
    world_size: int = 1,
) -> ObservationBatches:
    """The rows of the observation export in ``directory`` (written by
    ``strat-tools observations`` or
    :func:`~strat_tools.exports.observation_files.export_observations`) as batches: each a dict of
    NumPy arrays, one per name in ``fields`` (see :data:`FIELDS`; default: ``board``,
    ``action``, ``legal_mask``), ``batch_size`` rows each (the last one shorter unless
    ``drop_last``). Streams one shard at a time; ``shuffle`` shuffles the shards' order
    and the rows within each shard, anew each epoch, from ``seed``. ``last_moves`` is the
    width of the ``last_moves`` field (the export's ``--last-moves``, 8 by default).

    Each row comes exactly once an epoch to exactly one reader: ``rank`` of
    ``world_size`` processes (DDP, JAX, Dask: each process makes its own with its rank)
    and, in a PyTorch ``DataLoader`` with ``num_workers``, one worker of each (the
    object is a ``torch.utils.data.IterableDataset`` once torch is imported; pass
    ``batch_size=None``). The export's Parquet row groups are dealt out in turn.

    Refuses a folder that is not an export, whose export did not finish or whose files are
    not the ones its marker lists (a shard missing, damaged or added), an unknown field, a
    ``batch_size`` below 1 and a ``rank`` outside ``world_size``. The folder stays checked:
    every epoch starts by checking that its marker lists the same files and that no file
    changed (a ``stat`` each; a file whose stamp changed is hashed again), and each shard
    is read through the file verified, each read confirmed (``fstat``) before its rows
    are used, so another export written into the folder, or a shard damaged in place,
    stops the epoch with :class:`~strat_tools.io.verified.FolderChanged` naming it.

    >>> batches = observation_batches("obs/", 256, shuffle=True, seed=0)  # doctest: +SKIP
    >>> for batch in batches:  # doctest: +SKIP
    ...     batch["board"], batch["action"], batch["legal_mask"]  # uint8, int64, bool
    """
    return ObservationBatches(
        directory,
        batch_size,
        fields=fields,
        shuffle=shuffle,
        seed=seed,
        drop_last=drop_last,
        last_moves=last_moves,
        rank=rank,
        world_size=world_size,
    )
