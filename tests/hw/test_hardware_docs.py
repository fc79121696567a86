"""hardware/ documents must agree with the board files they describe."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.hw.boards import list_presets, load_board, markdown_pin_table
from companion.hw.display import open_display, parse_display_args

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
README = (HARDWARE / "README.md").read_text(encoding="utf-8")
TABLE = re.compile(r"<!-- pin-table: (?P<name>\S+) -->\n(?P<table>.*?)<!-- /pin-table -->", re.S)
BOARDS = [*list_presets(), str(HARDWARE / "custom-board.example.toml")]


def readme_tables() -> dict[str, str]:
    return {match["name"]: match["table"] for match in TABLE.finditer(README)}


@pytest.mark.parametrize("board", BOARDS)
def test_readme_pin_table_matches_the_board_file(board: str) -> None:
    loaded = load_board(board)
    assert readme_tables().get(loaded.name) == markdown_pin_table(loaded), (
        f"regenerate the {loaded.name} table in hardware/README.md with markdown_pin_table()")


def test_readme_has_no_table_for_a_board_that_does_not_exist() -> None:
    assert set(readme_tables()) == {load_board(board).name for board in BOARDS}


def test_readme_full_frame_figures_are_what_luma_sends() -> None:
    row = re.search(r"\| full frame, luma's own `display\(\)` \| (\d+) \| (\d+) \|", README)
    assert row is not None
    for driver, documented in zip(("ssd1306", "sh1106"), row.groups(), strict=True):
        display = open_display(parse_display_args(["--display", driver]), recording=True)
        assert display.bus is not None
        display.bus.start_frame()
        display.device.clear()                      # luma's own full-frame display()
        assert display.bus.frame_bytes == int(documented)


def test_parts_list_marks_every_price_approximate() -> None:
    parts = (HARDWARE / "parts-list.md").read_text(encoding="utf-8")
    assert "approximate" in parts.lower()
    before_prices = re.findall(r"(.)\$\d", parts)
    assert before_prices and set(before_prices) == {"~"}
