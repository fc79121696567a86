"""Drawing on the 128x64 one-bit panel: eight text rows of 8 pixels, each exactly one display page.

Every screen lays its text on that row grid. SSD1306 and SH1106 RAM is organised in 8-pixel pages,
and the display writer sends only pages that changed, so a key press that alters one row costs one
page (128 bytes) on the bus rather than the whole 1024-byte frame.

The font is misaki gothic (8 px; kana and kanji in 8x8 cells, Latin in 4x8 cells: 32 columns a
row). It ships in the package (``companion/data/fonts``, with its licence notice), so ``pip install``
alone gives Japanese screens on any machine. Should it be missing (a repackaging that stripped it),
the system's copy is used, and failing that Pillow's built-in bitmap font, Latin only, said in the
log: the device keeps working in English rather than failing to start.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT, ROW = 128, 64, 8
ROWS = HEIGHT // ROW
SHIPPED_MISAKI = Path(str(resources.files("companion.data") / "fonts" / "misaki_gothic.ttf"))
MISAKI_PATHS = (
    SHIPPED_MISAKI,  # the package's own copy: always first, so every machine draws the same pixels
    Path("/usr/share/fonts/truetype/misaki/misaki_gothic.ttf"),  # Debian/Raspberry Pi OS: fonts-misaki
    Path("/usr/share/fonts/misaki/misaki_gothic.ttf"),
    Path("/usr/local/share/fonts/misaki_gothic.ttf"),
)
_BITMAP_TOP = 2  # Pillow's bitmap font leaves two blank rows above its tallest glyphs
ELLIPSIS = "…"
ON = 255  # a lit pixel, as mode "1" images store it
CACHE_SIZE = 4096  # rendered strings kept per typeface (a few hundred KiB at most)

log = logging.getLogger(__name__)


class Typeface:
    """One font placed on the row grid; ``japanese`` says whether it can show kana and kanji."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is None:
            self._font: ImageFont.ImageFont | ImageFont.FreeTypeFont = ImageFont.load_default_imagefont()
            self.japanese = False
            self._top = -_BITMAP_TOP
        else:
            self._font = ImageFont.truetype(str(path), ROW)
            self.japanese = True
            self._top = 0
        # Screens redraw the same few hundred strings over and over: rendering them once keeps a
        # key press's frame to a couple of milliseconds on a Pi (bench/device.py).
        self._widths: dict[str, int] = {}
        self._masks: dict[tuple[str, int], Image.Image] = {}

    @classmethod
    def find(cls, candidates: Iterable[Path] = MISAKI_PATHS) -> Typeface:
        """misaki gothic from the first candidate path that exists, else the built-in fallback."""
        candidates = list(candidates)
        for path in candidates:
            if path.is_file():
                return cls(path)
        log.warning(
            "misaki gothic not found (looked in %s): screens use Pillow's bitmap font, English only;"
            " reinstall the package (it ships the font) for Japanese",
            ", ".join(map(str, candidates)) or "no paths",
        )
        return cls(None)

    def printable(self, text: str) -> str:
        """``text`` as this font can draw it: the bitmap font has Latin-1 only."""
        if self.japanese:
            return text
        return text.replace(ELLIPSIS, "~").encode("latin-1", "replace").decode("latin-1")

    def width(self, text: str) -> int:
        width = self._widths.get(text)
        if width is None:
            if len(self._widths) >= CACHE_SIZE:
                self._widths.clear()
            width = self._widths[text] = int(self._font.getlength(self.printable(text)))
        return width

    def fit(self, text: str, width: int) -> str:
        """``text`` cut to ``width`` pixels, ending in an ellipsis when something was cut."""
        if self.width(text) <= width:
            return text
        end = self._run_end(text, 0, width - self.width(ELLIPSIS))
        while end and self.width(text[:end] + ELLIPSIS) > width:
            end -= 1
        return text[:end] + ELLIPSIS

    def wrap(self, text: str, width: int) -> list[str]:
        """Greedy line breaking at spaces; words (or Japanese runs) wider than a line break anywhere.

        Linear in the text's length: a word too wide for a line is cut where its characters' widths
        add up past ``width``, one pass, so a pasted 5,000-character value (a journal line a notice
        repeats) wraps in milliseconds; measuring ever-shorter prefixes of it took 40 s.
        """
        lines: list[str] = []
        line = ""
        for word in text.split(" "):
            candidate = f"{line} {word}" if line else word
            if self.width(candidate) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            start = 0
            end = self._run_end(word, start, width)
            while end < len(word):  # the rest is still too wide: cut a line off it
                end = max(start + 1, end)
                lines.append(word[start:end])
                start = end
                end = self._run_end(word, start, width)
            line = word[start:]
        if line:
            lines.append(line)
        return lines

    def _run_end(self, text: str, start: int, width: int) -> int:
        """The end of the longest run from ``start`` no wider than ``width`` (``start`` itself when not
        even one character fits): the characters' widths are summed in one pass, then the run is
        measured whole and shortened in the rare case its letters sit closer than their sum."""
        total, end = 0, start
        while end < len(text):
            total += self.width(text[end])
            if total > width:
                break
            end += 1
        while end > start and self.width(text[start:end]) > width:
            end -= 1
        return end

    def draw(self, image: Image.Image, x: int, row: int, text: str, fill: int) -> None:
        """Draw inside the row's 8-pixel band only, so no glyph ever touches a neighbouring page."""
        mask = self._masks.get((text, WIDTH - x))
        if mask is None:
            if len(self._masks) >= CACHE_SIZE:
                self._masks.clear()
            mask = Image.new("1", (WIDTH - x, ROW), 0)
            ImageDraw.Draw(mask).text((0, self._top), self.printable(text), font=self._font, fill=1)
            self._masks[(text, WIDTH - x)] = mask
        image.paste(ON if fill else 0, (x, row * ROW, WIDTH, row * ROW + ROW), mask)


