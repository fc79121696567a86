"""Event mode's link mark: a few pixels in the top right corner of every screen, nothing without it."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from companion.hw.keys import Key
from companion.ui import App
from companion.ui.canvas import ROW, WIDTH
from tests.ui.helpers import check_golden, make_app, press
from tests.ui.test_ui_golden import mid_trick

MARKS = ("!", "~", "x")  # no broker, behind, refused (companion.uplink.publisher.LinkStatus)
CELL = 6  # one misaki character (4 px) with a dark pixel either side


def changed_box(before: Image.Image, after: Image.Image) -> tuple[int, int, int, int] | None:
    return ImageChops.difference(before.convert("L"), after.convert("L")).getbbox()


def screens() -> dict[str, App]:
    """A screen with a lit title bar under the corner, and one with a plain top row."""
    return {"setup form": make_app(), "trick entry": mid_trick()}


@pytest.mark.parametrize("screen", ["setup form", "trick entry"])
@pytest.mark.parametrize("mark", MARKS)
def test_a_mark_appears_in_its_corner_only_and_leaves_no_trace(screen: str, mark: str) -> None:
    app = screens()[screen]
    plain, version = app.render(), app.version
    app.show_status_mark(mark)
    marked = app.render()
    assert app.version > version  # the daemon redraws on a version change
    box = changed_box(plain, marked)
    assert box is not None and box[0] >= WIDTH - CELL and box[3] <= ROW, box  # inside the top right cell
    cell = marked.crop((WIDTH - CELL, 0, WIDTH, ROW))
    assert not any(cell.getpixel((0, y)) for y in range(ROW))  # a dark edge keeps it apart from the row
    assert any(cell.getpixel((x, y)) for x in range(1, CELL - 1) for y in range(ROW))  # the mark itself
    app.show_status_mark("")
    assert app.render().tobytes() == plain.tobytes() and app.version > version + 1


def test_each_mark_looks_different_and_all_well_draws_nothing() -> None:
    app = mid_trick()
    plain, version = app.render().tobytes(), app.version
    app.show_status_mark("")  # event mode with all well: the same picture as without event mode
    assert (app.render().tobytes(), app.version) == (plain, version)
    drawn = set()
    for mark in MARKS:
        app.show_status_mark(mark)
        drawn.add(app.render().crop((WIDTH - CELL, 0, WIDTH, ROW)).tobytes())
    assert len(drawn) == len(MARKS)


def test_the_mark_stays_on_every_screen_until_it_changes() -> None:
    app = make_app()
    app.show_status_mark("!")
    corner = app.render().crop((WIDTH - CELL, 0, WIDTH, ROW)).tobytes()
    app.handle(press(Key.BACK))  # the menu opens over the form: another screen, the same corner
    app.handle(press(Key.LEFT))  # a key with a refusal or a change: the mark is drawn after it too
    for key in (Key.DOWN, Key.OK):
        app.handle(press(key))
        assert app.render().crop((WIDTH - CELL, 0, WIDTH, ROW)).tobytes() == corner
    assert app.status_mark == "!"


def test_golden_status_mark() -> None:
    app = mid_trick()
    app.show_status_mark("!")
    check_golden(app, "status-mark", docs=True)
