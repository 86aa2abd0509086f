"""Game ids kept unique over a run of any size: :class:`GameIds` and its compact :class:`IdSet`.

``game_id`` is the file name without its extension, and two inputs may hold files of the same
name; the first keeps it, later ones get ``NAME#2``, ``NAME#3``. This module knows nothing of
records or rules: it renames the ``game_id`` column of a batch's tables.

>>> ids = GameIds()
>>> ids.claim("classic-2014.5-1"), ids.claim("classic-2014.5-1")
('classic-2014.5-1', 'classic-2014.5-1#2')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from hashlib import blake2b
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["GameIds", "IdSet"]


class IdSet:
    """A set of strings (game ids) held as 128-bit BLAKE2b digests, 16 bytes an id.

    Keeping game ids unique over a run needs only membership, and a run over millions of games
    must not hold millions of Python strings (about 100 bytes each with the set's slots). The
    newest ids sit in a small set; every :data:`SPILL` of them are spilled as digests into a
    sorted NumPy run, and runs of similar size are merged (at most log2 n runs, as in a
    log-structured merge tree). Two different ids share a digest with probability about
    n²/2¹²⁹: 10⁻²¹ for a billion ids.
    """

    SPILL: Final = 8192

    def __init__(self, items: Iterable[str] = ()) -> None:
        self._recent: set[str] = set()
        self._runs: list[npt.NDArray[np.bytes_]] = []
        self.update(items)

    @staticmethod
    def _digests(items: Iterable[str]) -> npt.NDArray[np.bytes_]:
        return np.array(
            [blake2b(s.encode("utf-8", "surrogatepass"), digest_size=16).digest() for s in items],
            dtype="S16",
        )

    def __len__(self) -> int:
        return len(self._recent) + sum(len(run) for run in self._runs)

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and self.contains_many([item])[0]

    def contains_many(self, items: Sequence[str]) -> list[bool]:
        """Membership of each of ``items`` (one vectorised search per run)."""
        found = np.fromiter((s in self._recent for s in items), dtype=bool, count=len(items))
        if self._runs and len(items):
            keys = self._digests(items)
            for run in self._runs:
                at = np.minimum(np.searchsorted(run, keys), len(run) - 1)
                found |= run[at] == keys
        return [bool(f) for f in found]

    def add(self, item: str) -> None:
        """Add one id."""
        self.update((item,))

    def update(self, items: Iterable[str]) -> None:
        """Add every one of ``items`` (looked up in the runs all at once)."""
        new = [s for s in dict.fromkeys(items) if s not in self._recent]
        if self._runs and new:
            new = [s for s, found in zip(new, self.contains_many(new), strict=True) if not found]
        for item in new:
            self._recent.add(item)
            if len(self._recent) >= self.SPILL:
                self._spill()

    def _spill(self) -> None:
        run = np.sort(self._digests(self._recent))
        self._recent.clear()
        while self._runs and len(self._runs[-1]) <= 2 * len(run):
            run = np.sort(np.concatenate((self._runs.pop(), run)))
        self._runs.append(run)


class GameIds:
    """Keeps ``game_id`` a key: a second input with the same file name gets ``NAME#2``.

    ``game_id`` is the file name without ``.xml``, and two inputs (two folders, two zips)
    may hold files of the same name. The first keeps its name; later ones get ``#2``, ``#3``
    in input order (their ``source``/``member`` in ``games`` say where they came from).
    Batches are made unique here in the worker, then across batches by
    :meth:`renumber` in the process that collects them. The ids seen are kept compactly
    (:class:`IdSet`), so memory stays flat over millions of games.
    """

    def __init__(self) -> None:
        self.seen = IdSet()

    def claim(self, game_id: str, reserved: frozenset[str] = frozenset()) -> str:
        """``game_id``, or the first free ``game_id#k`` (k = 2, 3, ...); now taken."""
        candidate, k = game_id, 1
        while candidate in self.seen or (k > 1 and candidate in reserved):
            k += 1
            candidate = f"{game_id}#{k}"
        self.seen.add(candidate)
        return candidate

    def renumber(self, tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
        """One batch's tables with any id already taken by an earlier batch renamed."""
        ids = tables["games"].column("game_id").to_pylist()
        batch = frozenset(ids)
        # A batch's ids are unique and a claimed name is never one of them (``reserved``),
        # so membership can be looked up for the whole batch at once.
        taken = self.seen.contains_many(ids)
        renamed = {old: self.claim(old, batch) for old, t in zip(ids, taken, strict=True) if t}
        self.seen.update(i for i in ids if i not in renamed)
        if not renamed:
            return tables
        old = pa.array(list(renamed), pa.string())
        new = pa.array(list(renamed.values()), pa.string())
        out = {}
        for name, table in tables.items():
            at = table.schema.get_field_index("game_id")
            column = table.column(at)
            position = pc.index_in(column, value_set=old)
            replaced = pc.if_else(pc.is_null(position), column, pc.take(new, position))
            out[name] = table.set_column(at, table.schema.field(at), replaced)
        return out
