"""No command calls a variant unknown that its own option names (issue 45.17).

``explore --variant classicfree`` said "unknown variant 'classicfree'" while the option's own
list of variants (the game filter's) names it; ``advice`` and ``heatmap`` did the same through
their own lists. A variant Gravon has is never "unknown": a command that does not cover it
says so in one message (:func:`strat_tools.core.records.variant_not_covered`) that names the
variant as known and the variants it covers. Checked for every command with a ``--variant``
option: each Gravon variant through the option itself, and classicfree run end to end on a
tiny folder (a command may refuse it only after reading, as the explorer did).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from strat_tools.cli import main
from strat_tools.core.records import ALL_VARIANTS, VARIANTS

ROOT = Path(__file__).resolve().parent.parent


def commands(group: click.Group = main, path: tuple[str, ...] = ()) -> Iterator[Any]:
    """``(path, command, the --variant option)`` of every command that has one."""
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
            continue
        for param in command.params:
            if "--variant" in getattr(param, "opts", ()):
                yield (*path, name), command, param


WITH_VARIANT = {" ".join(path): (command, param) for path, command, param in commands()}

EXTRA = {
    "explore": ["-o", "{out}/e.html"],
    "export": ["-o", "{out}/export"],
    "filter": ["-o", "{out}/filtered"],
    "heatmap": ["-o", "{out}/h.png"],
    "observations": ["-o", "{out}/obs"],
    "report": ["-o", "{out}/r.html"],
    "view": ["-o", "{out}/v.html"],
    "convert": ["-o", "{out}/converted"],
    "search": ["--anywhere", "SG"],
}
"""What each command needs besides the paths (an output, a pattern)."""


def test_every_command_with_a_variant_option_is_checked() -> None:
    assert {"explore", "advice", "heatmap", "generate", "values", "stats"} <= set(WITH_VARIANT)


@pytest.mark.parametrize("name", sorted(WITH_VARIANT))
@pytest.mark.parametrize("variant", [*VARIANTS, ALL_VARIANTS])
def test_the_option_never_calls_a_gravon_variant_unknown(name: str, variant: str) -> None:
    _, param = WITH_VARIANT[name]
    kind = getattr(param.type, "item", param.type)
    try:
        kind.convert(variant, param, None)
    except click.BadParameter as exc:
        assert "unknown variant" not in str(exc), (name, str(exc))
        if variant != ALL_VARIANTS:
            assert f"{variant!r} is a known variant" in str(exc), (name, str(exc))


@pytest.fixture(scope="module")
def free_setup_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One game of the sample written once more as a classicfree record."""
    folder = tmp_path_factory.mktemp("free")
    with zipfile.ZipFile(ROOT / "data" / "strados2026-10.zip") as sample:
        name = next(n for n in sample.namelist() if n.startswith("classic-"))
        text = sample.read(name).decode("utf-8").replace('type="classic"', 'type="classicfree"')
    with zipfile.ZipFile(folder / "strados2026-10.zip", "w") as out:
        out.writestr(name.replace("classic-", "classicfree-", 1), text)
    return folder


@pytest.mark.parametrize("name", sorted(set(WITH_VARIANT) - {"generate"}))
def test_classicfree_run_end_to_end_is_known_or_covered(
    name: str, free_setup_folder: Path, tmp_path: Path
) -> None:
    extra = [arg.format(out=tmp_path) for arg in EXTRA.get(name, [])]
    args = [*name.split(), str(free_setup_folder), "--variant", "classicfree", *extra]
    result = CliRunner().invoke(main, args)
    assert "unknown variant" not in result.output, result.output
    if result.exit_code == 2 and "classicfree" in result.output:
        assert "'classicfree' is a known variant, but" in result.output, result.output


def test_generate_names_classicfree_as_known(tmp_path: Path) -> None:
    args = ["generate", "--variant", "classicfree", "-n", "1", "-o", str(tmp_path / "g")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "'classicfree' is a known variant, but generate covers" in result.output
