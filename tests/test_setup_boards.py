"""The most played setups drawn as boards: titles that count in words, and singletons named."""

from __future__ import annotations

import dataclasses

from strat_tools.generate.games import generate_games
from strat_tools.stats import repeats
from strat_tools.tables.build import tables_for_records
from strat_tools.tables.dataset import GameSet
from strat_tools.views.setup_boards import common_setups_figure


def panel_titles(fig: object) -> list[str]:
    return [ax.get_title() for ax in fig.axes if ax.get_visible()]  # type: ignore[attr-defined]


def test_each_panel_counts_its_games_in_words_and_repeats_are_most_played_first() -> None:
    # three games played twice (the same records under other numbers), and one more game
    played = list(generate_games(3, variant="classic", seed=7, year=2014, month=2))
    again = [dataclasses.replace(r, number=(r.number or 0) + 40) for r in played]
    once = generate_games(1, variant="classic", seed=8, year=2014, month=4, first_number=80)
    records = [*played, *again, *once]
    top = repeats.common_setups(GameSet(tables_for_records(records)), top=8)
    assert list(top["count"]) == [2] * 6 + [1, 1]
    fig = common_setups_figure(top)
    titles = panel_titles(fig)
    assert all(": played 2 times, " in t for t in titles[:6])
    assert all(": played 1 time, " in t for t in titles[6:])
    assert "1 setups" not in " ".join(titles)
    assert "each of these was played once" not in fig.get_suptitle()


def test_a_list_of_setups_played_once_each_says_so() -> None:
    records = generate_games(2, variant="classic", seed=9, year=2014, month=2)
    top = repeats.common_setups(GameSet(tables_for_records(records)), top=4)
    assert list(top["count"]) == [1, 1, 1, 1]
    fig = common_setups_figure(top)
    assert fig.get_suptitle().endswith(
        "no setup here was played more than once: each of these was played once"
    )
