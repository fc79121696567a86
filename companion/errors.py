"""One root exception for the product; each subclass also inherits the builtin it refines.

Callers that only know Python can catch ``ValueError``; callers that know the product can
catch :class:`CompanionError` and show ``str(err)``, which is always a sentence a player can read.
"""


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
