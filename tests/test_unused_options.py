"""An option that does not apply to the job asked for is a usage error (exit 2, nothing
read or written), in every command: never accepted and silently ignored (issue 45.10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from strat_tools.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize(
    "args, said",
    [
        (["stats", "--stat", "flag", "--piece", "spy"], "--piece does not apply to --stat flag"),
        (["stats", "--stat", "flag", "--feature", "flag_corner"], "--feature does not apply"),
        (["stats", "--stat", "win-rate", "--piece", "spy"], "--piece does not apply"),
        (["stats", "--stat", "flag", "--rules", "classic"], "--rules does not apply"),
        (["filter", "--mirror"], "--mirror mirrors a --pattern"),
        (["heatmap", "--view", "owner", "-o", "{out}/h.png"], "--view does not apply"),
        (["export", "--setups-only", "--rules", "classic", "-o", "{out}/x"], "--rules does not"),
        (["report", "--setups-only", "--rules", "classic", "-o", "{out}/r.html"], "--rules"),
        (["values", "--secrecy", "--fit", "-o", "{out}/m.json"], "not the win model"),
        (["values", "--by", "phase", "--calibrate"], "not the win model"),
    ],
)
def test_an_option_that_does_not_apply_is_a_usage_error(
    args: list[str], said: str, tmp_path: Path
) -> None:
    given = [a.replace("{out}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(main, [given[0], str(DATA), "--jobs", "1", *given[1:]])
    assert result.exit_code == 2, result.output
    assert said in result.stderr and result.stdout == ""
    assert list(tmp_path.iterdir()) == []
