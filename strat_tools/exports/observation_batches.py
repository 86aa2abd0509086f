"""An observation export as batches of NumPy arrays, for any learning framework.

:func:`observation_batches` iterates the shards an export finished
(:func:`~strat_tools.exports.observation_files.observation_folder`), one shard at a time,
and cuts the rows into batches of ``batch_size`` (only the last one shorter, unless ``drop_last``),
each a ``dict`` of NumPy arrays named in
:data:`~strat_tools.exports.observation_arrays.FIELDS` (made by
:func:`~strat_tools.exports.observation_arrays.batch_arrays`): labels ``int64`` (what
PyTorch's losses take), boards ``uint8``, legal ids ``int16``, masks ``bool``. Memory is
bounded by a row group plus a batch (unshuffled) or a shuffle buffer and :data:`MIX` open
row groups (shuffled), whatever the size of the export or its shards. NumPy arrays go
into PyTorch with ``torch.from_numpy`` and into JAX with ``jnp.asarray``, without copies
where the framework allows; docs/observations.md has both loops.

With ``shuffle=True`` the rows are shuffled across the shards: the row groups of every
shard come in a random order, :data:`MIX` of them read side by side into a buffer that is
shuffled every ``shuffle_rows`` rows, so that any part of an epoch draws on all the shards
(all the months of a benchmark's train split), never on the first ones; every iteration
(epoch) draws a new order from ``seed``, reproducibly.

This module reads files only; the rows, their schema and their meaning are
:mod:`strat_tools.exports.observations`, the board code
:mod:`strat_tools.engine.information.planes`.
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
import pyarrow.compute as pc
import pyarrow.parquet as pq

from strat_tools.core.errors import OptionError
from strat_tools.engine.information.mover_rows import LAST_MOVES
from strat_tools.exports.observation_arrays import (
    BOARD_FIELDS,
    COLUMNS,
    DEFAULT_FIELDS,
    FIELDS,
    batch_arrays,
    board_arrays,
)
from strat_tools.exports.observation_files import observation_folder, require_columns
from strat_tools.exports.observation_rows import OBSERVATIONS_SCHEMA
from strat_tools.exports.observations import boards_of
from strat_tools.io.verified import VerifiedFile

__all__ = [
    "MIX",
    "ObservationBatches",
    "observation_batches",
]

COLUMN_PAIR: Final = ("board_view", "board")
"""The two board columns, in :func:`~strat_tools.exports.observation_arrays.board_arrays`'s
order."""

MIX: Final = 8
"""How many row groups, drawn at random from all the shards, a shuffled read interleaves at
a time (their rows shuffled together in a buffer)."""


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
        legal_width: int | None = None,
        mix: int = MIX,
        shuffle_rows: int | None = None,
    ) -> None:
        if mix < 1 or (shuffle_rows is not None and shuffle_rows < 1):
            raise OptionError(f"mix and shuffle_rows must be at least 1, got {mix}, {shuffle_rows}")
        if legal_width is not None and legal_width < 1:
            raise OptionError(f"legal_width must be at least 1, got {legal_width}")
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
        self.legal_width = legal_width
        self.mix = mix
        self.shuffle_rows = (
            shuffle_rows if shuffle_rows is not None else max(4 * batch_size, 16_384)
        )
        self._export = observation_folder(directory)
        self._folder, self._names = self._export.folder, self._export.shards
        self.shards = [Path(directory) / name for name in self._names]
        self.columns = sorted({c for name in self.fields for c in COLUMNS[name]})
        self._groups: list[list[int]] = []  # rows of each row group, shard by shard
        for name in self._names:
            with self._folder.open(name) as shard:
                file = pq.ParquetFile(shard.handle)
                require_columns(file.schema_arrow, self.columns, directory)
                meta = file.metadata
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

    def _tables(self) -> Iterator[tuple[pa.Table, np.random.Generator]]:
        """This reader's rows in this epoch's order, each part with the epoch's random
        generator: in order, a shard's row groups (or a part of them) a batch at a time;
        shuffled, the buffers of :meth:`_shuffled`. The folder is checked first (the same
        export, no file changed or added: :meth:`~strat_tools.io.verified.VerifiedFolder.
        check`), each shard is read through the very file verified (the folder checked
        again before each), and each read confirmed before it is used."""
        self._export.check()  # each epoch
        part = self._part()
        worker, _workers, shared = _worker()
        rng = np.random.default_rng([self._seed, self.rank, worker, shared, self._epoch])
        self._epoch += 1
        schema = pa.schema([OBSERVATIONS_SCHEMA.field(c) for c in self.columns])
        if self.shuffle:
            for table in self._shuffled(part, rng, schema):
                yield table, rng
            return
        for index in range(len(part)):
            if not part[index]:
                continue
            self._export.check()
            with self._folder.open(self._names[index]) as file:
                shard = pq.ParquetFile(file.handle)
                for rows in shard.iter_batches(
                    batch_size=self.batch_size, row_groups=part[index], columns=self.columns
                ):
                    file.confirm()
                    yield pa.Table.from_batches([rows]).cast(schema), rng

    def _shuffled(
        self, part: list[list[int]], rng: np.random.Generator, schema: pa.Schema
    ) -> Iterator[pa.Table]:
        """This reader's rows in buffers to shuffle, across the shards with bounded memory:
        its row groups (of every shard) in a random order, :attr:`mix` of them open at a
        time, each read a batch at a time into the buffer from a random one of the open
        ones; every :attr:`shuffle_rows` rows or so the buffer is given on (a whole number
        of batches; the rest starts the next, the last one whatever is left). So any stretch
        of an epoch draws on row groups of all the shards (all the months), never one
        shard's, and memory holds a buffer and ``mix`` open row groups, whatever the shards'
        size. Each reader decodes on this thread (measured on two months: with pyarrow's
        threads for each of the 8 readers, 1.2x the CPU and 1.15x the memory)."""
        units = [(s, g) for s, groups in enumerate(part) for g in groups]
        order = [units[i] for i in rng.permutation(len(units))]
        readers: list[tuple[Iterator[pa.RecordBatch], VerifiedFile]] = []
        pending: list[pa.Table] = []
        held = 0
        try:
            while True:
                while len(readers) < self.mix and order:
                    shard, group = order.pop()
                    self._export.check()
                    file = self._folder.open(self._names[shard])
                    batches = pq.ParquetFile(file.handle).iter_batches(
                        batch_size=self.batch_size,
                        row_groups=[group],
                        columns=self.columns,
                        use_threads=False,  # mix readers at once: threads each cost CPU
                    )
                    readers.append((batches, file))
                if not readers:
                    break
                pick = int(rng.integers(len(readers)))
                batches, file = readers[pick]
                rows = next(batches, None)
                if rows is None:
                    file.close()
                    del readers[pick]
                    continue
                file.confirm()
                pending.append(pa.Table.from_batches([rows]).cast(schema))
                held += rows.num_rows
                if held >= self.shuffle_rows:
                    table = pa.concat_tables(pending)
                    whole = held - held % self.batch_size
                    yield table.slice(0, whole)
                    pending, held = [table.slice(whole)], held - whole
            if held:
                yield pa.concat_tables(pending)
        finally:
            for _batches, file in readers:
                file.close()

    def _arrays(self, table: pa.Table) -> dict[str, npt.NDArray[Any]]:
        return batch_arrays(table, self.fields, self.last_moves, self.legal_width)

    def __iter__(self) -> Iterator[dict[str, npt.NDArray[Any]]]:
        if self.shuffle:
            yield from self._shuffled_batches()
            return
        pending: list[pa.Table] = []
        held = 0
        for table, _rng in self._tables():
            pending.append(table)
            held += table.num_rows
            if held < self.batch_size:
                continue
            rows = pa.concat_tables(pending)
            start = 0
            while rows.num_rows - start >= self.batch_size:
                yield self._arrays(rows.slice(start, self.batch_size))
                start += self.batch_size
            pending = [rows.slice(start)]
            held = rows.num_rows - start
        if held and not self.drop_last:
            yield self._arrays(pa.concat_tables(pending))

    def _shuffled_batches(self) -> Iterator[dict[str, npt.NDArray[Any]]]:
        """Each buffer's arrays made at once (as in order: one vectorised pass), its rows
        permuted and cut into batches by indexing the arrays (``legal_ids`` narrowed to the
        batch's largest count unless ``legal_width`` is fixed); the board fields made batch
        by batch from the buffer's boards indexed in place (no copy of a whole buffer's
        boards, no planes of a whole buffer). Measured against a take of the buffer's Arrow
        rows and per-batch arrays: the same CPU, less memory; against gathering each
        batch's legal lists: a third less CPU."""
        size = self.batch_size
        per_batch = [name for name in self.fields if name in BOARD_FIELDS]
        whole = [name for name in self.fields if name not in BOARD_FIELDS]
        for table, rng in self._tables():
            arrays = batch_arrays(table, whole, self.last_moves, self.legal_width)
            boards = {c: boards_of(table, c) for c in {BOARD_FIELDS[n] for n in per_batch}}
            counts = None
            if "legal_ids" in arrays and self.legal_width is None:  # the lists' lengths
                counts = pc.list_value_length(table.column("legal_actions")).to_numpy()
            order = rng.permutation(table.num_rows)
            stop = len(order) if not self.drop_last else len(order) - len(order) % size
            for start in range(0, stop, size):
                rows = order[start : start + size]
                batch = {
                    name: values[rows]
                    for name, values in arrays.items()
                    if counts is None or name != "legal_ids"
                }
                if counts is not None:  # legal_ids as wide as this batch's largest count,
                    # gathered at that width (not gathered whole, then narrowed)
                    width = int(counts[rows].max(initial=0))
                    batch["legal_ids"] = arrays["legal_ids"][rows, :width]
                if per_batch:
                    view, truth = (boards[c][rows] if c in boards else None for c in COLUMN_PAIR)
                    batch.update(board_arrays(view, truth, per_batch))
                yield {name: batch[name] for name in self.fields}


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
    legal_width: int | None = None,
    mix: int = MIX,
    shuffle_rows: int | None = None,
) -> ObservationBatches:
    """The rows of the observation export in ``directory`` (written by
    ``strat-tools observations`` or
    :func:`~strat_tools.exports.observation_files.export_observations`) as batches: each a dict of
    NumPy arrays, one per name in ``fields`` (see
    :data:`~strat_tools.exports.observation_arrays.FIELDS`; default: ``board_view``,
    ``action``, ``legal_ids``, ``legal_count``: truth-free inputs and the label; the dense
    ``legal_mask`` only when asked), ``batch_size`` rows each (the last one shorter unless
    ``drop_last``). Streams a row group at a time; ``shuffle`` shuffles across the shards
    with bounded memory (``mix`` row groups open, a buffer of ``shuffle_rows`` rows,
    16,384 or four batches by default), anew each epoch, from ``seed``. ``last_moves`` is
    the width of the ``last_moves`` field (the export's ``--last-moves``, 8 by default);
    ``legal_width`` fixes the width of ``legal_ids`` (default: each batch's largest count).

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
    ...     batch["board_view"], batch["action"], batch["legal_ids"]  # uint8, int64, int16
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
        legal_width=legal_width,
        mix=mix,
        shuffle_rows=shuffle_rows,
    )
