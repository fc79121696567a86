"""A session: the game on the table and the listeners that must hear of every accepted change.

The UI pushes actions through a session, never into the game directly, so that the journal (and
anything else listening) sees exactly what the game accepted, in order, and nothing it refused.

>>> from companion.carddata import printed_cards
>>> from companion.games.tezuma.rules import Tezuma2015
>>> heard = []
>>> session = Session(Tezuma2015(Tezuma2015.new_setup("ABC", cards=printed_cards("tezuma-2015"))))
>>> session.listeners.append(lambda change, data: heard.append((change, data)))
>>> session.push_text("penalty R")
>>> session.undo()
Draft(seat=0, kind='penalty', card='R')
>>> [change for change, _ in heard]
['action', 'undo']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.errors import IllegalAction, StorageError

if TYPE_CHECKING:  # the engine loads with the first game played, not with the setup form
    from companion.engine.base import Game

# change is "action" (data: the action's JSON) or "undo" (data: the dropped action's JSON)
Listener = Callable[[str, dict[str, Any]], None]


class Session:
    """Holds the current game; forwards every accepted push and undo to its listeners."""

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        self.listeners: list[Listener] = []

    def push(self, action: Any) -> None:
        """Push ``action``; an illegal one raises :class:`IllegalAction` and nobody hears of it.

        A listener that fails to store the action (a full disk) makes the push not happen: the
        game is rolled back and :class:`StorageError` says why, so the screen never shows a play
        the journal does not hold.
        """
        self.game.push(action)
        try:
            self._tell("action", action.to_json())
        except OSError as err:
            self.game.pop()
            raise StorageError(f"could not save the play, so it was taken back: {err}") from err

    def push_text(self, text: str) -> None:
        self.push(self.game.parse(text))

    def undo(self) -> Any:
        """Drop the last action; an error if there is none. A failure to store it works as in :meth:`push`."""
        if not self.game.actions:
            raise IllegalAction("nothing to undo")
        dropped = self.game.pop()
        try:
            self._tell("undo", dropped.to_json())
        except OSError as err:
            self.game.push(dropped)
            raise StorageError(f"could not save the undo, so the play stays: {err}") from err
        return dropped

    def _tell(self, change: str, data: dict[str, Any]) -> None:
        for listener in self.listeners:
            listener(change, data)
