"""Text in every language the device speaks, from the catalogues in ``companion/data/i18n``.

A catalogue is a flat JSON object of keys to ``str.format`` templates: the generic ``<lang>.json``
plus one fragment per game, ``text.<lang>.json`` in the game's package, so a new game brings its own text.
The engine never writes sentences: it gives :class:`~companion.engine.tricks.Phrase` codes, and
:class:`Formatter` turns them into text for the screens and for ``companion replay`` alike. Every
language must define the same keys with the same placeholders, so a missing or mistyped translation stops the program at
start-up with a message naming the file and key, instead of leaving a blank on the glass mid-game
(the device checks them once per content of the files: :meth:`Catalog.load`'s ``checked``).

>>> catalog = Catalog({"en": {"hello": "Hi {name}"}, "ja": {"hello": "{name}さん"}})
>>> catalog.text("ja", "hello", name="Aki")
'Akiさん'
>>> Catalog({"en": {"hello": "Hi {name}"}, "ja": {"hello": "やあ"}})
Traceback (most recent call last):
...
companion.errors.ConfigError: i18n/ja.json: 'hello' must use the placeholders {name}, as en.json does
"""

from __future__ import annotations

import json
import string
import unicodedata
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import __version__
from companion.errors import ConfigError
from companion.paths import package_files
from companion.registry import plugins

if TYPE_CHECKING:  # the engine loads with the first game: the setup form a device starts on needs text, not rules
    from companion.engine.tricks import Phrase, Term

LANGUAGES = ("en", "ja")
CHECKED_FILE = "text-checked"
"""In the device's cache directory: the digest of the text files that last passed the check."""
SEAT_NAMES_FILE = "seat-names.json"
NAME_CELLS = 4  # a seat name fits a 16-pixel field: 4 half-width or 2 full-width characters


def printable(text: object, limit: int | None = 200) -> str:
    """``text`` with every control or format character (C0, C1, DEL, bidi overrides) as ``?``,
    cut to ``limit`` characters (None: never cut)."""
    value = str(text)
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    return "".join("?" if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in value)


def _read(name: str) -> Any:
    """The shared catalogue file ``i18n/<name>``, read."""
    return _parse_json(_read_shared(name), f"i18n/{name}")


def _read_shared(name: str) -> bytes:
    """The shared catalogue file ``i18n/<name>``'s bytes."""
    return _read_bytes(package_files("companion.data").joinpath("i18n", *name.split("/")), f"i18n/{name}")


