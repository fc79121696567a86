"""One root exception for the product; each subclass also inherits the builtin it refines.

Callers that only know Python can catch ``ValueError``; callers that know the product can
catch :class:`CompanionError` and show ``str(err)``, which is always a sentence a player can read;
:func:`quoted` keeps it a readable line when it repeats a value the user gave. It lives here, at
the bottom of the layers, because every reader of user input raises these errors.
"""

QUOTED_CHARS = 40
"""The most of a user's value a refusal repeats: enough to recognise it, never a page of it."""


def quoted(value: object, limit: int = QUOTED_CHARS) -> str:
    """``value`` quoted as ``!r`` would, for a message that refuses it; a longer one is cut to
    ``limit`` characters and its length said, so a pasted 5,000-digit key costs one readable line.

    >>> quoted("points:3:5")
    "'points:3:5'"
    >>> quoted("9" * 5000, 10)
    "'999999999'… (5000 characters)"
    >>> quoted(["x" * 50], 10)
    "['xxxxxxx… (54 characters)"
    """
    if not isinstance(value, str):
        shown = repr(value)
        return shown if len(shown) <= limit else f"{shown[: limit - 1]}… ({len(shown)} characters)"
    if len(value) <= limit:
        return repr(value)
    return f"{value[: limit - 1]!r}… ({len(value)} characters)"


class CompanionError(Exception):
    """Root of every error the product raises on purpose."""


class IllegalAction(CompanionError, ValueError):
    """An action the rules (or what the table can prove) forbid; the game is left unchanged.

    ``code`` and ``params`` say the same as the message in a form a screen can put into another
    language (``params`` hold ids, such as an ability's, not display names).
    """

    def __init__(self, message: str, *, code: str | None = None, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class IllegalPlay(IllegalAction):
    """A card or ability that cannot be played now."""


class NoSeat(CompanionError, LookupError):
    """A seat was asked of a decision the whole table makes (a card fact, an NPC's row): a caller's
    mistake, never a player's, raised so that "no seat" cannot pass for seat 0."""


class CardDataError(CompanionError, ValueError):
    """A card-data file (card tables, ability lists, board pin maps) failed validation."""


class RecordError(CompanionError, ValueError):
    """A game record (journal, export) is malformed; ``line`` names the 1-based line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class HardwareError(CompanionError, OSError):
    """A display, button or keypad could not be opened or driven."""


class ConfigError(CompanionError, ValueError):
    """A configuration file or command-line option is wrong."""


class StorageError(CompanionError, OSError):
    """The journal or a state file could not be read or written; the message names the file and why."""
