"""The default models' hook: how a floor below the shipped models gets the one a caller
did not name.

``pos.move_probabilities()`` with no policy needs the shipped default move policy
(``strat_tools.benchmark.policies.DEFAULTS["move"]``), which lives on the benchmark floor,
far above the engine: the engine may not import it. The package's face
(``strat_tools/__init__.py``, loaded before any of its modules) fills this hook with a loader
that imports the registry on first use, as it registers the notebook formatters; the engine
asks :func:`default_model` and checks what it gets against its own protocol. Nothing is
loaded until a caller asks, and a loader's result is kept.

>>> set_default_loader("example", lambda: "a model")
>>> default_model("example"), default_model("example") is default_model("example")
('a model', True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from strat_tools.core.errors import UsageError

__all__ = ["default_model", "set_default_loader"]

_LOADERS: Final[dict[str, Callable[[], object]]] = {}
_LOADED: Final[dict[str, object]] = {}


def set_default_loader(task: str, loader: Callable[[], object]) -> None:
    """Say how to load ``task``'s default model (called once, by the package's face);
    forgets a model loaded before."""
    _LOADERS[task] = loader
    _LOADED.pop(task, None)


def default_model(task: str) -> object:
    """``task``'s default model, loaded on the first call and kept."""
    if task not in _LOADED:
        if task not in _LOADERS:
            raise UsageError(f"no default model for {task!r}: name one")
        _LOADED[task] = _LOADERS[task]()
    return _LOADED[task]
