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


POINTER_COMMANDS = st.one_of(st.integers(0x00, 0x1F), st.integers(0xB0, 0xB7)).map(lambda opcode: [opcode])
SSD1306_COMMANDS = st.one_of(
    POINTER_COMMANDS,
    st.sampled_from([[0x20, 0x00], [0x20, 0x02]]),  # horizontal or page addressing
    st.tuples(st.sampled_from([0x21, 0x22]), st.integers(0, 255), st.integers(0, 255)).map(list),  # any window
)


def store_byte_by_byte(model: PanelModel, payload: bytes) -> None:
    """The datasheets' rule, one byte at a time: store at the pointer, then step it (page
    addressing: along the page, round to its start; horizontal: along the window's columns, then
    to the next page of the window, round to its first)."""
    for byte in payload:
        model._ram[model._page * model._columns + model._column % model._columns] = byte
        if model._mode == 0x02:
            model._column = (model._column + 1) % model._columns
        elif model._column < model._column_window[1]:
            model._column += 1
        else:
            model._column = model._column_window[0]
            model._page = model._page + 1 if model._page < model._page_window[1] else model._page_window[0]


@given(st.sampled_from(["ssd1306", "sh1106"]), st.data())
def test_a_write_lands_as_the_controller_stores_it_byte_by_byte(controller: str, data: st.DataObject) -> None:
    """The model stores a write a run at a time (up to where the pointer wraps): the same RAM and
    pointer as the byte-by-byte rule, whatever the addressing mode, window and pointer (outside
    the window or RAM too) and wherever a write ends."""
    model, reference = PanelModel(controller), PanelModel(controller)
    commands = SSD1306_COMMANDS if controller == "ssd1306" else POINTER_COMMANDS
    for _ in range(data.draw(st.integers(1, 6))):
        command, payload = data.draw(commands), data.draw(st.binary(max_size=300))
        model.command(command)
        reference.command(command)
        model.data(payload)
        store_byte_by_byte(reference, payload)
        assert (model._ram, model._column, model._page) == (reference._ram, reference._column, reference._page)


def test_a_window_past_the_last_ram_column_goes_on_from_column_zero() -> None:
    model = PanelModel("ssd1306")
    model.command([0x20, 0x00, 0x21, 126, 129, 0x22, 0, 0])  # horizontal, columns 126-129 of page 0
    model.data([0x01, 0x01, 0x03, 0x07, 0x0F])               # 128 and 129 are RAM columns 0 and 1; back to 126
    assert lit(model) == {(126, y) for y in range(4)} | {(127, 0), (0, 0), (0, 1)} | {(1, y) for y in range(3)}


def test_a_write_ending_before_the_window_edge_leaves_the_pointer_inside_it() -> None:
    model = PanelModel("ssd1306")
    model.command([0x20, 0x00, 0x21, 0, 3, 0x22, 0, 1])  # horizontal, 4 columns x 2 pages
    model.data([0x01] * 3)
    model.data([0x01, 0x01])                             # column 3 of page 0, then column 0 of page 1
    assert lit(model) == {(0, 0), (1, 0), (2, 0), (3, 0), (0, 8)}


@given(st.integers(1, 16), st.sampled_from([8, 16, 64]), st.data())
def test_pack_and_unpack_are_inverse(width: int, height: int, data: st.DataObject) -> None:
    bits = data.draw(st.lists(st.booleans(), min_size=width * height, max_size=width * height))
    image = Image.new("1", (width, height))
    image.putdata([255 if bit else 0 for bit in bits])
    assert unpack_pages(pack_pages(image), image.size).tobytes() == image.tobytes()