def _read_bytes(path: Path, where: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{where} is missing from the package") from None


def _parse_json(data: bytes, where: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except json.JSONDecodeError as err:
        raise ConfigError(f"{where}: not valid JSON ({err})") from None


def _digest(files: Mapping[str, bytes]) -> str:
    """What a catalogue's files hold, in a line: the program's version, the files' names and bytes
    as one CRC-32, and their size. It tells a changed file from the one last checked; it is no
    seal (whoever can change the package's text can change its code)."""
    crc = 0
    for where, data in files.items():
        crc = zlib.crc32(data, zlib.crc32(where.encode("utf-8"), crc))
    return f"{__version__} {crc:08x} {sum(map(len, files.values()))}"


def _checked_before(checked: Path, digest: str) -> bool:
    try:
        return checked.read_text(encoding="utf-8") == digest
    except (OSError, UnicodeDecodeError):  # none yet, or unreadable: the text is checked again
        return False


def _remember_checked(checked: Path, digest: str) -> None:
    """Keep ``digest`` as the content last checked. Where the cache cannot be written, every start
    checks the text again, as every start did before there was a cache."""
    try:
        checked.parent.mkdir(parents=True, exist_ok=True)
        checked.write_text(digest, encoding="utf-8")  # a torn write equals no digest: checked again
    except OSError:
        pass


def _placeholders(template: str) -> set[str]:
    if "{" not in template and "}" not in template:  # most templates: nothing to parse
        return set()
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


def _check(tables: Mapping[str, Mapping[str, str]]) -> None:
    """Every language has the English keys, no others, and the placeholders of each key's English template."""
    if "en" not in tables:
        raise ConfigError("the English catalogue (i18n/en.json) is required: it defines the keys")
    reference = tables["en"]
    for lang, table in tables.items():
        if not isinstance(table, Mapping) or not all(isinstance(v, str) for v in table.values()):
            raise ConfigError(f"i18n/{lang}.json must be an object of strings")
        missing = sorted(set(reference) - set(table))
        extra = sorted(set(table) - set(reference))
        if missing or extra:
            raise ConfigError(f"i18n/{lang}.json: missing keys {missing}, unknown keys {extra}")
    for lang, table in tables.items():
        if lang == "en":
            continue
        for key, template in table.items():
            wanted = _placeholders(reference[key])
            if _placeholders(template) != wanted:
                names = ", ".join(f"{{{name}}}" for name in sorted(wanted)) or "no placeholders"
                raise ConfigError(f"i18n/{lang}.json: {key!r} must use the placeholders {names}, as en.json does")


def cells(text: str) -> int:
    """Width in half-width cells: ASCII takes one, kana and kanji take two.

    >>> cells("Aki"), cells("あき")
    (3, 4)
    """
    return sum(1 if ord(char) < 0x80 else 2 for char in text)


class Catalog:
    """Templates by language and key; ``text`` fills one in."""

    def __init__(self, tables: Mapping[str, Mapping[str, str]], *, checked_before: bool = False) -> None:
        """``checked_before``: the tables are a content that passed the check before (:meth:`load`
        with ``checked``), so it is not checked again."""
        if not checked_before:
            _check(tables)
        self._tables = {lang: dict(table) for lang, table in tables.items()}

    @classmethod
    def load(cls, checked: Path | None = None) -> Catalog:
        """The catalogues shipped in the package, one per language in :data:`LANGUAGES`.

        ``checked``, a file in the device's cache directory, keeps the digest of the files that last
        passed the check: a start on the same files skips checking them again (parsing every
        template was a tenth of the work a start does of its own), and a start on changed files
        checks them whole, so a mistyped translation still stops it."""
        files = {f"i18n/{lang}.json": _read_shared(f"{lang}.json") for lang in LANGUAGES}
        fragments: list[tuple[str, str]] = []  # (language, file)
        for game in plugins():
            for lang in LANGUAGES:
                name = game.text_file(lang)
                if name is not None:
                    where = f"games/{game.module}/{name}"
                    files[where] = _read_bytes(package_files(game.package) / name, where)
                    fragments.append((lang, where))
        tables = {lang: _parse_json(files[f"i18n/{lang}.json"], f"i18n/{lang}.json") for lang in LANGUAGES}
        for lang, where in fragments:
            fragment = _parse_json(files[where], where)
            clash = sorted(set(fragment) & set(tables[lang]))
            if clash:
                raise ConfigError(f"{where}: keys {clash} are defined twice")
            tables[lang] = {**tables[lang], **fragment}
        if checked is None:
            return cls(tables)
        digest = _digest(files)
        if _checked_before(checked, digest):
            return cls(tables, checked_before=True)
        catalog = cls(tables)  # refused here if the text is wrong: nothing is remembered
        _remember_checked(checked, digest)
        return catalog

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self._tables)

    def text(self, lang: str, key: str, **fields: object) -> str:
        return self._tables[lang][key].format(**fields)

    def has(self, key: str) -> bool:
        return key in self._tables["en"]

    def worded(self, key: str, wording: str) -> str:
        """``key``, or a game's own wording of it, ``<wording>.<key>``, where the game's fragment has one
        (a game whose book names a thing otherwise says it its way on every screen and in replays).

        >>> catalog = Catalog({"en": {"deal.title": "Deal {n}", "zen.deal.title": "Round {n}"}})
        >>> catalog.worded("deal.title", "zen"), catalog.worded("deal.title", "")
        ('zen.deal.title', 'deal.title')
        """
        own = f"{wording}.{key}"
        return own if wording and own in self._tables["en"] else key


Names = Callable[["Term", str], "str | None"]


class Formatter:
    """Phrases to text in one language: seats become labels, terms the game's names for them.

    ``names`` gives a term's name from the game's card data (suit names are data); a term it does
    not know is looked up in the catalogue as ``<kind>.<id>``. ``join`` is the catalogue key that
    joins a reason's phrases (:meth:`for_game` takes the game's own).

    >>> from companion.engine.tricks import Phrase, Seat, Term
    >>> catalog = Catalog({"en": {"seat.label": "P{n}", "phrase.join": "{first}; {then}",
    ...                           "won": "{winner}: highest {suit} ({value})", "suit.B": "bird"}})
    >>> Formatter(catalog, "en").reason([Phrase("won", {"winner": Seat(0), "suit": Term("suit", "B"), "value": 9})])
    'P1: highest bird (9)'

    A phrase may carry a clause (a phrase as a parameter), and a game may join phrases its own way:

    >>> catalog = Catalog({"en": {"seat.label": "P{n}", "j": "{first}. {then}", "won": "{winner} won{how}",
    ...                           "how.double": ", doubled", "next": "{seat} leads"}})
    >>> Formatter(catalog, "en", join="j").reason([Phrase("won", {"winner": Seat(1), "how": Phrase("how.double")}),
    ...                                          Phrase("next", {"seat": Seat(2)})])
    'P2 won, doubled. P3 leads'
    """

    def __init__(self, catalog: Catalog, lang: str, names: Names | None = None, join: str = "phrase.join",
                 wording: str = "") -> None:
        self.catalog, self.lang, self._names, self.join, self.wording = catalog, lang, names, join, wording

    @classmethod
    def for_game(cls, catalog: Catalog, lang: str, game: Any) -> Formatter:
        """A formatter with a trick-taking game's names for its terms, its way of joining phrases and
        its own wording of shared phrases (:meth:`Catalog.worded`)."""
        return cls(catalog, lang, game.term_name, game.reason_join, game.wording)

    def value(self, value: object) -> object:
        from companion.engine.tricks import Phrase, Seat, Term

        if isinstance(value, Seat):
            return self.catalog.text(self.lang, "seat.label", n=value.index + 1)
        if isinstance(value, Term):
            named = self._names(value, self.lang) if self._names is not None else None
            return named if named is not None else self.catalog.text(self.lang, f"{value.kind}.{value.id}")
        if isinstance(value, Phrase):
            return self.phrase(value)
        return value

    def phrase(self, phrase: Phrase) -> str:
        code = self.catalog.worded(phrase.code, self.wording)
        return self.catalog.text(self.lang, code, **{k: self.value(v) for k, v in phrase.params.items()})

    def reason(self, phrases: Sequence[Phrase]) -> str:
        """The phrases joined as one reason, the deciding one first."""
        text = ""
        for phrase in phrases:
            part = self.phrase(phrase)
            text = self.catalog.text(self.lang, self.join, first=text, then=part) if text else part
        return text


def load_seat_names() -> dict[str, list[str]]:
    """The short list of seat names offered at setup, per language (``i18n/seat-names.json``)."""
    return check_seat_names(_read(SEAT_NAMES_FILE))


def check_seat_names(data: object) -> dict[str, list[str]]:
    """Every language has at least four distinct names, each narrow enough for a table row.

    >>> names = {"en": ["Aki", "Ben", "Chie", "Dai"], "ja": ["あき", "べん", "ちえ", "だいすけ"]}
    >>> check_seat_names(names)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: i18n/seat-names.json: 'だいすけ' is too wide for a table row
    (4 half-width or 2 full-width characters)
    """
    if not isinstance(data, dict) or set(data) != set(LANGUAGES):
        raise ConfigError(f"i18n/{SEAT_NAMES_FILE} must map each of {', '.join(LANGUAGES)} to a list of names")
    for lang, names in data.items():
        if not isinstance(names, list) or len(names) < 4 or not all(isinstance(n, str) and n for n in names):
            raise ConfigError(f"i18n/{SEAT_NAMES_FILE}: {lang} needs at least 4 non-empty names")
        if len(set(names)) != len(names):
            raise ConfigError(f"i18n/{SEAT_NAMES_FILE}: {lang} lists a name twice")
        too_wide = [n for n in names if cells(n) > NAME_CELLS]
        if too_wide:
            raise ConfigError(
                f"i18n/{SEAT_NAMES_FILE}: {too_wide[0]!r} is too wide for a table row"
                f" ({NAME_CELLS} half-width or {NAME_CELLS // 2} full-width characters)"
            )
    return data
