"""Where the screens' text rows lie on the 128x64 panel: a title row and six rows, 9 pixels each.

misaki gothic draws every glyph in the top 7 lines of its 8-pixel cell, so a row is one line
above the glyphs and the cell; a lit row (a cursor, the title bar) is lit over its 9 lines, and
one dark line sets the title row apart from the row under it. The screens draw on these rows
(``companion/ui/canvas.py``) and mock mode's terminal view finds lit rows by them
(``companion/hw/terminal.py``), which may not import the screens: the geometry lives here.
"""

from __future__ import annotations

from itertools import pairwise

GLYPH = 8  # the font's cell: glyphs use its top 7 lines, the 8th is always blank
ROW = 9  # a text row's pitch: a line above the glyphs, then the glyph cell
TITLE_GAP = 1  # dark lines between the title row and the first row under it
ROWS = 7  # the title row and six rows: 9 + 1 + 6 x 9 = 64


def row_top(row: int) -> int:
    """The first pixel line of ``row`` (0 is the title row; the others sit one dark line under it).

    >>> [row_top(row) for row in range(ROWS)]
    [0, 10, 19, 28, 37, 46, 55]
    """
    return 0 if row <= 0 else row * ROW + TITLE_GAP


def glyph_top(row: int) -> int:
    """Where ``row``'s glyph cells start: one line under the row's top, so a lit row frames them."""
    return row_top(row) + 1


def bands(height: int) -> list[range]:
    """The pixel lines of ``height``, top to bottom, in the bands a row or the gap under the title makes.

    >>> [(band.start, band.stop) for band in bands(64)][:3]
    [(0, 9), (9, 10), (10, 19)]
    """
    tops = sorted({row_top(row) for row in range(ROWS)} | {ROW})
    edges = [top for top in tops if top < height] + [height]
    return [range(start, stop) for start, stop in pairwise(edges)]
