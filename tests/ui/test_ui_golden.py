"""The main screens, pixel for pixel. ``UPDATE_GOLDEN=1 pytest tests/ui`` redraws the goldens (and
the 4x copies in docs/img); look at the PNGs before committing them."""

from __future__ import annotations

import random
from typing import Any

import pytest
from PIL import Image

from companion.hw.keys import Key
from companion.sim import random_game
from companion.ui import App
from companion.ui.tricks import ResultScreen
from tests.ui.helpers import (
    DOCS_IMG,
    GOLDEN,
    check_golden,
    choose_game,
    enter,
    make_app,
    new_game,
    press,
    renamed,
    texts,
)

DRAFT = ["penalty R", "penalty B", "penalty U", "penalty W", "scoring 1", "scoring 2", "scoring 3", "scoring 4"]
ABILITIES = ["paper-egg", "horse-swallowing", "butterfly-dance", "five-color-sand", "baby-chicks", "pail-dance"]
HELD = ["ability paper-egg", "ability horse-swallowing", "ability butterfly-dance", "ability five-color-sand"]
# Example 5 of the 2015 book: P1 takes four tricks holding two ring cards (the last trick is entered by keys)
DEAL = ["B9", "B1", "B2", "B3", "B8", "B4", "B5", "B6", "U9", "U2", "U3", "R1", "U8", "U4", "U5", "R2",
        "BT", "B7", "BT", "BT", "W9", "W1", "W2", "W3", "W8", "W4", "W5", "W6", "W7", "WT", "WT", "WT",
        "U7", "U6", "R3", "U1", "UT", "UT", "R4", "UT", "R9", "R5", "R6", "R7"]


def game_after(*lines: str) -> Any:
    game = new_game(abilities=ABILITIES)
    for line in lines:
        game.push_text(line)
    return game


def keys(app: App, *names: str) -> App:
    for name in names:
        long = name.endswith("!")
        app.handle(press(Key[name.rstrip("!")], long))
    return app


def mid_trick(language: str = "en") -> App:
    """Trick 2: P1 led U5, P2 played U8 with Horse-Swallowing; P3 to play."""
    return make_app(game_after(*DRAFT, *HELD, "B7", "B2", "B6", "B3", "U5", "U8 horse-swallowing"),
                    language=language)


def test_setup() -> None:
    app = make_app()
    choose_game(app, "tezuma")
    check_golden(app, "setup")


def test_draft() -> None:
    check_golden(make_app(game_after(*DRAFT[:2])), "draft", docs=True)


def test_trick_entry() -> None:
    check_golden(mid_trick(), "trick-entry", docs=True)


def test_trick_entry_japanese() -> None:
    check_golden(mid_trick("ja"), "trick-entry-ja", docs=True)


def test_trick_entry_with_the_ability_armed() -> None:
    check_golden(keys(mid_trick(), "AUX"), "trick-armed")


def test_a_refused_key() -> None:
    app = make_app(game_after(*DRAFT, *HELD))
    check_golden(keys(app, "OK!"), "refused")  # P1 leads: Paper Egg is not for the lead


def test_result_with_its_reason() -> None:
    game = game_after(*DRAFT, *HELD, "B7", "B2", "B6", "B3", "U5", "U8 horse-swallowing")
    app = make_app(game)
    enter(app, texts(game, "UT butterfly-dance", "U2"))
    check_golden(keys(app, "BACK", "DOWN", "OK", "OK"), "result")  # menu, history, this trick


def test_result_decided_by_a_house_ruling() -> None:
    game = game_after(*DRAFT, "ability baby-chicks", "ability pail-dance", "ability horse-swallowing",
                      "ability paper-egg", "B5 baby-chicks", "B3 pail-dance", "B7")
    app = make_app(game)
    enter(app, texts(game, "B2"))
    check_golden(app, "result-house", docs=True)


def test_revoke_alert() -> None:
    game = game_after(*DRAFT, *HELD, "B7", "U2", "B6", "B3", "R9")
    app = make_app(game)
    enter(app, texts(game, "B1"))
    check_golden(app, "revoke")


def end_of_deal() -> App:
    game = game_after(*DRAFT, *HELD, *DEAL)
    app = make_app(game)
    enter(app, texts(game, "R8", "RT", "RT", "RT"))
    return keys(app, "OK")  # past the last trick's result


