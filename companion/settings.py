"""What the user sets on the device, apart from the screens that set it.

The daemon's store reads and writes :class:`Settings` without importing the user interface.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import ConfigError
from companion.text import LANGUAGES

CONTRAST_RANGE = (15, 255)  # what the SSD1306/SH1106 contrast register takes, bar the darkest values


@dataclass(frozen=True)
class Settings:
    """What the user sets on the device; the daemon stores it with ``to_json`` / ``from_json``.

    >>> Settings.from_json({"language": "ja", "contrast": 999})
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: settings: contrast must be a whole number 15-255, not 999
    """

    language: str = "en"
    contrast: int = 207  # the value written to the SSD1306/SH1106 contrast register when "on"

    def to_json(self) -> dict[str, Any]:
        return {"language": self.language, "contrast": self.contrast}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        language, contrast = data.get("language", cls.language), data.get("contrast", cls.contrast)
        low, high = CONTRAST_RANGE
        if language not in LANGUAGES:
            raise ConfigError(f"settings: language must be {' or '.join(LANGUAGES)}, not {language!r}")
        if not isinstance(contrast, int) or isinstance(contrast, bool) or not low <= contrast <= high:
            raise ConfigError(f"settings: contrast must be a whole number {low}-{high}, not {contrast!r}")
        return cls(language, contrast)
