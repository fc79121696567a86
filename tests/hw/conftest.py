"""Fixtures for the hardware seam: a mock pin factory and virtual time."""

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.hw.mock import VirtualTime


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh MockFactory as gpiozero's default; the previous default is put back after."""
    previous = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = previous


@pytest.fixture
def vtime() -> VirtualTime:
    return VirtualTime(start=1000.0)
