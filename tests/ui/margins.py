"""Whether every glyph keeps its distance from the lit bands: the check each golden image passes,
in English and in Japanese (:func:`tests.ui.helpers.check_golden` runs it)."""

from __future__ import annotations

from PIL import Image

from companion.ui.canvas import HEIGHT, WIDTH, Canvas

NEIGHBOURS_8 = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
NEIGHBOURS_4 = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def band_mask(canvas: Canvas) -> Image.Image:
    """Every pixel inside a lit band (title bar, inverted row or cell) of ``canvas``."""
    mask = Image.new("1", (WIDTH, HEIGHT), 0)
    for (x0, y0, x1, y1), lit in canvas.fills:
        mask.paste(1 if lit else 0, (x0, y0, x1 + 1, y1 + 1))
    return mask


def margin_faults(canvas: Canvas) -> list[str]:
    """Where a glyph touches a band's edge: a dark glyph pixel with a neighbour (diagonals too)
    outside every band (the panel's edge counts as outside), or a lit glyph pixel of plain text
    right beside a band. Empty when every glyph has its margin."""
    bands = band_mask(canvas)

    def in_band(x: int, y: int) -> bool:
        return 0 <= x < WIDTH and 0 <= y < HEIGHT and bool(bands.getpixel((x, y)))

    faults: list[str] = []
    for drawn in canvas.drawn:
        if canvas.covered(drawn):
            continue
        glyphs = canvas.face.mask(drawn.text, WIDTH - drawn.x)
        pixels = [(drawn.x + gx, drawn.y + gy) for gy in range(glyphs.height) for gx in range(glyphs.width)
                  if glyphs.getpixel((gx, gy)) and drawn.y + gy < HEIGHT]
        around = NEIGHBOURS_8 if drawn.dark else NEIGHBOURS_4
        for x, y in pixels:
            touching = [(x + dx, y + dy) for dx, dy in around if in_band(x + dx, y + dy) != drawn.dark]
            if touching:
                where = "the edge of its lit band" if drawn.dark else "a lit band"
                faults.append(f"{drawn.text!r}: glyph pixel {(x, y)} touches {where} at {touching[0]}")
                break
    title = [box for box, lit in canvas.fills if lit and box[:3] == (0, 0, WIDTH - 1)]
    for _, _, _, bottom in title:
        if any(in_band(x, bottom + 1) for x in range(WIDTH)):
            faults.append("a lit band touches the title bar from below")
    return faults
