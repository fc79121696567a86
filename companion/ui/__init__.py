"""The device's screens: a pure state machine from key events to 128x64 pictures (see :mod:`.app`)."""

from companion.settings import Settings
from companion.text import Catalog
from companion.ui.app import App

__all__ = ["App", "Catalog", "Settings"]
