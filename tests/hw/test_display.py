"""The display seam: real luma drivers on the recording bus, checked through the panel model."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.core.render import canvas
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageDraw

from companion.errors import ConfigError, HardwareError
from companion.hw.boards import list_presets, load_preset
from companion.hw.display import (
    FULL_FRAME_BYTES,
    Display,
    RecordingBus,
    display_parser,
    open_display,
    parse_display_args,
)
from companion.hw.panel import PanelModel

DRIVERS = {"ssd1306": ssd1306, "sh1106": sh1106}


def recorded(driver: str, **options: object) -> tuple[Display, RecordingBus]:
    display = open_display(
        parse_display_args(["--display", driver, *options_to_argv(options)]), recording=True)
    assert display.bus is not None
    return display, display.bus


def options_to_argv(options: dict[str, object]) -> list[str]:
    return [part for name, value in options.items()
            for part in (f"--{name.replace('_', '-')}", str(value))]


def same(a: Image.Image, b: Image.Image) -> bool:
    """Equal as panels see them: the same lit pixels (mode "1" may hold 1 or 255 for lit)."""
    return a.size == b.size and a.convert("1").tobytes() == b.convert("1").tobytes()


def random_image(seed: int, size: tuple[int, int] = (128, 64)) -> Image.Image:
    rng = random.Random(seed)
    image = Image.new("1", size)
    image.putdata([rng.getrandbits(1) for _ in range(size[0] * size[1])])
    return image


@pytest.mark.parametrize("driver", DRIVERS)
def test_luma_full_frame_rebuilds_through_the_panel_model(driver: str) -> None:
    """luma's own packing code and our model agree: the model is a faithful check."""
    bus = RecordingBus(PanelModel(driver))
    device = DRIVERS[driver](serial_interface=bus)
    bus.start_frame()
    picture = random_image(1)
    device.display(picture)
    assert same(bus.panel.image(), picture)
    assert sum(len(w.payload) for w in bus.frame if w.kind == "data") == FULL_FRAME_BYTES


@pytest.mark.parametrize("driver", DRIVERS)
def test_init_turns_the_panel_on_blank(driver: str) -> None:
    _display, bus = recorded(driver)
    assert bus.panel.display_on
    assert bus.panel.image().getbbox() is None
    assert bus.data_bytes == FULL_FRAME_BYTES      # luma's clear() at init


@st.composite
def frame_sequences(draw: st.DrawFn) -> list[list[tuple[int, int, int, int, int]]]:
    """Frames as lists of filled rectangles (x0, y0, x1, y1, colour)."""
    rectangle = st.tuples(st.integers(0, 127), st.integers(0, 63), st.integers(0, 127),
                          st.integers(0, 63), st.integers(0, 1))
    return draw(st.lists(st.lists(rectangle, max_size=6), min_size=1, max_size=6))


def render(rectangles: list[tuple[int, int, int, int, int]], base: Image.Image) -> Image.Image:
    image = base.copy()
    draw = ImageDraw.Draw(image)
    for x0, y0, x1, y1, colour in rectangles:
        draw.rectangle((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)), fill=colour)
    return image


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(DRIVERS)), st.sampled_from([0, 1, 2, 3]), frame_sequences())
def test_diff_updates_leave_the_panel_exactly_as_a_full_redraw(driver: str, rotate: int,
                                                              frames: list) -> None:
    display, bus = recorded(driver, rotate=rotate)
    image = Image.new("1", display.size)
    for rectangles in frames:
        image = render(rectangles, image)
        display.display(image)
        shown = bus.panel.image().rotate(90 * rotate, expand=True)  # undo luma's turn
        assert same(shown, image)


@pytest.mark.parametrize("driver", DRIVERS)
def test_first_frame_is_whole_and_an_unchanged_frame_sends_nothing(driver: str) -> None:
    display, bus = recorded(driver)
    picture = random_image(2)
    display.display(picture)
    assert sum(len(w.payload) for w in bus.frame if w.kind == "data") == FULL_FRAME_BYTES
    display.display(picture.copy())
    assert bus.frame == []
    display.invalidate()
    display.display(picture)
    assert bus.frame_bytes > FULL_FRAME_BYTES


@pytest.mark.parametrize(("driver", "addressing_bytes"), [("ssd1306", 6), ("sh1106", 3)])
def test_changing_one_glyph_sends_a_few_bytes(driver: str, addressing_bytes: int) -> None:
    display, bus = recorded(driver)
    with canvas(display) as draw:
        draw.text((0, 0), "Score 12", fill="white")
    with canvas(display) as draw:
        draw.text((0, 0), "Score 13", fill="white")
    # The glyph is at most 8 columns wide and spans at most two pages.
    assert 0 < bus.frame_bytes <= 2 * (8 + addressing_bytes)
    assert same(bus.panel.image(), render_text("Score 13"))


def render_text(text: str) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((0, 0), text, fill="white")
    return image


