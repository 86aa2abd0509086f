"""A run's inputs, resolved once where they enter: :class:`Inputs`.

Every public function that reads games takes its paths as given (a ``str``, a
:class:`~pathlib.Path`, an iterable of them) or as an :class:`Inputs` value made already,
and makes the value once, where the paths enter (:meth:`Inputs.of`, which returns an
``Inputs`` unchanged): each path given once resolved (:func:`strat_tools.io.sources.resolve`:
as given, for every message and the tables' ``source`` column; absolute, for every process
that opens it; and its kind), with the one decision of which folder is an exported dataset
(:func:`strat_tools.tables.layout.is_dataset`). The driver (which input is a dataset folder,
the one expansion of the records into units), the process pool and Dask (each unit opens
the absolute path, so a worker started in another folder reads what was listed here) and
the tally (the paths its messages name) all take that one value: the paths are never
resolved again on the way down.

>>> inputs = Inputs.of(["data/", "nowhere-*.zip"])
>>> [(item.given, item.kind) for item in inputs]
[('data/', 'folder'), ('nowhere-*.zip', 'glob')]
>>> Inputs.of(inputs) is inputs, inputs.given
(True, ['data/', 'nowhere-*.zip'])
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TypeAlias

from strat_tools.io.sources import Input, Paths, resolved

__all__ = ["Inputs", "InputsArg"]


@dataclass(frozen=True)
class Inputs:
    """The paths given to one run, each resolved once (:class:`~strat_tools.io.sources.
    Input`), in the order given, exported dataset folders marked as such (kind
    ``dataset``)."""

    items: tuple[Input, ...]

    @classmethod
    def of(cls, paths: InputsArg) -> Inputs:
        """``paths`` resolved (itself when it is an ``Inputs`` already): one path or an
        iterable of them; anything else is a ``TypeError``."""
        if isinstance(paths, Inputs):
            return paths
        from strat_tools.tables.layout import is_dataset  # only for folders: pandas-free

        items = tuple(
            replace(item, kind="dataset")
            if item.kind == "folder" and is_dataset(item.path)
            else item
            for item in resolved(paths)
        )
        return cls(items)

    def __iter__(self) -> Iterator[Input]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def given(self) -> list[str]:
        """The paths as given (what messages name)."""
        return [item.given for item in self.items]

    def parts(self) -> list[tuple[Input | None, tuple[Input, ...]]]:
        """The inputs as runs, in the order given: an exported dataset folder alone
        (``(folder, ())``), or the record inputs between two such folders (``(None,
        records)``)."""
        runs: list[tuple[Input | None, tuple[Input, ...]]] = []
        for item in self.items:
            if item.kind == "dataset":
                runs.append((item, ()))
            elif runs and runs[-1][0] is None:
                runs[-1] = (None, (*runs[-1][1], item))
            else:
                runs.append((None, (item,)))
        return runs


InputsArg: TypeAlias = Inputs | Paths
"""What a public function's paths take: the paths as given, or an :class:`Inputs` value."""
