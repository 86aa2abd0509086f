"""``select=`` is checked where it enters, the same in every public function that takes it.

Round five (issue 45.2): ``select="variant=barrage"`` or a dict made every valid game invalid
(``internal.select``, an empty moves table) in ``read_games`` and raised a raw ``TypeError``
in ``validate``. Now anything but a per-game predicate (or ``None``) is the one
:class:`~strat_tools.core.errors.UsageError` (exit 2 in the CLI), raised when the function is
called, before a game is read; the message is the same in every function.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import strat_tools as st
from strat_tools.core.errors import UsageError
from strat_tools.exports.convert import convert
from strat_tools.exports.observation_files import export_observations
from strat_tools.exports.observations import iter_observations
from strat_tools.exports.validate import iter_verdicts
from strat_tools.run.driver import export_dataset, iter_tables, map_games, reduce_batches
from strat_tools.stats.stream import compute_many_streaming, compute_streaming

SAMPLE = Path(__file__).parent / "fixtures" / "gravon" / "classic-2014.4-17.xml"

NOT_PREDICATES = ["variant=barrage", {"variant": "barrage"}, ["classic"], 3]


def _calls(tmp: Path) -> dict[str, Callable[[Any], object]]:
    """Each public way in, called with ``select`` (iterators drawn: nothing may start)."""
    return {
        "read_games": lambda s: st.read_games(SAMPLE, select=s, run=1),
        "validate": lambda s: st.validate(SAMPLE, select=s, run=1),
        "iter_verdicts": lambda s: iter_verdicts(SAMPLE, select=s, run=1),
        "read_events": lambda s: st.read_events(SAMPLE, select=s, run=1),
        "write_viewer": lambda s: st.write_viewer([str(SAMPLE)], tmp / "v.html", select=s, run=1),
        "compute_streaming": lambda s: compute_streaming("placement", SAMPLE, select=s, run=1),
        "compute_many_streaming": lambda s: compute_many_streaming(
            [("placement", {})], SAMPLE, select=s, run=1
        ),
        "export_dataset": lambda s: export_dataset(SAMPLE, tmp / "out", select=s, run=1),
        "export_observations": lambda s: export_observations(SAMPLE, tmp / "obs", select=s, run=1),
        "iter_observations": lambda s: next(iter_observations(SAMPLE, select=s, run=1)),
        "convert": lambda s: convert(SAMPLE, tmp / "c", to="gsn", select=s, run=1),
        "iter_tables": lambda s: iter_tables(SAMPLE, select=s, run=1),
        "reduce_batches": lambda s: reduce_batches(len, SAMPLE, select=s, run=1),
        "map_games": lambda s: next(map_games(id, SAMPLE, select=s, run=1)),
    }


@pytest.mark.parametrize("select", NOT_PREDICATES, ids=repr)
def test_a_select_that_is_no_predicate_is_one_usage_error_in_every_function(
    select: object, tmp_path: Path
) -> None:
    messages = set()
    for name, call in _calls(tmp_path).items():
        with pytest.raises(UsageError) as caught:
            call(select)
        assert "select= is a per-game predicate" in str(caught.value), name
        messages.add(str(caught.value))
    assert len(messages) == 1  # the same words in every function
    assert f"(a {type(select).__name__})" in messages.pop()
    assert not any(tmp_path.iterdir())  # refused before any work: nothing written


def test_a_predicate_and_none_are_taken() -> None:
    kept = st.read_games(SAMPLE, select=lambda record: record.number == 17, run=1)
    assert kept.games["status"].tolist() == ["valid"]
    assert len(st.read_games(SAMPLE, select=None, run=1)) == 1