def menu(selected: int, *, inverted: bool) -> Image.Image:
    """A five-line menu; the selection is a full-width inverted bar or a '>' cursor."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    for row in range(5):
        top = row * 12 + 2
        on = row == selected
        if on and inverted:
            draw.rectangle((0, top - 1, 127, top + 10), fill=1)
        draw.text((10, top), f"Player {row + 1}  {row * 7:3d}", fill=0 if on and inverted else 1)
        if on and not inverted:
            draw.text((2, top), ">", fill=1)
    return image


@pytest.mark.parametrize("driver", DRIVERS)
def test_cursor_moves_stay_within_a_quarter_frame(driver: str) -> None:
    """The product budget: <= 25% of a full frame per key press, on average."""
    display, bus = recorded(driver)
    display.display(menu(0, inverted=False))
    sent = []
    for selected in [1, 2, 3, 4, 3, 2, 1, 0]:
        display.display(menu(selected, inverted=False))
        sent.append(bus.frame_bytes)
    assert sum(sent) / len(sent) <= FULL_FRAME_BYTES / 4


def test_contrast_hide_and_show_reach_the_panel() -> None:
    display, bus = recorded("ssd1306")
    display.contrast(0x10)
    assert bus.panel.contrast == 0x10
    display.hide()
    assert not bus.panel.display_on
    display.show()
    assert bus.panel.display_on
    with pytest.raises(ValueError, match="contrast 256"):
        display.contrast(256)


def test_cleanup_blanks_and_closes_the_bus() -> None:
    display, bus = recorded("sh1106")
    display.display(random_image(3))
    display.cleanup()
    assert not bus.panel.display_on and bus.panel.image().getbbox() is None
    with pytest.raises(HardwareError, match="after cleanup"):
        bus.command(0xAF)


def test_wrong_image_is_refused() -> None:
    display, _bus = recorded("ssd1306")
    with pytest.raises(ValueError, match="mode '1'"):
        display.display(Image.new("RGB", (128, 64)))


def test_board_preset_supplies_defaults_and_explicit_options_win() -> None:
    board = load_preset("waveshare-oled-1.3-hat")
    args = parse_display_args([], board)
    assert (args.display, args.interface, args.gpio_data_command, args.gpio_reset) == (
        "sh1106", "spi", 24, 25)
    args = parse_display_args(["--rotate", "2", "--display", "ssd1306"], board)
    assert (args.display, args.rotate, args.interface) == ("ssd1306", 2, "spi")


def test_luma_config_file_is_read_and_command_line_still_wins(tmp_path: Path) -> None:
    config = tmp_path / "oled.conf"
    config.write_text("# our panel\n--display=sh1106\n--rotate=1\n")
    args = parse_display_args(["--config", str(config), "--rotate", "3"])
    assert (args.display, args.rotate) == ("sh1106", 3)
    with pytest.raises(ConfigError, match="cannot read luma config"):
        parse_display_args(["--config", str(tmp_path / "absent.conf")])


def test_parser_can_extend_the_programs_own_parser() -> None:
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--board")
    display_parser(load_preset("adafruit-oled-bonnet"), parser)
    args = parser.parse_args(["--board", "x"])
    assert (args.board, args.display, args.i2c_address) == ("x", "ssd1306", "0x3C")


def test_emulator_devices_open_through_luma(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    display = open_display(parse_display_args(["--display", "capture", "--transform", "none"]))
    assert display.bus is None
    with canvas(display) as draw:
        draw.text((0, 0), "hi", fill="white")
    assert [path.name for path in tmp_path.iterdir()] == ["luma_000001.png"]


def test_recording_refuses_emulators() -> None:
    with pytest.raises(ConfigError, match="recording bus drives ssd1306 or sh1106, not 'capture'"):
        open_display(parse_display_args(["--display", "capture"]), recording=True)


def test_unsupported_size_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="display ssd1306"):
        recorded("ssd1306", width=100)


@pytest.mark.skipif(os.path.exists("/dev/i2c-99"), reason="a real /dev/i2c-99 exists here")
def test_missing_i2c_bus_is_a_hardware_error() -> None:
    args = parse_display_args(["--display", "ssd1306", "--i2c-port", "99"])
    with pytest.raises(HardwareError, match="cannot open display ssd1306 on i2c"):
        open_display(args)


EMULATOR_OPTIONS = {"transform", "scale", "duration", "loop", "max_frames"}


@pytest.mark.parametrize("preset", list_presets())
def test_a_start_with_no_luma_option_gets_what_lumas_parser_gives(preset: str) -> None:
    board = load_preset(preset)
    expected = {name: value for name, value in vars(display_parser(board).parse_args([])).items()
                if name not in EMULATOR_OPTIONS}
    assert vars(parse_display_args([], board)) == expected


def test_a_start_with_no_luma_option_builds_no_luma_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """luma's parser imports every luma device module installed, the emulators and curses with them."""
    import luma.core.cmdline

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("luma's parser was built")

    monkeypatch.setattr(luma.core.cmdline, "create_parser", refuse)
    assert parse_display_args([], load_preset("adafruit-oled-bonnet")).display == "ssd1306"
    with pytest.raises(AssertionError, match="luma's parser was built"):  # any luma option still goes through it
        parse_display_args(["--rotate", "2"], load_preset("adafruit-oled-bonnet"))
