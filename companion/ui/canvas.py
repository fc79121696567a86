"""Drawing on the 128x64 one-bit panel: a title row and six text rows, each 9 pixels high.

misaki gothic (8 px) draws every glyph, kana, kanji and Latin alike, in the top 7 pixel lines of
its 8-pixel cell, and an 8x8 kanji fills that cell from edge to edge. So a row is 9 pixels: one
line above the glyphs, seven for them, one below. An inverted row (a cursor, a heading) and the
title bar are lit over the whole 9 lines, so their text keeps a lit line above and below it and
the lit column either side, and the title bar is set one dark line apart from the row under it, so
a highlighted first row never merges with it and the row under it keeps its top stroke
(every golden test checks it on each screen it draws, in both languages: ``tests/ui/margins.py``).
The same grid serves English and Japanese: one layout for both. Rows no longer match the
display's 8-pixel pages one for one: a changed row touches two pages at most.

The font is misaki gothic (kana and kanji in 8x8 cells, Latin in 4x8 cells: 32 columns a row). It
ships in the package (``companion/data/fonts``, with its licence notice), so ``pip install`` alone
gives Japanese screens on any machine. Should it be missing (a repackaging that stripped it), the
system's copy is used, and failing that Pillow's built-in bitmap font, Latin only, said in the
log: the device keeps working in English rather than failing to start.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from PIL import Image, ImageDraw, ImageFont

from companion.paths import package_files
from companion.textrows import GLYPH, ROW, glyph_top, row_top
from companion.textrows import ROWS as ROWS  # the screens take the row count from here

WIDTH, HEIGHT = 128, 64
SHIPPED_MISAKI = package_files("companion.data") / "fonts" / "misaki_gothic.ttf"
MISAKI_PATHS = (
    SHIPPED_MISAKI,  # the package's own copy: always first, so every machine draws the same pixels
    Path("/usr/share/fonts/truetype/misaki/misaki_gothic.ttf"),  # Debian/Raspberry Pi OS: fonts-misaki
    Path("/usr/share/fonts/misaki/misaki_gothic.ttf"),
    Path("/usr/local/share/fonts/misaki_gothic.ttf"),
)
_BITMAP_TOP = 2  # Pillow's bitmap font leaves two blank lines above its tallest glyphs
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
            self._font = ImageFont.truetype(str(path), GLYPH)
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
        """Greedy line breaking at spaces; a word wider than a line (a Japanese run, which has no
        spaces) goes on filling the line it starts on and breaks anywhere.

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
            if self.width(word) <= width:
                if line:
                    lines.append(line)
                line = word
                continue
            start, end = 0, self._run_end(candidate, 0, width)
            while end < len(candidate):  # the rest is still too wide: cut a line off it
                end = max(start + 1, end)
                lines.append(candidate[start:end].rstrip(" "))
                start = end
                while start < len(candidate) - 1 and candidate[start] == " ":
                    start += 1
                end = self._run_end(candidate, start, width)
            line = candidate[start:]
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

    def mask(self, text: str, width: int) -> Image.Image:
        """``text``'s glyph pixels, ``width`` x 8, clipped to the glyph cell: nothing reaches a neighbouring row."""
        mask = self._masks.get((text, width))
        if mask is None:
            if len(self._masks) >= CACHE_SIZE:
                self._masks.clear()
            mask = Image.new("1", (width, GLYPH), 0)
            ImageDraw.Draw(mask).text((0, self._top), self.printable(text), font=self._font, fill=1)
            self._masks[(text, width)] = mask
        return mask

    def draw(self, image: Image.Image, x: int, row: int, text: str, fill: int) -> None:
        """Draw ``text`` on text row ``row`` from ``x``, lit or dark (``fill``): its glyph cell one
        line under the row's top, so nothing reaches a neighbouring row."""
        y = glyph_top(row)
        image.paste(ON if fill else 0, (x, y, WIDTH, y + GLYPH), self.mask(text, WIDTH - x))


class Drawn(NamedTuple):
    """One string as drawn: where its glyph cell lies, and whether it is dark on a lit band."""

    x: int
    y: int
    text: str
    dark: bool
    width: int  # pixels
    fills_before: int  # how many fills were made before it: a later one may cover it


