"""Wrapping and fitting text on the panel: the same lines as plain greedy breaking, measured in one
pass (a 5,000-character value once froze the start-up for 40 s), and user values quoted short."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.daemon.virtual import VirtualDevice
from companion.errors import QUOTED_CHARS
from companion.record import export_lines
from companion.sim import random_game
from companion.ui.canvas import ELLIPSIS, MISAKI_PATHS, Typeface

FACES = {"misaki": Typeface.find(MISAKI_PATHS), "bitmap": Typeface.find(())}
TEXT = st.text(alphabet="abcWiI1 .,;アカ漢字…\u200b\u0301", max_size=160)


def greedy_lines(face: Typeface, words: list[str], width: int) -> list[str]:
    """The definition, line by line: a line starts at the next word that is not empty (an empty
    word is where two spaces met) and holds the most words that fit, joined by spaces. A word wider
    than a whole line (a Japanese run has no spaces) does not start a line of its own: it goes on
    after the words so far, and the run is cut at the longest start that fits (one character at
    least), the spaces at the cut dropped; its rest begins the next line."""
    while words and not words[0]:
        words = words[1:]
    if not words:
        return []
    count = 0
    while count < len(words) and face.width(" ".join(words[: count + 1])) <= width:
        count += 1
    if count == len(words) or (count and face.width(words[count]) <= width):
        return [" ".join(words[:count]), *greedy_lines(face, words[count:], width)]
    run = " ".join(words[: count + 1])
    cut = max([1] + [n for n in range(1, len(run)) if face.width(run[:n]) <= width])
    return [run[:cut].rstrip(" "), *greedy_lines(face, [run[cut:].lstrip(" "), *words[count + 1:]], width)]


def greedy_fit(face: Typeface, text: str, width: int) -> str:
    if face.width(text) <= width:
        return text
    ends = [n for n in range(len(text) + 1) if face.width(text[:n] + ELLIPSIS) <= width]
    return text[: max(ends, default=0)] + ELLIPSIS


@pytest.mark.parametrize("face", FACES.values(), ids=FACES.keys())
@given(text=TEXT, width=st.sampled_from([128, 127, 64, 30, 5, 1]))
def test_wrap_and_fit_are_plain_greedy(face: Typeface, text: str, width: int) -> None:
    assert face.wrap(text, width) == greedy_lines(face, text.split(" "), width)
    assert face.fit(text, width) == greedy_fit(face, text, width)


class CountingFont:
    """A font that counts the characters it was asked to measure."""

    def __init__(self, font: Any) -> None:
        self.font = font
        self.measured = 0

    def getlength(self, text: str, *args: Any, **kwargs: Any) -> float:
        self.measured += len(text)
        return float(self.font.getlength(text, *args, **kwargs))


@pytest.mark.parametrize("text", ["Z" * 5000, "ア" * 5000, "word " * 1000, "\u200b" * 2500 + "W" * 2500])
def test_wrapping_a_long_value_measures_each_character_a_bounded_number_of_times(text: str) -> None:
    face = Typeface(MISAKI_PATHS[0])
    counting = CountingFont(face._font)
    face._font = counting  # type: ignore[assignment]
    lines = face.wrap(text, 128)
    face.fit(text, 128)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert counting.measured <= 12 * len(text)  # measuring ever-shorter prefixes was about len² / 2


def test_a_journal_line_with_a_long_value_is_named_short_on_the_screen(tmp_path: Path) -> None:
    lines = export_lines(random_game("tezuma", 3, random.Random(1)))[:12]
    draft = json.loads(lines[5])
    lines[5] = json.dumps({**draft, "card": "Z" * 5000})
    (tmp_path / "current.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    device = VirtualDevice(tmp_path)
    try:
        [message] = device.device.startup_messages
        assert "5000 characters" in message and "Z" * (QUOTED_CHARS + 1) not in message
        assert len(message) < 400
    finally:
        device.close()
