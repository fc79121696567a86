"""Text a table sent, made safe for where the scoreboard shows it: a terminal and a spreadsheet.

Names, game ids and problem texts come from the tables, so a careless or hostile one can put
escape sequences in them (which clear the organiser's terminal or set its title) or a formula in a
name (which a spreadsheet would run when ``standings.csv`` is opened). The web page needs neither:
it only ever sets ``textContent``.

>>> printable("Aki\\x1b]0;pwned\\x07\\x1b[2J")
'Aki?]0;pwned??[2J'
>>> printable("x" * 50, 10)
'xxxxxxxxx…'
>>> columns("あき 5"), fit("あきこ", 5) + "|", fit("Aki", 5) + "|"
(6, 'あき…|', 'Aki  |')
>>> spreadsheet_safe("=HYPERLINK(\\"http://x\\")"), spreadsheet_safe("Aki"), spreadsheet_safe(-3)
('\\'=HYPERLINK("http://x")', 'Aki', -3)
"""

from __future__ import annotations

import unicodedata

from companion.text import printable  # the rule the replay uses too

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")  # what spreadsheets read as a formula (OWASP's list)


def _char_columns(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def columns(text: str) -> int:
    """Terminal columns ``text`` takes: Japanese (wide) characters take two."""
    return sum(_char_columns(c) for c in text)


def fit(text: str, width: int) -> str:
    """``text`` cut (with ``…``) and padded with spaces to exactly ``width`` terminal columns."""
    if columns(text) > width:
        kept, used = [], 0
        for char in text:
            if used + _char_columns(char) > width - 1:
                break
            kept.append(char)
            used += _char_columns(char)
        text = "".join(kept) + "…"
    return text + " " * (width - columns(text))


def spreadsheet_safe(cell: object) -> object:
    """A CSV cell that a spreadsheet shows as text: a leading ``'`` before what would be a formula.

    Numbers stay numbers; text is also made :func:`printable` (no control characters).
    """
    if not isinstance(cell, str):
        return cell
    value = printable(cell, 1000)
    return "'" + value if value.startswith(FORMULA_STARTS) else value