class Canvas:
    """A blank frame plus the handful of drawing verbs every screen needs."""

    def __init__(self, typeface: Typeface) -> None:
        self.face = typeface
        self.image = Image.new("1", (WIDTH, HEIGHT), 0)
        self._draw = ImageDraw.Draw(self.image)

    def text(self, row: int, text: str, *, x: int = 0, width: int | None = None, invert: bool = False,
             right: bool = False) -> int:
        """Write ``text`` on ``row`` (cut to ``width``); returns the x just past it."""
        room = (width if width is not None else WIDTH - x)
        text = self.face.fit(text, room)
        size = self.face.width(text)
        if right:
            x = x + room - size
        if invert:  # one lit pixel either side, so the first and last letters keep their edges
            self.fill(max(0, x - 1), row, min(WIDTH, x + size + 1))
        self.face.draw(self.image, x, row, text, 0 if invert else 1)
        return x + size

    def title(self, text: str) -> None:
        """The top row as a lit bar with ``text`` dark on it: which screen this is, at a glance."""
        self.fill(0, 0, WIDTH)
        self.face.draw(self.image, 1, 0, self.face.fit(text, WIDTH - 1), 0)

    def lines(self, first_row: int, rows: int, text: str, *, invert: bool = False) -> None:
        """Wrap ``text`` over ``rows`` rows from ``first_row``; an ellipsis says when more was cut."""
        wrapped = self.face.wrap(text, WIDTH)
        shown = wrapped[:rows]
        if len(wrapped) > rows:
            shown[-1] = self.face.fit(f"{shown[-1]} {ELLIPSIS}", WIDTH)
        if invert:
            self.fill(0, first_row, WIDTH, rows=rows)
        for offset, line in enumerate(shown):
            self.face.draw(self.image, 0, first_row + offset, line, 0 if invert else 1)

    def fill(self, x0: int, row: int, x1: int, *, rows: int = 1, value: int = 1) -> None:
        self._draw.rectangle((x0, row * ROW, x1 - 1, (row + rows) * ROW - 1), fill=ON if value else 0)

    def cell(self, x: int, row: int, width: int, text: str, *, invert: bool = False) -> None:
        """``text`` centred in a cell ``width`` pixels wide; inverted, the whole cell is lit (a cursor)."""
        if invert:
            self.fill(x, row, x + width)
        offset = max(0, (width - self.face.width(text)) // 2)
        self.face.draw(self.image, x + offset, row, text, 0 if invert else 1)

    def dot(self, x: int, row: int) -> None:
        """A single pixel in the middle of a cell: a place kept for a card no longer offered."""
        self.image.putpixel((x, row * ROW + 4), ON)

    def divider(self, x: int, row: int) -> None:
        """A dotted upright between two cells of ``row``."""
        for y in range(row * ROW + 1, row * ROW + ROW - 1, 2):
            self.image.putpixel((x, y), ON)

    def rule(self, row: int) -> None:
        """A thin line along the bottom of ``row``: sets a message apart from the screen under it."""
        self._draw.line((0, row * ROW + ROW - 1, WIDTH - 1, row * ROW + ROW - 1), fill=ON)

    def bar(self, x: int, row: int, length: int) -> None:
        """A horizontal bar 5 pixels high inside ``row``."""
        if length > 0:
            self._draw.rectangle((x, row * ROW + 1, x + length - 1, row * ROW + 5), fill=ON)

    def gauge(self, x: int, row: int, width: int, fraction: float) -> None:
        """An outlined bar filled to ``fraction``: a level such as the contrast."""
        top, bottom = row * ROW + 1, row * ROW + 6
        self._draw.rectangle((x, top, x + width - 1, bottom), outline=ON)
        filled = round((width - 4) * min(1.0, max(0.0, fraction)))
        if filled:
            self._draw.rectangle((x + 2, top + 2, x + 1 + filled, bottom - 2), fill=ON)

    def matrix(self, x: int, y: int, modules: Sequence[Sequence[int]], scale: int, quiet: int) -> int:
        """A QR code's modules (1 dark) as dark squares of ``scale`` pixels on a lit field with a
        ``quiet``-module margin, top left at (x, y), as cameras read it; returns its width."""
        size = (len(modules) + 2 * quiet) * scale
        self._draw.rectangle((x, y, x + size - 1, y + size - 1), fill=ON)
        for row, line in enumerate(modules):
            for column, dark in enumerate(line):
                if dark:
                    left, top = x + (column + quiet) * scale, y + (row + quiet) * scale
                    self._draw.rectangle((left, top, left + scale - 1, top + scale - 1), fill=0)
        return size

    def columns(self, row: int, cells: Sequence[tuple[int, str]]) -> None:
        """Right-aligned numbers ending at the given x positions: table columns."""
        for right_edge, text in cells:
            self.text(row, text, x=right_edge - self.face.width(text))
