"""The public API given the wrong type raises a documented error with a message (issue 25,
point 17): a TypeError or ValueError (the project's own errors derive from ValueError),
never a raw AttributeError or IndexError from inside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import strat_tools as st
from strat_tools.core.diagrams import render_board
from strat_tools.engine.position.position import Position
from strat_tools.engine.replays.replay import replay
from strat_tools.formats.readers import parse_record

CALLS: list[tuple[str, Callable[..., Any], tuple[Any, ...], type[Exception], str]] = [
    ("parse_record(None)", parse_record, (None, "x.xml"), TypeError, "takes the file's bytes"),
    ("parse_record(b'', None)", parse_record, (b"", None), TypeError, "names as str"),
    ("replay(None)", replay, (None,), TypeError, "replay() takes a GameRecord"),
    ("replay('x.xml')", replay, ("x.xml",), TypeError, "replay() takes a GameRecord"),
    ("get_rules(None)", st.get_rules, (None,), TypeError, "a rule set is a name or a RuleSet"),
    ("get_rules(3)", st.get_rules, (3,), TypeError, "not int"),
    ("rules_for(None)", st.rules_for, (None,), TypeError, "rules_for() takes a GameRecord"),
    ("knowledge(None)", st.knowledge, (None,), TypeError, "takes a replay's result"),
    ("board_svg([99] * 100)", st.board_svg, ([99] * 100,), ValueError, "codes 0..25"),
    ("board_svg([-1] * 100)", st.board_svg, ([-1] * 100,), ValueError, "codes 0..25"),
    ("board_svg(None)", st.board_svg, (None,), TypeError, "a board is a sequence"),
    ("board_svg([0] * 5)", st.board_svg, ([0] * 5,), ValueError, "100 squares, got 5"),
    ("Position([99] * 100)", Position, ([99] * 100,), ValueError, "codes 0..25"),
    ("Position(None)", Position, (None,), TypeError, "a board is a sequence"),
    ("render_board([0] * 5)", render_board, ([0] * 5,), ValueError, "100"),
]


@pytest.mark.parametrize(
    ("call", "args", "error", "words"),
    [(c[1], c[2], c[3], c[4]) for c in CALLS],
    ids=[c[0] for c in CALLS],
)
def test_a_wrong_type_raises_the_documented_error_with_a_message(
    call: Callable[..., Any], args: tuple[Any, ...], error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as info:
        call(*args)
    assert type(info.value) not in (AttributeError, IndexError, KeyError)
    assert words in str(info.value)
