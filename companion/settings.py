"""What the user sets on the device, apart from the screens that set it, and the setup it remembers.

The daemon's store reads and writes :class:`Settings` without importing the user interface (one
file in the state directory, replaced atomically).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from companion.errors import ConfigError
from companion.text import LANGUAGES

CONTRAST_RANGE = (15, 255)  # what the SSD1306/SH1106 contrast register takes, bar the darkest values
MAX_REMEMBERED_NAMES = 16  # far more seats than any game has; a longer list is not one the device wrote


class LastSetup(NamedTuple):
    """The game last started on the device: the setup form opens on it (game id, player count and
    the seats' names in order). Ids and names are checked by the form, which falls back to its
    defaults for any it does not offer (a game since removed, a name of the other language)."""

    game: str
    players: int
    names: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "names": list(self.names)}

    @classmethod
    def from_json(cls, data: object) -> LastSetup:
        if not isinstance(data, Mapping):
            raise ConfigError(f"settings: last_setup must be an object, not {data!r}")
        game, players, names = data.get("game"), data.get("players"), data.get("names")
        if not isinstance(game, str) or not game:
            raise ConfigError(f"settings: last_setup.game must be a game id, not {game!r}")
        if not isinstance(players, int) or isinstance(players, bool) or not 1 <= players <= MAX_REMEMBERED_NAMES:
            raise ConfigError(f"settings: last_setup.players must be a whole number 1-{MAX_REMEMBERED_NAMES},"
                              f" not {players!r}")
        if (not isinstance(names, list) or len(names) > MAX_REMEMBERED_NAMES
                or not all(isinstance(name, str) for name in names)):
            raise ConfigError(f"settings: last_setup.names must be a list of names, not {names!r}")
        return cls(game, players, tuple(names))


class Settings(NamedTuple):
    """What the user sets on the device; the daemon stores it with ``to_json`` / ``from_json``.

    >>> Settings.from_json({"language": "ja", "contrast": 999})
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: settings: contrast must be a whole number 15-255, not 999
    """

    language: str = "en"
    contrast: int = 207  # the value written to the SSD1306/SH1106 contrast register when "on"
    last_setup: LastSetup | None = None  # None until a game is started on the device

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"language": self.language, "contrast": self.contrast}
        if self.last_setup is not None:
            data["last_setup"] = self.last_setup.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        last = data.get("last_setup")
        last_setup = LastSetup.from_json(last) if last is not None else None
        default = cls()
        language, contrast = data.get("language", default.language), data.get("contrast", default.contrast)
        low, high = CONTRAST_RANGE
        if language not in LANGUAGES:
            raise ConfigError(f"settings: language must be {' or '.join(LANGUAGES)}, not {language!r}")
        if not isinstance(contrast, int) or isinstance(contrast, bool) or not low <= contrast <= high:
            raise ConfigError(f"settings: contrast must be a whole number {low}-{high}, not {contrast!r}")
        return cls(language, contrast, last_setup)
