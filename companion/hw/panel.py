"""A model of SSD1306 / SH1106 display RAM, rebuilt from the bytes sent over the bus.

Mock mode runs the real luma.oled drivers against a recording bus; this model replays what
they sent, as the controller would, so tests (and a mock-mode screenshot) see what would
reach the glass rather than what the program meant to draw. It follows the datasheets'
command lengths and the two addressing modes the drivers use: page addressing (SH1106
always; SSD1306 after reset) and SSD1306 horizontal addressing inside a column/page window.
"""

from __future__ import annotations

from collections.abc import Iterable

from PIL import Image

# Bytes that follow each multi-byte command (every other command is one byte).
_ARGUMENTS = {
    "ssd1306": {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x81: 1,
                0x8D: 1, 0xA3: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1},
    "sh1106": {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1},
}
_RAM_COLUMNS = {"ssd1306": 128, "sh1106": 132}
# luma.oled's sh1106 centres 128 visible columns in the 132-column RAM (page_address_offset=2).
_DEFAULT_COLUMN_OFFSET = {"ssd1306": 0, "sh1106": 2}
_RAM_PAGES = 8
_HORIZONTAL, _PAGE = 0x00, 0x02

_NIBBLE_REVERSED = (0x0, 0x8, 0x4, 0xC, 0x2, 0xA, 0x6, 0xE, 0x1, 0x9, 0x5, 0xD, 0x3, 0xB, 0x7, 0xF)
# each byte with its bits in reverse order, from its nibbles reversed (a string per byte, read back, cost more)
_REVERSED_BITS = bytes(_NIBBLE_REVERSED[value & 0x0F] << 4 | _NIBBLE_REVERSED[value >> 4] for value in range(256))


def pack_pages(image: Image.Image) -> bytes:
    """Pack a mode ``"1"`` image into controller RAM order: page by page, one byte per
    column, least significant bit on top.

    >>> image = Image.new("1", (2, 8)); image.putpixel((1, 0), 1); image.putpixel((1, 7), 1)
    >>> pack_pages(image).hex()
    '0081'
    >>> _REVERSED_BITS == bytes(int(f"{value:08b}"[::-1], 2) for value in range(256))
    True
    """
    _width, height = image.size
    pages = height // 8
    # Transposed, each image column is a row of bytes with the top pixel in the high bit.
    column_major = image.transpose(Image.Transpose.TRANSPOSE).tobytes().translate(_REVERSED_BITS)
    return b"".join(column_major[page::pages] for page in range(pages))


def unpack_pages(packed: bytes, size: tuple[int, int]) -> Image.Image:
    """Inverse of :func:`pack_pages`."""
    width, height = size
    pages = height // 8
    column_major = bytes(packed[page * width + x] for x in range(width) for page in range(pages))
    transposed = Image.frombytes("1", (height, width), column_major.translate(_REVERSED_BITS))
    return transposed.transpose(Image.Transpose.TRANSPOSE)


class PanelModel:
    """Display RAM plus the few registers that decide what the glass shows."""

    def __init__(self, controller: str, *, width: int = 128, height: int = 64,
                 column_offset: int | None = None, power_on_fill: int = 0) -> None:
        """``power_on_fill``: what RAM holds before the first write (undefined on a real panel,
        so a test can fill it with a pattern to prove every shown byte was written)."""
        if controller not in _ARGUMENTS:
            raise ValueError(f"no model for controller {controller!r}; have {sorted(_ARGUMENTS)}")
        self.controller = controller
        self.size = (width, height)
        self.column_offset = (_DEFAULT_COLUMN_OFFSET[controller] if column_offset is None
                              else column_offset)
        self.display_on = False
        self.contrast: int | None = None
        self._columns = _RAM_COLUMNS[controller]
        self._ram = bytearray([power_on_fill]) * (self._columns * _RAM_PAGES)
        self._pending: list[int] = []
        self._mode = _PAGE
        self._column_window = (0, self._columns - 1)
        self._page_window = (0, _RAM_PAGES - 1)
        self._column = 0
        self._page = 0

    def command(self, payload: Iterable[int]) -> None:
        """Feed command bytes; a command's arguments may arrive in later calls."""
        for byte in payload:
            self._pending.append(byte)
            needed = _ARGUMENTS[self.controller].get(self._pending[0], 0)
            if len(self._pending) > needed:
                self._execute(*self._pending)
                self._pending.clear()

    def data(self, payload: Iterable[int]) -> None:
        """Feed display data bytes, advancing the RAM pointer as the controller does: a run at a
        time, the bytes up to where the pointer wraps stored as one slice (a frame is a thousand
        bytes; one at a time they were a sixth of what a mock start runs of its own)."""
        rest = bytes(payload)
        while rest:
            run = min(len(rest), self._run_length())
            start = self._page * self._columns + self._column % self._columns
            self._ram[start:start + run] = rest[:run]
            rest = rest[run:]
            self._advance(run)

    def image(self) -> Image.Image:
        """The visible picture: what RAM holds in the columns and rows that reach the glass."""
        width, height = self.size
        visible = b"".join(
            self._ram[page * self._columns + self.column_offset:][:width]
            for page in range(height // 8))
        return unpack_pages(visible, self.size)

    def _execute(self, opcode: int, *args: int) -> None:
        if opcode in (0xAE, 0xAF):
            self.display_on = opcode == 0xAF
        elif opcode == 0x81:
            self.contrast = args[0]
        elif self._mode == _PAGE and (opcode <= 0x1F or 0xB0 <= opcode <= 0xB7):
            self._set_page_pointer(opcode)
        elif self.controller == "ssd1306":
            self._execute_ssd1306(opcode, *args)

    def _set_page_pointer(self, opcode: int) -> None:
        """Page-addressing commands: page number, low and high column nibbles."""
        if opcode >= 0xB0:
            self._page = opcode & 0x07
        elif opcode <= 0x0F:
            self._column = (self._column & 0xF0) | opcode
        else:
            self._column = (self._column & 0x0F) | (opcode & 0x0F) << 4

    def _execute_ssd1306(self, opcode: int, *args: int) -> None:
        if opcode == 0x20:
            if args[0] not in (_HORIZONTAL, _PAGE):
                raise ValueError(f"SSD1306 addressing mode {args[0]:#04x} is not modelled")
            self._mode = args[0]
        elif opcode == 0x21:
            self._column_window = (args[0], args[1])
            self._column = args[0]
        elif opcode == 0x22:
            self._page_window = (args[0] & 0x07, args[1] & 0x07)
            self._page = self._page_window[0]

    def _run_length(self) -> int:
        """How many bytes from here go to consecutive RAM columns of this page before the pointer
        wraps: to the page's end in page addressing, to the window's last column (or RAM's) in
        horizontal addressing; one where the pointer stands outside the window."""
        if self._mode == _PAGE:
            return self._columns - self._column % self._columns
        last_column = self._column_window[1]
        if self._column <= last_column and self._column < self._columns:
            return min(last_column, self._columns - 1) - self._column + 1
        return 1

    def _advance(self, count: int) -> None:
        """Move the pointer past ``count`` bytes, at most :meth:`_run_length` of them."""
        if self._mode == _PAGE:
            self._column = (self._column + count) % self._columns
            return
        first_column, last_column = self._column_window
        first_page, last_page = self._page_window
        if self._column + count - 1 < last_column:
            self._column += count
            return
        self._column = first_column
        self._page = self._page + 1 if self._page < last_page else first_page
