"""Catalogues, reasons said from codes, and the font fallback (tests/engine/test_tezuma_reasons.py checks
the English reasons against the engine's former sentences, trick for trick)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from companion import text
from companion.errors import ConfigError
from companion.games.tezuma.rules import TezumaGame
from companion.games.tezuma.screens import TezumaUI
from companion.session import Session
from companion.text import CHECKED_FILE, Catalog, check_seat_names, load_seat_names
from companion.ui.canvas import Typeface
from tests.ui.helpers import make_app, new_game


class Speaker:
    """The little of the app that the screens' words use, in a chosen language and without a font."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.catalog = Catalog.load()

    def t(self, key: str, **fields: object) -> str:
        return self.catalog.text(self.lang, key, **fields)

    def seat_label(self, seat: int) -> str:
        return self.t("seat.label", n=seat + 1)


def words(game: TezumaGame, lang: str) -> TezumaUI:
    """Tezuma's screens' words (the shared trick-game reasons and revokes) in ``lang``."""
    return TezumaUI(Speaker(lang), Session(game))  # type: ignore[arg-type]


def played(*lines: str, abilities: list[str] | None = None) -> TezumaGame:
    game = new_game(abilities=abilities or ["paper-egg", "pail-dance", "baby-chicks", "five-color-sand",
                                              "water-trick", "sword-walking"])
    for line in lines:
        game.push_text(line)
    assert isinstance(game, TezumaGame)
    return game


DRAFT = ["penalty R", "penalty B", "penalty U", "penalty W", "scoring 1", "scoring 2", "scoring 3", "scoring 4"]


def test_the_shipped_catalogues_agree_and_the_seat_names_fit() -> None:
    catalog = Catalog.load()
    assert catalog.languages == ("en", "ja")
    assert catalog.text("ja", "trick.armed", ability="紙卵", uses=3) == "紙卵 残り3回"
    assert all(len(names) >= 4 for names in load_seat_names().values())


def test_a_catalogue_missing_a_key_is_refused_at_load() -> None:
    with pytest.raises(ConfigError, match=r"i18n/ja.json: missing keys \['b'\]"):
        Catalog({"en": {"a": "A", "b": "B"}, "ja": {"a": "あ"}})


def mistyped_japanese(shipped: Callable[[str], bytes]) -> Callable[[str], bytes]:
    """The shipped catalogue files, the Japanese one with a placeholder of one template misspelt."""
    def read(name: str) -> bytes:
        data = shipped(name)
        return data.replace(b"{trick}", b"{tricks}", 1) if name == "ja.json" else data
    return read


def test_the_device_checks_the_text_once_per_content_and_still_refuses_a_mistyped_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = tmp_path / "cache" / CHECKED_FILE
    first = Catalog.load(checked=checked)
    assert checked.is_file() and first.text("ja", "trick.armed", ability="紙卵", uses=3) == "紙卵 残り3回"
    remembered = checked.read_text(encoding="utf-8")

    parsed: list[str] = []
    monkeypatch.setattr(text, "_placeholders", lambda template: parsed.append(template) or set())
    again = Catalog.load(checked=checked)  # the same files: not parsed again, and the same text
    assert parsed == [] and again.text("ja", "trick.armed", ability="紙卵", uses=3) == "紙卵 残り3回"
    monkeypatch.undo()

    monkeypatch.setattr(text, "_read_shared", mistyped_japanese(text._read_shared))
    mistyped = r"i18n/ja.json: 'resume.trick' must use the placeholders \{deal\}, \{trick\}, as en.json does"
    with pytest.raises(ConfigError, match=mistyped):
        Catalog.load(checked=checked)
    assert checked.read_text(encoding="utf-8") == remembered  # what failed is not remembered as checked
    with pytest.raises(ConfigError, match=mistyped):
        Catalog.load()  # without a cache, as the PC tools load it


def test_a_cache_that_cannot_be_written_leaves_the_text_checked_at_every_load(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("", encoding="utf-8")
    catalog = Catalog.load(checked=not_a_folder / CHECKED_FILE)
    assert catalog.text("en", "menu.title") == "Menu" and not (not_a_folder / CHECKED_FILE).exists()


@pytest.mark.parametrize(
    "data", [{"en": ["A", "B", "C", "D"]}, {"en": ["A", "A", "C", "D"], "ja": ["あ", "い", "う", "え"]}]
)
def test_bad_seat_name_lists_are_refused(data: object) -> None:
    with pytest.raises(ConfigError, match=r"seat-names\.json"):
        check_seat_names(data)


def test_japanese_reasons_name_the_rule_the_suit_and_any_house_ruling() -> None:
    game = played(*DRAFT, "ability paper-egg", "ability pail-dance", "ability baby-chicks", "ability five-color-sand",
                  "B7", "B2 pail-dance", "B6 baby-chicks", "B3")
    trick = game.state.deal.tricks[0]
    assert trick.result is not None and trick.result.house
    assert words(game, "ja").reason(trick.result) == (
        "P1: 蝶の最高値(7)。次はP3がリード(ヒヨコ)。ハウスルール: 後から宣言したヒヨコが次のリードを決める")
    assert (
        words(game, "en").reason(trick.result, house=False) == "P1: highest butterfly (7); P3 leads next (Baby Chicks)"
    )


def test_revokes_and_questions_read_as_the_engine_writes_them() -> None:
    game = played(*DRAFT, "ability paper-egg", "ability pail-dance", "ability baby-chicks", "ability five-color-sand",
                  "B7", "U2", "B6", "B3", "R9", "B1")
    (revoke,) = game.state.revokes
    assert (
        words(game, "en").revoke_text(revoke)
        == "P2 did not follow butterfly in trick 1 of deal 1 but held it (shown in trick 2)"
    )
    assert (
        words(game, "ja").revoke_text(revoke)
        == "P2は第1ディール1トリックで蝶をフォローしなかったが、持っていた(2トリック目で判明)"
    )


def test_without_misaki_the_screens_fall_back_to_english_and_say_so(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        face = Typeface.find([tmp_path / "misaki_gothic.ttf"])
    assert not face.japanese and "misaki gothic not found" in caplog.text
    app = make_app(new_game(), language="ja", typeface=face)
    assert app.lang == "en" and app.t("menu.title") == "Menu"
    picture = app.render()
    assert picture.size == (128, 64) and picture.mode == "1" and picture.getbbox() is not None
    assert face.printable("蝶7") == "?7"


def test_a_japanese_run_fills_the_line_it_starts_on() -> None:
    """Japanese has no spaces: a run wider than a line goes on from the word before it and breaks
    anywhere, so a house ruling that begins with its name takes two rows, not three."""
    face = Typeface.find()
    text = "ハウスルール: 後から宣言した緒小桶の曲が次のリードを決める"
    lines = face.wrap(text, 128)
    assert len(lines) == 2 and lines[0].startswith("ハウスルール: 後") and "".join(lines) == text
    assert all(face.width(line) <= 128 for line in lines) and not any(line.startswith(" ") for line in lines)
    assert face.wrap("Shared win: Aki, Ben", 48) == ["Shared win:", "Aki, Ben"]  # Latin words stay whole
