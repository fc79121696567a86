"""The controller RAM model, byte by byte (independent of luma)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from companion.hw.panel import PanelModel, pack_pages, unpack_pages


def lit(model: PanelModel) -> set[tuple[int, int]]:
    image = model.image()
    return {(x, y) for x in range(image.width) for y in range(image.height)
            if image.getpixel((x, y))}


def test_ssd1306_horizontal_window_wraps_to_the_next_page() -> None:
    model = PanelModel("ssd1306")
    model.command([0x20, 0x00])                       # horizontal addressing
    model.command([0x21, 10, 11, 0x22, 2, 3])         # 2 columns x 2 pages
    model.data([0x01, 0x80, 0x01, 0x80, 0xFF])        # the fifth byte wraps to the start
    assert lit(model) == {(10, 16), (11, 23), (10, 24), (11, 31)} | {(10, y) for y in range(16, 24)}


def test_ssd1306_starts_in_page_mode_and_ignores_page_commands_in_horizontal_mode() -> None:
    model = PanelModel("ssd1306")
    model.command([0xB1, 0x05, 0x10])                 # page 1, column 5
    model.data([0x01])
    model.command([0x20, 0x00, 0xB3, 0x00, 0x10])     # horizontal: B3/00/10 change nothing
    model.data([0x01])                                # column 6 of page 1, as before
    assert lit(model) == {(5, 8), (6, 8)}


def test_sh1106_shows_ram_from_column_two() -> None:
    model = PanelModel("sh1106")
    model.command([0xB0, 0x00, 0x10])                 # RAM column 0: off the glass
    model.data([0xFF, 0xFF, 0x01])
    assert lit(model) == {(0, 0)}


def test_arguments_are_not_mistaken_for_commands_even_across_calls() -> None:
    model = PanelModel("sh1106")
    model.command([0xA8])                             # multiplex; 0x3F would be "column 15"
    model.command([0x3F, 0x81])
    model.command([0x40, 0xAF])                       # contrast 0x40, then display on
    assert (model.contrast, model.display_on) == (0x40, True)
    model.command([0xB0, 0x02, 0x10])
    model.data([0x01])
    assert lit(model) == {(0, 0)}


def test_unmodelled_addressing_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="addressing mode 0x01"):
        PanelModel("ssd1306").command([0x20, 0x01])
    with pytest.raises(ValueError, match="no model for controller 'ssd1351'"):
        PanelModel("ssd1351")


@given(st.integers(1, 16), st.sampled_from([8, 16, 64]), st.data())
def test_pack_and_unpack_are_inverse(width: int, height: int, data: st.DataObject) -> None:
    bits = data.draw(st.lists(st.booleans(), min_size=width * height, max_size=width * height))
    image = Image.new("1", (width, height))
    image.putdata([255 if bit else 0 for bit in bits])
    assert unpack_pages(pack_pages(image), image.size).tobytes() == image.tobytes()
