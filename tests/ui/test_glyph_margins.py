"""The margin check every golden image passes (tests/ui/margins.py), on frames made to fail it and
on the rows as they are: a title bar over a highlighted first row, in Japanese."""

from __future__ import annotations

import pytest

from companion.ui.canvas import GLYPH, Canvas, Drawn, Typeface
from tests.ui.margins import margin_faults

FACE = Typeface.find()


def test_an_eight_pixel_band_fails_the_check() -> None:
    """As the rows were: a kanji on a band of its own cell's 8 lines touches the band's top."""
    canvas = Canvas(FACE)
    canvas.fills.append(((0, 0, 127, GLYPH - 1), True))
    canvas.drawn.append(Drawn(1, 0, "設定", True, FACE.width("設定"), len(canvas.fills)))
    assert any("edge of its lit band" in fault for fault in margin_faults(canvas))


def test_a_plain_row_right_under_a_band_fails_the_check() -> None:
    canvas = Canvas(FACE)
    canvas.fills.append(((0, 0, 127, 8), True))
    canvas.drawn.append(Drawn(0, 9, "言語", False, FACE.width("言語"), len(canvas.fills)))
    assert any("touches a lit band" in fault for fault in margin_faults(canvas))


@pytest.mark.parametrize("text", ["設定", "言語", "> Settings", "Agjpy|_^"])
def test_the_title_bar_and_a_highlighted_first_row_keep_their_margins(text: str) -> None:
    canvas = Canvas(FACE)
    canvas.title(text)
    canvas.text(1, text, invert=True)
    canvas.text(2, text)
    canvas.cell(120, 3, 6, "切", invert=True)  # a kanji wider than its cell
    assert margin_faults(canvas) == []


def test_a_later_fill_hides_what_it_covers_from_the_text_model() -> None:
    """A refusal drawn over the bottom rows: the seat rows under it are no longer on the glass."""
    canvas = Canvas(FACE)
    canvas.text(5, "P5 Emi")
    canvas.lines(4, 3, "Paper Egg cannot be used by the lead player", invert=True)
    assert "P5 Emi" not in canvas.texts and margin_faults(canvas) == []