class Canvas:
    """A blank frame plus the handful of drawing verbs every screen needs.

    It keeps a text model beside the pixels: every string drawn (``drawn``, cut as shown) and every
    fill in the order made (``fills``: lit for the title bar, inverted rows and cells, dark for what
    is cleared), so tests can ask what the table reads and whether a glyph touches a band's edge
    without decoding pixels.
    """

    def __init__(self, typeface: Typeface) -> None:
        self.face = typeface
        self.image = Image.new("1", (WIDTH, HEIGHT), 0)
        self._draw = ImageDraw.Draw(self.image)
        self.rows = ROWS
        self.drawn: list[Drawn] = []
        self.fills: list[tuple[tuple[int, int, int, int], bool]] = []  # (x0, y0, x1, y1) inclusive, lit

    def covered(self, drawn: Drawn) -> bool:
        """Whether a fill made after ``drawn`` covers its whole glyph cell (a message over the screen)."""
        x0, y0, x1, y1 = drawn.x, drawn.y, drawn.x + drawn.width - 1, drawn.y + GLYPH - 1
        return any(box[0] <= x0 and box[1] <= y0 and x1 <= box[2] and y1 <= box[3]
                   for box, _ in self.fills[drawn.fills_before:])

    @property
    def texts(self) -> list[str]:
        """Every string on the glass, in the order drawn (not those a later fill covered)."""
        return [drawn.text for drawn in self.drawn if not self.covered(drawn)]

    def _glyphs(self, x: int, row: int, text: str, *, dark: bool = False) -> None:
        """``text`` on ``row`` at ``x``; a row past the panel's last draws nothing."""
        if not 0 <= row < self.rows or not text or x >= WIDTH:
            return
        self.face.draw(self.image, x, row, text, 0 if dark else 1)
        self.drawn.append(Drawn(x, glyph_top(row), text, dark, self.face.width(text), len(self.fills)))

    def text(self, row: int, text: str, *, x: int = 0, width: int | None = None, invert: bool = False,
             right: bool = False) -> int:
        """Write ``text`` on ``row`` (cut to ``width``); returns the x just past it. Inverted, the
        band is lit one column either side of the text (at the panel's left edge, the text moves
        one column right to keep it)."""
        room = (width if width is not None else WIDTH - x)
        if invert and x == 0:
            x, room = 1, room - 1
        text = self.face.fit(text, room)
        size = self.face.width(text)
        if right:
            x = x + room - size
        if invert:
            self.fill(max(0, x - 1), row, min(WIDTH, x + size + 1))
        self._glyphs(x, row, text, dark=invert)
        return x + size

    def title(self, text: str) -> None:
        """The top row as a lit bar with ``text`` dark on it: which screen this is, at a glance."""
        self.fill(0, 0, WIDTH)
        self._glyphs(1, 0, self.face.fit(text, WIDTH - 2), dark=True)

    def lines(self, first_row: int, rows: int, text: str, *, invert: bool = False) -> int:
        """Wrap ``text`` over at most ``rows`` rows from ``first_row``; an ellipsis says when more was
        cut. Returns the rows used."""
        rows = min(rows, self.rows - first_row)
        if rows <= 0:
            return 0
        x = 1 if invert else 0
        wrapped = self.face.wrap(text, WIDTH - 2 * x)
        shown = wrapped[:rows]
        if len(wrapped) > rows:
            shown[-1] = self.face.fit(f"{shown[-1]} {ELLIPSIS}", WIDTH - 2 * x)
        if invert:
            self.fill(0, first_row, WIDTH, rows=rows)
        for offset, line in enumerate(shown):
            self._glyphs(x, first_row + offset, line, dark=invert)
        return len(shown)

    def fill(self, x0: int, row: int, x1: int, *, rows: int = 1, value: int = 1) -> None:
        """Light (or darken, ``value`` 0) columns ``x0`` to ``x1`` (exclusive) of ``rows`` rows, each
        row's whole 9 lines."""
        last = min(row + rows, self.rows) - 1
        if last < row or x1 <= x0:
            return
        box = (x0, row_top(row), x1 - 1, row_top(last) + ROW - 1)
        self._draw.rectangle(box, fill=ON if value else 0)
        self.fills.append((box, bool(value)))

    def cell(self, x: int, row: int, width: int, text: str, *, invert: bool = False) -> None:
        """``text`` centred in a cell ``width`` pixels wide; inverted, the whole cell is lit (a cursor)."""
        size = self.face.width(text)
        left = x + (width - size) // 2  # left of x when the text is wider than the cell
        if size > width:
            left = max(1, min(left, WIDTH - 1 - size))
        if invert:  # a glyph wider than the cell (a kanji) keeps a lit column either side
            self.fill(min(x, left - 1), row, max(x + width, left + size + 1))
        self._glyphs(left, row, text, dark=invert)

    def dot(self, x: int, row: int) -> None:
        """A single pixel in the middle of a cell: a place kept for a card no longer offered."""
        if 0 <= row < self.rows:
            self.image.putpixel((x, glyph_top(row) + 4), ON)

    def divider(self, x: int, row: int) -> None:
        """A dotted upright between two cells of ``row``."""
        if 0 <= row < self.rows:
            for y in range(row_top(row) + 1, row_top(row) + ROW - 1, 2):
                self.image.putpixel((x, y), ON)

    def rule(self, row: int) -> None:
        """A thin line along the bottom of ``row``: sets a message apart from the screen under it."""
        if 0 <= row < self.rows:
            bottom = row_top(row) + ROW - 1
            self._draw.line((0, bottom, WIDTH - 1, bottom), fill=ON)

    def bar(self, x: int, row: int, length: int) -> None:
        """A horizontal bar 5 pixels high inside ``row``."""
        if length > 0 and 0 <= row < self.rows:
            top = glyph_top(row)
            self._draw.rectangle((x, top + 1, x + length - 1, top + 5), fill=ON)

    def gauge(self, x: int, row: int, width: int, fraction: float) -> None:
        """An outlined bar filled to ``fraction``: a level such as the contrast."""
        if not 0 <= row < self.rows:
            return
        top, bottom = glyph_top(row), glyph_top(row) + 6
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
