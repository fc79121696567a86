"""config.toml: every ``companion run`` option a device needs, in one file the service reads.

A key is the name of a ``run`` option with ``_`` for ``-`` (``keypad = "/dev/ttyACM0"`` is
``--keypad /dev/ttyACM0``), so what the docs say about an option holds for both. The command line
wins over the file, and the file over the board's defaults. Unknown keys are refused by name (a
misspelt ``bord`` must not silently run the default board), and so is any file that cannot be read
as small UTF-8 TOML: each problem is one :class:`~companion.errors.ConfigError` naming the file.

``docs/config.example.toml`` holds every key with its meaning; a test keeps it complete.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from companion.errors import ConfigError
from companion.inputs import parse_address, parse_toml, read_text_file
from companion.paths import APP

CONFIG_FILE = "config.toml"
DEVICE_CONFIG_DIR = Path("/etc") / APP
"""Where an installed device keeps config.toml (the unit's ``ConfigurationDirectory=``)."""


class Setting(NamedTuple):
    """One config key: its type, the values it allows, and whether luma's parser takes it.

    ``valid`` checks a value no list of choices can describe (a pin list): it returns a reason to
    refuse the value, or None.
    """

    kind: type
    help: str
    choices: tuple[Any, ...] | range | None = None
    luma: bool = False  # passed on to luma's display options as --NAME VALUE (a bool: --NAME when true)
    valid: Callable[[Any], str | None] | None = None

    def check(self, name: str, value: object, where: str) -> object:
        wanted = {str: "text", int: "a whole number", bool: "true or false", float: "a number"}[self.kind]
        accepted = (int, float) if self.kind is float else self.kind
        if isinstance(value, bool) != (self.kind is bool) or not isinstance(value, accepted):
            raise ConfigError(f"{where}: {name}: expected {wanted}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = (f"{self.choices.start}-{self.choices.stop - 1}" if isinstance(self.choices, range)
                       else ", ".join(map(str, self.choices)))
            raise ConfigError(f"{where}: {name}: {value!r} is not one of {allowed}")
        reason = self.valid(value) if self.valid is not None else None
        if reason is not None:
            raise ConfigError(f"{where}: {name}: {value!r} {reason}")
        return value


def _buzzer_pins_reason(text: str) -> str | None:
    """Why ``text`` is not a quiz buzzer pin list, as ``--buzzers`` takes it, or None.

    >>> _buzzer_pins_reason("12, 16,20"), _buzzer_pins_reason("12,12")
    (None, 'is not BCM pins 0-27 separated by commas, each once, seat 1 first (e.g. "12,16,20,21")')
    """
    from companion.hw.buzzers import parse_buzzer_pins  # gpiozero: only when there are buzzers

    try:
        parse_buzzer_pins(text)
    except ConfigError:
        return 'is not BCM pins 0-27 separated by commas, each once, seat 1 first (e.g. "12,16,20,21")'
    return None


def _web_reason(text: str) -> str | None:
    """Why ``text`` is not a table page address, as ``--web`` takes it, or None."""
    try:
        parse_address(text, "web")
    except ConfigError:
        return 'is not [HOST:]PORT with a port 1-65535 (e.g. "8080", or "0.0.0.0:8080" for the room\'s network)'
    return None


# Tables of config.toml that belong to an optional part, which checks them itself when it starts
# (``[event]``: companion/event/config.py).
SECTIONS = ("event",)

SETTINGS: dict[str, Setting] = {
    "board": Setting(str, "board preset name, or the path of a board file (.toml or .json)"),
    "keypad": Setting(str, "serial port of the optional Pico keypad, e.g. /dev/ttyACM0"),
    "numpad": Setting(str, "a USB numeric keypad as the card keypad: auto, its /dev/input path, or part of its name"),
    "language": Setting(str, "screen language at every start: en or ja (else what the menu set)", ("en", "ja")),
    "contrast": Setting(int, "panel contrast 15-255 at every start (else what the menu set)", range(15, 256)),
    "verbose": Setting(bool, "log every journalled action"),
    "buzzers": Setting(str, 'quiz buzzers on GPIO: BCM pins, seat 1 first, e.g. "12,16,20,21"',
                       valid=_buzzer_pins_reason),
    "keypad_buzzers": Setting(bool, "quiz buzzers on the Pico keypad's seat inputs (needs keypad)"),
    "web": Setting(str, 'serve the table page on [HOST:]PORT, e.g. "8080" (127.0.0.1) or "0.0.0.0:8080"',
                   valid=_web_reason),
    "page_address_offset": Setting(int, "SH1106 only: first RAM column shown, 0-4 (luma's default 2)", range(0, 5)),
    "display": Setting(str, "luma display type: ssd1306, sh1106, ...", luma=True),
    "interface": Setting(str, "i2c or spi", ("i2c", "spi"), luma=True),
    "width": Setting(int, "panel width in pixels: the screens are drawn for 128", (128,), luma=True),
    "height": Setting(int, "panel height in pixels: the screens are drawn for 64", (64,), luma=True),
    "rotate": Setting(int, "0, or 2 for a panel mounted upside down (the screens are landscape)", (0, 2), luma=True),
    "i2c_port": Setting(int, "I2C bus number (1 on a Pi's header)", range(0, 100), luma=True),
    "i2c_address": Setting(str, 'I2C address such as "0x3C"', luma=True),
    "spi_port": Setting(int, "SPI bus number", range(0, 7), luma=True),
    "spi_device": Setting(int, "SPI chip select number", range(0, 3), luma=True),
    "spi_bus_speed": Setting(int, "SPI clock in Hz, e.g. 8000000", range(1, 125_000_001), luma=True),
    "gpio_data_command": Setting(int, "SPI displays: BCM pin of DC", range(0, 28), luma=True),
    "gpio_reset": Setting(int, "SPI displays: BCM pin of RST", range(0, 28), luma=True),
}


NOT_IN_FILE = ("mock", "config_toml", "state_dir", "keys", "exit_when_done", "keys_virtual_time", "save_frame",
               "save_frame_scale", "seed", "check", "config")
"""``run`` options that are not config.toml keys: they choose one run (simulated hardware, a key
script, a picture, a seed; the service's state directory comes from systemd), or name a file of
options themselves (luma's ``--config``)."""


@cache
def all_settings() -> dict[str, Setting]:
    """Every config.toml key: :data:`SETTINGS`, then each luma display option they leave out
    (``spi_mode``, ``gpio_chip_select``, ``spi_transfer_size``...), with luma's own type and choices,
    so the file takes every option ``companion run`` passes to luma."""
    from companion.hw.display import display_parser  # luma: loaded only when a config file is read

    settings = dict(SETTINGS)
    for action in display_parser()._actions:
        name = action.dest
        if not action.option_strings or name in settings or name in NOT_IN_FILE or name == "help":
            continue
        flag = isinstance(action, argparse._StoreTrueAction) or action.type is bool  # luma's --spi-cs-high: type=bool
        kind: type = bool if flag else action.type if isinstance(action.type, type) else str
        choices = tuple(action.choices) if action.choices is not None and not flag else None
        settings[name] = Setting(kind, f"luma: {action.help}", choices, luma=True)
    return settings


class RunConfig(NamedTuple):
    """A checked config.toml: ``values`` by key, and ``path`` (None when there was no file)."""

    values: Mapping[str, Any]
    path: Path | None = None
    sections: Mapping[str, Mapping[str, Any]] = MappingProxyType({})  # tables checked by their owners

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def luma_argv(self) -> list[str]:
        """The display keys as luma command-line options, to go before the real command line.

        >>> RunConfig({"rotate": 2, "board": "x", "i2c_address": "0x3D", "inverse": True, "bgr": False}).luma_argv()
        ['--rotate', '2', '--i2c-address', '0x3D', '--inverse']
        """
        argv: list[str] = []
        settings = all_settings() if self.values else {}  # luma's parser, built only for a file's keys
        for name, value in self.values.items():
            if not settings[name].luma:
                continue
            option = f"--{name.replace('_', '-')}"
            if settings[name].kind is not bool:
                argv += [option, str(value)]
            elif value:  # luma's flags take no value (its --spi-cs-high takes any text as true)
                argv += [option] if name != "spi_cs_high" else [option, "true"]
        return argv


def check_config(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Every key known and every value of its type, else a ConfigError naming the key.

    >>> check_config({"bord": "x"}, "config.toml")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: config.toml: unknown key 'bord' (did you mean 'board'?);
    every key is in docs/config.example.toml
    >>> check_config({"seed": 1}, "config.toml")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: config.toml: seed is an option of one run, not a key of this file
    (nor are mock, config_toml, state_dir, keys, exit_when_done, keys_virtual_time, save_frame, save_frame_scale,
    check, config)
    """
    values: dict[str, Any] = {}
    settings = all_settings()
    for name, value in raw.items():
        if name in SECTIONS:
            continue
        setting = settings.get(name)
        if name in NOT_IN_FILE:
            others = ", ".join(other for other in NOT_IN_FILE if other != name)
            raise ConfigError(f"{where}: {name} is an option of one run, not a key of this file (nor are {others})")
        if setting is None:
            import difflib  # only for a mistake in the file

            near = difflib.get_close_matches(name, settings, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"{where}: unknown key {name!r}{hint}; every key is in docs/config.example.toml")
        values[name] = setting.check(name, value, where)
    if "display" in values:
        from luma.core.cmdline import get_display_types

        known = [name for names in get_display_types().values() for name in names]
        if values["display"] not in known:
            raise ConfigError(f"{where}: display: {values['display']!r} is not a luma display ({', '.join(known)})")
    if "i2c_address" in values:
        try:
            address = int(values["i2c_address"], 0)
        except ValueError:
            address = -1
        if not 0x03 <= address <= 0x77:
            raise ConfigError(
                f'{where}: i2c_address: {values["i2c_address"]!r} is not a 7-bit I2C address such as "0x3C"'
            )
    return values


def config_path(environ: Mapping[str, str] = os.environ) -> Path:
    """``$CONFIGURATION_DIRECTORY/config.toml`` under systemd, else the installed device's file.

    >>> config_path({"CONFIGURATION_DIRECTORY": "/etc/a:/etc/b"}), config_path({})
    (PosixPath('/etc/a/config.toml'), PosixPath('/etc/tabletop-companion/config.toml'))
    """
    directory = environ.get("CONFIGURATION_DIRECTORY")
    if directory:
        return Path(directory.split(":")[0]) / CONFIG_FILE
    return DEVICE_CONFIG_DIR / CONFIG_FILE


def load_config(path: Path | None = None, *, environ: Mapping[str, str] = os.environ) -> RunConfig:
    """config.toml from ``path`` (which must exist), else from :func:`config_path` when there is one."""
    if path is None:
        path = config_path(environ)
        if not path.exists() and not path.is_symlink():
            return RunConfig({})
    raw = parse_toml(read_text_file(path, "config file"), str(path))
    sections = {name: raw[name] for name in SECTIONS if name in raw}
    for name, section in sections.items():
        if not isinstance(section, dict):
            raise ConfigError(f"{path}: [{name}] must be a table of settings")
    return RunConfig(check_config(raw, str(path)), path, sections)
