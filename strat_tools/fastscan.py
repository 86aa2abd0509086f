"""Fast path placeholder."""

from __future__ import annotations

from strat_tools.records import GameRecord


def scan(
    data: bytes, source: str, member: str | None = None
) -> tuple[GameRecord, int | None, int | None] | None:
    """Not yet: always fall back."""
    return None
