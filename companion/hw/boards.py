"""Board presets: which display and which GPIO pins a given add-on board uses, as data.

Presets live in ``companion/data/boards/<name>.json``. A custom build is described by a file
of the same shape, in JSON or TOML (TOML is friendlier to edit by hand; see
``hardware/custom-board.example.toml``). Every file is validated on load, and every problem
is reported as a :class:`~companion.errors.ConfigError` naming the file and the field.

Schema (``?`` marks optional fields)::

    title      str                      what the board is
    source?    str                      where the pin numbers come from
    verified?  bool  (false)            every pin and address checked against ``source``
    unverified? [str]                   fields not confirmed (must be empty if verified)
    notes?     str
    display    {driver: luma.oled class name, interface: "i2c" | "spi",
                width, height, rotate: 0-3,
                page_address_offset?: 0-4 (sh1106 only: first RAM column shown),
                i2c:  i2c_port, i2c_address ("0x3C" or int)
                spi:  spi_port, spi_device, gpio_DC, gpio_RESET, gpio_CS}
    buttons    {KEY: BCM pin | {pin: BCM pin, label?: str}}   KEY is a Key name
    spare_pins? {label: BCM pin}        switches on the board that no Key uses
    encoder?   {a: BCM pin, b: BCM pin} a rotary encoder (A and B channels)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple, NoReturn

from companion.errors import ConfigError
from companion.inputs import parse_toml, read_text_file
from companion.keys import Key
from companion.paths import package_files

BCM_PINS = range(0, 28)
PRESET_PACKAGE = "companion.data"
PRESET_DIR = "boards"

_I2C_BUS_PINS = {1: (2, 3)}
_SPI_BUS_PINS = {0: (10, 11), 1: (20, 21)}
_SPI_CHIP_SELECT = {(0, 0): 8, (0, 1): 7, (1, 0): 18, (1, 1): 17, (1, 2): 16}
_ROTATIONS = (0, 1, 2, 3)
_SH1106_OFFSETS = range(0, 5)  # 132 RAM columns, 128 shown
_DISPLAY_PIN_LABELS = {"SDA": "SDA", "SCL": "SCL", "MOSI": "MOSI (DIN)", "SCLK": "SCLK (CLK)",
                       "gpio_DC": "DC (data/command)", "gpio_RESET": "RST (reset)",
                       "gpio_CS": "CS (chip select)"}


class DisplaySpec(NamedTuple):
    """How to reach a board's display, in the terms of luma's command-line options."""

    driver: str
    interface: str
    width: int
    height: int
    rotate: int
    i2c_port: int | None = None
    i2c_address: int | None = None
    spi_port: int | None = None
    spi_device: int | None = None
    gpio_DC: int | None = None
    gpio_RESET: int | None = None
    gpio_CS: int | None = None
    page_address_offset: int | None = None
    """SH1106 only: the first of its 132 RAM columns the glass shows (luma's default is 2)."""

    def luma_defaults(self) -> dict[str, Any]:
        """Defaults for the argparse destinations of ``luma.core.cmdline.create_parser``.

        >>> spec = DisplaySpec("ssd1306", "i2c", 128, 64, 0, i2c_port=1, i2c_address=0x3C)
        >>> spec.luma_defaults()  # doctest: +NORMALIZE_WHITESPACE
        {'display': 'ssd1306', 'interface': 'i2c', 'width': 128, 'height': 64, 'rotate': 0,
         'i2c_port': 1, 'i2c_address': '0x3C'}
        """
        options: dict[str, Any] = {
            "display": self.driver, "interface": self.interface,
            "width": self.width, "height": self.height, "rotate": self.rotate,
            "i2c_port": self.i2c_port,
            "i2c_address": None if self.i2c_address is None else f"0x{self.i2c_address:02X}",
            "spi_port": self.spi_port, "spi_device": self.spi_device,
            "gpio_data_command": self.gpio_DC, "gpio_reset": self.gpio_RESET,
            "page_address_offset": self.page_address_offset,  # not a luma option: the sh1106 class takes it
        }
        return {name: value for name, value in options.items() if value is not None}

    def pins(self) -> dict[str, int]:
        """Every GPIO the display occupies (bus lines included), by role."""
        used: dict[str, int] = {}
        if self.interface == "i2c" and self.i2c_port in _I2C_BUS_PINS:
            used.update(zip(("SDA", "SCL"), _I2C_BUS_PINS[self.i2c_port], strict=True))
        if self.interface == "spi" and self.spi_port in _SPI_BUS_PINS:
            used.update(zip(("MOSI", "SCLK"), _SPI_BUS_PINS[self.spi_port], strict=True))
        for role in ("gpio_DC", "gpio_RESET", "gpio_CS"):
            pin = getattr(self, role)
            if pin is not None:
                used[role] = pin
        return used


class Board(NamedTuple):
    """A validated board description (a preset or a custom file)."""

    name: str
    title: str
    display: DisplaySpec
    buttons: Mapping[Key, int]
    labels: Mapping[Key, str]
    source: str = "unspecified"
    verified: bool = False
    unverified: tuple[str, ...] = ()
    notes: str = ""
    spare_pins: Mapping[str, int] = MappingProxyType({})
    encoder_pins: tuple[int, int] | None = None
    path: str = ""


def markdown_pin_table(board: Board) -> str:
    """The board's wiring as a Markdown table; hardware/README.md embeds one per preset.

    Header pins are those of the 40-pin J8 header, the same on every 40-pin Raspberry Pi.
    """
    from gpiozero.pins.pi import PiBoardInfo

    header = PiBoardInfo.from_revision(0xA02082)

    def header_pin(gpio: int) -> int:
        number: int = next(info.number for _, info in header.find_pin(f"GPIO{gpio}"))
        return number

    rows = ["| Function | BCM GPIO | Header pin | Board label |",
            "| --- | --- | --- | --- |"]
    for key in Key:
        if key in board.buttons:
            pin = board.buttons[key]
            rows.append(f"| key {key.name} | {pin} | {header_pin(pin)} | {board.labels[key]} |")
    for label, pin in board.spare_pins.items():
        rows.append(f"| (unused) | {pin} | {header_pin(pin)} | {label} |")
    if board.encoder_pins is not None:
        for channel, pin in zip("AB", board.encoder_pins, strict=True):
            rows.append(f"| encoder {channel} | {pin} | {header_pin(pin)} | encoder {channel} |")
    for role, pin in board.display.pins().items():
        rows.append(f"| display {role} | {pin} | {header_pin(pin)} | {_DISPLAY_PIN_LABELS[role]} |")
    return "\n".join(rows) + "\n"


def list_presets() -> list[str]:
    """Names of the shipped presets, e.g. ``adafruit-oled-bonnet``."""
    folder = package_files(PRESET_PACKAGE) / PRESET_DIR
    return sorted(item.name.removesuffix(".json") for item in folder.iterdir()
                  if item.name.endswith(".json"))


def load_preset(name: str) -> Board:
    """Load a shipped preset by name."""
    if name not in list_presets():
        raise ConfigError(f"unknown board {name!r}; presets: {', '.join(list_presets())}")
    item = package_files(PRESET_PACKAGE) / PRESET_DIR / f"{name}.json"
    return parse_board(_parse_json(item.read_text(encoding="utf-8"), f"{name}.json"),
                       name=name, where=f"{PRESET_DIR}/{name}.json")


def load_board_file(path: str | Path) -> Board:
    """Load a board description from a ``.json`` or ``.toml`` file."""
    path = Path(path)
    if path.suffix not in (".toml", ".json"):
        raise ConfigError(f"{path}: board files must end in .json or .toml")
    text = read_text_file(path, "board file")
    raw = parse_toml(text, str(path)) if path.suffix == ".toml" else _parse_json(text, str(path))
    return parse_board(raw, name=path.stem, where=str(path))


def load_board(name_or_path: str) -> Board:
    """A preset name, or else a path to a board file: what a ``--board`` option accepts."""
    if name_or_path.endswith((".json", ".toml")):
        return load_board_file(name_or_path)
    return load_preset(name_or_path)


def parse_board(raw: object, *, name: str, where: str) -> Board:
    """Validate an already-decoded board document; ``where`` names it in errors."""
    top = _Fields(raw, where, "")
    title = top.string("title")
    source = top.string("source", default="unspecified")
    verified = top.boolean("verified", default=False)
    unverified = tuple(top.string_list("unverified"))
    if verified and unverified:
        top.fail("unverified", "must be empty when verified is true")
    notes = top.string("notes", default="")
    display = _parse_display(top.section("display"))
    buttons, labels = _parse_buttons(top.section("buttons"))
    spare_section = top.section("spare_pins", required=False)
    spare = {label: spare_section.pin(label) for label in spare_section.names()}
    encoder_section = top.section("encoder", required=False)
    encoder = None
    if encoder_section.names():
        encoder = (encoder_section.pin("a"), encoder_section.pin("b"))
        encoder_section.reject_unknown({"a", "b"})
    top.reject_unknown({"title", "source", "verified", "unverified", "notes", "display",
                        "buttons", "spare_pins", "encoder"})
    owners = [(f"display.{role}", pin) for role, pin in display.pins().items()]
    owners += [(f"buttons.{key.name}", pin) for key, pin in buttons.items()]
    owners += [(f"spare_pins.{label}", pin) for label, pin in spare.items()]
    if encoder is not None:
        owners += [("encoder.a", encoder[0]), ("encoder.b", encoder[1])]
    _check_unique(owners, where)
    return Board(name=name, title=title, display=display, buttons=buttons, labels=labels,
                 source=source, verified=verified, unverified=unverified, notes=notes,
                 spare_pins=spare, encoder_pins=encoder, path=where)


def _parse_display(section: _Fields) -> DisplaySpec:
    from luma.oled.device import __all__ as oled_drivers

    driver = section.string("driver")
    if driver not in oled_drivers:
        section.fail("driver", f"{driver!r} is not a luma.oled driver ({', '.join(oled_drivers)})")
    interface = section.string("interface")
    common = {"driver", "interface", "width", "height", "rotate", "page_address_offset"}
    panel: dict[str, int] = {"width": section.integer("width", range(1, 257)),
                             "height": section.integer("height", range(1, 257)),
                             "rotate": section.integer("rotate", _ROTATIONS)}
    if section.get("page_address_offset") is not None:
        if driver != "sh1106":
            section.fail("page_address_offset", f"only the sh1106 driver has one, not {driver}")
        panel["page_address_offset"] = section.integer("page_address_offset", _SH1106_OFFSETS)
    if interface == "i2c":
        section.reject_unknown(common | {"i2c_port", "i2c_address", "gpio_DC", "gpio_RESET"})
        for unused in ("gpio_DC", "gpio_RESET"):
            if section.get(unused) is not None:
                section.fail(unused, "an I2C display takes no such pin; use null or leave it out")
        return DisplaySpec(driver, interface, **panel,
                           i2c_port=section.integer("i2c_port", range(0, 100)),
                           i2c_address=section.address("i2c_address"))
    if interface == "spi":
        section.reject_unknown(common | {"spi_port", "spi_device", "gpio_DC", "gpio_RESET",
                                         "gpio_CS"})
        port = section.integer("spi_port", range(0, 7))
        device = section.integer("spi_device", range(0, 3))
        chip_select = section.pin("gpio_CS")
        expected = _SPI_CHIP_SELECT.get((port, device))
        if expected is not None and chip_select != expected:
            section.fail("gpio_CS", f"SPI{port} device {device} selects with GPIO{expected}, "
                                    f"not GPIO{chip_select}")
        return DisplaySpec(driver, interface, **panel, spi_port=port, spi_device=device,
                           gpio_DC=section.pin("gpio_DC"), gpio_RESET=section.pin("gpio_RESET"),
                           gpio_CS=chip_select)
    section.fail("interface", f"{interface!r} is not one of 'i2c', 'spi'")


def _parse_buttons(section: _Fields) -> tuple[dict[Key, int], dict[Key, str]]:
    buttons: dict[Key, int] = {}
    labels: dict[Key, str] = {}
    for name in section.names():
        try:
            key = Key.parse(name)
        except ConfigError as err:
            section.fail(name, str(err))
        if key in buttons:
            section.fail(name, f"key {key.name} is given twice")
        if isinstance(section.get(name), Mapping):
            entry = section.section(name)
            entry.reject_unknown({"pin", "label"})
            buttons[key] = entry.pin("pin")
            labels[key] = entry.string("label", default=key.name)
        else:
            buttons[key] = section.pin(name)
            labels[key] = key.name
    if not buttons:
        section.fail("", "a board needs at least one button")
    return buttons, labels


def _check_unique(owners: list[tuple[str, int]], where: str) -> None:
    seen: dict[int, str] = {}
    for owner, pin in owners:
        if pin in seen:
            raise ConfigError(f"{where}: {owner}: GPIO{pin} is already used by {seen[pin]}")
        seen[pin] = owner


def _parse_json(text: str, where: str) -> object:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for name, value in pairs:
            if name in result:
                raise ConfigError(f"{where}: field {name!r} appears twice")
            result[name] = value
        return result

    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as err:
        raise ConfigError(f"{where}: not valid JSON: {err}") from err
    except ValueError as err:  # e.g. an integer longer than Python converts (4,300 digits)
        raise ConfigError(f"{where}: not a usable board file: {err}") from None
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply to be a board file") from None


class _Fields:
    """Typed access to one table of a board file, with errors that say file and field."""

    def __init__(self, raw: object, where: str, prefix: str) -> None:
        self._where = where
        self._prefix = prefix
        if not isinstance(raw, Mapping):
            self.fail("", f"expected a table, got {type(raw).__name__}")
        self._raw: Mapping[str, Any] = raw

    def fail(self, name: str, problem: str) -> NoReturn:
        path = ".".join(part for part in (self._prefix, name) if part) or "(top level)"
        raise ConfigError(f"{self._where}: {path}: {problem}")

    def names(self) -> list[str]:
        return list(self._raw)

    def get(self, name: str) -> Any:
        return self._raw.get(name)

    def reject_unknown(self, known: set[str]) -> None:
        for name in self._raw:
            if name not in known:
                self.fail(name, f"unknown field (known: {', '.join(sorted(known))})")

    def _value(self, name: str, kinds: type | tuple[type, ...], what: str,
               default: Any = ...) -> Any:
        if self._raw.get(name) is None:
            if default is ...:
                self.fail(name, "missing")
            return default
        value = self._raw[name]
        if isinstance(value, bool) != (kinds is bool) or not isinstance(value, kinds):
            self.fail(name, f"expected {what}, got {value!r}")
        return value

    def string(self, name: str, default: Any = ...) -> str:
        text: str = self._value(name, str, "text", default)
        return text

    def boolean(self, name: str, default: Any = ...) -> bool:
        flag: bool = self._value(name, bool, "true or false", default)
        return flag

    def string_list(self, name: str) -> list[str]:
        values: list[str] = self._value(name, list, "a list of text", [])
        if not all(isinstance(value, str) for value in values):
            self.fail(name, "expected a list of text")
        return values

    def integer(self, name: str, allowed: range | tuple[int, ...]) -> int:
        value: int = self._value(name, int, "a whole number")
        if value not in allowed:
            self.fail(name, f"{value} is out of range")
        return value

    def pin(self, name: str) -> int:
        value: int = self._value(name, int, "a BCM GPIO number")
        if value not in BCM_PINS:
            self.fail(name, f"GPIO{value} is not a BCM pin 0-27")
        return value

    def address(self, name: str) -> int:
        value: str | int = self._value(name, (str, int), "an I2C address such as \"0x3C\"")
        if isinstance(value, str):
            try:
                value = int(value, 0)
            except ValueError:
                self.fail(name, f"{value!r} is not a number")
        if not 0x03 <= value <= 0x77:
            self.fail(name, f"0x{value:02X} is not a 7-bit I2C device address")
        return value

    def section(self, name: str, *, required: bool = True) -> _Fields:
        raw = self._raw.get(name)
        if raw is None:
            if required:
                self.fail(name, "missing")
            raw = {}
        return _Fields(raw, self._where, ".".join(p for p in (self._prefix, name) if p))