def test_question_for_a_lost_card_fact() -> None:
    check_golden(end_of_deal(), "question")


def test_deal_table_and_bar_chart() -> None:
    app = keys(end_of_deal(), "UP", "UP", "UP", "OK", "RIGHT", "OK", "OK")  # 3, 5, 0 points
    check_golden(app, "deal-table", docs=True)
    check_golden(keys(app, "RIGHT"), "deal-chart")


def test_final_ranking() -> None:
    game = renamed(random_game("tezuma", 4, random.Random(5), ability_rate=0.3))
    assert game.is_over()
    check_golden(make_app(game), "final")


def test_history() -> None:
    game = game_after(*DRAFT, *HELD, "B7", "B2", "B6", "B3", "U5", "U8 horse-swallowing", "UT butterfly-dance", "U2",
                      "B9", "five-color-sand", "B8", "B1")
    check_golden(keys(make_app(game), "BACK", "DOWN", "OK"), "history")


def test_settings() -> None:
    check_golden(keys(make_app(new_game()), "BACK", "DOWN", "DOWN", "DOWN", "OK"), "settings")


def test_settings_and_menu_in_japanese() -> None:
    """The screens a Japanese table reads first: a highlighted row right under the title bar keeps
    its margins and stays apart from the bar."""
    app = keys(make_app(new_game(), language="ja"), "BACK")
    check_golden(app, "menu-ja")
    check_golden(keys(app, "DOWN", "DOWN", "DOWN", "OK", "DOWN"), "settings-ja")


def test_undo_confirmation() -> None:
    check_golden(keys(mid_trick(), "BACK!"), "undo")


@pytest.mark.parametrize("name", ["setup", "trick-entry"])
def test_goldens_are_one_bit_128_by_64(name: str) -> None:
    with Image.open(GOLDEN / f"{name}.png") as image:
        assert image.size == (128, 64) and image.mode == "1"


@pytest.mark.parametrize("name", sorted(path.stem for path in DOCS_IMG.glob("*.png")))
def test_the_readme_pictures_are_the_goldens_scaled(name: str) -> None:
    """README shows what the tests check: each picture is its golden image at 4x, nothing retouched."""
    with Image.open(GOLDEN / f"{name}.png") as golden, Image.open(DOCS_IMG / f"{name}.png") as shown:
        scaled = golden.convert("L").resize((golden.width * 4, golden.height * 4), Image.Resampling.NEAREST)
        assert shown.convert("L").tobytes() == scaled.tobytes()


def test_a_result_decided_by_a_house_ruling_waits_for_ok() -> None:
    """The next entry may begin over a plain result, not over a house ruling's: an arrow or a digit
    leaves it on the glass; OK goes on."""
    game = game_after(*DRAFT, "ability baby-chicks", "ability pail-dance", "ability horse-swallowing",
                      "ability paper-egg", "B5 baby-chicks", "B3 pail-dance", "B7")
    app = make_app(game)
    enter(app, texts(game, "B2"))
    result = app.top
    assert isinstance(result, ResultScreen) and not result.passable()
    keys(app, "RIGHT")
    app.handle(press(Key.N3))
    assert app.top is result
    keys(app, "OK")
    assert app.top is not result


def test_the_table_pages_address_as_a_qr_code() -> None:
    """On the menu when the device serves the page: modules 2x2 pixels, dark on a lit field, exactly
    segno's symbol of the address (what a phone's camera reads), the address written beside it."""
    import segno

    url = "http://192.168.1.23:8080/"
    app = keys(make_app(new_game(), page_url=url), "BACK")
    assert app.top.items[4] == "Table page (QR)"
    image = keys(app, "DOWN", "DOWN", "DOWN", "DOWN", "OK").render()
    check_golden(app, "table-page-qr", docs=True)
    modules = segno.make_qr(url, error="l", boost_error=True).matrix
    quiet, scale, top = 2, 2, (64 - (len(modules) + 4) * 2) // 2
    drawn = [[image.getpixel(((column + quiet) * scale, top + (row + quiet) * scale)) == 0
              for column in range(len(modules))] for row in range(len(modules))]
    assert drawn == [[bool(dark) for dark in line] for line in modules]
    assert all(image.getpixel((x, top)) for x in range(0, (len(modules) + 4) * 2))  # the lit margin


def test_no_page_no_qr_entry() -> None:
    assert "Table page (QR)" not in keys(make_app(new_game()), "BACK").top.items
