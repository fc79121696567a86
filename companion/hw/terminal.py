"""Mock mode at a terminal: the panel drawn pixel-exact in Unicode braille, with a key legend.

A braille character holds 2x4 dots, so the 128x64 panel is 64x16 characters: with a border and
a two-line legend it fits the common 80x24 terminal, at any font. What is drawn is the
:class:`~companion.hw.panel.PanelModel`, the picture rebuilt from the bytes the real driver sent
over the recording bus, so the terminal shows what the glass would, diff writer included.

The screen lives on the terminal's alternate screen: leaving it gives the terminal back as it
was, and anything the program had to say while it was up (log lines, an error) is printed after,
where it stays readable.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

from PIL import Image

from companion.hw.panel import PanelModel
from companion.keys import KeyEvent
from companion.textrows import bands

BRAILLE_BLANK = 0x2800
# Unicode braille dot bits by (x, y) inside a 2x4 cell: dots 1-3 and 7 on the left, 4-6 and 8 right.
_DOT_BITS = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20),
             (0, 3, 0x40), (1, 3, 0x80))
KEY_LEGEND = (
    "arrows/WASD move · Enter/o OK · Backspace/Esc/b BACK · Space/x AUX",
    "card keys: 0-9 * # as printed, f g h j = A-D, numpad / * - + too",
    "Shift+key or a capital = long press (Alt+digit) · Ctrl-C quits",
)
DIM_BELOW = 16
"""Contrast levels under this are drawn faint, as the dimmed panel looks."""

_ENTER = "\x1b[?1049h\x1b[?25l\x1b="  # alternate screen, cursor hidden, numeric keypad in application mode
_LEAVE = "\x1b>\x1b[?25h\x1b[?1049l"  # numeric keypad, cursor and normal screen back
_HOME = "\x1b[H"
_END_OF_LINE, _BELOW = "\x1b[K", "\x1b[J"  # erase the rest of the line / of the screen
_FAINT, _PLAIN = "\x1b[2m", "\x1b[0m"

TerminalSize = Callable[[], tuple[int, int]]

log = logging.getLogger(__name__)


def braille_lines(image: Image.Image) -> list[str]:
    """``image`` as lines of braille characters, one dot per pixel (lit pixels raised).

    >>> picture = Image.new("1", (4, 4)); picture.putpixel((0, 0), 1); picture.putpixel((3, 3), 1)
    >>> braille_lines(picture) == [chr(0x2801) + chr(0x2880)]
    True
    """
    width, height = image.size
    pixels = image.convert("L").tobytes()
    lines = []
    for top in range(0, height, 4):
        cells = []
        for left in range(0, width, 2):
            bits = 0
            for dx, dy, bit in _DOT_BITS:
                x, y = left + dx, top + dy
                if x < width and y < height and pixels[y * width + x]:
                    bits |= bit
            cells.append(chr(BRAILLE_BLANK + bits))
        lines.append("".join(cells))
    return lines


_REVERSE, _UNREVERSE = "\x1b[7m", "\x1b[27m"


def inverted_cells(image: Image.Image) -> list[list[bool]]:
    """Which braille cells of ``image`` lie in an inverted region: lit background, dark text (a
    title bar, the chosen row, a flashing message). Each of the screens' text rows
    (:func:`companion.textrows.bands`: 9 pixels, lit over all 9 when inverted) is inverted where
    more than half its pixels, in a window 8 pixels wide around the cell, are lit; plain text lights
    far fewer. A braille cell (4 pixel lines, which the 9-pixel rows do not align with) is inverted
    when at least two of its lines lie in inverted rows. Drawn as lit dots, such a region is a solid
    block of dots with the text a faint gap.

    >>> bar = Image.new("1", (16, 9), 1); bar.putpixel((5, 3), 0)
    >>> [set(row) for row in inverted_cells(bar)]
    [{True}, {True}, {True}]
    """
    width, height = image.size
    pixels = image.convert("L").tobytes()
    by_line: list[list[bool]] = []
    for band in bands(height):
        lit_in_column = [sum(1 for y in band if pixels[y * width + x]) for x in range(width)]
        cells = []
        for left in range(0, width, 2):
            window = range(max(0, left - 3), min(width, left + 5))
            lit = sum(lit_in_column[x] for x in window)
            cells.append(2 * lit > len(window) * len(band))
        by_line += [cells] * len(band)
    rows = []
    for top in range(0, height, 4):
        lines = by_line[top : top + 4]
        rows.append([2 * sum(line[cell] for line in lines) >= len(lines) for cell in range(len(lines[0]))])
    return rows


def terminal_lines(image: Image.Image) -> list[str]:
    """``image`` as braille lines for a terminal: inverted regions in reverse video with their
    unlit pixels as dots, so a title bar or the chosen row reads as the panel shows it (lit dots
    there would fill the region and hide the text).

    >>> bar = Image.new("1", (4, 8), 1); bar.putpixel((0, 0), 0)
    >>> terminal_lines(bar)[0] == "\x1b[7m" + chr(0x2801) + chr(0x2800) + "\x1b[27m"
    True
    """
    inverted = inverted_cells(image)
    negative = braille_lines(Image.eval(image.convert("L"), lambda value: 255 - value))
    lines = []
    for plain, reversed_, flags in zip(braille_lines(image), negative, inverted, strict=True):
        parts, current = [], False
        for column, flag in enumerate(flags):
            if flag != current:
                parts.append(_REVERSE if flag else _UNREVERSE)
                current = flag
            parts.append(reversed_[column] if flag else plain[column])
        if current:
            parts.append(_UNREVERSE)
        lines.append("".join(parts))
    return lines


def terminal_size(fd: int) -> TerminalSize:
    """The size of the terminal on ``fd`` as (columns, lines), asked afresh each call."""
    def size() -> tuple[int, int]:
        try:
            columns, lines = os.get_terminal_size(fd)
        except OSError:
            columns, lines = shutil.get_terminal_size()
        return columns, lines
    return size


class TerminalScreen:
    """Draws a :class:`PanelModel` and the key legend on a terminal, whole, on every change.

    Call :meth:`draw` after each frame (and on resize); a terminal too small for the panel gets a
    line saying so instead of a garbled picture.
    """

    def __init__(self, panel: PanelModel, out: TextIO, size: TerminalSize,
                 legend: tuple[str, ...] = KEY_LEGEND) -> None:
        self.panel = panel
        self._out = out
        self._size = size
        self._legend = legend
        width, height = panel.size
        self.panel_columns, self.panel_lines = -(-width // 2), -(-height // 4)
        self.min_columns = max(self.panel_columns + 2, *(len(line) for line in legend))
        self.min_lines = self.panel_lines + 2 + len(legend)

    def fits(self) -> bool:
        """Whether the terminal is big enough to show the panel (else it shows a note instead)."""
        columns, lines = self._size()
        return columns >= self.min_columns and lines >= self.min_lines

    def while_shown(self, post: Callable[[KeyEvent], None]) -> Callable[[KeyEvent], None]:
        """``post`` for the keys, dropping each key pressed while the panel is hidden by the
        too-small note: nobody can see what it would act on (a resume offer was accepted blind)."""
        def post_if_shown(event: KeyEvent) -> None:
            if self.fits():
                post(event)
            else:
                log.debug("%s ignored: the terminal is too small to show the screen", event)
        return post_if_shown

    def compose(self) -> str:
        """The whole screen as text (with the escape codes that place it)."""
        columns, lines = self._size()
        if not self.fits():
            width, height = self.panel.size
            note = (f"terminal {columns}x{lines} is too small for the {width}x{height} screen:"
                    f" it needs {self.min_columns}x{self.min_lines}; make the window bigger"
                    " (keys are ignored until then)")
            return _HOME + note[:max(1, columns * lines - 1)] + _BELOW
        state = "" if self.panel.display_on else " display off "
        faint = self.panel.display_on and self.panel.contrast is not None and self.panel.contrast < DIM_BELOW
        if faint:
            state = " dimmed "
        rule = "─" * self.panel_columns
        top = "┌" + (state + rule)[:self.panel_columns] + "┐"
        if self.panel.display_on:
            rows = terminal_lines(self.panel.image())
        else:
            rows = [chr(BRAILLE_BLANK) * self.panel_columns] * self.panel_lines
        body = [f"│{_FAINT if faint else ''}{row}{_PLAIN if faint else ''}│" for row in rows]
        # Overwritten in place, each line then erased to its end: no blank flash between frames.
        return _HOME + f"{_END_OF_LINE}\r\n".join([top, *body, "└" + rule + "┘", *self._legend]) + _BELOW

    def draw(self) -> None:
        self._out.write(self.compose())
        self._out.flush()

    @contextmanager
    def shown(self, on_resize: Callable[[Callable[[], None]], object]) -> Iterator[TerminalScreen]:
        """Take the terminal's alternate screen for the duration, redrawing on SIGWINCH.

        ``on_resize`` receives the redraw to run when the window changes size; it should run it
        on the thread that draws frames (a signal handler may interrupt a draw half-written).
        Log lines emitted meanwhile are held and printed once the terminal is restored.
        """
        previous = signal.getsignal(signal.SIGWINCH)

        def resized(signum: int, frame: FrameType | None) -> None:
            on_resize(self.draw)

        self._out.write(_ENTER)
        with held_logs():
            signal.signal(signal.SIGWINCH, resized)
            try:
                self.draw()
                yield self
            finally:
                signal.signal(signal.SIGWINCH, previous)
                self._out.write(_LEAVE)
                self._out.flush()


class _Held(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def held_logs(logger: logging.Logger | None = None) -> Iterator[list[logging.LogRecord]]:
    """Hold the root logger's output, then hand it to the usual handlers on the way out.

    >>> log = logging.getLogger("held-demo"); log.propagate = False
    >>> log.addHandler(logging.StreamHandler(__import__("sys").stdout))
    >>> with held_logs(log):
    ...     log.warning("said while the screen was up"); print("screen gone")
    screen gone
    said while the screen was up
    """
    logger = logger if logger is not None else logging.getLogger()
    handlers = logger.handlers[:]
    holder = _Held()
    for handler in handlers:
        logger.removeHandler(handler)
    logger.addHandler(holder)
    try:
        yield holder.records
    finally:
        logger.removeHandler(holder)
        for handler in handlers:
            logger.addHandler(handler)
        for record in holder.records:
            for handler in handlers:
                if record.levelno >= handler.level:
                    handler.handle(record)
