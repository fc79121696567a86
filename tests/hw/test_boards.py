"""Board presets and custom board files: load, validate, and hand luma its defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.errors import ConfigError
from companion.hw.boards import Board, list_presets, load_board, load_board_file, load_preset, parse_board
from companion.hw.keys import Key
from companion.keys import JOYSTICK_KEYS

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_TOML = REPO / "hardware" / "custom-board.example.toml"


def minimal() -> dict:
    return {
        "title": "test board",
        "display": {"driver": "ssd1306", "interface": "i2c", "i2c_port": 1,
                    "i2c_address": "0x3C", "width": 128, "height": 64, "rotate": 0},
        "buttons": {"OK": 4, "BACK": {"pin": 5, "label": "A"}},
    }


def parse(raw: object) -> Board:
    return parse_board(raw, name="test", where="test.json")


def test_both_presets_are_listed_and_load() -> None:
    assert list_presets() == ["adafruit-oled-bonnet", "waveshare-oled-1.3-hat"]
    for name in list_presets():
        board = load_preset(name)
        assert board.name == name
        assert set(board.buttons) == set(JOYSTICK_KEYS)
        assert board.source and board.source != "unspecified"


def test_adafruit_bonnet_pins_match_adafruits_example() -> None:
    board = load_preset("adafruit-oled-bonnet")
    assert board.buttons == {Key.UP: 17, Key.DOWN: 22, Key.LEFT: 27, Key.RIGHT: 23,
                             Key.OK: 4, Key.BACK: 5, Key.AUX: 6}
    assert board.display.luma_defaults() == {
        "display": "ssd1306", "interface": "i2c", "width": 128, "height": 64, "rotate": 0,
        "i2c_port": 1, "i2c_address": "0x3C"}
    assert board.verified and board.unverified == ()


def test_waveshare_hat_pins_match_the_user_manual() -> None:
    board = load_preset("waveshare-oled-1.3-hat")
    assert board.buttons == {Key.UP: 6, Key.DOWN: 19, Key.LEFT: 5, Key.RIGHT: 26,
                             Key.OK: 13, Key.BACK: 21, Key.AUX: 20}
    assert dict(board.spare_pins) == {"KEY3": 16}
    assert board.display.luma_defaults() == {
        "display": "sh1106", "interface": "spi", "width": 128, "height": 64, "rotate": 0,
        "spi_port": 0, "spi_device": 0, "gpio_data_command": 24, "gpio_reset": 25}
    assert board.display.gpio_CS == 8


def test_a_minimal_board_gets_defaults() -> None:
    board = parse(minimal())
    assert board.labels == {Key.OK: "OK", Key.BACK: "A"}
    assert (board.verified, board.source, board.encoder_pins) == (False, "unspecified", None)
    assert board.display.i2c_address == 0x3C


def test_example_custom_toml_loads(tmp_path: Path) -> None:
    board = load_board(str(EXAMPLE_TOML))
    assert board.name == "custom-board.example"
    assert board.buttons[Key.OK] == 24 and board.labels[Key.OK] == "big button"
    assert board.encoder_pins == (5, 6)
    assert Key.AUX not in board.buttons


def test_custom_json_file_loads_by_path(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(minimal()))
    assert load_board(str(path)).buttons == {Key.OK: 4, Key.BACK: 5}


def mutate(change) -> dict:
    raw = minimal()
    change(raw)
    return raw


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r["buttons"].update(SELECT=6), r"test\.json: buttons\.SELECT: unknown key 'SELECT'"),
    (lambda r: r["buttons"].update(ok=6), r"buttons\.ok: key OK is given twice"),
    (lambda r: r["buttons"].update(UP=4), r"buttons\.UP: GPIO4 is already used by buttons\.OK"),
    (lambda r: r["buttons"].update(UP=2), r"buttons\.UP: GPIO2 is already used by display\.SDA"),
    (lambda r: r["buttons"].update(UP=28), r"buttons\.UP: GPIO28 is not a BCM pin 0-27"),
    (lambda r: r["buttons"].update(UP=-1), r"buttons\.UP: GPIO-1 is not a BCM pin"),
    (lambda r: r["buttons"].update(UP="17"), r"buttons\.UP: expected a BCM GPIO number, got '17'"),
    (lambda r: r["buttons"].update(UP=True), r"buttons\.UP: expected a BCM GPIO number"),
    (lambda r: r["buttons"].update(UP={"pin": 7, "colour": "red"}), r"buttons\.UP\.colour: unknown field"),
    (lambda r: r["buttons"].clear(), r"buttons: a board needs at least one button"),
    (lambda r: r.pop("title"), r"test\.json: title: missing"),
    (lambda r: r.pop("display"), r"test\.json: display: missing"),
    (lambda r: r["display"].pop("width"), r"display\.width: missing"),
    (lambda r: r["display"].pop("i2c_address"), r"display\.i2c_address: missing"),
    (lambda r: r["display"].update(i2c_address="0x3G"), r"display\.i2c_address: '0x3G' is not a number"),
    (lambda r: r["display"].update(i2c_address=0x80), r"display\.i2c_address: 0x80 is not a 7-bit"),
    (lambda r: r["display"].update(rotate=4), r"display\.rotate: 4 is out of range"),
    (lambda r: r["display"].update(driver="ssd9999"), r"display\.driver: 'ssd9999' is not a luma\.oled driver"),
    (lambda r: r["display"].update(interface="uart"), r"display\.interface: 'uart' is not one of"),
    (lambda r: r["display"].update(gpio_DC=24), r"display\.gpio_DC: an I2C display takes no such pin"),
    (lambda r: r["display"].update(spi_port=0), r"display\.spi_port: unknown field"),
    (lambda r: r.update(colour="blue"), r"test\.json: colour: unknown field"),
    (lambda r: r.update(verified=True, unverified=["buttons.OK"]), r"unverified: must be empty"),
    (lambda r: r.update(verified="yes"), r"verified: expected true or false"),
    (lambda r: r.update(encoder={"a": 20}), r"encoder\.b: missing"),
    (lambda r: r.update(encoder={"a": 20, "b": 4}), r"encoder\.b: GPIO4 is already used by buttons\.OK"),
    (lambda r: r.update(spare_pins={"KEY3": 5}), r"spare_pins\.KEY3: GPIO5 is already used by buttons\.BACK"),
], ids=lambda value: value if isinstance(value, str) else "")
def test_bad_board_fields_name_the_file_and_field(change, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse(mutate(change))


SPI_DISPLAY = {"driver": "sh1106", "interface": "spi", "spi_port": 0, "spi_device": 0,
               "gpio_DC": 24, "gpio_RESET": 25, "gpio_CS": 8,
               "width": 128, "height": 64, "rotate": 0}


@pytest.mark.parametrize(("display", "message"), [
    ({**SPI_DISPLAY, "gpio_CS": 7}, r"display\.gpio_CS: SPI0 device 0 selects with GPIO8, not GPIO7"),
    ({k: v for k, v in SPI_DISPLAY.items() if k != "gpio_RESET"}, r"display\.gpio_RESET: missing"),
    ({**SPI_DISPLAY, "gpio_DC": 4}, r"buttons\.OK: GPIO4 is already used by display\.gpio_DC"),
    ({**SPI_DISPLAY, "i2c_address": "0x3C"}, r"display\.i2c_address: unknown field"),
])
def test_bad_spi_displays_are_reported(display: dict, message: str) -> None:
    raw = minimal()
    raw["display"] = display
    with pytest.raises(ConfigError, match=message):
        parse(raw)


def test_spi_display_occupies_its_bus_pins() -> None:
    raw = minimal()
    raw["display"] = SPI_DISPLAY
    raw["buttons"]["UP"] = 10
    with pytest.raises(ConfigError, match=r"GPIO10 is already used by display\.MOSI"):
        parse(raw)


def test_repeated_json_field_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    text = json.dumps(minimal()).replace('"OK": 4', '"OK": 4, "OK": 6')
    path.write_text(text)
    with pytest.raises(ConfigError, match=r"twice\.json: field 'OK' appears twice"):
        load_board_file(path)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("broken.json", "{", r"broken\.json: not valid JSON"),
    ("broken.toml", "title = ", r"broken\.toml: not valid TOML"),
    ("list.json", "[1, 2]", r"list\.json: \(top level\): expected a table, got list"),
    ("board.yaml", "title: x", r"board\.yaml: board files must end in \.json or \.toml"),
])
def test_unreadable_board_files_are_config_errors(tmp_path: Path, name: str, text: str,
                                                  message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_board_file(path)


def test_missing_file_and_unknown_preset_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read board file"):
        load_board(str(tmp_path / "absent.toml"))
    with pytest.raises(ConfigError, match="unknown board 'pi-oled'; presets: adafruit-oled-bonnet"):
        load_board("pi-oled")
