"""The misaki font ships in the package: Japanese screens need nothing but ``pip install``."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

from PIL import Image

from companion.ui.canvas import SHIPPED_MISAKI, Typeface

ROOT = Path(__file__).parents[2]


def test_the_shipped_font_is_found_first_and_draws_kana() -> None:
    face = Typeface.find()
    assert face.path == SHIPPED_MISAKI and face.japanese
    image = Image.new("1", (128, 64), 0)
    face.draw(image, 0, 0, "蝶", 1)
    assert image.getbbox() is not None and image.getbbox()[3] <= 8  # drawn, inside its row


def test_the_font_ships_unmodified_with_its_licence_notice() -> None:
    notice = (SHIPPED_MISAKI.parent / "NOTICE.txt").read_text(encoding="utf-8")
    digest = hashlib.sha256(SHIPPED_MISAKI.read_bytes()).hexdigest()
    assert f"sha256 {digest}" in notice
    assert "Unlimited permission is granted to use, copy, and distribute it" in notice
    assert "ライセンス" in (SHIPPED_MISAKI.parent / "misaki.txt").read_text(encoding="utf-8")


def test_package_data_takes_every_font_file() -> None:
    """The wheel holds what pyproject's package-data patterns match under companion/data."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["companion.data"]
    data = ROOT / "companion" / "data"
    packaged = {path for pattern in patterns for path in data.glob(pattern)}
    fonts = set((data / "fonts").iterdir())
    assert fonts and fonts <= packaged
