"""strat-tools: read, replay, validate and analyse Stratego game records.

The layers, each importing only those before it: ``sources`` (paths, folders, globs, zips)
→ ``gravon`` (StraDoS2 XML → :class:`GameRecord`) → ``replay`` (the rules engine) →
``tables`` (Arrow/pandas) → ``stats`` → ``plots``/``report`` → ``cli``.
"""

from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from strat_tools.dataset import GameSet, read_dataset, read_games

__all__ = ["GameSet", "__version__", "read_dataset", "read_games"]

_DATASET_NAMES = frozenset({"GameSet", "read_dataset", "read_games"})


def __getattr__(name: str) -> Any:
    """``st.read_games`` and friends, imported on first use (pandas/pyarrow load lazily, so
    the CLI and the workers start fast)."""
    if name in _DATASET_NAMES:
        from strat_tools import dataset

        return getattr(dataset, name)
    raise AttributeError(f"module 'strat_tools' has no attribute {name!r}")
