"""strat-tools: read, replay, validate and analyse Stratego game records.

The layers, each importing only those before it: ``sources`` (paths, folders, globs, zips)
→ ``gravon`` (StraDoS2 XML → :class:`GameRecord`) → ``replay`` (the rules engine) →
``tables`` (Arrow/pandas) → ``stats`` → ``plots``/``report`` → ``cli``.
"""

from __future__ import annotations

__version__ = "0.1.0"
