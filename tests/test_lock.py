"""requirements.lock: what CI, the README and the developers install.

It pins every dependency of the project at one version with hashes and names no index or
host; under ``STRAT_TOOLS_LOCKED=1`` (set by .ci/run) the environment running the tests holds
exactly the lock's versions.
"""

from __future__ import annotations

import os
import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
TORCH_LOCK = ROOT / "requirements-torch.lock"
"""PyTorch for the training-data tests, installed by .ci/run after the lock (not a dependency)."""
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*\\?$")


def pins(lock: Path = LOCK) -> dict[str, list[tuple[str, str | None]]]:
    """Package → [(version, marker)], one entry per pinned line of the lock."""
    found: dict[str, list[tuple[str, str | None]]] = {}
    for line in lock.read_text().splitlines():
        match = PIN.match(line)
        if match:
            name, version, marker = match.groups()
            found.setdefault(canonicalize_name(name), []).append((version, marker))
    return found


@pytest.mark.parametrize("lock", [LOCK, TORCH_LOCK], ids=lambda p: p.name)
def test_the_lock_names_no_index_and_no_host(lock: Path) -> None:
    text = lock.read_text()
    assert "://" not in text
    assert not re.search(r"^\s*-(-index-url|-extra-index-url|-find-links|i|f)\b", text, re.M)


@pytest.mark.parametrize(("lock", "at_least"), [(LOCK, 50), (TORCH_LOCK, 6)], ids=["main", "torch"])
def test_every_pin_is_exact_and_hashed(lock: Path, at_least: int) -> None:
    lines = lock.read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line and not line[0].isspace()]
    starts = [i for i in starts if not lines[i].startswith("#")]
    assert len(starts) >= at_least
    for i in starts:
        assert PIN.match(lines[i]), lines[i]
        assert "--hash=sha256:" in lines[i + 1], lines[i]


def test_the_lock_pins_every_dependency_and_extra_of_the_project() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in ("dev", "dist", "env"):
        wanted += project["optional-dependencies"][extra]
    locked = pins()
    for spec in wanted:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is in pyproject.toml but not in the lock"
        versions = [version for version, _ in locked[name]]
        assert any(requirement.specifier.contains(v, prereleases=True) for v in versions), (
            f"the lock's {name} {versions} is outside pyproject.toml's {requirement.specifier}"
        )
    assert {"hatchling", "editables"} <= set(locked)  # the build backend (--no-build-isolation)


@pytest.mark.skipif(
    os.environ.get("STRAT_TOOLS_LOCKED") != "1",
    reason="the environment was not installed from the lock (STRAT_TOOLS_LOCKED=1: .ci/run)",
)
def test_the_installed_versions_are_the_locks() -> None:
    wrong = []
    for name, entries in {**pins(), **pins(TORCH_LOCK)}.items():
        applies = [v for v, marker in entries if marker is None or Marker(marker).evaluate()]
        if not applies:
            continue
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{name}: locked {applies[0]}, not installed")
            continue
        if installed not in applies:
            wrong.append(f"{name}: locked {applies[0]}, installed {installed}")
    assert not wrong, wrong


def test_the_torch_lock_pins_nothing_the_main_lock_pins() -> None:
    """Installed after the main lock, it must not move any of its versions."""
    assert "torch" in pins(TORCH_LOCK)
    assert not set(pins(TORCH_LOCK)) & set(pins())


def test_the_readme_installs_the_torch_lock_from_where_its_wheel_is_served() -> None:
    """A pin with a local version (``2.13.0+cpu``) is never on PyPI, which refuses local
    versions: the README's command must name the index that serves it, and the CI's
    latest-versions script runs that command with pip's configuration ignored."""
    local = [v for v, _ in pins(TORCH_LOCK)["torch"] if "+" in v]
    readme = (ROOT / "README.md").read_text()
    command = re.findall(
        r"^\.venv/bin/pip install (--require-hashes -r requirements-torch\.lock .*)$", readme, re.M
    )
    assert len(command) == 1
    if local:
        assert "--extra-index-url https://download.pytorch.org/whl/cpu" in command[0]
    latest = (ROOT / "scripts" / "latest.sh").read_text()
    assert "requirements-torch\\.lock" in latest and "pip --isolated install" in latest
