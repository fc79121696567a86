"""Mock mode at a terminal: the braille view of the panel, its size rules, resize and held logs."""

from __future__ import annotations

import io
import logging
import os
import re
import signal

from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from companion.hw.display import open_display, parse_display_args
from companion.hw.panel import PanelModel
from companion.hw.terminal import BRAILLE_BLANK, KEY_LEGEND, TerminalScreen, braille_lines, terminal_lines


def decode_braille(lines: list[str], size: tuple[int, int]) -> Image.Image:
    """Read braille text back into pixels: each bit of a cell is one dot, by Unicode's numbering;
    in reverse video (ESC [7m to ESC [27m) a dot is an unlit pixel."""
    image = Image.new("1", size)
    dots = ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (0, 3), (1, 3))
    for row, line in enumerate(lines):
        reverse, column = False, 0
        for part in re.findall(r"\x1b\[(?:7|27)m|.", line):
            if part.startswith("\x1b"):
                reverse = part == "\x1b[7m"
                continue
            bits = ord(part) - BRAILLE_BLANK
            for bit, (dx, dy) in enumerate(dots):
                if (bits >> bit & 1) != reverse:
                    image.putpixel((column * 2 + dx, row * 4 + dy), 1)
            column += 1
    return image


@given(st.binary(min_size=1024, max_size=1024))
def test_braille_shows_every_pixel_of_the_panel_exactly(packed: bytes) -> None:
    picture = Image.frombytes("1", (128, 64), packed)
    lines = braille_lines(picture)
    assert len(lines) == 16 and {len(line) for line in lines} == {64}
    assert decode_braille(lines, (128, 64)).tobytes() == picture.tobytes()


@given(st.binary(min_size=1024, max_size=1024))
def test_the_terminal_view_with_reverse_video_keeps_every_pixel(packed: bytes) -> None:
    picture = Image.frombytes("1", (128, 64), packed)
    assert decode_braille(terminal_lines(picture), (128, 64)).tobytes() == picture.tobytes()


def test_inverted_text_reads_in_reverse_video_instead_of_solid_blocks() -> None:
    """A title bar and the chosen menu row were solid blocks of dots with the text a faint gap."""
    import random

    from companion.keys import Key, KeyEvent
    from companion.ui.app import App

    app = App(clock=lambda: 0.0, rng=random.Random(1))
    app.handle(KeyEvent(Key.BACK))  # the menu: a title bar and its first row chosen
    picture = app.render()
    lines = terminal_lines(picture)
    title, chosen, plain = lines[0], lines[2], lines[5]  # 9-pixel rows: the second row from y 19
    assert title.startswith("\x1b[7m") and title.endswith("\x1b[27m")
    assert chosen.startswith("\x1b[7m") and "\x1b[27m" in chosen
    assert "\x1b[7m" not in plain
    full = chr(BRAILLE_BLANK + 0xFF)
    for line in lines:  # text is drawn as dots: no run of full cells where the glass shows a bar
        assert full * 4 not in line
    assert braille_lines(picture)[0].count(full) > 20  # as plain dots, the title bar was a solid block
    assert decode_braille(lines, (128, 64)).tobytes() == picture.tobytes()


def panel_showing(text_pixels: list[tuple[int, int]]) -> PanelModel:
    display = open_display(parse_display_args(["--display", "ssd1306"]), recording=True)
    assert display.bus is not None
    picture = Image.new("1", (128, 64))
    for xy in text_pixels:
        picture.putpixel(xy, 1)
    display.show()
    display.display(picture)
    return display.bus.panel


def screen_lines(screen: TerminalScreen) -> list[str]:
    text = screen.compose()
    assert text.startswith("\x1b[H") and text.endswith("\x1b[J")  # drawn over in place, the rest erased
    return text.removeprefix("\x1b[H").removesuffix("\x1b[J").split("\x1b[K\r\n")


def test_at_80x24_the_panel_border_and_legend_fit_and_show_the_glass() -> None:
    panel = panel_showing([(0, 0), (127, 63), (64, 30)])
    screen = TerminalScreen(panel, io.StringIO(), lambda: (80, 24))
    lines = screen_lines(screen)
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
    assert tuple(lines[-len(KEY_LEGEND):]) == KEY_LEGEND
    body = [line[1:-1] for line in lines[1:17]]
    assert decode_braille(body, (128, 64)).tobytes() == panel.image().tobytes()


def test_a_terminal_too_small_says_so_instead_of_garbling() -> None:
    screen = TerminalScreen(panel_showing([]), io.StringIO(), lambda: (60, 24))
    (line,) = screen_lines(screen)
    assert "60x24 is too small" in line and f"{screen.min_columns}x{screen.min_lines}" in line
    assert (screen.min_columns, screen.min_lines) <= (80, 24)
    short = TerminalScreen(panel_showing([]), io.StringIO(), lambda: (80, 19))
    assert "too small" in screen_lines(short)[0]


def test_a_panel_switched_off_is_drawn_blank_and_a_dimmed_one_faint() -> None:
    panel = panel_showing([(10, 10)])
    screen = TerminalScreen(panel, io.StringIO(), lambda: (80, 24))
    panel.command([0xAE])  # display off, as Display.hide sends it
    lines = screen_lines(screen)
    assert "display off" in lines[0]
    assert all(set(line[1:-1]) == {chr(BRAILLE_BLANK)} for line in lines[1:17])
    panel.command([0xAF, 0x81, 1])  # on again, contrast 1 (the device's dim level)
    lines = screen_lines(screen)
    assert "dimmed" in lines[0] and "\x1b[2m" in lines[1]


def test_the_screen_redraws_on_resize_and_prints_held_logs_after_leaving() -> None:
    before = signal.getsignal(signal.SIGWINCH)
    out = io.StringIO()
    sizes = [(80, 24)]
    screen = TerminalScreen(panel_showing([]), out, lambda: sizes[-1])
    redraws: list[object] = []
    stream = io.StringIO()
    root = logging.getLogger()
    handler = logging.StreamHandler(stream)
    root.addHandler(handler)
    try:
        with screen.shown(on_resize=redraws.append):
            logging.getLogger("companion.test").warning("said while the screen was up")
            assert stream.getvalue() == ""  # held: it would be drawn over, then wiped
            sizes.append((40, 10))
            os.kill(os.getpid(), signal.SIGWINCH)
            assert redraws == [screen.draw]
            screen.draw()
            assert "40x10 is too small" in out.getvalue()
        assert out.getvalue().endswith("\x1b[?25h\x1b[?1049l")  # the terminal given back
        assert "said while the screen was up" in stream.getvalue()
        assert signal.getsignal(signal.SIGWINCH) == before
    finally:
        root.removeHandler(handler)


def test_a_japanese_row_under_the_chosen_one_stays_plain() -> None:
    """Reverse video follows the screens' 9-pixel rows: dense kanji under a highlighted row are not
    taken into it (8-pixel bands mixed the highlight's lower lines with the row under it)."""
    import random

    from companion.keys import Key, KeyEvent
    from companion.settings import Settings
    from companion.ui.app import App

    app = App(clock=lambda: 0.0, rng=random.Random(1), settings=Settings(language="ja"))
    app.handle(KeyEvent(Key.BACK))  # メニュー: its first row chosen, 設定 and the rest plain
    lines = terminal_lines(app.render())
    assert all(line.startswith("\x1b[7m") for line in lines[:5])  # the title bar, then the chosen row
    assert not any("\x1b[7m" in line for line in lines[5:])
